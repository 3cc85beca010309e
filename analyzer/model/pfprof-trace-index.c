/* SPDX-License-Identifier: MIT */
/* pfprof-trace-index.c: joins and interval sets built once per trace. */
#include "pfprof-trace-index.h"

#include "pfprof-huge-pages.h"

#include <string.h>

static const struct
{
  const char *name;
  PfprofApiClass klass;
} api_names[] = {
  { "cudaEventSynchronize", PFPROF_API_CLASS_EVENT_SYNC },
  { "cuEventSynchronize", PFPROF_API_CLASS_EVENT_SYNC },
  { "cudaEventQuery", PFPROF_API_CLASS_EVENT_QUERY },
  { "cuEventQuery", PFPROF_API_CLASS_EVENT_QUERY },
  { "cudaStreamSynchronize", PFPROF_API_CLASS_STREAM_SYNC },
  { "cuStreamSynchronize", PFPROF_API_CLASS_STREAM_SYNC },
  { "cudaDeviceSynchronize", PFPROF_API_CLASS_DEVICE_SYNC },
  { "cudaThreadSynchronize", PFPROF_API_CLASS_DEVICE_SYNC },
  { "cuCtxSynchronize", PFPROF_API_CLASS_DEVICE_SYNC },
  { "cudaMalloc", PFPROF_API_CLASS_MALLOC },
  { "cuMemAlloc", PFPROF_API_CLASS_MALLOC },
  { "cudaFree", PFPROF_API_CLASS_FREE },
  { "cuMemFree", PFPROF_API_CLASS_FREE },
  { "cudaHostAlloc", PFPROF_API_CLASS_HOST_ALLOC },
  { "cudaMallocHost", PFPROF_API_CLASS_HOST_ALLOC },
  { "cudaHostRegister", PFPROF_API_CLASS_HOST_ALLOC },
  { "cuMemHostAlloc", PFPROF_API_CLASS_HOST_ALLOC },
  { "cuMemAllocHost", PFPROF_API_CLASS_HOST_ALLOC },
  { "cuMemHostRegister", PFPROF_API_CLASS_HOST_ALLOC },
  { "cuMemCreate", PFPROF_API_CLASS_VMM_MAP },
  { "cuMemMap", PFPROF_API_CLASS_VMM_MAP },
  { "cuMemUnmap", PFPROF_API_CLASS_VMM_UNMAP },
  { "cuMemRelease", PFPROF_API_CLASS_VMM_UNMAP },
  { "cudaStreamWaitEvent", PFPROF_API_CLASS_STREAM_WAIT },
  { "cuStreamWaitEvent", PFPROF_API_CLASS_STREAM_WAIT },
};

PfprofApiClass
pfprof_api_class_for_name (const char *name)
{
  if (name == NULL || name[0] != 'c')
    return PFPROF_API_CLASS_OTHER;
  for (guint i = 0; i < G_N_ELEMENTS (api_names); i++)
    {
      gsize n = strlen (api_names[i].name);

      /* "cuMemAlloc_v2", "cudaStreamSynchronize_ptsz", but not
       * "cudaMallocHost" for "cudaMalloc". */
      if (strncmp (name, api_names[i].name, n) == 0 && (name[n] == '\0' || name[n] == '_'))
        return api_names[i].klass;
    }
  if (g_str_has_prefix (name, "cudaMemcpy") || g_str_has_prefix (name, "cuMemcpy"))
    return PFPROF_API_CLASS_MEMCPY;
  return PFPROF_API_CLASS_OTHER;
}

gboolean
pfprof_kernel_name_is_comm (const char *name /* nullable */)
{
  if (name == NULL)
    return FALSE;
  if (g_str_has_prefix (name, "void "))
    name += 5;
  /* Itanium mangling of a global function: _Z, the name's length, the
   * name. */
  if (name[0] == '_' && name[1] == 'Z' && g_ascii_isdigit (name[2]))
    {
      name += 2;
      while (g_ascii_isdigit (*name))
        name++;
    }
  return g_str_has_prefix (name, "nccl");
}

static void
device_timeline_clear (gpointer p)
{
  PfprofDeviceTimeline *d = p;

  pfprof_interval_set_free (d->comm);
  pfprof_interval_set_free (d->kernels_comm);
  pfprof_interval_set_free (d->kernels);
  pfprof_interval_set_free (d->htod);
  pfprof_interval_set_free (d->htod_kernels);
  pfprof_interval_set_free (d->busy);
  for (guint i = 0; i < G_N_ELEMENTS (d->records); i++)
    g_clear_pointer (&d->records[i], g_array_unref);
}

