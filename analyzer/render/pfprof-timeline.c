/* SPDX-License-Identifier: MIT */
/* pfprof-timeline.c: rows and lanes of the timeline. */
#include "pfprof-timeline.h"
#include "pfprof-hash.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pfprof-lower-bound.h"
#include "pfprof-render-text.h"

/* Per-trace facts the drawing loop needs without string compares. */
struct _PfprofTimelineTraceInfo
{
  guint8 *api_sync_name;   /* by string id: 1 when the API call blocks */
  guint n_names;
  guint32 dataloader_name; /* string id of "DataLoader.next", or NONE */
  guint32 pfprof_domain;   /* string id of "pfprof", or NONE */
  GHashTable *corr_api;    /* correlation id -> api index + 1; lazy */
};

/* Lanes never nest deeper than this; the rest share the last lane. */
#define MAX_SUB_LANES 8

/* One logical row while building: refs of all its events by start. */
typedef struct
{
  PfprofRowType type;
  guint32 device_id;
  guint32 stream_id;
  guint32 tid;
  GArray *refs; /* PfprofEventRef */
  /* Its lanes and their prefix sums (compute_lanes), until rows take them. */
  GArray *lanes[MAX_SUB_LANES];
  gint64 *prefix[MAX_SUB_LANES];
  guint n_lanes;
} Pending;

static void
pending_free (gpointer data)
{
  Pending *p = data;

  g_array_unref (p->refs);
  for (guint l = 0; l < p->n_lanes; l++)
    {
      if (p->lanes[l] != NULL)
        g_array_unref (p->lanes[l]);
      g_free (p->prefix[l]);
    }
  g_free (p);
}

/* Calls @fn (@ctx, i) for every i below @n, on this thread and up to
 * three more, each taking the next i as it is done: the layout's passes
 * over the events of a 10M-event trace, lane by lane, are independent. */
typedef struct
{
  void (*fn) (gpointer ctx, guint i);
  gpointer ctx;
  guint n;
  gint next;
} Parallel;

static gpointer
parallel_worker (gpointer data)
{
  Parallel *w = data;

  for (;;)
    {
      guint i = (guint) g_atomic_int_add (&w->next, 1);

      if (i >= w->n)
        return NULL;
      w->fn (w->ctx, i);
    }
}

static void
run_parallel (guint n, void (*fn) (gpointer ctx, guint i), gpointer ctx)
{
  Parallel w = { fn, ctx, n, 0 };
  GThread *helpers[3] = { NULL };
  guint n_helpers = MIN (MIN ((guint) g_get_num_processors (), 4u) - 1, n > 0 ? n - 1 : 0);

  for (guint i = 0; i < n_helpers; i++)
    helpers[i] = g_thread_new ("pfprof-layout", parallel_worker, &w);
  parallel_worker (&w);
  for (guint i = 0; i < n_helpers; i++)
    g_thread_join (helpers[i]);
}

static Pending *
pending_new (PfprofRowType type, guint32 device_id, guint32 stream_id, guint32 tid)
{
  Pending *p = g_new0 (Pending, 1);

  p->type = type;
  p->device_id = device_id;
  p->stream_id = stream_id;
  p->tid = tid;
  p->refs = g_array_new (FALSE, FALSE, sizeof (PfprofEventRef));
  return p;
}

/* The record size of a table a lane holds, known at compile time: the
 * layout and the renderer look up tens of millions of events, and
 * g_array_get_element_size() is a call each. */
static inline gsize
record_size (const GArray *a, PfprofTableId t)
{
  switch (t)
    {
    case PFPROF_TABLE_KERNELS:
      return sizeof (PfprofKernelRecord);
    case PFPROF_TABLE_MEMCPYS:
      return sizeof (PfprofMemcpyRecord);
    case PFPROF_TABLE_MEMSETS:
      return sizeof (PfprofMemsetRecord);
    case PFPROF_TABLE_SYNCS:
      return sizeof (PfprofSyncRecord);
    case PFPROF_TABLE_API_CALLS:
      return sizeof (PfprofApiRecord);
    case PFPROF_TABLE_NVTX:
      return sizeof (PfprofNvtxRecord);
    default:
      return g_array_get_element_size ((GArray *) a);
    }
}

static inline const gint64 *
event_times (const PfprofTrace *trace, PfprofEventRef ref)
{
  PfprofTableId t = PFPROF_EVENT_REF_TABLE (ref);
  GArray *a = trace->tables[t];

  /* Every table a lane holds starts its record with start_ns, end_ns. */
  return (const gint64 *) (a->data + (gsize) PFPROF_EVENT_REF_INDEX (ref) * record_size (a, t));
}

void
pfprof_timeline_event_range (const PfprofTrace *trace, PfprofEventRef ref, gint64 *start_ns,
                             gint64 *end_ns)
{
  g_return_if_fail (trace != NULL);

  const gint64 *t = event_times (trace, ref);

  if (start_ns)
    *start_ns = t[0];
  if (end_ns)
    *end_ns = t[1];
}

PfprofItemClass
pfprof_timeline_event_class (const PfprofTimelineRow *row, PfprofEventRef ref)
{
  g_return_val_if_fail (row != NULL, PFPROF_ITEM_KERNEL);

  const PfprofTrace *trace = row->trace;
  guint i = PFPROF_EVENT_REF_INDEX (ref);

  switch (PFPROF_EVENT_REF_TABLE (ref))
    {
    case PFPROF_TABLE_KERNELS:
      return PFPROF_ITEM_KERNEL;
    case PFPROF_TABLE_MEMCPYS:
      {
        const PfprofMemcpyRecord *m = &pfprof_trace_memcpys (trace)[i];

        if (m->copy_kind == PFPROF_COPY_KIND_HTOD)
          return m->src_kind == PFPROF_MEMORY_KIND_PAGEABLE ? PFPROF_ITEM_HTOD_PAGEABLE
                                                            : PFPROF_ITEM_HTOD_PINNED;
        if (m->copy_kind == PFPROF_COPY_KIND_DTOH)
          return m->dst_kind == PFPROF_MEMORY_KIND_PAGEABLE ? PFPROF_ITEM_DTOH_PAGEABLE
                                                            : PFPROF_ITEM_DTOH_PINNED;
        return PFPROF_ITEM_COPY_OTHER;
      }
    case PFPROF_TABLE_MEMSETS:
      return PFPROF_ITEM_MEMSET;
    case PFPROF_TABLE_SYNCS:
      return PFPROF_ITEM_SYNC;
    case PFPROF_TABLE_API_CALLS:
      {
        guint32 name = pfprof_trace_api_calls (trace)[i].name_id;

        if (row->info && name < row->info->n_names && row->info->api_sync_name[name])
          return PFPROF_ITEM_API_SYNC;
        return PFPROF_ITEM_API;
      }
    case PFPROF_TABLE_WORKER_EVENTS:
      return pfprof_trace_worker_events (trace)[i].kind == PFPROF_WORKER_STAGE ? PFPROF_ITEM_STAGE
                                                                                 : PFPROF_ITEM_BATCH;
    case PFPROF_TABLE_NVTX:
      {
        const PfprofNvtxRecord *n = &pfprof_trace_nvtx (trace)[i];

        if (row->info && n->name_id == row->info->dataloader_name
            && n->domain_id == row->info->pfprof_domain && n->name_id != PFPROF_NONE)
          return PFPROF_ITEM_DATA_WAIT;
        return PFPROF_ITEM_NVTX;
      }
    default:
      return PFPROF_ITEM_NVTX;
    }
}

