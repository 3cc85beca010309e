/* SPDX-License-Identifier: MIT */
/* pfprof-trace-schema.c: column arrays for every trace table.
 *
 * See pfprof-trace-schema.h for the rules. Column order here is the on-disk
 * order; changing it is a format change.
 */
#include "pfprof-trace-schema.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* C11 _Generic rather than a (T)-1 < 0 test, which warns for unsigned T. */
#define IS_SIGNED(x)                                                           \
  _Generic ((x), int8_t: 1, int16_t: 1, int32_t: 1, int64_t: 1, default: 0)
#define COL(type, field, sql)                                                  \
  {                                                                            \
    sql, (uint16_t) offsetof (type, field), (uint8_t) sizeof (((type *) 0)->field), \
      IS_SIGNED (((type *) 0)->field), PFPROF_COLUMN_INT \
  }
#define DUR(type)                                                              \
  {                                                                            \
    "dur_ns", (uint16_t) offsetof (type, end_ns), 8, 1, PFPROF_COLUMN_DURATION \
  }
#define N_ELEMENTS(a) ((unsigned) (sizeof (a) / sizeof ((a)[0])))

static const PfprofTraceColumn kernel_columns[] = {
  COL (PfprofKernelRecord, start_ns, "start_ns"),
  DUR (PfprofKernelRecord),
  COL (PfprofKernelRecord, device_id, "device_id"),
  COL (PfprofKernelRecord, context_id, "context_id"),
  COL (PfprofKernelRecord, stream_id, "stream_id"),
  COL (PfprofKernelRecord, correlation_id, "correlation_id"),
  COL (PfprofKernelRecord, name_id, "name_id"),
  COL (PfprofKernelRecord, grid_x, "grid_x"),
  COL (PfprofKernelRecord, grid_y, "grid_y"),
  COL (PfprofKernelRecord, grid_z, "grid_z"),
  COL (PfprofKernelRecord, block_x, "block_x"),
  COL (PfprofKernelRecord, block_y, "block_y"),
  COL (PfprofKernelRecord, block_z, "block_z"),
  COL (PfprofKernelRecord, shared_mem_bytes, "shared_mem_bytes"),
  COL (PfprofKernelRecord, registers, "registers"),
};

static const PfprofTraceColumn memcpy_columns[] = {
  COL (PfprofMemcpyRecord, start_ns, "start_ns"),
  DUR (PfprofMemcpyRecord),
  COL (PfprofMemcpyRecord, bytes, "bytes"),
  COL (PfprofMemcpyRecord, device_id, "device_id"),
  COL (PfprofMemcpyRecord, context_id, "context_id"),
  COL (PfprofMemcpyRecord, stream_id, "stream_id"),
  COL (PfprofMemcpyRecord, correlation_id, "correlation_id"),
  COL (PfprofMemcpyRecord, runtime_correlation_id, "runtime_correlation_id"),
  COL (PfprofMemcpyRecord, copy_kind, "copy_kind"),
  COL (PfprofMemcpyRecord, src_kind, "src_kind"),
  COL (PfprofMemcpyRecord, dst_kind, "dst_kind"),
  COL (PfprofMemcpyRecord, flags, "flags"),
  COL (PfprofMemcpyRecord, channel_type, "channel_type"),
};

static const PfprofTraceColumn memset_columns[] = {
  COL (PfprofMemsetRecord, start_ns, "start_ns"),
  DUR (PfprofMemsetRecord),
  COL (PfprofMemsetRecord, bytes, "bytes"),
  COL (PfprofMemsetRecord, device_id, "device_id"),
  COL (PfprofMemsetRecord, context_id, "context_id"),
  COL (PfprofMemsetRecord, stream_id, "stream_id"),
  COL (PfprofMemsetRecord, correlation_id, "correlation_id"),
  COL (PfprofMemsetRecord, value, "value"),
  COL (PfprofMemsetRecord, memory_kind, "memory_kind"),
  COL (PfprofMemsetRecord, flags, "flags"),
};