/* The slot of @table in PfprofDeviceTimeline.records, or -1. */
static int
record_slot (PfprofTableId table)
{
  switch (table)
    {
    case PFPROF_TABLE_KERNELS: return 0;
    case PFPROF_TABLE_MEMCPYS: return 1;
    case PFPROF_TABLE_MEMSETS: return 2;
    default: return -1;
    }
}

const guint *
pfprof_device_timeline_records (const PfprofDeviceTimeline *dev, PfprofTableId table, guint *n)
{
  int slot;

  g_return_val_if_fail (dev != NULL && n != NULL, NULL);
  slot = record_slot (table);
  g_return_val_if_fail (slot >= 0, NULL);
  *n = dev->n_records[slot];
  return dev->records[slot] != NULL ? (const guint *) (void *) dev->records[slot]->data : NULL;
}

/* Scratch state per device while the index is built. */
typedef struct
{
  guint32 device_id;
  PfprofIntervalSetBuilder *k, *c, *n, *b;
  GArray *stream_ns;    /* StreamTime, in the order the streams first appear */
  GHashTable *stream_at; /* stream id -> its index in stream_ns */
  guint last_stream;    /* the index in stream_ns found last */
  guint n_records[3];   /* records of each table, counted before they are listed */
  GArray *records[3];   /* guint: its kernels, copies, memsets (PfprofDeviceTimeline),
                         * made once they are counted */
  guint64 n_kernels, n_comm_kernels;
  gint64 kernel_sum_ns;
} DeviceScratch;

typedef struct
{
  guint32 stream_id;
  gint64 ns;
} StreamTime;

/* Devices and streams are found by id through a hash table: a trace may
 * name hundreds of thousands of each, and each record looks one up. */
typedef struct
{
  GArray *devices;   /* DeviceScratch, in the order the devices first appear */
  GHashTable *at;    /* device id -> its index in devices */
  guint last;        /* the index found last */
} Scratch;

static DeviceScratch *
scratch_for (Scratch *sc, guint32 device_id)
{
  gpointer v;
  DeviceScratch *d;

  /* Records of one device follow one another: most lookups are the last
   * one again. */
  if (sc->last < sc->devices->len && g_array_index (sc->devices, DeviceScratch, sc->last).device_id == device_id)
    return &g_array_index (sc->devices, DeviceScratch, sc->last);
  if (g_hash_table_lookup_extended (sc->at, GUINT_TO_POINTER (device_id), NULL, &v))
    {
      sc->last = GPOINTER_TO_UINT (v);
      return &g_array_index (sc->devices, DeviceScratch, sc->last);
    }
  sc->last = sc->devices->len;
  g_hash_table_insert (sc->at, GUINT_TO_POINTER (device_id), GUINT_TO_POINTER (sc->devices->len));
  g_array_set_size (sc->devices, sc->devices->len + 1);
  d = &g_array_index (sc->devices, DeviceScratch, sc->devices->len - 1);
  d->device_id = device_id;
  d->stream_ns = g_array_new (FALSE, FALSE, sizeof (StreamTime));
  d->stream_at = g_hash_table_new (g_direct_hash, g_direct_equal);
  d->last_stream = G_MAXUINT;
  return d;
}

static void
add_stream_time (DeviceScratch *d, guint32 stream_id, gint64 ns)
{
  StreamTime st = { stream_id, ns };
  gpointer v;

  if (d->last_stream < d->stream_ns->len
      && g_array_index (d->stream_ns, StreamTime, d->last_stream).stream_id == stream_id)
    {
      g_array_index (d->stream_ns, StreamTime, d->last_stream).ns += ns;
      return;
    }
  if (g_hash_table_lookup_extended (d->stream_at, GUINT_TO_POINTER (stream_id), NULL, &v))
    {
      d->last_stream = GPOINTER_TO_UINT (v);
      g_array_index (d->stream_ns, StreamTime, d->last_stream).ns += ns;
      return;
    }
  d->last_stream = d->stream_ns->len;
  g_hash_table_insert (d->stream_at, GUINT_TO_POINTER (stream_id), GUINT_TO_POINTER (d->stream_ns->len));
  g_array_append_val (d->stream_ns, st);
}

