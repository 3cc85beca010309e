/* SPDX-License-Identifier: MIT */
/* pfprof-trace-schema.h: the one definition of the trace file format.
 *
 * A trace is one SQLite database. Every table holds integer columns only;
 * strings live in the `strings` table and are referenced by id. The tables
 * below are described once, as arrays of PfprofTraceColumn, and everything
 * else derives from that description: the CREATE TABLE statements, the
 * writer's chunk encoder and INSERTs (trace/pfprof-trace-writer.c,
 * trace/pfprof-trace-chunk.c), the reader's decoder and SELECTs
 * (analyzer/read/pfprof-trace-reader.c), and the test that checks
 * docs/trace-format.md names every column. So writer, reader and
 * documentation cannot drift.
 *
 * Format 2 (what the writer writes) keeps meta, strings and the object
 * tables (devices, contexts, streams, threads) as row tables, and stores
 * the event tables as compressed column chunks in the one table `chunks`
 * (pfprof-trace-chunk.h). Format 1 stored every table as rows; readers
 * still read it, and the writer still writes it on request
 * (PFPROF_WRITER_ROWS, used by `pfprof export --format sqlite`).
 *
 * In memory a row is a plain C struct (PfprofKernelRecord, ...). A column
 * names the struct field by offset and width. Durations are stored on disk
 * as `dur_ns` (small varints) and held in memory as `end_ns`.
 *
 * Plain C11, no GLib: the collector uses this header.
 *
 * How to add a column: add the field to the record struct, add one line to
 * its table's column array in pfprof-trace-schema.c, document it in
 * docs/trace-format.md, and bump PFPROF_TRACE_FORMAT_MINOR (readers of the
 * same major version ignore columns they do not know; new columns go at the
 * end of the array, since chunks store columns by position). Removing or
 * changing the meaning of a column bumps the major version.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Readers refuse a file whose major version is newer than theirs. */
#define PFPROF_TRACE_FORMAT_MAJOR 2
#define PFPROF_TRACE_FORMAT_MINOR 3

/* The version of a file written with PFPROF_WRITER_ROWS: every table as
 * rows, as format 1 had it. */
#define PFPROF_TRACE_ROWS_FORMAT_MAJOR 1
#define PFPROF_TRACE_ROWS_FORMAT_MINOR 3

/* Name of the table holding the event chunks of format 2. */
#define PFPROF_TRACE_CHUNKS_TABLE "chunks"

/* Stored in SQLite's header (PRAGMA application_id) so a foreign SQLite
 * database is told apart from a trace before any table is read: "PFPF". */
#define PFPROF_TRACE_APPLICATION_ID 0x50465046

/* Id of "no such object" in id columns (a stream-less sync, an unknown
 * string). */
#define PFPROF_NONE UINT32_MAX

/* Enum values follow CUPTI 13.0's numbering so that a value in a trace can
 * be looked up in cupti_activity.h. Only the values the analyzer names are
 * repeated here. */
typedef enum
{
  PFPROF_COPY_KIND_UNKNOWN = 0, /* CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN */
  PFPROF_COPY_KIND_HTOD = 1,    /* CUPTI_ACTIVITY_MEMCPY_KIND_HTOD */
  PFPROF_COPY_KIND_DTOH = 2,    /* CUPTI_ACTIVITY_MEMCPY_KIND_DTOH */
  PFPROF_COPY_KIND_DTOD = 8,    /* CUPTI_ACTIVITY_MEMCPY_KIND_DTOD */
  PFPROF_COPY_KIND_HTOH = 9,    /* CUPTI_ACTIVITY_MEMCPY_KIND_HTOH */
  PFPROF_COPY_KIND_PTOP = 10,   /* CUPTI_ACTIVITY_MEMCPY_KIND_PTOP */
} PfprofCopyKind;

typedef enum
{
  PFPROF_MEMORY_KIND_UNKNOWN = 0,  /* CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN */
  PFPROF_MEMORY_KIND_PAGEABLE = 1, /* CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE */
  PFPROF_MEMORY_KIND_PINNED = 2,   /* CUPTI_ACTIVITY_MEMORY_KIND_PINNED */
  PFPROF_MEMORY_KIND_DEVICE = 3,   /* CUPTI_ACTIVITY_MEMORY_KIND_DEVICE */
  PFPROF_MEMORY_KIND_ARRAY = 4,    /* CUPTI_ACTIVITY_MEMORY_KIND_ARRAY */
  PFPROF_MEMORY_KIND_MANAGED = 5,  /* CUPTI_ACTIVITY_MEMORY_KIND_MANAGED */
  PFPROF_MEMORY_KIND_DEVICE_STATIC = 6,
  PFPROF_MEMORY_KIND_MANAGED_STATIC = 7,
} PfprofMemoryKind;