static void
info_init (struct _PfprofTimelineTraceInfo *info, const PfprofTrace *trace)
{
  info->n_names = trace->strings->len;
  info->api_sync_name = g_new0 (guint8, info->n_names + 1);
  info->dataloader_name = PFPROF_NONE;
  info->pfprof_domain = PFPROF_NONE;
  for (guint i = 0; i < trace->strings->len; i++)
    {
      const char *s = g_ptr_array_index (trace->strings, i);

      if (s == NULL)
        continue;
      /* The calls that block the host until the GPU catches up. */
      if (strstr (s, "Synchronize") != NULL || strcmp (s, "cudaMemcpy") == 0
          || strcmp (s, "cuMemcpyHtoD_v2") == 0 || strcmp (s, "cuMemcpyDtoH_v2") == 0)
        info->api_sync_name[i] = 1;
      if (info->dataloader_name == PFPROF_NONE && strcmp (s, PFPROF_NVTX_DATALOADER_WAIT) == 0)
        info->dataloader_name = i;
      if (info->pfprof_domain == PFPROF_NONE && strcmp (s, PFPROF_NVTX_DOMAIN_PFPROF) == 0)
        info->pfprof_domain = i;
    }
}

static guint64
key2 (guint32 a, guint32 b)
{
  return ((guint64) a << 32) | b;
}

static Pending *
lookup_pending (GHashTable *table, GPtrArray *all, PfprofRowType type, guint32 a, guint32 b,
                guint32 device_id, guint32 stream_id, guint32 tid)
{
  guint64 key = key2 (a, b) ^ ((guint64) type << 60);
  Pending *p = g_hash_table_lookup (table, &key);

  if (p == NULL)
    {
      guint64 *k = g_new (guint64, 1);

      *k = key;
      p = pending_new (type, device_id, stream_id, tid);
      g_hash_table_insert (table, k, p);
      g_ptr_array_add (all, p);
    }
  return p;
}

static int
compare_pending (gconstpointer a, gconstpointer b)
{
  const Pending *x = *(Pending *const *) a;
  const Pending *y = *(Pending *const *) b;

#define CMP(f)                                                                                     \
  if (x->f != y->f)                                                                                \
    return x->f < y->f ? -1 : 1;
  gboolean xt = x->type == PFPROF_ROW_THREAD_API || x->type == PFPROF_ROW_THREAD_NVTX;
  gboolean yt = y->type == PFPROF_ROW_THREAD_API || y->type == PFPROF_ROW_THREAD_NVTX;

  /* GPU rows first (by device, streams before the sync lane), then each
   * thread's API lane followed by its NVTX lane. */
  CMP (device_id);
  if (xt != yt)
    return xt ? 1 : -1;
  CMP (tid);
  CMP (type);
  CMP (stream_id);
#undef CMP
  return 0;
}

static void
add_group (PfprofTimeline *tl, PfprofRowType type, int depth, int parent, char *label,
           guint trace_index, guint32 device_id, guint32 tid)
{
  PfprofTimelineRow row = { 0 };

  row.type = type;
  row.is_group = TRUE;
  row.expanded = TRUE;
  row.depth = depth;
  row.parent = parent;
  row.label = label;
  row.trace_index = trace_index;
  row.device_id = device_id;
  row.stream_id = PFPROF_NONE;
  row.tid = tid;
  g_array_append_val (tl->rows, row);
}

/* Zeroed memory for a big array, asked to use transparent huge pages:
 * the layout of 10M events fills about 100 MB of prefix sums and
 * summaries, and on a VM a page fault per 4 KiB page was most of its
 * time. Freed with g_free(). */
static gpointer
alloc_big (gsize bytes)
{
  gpointer p = g_malloc0 (bytes);

#ifdef MADV_HUGEPAGE
  if (bytes >= (4u << 20))
    {
      guintptr page = (guintptr) sysconf (_SC_PAGESIZE);
      guintptr start = ((guintptr) p + page - 1) & ~(page - 1);
      guintptr end = ((guintptr) p + bytes) & ~(page - 1);

      /* Advice only: on failure the pages are small, nothing else. */
      if (end > start)
        madvise ((void *) start, end - start, MADV_HUGEPAGE);
    }
#endif
  return p;
}

#define LOD_BUCKETS 65536