static const PfprofTraceColumn sync_columns[] = {
  COL (PfprofSyncRecord, start_ns, "start_ns"),
  DUR (PfprofSyncRecord),
  COL (PfprofSyncRecord, context_id, "context_id"),
  COL (PfprofSyncRecord, stream_id, "stream_id"),
  COL (PfprofSyncRecord, correlation_id, "correlation_id"),
  COL (PfprofSyncRecord, event_id, "event_id"),
  COL (PfprofSyncRecord, event_sync_id, "event_sync_id"),
  COL (PfprofSyncRecord, type, "type"),
};

static const PfprofTraceColumn cuda_event_columns[] = {
  COL (PfprofCudaEventRecord, device_ts_ns, "device_ts_ns"),
  COL (PfprofCudaEventRecord, event_sync_id, "event_sync_id"),
  COL (PfprofCudaEventRecord, device_id, "device_id"),
  COL (PfprofCudaEventRecord, context_id, "context_id"),
  COL (PfprofCudaEventRecord, stream_id, "stream_id"),
  COL (PfprofCudaEventRecord, event_id, "event_id"),
  COL (PfprofCudaEventRecord, correlation_id, "correlation_id"),
};

static const PfprofTraceColumn api_columns[] = {
  COL (PfprofApiRecord, start_ns, "start_ns"),
  DUR (PfprofApiRecord),
  COL (PfprofApiRecord, tid, "tid"),
  COL (PfprofApiRecord, correlation_id, "correlation_id"),
  COL (PfprofApiRecord, cbid, "cbid"),
  COL (PfprofApiRecord, name_id, "name_id"),
  COL (PfprofApiRecord, return_value, "return_value"),
  COL (PfprofApiRecord, domain, "domain"),
};

static const PfprofTraceColumn nvtx_columns[] = {
  COL (PfprofNvtxRecord, start_ns, "start_ns"),
  DUR (PfprofNvtxRecord),
  COL (PfprofNvtxRecord, tid, "tid"),
  COL (PfprofNvtxRecord, domain_id, "domain_id"),
  COL (PfprofNvtxRecord, name_id, "name_id"),
  COL (PfprofNvtxRecord, category, "category"),
  COL (PfprofNvtxRecord, color, "color"),
  COL (PfprofNvtxRecord, depth, "depth"),
  COL (PfprofNvtxRecord, kind, "kind"),
};

static const PfprofTraceColumn memory_columns[] = {
  COL (PfprofMemoryRecord, ts_ns, "ts_ns"),
  COL (PfprofMemoryRecord, address, "address"),
  COL (PfprofMemoryRecord, bytes, "bytes"),
  COL (PfprofMemoryRecord, device_id, "device_id"),
  COL (PfprofMemoryRecord, context_id, "context_id"),
  COL (PfprofMemoryRecord, stream_id, "stream_id"),
  COL (PfprofMemoryRecord, correlation_id, "correlation_id"),
  COL (PfprofMemoryRecord, operation, "operation"),
  COL (PfprofMemoryRecord, memory_kind, "memory_kind"),
  COL (PfprofMemoryRecord, pool_type, "pool_type"),
};

static const PfprofTraceColumn overhead_columns[] = {
  COL (PfprofOverheadRecord, start_ns, "start_ns"),
  DUR (PfprofOverheadRecord),
  COL (PfprofOverheadRecord, object_id, "object_id"),
  COL (PfprofOverheadRecord, overhead_kind, "overhead_kind"),
  COL (PfprofOverheadRecord, object_kind, "object_kind"),
};

static const PfprofTraceColumn device_columns[] = {
  COL (PfprofDeviceRecord, device_id, "device_id"),
  COL (PfprofDeviceRecord, name_id, "name_id"),
  COL (PfprofDeviceRecord, uuid_id, "uuid_id"),
  COL (PfprofDeviceRecord, cc_major, "cc_major"),
  COL (PfprofDeviceRecord, cc_minor, "cc_minor"),
  COL (PfprofDeviceRecord, sm_count, "sm_count"),
  COL (PfprofDeviceRecord, global_memory_bytes, "global_memory_bytes"),
};

static const PfprofTraceColumn context_columns[] = {
  COL (PfprofContextRecord, context_id, "context_id"),
  COL (PfprofContextRecord, device_id, "device_id"),
  COL (PfprofContextRecord, null_stream_id, "null_stream_id"),
};