/* CUPTI_ACTIVITY_MEMCPY_FLAG_ASYNC */
#define PFPROF_MEMCPY_FLAG_ASYNC 1

typedef enum
{
  PFPROF_SYNC_UNKNOWN = 0,
  PFPROF_SYNC_EVENT_SYNCHRONIZE = 1,   /* also emitted for cudaEventQuery */
  PFPROF_SYNC_STREAM_WAIT_EVENT = 2,
  PFPROF_SYNC_STREAM_SYNCHRONIZE = 3,
  PFPROF_SYNC_CONTEXT_SYNCHRONIZE = 4,
} PfprofSyncType;

/* CUpti_ActivityKind values of API records. */
typedef enum
{
  PFPROF_API_DRIVER = 4,  /* CUPTI_ACTIVITY_KIND_DRIVER */
  PFPROF_API_RUNTIME = 5, /* CUPTI_ACTIVITY_KIND_RUNTIME */
} PfprofApiDomain;

/* CUpti_ActivityMemoryOperationType */
typedef enum
{
  PFPROF_MEMORY_OP_ALLOCATION = 1,
  PFPROF_MEMORY_OP_RELEASE = 2,
} PfprofMemoryOp;

/* pfprof's own numbering: NVTX has no activity-kind for these. */
typedef enum
{
  PFPROF_NVTX_RANGE = 1, /* push/pop or start/end range */
  PFPROF_NVTX_MARK = 2,  /* instantaneous mark, dur_ns = 0 */
} PfprofNvtxKind;

/* NVTX domain and range names written by the launcher's Python hook
 * (cli/pfprof_sitecustomize.py); the analyzer keys on them. */
#define PFPROF_NVTX_DOMAIN_PFPROF "pfprof"
#define PFPROF_NVTX_DATALOADER_WAIT "DataLoader.next"
/* Marks of the training loop: an optimizer step taken (after it ran) and
 * a backward pass started. A step with either is a training step; loader
 * batches without them are evaluation. torch.profiler traces carry the
 * optimizer's own "Optimizer.step#SGD.step" ranges instead. */
#define PFPROF_NVTX_OPTIMIZER_STEP "Optimizer.step"
#define PFPROF_NVTX_BACKWARD "backward"

/* What a Python call site called (python_sites.kind): the entry points
 * the launcher's Python hook wraps. pfprof's own numbering. */
typedef enum
{
  PFPROF_SITE_COPY = 1,          /* Tensor.to / .cuda / .cpu */
  PFPROF_SITE_SYNC = 2,          /* Tensor.item, torch.cuda.synchronize */
  PFPROF_SITE_RECORD_STREAM = 3, /* Tensor.record_stream */
  PFPROF_SITE_PIN = 4,           /* Tensor.pin_memory, torch.empty (pin_memory=True) */
  PFPROF_SITE_DATALOADER = 5,    /* DataLoader iterator __next__ */
  PFPROF_SITE_WORKER_STAGE = 6,  /* a stage inside a DataLoader worker (worker_events) */
} PfprofSiteKind;

/* What a worker_events row says (worker_events.kind), written by the
 * hook's DataLoader recording (cli/pfprof_workers.py, which numbers them
 * the same); value_a and value_b mean what each kind says. */
typedef enum
{
  PFPROF_WORKER_CLOCK = 1,  /* a process started recording: a = cores allowed x 1000, b = num_workers */
  PFPROF_WORKER_BATCH = 2,  /* indices got to put on the queue; a, b = collate start, end; site_id = samples */
  PFPROF_WORKER_FAILED = 3, /* as BATCH, the batch raised */
  PFPROF_WORKER_STAGE = 4,  /* site_id's stage over a batch: a = ns summed, b = calls */
  PFPROF_WORKER_CPU = 5,    /* a = the worker's CPU ns since it started, b = its wall ns since then */
  PFPROF_WORKER_GOT = 6,    /* main process: off the queue to handed out; a = asked, b = iterator serial;
                             * site_id = batches the iterator handed out before */
  PFPROF_WORKER_PIN = 7,    /* main process, pin thread: a = thread CPU ns, b = its tid */
} PfprofWorkerEventKind;

/* How many of a site's first calls the hook records with their times;
 * of the later calls it times a thinning sample (at most 160) and counts
 * the rest (python_sites.calls). */
