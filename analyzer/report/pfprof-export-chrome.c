/* SPDX-License-Identifier: MIT */
/* pfprof-export-chrome.c: Trace Event Format JSON (see the header). */
#include "pfprof-config.h"
#include "pfprof-hash.h"

#include "pfprof-export-chrome.h"

#include <string.h>

#include "pfprof-display-name.h"
#include "pfprof-json-writer.h"
#include "pfprof-kind-names.h"

/* Pids given to GPUs and to traces whose pid is unknown or taken by
 * another trace: far above Linux's pid_max (4194304). */
#define PSEUDO_PID_BASE 0x40000000

/* The steps track of each process; Linux never gives a thread id 0. */
#define STEPS_TID 0

/* Each event's lane on its stream, per GPU table (gpu_tables order). */
typedef guint *GpuLanes[3];

typedef struct
{
  GString *out;           /* pending output, handed to `write` in chunks */
  PfprofJsonWriter w;     /* writes into out */
  PfprofExportWriteFunc write;
  gpointer user_data;
  gboolean failed;        /* `write` said stop */
  const PfprofAnalysis *analysis;
  gint64 t0;
  gboolean first;
  guint64 next_flow_id;
  gint64 next_pseudo_pid;
  gint64 *host_pids;      /* per trace */
  GHashTable *gpu_pids;   /* "trace:device" -> gint64* pid */
  GHashTable *streams;    /* "trace:device:stream" -> NULL, tracks to name */
  GHashTable *threads;    /* "trace:tid" -> NULL */
  GpuLanes *lanes;        /* per trace; lane 0 for most events */
  GHashTable *lane_tids;  /* "trace:device:stream:lane" -> gint64* tid, lanes >= 1 */
  gint64 next_lane_tid;
} Export;

/* The GPU tables, in the order of Export.lanes. */
static const PfprofTableId gpu_tables[3] = { PFPROF_TABLE_KERNELS, PFPROF_TABLE_MEMCPYS,
                                             PFPROF_TABLE_MEMSETS };

/* A member KEY: µs with three decimals, from integer nanoseconds so no
 * precision is lost on the way. */
static void
member_us (PfprofJsonWriter *w, const char *key, gint64 ns)
{
  pfprof_json_writer_key (w, key);
  pfprof_json_writer_fixed (w, ns, 3);
}

/* A member KEY: [x,y,z]. */
static void
member_dim3 (PfprofJsonWriter *w, const char *key, const gint32 v[3])
{
  pfprof_json_writer_key (w, key);
  pfprof_json_writer_begin_array (w);
  for (guint i = 0; i < 3; i++)
    pfprof_json_writer_int (w, v[i]);
  pfprof_json_writer_end_array (w);
}

/* A string member; NULL is written as "". */
static void
member_text (PfprofJsonWriter *w, const char *key, const char *value)
{
  pfprof_json_writer_member_string (w, key, value ? value : "");
}

static void
flush (Export *x)
{
  if (!x->failed && x->out->len > 0 && !x->write (x->out->str, x->out->len, x->user_data))
    x->failed = TRUE;
  g_string_truncate (x->out, 0);
}

/* "raw_name": the recorded name, when the one shown (pfprof-display-name.h)
 * differs, so the symbol stays searchable. */
static void
member_raw_name (PfprofJsonWriter *w, const PfprofTrace *t, guint32 name_id)
{
  const char *raw = pfprof_trace_string (t, name_id);

  if (strcmp (raw, pfprof_display_name (t, name_id)) != 0)
    pfprof_json_writer_member_string (w, "raw_name", raw);
}

/* Opens an event, one a line: {"ph":..,"cat":..,"name":..,"pid":..,
 * "tid":..,"ts":.. The caller writes more members and ends the object. */
static PfprofJsonWriter *
event_open (Export *x, const char *ph, const char *cat, const char *name, gint64 pid, gint64 tid,
            gint64 ts_ns)
{
  PfprofJsonWriter *w = &x->w;

  /* Between events, so each chunk ends after a whole event. */
  if (x->out->len >= PFPROF_EXPORT_CHROME_CHUNK)
    flush (x);
  if (!x->first)
    pfprof_json_writer_new_line (w);
  x->first = FALSE;
  pfprof_json_writer_begin_object (w);
  pfprof_json_writer_member_string (w, "ph", ph);
  pfprof_json_writer_member_string (w, "cat", cat);
  member_text (w, "name", name);
  pfprof_json_writer_member_int (w, "pid", pid);
  pfprof_json_writer_member_int (w, "tid", tid);
  member_us (w, "ts", ts_ns - x->t0);
  return w;
}

static void
metadata (Export *x, const char *what, gint64 pid, gint64 tid, const char *name, gint64 sort_index)
{
  const char *kind = strcmp (what, "process_name") == 0 ? "process" : "thread";
  g_autofree char *sort_what = g_strdup_printf ("%s_sort_index", kind);
  PfprofJsonWriter *w = event_open (x, "M", "__metadata", what, pid, tid, x->t0);

  pfprof_json_writer_key (w, "args");
  pfprof_json_writer_begin_object (w);
  member_text (w, "name", name);
  pfprof_json_writer_end_object (w);
  pfprof_json_writer_end_object (w);
  event_open (x, "M", "__metadata", sort_what, pid, tid, x->t0);
  pfprof_json_writer_key (w, "args");
  pfprof_json_writer_begin_object (w);
  pfprof_json_writer_member_int (w, "sort_index", sort_index);
  pfprof_json_writer_end_object (w);
  pfprof_json_writer_end_object (w);
}