static PfprofTimelineLod *
lod_new (const PfprofTimelineRow *row)
{
  PfprofTimelineLod *lod = g_new0 (PfprofTimelineLod, 1);
  gint64 first, last_end = G_MININT64, span;
  gint64 *weights;
  /* About one bucket per event, at most LOD_BUCKETS: a small lane needs
   * no finer summary, its events are few enough to visit. */
  guint n0 = MIN (LOD_BUCKETS, MAX (row->n_refs, 1024u));

  pfprof_timeline_event_range (row->trace, row->refs[0], &first, NULL);
  for (guint i = row->n_refs > 64 ? row->n_refs - 64 : 0; i < row->n_refs; i++)
    last_end = MAX (last_end, event_times (row->trace, row->refs[i])[1]);
  span = MAX (last_end - first, 1);
  lod->start_ns = first;
  lod->width_ns[0] = MAX ((span + n0 - 1) / n0, 1);
  n0 = (guint) ((span + lod->width_ns[0] - 1) / lod->width_ns[0]) + 1;
  /* Busy time per bucket and class at level 0; each coarser level sums
   * four buckets and keeps the class with the most time. */
  weights = alloc_big ((gsize) n0 * PFPROF_N_ITEMS * sizeof (gint64));
  for (guint i = 0; i < row->n_refs; i++)
    {
      const gint64 *t = event_times (row->trace, row->refs[i]);
      PfprofItemClass c = pfprof_timeline_event_class (row, row->refs[i]);
      gint64 s = t[0], e = MAX (t[1], t[0] + 1); /* marks count as 1 ns */
      guint64 b = (guint64) (s - first) / (guint64) lod->width_ns[0];

      for (; b < n0; b++)
        {
          gint64 bs = first + (gint64) b * lod->width_ns[0];
          gint64 be = bs + lod->width_ns[0];

          if (bs >= e)
            break;
          weights[b * PFPROF_N_ITEMS + c] += MIN (e, be) - MAX (s, bs);
        }
    }
  for (guint level = 0; level < G_N_ELEMENTS (lod->n); level++)
    {
      guint n = level == 0 ? n0 : (lod->n[level - 1] + 3) / 4;

      if (level > 0)
        {
          /* Fold four children into each parent, in place. */
          for (guint b = 0; b < n; b++)
            for (int c = 0; c < PFPROF_N_ITEMS; c++)
              {
                gint64 sum = 0;

                for (guint k = 4 * b; k < 4 * b + 4 && k < lod->n[level - 1]; k++)
                  sum += weights[(gsize) k * PFPROF_N_ITEMS + c];
                weights[(gsize) b * PFPROF_N_ITEMS + c] = sum;
              }
          lod->width_ns[level] = lod->width_ns[level - 1] * 4;
        }
      lod->n[level] = n;
      lod->busy[level] = g_new (gint64, n);
      lod->cls[level] = g_new (guint8, n);
      for (guint b = 0; b < n; b++)
        {
          gint64 total = 0, best = -1;
          int best_c = 0;

          for (int c = 0; c < PFPROF_N_ITEMS; c++)
            {
              gint64 w = weights[(gsize) b * PFPROF_N_ITEMS + c];

              total += w;
              if (w > best)
                best = w, best_c = c;
            }
          lod->busy[level][b] = total;
          lod->cls[level][b] = (guint8) best_c;
        }
      lod->n_levels = level + 1;
      if (n <= 16)
        break;
    }
  g_free (weights);
  return lod;
}

static void
lod_free (PfprofTimelineLod *lod)
{
  if (lod == NULL)
    return;
  for (guint l = 0; l < lod->n_levels; l++)
    {
      g_free (lod->busy[l]);
      g_free (lod->cls[l]);
    }
  g_free (lod);
}

/* Spreads @p's events over at most @max_lanes non-overlapping lanes
 * (first fit, as a flame chart does), with their prefix sums, into
 * p->lanes. Reads the trace and writes @p alone: pendings are done side
 * by side (run_parallel). */
static void
compute_lanes (const PfprofTrace *trace, Pending *p, guint max_lanes)
{
  gint64 lane_end[MAX_SUB_LANES];
  guint n_lanes = 0;
  guint e = 0, len = p->refs->len;
  gint64 *prefix0 = NULL;

  /* A one-lane row (a stream), or a row whose events do not overlap (most
   * threads'), is the pending array itself, taken without a copy, and its
   * prefix sums are summed in the same pass over the events (each event's
   * times are a cache miss: one pass fewer over 10M events). */
  if (len > 0)
    {
      prefix0 = alloc_big ((gsize) (len + 1) * sizeof (gint64));
      prefix0[0] = 0;
    }
  for (gint64 end = G_MININT64; e < len; e++)
    {
      const gint64 *t = event_times (trace, g_array_index (p->refs, PfprofEventRef, e));

      if (max_lanes > 1 && t[0] < end)
        break;
      end = MAX (end, t[1]);
      prefix0[e + 1] = prefix0[e] + (t[1] - t[0]);
    }
  if (e < len)
    g_clear_pointer (&prefix0, g_free);
  if (prefix0 != NULL)
    {
      p->lanes[0] = g_steal_pointer (&p->refs);
      p->prefix[0] = prefix0;
      p->refs = g_array_new (FALSE, FALSE, sizeof (PfprofEventRef));
      p->n_lanes = 1;
      return;
    }

  for (guint i = 0; i < p->refs->len; i++)
    {
      PfprofEventRef ref = g_array_index (p->refs, PfprofEventRef, i);
      const gint64 *t = event_times (trace, ref);
      guint l;

      for (l = 0; l < n_lanes; l++)
        if (lane_end[l] <= t[0])
          break;
      if (l == n_lanes)
        {
          if (n_lanes < max_lanes)
            {
              p->lanes[n_lanes] = g_array_sized_new (FALSE, FALSE, sizeof (PfprofEventRef),
                                                     n_lanes == 0 ? p->refs->len : 64);
              lane_end[n_lanes] = G_MININT64;
              n_lanes++;
            }
          else
            {
              /* Too deep: the lane that frees up first takes it; the
               * overlap is drawn over. */
              l = 0;
              for (guint k = 1; k < n_lanes; k++)
                if (lane_end[k] < lane_end[l])
                  l = k;
            }
        }
      g_array_append_val (p->lanes[l], ref);
      if (t[1] > lane_end[l])
        lane_end[l] = t[1];
    }
  p->n_lanes = n_lanes;
  for (guint l = 0; l < n_lanes; l++)
    {
      guint n = p->lanes[l]->len;
      const PfprofEventRef *refs = (const PfprofEventRef *) (void *) p->lanes[l]->data;
      gint64 *prefix = alloc_big ((gsize) (n + 1) * sizeof (gint64));

      prefix[0] = 0;
      for (guint i = 0; i < n; i++)
        {
          const gint64 *t = event_times (trace, refs[i]);

          prefix[i + 1] = prefix[i] + (t[1] - t[0]);
        }
      p->prefix[l] = prefix;
    }
}

/* Appends one row per lane of @p (compute_lanes), taking them over,
 * labelled @label, the lane's number from the second lane on, then
 * ": @detail" when given: the label column cuts a label's end first, so
 * what tells lanes apart comes before the detail. */
static void
add_lanes (PfprofTimeline *tl, const PfprofTrace *trace, struct _PfprofTimelineTraceInfo *info,
           guint trace_index, Pending *p, int depth, int parent, const char *label, const char *detail)
{
  for (guint l = 0; l < p->n_lanes; l++)
    {
      PfprofTimelineRow row = { 0 };
      g_autofree char *lane = l == 0 ? g_strdup ("") : g_strdup_printf (" (%u)", l + 1);

      row.type = p->type;
      row.depth = depth;
      row.parent = parent;
      row.label = g_strconcat (label, lane, detail && *detail ? ": " : "", detail && *detail ? detail : "",
                               NULL);
      row.trace_index = trace_index;
      row.device_id = p->device_id;
      row.stream_id = p->stream_id;
      row.tid = p->tid;
      row.sub_lane = l;
      row.trace = trace;
      row.info = info;
      row.n_refs = p->lanes[l]->len;
      row.refs = (PfprofEventRef *) g_array_free (g_steal_pointer (&p->lanes[l]), FALSE);
      row.prefix = g_steal_pointer (&p->prefix[l]);
      /* Its summary comes once every row is laid out (build_lods). */
      g_array_append_val (tl->rows, row);
    }
}