#define PFPROF_SITE_RECORDED_CALLS 16

/* NVTX ranges of this domain are the program's own Python frames, named
 * as torch.profiler names them ("train.py(57): train_step"); importers of
 * traces with Python stacks write them, and findings name the innermost
 * one around their example call. */
#define PFPROF_NVTX_DOMAIN_PYTHON "python"

/* ---- Records: one struct per event table ---------------------------- */

typedef struct
{
  int64_t start_ns;        /* CUPTI timestamp, ns */
  int64_t end_ns;          /* stored as dur_ns */
  uint32_t device_id;      /* CUPTI device id */
  uint32_t context_id;     /* CUPTI context id */
  uint32_t stream_id;      /* CUPTI stream id */
  uint32_t correlation_id; /* joins the launching API record */
  uint32_t name_id;        /* strings.id of the (mangled) kernel name */
  int32_t grid_x;
  int32_t shared_mem_bytes; /* static + dynamic */
  /* CUDA bounds these (grid y and z 65535, block 1024, 255 registers a
   * thread): 16 bits each keep the record at 56 bytes, not 72, which is
   * tens of megabytes of every large trace in memory. */
  uint16_t grid_y, grid_z;
  uint16_t block_x, block_y, block_z;
  uint16_t registers;       /* per thread */
} PfprofKernelRecord;

/* @v saturated to a u16 field (0 below, 65535 above): what the collector
 * and the importers store in the kernel record's narrow fields, so that
 * an out-of-range value from CUPTI or another tool's file is kept at its
 * bound rather than wrapped, or written into a trace the reader refuses. */
static inline uint16_t
pfprof_trace_u16 (int64_t v)
{
  return v < 0 ? 0 : v > UINT16_MAX ? UINT16_MAX : (uint16_t) v;
}

typedef struct
{
  int64_t start_ns;
  int64_t end_ns;
  uint64_t bytes;
  uint32_t device_id;
  uint32_t context_id;
  uint32_t stream_id;
  uint32_t correlation_id;         /* driver or runtime API record */
  uint32_t runtime_correlation_id; /* runtime record, 0 if none */
  uint8_t copy_kind;               /* PfprofCopyKind */
  uint8_t src_kind;                /* PfprofMemoryKind */
  uint8_t dst_kind;                /* PfprofMemoryKind */
  uint8_t flags;                   /* CUpti_ActivityFlag bits */
  uint8_t channel_type;            /* CUpti_ChannelType */
} PfprofMemcpyRecord;

typedef struct
{
  int64_t start_ns;
  int64_t end_ns;
  uint64_t bytes;
  uint32_t device_id;
  uint32_t context_id;
  uint32_t stream_id;
  uint32_t correlation_id;
  uint32_t value;      /* byte value written */
  uint8_t memory_kind; /* PfprofMemoryKind */
  uint8_t flags;
} PfprofMemsetRecord;

typedef struct
{
  int64_t start_ns;
  int64_t end_ns;
  uint32_t context_id;
  uint32_t stream_id;      /* PFPROF_NONE for context/event syncs */
  uint32_t correlation_id; /* joins the API record (cudaEventQuery vs ...) */
  uint32_t event_id;       /* CUPTI event id, PFPROF_NONE if none */
  uint64_t event_sync_id;  /* joins cuda_events.event_sync_id */
  uint8_t type;            /* PfprofSyncType */
} PfprofSyncRecord;

typedef struct
{
  int64_t device_ts_ns;    /* when the GPU reached the event, 0 if unknown */
  uint64_t event_sync_id;  /* joins syncs.event_sync_id */
  uint32_t device_id;
  uint32_t context_id;
  uint32_t stream_id;      /* stream the event was recorded on */
  uint32_t event_id;
  uint32_t correlation_id; /* the cudaEventRecord call */
} PfprofCudaEventRecord;

typedef struct
{
  int64_t start_ns;
  int64_t end_ns;
  uint32_t tid;            /* system thread id (gettid) */
  uint32_t correlation_id;
  uint32_t cbid;           /* CUPTI callback id within the domain */
  uint32_t name_id;        /* strings.id of e.g. "cudaMemcpyAsync" */
  int32_t return_value;    /* cudaError_t / CUresult */
  uint8_t domain;          /* PfprofApiDomain */
} PfprofApiRecord;