static PfprofTrace *
trace_at (const Export *x, guint i)
{
  return g_ptr_array_index (x->analysis->traces, i);
}

static gint64
gpu_pid (Export *x, guint trace, guint32 device)
{
  g_autofree char *key = g_strdup_printf ("%u:%u", trace, device);
  gint64 *pid = g_hash_table_lookup (x->gpu_pids, key);

  if (pid == NULL)
    {
      pid = g_new (gint64, 1);
      *pid = x->next_pseudo_pid++;
      g_hash_table_insert (x->gpu_pids, g_steal_pointer (&key), pid);
    }
  return *pid;
}

static void
note_stream (Export *x, guint trace, guint32 device, guint32 stream)
{
  gpu_pid (x, trace, device);
  g_hash_table_add (x->streams, g_strdup_printf ("%u:%u:%u", trace, device, stream));
}

static void
note_thread (Export *x, guint trace, guint32 tid)
{
  g_hash_table_add (x->threads, g_strdup_printf ("%u:%u", trace, tid));
}

/* Host pids: the trace's own pid unless unknown or already used by an
 * earlier trace (two ranks on two hosts may share a pid). */
static void
assign_host_pids (Export *x)
{
  g_autoptr (GHashTable) used = g_hash_table_new_full (pfprof_hash_int64, g_int64_equal, g_free, NULL);
  guint n = x->analysis->traces->len;

  x->host_pids = g_new0 (gint64, n + 1);
  for (guint i = 0; i < n; i++)
    {
      gint64 pid = trace_at (x, i)->pid;

      if (pid <= 0 || pid >= PSEUDO_PID_BASE || g_hash_table_contains (used, &pid))
        pid = x->next_pseudo_pid++;
      x->host_pids[i] = pid;
      g_hash_table_add (used, g_memdup2 (&pid, sizeof pid));
    }
}

/* Collects the tracks that will hold events, so each gets its name. */
static void
collect_tracks (Export *x)
{
  const PfprofAnalysis *a = x->analysis;

  for (guint i = 0; i < a->traces->len; i++)
    {
      PfprofTrace *t = trace_at (x, i);

      const PfprofKernelRecord *kernels = pfprof_trace_kernels (t);
      const PfprofMemcpyRecord *copies = pfprof_trace_memcpys (t);
      const PfprofMemsetRecord *memsets = pfprof_trace_memsets (t);

      for (guint k = 0; k < pfprof_trace_n (t, PFPROF_TABLE_KERNELS); k++)
        note_stream (x, i, kernels[k].device_id, kernels[k].stream_id);
      for (guint k = 0; k < pfprof_trace_n (t, PFPROF_TABLE_MEMCPYS); k++)
        note_stream (x, i, copies[k].device_id, copies[k].stream_id);
      for (guint k = 0; k < pfprof_trace_n (t, PFPROF_TABLE_MEMSETS); k++)
        note_stream (x, i, memsets[k].device_id, memsets[k].stream_id);
      for (guint k = 0; k < pfprof_trace_n (t, PFPROF_TABLE_API_CALLS); k++)
        note_thread (x, i, pfprof_trace_api_calls (t)[k].tid);
      for (guint k = 0; k < pfprof_trace_n (t, PFPROF_TABLE_NVTX); k++)
        note_thread (x, i, pfprof_trace_nvtx (t)[k].tid);
    }
  for (guint f = 0; f < a->findings->len; f++)
    {
      const PfprofFinding *finding = g_ptr_array_index (a->findings, f);

      for (guint e = 0; e < finding->evidence->len && e < PFPROF_EXPORT_CHROME_MAX_OCCURRENCES; e++)
        {
          const PfprofEvidence *ev = &g_array_index (finding->evidence, PfprofEvidence, e);

          if (ev->trace_index >= a->traces->len)
            continue;
          if (ev->tid != 0)
            note_thread (x, ev->trace_index, ev->tid);
          else if (ev->device_id != PFPROF_NONE && ev->stream_id != PFPROF_NONE)
            note_stream (x, ev->trace_index, ev->device_id, ev->stream_id);
          else if (ev->device_id != PFPROF_NONE)
            gpu_pid (x, ev->trace_index, ev->device_id);
        }
    }
}

static const char *
thread_name (PfprofTrace *t, guint32 tid)
{
  for (guint k = 0; k < pfprof_trace_n (t, PFPROF_TABLE_THREADS); k++)
    if (pfprof_trace_threads (t)[k].tid == tid)
      return pfprof_trace_string (t, pfprof_trace_threads (t)[k].name_id);
  return "";
}

static const char *
device_name (PfprofTrace *t, guint32 device)
{
  for (guint k = 0; k < pfprof_trace_n (t, PFPROF_TABLE_DEVICES); k++)
    if (pfprof_trace_devices (t)[k].device_id == device)
      return pfprof_trace_string (t, pfprof_trace_devices (t)[k].name_id);
  return "";
}

/* Splits "a:b[:c]" keys made above. */
static guint
parse_key (const char *key, guint64 *out, guint n)
{
  g_auto (GStrv) parts = g_strsplit (key, ":", -1);
  guint i;

  for (i = 0; i < n && parts[i] != NULL; i++)
    out[i] = g_ascii_strtoull (parts[i], NULL, 10);
  return i;
}

static int
compare_keys (gconstpointer a, gconstpointer b)
{
  guint64 ka[4] = { 0 }, kb[4] = { 0 };

  parse_key (*(const char *const *) a, ka, 4);
  parse_key (*(const char *const *) b, kb, 4);
  for (guint i = 0; i < 4; i++)
    if (ka[i] != kb[i])
      return ka[i] < kb[i] ? -1 : 1;
  return 0;
}