typedef struct
{
  const PfprofTrace *trace;
  GPtrArray *all;  /* Pending */
  GArray *order;   /* guint indices into all, biggest first */
} LaneWork;

static void
lanes_one (gpointer ctx, guint i)
{
  LaneWork *w = ctx;
  Pending *p = g_ptr_array_index (w->all, g_array_index (w->order, guint, i));

  /* CUDA runs one stream's work in order: one lane. */
  compute_lanes (w->trace, p, p->type == PFPROF_ROW_STREAM ? 1 : MAX_SUB_LANES);
}

static gint
pending_by_size (gconstpointer a, gconstpointer b, gpointer data)
{
  GPtrArray *all = data;
  guint na = ((const Pending *) g_ptr_array_index (all, *(const guint *) a))->refs->len;
  guint nb = ((const Pending *) g_ptr_array_index (all, *(const guint *) b))->refs->len;

  return na > nb ? -1 : na < nb;
}

static void
compute_all_lanes (const PfprofTrace *trace, GPtrArray *all)
{
  LaneWork w = { trace, all, g_array_sized_new (FALSE, FALSE, sizeof (guint), all->len) };

  for (guint i = 0; i < all->len; i++)
    g_array_append_val (w.order, i);
  g_array_sort_with_data (w.order, pending_by_size, all);
  run_parallel (all->len, lanes_one, &w);
  g_array_unref (w.order);
}

static guint32
context_device (GHashTable *ctx_dev, guint32 context_id)
{
  gpointer v;

  if (g_hash_table_lookup_extended (ctx_dev, GUINT_TO_POINTER (context_id), NULL, &v))
    return GPOINTER_TO_UINT (v);
  return PFPROF_NONE;
}

static const char *
device_name (const PfprofTrace *trace, guint32 device_id)
{
  const PfprofDeviceRecord *d = pfprof_trace_devices (trace);

  for (guint i = 0; i < pfprof_trace_n (trace, PFPROF_TABLE_DEVICES); i++)
    if (d[i].device_id == device_id)
      return pfprof_trace_string (trace, d[i].name_id);
  return "";
}

static const char *
thread_name (const PfprofTrace *trace, guint32 tid)
{
  const PfprofThreadRecord *t = pfprof_trace_threads (trace);

  for (guint i = 0; i < pfprof_trace_n (trace, PFPROF_TABLE_THREADS); i++)
    if (t[i].tid == tid)
      return pfprof_trace_string (trace, t[i].name_id);
  return "";
}

/* The host side of a trace's rows (syncs, API calls, NVTX ranges), kept
 * apart from the GPU's so that a thread of its own collects them while
 * build_trace merges the GPU tables. */
typedef struct
{
  const PfprofTrace *trace;
  GHashTable *ctx_dev;
  GHashTable *by_key;
  GPtrArray *all;
} HostRows;

static gpointer
collect_host_rows (gpointer data)
{
  HostRows *h = data;
  Pending *last = NULL;

  /* Synchronizations: host-side waits, shown under the GPU they wait on. */
  for (guint i = 0; i < pfprof_trace_n (h->trace, PFPROF_TABLE_SYNCS) && i <= PFPROF_EVENT_REF_MAX_INDEX; i++)
    {
      const PfprofSyncRecord *s = &pfprof_trace_syncs (h->trace)[i];
      guint32 device = context_device (h->ctx_dev, s->context_id);
      PfprofEventRef ref = PFPROF_EVENT_REF (PFPROF_TABLE_SYNCS, i);
      Pending *p = lookup_pending (h->by_key, h->all, PFPROF_ROW_DEVICE_SYNC, device, 0, device,
                                   PFPROF_NONE, 0);

      g_array_append_val (p->refs, ref);
    }
  for (guint i = 0; i < pfprof_trace_n (h->trace, PFPROF_TABLE_API_CALLS) && i <= PFPROF_EVENT_REF_MAX_INDEX; i++)
    {
      guint32 tid = pfprof_trace_api_calls (h->trace)[i].tid;
      PfprofEventRef ref = PFPROF_EVENT_REF (PFPROF_TABLE_API_CALLS, i);
      Pending *p;

      if (last == NULL || last->type != PFPROF_ROW_THREAD_API || last->tid != tid)
        last = lookup_pending (h->by_key, h->all, PFPROF_ROW_THREAD_API, tid, 0, PFPROF_NONE,
                               PFPROF_NONE, tid);
      p = last;
      g_array_append_val (p->refs, ref);
    }
  last = NULL;
  for (guint i = 0; i < pfprof_trace_n (h->trace, PFPROF_TABLE_NVTX) && i <= PFPROF_EVENT_REF_MAX_INDEX; i++)
    {
      guint32 tid = pfprof_trace_nvtx (h->trace)[i].tid;
      PfprofEventRef ref = PFPROF_EVENT_REF (PFPROF_TABLE_NVTX, i);

      if (last == NULL || last->tid != tid)
        last = lookup_pending (h->by_key, h->all, PFPROF_ROW_THREAD_NVTX, tid, 0, PFPROF_NONE,
                               PFPROF_NONE, tid);
      g_array_append_val (last->refs, ref);
    }
  /* Inside the DataLoader: a worker's batches and stages on its lane (the
   * stages' spans overlap: sub-lanes), the pin thread's, and the batches
   * the training loop got. */
  for (guint i = 0; i < pfprof_trace_n (h->trace, PFPROF_TABLE_WORKER_EVENTS) && i <= PFPROF_EVENT_REF_MAX_INDEX;
       i++)
    {
      const PfprofWorkerEventRecord *r = &pfprof_trace_worker_events (h->trace)[i];
      PfprofEventRef ref = PFPROF_EVENT_REF (PFPROF_TABLE_WORKER_EVENTS, i);
      guint32 lane, tid = 0;
      Pending *p;

      switch (r->kind)
        {
        case PFPROF_WORKER_BATCH:
        case PFPROF_WORKER_FAILED:
        case PFPROF_WORKER_STAGE:
          lane = PFPROF_TIMELINE_WORKER_BATCHES;
          tid = r->pid;
          break;
        case PFPROF_WORKER_PIN:
          lane = PFPROF_TIMELINE_WORKER_PIN;
          break;
        case PFPROF_WORKER_GOT:
          lane = PFPROF_TIMELINE_WORKER_GOT;
          break;
        default:
          continue;
        }
      p = lookup_pending (h->by_key, h->all, PFPROF_ROW_WORKER, tid, lane, PFPROF_NONE, lane, tid);
      g_array_append_val (p->refs, ref);
    }

  return NULL;
}