static const PfprofTraceColumn stream_columns[] = {
  COL (PfprofStreamRecord, stream_id, "stream_id"),
  COL (PfprofStreamRecord, context_id, "context_id"),
  COL (PfprofStreamRecord, device_id, "device_id"),
  COL (PfprofStreamRecord, flags, "flags"),
  COL (PfprofStreamRecord, priority, "priority"),
  COL (PfprofStreamRecord, correlation_id, "correlation_id"),
};

static const PfprofTraceColumn thread_columns[] = {
  COL (PfprofThreadRecord, tid, "tid"),
  COL (PfprofThreadRecord, name_id, "name_id"),
};

static const PfprofTraceColumn python_site_columns[] = {
  COL (PfprofPythonSiteRecord, site_id, "site_id"),
  COL (PfprofPythonSiteRecord, kind, "kind"),
  COL (PfprofPythonSiteRecord, api_id, "api_id"),
  COL (PfprofPythonSiteRecord, file_id, "file_id"),
  COL (PfprofPythonSiteRecord, line, "line"),
  COL (PfprofPythonSiteRecord, function_id, "function_id"),
  COL (PfprofPythonSiteRecord, caller_file_id, "caller_file_id"),
  COL (PfprofPythonSiteRecord, caller_line, "caller_line"),
  COL (PfprofPythonSiteRecord, caller_function_id, "caller_function_id"),
  COL (PfprofPythonSiteRecord, calls, "calls"),
};

static const PfprofTraceColumn python_call_columns[] = {
  COL (PfprofPythonCallRecord, start_ns, "start_ns"),
  DUR (PfprofPythonCallRecord),
  COL (PfprofPythonCallRecord, tid, "tid"),
  COL (PfprofPythonCallRecord, site_id, "site_id"),
};

static const PfprofTraceColumn window_columns[] = {
  COL (PfprofWindowRecord, start_ns, "start_ns"),
  DUR (PfprofWindowRecord),
};

static const PfprofTraceColumn worker_event_columns[] = {
  COL (PfprofWorkerEventRecord, start_ns, "start_ns"),
  DUR (PfprofWorkerEventRecord),
  COL (PfprofWorkerEventRecord, kind, "kind"),
  COL (PfprofWorkerEventRecord, pid, "pid"),
  COL (PfprofWorkerEventRecord, worker_id, "worker_id"),
  COL (PfprofWorkerEventRecord, batch, "batch"),
  COL (PfprofWorkerEventRecord, site_id, "site_id"),
  COL (PfprofWorkerEventRecord, value_a, "value_a"),
  COL (PfprofWorkerEventRecord, value_b, "value_b"),
};

#define TABLE(sql, type, cols, time)                                           \
  {                                                                            \
    sql, sizeof (type), cols, N_ELEMENTS (cols), time                          \
  }

static const PfprofTraceTable tables[PFPROF_N_TABLES] = {
  [PFPROF_TABLE_KERNELS] = TABLE ("kernels", PfprofKernelRecord, kernel_columns, "start_ns"),
  [PFPROF_TABLE_MEMCPYS] = TABLE ("memcpys", PfprofMemcpyRecord, memcpy_columns, "start_ns"),
  [PFPROF_TABLE_MEMSETS] = TABLE ("memsets", PfprofMemsetRecord, memset_columns, "start_ns"),
  [PFPROF_TABLE_SYNCS] = TABLE ("syncs", PfprofSyncRecord, sync_columns, "start_ns"),
  [PFPROF_TABLE_CUDA_EVENTS] = TABLE ("cuda_events", PfprofCudaEventRecord, cuda_event_columns, NULL),
  [PFPROF_TABLE_API_CALLS] = TABLE ("api_calls", PfprofApiRecord, api_columns, "start_ns"),
  [PFPROF_TABLE_NVTX] = TABLE ("nvtx", PfprofNvtxRecord, nvtx_columns, "start_ns"),
  [PFPROF_TABLE_MEMORY] = TABLE ("memory", PfprofMemoryRecord, memory_columns, "ts_ns"),
  [PFPROF_TABLE_OVERHEAD] = TABLE ("overhead", PfprofOverheadRecord, overhead_columns, NULL),
  [PFPROF_TABLE_PYTHON_CALLS] = TABLE ("python_calls", PfprofPythonCallRecord, python_call_columns, "start_ns"),
  [PFPROF_TABLE_WINDOWS] = TABLE ("windows", PfprofWindowRecord, window_columns, "start_ns"),
  [PFPROF_TABLE_WORKER_EVENTS] = TABLE ("worker_events", PfprofWorkerEventRecord, worker_event_columns, "start_ns"),
  [PFPROF_TABLE_DEVICES] = TABLE ("devices", PfprofDeviceRecord, device_columns, NULL),
  [PFPROF_TABLE_CONTEXTS] = TABLE ("contexts", PfprofContextRecord, context_columns, NULL),
  [PFPROF_TABLE_STREAMS] = TABLE ("streams", PfprofStreamRecord, stream_columns, NULL),
  [PFPROF_TABLE_THREADS] = TABLE ("threads", PfprofThreadRecord, thread_columns, NULL),
  [PFPROF_TABLE_PYTHON_SITES] = TABLE ("python_sites", PfprofPythonSiteRecord, python_site_columns, NULL),
};