/* Keys of @table in numeric order, so the output does not depend on hash
 * order. */
static GPtrArray *
sorted_keys (GHashTable *table)
{
  GPtrArray *keys = g_ptr_array_new ();
  GHashTableIter it;
  gpointer key;

  g_hash_table_iter_init (&it, table);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_ptr_array_add (keys, key);
  g_ptr_array_sort (keys, compare_keys);
  return keys;
}

typedef struct
{
  gint64 start, end;
  guint32 device, stream;
  guint table, index; /* slot in gpu_tables, row */
} GpuSlice;

static int
compare_gpu_slices (gconstpointer pa, gconstpointer pb)
{
  const GpuSlice *a = pa, *b = pb;

  if (a->device != b->device)
    return a->device < b->device ? -1 : 1;
  if (a->stream != b->stream)
    return a->stream < b->stream ? -1 : 1;
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return (a->end > b->end) - (a->end < b->end);
}

/* Work on one stream can overlap (kernels of one stream that run
 * concurrently, a copy beside them) without nesting, and Perfetto's
 * importer drops a complete event that overlaps the one before it on its
 * track without nesting in it. So each stream is drawn as lanes, as
 * Perfetto's own GPU tracks are: every event goes to the first lane that
 * is free at its start (interval partitioning: as few lanes as the most
 * events that overlap at once), lane 0 keeping the stream's own track. */
static void
assign_lanes (Export *x, guint trace)
{
  PfprofTrace *t = trace_at (x, trace);
  g_autoptr (GArray) slices = g_array_new (FALSE, FALSE, sizeof (GpuSlice));
  g_autoptr (GArray) lane_end = g_array_new (FALSE, FALSE, sizeof (gint64));

  for (guint g = 0; g < G_N_ELEMENTS (gpu_tables); g++)
    {
      guint n = pfprof_trace_n (t, gpu_tables[g]);

      x->lanes[trace][g] = g_new0 (guint, MAX (n, 1));
      for (guint k = 0; k < n; k++)
        {
          GpuSlice sl = { 0, 0, 0, 0, g, k };

          switch (gpu_tables[g])
            {
            case PFPROF_TABLE_KERNELS:
              {
                const PfprofKernelRecord *r = &pfprof_trace_kernels (t)[k];
                sl = (GpuSlice) { r->start_ns, r->end_ns, r->device_id, r->stream_id, g, k };
                break;
              }
            case PFPROF_TABLE_MEMCPYS:
              {
                const PfprofMemcpyRecord *r = &pfprof_trace_memcpys (t)[k];
                sl = (GpuSlice) { r->start_ns, r->end_ns, r->device_id, r->stream_id, g, k };
                break;
              }
            default:
              {
                const PfprofMemsetRecord *r = &pfprof_trace_memsets (t)[k];
                sl = (GpuSlice) { r->start_ns, r->end_ns, r->device_id, r->stream_id, g, k };
                break;
              }
            }
          g_array_append_val (slices, sl);
        }
    }
  g_array_sort (slices, compare_gpu_slices);
  for (guint k = 0; k < slices->len; k++)
    {
      const GpuSlice *sl = &g_array_index (slices, GpuSlice, k);
      guint lane = 0;

      if (k == 0 || sl->device != sl[-1].device || sl->stream != sl[-1].stream)
        g_array_set_size (lane_end, 0);
      while (lane < lane_end->len && g_array_index (lane_end, gint64, lane) > sl->start)
        lane++;
      if (lane == lane_end->len)
        g_array_append_val (lane_end, sl->end);
      else
        g_array_index (lane_end, gint64, lane) = MAX (sl->end, sl->start);
      x->lanes[trace][sl->table][sl->index] = lane;
      if (lane > 0)
        {
          g_autofree char *key = g_strdup_printf ("%u:%u:%u:%u", trace, sl->device, sl->stream, lane);

          if (!g_hash_table_contains (x->lane_tids, key))
            {
              gint64 *tid = g_new (gint64, 1);

              *tid = x->next_lane_tid++;
              g_hash_table_insert (x->lane_tids, g_steal_pointer (&key), tid);
            }
        }
    }
}

/* The track (tid of the GPU's pid) of row @index of GPU table slot @g. */
static gint64
gpu_tid (Export *x, guint trace, guint g, guint index, guint32 device, guint32 stream)
{
  guint lane = x->lanes[trace][g][index];
  g_autofree char *key = NULL;

  if (lane == 0)
    return stream;
  key = g_strdup_printf ("%u:%u:%u:%u", trace, device, stream, lane);
  return *(gint64 *) g_hash_table_lookup (x->lane_tids, key);
}