static void
build_trace (PfprofTimeline *tl, guint ti, PfprofTimelineProgressFunc progress, gpointer user_data,
             double done, double share)
{
  const PfprofTrace *trace = g_ptr_array_index (tl->traces, ti);
  struct _PfprofTimelineTraceInfo *info = &tl->infos[ti];
  g_autoptr (GHashTable) by_key = g_hash_table_new_full (pfprof_hash_int64, g_int64_equal, g_free, NULL);
  g_autoptr (GPtrArray) all = g_ptr_array_new_with_free_func (pending_free);
  g_autoptr (GHashTable) ctx_dev = g_hash_table_new (NULL, NULL);
  static const PfprofTableId gpu_tables[] = { PFPROF_TABLE_KERNELS, PFPROF_TABLE_MEMCPYS,
                                              PFPROF_TABLE_MEMSETS };
  guint pos[G_N_ELEMENTS (gpu_tables)] = { 0 };
  guint64 n_gpu = 0, handled = 0;
  Pending *last = NULL;
  guint64 last_key = G_MAXUINT64;
  g_autofree char *plabel = NULL;
  g_autofree char *pname = NULL;
  int process_row;
  HostRows hr;
  GThread *host_thread;

  info_init (info, trace);
  for (guint i = 0; i < G_N_ELEMENTS (gpu_tables); i++)
    n_gpu += pfprof_trace_n (trace, gpu_tables[i]);
  tl->n_gpu_events += n_gpu;

  for (guint i = 0; i < pfprof_trace_n (trace, PFPROF_TABLE_CONTEXTS); i++)
    g_hash_table_insert (ctx_dev, GUINT_TO_POINTER (pfprof_trace_contexts (trace)[i].context_id),
                         GUINT_TO_POINTER (pfprof_trace_contexts (trace)[i].device_id));
  hr.trace = trace;
  hr.ctx_dev = ctx_dev;
  hr.by_key = g_hash_table_new_full (pfprof_hash_int64, g_int64_equal, g_free, NULL);
  hr.all = g_ptr_array_new_with_free_func (pending_free);
  host_thread = g_thread_new ("pfprof-layout", collect_host_rows, &hr);

  /* Merge the three GPU tables by start: each stream's lane comes out
   * sorted without a sort. */
  for (;;)
    {
      int best = -1;
      gint64 best_start = G_MAXINT64;
      const gint64 *t;
      guint32 device, stream;
      guint idx;
      guint64 key;

      for (guint k = 0; k < G_N_ELEMENTS (gpu_tables); k++)
        {
          GArray *a = trace->tables[gpu_tables[k]];

          if (pos[k] < a->len)
            {
              t = event_times (trace, PFPROF_EVENT_REF (gpu_tables[k], 0));
              t = (const gint64 *) ((const char *) t + (gsize) pos[k] * g_array_get_element_size (a));
              if (best < 0 || t[0] < best_start)
                best = (int) k, best_start = t[0];
            }
        }
      if (best < 0)
        break;
      idx = pos[best]++;
      handled++;
      if (progress && (handled & 0xfffff) == 0)
        progress (done + share * 0.8 * (double) handled / (double) n_gpu, user_data);
      if (idx > PFPROF_EVENT_REF_MAX_INDEX)
        continue;
      switch (gpu_tables[best])
        {
        case PFPROF_TABLE_KERNELS:
          device = pfprof_trace_kernels (trace)[idx].device_id;
          stream = pfprof_trace_kernels (trace)[idx].stream_id;
          break;
        case PFPROF_TABLE_MEMCPYS:
          device = pfprof_trace_memcpys (trace)[idx].device_id;
          stream = pfprof_trace_memcpys (trace)[idx].stream_id;
          break;
        default:
          device = pfprof_trace_memsets (trace)[idx].device_id;
          stream = pfprof_trace_memsets (trace)[idx].stream_id;
          break;
        }
      key = key2 (device, stream);
      if (key != last_key)
        {
          last = lookup_pending (by_key, all, PFPROF_ROW_STREAM, device, stream, device, stream, 0);
          last_key = key;
        }
      {
        PfprofEventRef ref = PFPROF_EVENT_REF (gpu_tables[best], idx);

        g_array_append_val (last->refs, ref);
      }
    }

  g_thread_join (host_thread);
  g_ptr_array_extend_and_steal (all, g_steal_pointer (&hr.all));
  g_hash_table_unref (hr.by_key);
  g_ptr_array_sort (all, compare_pending);
  compute_all_lanes (trace, all);

  pname = pfprof_render_sanitize (trace->path ? trace->path : "", 80);
  if (trace->rank >= 0 && tl->traces->len > 1)
    {
      /* Several ranks stacked on one (aligned) axis: say which rank, on
       * which host and GPU, first. */
      const char *host = pfprof_trace_meta (trace, "host");
      g_autofree char *h = pfprof_render_sanitize (host != NULL ? host : "?", 40);
      const char *visible = pfprof_trace_meta (trace, "cuda_visible_devices");
      g_autofree char *gpu = NULL;
      guint64 ordinal;

      /* Short enough for the label column; the GPU's name is on the
       * device row below. With one visible device per rank (the usual
       * launch), CUDA_VISIBLE_DEVICES is the GPU's number on the host. */
      if (visible != NULL && g_ascii_string_to_unsigned (visible, 10, 0, 4096, &ordinal, NULL))
        gpu = g_strdup_printf ("GPU %" G_GUINT64_FORMAT, ordinal);
      else
        {
          /* Every rank of a torchrun job sees every GPU (the devices
           * table lists them all) but runs on one: the first one its
           * streams are on. */
          for (guint i = 0; i < all->len && gpu == NULL; i++)
            {
              const Pending *p = g_ptr_array_index (all, i);

              if (p->type == PFPROF_ROW_STREAM && p->device_id != PFPROF_NONE)
                gpu = g_strdup_printf ("GPU %u", p->device_id);
            }
          if (gpu == NULL)
            gpu = g_strdup ("GPU ?");
        }
      plabel = g_strdup_printf ("rank %" G_GINT64_FORMAT " (%s, %s) pid %" G_GINT64_FORMAT " %s",
                                trace->rank, h, gpu, trace->pid, pname);
    }
  else if (trace->rank >= 0)
    plabel = g_strdup_printf ("Process %" G_GINT64_FORMAT " (rank %" G_GINT64_FORMAT ") %s",
                              trace->pid, trace->rank, pname);
  else
    plabel = g_strdup_printf ("Process %" G_GINT64_FORMAT " %s", trace->pid, pname);
  process_row = (int) tl->rows->len;
  add_group (tl, PFPROF_ROW_PROCESS, 0, -1, g_steal_pointer (&plabel), ti, PFPROF_NONE, 0);

  /* GPUs: one group each, streams then the sync lane. */
  for (guint i = 0; i < all->len;)
    {
      Pending *p = g_ptr_array_index (all, i);
      guint32 device = p->device_id;
      int device_row;
      g_autofree char *dname = NULL;

      if (p->type != PFPROF_ROW_STREAM && p->type != PFPROF_ROW_DEVICE_SYNC)
        {
          i++;
          continue;
        }
      dname = pfprof_render_sanitize (device_name (trace, device), 60);
      device_row = (int) tl->rows->len;
      if (device == PFPROF_NONE)
        add_group (tl, PFPROF_ROW_DEVICE, 1, process_row, g_strdup ("GPU ?"), ti, device, 0);
      else
        add_group (tl, PFPROF_ROW_DEVICE, 1, process_row,
                   g_strdup_printf ("GPU %u %s", device, dname), ti, device, 0);
      for (; i < all->len; i++)
        {
          g_autofree char *label = NULL;

          p = g_ptr_array_index (all, i);
          if (p->device_id != device
              || (p->type != PFPROF_ROW_STREAM && p->type != PFPROF_ROW_DEVICE_SYNC))
            break;
          if (p->type == PFPROF_ROW_STREAM)
            {
              label = g_strdup_printf ("Stream %u", p->stream_id);
              add_lanes (tl, trace, info, ti, p, 2, device_row, label, NULL);
            }
          else
            add_lanes (tl, trace, info, ti, p, 2, device_row, "Sync & waits", NULL);
        }
    }

  /* Host threads. */
  {
    int threads_row = -1;

    for (guint i = 0; i < all->len; i++)
      {
        Pending *p = g_ptr_array_index (all, i);
        g_autofree char *tname = NULL;
        g_autofree char *label = NULL;

        if (p->type != PFPROF_ROW_THREAD_API && p->type != PFPROF_ROW_THREAD_NVTX)
          continue;
        if (threads_row < 0)
          {
            threads_row = (int) tl->rows->len;
            add_group (tl, PFPROF_ROW_THREADS, 1, process_row, g_strdup ("Host threads"), ti,
                       PFPROF_NONE, 0);
          }
        tname = pfprof_render_sanitize (thread_name (trace, p->tid), 40);
        /* The tid and what the lane holds first, the name after: names
         * can be long and alike (torch.profiler names every thread
         * "thread TID (PROCESS)"). */
        label = g_strdup_printf ("Thread %u %s", p->tid, p->type == PFPROF_ROW_THREAD_API ? "CUDA API" : "NVTX");
        add_lanes (tl, trace, info, ti, p, 2, threads_row, label, tname);
      }
  }

  /* Inside the DataLoader: got, pin thread, then each worker by pid. */
  {
    int group_row = -1;

    for (guint32 lane = PFPROF_TIMELINE_WORKER_GOT; lane <= PFPROF_TIMELINE_WORKER_BATCHES; lane++)
      for (guint i = 0; i < all->len; i++)
        {
          Pending *p = g_ptr_array_index (all, i);
          g_autofree char *label = NULL;

          if (p->type != PFPROF_ROW_WORKER || p->stream_id != lane || p->n_lanes == 0)
            continue;
          if (group_row < 0)
            {
              group_row = (int) tl->rows->len;
              add_group (tl, PFPROF_ROW_WORKERS, 1, process_row, g_strdup ("DataLoader"), ti, PFPROF_NONE, 0);
            }
          if (lane == PFPROF_TIMELINE_WORKER_GOT)
            label = g_strdup ("Batches got");
          else if (lane == PFPROF_TIMELINE_WORKER_PIN)
            label = g_strdup ("Pin-memory thread");
          else
            {
              const PfprofWorkerEventRecord *r = &pfprof_trace_worker_events (trace)[PFPROF_EVENT_REF_INDEX (
                g_array_index (p->lanes[0], PfprofEventRef, 0))];

              label = g_strdup_printf ("Worker %u (pid %u)", r->worker_id, p->tid);
            }
          add_lanes (tl, trace, info, ti, p, 2, group_row, label, NULL);
        }
  }
}