/* Appends @v to @list, which was sized for it (its records counted
 * first): millions of appends, each a call and a copy through
 * g_array_append_val(). */
static inline void
list_push (GArray *list, guint v)
{
  ((guint *) (void *) list->data)[list->len++] = v;
}

static void
build_corr_index (PfprofTraceIndex *ix)
{
  const PfprofTrace *t = ix->trace;
  const PfprofApiRecord *api = pfprof_trace_api_calls (t);
  guint n = pfprof_trace_n (t, PFPROF_TABLE_API_CALLS);
  guint32 max = 0;

  for (guint i = 0; i < n; i++)
    max = MAX (max, api[i].correlation_id);
  if (n == 0)
    return;
  /* Correlation ids count up from 1 in one process: a direct table is
   * the common case; fall back to a hash for sparse ids. */
  if ((guint64) max <= 4 * (guint64) n + 4096)
    {
      ix->api_by_corr_len = max + 1;
      ix->api_by_corr = g_new (guint32, ix->api_by_corr_len);
      pfprof_huge_pages_advise (ix->api_by_corr, sizeof (guint32) * ix->api_by_corr_len);
      memset (ix->api_by_corr, 0xff, sizeof (guint32) * ix->api_by_corr_len);
      for (guint i = 0; i < n; i++)
        {
          guint32 c = api[i].correlation_id;
          guint32 prev = ix->api_by_corr[c];

          /* A driver call under a runtime call has its id; two calls of
           * one domain never should. Should ids collide, keep the runtime
           * call: it is the one the user wrote. */
          if (prev != PFPROF_NONE && api[prev].domain == api[i].domain)
            ix->n_api_ids_shared++;
          if (prev == PFPROF_NONE || api[prev].domain != PFPROF_API_RUNTIME)
            ix->api_by_corr[c] = i;
        }
    }
  else
    {
      ix->api_by_corr_sparse = g_hash_table_new (g_direct_hash, g_direct_equal);
      for (guint i = 0; i < n; i++)
        {
          gpointer key = GUINT_TO_POINTER (api[i].correlation_id);
          gpointer prev;

          if (!g_hash_table_lookup_extended (ix->api_by_corr_sparse, key, NULL, &prev))
            g_hash_table_insert (ix->api_by_corr_sparse, key, GUINT_TO_POINTER (i));
          else if (api[GPOINTER_TO_UINT (prev)].domain == api[i].domain)
            ix->n_api_ids_shared++;
        }
    }
}

const PfprofApiRecord *
pfprof_trace_index_api (const PfprofTraceIndex *ix, guint32 corr)
{
  const PfprofApiRecord *api;
  gpointer v;

  g_return_val_if_fail (ix != NULL, NULL);
  api = pfprof_trace_api_calls (ix->trace);
  if (ix->api_by_corr != NULL)
    {
      if (corr >= ix->api_by_corr_len || ix->api_by_corr[corr] == PFPROF_NONE)
        return NULL;
      return &api[ix->api_by_corr[corr]];
    }
  if (ix->api_by_corr_sparse != NULL
      && g_hash_table_lookup_extended (ix->api_by_corr_sparse, GUINT_TO_POINTER (corr), NULL, &v))
    return &api[GPOINTER_TO_UINT (v)];
  return NULL;
}

PfprofApiClass
pfprof_trace_index_api_class (const PfprofTraceIndex *ix, const PfprofApiRecord *api /* nullable */)
{
  g_return_val_if_fail (ix != NULL, PFPROF_API_CLASS_OTHER);
  if (api == NULL || api->name_id >= ix->trace->strings->len)
    return PFPROF_API_CLASS_OTHER;
  return (PfprofApiClass) ix->class_of_name[api->name_id];
}

static guint32
find_string (const PfprofTrace *t, const char *s)
{
  for (guint i = 0; i < t->strings->len; i++)
    {
      const char *v = g_ptr_array_index (t->strings, i);

      if (v != NULL && strcmp (v, s) == 0)
        return i;
    }
  return PFPROF_NONE;
}