static void
write_metadata (Export *x)
{
  const PfprofAnalysis *a = x->analysis;
  g_autoptr (GPtrArray) gpus = sorted_keys (x->gpu_pids);
  g_autoptr (GPtrArray) streams = sorted_keys (x->streams);
  g_autoptr (GPtrArray) threads = sorted_keys (x->threads);
  g_autoptr (GPtrArray) lanes = sorted_keys (x->lane_tids);

  for (guint i = 0; i < a->traces->len; i++)
    {
      PfprofTrace *t = trace_at (x, i);
      g_autofree char *base = g_path_get_basename (t->path ? t->path : "trace");
      g_autofree char *name = NULL;

      if (t->rank >= 0)
        name = g_strdup_printf ("pid %" G_GINT64_FORMAT ", rank %" G_GINT64_FORMAT " (%s)", t->pid,
                                t->rank, base);
      else
        name = g_strdup_printf ("pid %" G_GINT64_FORMAT " (%s)", t->pid, base);
      metadata (x, "process_name", x->host_pids[i], STEPS_TID, name, (gint64) i * 2);
      metadata (x, "thread_name", x->host_pids[i], STEPS_TID, "pfprof steps", -1);
    }
  for (guint g = 0; g < gpus->len; g++)
    {
      guint64 k[2] = { 0 };
      g_autofree char *name = NULL;
      const char *dev;
      PfprofTrace *t;

      parse_key (g_ptr_array_index (gpus, g), k, 2);
      t = trace_at (x, (guint) k[0]);
      dev = device_name (t, (guint32) k[1]);
      name = g_strdup_printf ("GPU %u%s%s (pid %" G_GINT64_FORMAT ")", (guint) k[1],
                              *dev ? ": " : "", dev, t->pid);
      metadata (x, "process_name", gpu_pid (x, (guint) k[0], (guint32) k[1]), 0, name,
                (gint64) k[0] * 2 + 1);
    }
  for (guint s = 0; s < streams->len; s++)
    {
      guint64 k[3] = { 0 };
      g_autofree char *name = NULL;

      parse_key (g_ptr_array_index (streams, s), k, 3);
      name = g_strdup_printf ("GPU %u stream %u", (guint) k[1], (guint) k[2]);
      metadata (x, "thread_name", gpu_pid (x, (guint) k[0], (guint32) k[1]), (gint64) k[2], name,
                (gint64) k[2] * 256);
    }
  for (guint l = 0; l < lanes->len; l++)
    {
      guint64 k[4] = { 0 };
      const char *key = g_ptr_array_index (lanes, l);
      g_autofree char *name = NULL;

      parse_key (key, k, 4);
      name = g_strdup_printf ("GPU %u stream %u #%u", (guint) k[1], (guint) k[2], (guint) k[3] + 1);
      metadata (x, "thread_name", gpu_pid (x, (guint) k[0], (guint32) k[1]),
                *(gint64 *) g_hash_table_lookup (x->lane_tids, key), name,
                (gint64) k[2] * 256 + (gint64) MIN (k[3], 255));
    }
  for (guint h = 0; h < threads->len; h++)
    {
      guint64 k[2] = { 0 };
      g_autofree char *name = NULL;
      PfprofTrace *t;
      const char *tn;

      parse_key (g_ptr_array_index (threads, h), k, 2);
      t = trace_at (x, (guint) k[0]);
      tn = thread_name (t, (guint32) k[1]);
      if (*tn)
        name = g_strdup_printf ("%s (%u)", tn, (guint) k[1]);
      else if ((gint64) k[1] == t->pid)
        name = g_strdup_printf ("main thread (%u)", (guint) k[1]);
      else
        name = g_strdup_printf ("thread %u", (guint) k[1]);
      metadata (x, "thread_name", x->host_pids[k[0]], (gint64) k[1], name, (gint64) k[1]);
    }
}

static void
write_steps (Export *x)
{
  const PfprofAnalysis *a = x->analysis;
  g_autofree guint *numbers = g_new0 (guint, a->traces->len + 1);

  for (guint i = 0; i < a->steps->len; i++)
    {
      const PfprofStep *s = &g_array_index (a->steps, PfprofStep, i);
      g_autofree char *name = NULL;
      PfprofJsonWriter *w;

      if (s->trace_index >= a->traces->len)
        continue;
      name = g_strdup_printf ("step %u%s", numbers[s->trace_index]++,
                              s->warmup ? " (warm-up)" : "");
      w = event_open (x, "X", "step", name, x->host_pids[s->trace_index], STEPS_TID, s->start_ns);
      member_us (w, "dur", MAX (s->end_ns - s->start_ns, 0));
      pfprof_json_writer_key (w, "args");
      pfprof_json_writer_begin_object (w);
      pfprof_json_writer_key (w, "warmup");
      pfprof_json_writer_bool (w, s->warmup);
      pfprof_json_writer_member_int (w, "data_wait_ns", s->data_wait_ns);
      pfprof_json_writer_member_int (w, "copy_exposed_ns", s->copy_exposed_ns);
      pfprof_json_writer_member_int (w, "copy_hidden_ns", s->copy_hidden_ns);
      pfprof_json_writer_member_int (w, "compute_ns", s->compute_ns);
      pfprof_json_writer_member_int (w, "sync_wait_ns", s->sync_wait_ns);
      pfprof_json_writer_member_int (w, "idle_ns", s->idle_ns);
      pfprof_json_writer_end_object (w);
      pfprof_json_writer_end_object (w);
    }
}

/* The flow from the API call with @correlation_id (if any) to the GPU
 * event that starts at @gpu_ts on (@pid, @tid). */
static void
write_flow (Export *x, guint trace, GHashTable *calls, guint32 correlation_id, gint64 pid,
            gint64 tid, gint64 gpu_ts)
{
  PfprofTrace *t = trace_at (x, trace);
  gpointer found;
  const PfprofApiRecord *c;
  PfprofJsonWriter *w;
  guint64 id;

  if (correlation_id == 0
      || !g_hash_table_lookup_extended (calls, GUINT_TO_POINTER (correlation_id), NULL, &found))
    return;
  c = &pfprof_trace_api_calls (t)[GPOINTER_TO_UINT (found)];
  /* A call launches nothing that ran before it: a correlation id that
   * CUPTI handed out stale (the report's api_ids_shared) joins calls to
   * work they did not launch, and is no link. */
  if (c->start_ns > gpu_ts)
    return;
  id = ++x->next_flow_id;
  w = event_open (x, "s", "launch", "launch", x->host_pids[trace], c->tid, c->start_ns);
  pfprof_json_writer_member_uint (w, "id", id);
  pfprof_json_writer_end_object (w);
  event_open (x, "f", "launch", "launch", pid, tid, gpu_ts);
  pfprof_json_writer_member_string (w, "bp", "e");
  pfprof_json_writer_member_uint (w, "id", id);
  pfprof_json_writer_end_object (w);
}