/* The summaries of the big lanes, each computed from its row alone:
 * side by side (run_parallel), the biggest first. */
typedef struct
{
  PfprofTimeline *tl;
  GArray *order; /* guint row indices */
} LodWork;

static void
lod_one (gpointer ctx, guint i)
{
  LodWork *w = ctx;
  PfprofTimelineRow *row = &g_array_index (w->tl->rows, PfprofTimelineRow, g_array_index (w->order, guint, i));

  row->lod = lod_new (row);
}

static gint
row_by_size (gconstpointer a, gconstpointer b, gpointer data)
{
  const PfprofTimeline *tl = data;
  guint na = g_array_index (tl->rows, PfprofTimelineRow, *(const guint *) a).n_refs;
  guint nb = g_array_index (tl->rows, PfprofTimelineRow, *(const guint *) b).n_refs;

  return na > nb ? -1 : na < nb;
}

static void
build_lods (PfprofTimeline *tl)
{
  LodWork w = { tl, g_array_new (FALSE, FALSE, sizeof (guint)) };

  for (guint i = 0; i < tl->rows->len; i++)
    if (g_array_index (tl->rows, PfprofTimelineRow, i).n_refs > PFPROF_TIMELINE_LOD_MIN_EVENTS)
      g_array_append_val (w.order, i);
  g_array_sort_with_data (w.order, row_by_size, tl);
  run_parallel (w.order->len, lod_one, &w);
  g_array_unref (w.order);
}

/* Ranked traces first, by rank; then the others; ties by index. */
static gint
by_rank (gconstpointer a, gconstpointer b, gpointer data)
{
  const GPtrArray *traces = data;
  guint i = *(const guint *) a, j = *(const guint *) b;
  gint64 ri = ((const PfprofTrace *) g_ptr_array_index (traces, i))->rank;
  gint64 rj = ((const PfprofTrace *) g_ptr_array_index (traces, j))->rank;

  if ((ri >= 0) != (rj >= 0))
    return ri >= 0 ? -1 : 1;
  if (ri >= 0 && ri != rj)
    return ri < rj ? -1 : 1;
  return i < j ? -1 : i > j;
}