static void
build_host_sets (PfprofTraceIndex *ix)
{
  const PfprofTrace *t = ix->trace;
  const PfprofApiRecord *api = pfprof_trace_api_calls (t);
  const PfprofNvtxRecord *nvtx = pfprof_trace_nvtx (t);
  guint n_api = pfprof_trace_n (t, PFPROF_TABLE_API_CALLS);
  guint n_nvtx = pfprof_trace_n (t, PFPROF_TABLE_NVTX);
  guint32 dom = find_string (t, PFPROF_NVTX_DOMAIN_PFPROF);
  guint32 wait = find_string (t, PFPROF_NVTX_DATALOADER_WAIT);
  PfprofIntervalSetBuilder *wb = pfprof_interval_set_builder_new ();
  PfprofIntervalSetBuilder *sb;
  guint n_of_class[PFPROF_N_API_CLASSES] = { 0 };

  ix->class_of_name = g_new0 (guint8, t->strings->len + 1);
  for (guint i = 0; i < t->strings->len; i++)
    ix->class_of_name[i] = (guint8) pfprof_api_class_for_name (g_ptr_array_index (t->strings, i));
  /* Counted first, so that each list is made at its size. */
  for (guint i = 0; i < n_api; i++)
    n_of_class[pfprof_trace_index_api_class (ix, &api[i])]++;
  for (guint c = 0; c < PFPROF_N_API_CLASSES; c++)
    ix->api_of_class[c] = pfprof_huge_array_sized_new (sizeof (guint), c == PFPROF_API_CLASS_OTHER ? 0 : n_of_class[c]);
  sb = pfprof_interval_set_builder_new_sized (n_of_class[PFPROF_API_CLASS_EVENT_SYNC]
                                              + n_of_class[PFPROF_API_CLASS_STREAM_SYNC]
                                              + n_of_class[PFPROF_API_CLASS_DEVICE_SYNC]);

  ix->has_api = n_api > 0;
  for (guint i = 0; i < n_api; i++)
    {
      PfprofApiClass c = pfprof_trace_index_api_class (ix, &api[i]);

      if (c == PFPROF_API_CLASS_OTHER)
        continue;
      list_push (ix->api_of_class[c], i);
      /* The poll (cudaEventQuery) never blocks; the same CUPTI sync type
       * covers both, which is why the API name decides. */
      if (c == PFPROF_API_CLASS_EVENT_SYNC || c == PFPROF_API_CLASS_STREAM_SYNC
          || c == PFPROF_API_CLASS_DEVICE_SYNC)
        pfprof_interval_set_builder_add (sb, api[i].start_ns, api[i].end_ns);
    }
  if (!ix->has_api)
    {
      /* Without API records only stream and context synchronizations are
       * known to block; an event "synchronize" may have been a poll. */
      const PfprofSyncRecord *sy = pfprof_trace_syncs (t);

      for (guint i = 0; i < pfprof_trace_n (t, PFPROF_TABLE_SYNCS); i++)
        if (sy[i].type == PFPROF_SYNC_STREAM_SYNCHRONIZE
            || sy[i].type == PFPROF_SYNC_CONTEXT_SYNCHRONIZE)
          pfprof_interval_set_builder_add (sb, sy[i].start_ns, sy[i].end_ns);
    }

  ix->data_waits = g_array_new (FALSE, FALSE, sizeof (PfprofInterval));
  ix->data_wait_nvtx = g_array_new (FALSE, FALSE, sizeof (guint));
  if (dom != PFPROF_NONE && wait != PFPROF_NONE)
    for (guint i = 0; i < n_nvtx; i++)
      if (nvtx[i].kind == PFPROF_NVTX_RANGE && nvtx[i].domain_id == dom && nvtx[i].name_id == wait)
        {
          PfprofInterval iv = { nvtx[i].start_ns, nvtx[i].end_ns };

          g_array_append_val (ix->data_waits, iv);
          g_array_append_val (ix->data_wait_nvtx, i);
          pfprof_interval_set_builder_add (wb, iv.start, iv.end);
        }
  ix->data_wait = pfprof_interval_set_build (wb);
  ix->sync_wait = pfprof_interval_set_build (sb);
}