static void
write_trace_events (Export *x, guint i)
{
  PfprofTrace *t = trace_at (x, i);
  gint64 hpid = x->host_pids[i];
  g_autoptr (GHashTable) calls = g_hash_table_new (NULL, NULL);
  PfprofJsonWriter *w;

  for (guint k = 0; k < pfprof_trace_n (t, PFPROF_TABLE_API_CALLS); k++)
    {
      const PfprofApiRecord *c = &pfprof_trace_api_calls (t)[k];

      if (c->correlation_id != 0)
        g_hash_table_insert (calls, GUINT_TO_POINTER (c->correlation_id), GUINT_TO_POINTER (k));
      w = event_open (x, "X", "cuda_api", pfprof_display_name (t, c->name_id), hpid, c->tid,
                      c->start_ns);
      member_us (w, "dur", c->end_ns - c->start_ns);
      pfprof_json_writer_key (w, "args");
      pfprof_json_writer_begin_object (w);
      pfprof_json_writer_member_uint (w, "correlation_id", c->correlation_id);
      pfprof_json_writer_member_int (w, "return_value", c->return_value);
      member_raw_name (w, t, c->name_id);
      pfprof_json_writer_end_object (w);
      pfprof_json_writer_end_object (w);
    }
  for (guint k = 0; k < pfprof_trace_n (t, PFPROF_TABLE_NVTX); k++)
    {
      const PfprofNvtxRecord *r = &pfprof_trace_nvtx (t)[k];
      gboolean mark = r->kind == PFPROF_NVTX_MARK;

      w = event_open (x, mark ? "i" : "X", "nvtx", pfprof_trace_string (t, r->name_id), hpid,
                      r->tid, r->start_ns);
      if (mark)
        pfprof_json_writer_member_string (w, "s", "t");
      else
        member_us (w, "dur", r->end_ns - r->start_ns);
      pfprof_json_writer_key (w, "args");
      pfprof_json_writer_begin_object (w);
      member_text (w, "domain", pfprof_trace_string (t, r->domain_id));
      pfprof_json_writer_end_object (w);
      pfprof_json_writer_end_object (w);
    }
  for (guint k = 0; k < pfprof_trace_n (t, PFPROF_TABLE_KERNELS); k++)
    {
      const PfprofKernelRecord *r = &pfprof_trace_kernels (t)[k];
      gint64 pid = gpu_pid (x, i, r->device_id);
      gint64 tid = gpu_tid (x, i, 0, k, r->device_id, r->stream_id);

      const gint32 grid[3] = { r->grid_x, r->grid_y, r->grid_z };
      const gint32 block[3] = { r->block_x, r->block_y, r->block_z };

      w = event_open (x, "X", "kernel", pfprof_display_name (t, r->name_id), pid, tid, r->start_ns);
      member_us (w, "dur", r->end_ns - r->start_ns);
      pfprof_json_writer_key (w, "args");
      pfprof_json_writer_begin_object (w);
      pfprof_json_writer_member_uint (w, "correlation_id", r->correlation_id);
      member_dim3 (w, "grid", grid);
      member_dim3 (w, "block", block);
      pfprof_json_writer_member_int (w, "shared_mem_bytes", r->shared_mem_bytes);
      pfprof_json_writer_member_int (w, "registers", r->registers);
      member_raw_name (w, t, r->name_id);
      pfprof_json_writer_end_object (w);
      pfprof_json_writer_end_object (w);
      write_flow (x, i, calls, r->correlation_id, pid, tid, r->start_ns);
    }
  for (guint k = 0; k < pfprof_trace_n (t, PFPROF_TABLE_MEMCPYS); k++)
    {
      const PfprofMemcpyRecord *r = &pfprof_trace_memcpys (t)[k];
      gint64 pid = gpu_pid (x, i, r->device_id);
      gint64 tid = gpu_tid (x, i, 1, k, r->device_id, r->stream_id);
      g_autofree char *name = g_strdup_printf ("Memcpy %s", pfprof_kind_names_copy (r->copy_kind));

      w = event_open (x, "X", "memcpy", name, pid, tid, r->start_ns);
      member_us (w, "dur", r->end_ns - r->start_ns);
      pfprof_json_writer_key (w, "args");
      pfprof_json_writer_begin_object (w);
      pfprof_json_writer_member_uint (w, "bytes", r->bytes);
      pfprof_json_writer_member_string (w, "src_kind", pfprof_kind_names_memory (r->src_kind));
      pfprof_json_writer_member_string (w, "dst_kind", pfprof_kind_names_memory (r->dst_kind));
      pfprof_json_writer_key (w, "async");
      pfprof_json_writer_bool (w, (r->flags & PFPROF_MEMCPY_FLAG_ASYNC) != 0);
      pfprof_json_writer_member_uint (w, "correlation_id", r->correlation_id);
      pfprof_json_writer_end_object (w);
      pfprof_json_writer_end_object (w);
      write_flow (x, i, calls, r->correlation_id, pid, tid, r->start_ns);
    }
  for (guint k = 0; k < pfprof_trace_n (t, PFPROF_TABLE_MEMSETS); k++)
    {
      const PfprofMemsetRecord *r = &pfprof_trace_memsets (t)[k];
      gint64 pid = gpu_pid (x, i, r->device_id);
      gint64 tid = gpu_tid (x, i, 2, k, r->device_id, r->stream_id);

      w = event_open (x, "X", "memset", "Memset", pid, tid, r->start_ns);
      member_us (w, "dur", r->end_ns - r->start_ns);
      pfprof_json_writer_key (w, "args");
      pfprof_json_writer_begin_object (w);
      pfprof_json_writer_member_uint (w, "bytes", r->bytes);
      pfprof_json_writer_member_string (w, "memory_kind", pfprof_kind_names_memory (r->memory_kind));
      pfprof_json_writer_member_uint (w, "correlation_id", r->correlation_id);
      pfprof_json_writer_end_object (w);
      pfprof_json_writer_end_object (w);
      write_flow (x, i, calls, r->correlation_id, pid, tid, r->start_ns);
    }
}