PfprofTimeline *
pfprof_timeline_new_for_run (const PfprofRun *run, PfprofTimelineProgressFunc progress,
                             gpointer user_data)
{
  PfprofTimeline *tl;
  guint n;
  guint64 total = 0, done = 0;
  g_autofree guint *order = NULL;

  g_return_val_if_fail (run != NULL, NULL);
  tl = g_new0 (PfprofTimeline, 1);
  tl->run = run;
  tl->traces = pfprof_run_get_traces (run);
  n = tl->traces->len;
  tl->rows = g_array_new (FALSE, TRUE, sizeof (PfprofTimelineRow));
  tl->infos = g_new0 (struct _PfprofTimelineTraceInfo, n > 0 ? n : 1);
  tl->start_ns = G_MAXINT64;
  tl->end_ns = G_MININT64;
  for (guint i = 0; i < n; i++)
    total += pfprof_trace_n_events (g_ptr_array_index (tl->traces, i));
  order = g_new (guint, n > 0 ? n : 1);
  for (guint i = 0; i < n; i++)
    order[i] = i;
  /* Ranks stack in rank order whatever order the files were given in (a
   * shell glob puts run-host-b-1 before run-vm-0); the rest follow as
   * given. */
  g_qsort_with_data (order, (gint) n, sizeof *order, by_rank, tl->traces);
  for (guint k = 0; k < n; k++)
    {
      guint i = order[k];
      const PfprofTrace *trace = g_ptr_array_index (tl->traces, i);
      guint64 ne = pfprof_trace_n_events (trace);

      if (ne > 0)
        {
          tl->start_ns = MIN (tl->start_ns, trace->start_ns);
          tl->end_ns = MAX (tl->end_ns, trace->end_ns);
        }
      build_trace (tl, i, progress, user_data, total ? (double) done / (double) total : 0,
                   total ? (double) ne / (double) total : 0);
      done += ne;
    }
  build_lods (tl);
  if (tl->start_ns > tl->end_ns)
    tl->start_ns = tl->end_ns = 0;
  if (tl->end_ns == tl->start_ns)
    tl->end_ns = tl->start_ns + 1000;
  if (progress)
    progress (1.0, user_data);
  return tl;
}

PfprofTimeline *
pfprof_timeline_new (const PfprofAnalysis *analysis, PfprofTimelineProgressFunc progress,
                     gpointer user_data)
{
  PfprofTimeline *tl;

  g_return_val_if_fail (analysis != NULL, NULL);
  tl = pfprof_timeline_new_for_run (analysis->run, progress, user_data);
  tl->analysis = analysis;
  return tl;
}

void
pfprof_timeline_free (PfprofTimeline *timeline)
{
  if (timeline == NULL)
    return;
  for (guint i = 0; i < timeline->rows->len; i++)
    {
      PfprofTimelineRow *row = &g_array_index (timeline->rows, PfprofTimelineRow, i);

      g_free (row->label);
      g_free (row->refs);
      g_free (row->prefix);
      lod_free (row->lod);
    }
  g_array_unref (timeline->rows);
  for (guint i = 0; i < timeline->traces->len; i++)
    {
      g_free (timeline->infos[i].api_sync_name);
      if (timeline->infos[i].corr_api)
        g_hash_table_unref (timeline->infos[i].corr_api);
    }
  g_free (timeline->infos);
  if (timeline->finding_rows)
    g_ptr_array_unref (timeline->finding_rows);
  g_free (timeline);
}

gboolean
pfprof_timeline_set_analysis (PfprofTimeline *timeline, const PfprofAnalysis *analysis)
{
  g_return_val_if_fail (timeline != NULL, FALSE);
  g_return_val_if_fail (analysis != NULL, FALSE);
  if (analysis->run != timeline->run)
    return FALSE;
  timeline->analysis = analysis;
  if (timeline->finding_rows != NULL)
    g_clear_pointer (&timeline->finding_rows, g_ptr_array_unref);
  return TRUE;
}

const PfprofTimelineRow *
pfprof_timeline_get_row (const PfprofTimeline *timeline, guint i)
{
  g_return_val_if_fail (timeline != NULL, NULL);

  if (i >= timeline->rows->len)
    return NULL;
  return &g_array_index (timeline->rows, PfprofTimelineRow, i);
}

gboolean
pfprof_timeline_row_visible (const PfprofTimeline *timeline, guint i)
{
  g_return_val_if_fail (timeline != NULL, FALSE);

  const PfprofTimelineRow *row = pfprof_timeline_get_row (timeline, i);

  while (row != NULL && row->parent >= 0)
    {
      row = pfprof_timeline_get_row (timeline, (guint) row->parent);
      if (!row->expanded)
        return FALSE;
    }
  return row != NULL;
}

void
pfprof_timeline_set_expanded (PfprofTimeline *timeline, guint i, gboolean expanded)
{
  g_return_if_fail (timeline != NULL);

  if (i < timeline->rows->len)
    {
      PfprofTimelineRow *row = &g_array_index (timeline->rows, PfprofTimelineRow, i);

      if (row->is_group)
        row->expanded = expanded;
    }
}

typedef struct
{
  const PfprofTimelineRow *row;
  gint64 t;
} RowAt;

static gboolean
ref_starts_before (gconstpointer data, guint i)
{
  const RowAt *a = data;

  return event_times (a->row->trace, a->row->refs[i])[0] < a->t;
}

static gboolean
ref_ends_by (gconstpointer data, guint i)
{
  const RowAt *a = data;

  return event_times (a->row->trace, a->row->refs[i])[1] <= a->t;
}

guint
pfprof_timeline_row_lower_bound (const PfprofTimelineRow *row, guint from, gint64 t)
{
  g_return_val_if_fail (row != NULL, 0);

  guint lo = from, hi, step = 1;

  /* Gallop to bracket the answer, then bisect. */
  hi = from;
  while (hi < row->n_refs && event_times (row->trace, row->refs[hi])[0] < t)
    {
      lo = hi + 1;
      hi = from + step;
      step *= 2;
    }
  if (hi > row->n_refs)
    hi = row->n_refs;
  return pfprof_lower_bound (lo, hi, ref_starts_before, &(RowAt) { row, t });
}

guint
pfprof_timeline_row_first_after (const PfprofTimelineRow *row, gint64 t)
{
  g_return_val_if_fail (row != NULL, 0);

  RowAt a = { row, t };
  /* Lanes do not overlap, so ends are sorted like starts. */
  guint lo = pfprof_lower_bound (0, row->n_refs, ref_ends_by, &a);

  /* Zero-length events (marks) at t count as after t. */
  while (lo > 0 && event_times (row->trace, row->refs[lo - 1])[1] >= t
         && event_times (row->trace, row->refs[lo - 1])[0] >= t)
    lo--;
  return lo;
}