const PfprofTraceTable *
pfprof_trace_schema_table (PfprofTableId id)
{
  if ((unsigned) id >= PFPROF_N_TABLES)
    return NULL;
  return &tables[id];
}

/* snprintf that appends at *pos and keeps counting past the end, so the
 * caller learns the size it needs. */
static void
append (char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
  va_list ap;
  int n;

  va_start (ap, fmt);
  n = vsnprintf (*pos < len ? buf + *pos : NULL, *pos < len ? len - *pos : 0, fmt, ap);
  va_end (ap);
  if (n > 0)
    *pos += (size_t) n;
}

size_t
pfprof_trace_schema_create_sql (char *buf, size_t len)
{
  size_t pos = 0;

  if (len > 0)
    buf[0] = '\0';
  append (buf, len, &pos,
          "CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT) WITHOUT ROWID;\n"
          "CREATE TABLE strings (id INTEGER PRIMARY KEY, value TEXT NOT NULL);\n");
  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    {
      append (buf, len, &pos, "CREATE TABLE %s (", tables[t].name);
      for (unsigned c = 0; c < tables[t].n_columns; c++)
        append (buf, len, &pos, "%s%s INTEGER NOT NULL", c ? ", " : "", tables[t].columns[c].name);
      append (buf, len, &pos, ");\n");
    }
  return pos;
}

int
pfprof_trace_schema_is_chunked (PfprofTableId id)
{
  /* Event tables come first in PfprofTableId. */
  return (unsigned) id < PFPROF_TABLE_DEVICES;
}

int
pfprof_trace_schema_table_by_name (const char *name)
{
  if (name == NULL)
    return -1;
  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    if (strcmp (tables[t].name, name) == 0)
      return (int) t;
  return -1;
}

size_t
pfprof_trace_schema_create_chunked_sql (char *buf, size_t len)
{
  size_t pos = 0;

  if (len > 0)
    buf[0] = '\0';
  append (buf, len, &pos,
          "CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT) WITHOUT ROWID;\n"
          "CREATE TABLE strings (id INTEGER PRIMARY KEY, value TEXT NOT NULL);\n"
          "CREATE TABLE " PFPROF_TRACE_CHUNKS_TABLE " (id INTEGER PRIMARY KEY, table_name TEXT NOT NULL,"
          " n INTEGER NOT NULL, min_ns INTEGER NOT NULL, max_ns INTEGER NOT NULL, data BLOB NOT NULL);\n"
          "CREATE TABLE chunk_columns (table_name TEXT NOT NULL, position INTEGER NOT NULL,"
          " name TEXT NOT NULL, duration INTEGER NOT NULL, PRIMARY KEY (table_name, position))"
          " WITHOUT ROWID;\n");
  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    {
      if (pfprof_trace_schema_is_chunked ((PfprofTableId) t))
        {
          for (unsigned c = 0; c < tables[t].n_columns; c++)
            append (buf, len, &pos, "INSERT INTO chunk_columns VALUES ('%s', %u, '%s', %d);\n",
                    tables[t].name, c, tables[t].columns[c].name,
                    tables[t].columns[c].kind == PFPROF_COLUMN_DURATION);
          continue;
        }
      append (buf, len, &pos, "CREATE TABLE %s (", tables[t].name);
      for (unsigned c = 0; c < tables[t].n_columns; c++)
        append (buf, len, &pos, "%s%s INTEGER NOT NULL", c ? ", " : "", tables[t].columns[c].name);
      append (buf, len, &pos, ");\n");
    }
  return pos;
}