/* The pin-memory threads' lanes in their process (this one and those
 * below it), apart from the threads' own CUDA calls, which their slices
 * could overlap: far above pid_max. */
#define PIN_TID (PSEUDO_PID_BASE - 1)
/* Worker lanes sort below the process's threads. */
#define WORKER_SORT_BASE (1 << 22)

/* The stages of one batch of @t laid end to end from @start, each as long
 * as its summed time, cut at @end: rows @from.. up to the next batch row
 * of the same worker. */
static void
write_stages (Export *x, PfprofTrace *t, guint from, const PfprofWorkerEventRecord *batch, gint64 hpid,
              gint64 start, gint64 end)
{
  const PfprofWorkerEventRecord *ev = pfprof_trace_worker_events (t);
  const PfprofPythonSiteRecord *sites = pfprof_trace_python_sites (t);
  guint n = pfprof_trace_n (t, PFPROF_TABLE_WORKER_EVENTS);
  gint64 cursor = start;

  for (guint k = from; k < n && ev[k].start_ns <= batch->end_ns && cursor < end; k++)
    {
      const PfprofWorkerEventRecord *r = &ev[k];
      const char *name = "stage";
      gint64 len;
      PfprofJsonWriter *w;

      if (r->kind != PFPROF_WORKER_STAGE || r->pid != batch->pid || r->batch != batch->batch)
        continue;
      for (guint i = 0; i < pfprof_trace_n (t, PFPROF_TABLE_PYTHON_SITES); i++)
        if (sites[i].site_id == r->site_id && sites[i].kind == PFPROF_SITE_WORKER_STAGE)
          {
            name = pfprof_trace_string (t, sites[i].function_id);
            break;
          }
      len = MIN (MAX (r->value_a, 0), end - cursor);
      w = event_open (x, "X", "dataloader", name, hpid, r->pid, cursor);
      member_us (w, "dur", len);
      pfprof_json_writer_key (w, "args");
      pfprof_json_writer_begin_object (w);
      pfprof_json_writer_member_int (w, "time_ns", r->value_a);
      pfprof_json_writer_member_int (w, "calls", r->value_b);
      pfprof_json_writer_member_int (w, "first_start_ns", r->start_ns);
      pfprof_json_writer_member_int (w, "last_end_ns", r->end_ns);
      pfprof_json_writer_end_object (w);
      pfprof_json_writer_end_object (w);
      cursor += len;
    }
}

/* The DataLoader's lanes (worker_events): one per worker under the host
 * process, with each batch, its fetch, stages and collate_fn; the pin
 * thread's; and a flow from each batch to the step that got it. */