PfprofEventRef
pfprof_timeline_row_hit (const PfprofTimelineRow *row, gint64 t, gint64 slop_ns)
{
  guint i;
  PfprofEventRef best = PFPROF_EVENT_REF_NONE;
  gint64 best_d = G_MAXINT64;

  g_return_val_if_fail (row != NULL, PFPROF_EVENT_REF_NONE);

  if (row->n_refs == 0)
    return best;
  i = pfprof_timeline_row_first_after (row, t - slop_ns);
  for (guint k = i; k < row->n_refs && k < i + 64; k++)
    {
      const gint64 *e = event_times (row->trace, row->refs[k]);
      gint64 d;

      if (e[0] > t + slop_ns)
        break;
      d = t < e[0] ? e[0] - t : t > e[1] ? t - e[1] : 0;
      if (d < best_d)
        best_d = d, best = row->refs[k];
      if (d == 0)
        break;
    }
  return best;
}

int
pfprof_timeline_find_row (const PfprofTimeline *timeline, guint trace_index, PfprofEventRef ref)
{
  g_return_val_if_fail (timeline != NULL, -1);

  for (guint r = 0; r < timeline->rows->len; r++)
    {
      const PfprofTimelineRow *row = pfprof_timeline_get_row (timeline, r);
      gint64 start;
      guint i;

      if (row->is_group || row->trace_index != trace_index || row->n_refs == 0)
        continue;
      pfprof_timeline_event_range (row->trace, ref, &start, NULL);
      for (i = pfprof_timeline_row_lower_bound (row, 0, start);
           i < row->n_refs && event_times (row->trace, row->refs[i])[0] == start; i++)
        if (row->refs[i] == ref)
          return (int) r;
    }
  return -1;
}

gint64
pfprof_timeline_launching_call (PfprofTimeline *timeline, guint trace_index, PfprofEventRef ref)
{
  struct _PfprofTimelineTraceInfo *info;
  const PfprofTrace *trace;
  guint32 corr;
  g_return_val_if_fail (timeline != NULL, -1);

  guint i = PFPROF_EVENT_REF_INDEX (ref);
  gpointer v;

  if (trace_index >= timeline->traces->len)
    return -1;
  trace = g_ptr_array_index (timeline->traces, trace_index);
  info = &timeline->infos[trace_index];
  switch (PFPROF_EVENT_REF_TABLE (ref))
    {
    case PFPROF_TABLE_KERNELS:
      corr = pfprof_trace_kernels (trace)[i].correlation_id;
      break;
    case PFPROF_TABLE_MEMCPYS:
      corr = pfprof_trace_memcpys (trace)[i].correlation_id;
      break;
    case PFPROF_TABLE_MEMSETS:
      corr = pfprof_trace_memsets (trace)[i].correlation_id;
      break;
    case PFPROF_TABLE_SYNCS:
      corr = pfprof_trace_syncs (trace)[i].correlation_id;
      break;
    default:
      return -1;
    }
  if (info->corr_api == NULL)
    {
      /* Built on the first click only: most sessions never need it. */
      info->corr_api = g_hash_table_new (NULL, NULL);
      for (guint k = 0; k < pfprof_trace_n (trace, PFPROF_TABLE_API_CALLS); k++)
        {
          guint32 c = pfprof_trace_api_calls (trace)[k].correlation_id;

          /* The runtime call, seen first when nested, is the one shown. */
          if (c != 0 && !g_hash_table_contains (info->corr_api, GUINT_TO_POINTER (c)))
            g_hash_table_insert (info->corr_api, GUINT_TO_POINTER (c), GUINT_TO_POINTER (k + 1));
        }
    }
  if (corr == 0 || !g_hash_table_lookup_extended (info->corr_api, GUINT_TO_POINTER (corr), NULL, &v))
    return -1;
  return (gint64) GPOINTER_TO_UINT (v) - 1;
}

int
pfprof_timeline_evidence_row (const PfprofTimeline *timeline, const PfprofEvidence *ev)
{
  int device_fallback = -1;

  g_return_val_if_fail (timeline != NULL, -1);
  g_return_val_if_fail (ev != NULL, -1);

  for (guint r = 0; r < timeline->rows->len; r++)
    {
      const PfprofTimelineRow *row = pfprof_timeline_get_row (timeline, r);

      if (row->is_group || row->trace_index != ev->trace_index)
        continue;
      if (ev->stream_id != PFPROF_NONE && row->type == PFPROF_ROW_STREAM
          && row->device_id == ev->device_id && row->stream_id == ev->stream_id)
        return (int) r;
      if (ev->stream_id == PFPROF_NONE && ev->tid != 0 && row->tid == ev->tid
          && (row->type == PFPROF_ROW_THREAD_API || row->type == PFPROF_ROW_THREAD_NVTX))
        {
          /* Prefer the lane kind that holds the example event. */
          if ((ev->table == PFPROF_TABLE_NVTX) == (row->type == PFPROF_ROW_THREAD_NVTX))
            return (int) r;
          if (device_fallback < 0)
            device_fallback = (int) r;
        }
      if (device_fallback < 0 && ev->device_id != PFPROF_NONE && row->device_id == ev->device_id
          && row->type == PFPROF_ROW_STREAM)
        device_fallback = (int) r;
    }
  return device_fallback;
}

static void
free_rows (gpointer data)
{
  if (data != NULL)
    g_array_unref (data);
}

const int *
pfprof_timeline_finding_rows (PfprofTimeline *timeline, guint finding_index)
{
  g_return_val_if_fail (timeline != NULL, NULL);

  GPtrArray *findings = timeline->analysis != NULL ? timeline->analysis->findings : NULL;
  GArray *rows;

  if (findings == NULL || finding_index >= findings->len)
    return NULL;
  if (timeline->finding_rows == NULL)
    {
      timeline->finding_rows = g_ptr_array_new_with_free_func (free_rows);
      g_ptr_array_set_size (timeline->finding_rows, (gint) findings->len);
    }
  rows = g_ptr_array_index (timeline->finding_rows, finding_index);
  if (rows == NULL)
    {
      const PfprofFinding *f = g_ptr_array_index (findings, finding_index);
      guint n = f->evidence ? f->evidence->len : 0;
      /* Most evidence of a finding sits on a few rows: remember the last
       * answer per (trace, device, stream, tid, table). */
      PfprofEvidence last = { 0 };
      int last_row = -2;

      rows = g_array_sized_new (FALSE, FALSE, sizeof (int), n + 1);
      for (guint i = 0; i < n; i++)
        {
          const PfprofEvidence *ev = &g_array_index (f->evidence, PfprofEvidence, i);
          int r;

          if (last_row != -2 && ev->trace_index == last.trace_index && ev->device_id == last.device_id
              && ev->stream_id == last.stream_id && ev->tid == last.tid && ev->table == last.table)
            r = last_row;
          else
            r = pfprof_timeline_evidence_row (timeline, ev);
          last = *ev;
          last_row = r;
          g_array_append_val (rows, r);
        }
      g_ptr_array_index (timeline->finding_rows, finding_index) = rows;
    }
  return (const int *) rows->data;
}