static void
build_devices (PfprofTraceIndex *ix)
{
  const PfprofTrace *t = ix->trace;
  const PfprofKernelRecord *k = pfprof_trace_kernels (t);
  const PfprofMemcpyRecord *m = pfprof_trace_memcpys (t);
  const PfprofMemsetRecord *ms = pfprof_trace_memsets (t);
  guint nk = pfprof_trace_n (t, PFPROF_TABLE_KERNELS);
  guint nm = pfprof_trace_n (t, PFPROF_TABLE_MEMCPYS);
  guint nms = pfprof_trace_n (t, PFPROF_TABLE_MEMSETS);
  Scratch sc = { g_array_new (FALSE, TRUE, sizeof (DeviceScratch)),
                 g_hash_table_new (g_direct_hash, g_direct_equal), 0 };
  g_autofree gint8 *comm_name = g_new (gint8, t->strings->len + 1); /* -1 unknown */

  /* Each device's lists of record indices are sized to fit before they
   * are filled: grown as they fill, millions of indices were copied a
   * few times over into fresh memory. */
  for (guint i = 0; i < nk; i++)
    scratch_for (&sc, k[i].device_id)->n_records[0]++;
  for (guint i = 0; i < nm; i++)
    scratch_for (&sc, m[i].device_id)->n_records[1]++;
  for (guint i = 0; i < nms; i++)
    scratch_for (&sc, ms[i].device_id)->n_records[2]++;
  for (guint i = 0; i < sc.devices->len; i++)
    {
      DeviceScratch *d = &g_array_index (sc.devices, DeviceScratch, i);

      /* The kernels of a trace's only device are the whole table. */
      for (guint r = 0; r < G_N_ELEMENTS (d->records); r++)
        d->records[r] = r == 0 && sc.devices->len == 1
                          ? NULL
                          : pfprof_huge_array_sized_new (sizeof (guint), d->n_records[r]);
      /* Sized by what each can receive at most; communication kernels
       * are few, and their set grows. */
      d->k = pfprof_interval_set_builder_new_sized (d->n_records[0]);
      d->n = pfprof_interval_set_builder_new ();
      d->c = pfprof_interval_set_builder_new_sized (d->n_records[1]);
      d->b = pfprof_interval_set_builder_new_sized (d->n_records[1] + d->n_records[2]);
    }
  memset (comm_name, -1, t->strings->len + 1);
  for (guint i = 0; i < nk; i++)
    {
      DeviceScratch *d = scratch_for (&sc, k[i].device_id);
      guint32 id = k[i].name_id < t->strings->len ? k[i].name_id : t->strings->len;

      if (d->records[0] != NULL)
        list_push (d->records[0], i);

      if (comm_name[id] < 0)
        comm_name[id] = pfprof_kernel_name_is_comm (pfprof_trace_string (t, k[i].name_id));
      if (comm_name[id])
        {
          /* Communication is not compute: kept out of K, the compute
           * stream and the kernel counts. */
          pfprof_interval_set_builder_add (d->n, k[i].start_ns, k[i].end_ns);
          d->n_comm_kernels++;
          continue;
        }
      pfprof_interval_set_builder_add (d->k, k[i].start_ns, k[i].end_ns);
      d->n_kernels++;
      d->kernel_sum_ns += k[i].end_ns - k[i].start_ns;
      add_stream_time (d, k[i].stream_id, k[i].end_ns - k[i].start_ns);
    }
  for (guint i = 0; i < nm; i++)
    {
      DeviceScratch *d = scratch_for (&sc, m[i].device_id);

      list_push (d->records[1], i);
      if (m[i].copy_kind == PFPROF_COPY_KIND_HTOD)
        pfprof_interval_set_builder_add (d->c, m[i].start_ns, m[i].end_ns);
      /* Busy: kernels, every copy and memset of the device. */
      pfprof_interval_set_builder_add (d->b, m[i].start_ns, m[i].end_ns);
    }
  for (guint i = 0; i < nms; i++)
    {
      DeviceScratch *d = scratch_for (&sc, ms[i].device_id);

      list_push (d->records[2], i);
      pfprof_interval_set_builder_add (d->b, ms[i].start_ns, ms[i].end_ns);
    }

  ix->devices = g_array_new (FALSE, TRUE, sizeof (PfprofDeviceTimeline));
  g_array_set_clear_func (ix->devices, device_timeline_clear);
  ix->device_at = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint i = 0; i < sc.devices->len; i++)
    {
      DeviceScratch *d = &g_array_index (sc.devices, DeviceScratch, i);
      PfprofDeviceTimeline dt = { 0 };
      PfprofIntervalSet *kc;
      gint64 best = -1;

      dt.device_id = d->device_id;
      dt.n_kernels = d->n_kernels;
      dt.kernel_sum_ns = d->kernel_sum_ns;
      dt.compute_stream = PFPROF_NONE;
      for (guint s = 0; s < d->stream_ns->len; s++)
        {
          StreamTime *st = &g_array_index (d->stream_ns, StreamTime, s);

          if (st->ns > best)
            {
              best = st->ns;
              dt.compute_stream = st->stream_id;
            }
        }
      dt.n_comm_kernels = d->n_comm_kernels;
      memcpy (dt.records, d->records, sizeof dt.records);
      memcpy (dt.n_records, d->n_records, sizeof dt.n_records);
      dt.kernels = pfprof_interval_set_build (d->k);
      dt.comm = pfprof_interval_set_build (d->n);
      dt.kernels_comm = pfprof_interval_set_union (dt.kernels, dt.comm);
      dt.htod = pfprof_interval_set_build (d->c);
      dt.htod_kernels = pfprof_interval_set_intersect (dt.htod, dt.kernels_comm);
      kc = pfprof_interval_set_build (d->b);
      dt.busy = pfprof_interval_set_union (dt.kernels_comm, kc);
      pfprof_interval_set_free (kc);
      g_array_unref (d->stream_ns);
      g_hash_table_unref (d->stream_at);
      g_hash_table_insert (ix->device_at, GUINT_TO_POINTER (d->device_id), GUINT_TO_POINTER (ix->devices->len));
      g_array_append_val (ix->devices, dt);
    }
  g_array_unref (sc.devices);
  g_hash_table_unref (sc.at);
}