static void
write_worker_events (Export *x, guint i)
{
  PfprofTrace *t = trace_at (x, i);
  const PfprofWorkerEventRecord *ev = pfprof_trace_worker_events (t);
  guint n = pfprof_trace_n (t, PFPROF_TABLE_WORKER_EVENTS);
  gint64 hpid = x->host_pids[i];
  g_autoptr (GHashTable) named = g_hash_table_new (NULL, NULL);
  g_autoptr (GHashTable) puts = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  const GArray *steps = x->analysis->steps;
  guint step = 0;
  g_autoptr (GArray) pin_threads = g_array_new (FALSE, FALSE, sizeof (gint64)); /* their tids */

  for (guint k = 0; k < n; k++)
    {
      const PfprofWorkerEventRecord *r = &ev[k];
      PfprofJsonWriter *w;

      /* A worker's lane is its pid: 0 would be the steps track. */
      if ((r->kind == PFPROF_WORKER_BATCH || r->kind == PFPROF_WORKER_FAILED) && r->pid != 0)
        {
          g_autofree char *name = g_strdup_printf ("batch %" G_GINT64_FORMAT "%s", r->batch,
                                                   r->kind == PFPROF_WORKER_FAILED ? " (raised)" : "");
          gint64 fetch_end = r->value_a > r->start_ns && r->value_a <= r->end_ns ? r->value_a : r->end_ns;
          gint64 key = (gint64) ((guint64) r->pid << 32 ^ (guint64) r->batch);

          if (!g_hash_table_contains (named, GUINT_TO_POINTER (r->pid)))
            {
              g_autofree char *lane = g_strdup_printf ("DataLoader worker %u (pid %u)", r->worker_id, r->pid);

              g_hash_table_add (named, GUINT_TO_POINTER (r->pid));
              metadata (x, "thread_name", hpid, r->pid, lane, WORKER_SORT_BASE + r->worker_id);
            }
          g_hash_table_replace (puts, g_memdup2 (&key, sizeof key), g_memdup2 (&r->end_ns, sizeof r->end_ns));
          w = event_open (x, "X", "dataloader", name, hpid, r->pid, r->start_ns);
          member_us (w, "dur", r->end_ns - r->start_ns);
          pfprof_json_writer_key (w, "args");
          pfprof_json_writer_begin_object (w);
          pfprof_json_writer_member_int (w, "batch", r->batch);
          pfprof_json_writer_member_int (w, "worker", r->worker_id);
          pfprof_json_writer_member_uint (w, "samples", r->site_id);
          pfprof_json_writer_end_object (w);
          pfprof_json_writer_end_object (w);
          if (fetch_end > r->start_ns)
            {
              w = event_open (x, "X", "dataloader", "fetch", hpid, r->pid, r->start_ns);
              member_us (w, "dur", fetch_end - r->start_ns);
              pfprof_json_writer_end_object (w);
              write_stages (x, t, k + 1, r, hpid, r->start_ns, fetch_end);
            }
          if (r->value_b > r->value_a && r->value_a >= r->start_ns && r->value_b <= r->end_ns)
            {
              w = event_open (x, "X", "dataloader", "collate_fn", hpid, r->pid, r->value_a);
              member_us (w, "dur", r->value_b - r->value_a);
              pfprof_json_writer_end_object (w);
            }
        }
      else if (r->kind == PFPROF_WORKER_PIN)
        {
          g_autofree char *name = g_strdup_printf ("pin batch %" G_GINT64_FORMAT, r->batch);
          guint lane_index = 0;

          /* One lane per pin-memory thread: a program with a training and
           * a validation loader (Lightning's) has two, whose slices
           * overlap in time. */
          while (lane_index < pin_threads->len && g_array_index (pin_threads, gint64, lane_index) != r->value_b)
            lane_index++;
          if (lane_index == pin_threads->len)
            {
              g_autofree char *lane = g_strdup_printf ("DataLoader pin-memory thread (%" G_GINT64_FORMAT ")",
                                                       r->value_b);

              g_array_append_val (pin_threads, r->value_b);
              metadata (x, "thread_name", hpid, PIN_TID - lane_index, lane,
                        WORKER_SORT_BASE - 1 - (gint64) lane_index);
            }
          w = event_open (x, "X", "dataloader", name, hpid, PIN_TID - lane_index, r->start_ns);
          member_us (w, "dur", r->end_ns - r->start_ns);
          pfprof_json_writer_key (w, "args");
          pfprof_json_writer_begin_object (w);
          pfprof_json_writer_member_int (w, "batch", r->batch);
          pfprof_json_writer_member_int (w, "cpu_ns", r->value_a);
          pfprof_json_writer_end_object (w);
          pfprof_json_writer_end_object (w);
        }
      else if (r->kind == PFPROF_WORKER_GOT)
        {
          gint64 key = (gint64) ((guint64) r->pid << 32 ^ (guint64) r->batch);
          const gint64 *put = g_hash_table_lookup (puts, &key);
          const PfprofStep *s = NULL;
          guint64 id;

          /* The step the batch was handed out in (steps are in time order). */
          while (step < steps->len
                 && (g_array_index (steps, PfprofStep, step).trace_index != i
                     || g_array_index (steps, PfprofStep, step).end_ns <= r->end_ns))
            step++;
          if (step < steps->len && g_array_index (steps, PfprofStep, step).start_ns <= r->end_ns)
            s = &g_array_index (steps, PfprofStep, step);
          if (put == NULL || s == NULL || *put > r->start_ns || *put <= 0 || r->pid == 0)
            continue;
          id = ++x->next_flow_id;
          w = event_open (x, "s", "batch", "batch", hpid, r->pid, *put - 1);
          pfprof_json_writer_member_uint (w, "id", id);
          pfprof_json_writer_end_object (w);
          event_open (x, "f", "batch", "batch", hpid, STEPS_TID, r->end_ns);
          pfprof_json_writer_member_string (w, "bp", "e");
          pfprof_json_writer_member_uint (w, "id", id);
          pfprof_json_writer_end_object (w);
        }
    }
}

/* The finding's "args" object, left open for the caller to end. */
static void
finding_args (PfprofJsonWriter *w, const PfprofFinding *f)
{
  pfprof_json_writer_key (w, "args");
  pfprof_json_writer_begin_object (w);
  member_text (w, "rule", f->rule);
  member_text (w, "severity", pfprof_severity_to_string (f->severity));
  member_text (w, "title", f->title);
  member_text (w, "message", f->message);
  member_text (w, "fix", f->fix);
  pfprof_json_writer_member_int (w, "count", (gint64) f->count);
  pfprof_json_writer_member_int (w, "time_ns", f->time_ns);
  pfprof_json_writer_member_int (w, "est_savings_ns", f->est_savings_ns);
}