typedef struct
{
  int64_t start_ns;
  int64_t end_ns;          /* == start_ns for marks */
  uint32_t tid;
  uint32_t domain_id;      /* strings.id; PFPROF_NONE = default domain */
  uint32_t name_id;
  uint32_t category;
  uint32_t color;          /* ARGB, 0 if none */
  uint16_t depth;          /* push/pop nesting level, 0 = outermost */
  uint8_t kind;            /* PfprofNvtxKind */
} PfprofNvtxRecord;

typedef struct
{
  int64_t ts_ns;
  uint64_t address;
  uint64_t bytes;
  uint32_t device_id;
  uint32_t context_id;
  uint32_t stream_id;      /* PFPROF_NONE unless stream-ordered */
  uint32_t correlation_id;
  uint8_t operation;       /* PfprofMemoryOp */
  uint8_t memory_kind;     /* PfprofMemoryKind */
  uint8_t pool_type;       /* CUpti_ActivityMemoryPoolType */
} PfprofMemoryRecord;

typedef struct
{
  int64_t start_ns;
  int64_t end_ns;
  uint32_t object_id;      /* thread id or device id, by object_kind */
  uint32_t overhead_kind;  /* CUpti_ActivityOverheadKind (1<<16 and up: no uint8) */
  uint8_t object_kind;     /* CUpti_ActivityObjectKind */
} PfprofOverheadRecord;

typedef struct
{
  uint32_t device_id;
  uint32_t name_id;        /* strings.id, e.g. "NVIDIA H200" */
  uint32_t uuid_id;        /* strings.id, "GPU-xxxxxxxx-..." */
  int32_t cc_major;
  int32_t cc_minor;
  int32_t sm_count;
  uint64_t global_memory_bytes;
} PfprofDeviceRecord;

typedef struct
{
  uint32_t context_id;
  uint32_t device_id;
  uint32_t null_stream_id;
} PfprofContextRecord;

typedef struct
{
  uint32_t stream_id;
  uint32_t context_id;
  uint32_t device_id;
  uint32_t flags;          /* cudaStreamNonBlocking = 1 */
  int32_t priority;
  uint32_t correlation_id;
} PfprofStreamRecord;

typedef struct
{
  uint32_t tid;
  uint32_t name_id;
} PfprofThreadRecord;

/* A line of the user's Python code that called a wrapped entry point
 * (PfprofSiteKind): the first frame outside torch, the standard library
 * and the hook, and the frame that called it. The hook writes a row when
 * it first records the site and again with the final count when the
 * process exits; readers keep the row with the largest `calls`. */
typedef struct
{
  uint32_t site_id;        /* joins python_calls.site_id; per process */
  uint32_t api_id;         /* strings.id of the entry point, e.g. "Tensor.cuda" */
  uint32_t file_id;        /* strings.id of the source file, as Python names it */
  uint32_t function_id;    /* strings.id of the function (co_qualname) */
  uint32_t caller_file_id; /* the frame that called it; PFPROF_NONE if none */
  uint32_t caller_function_id;
  int32_t line;            /* 1-based */
  int32_t caller_line;     /* 0 if none */
  uint64_t calls;          /* calls counted when the row was written */
  uint8_t kind;            /* PfprofSiteKind */
} PfprofPythonSiteRecord;

/* One recorded call of a site (its first PFPROF_SITE_RECORDED_CALLS, then
 * a thinning sample of the later ones):
 * when the wrapped entry point ran, on which thread. */
typedef struct
{
  int64_t start_ns;        /* CUPTI clock */
  int64_t end_ns;          /* stored as dur_ns */
  uint32_t tid;            /* system thread id, as api_calls.tid */
  uint32_t site_id;        /* python_sites.site_id */
} PfprofPythonCallRecord;

/* One row of what the hook recorded inside the DataLoader
 * (PfprofWorkerEventKind): by a worker process, or by the main process
 * about a batch it got or pinned. Written by the main process's
 * collector when it exits; docs/trace-format.md says each kind's fields. */
typedef struct
{
  int64_t start_ns;        /* CUPTI clock */
  int64_t end_ns;          /* stored as dur_ns */
  int64_t batch;           /* the batch's index in its epoch; 0 for CLOCK */
  int64_t value_a;         /* by kind; a time is on the CUPTI clock, 0 if unknown */
  int64_t value_b;
  uint32_t pid;            /* the worker's process id (main process rows: the worker's, 0 for PIN) */
  uint32_t site_id;        /* STAGE: python_sites.site_id; BATCH: samples; GOT: batches before */
  uint16_t worker_id;      /* the DataLoader's worker number */
  uint8_t kind;            /* PfprofWorkerEventKind */
} PfprofWorkerEventRecord;