size_t
pfprof_trace_schema_index_sql (char *buf, size_t len)
{
  size_t pos = 0;

  if (len > 0)
    buf[0] = '\0';
  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    if (tables[t].time_column != NULL)
      append (buf, len, &pos, "CREATE INDEX IF NOT EXISTS %s_by_time ON %s (%s);\n",
              tables[t].name, tables[t].name, tables[t].time_column);
  return pos;
}

int64_t
pfprof_trace_column_get (const PfprofTraceColumn *col, const void *record)
{
  const unsigned char *p = (const unsigned char *) record + col->offset;

  switch (col->width)
    {
    case 1:
      return col->is_signed ? (int64_t) *(const int8_t *) p : (int64_t) *(const uint8_t *) p;
    case 2:
      return col->is_signed ? (int64_t) *(const int16_t *) p : (int64_t) *(const uint16_t *) p;
    case 4:
      return col->is_signed ? (int64_t) *(const int32_t *) p : (int64_t) *(const uint32_t *) p;
    default:
      /* uint64 values above INT64_MAX (addresses) round-trip bit-exactly
       * through SQLite's signed 64-bit integers. */
      return *(const int64_t *) p;
    }
}

int
pfprof_trace_column_set (const PfprofTraceColumn *col, void *record, int64_t value)
{
  unsigned char *p = (unsigned char *) record + col->offset;

  switch (col->width)
    {
    case 1:
      if (col->is_signed ? (value < INT8_MIN || value > INT8_MAX) : (value < 0 || value > UINT8_MAX))
        return -1;
      if (col->is_signed)
        *(int8_t *) p = (int8_t) value;
      else
        *(uint8_t *) p = (uint8_t) value;
      return 0;
    case 2:
      if (col->is_signed ? (value < INT16_MIN || value > INT16_MAX) : (value < 0 || value > UINT16_MAX))
        return -1;
      if (col->is_signed)
        *(int16_t *) p = (int16_t) value;
      else
        *(uint16_t *) p = (uint16_t) value;
      return 0;
    case 4:
      if (col->is_signed ? (value < INT32_MIN || value > INT32_MAX) : (value < 0 || value > UINT32_MAX))
        return -1;
      if (col->is_signed)
        *(int32_t *) p = (int32_t) value;
      else
        *(uint32_t *) p = (uint32_t) value;
      return 0;
    default:
      *(int64_t *) p = value;
      return 0;
    }
}

/* API calls no rule needs and that PyTorch makes thousands of times per
 * step (cudaGetDevice alone was over half of all records on the H200):
 * the collector leaves them out (recording them cost more step time than
 * everything else together), and the importers drop them from traces of
 * other tools, so every trace holds the same calls. Name prefixes. */
static const char *const api_noise[] = {
  "cudaGet",   "cudaPeekAtLastError", "cudaDeviceGet", "cudaFuncGet", "cudaFuncSet",
  "cudaOccupancy", "cudaStreamIsCapturing", "cudaStreamGet", "cudaPointerGet", "cudaDriverGetVersion",
  "cudaRuntimeGetVersion", "cudaThreadGet", "cudaChooseDevice",
  "cuGet",     "cuDeviceGet", "cuDevicePrimaryCtxGetState", "cuCtxGet", "cuKernelGet", "cuFuncGet",
  "cuOccupancy", "cuLibraryGet", "cuModuleGet", "cuPointerGet", "cuStreamGet", "cuDriverGetVersion",
  "cuStreamIsCapturing", "cuDeviceCanAccessPeer", "cuDeviceTotalMem", "cuDeviceComputeCapability",
};

int
pfprof_trace_schema_api_is_noise (const char *name)
{
  if (name == NULL)
    return 0;
  for (size_t i = 0; i < sizeof api_noise / sizeof api_noise[0]; i++)
    if (strncmp (name, api_noise[i], strlen (api_noise[i])) == 0)
      return 1;
  return 0;
}