static void
write_findings (Export *x)
{
  const PfprofAnalysis *a = x->analysis;

  for (guint i = 0; i < a->findings->len; i++)
    {
      const PfprofFinding *f = g_ptr_array_index (a->findings, i);
      g_autofree char *name = g_strdup_printf ("[%s] %s: %s",
                                               pfprof_severity_to_string (f->severity), f->rule,
                                               f->title ? f->title : "");
      PfprofJsonWriter *w;
      guint trace = 0;

      if (f->evidence->len > 0)
        trace = g_array_index (f->evidence, PfprofEvidence, 0).trace_index;
      if (trace >= a->traces->len)
        trace = 0;
      w = event_open (x, "i", "finding", name, a->traces->len ? x->host_pids[trace] : 0,
                      STEPS_TID, f->first_ns);
      pfprof_json_writer_member_string (w, "s", "g");
      finding_args (w, f);
      pfprof_json_writer_end_object (w);
      pfprof_json_writer_end_object (w);

      for (guint e = 0; e < f->evidence->len && e < PFPROF_EXPORT_CHROME_MAX_OCCURRENCES; e++)
        {
          const PfprofEvidence *ev = &g_array_index (f->evidence, PfprofEvidence, e);
          g_autofree char *what = NULL;
          const char *scope = "t";
          gint64 pid, tid;

          if (ev->trace_index >= a->traces->len)
            continue;
          if (ev->tid != 0)
            {
              pid = x->host_pids[ev->trace_index];
              tid = ev->tid;
            }
          else if (ev->device_id != PFPROF_NONE)
            {
              pid = gpu_pid (x, ev->trace_index, ev->device_id);
              tid = ev->stream_id != PFPROF_NONE ? (gint64) ev->stream_id : 0;
              if (ev->stream_id == PFPROF_NONE)
                scope = "p";
            }
          else
            {
              pid = x->host_pids[ev->trace_index];
              tid = STEPS_TID;
              scope = "p";
            }
          what = pfprof_evidence_describe (a, ev);
          event_open (x, "i", "finding", f->rule, pid, tid, ev->start_ns);
          pfprof_json_writer_member_string (w, "s", scope);
          pfprof_json_writer_key (w, "args");
          pfprof_json_writer_begin_object (w);
          member_text (w, "rule", f->rule);
          member_text (w, "severity", pfprof_severity_to_string (f->severity));
          pfprof_json_writer_member_int (w, "occurrence", e);
          member_us (w, "dur_us", ev->end_ns - ev->start_ns);
          member_text (w, "event", what);
          /* Occurrences are numbered costliest first, as in the reports. */
          pfprof_json_writer_member_int (w, "cost_ns", ev->cost_ns);
          pfprof_json_writer_member_double (w, "share", pfprof_evidence_share (f, ev), 4);
          pfprof_json_writer_end_object (w);
          pfprof_json_writer_end_object (w);
        }
    }
}

gboolean
pfprof_export_chrome (const PfprofAnalysis *analysis, PfprofExportWriteFunc write,
                      gpointer user_data)
{
  Export x = { 0 };
  gboolean have_t0 = FALSE;
  GString *out;

  g_return_val_if_fail (analysis != NULL && write != NULL, FALSE);

  out = x.out = g_string_sized_new (PFPROF_EXPORT_CHROME_CHUNK + 4096);
  pfprof_json_writer_init (&x.w, out);
  x.write = write;
  x.user_data = user_data;
  x.analysis = analysis;
  x.first = TRUE;
  x.next_pseudo_pid = PSEUDO_PID_BASE;
  x.gpu_pids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  x.streams = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  x.threads = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  x.lane_tids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  /* Lane tracks share the GPU's pid with the stream tracks (tid = stream
   * id): their tids start far above any stream id CUPTI hands out. */
  x.next_lane_tid = PSEUDO_PID_BASE;
  x.lanes = g_new0 (GpuLanes, MAX (analysis->traces->len, 1));
  for (guint i = 0; i < analysis->traces->len; i++)
    {
      PfprofTrace *t = g_ptr_array_index (analysis->traces, i);

      if (pfprof_trace_n_events (t) > 0 && (!have_t0 || t->start_ns < x.t0))
        {
          x.t0 = t->start_ns;
          have_t0 = TRUE;
        }
    }

  assign_host_pids (&x);
  collect_tracks (&x);
  for (guint i = 0; i < analysis->traces->len; i++)
    assign_lanes (&x, i);
  pfprof_json_writer_begin_object (&x.w);
  pfprof_json_writer_key (&x.w, "traceEvents");
  pfprof_json_writer_begin_array (&x.w);
  pfprof_json_writer_new_line (&x.w);
  write_metadata (&x);
  write_steps (&x);
  for (guint i = 0; i < analysis->traces->len; i++)
    {
      write_trace_events (&x, i);
      write_worker_events (&x, i);
    }
  write_findings (&x);
  /* The events' line ends with the array, apart from the rest. */
  g_string_append_c (out, '\n');
  pfprof_json_writer_end_array (&x.w);
  pfprof_json_writer_member_string (&x.w, "displayTimeUnit", "ns");
  pfprof_json_writer_key (&x.w, "otherData");
  pfprof_json_writer_begin_object (&x.w);
  pfprof_json_writer_member_string (&x.w, "generator", "pfprof " PFPROF_VERSION);
  pfprof_json_writer_member_int (&x.w, "clock_origin_ns", x.t0);
  pfprof_json_writer_key (&x.w, "traces");
  pfprof_json_writer_begin_array (&x.w);
  for (guint i = 0; i < analysis->traces->len; i++)
    {
      PfprofTrace *t = g_ptr_array_index (analysis->traces, i);

      pfprof_json_writer_string (&x.w, t->path ? t->path : "");
    }
  pfprof_json_writer_end_array (&x.w);
  pfprof_json_writer_end_object (&x.w);
  pfprof_json_writer_end_object (&x.w);
  g_string_append_c (out, '\n');
  flush (&x);

  g_string_free (out, TRUE);
  g_free (x.host_pids);
  g_hash_table_unref (x.gpu_pids);
  g_hash_table_unref (x.streams);
  g_hash_table_unref (x.threads);
  g_hash_table_unref (x.lane_tids);
  for (guint i = 0; i < analysis->traces->len; i++)
    for (guint g = 0; g < G_N_ELEMENTS (gpu_tables); g++)
      g_free (x.lanes[i][g]);
  g_free (x.lanes);
  return !x.failed;
}