/* A stretch of time the collector recorded, in a trace recorded with
 * --sample (nothing else writes these rows: a trace without any was
 * recorded all through its span). Between two windows the collector had
 * every timed kind and callback off, so the gap holds nothing of what the
 * program did, which is not idle time. */
typedef struct
{
  int64_t start_ns;        /* CUPTI clock, as the events */
  int64_t end_ns;          /* stored as dur_ns */
} PfprofWindowRecord;

/* ---- Table description ---------------------------------------------- */

typedef enum
{
  PFPROF_TABLE_KERNELS,
  PFPROF_TABLE_MEMCPYS,
  PFPROF_TABLE_MEMSETS,
  PFPROF_TABLE_SYNCS,
  PFPROF_TABLE_CUDA_EVENTS,
  PFPROF_TABLE_API_CALLS,
  PFPROF_TABLE_NVTX,
  PFPROF_TABLE_MEMORY,
  PFPROF_TABLE_OVERHEAD,
  PFPROF_TABLE_PYTHON_CALLS,
  PFPROF_TABLE_WINDOWS,
  PFPROF_TABLE_WORKER_EVENTS,
  PFPROF_TABLE_DEVICES,
  PFPROF_TABLE_CONTEXTS,
  PFPROF_TABLE_STREAMS,
  PFPROF_TABLE_THREADS,
  PFPROF_TABLE_PYTHON_SITES,
  PFPROF_N_TABLES
} PfprofTableId;

typedef enum
{
  PFPROF_COLUMN_INT,      /* signed or unsigned integer of `width` bytes */
  PFPROF_COLUMN_DURATION, /* on disk: value - start_ns; `offset` is end_ns */
} PfprofColumnKind;

typedef struct
{
  const char *name;      /* SQL column name */
  uint16_t offset;       /* of the field in the record struct */
  uint8_t width;         /* 1, 2, 4 or 8 bytes */
  uint8_t is_signed;     /* sign-extend on read */
  uint8_t kind;          /* PfprofColumnKind */
} PfprofTraceColumn;

typedef struct
{
  const char *name;                 /* SQL table name */
  size_t record_size;               /* sizeof the record struct */
  const PfprofTraceColumn *columns; /* in on-disk order */
  unsigned n_columns;
  const char *time_column;          /* indexed at finish, NULL if none */
} PfprofTraceTable;

/* The description of table @id; never NULL for id < PFPROF_N_TABLES. */
const PfprofTraceTable *pfprof_trace_schema_table (PfprofTableId id);

/* Whether table @id is an event table, stored as chunks in format 2 (the
 * object tables stay row tables). */
int pfprof_trace_schema_is_chunked (PfprofTableId id);

/* The id of the table named @name, or -1. */
int pfprof_trace_schema_table_by_name (const char *name);

/* Writes the CREATE TABLE statements of format 1 (meta, strings and every
 * table as rows) into @buf of @len bytes, NUL-terminated. Returns the
 * length needed without the NUL, like snprintf; a caller retries with a
 * larger buffer when the return value is >= @len. */
size_t pfprof_trace_schema_create_sql (char *buf, size_t len);

/* The same for format 2: meta, strings, the object tables as rows, the
 * `chunks` table and `chunk_columns`, the description of each event
 * table's chunk columns (for tools that decode chunks without this
 * header). */
size_t pfprof_trace_schema_create_chunked_sql (char *buf, size_t len);

/* Writes the statements that create the time indexes of format 1, built
 * once when a recording ends rather than on every insert. Same contract as
 * above. */
size_t pfprof_trace_schema_index_sql (char *buf, size_t len);

/* Reads field @col of @record as a 64-bit integer (end_ns for a duration
 * column; the caller subtracts). */
/* Whether API calls named @name are left out of every trace: queries
 * (cudaGetDevice, cudaStreamIsCapturing, ...) that no rule needs and that
 * PyTorch makes thousands of times a step. The collector records them
 * only with PFPROF_ALL_API=1. */
int pfprof_trace_schema_api_is_noise (const char *name);

int64_t pfprof_trace_column_get (const PfprofTraceColumn *col, const void *record);

/* Stores @value into field @col of @record, truncating to the field's
 * width. Returns 0, or -1 when @value does not fit the field (the reader
 * uses this to refuse overflowing numbers). */
int pfprof_trace_column_set (const PfprofTraceColumn *col, void *record, int64_t value);

#ifdef __cplusplus
}
#endif