static gpointer
build_devices_thread (gpointer ix)
{
  build_devices (ix);
  return NULL;
}

/* The launcher's hook wraps next() on the training loop's thread: when
 * there are DataLoader waits, their thread is the main one. Otherwise the
 * thread that launched most kernels (PyTorch's autograd thread launches
 * the backward pass, so this is a fallback). */
static void
count_tid (GHashTable *counts, guint32 tid)
{
  gpointer key = GUINT_TO_POINTER (tid);

  g_hash_table_insert (counts, key, GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (counts, key)) + 1));
}

/* Sets main_tid to the thread counted most often (the lowest id on a
 * tie); FALSE when nothing was counted. */
static gboolean
pick_busiest (PfprofTraceIndex *ix, GHashTable *counts)
{
  guint best = 0;
  GHashTableIter it;
  gpointer key, value;

  g_hash_table_iter_init (&it, counts);
  while (g_hash_table_iter_next (&it, &key, &value))
    if (GPOINTER_TO_UINT (value) > best
        || (GPOINTER_TO_UINT (value) == best && GPOINTER_TO_UINT (key) < ix->main_tid))
      {
        best = GPOINTER_TO_UINT (value);
        ix->main_tid = GPOINTER_TO_UINT (key);
      }
  return best > 0;
}

/* The thread that feeds the GPU: the one waiting for the DataLoader, else
 * the one that launched the kernels, else (a trace recorded without
 * launch records, pfprof record's default) the one that issued the copies
 * and memsets, else the one with the most API calls. */
static void
find_main_thread (PfprofTraceIndex *ix)
{
  const PfprofTrace *t = ix->trace;
  const PfprofNvtxRecord *nv = pfprof_trace_nvtx (t);
  const PfprofKernelRecord *k = pfprof_trace_kernels (t);
  const PfprofMemcpyRecord *m = pfprof_trace_memcpys (t);
  const PfprofMemsetRecord *ms = pfprof_trace_memsets (t);
  const PfprofApiRecord *api_calls = pfprof_trace_api_calls (t);
  guint nk = pfprof_trace_n (t, PFPROF_TABLE_KERNELS);
  guint nm = pfprof_trace_n (t, PFPROF_TABLE_MEMCPYS);
  guint nms = pfprof_trace_n (t, PFPROF_TABLE_MEMSETS);
  guint na = pfprof_trace_n (t, PFPROF_TABLE_API_CALLS);
  g_autoptr (GHashTable) waits = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GHashTable) launches = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GHashTable) copies = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GHashTable) calls = g_hash_table_new (g_direct_hash, g_direct_equal);
  guint step = MAX (1u, nk / 100000); /* a sample is enough to find the launcher */
  const PfprofApiRecord *api;

  for (guint i = 0; i < ix->data_wait_nvtx->len; i++)
    count_tid (waits, nv[g_array_index (ix->data_wait_nvtx, guint, i)].tid);
  if (pick_busiest (ix, waits))
    return;
  for (guint i = 0; i < nk; i += step)
    if ((api = pfprof_trace_index_api (ix, k[i].correlation_id)) != NULL)
      count_tid (launches, api->tid);
  if (pick_busiest (ix, launches))
    return;
  for (guint i = 0; i < nm; i++)
    if ((api = pfprof_trace_index_api (ix, m[i].correlation_id)) != NULL)
      count_tid (copies, api->tid);
  for (guint i = 0; i < nms; i++)
    if ((api = pfprof_trace_index_api (ix, ms[i].correlation_id)) != NULL)
      count_tid (copies, api->tid);
  if (pick_busiest (ix, copies))
    return;
  for (guint i = 0; i < na; i++)
    count_tid (calls, api_calls[i].tid);
  pick_busiest (ix, calls);
}

PfprofTraceIndex *
pfprof_trace_index_new (const PfprofTrace *trace, guint trace_index)
{
  PfprofTraceIndex *ix;

  g_return_val_if_fail (trace != NULL, NULL);
  ix = g_new0 (PfprofTraceIndex, 1);
  ix->trace = trace;
  ix->trace_index = trace_index;
  if (pfprof_trace_n (trace, PFPROF_TABLE_WINDOWS) > 0)
    {
      const PfprofWindowRecord *w = pfprof_trace_windows (trace);
      PfprofIntervalSetBuilder *b = pfprof_interval_set_builder_new ();

      for (guint i = 0; i < pfprof_trace_n (trace, PFPROF_TABLE_WINDOWS); i++)
        pfprof_interval_set_builder_add (b, w[i].start_ns, w[i].end_ns);
      ix->windows = pfprof_interval_set_build (b);
    }
  /* The devices' lists and sets read the GPU's records, the rest the
   * host's: neither writes what the other reads, so on a machine of two
   * cores or more the devices are built beside them (a third of the
   * index's time on a large trace). Without a thread, in turn. */
  {
    GThread *devices = g_get_num_processors () > 1
                         ? g_thread_try_new ("pfprof-index", build_devices_thread, ix, NULL)
                         : NULL;

    build_corr_index (ix);
    build_host_sets (ix);
    if (devices != NULL)
      g_thread_join (devices);
    else
      build_devices (ix);
  }
  find_main_thread (ix);
  return ix;
}

void
pfprof_trace_index_free (PfprofTraceIndex *ix)
{
  if (ix == NULL)
    return;
  g_free (ix->api_by_corr);
  if (ix->api_by_corr_sparse)
    g_hash_table_unref (ix->api_by_corr_sparse);
  g_free (ix->class_of_name);
  for (guint c = 0; c < PFPROF_N_API_CLASSES; c++)
    if (ix->api_of_class[c])
      g_array_unref (ix->api_of_class[c]);
  g_array_unref (ix->devices);
  g_clear_pointer (&ix->device_at, g_hash_table_unref);
  g_array_unref (ix->data_waits);
  g_array_unref (ix->data_wait_nvtx);
  pfprof_interval_set_free (ix->data_wait);
  pfprof_interval_set_free (ix->sync_wait);
  pfprof_interval_set_free (ix->windows);
  g_free (ix);
}

const PfprofDeviceTimeline *
pfprof_trace_index_device (const PfprofTraceIndex *ix, guint32 device_id)
{
  gpointer v;

  g_return_val_if_fail (ix != NULL, NULL);
  if (!g_hash_table_lookup_extended (ix->device_at, GUINT_TO_POINTER (device_id), NULL, &v))
    return NULL;
  return &g_array_index (ix->devices, PfprofDeviceTimeline, GPOINTER_TO_UINT (v));
}

gboolean
pfprof_memcpy_is_pageable (const PfprofMemcpyRecord *m)
{
  g_return_val_if_fail (m != NULL, FALSE);

  return (m->copy_kind == PFPROF_COPY_KIND_HTOD && m->src_kind == PFPROF_MEMORY_KIND_PAGEABLE)
         || (m->copy_kind == PFPROF_COPY_KIND_DTOH && m->dst_kind == PFPROF_MEMORY_KIND_PAGEABLE);
}
