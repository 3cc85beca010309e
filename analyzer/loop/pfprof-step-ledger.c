/* SPDX-License-Identifier: MIT */
/* pfprof-step-ledger.c: the per-step ledger (see the header for the
 * buckets and their order).
 *
 * The whole trace is classified once: each bucket becomes an interval set,
 * disjoint from the sets of the buckets before it, so a step's ledger is
 * one length query per bucket and the rest of the window is other_idle.
 */
#include "pfprof-step-ledger.h"

#include <stdlib.h>
#include <string.h>

#include "pfprof-loop.h"
#include "pfprof-lower-bound.h"
#include "pfprof-quantile.h"
#include "pfprof-steps.h"
#include "pfprof-step.h"

static const struct
{
  const char *key;
  const char *label;
} bucket_names[PFPROF_LEDGER_N_BUCKETS] = {
  [PFPROF_LEDGER_COPY_HIDDEN] = { "copy_hidden_ns", "copy hidden behind kernels" },
  [PFPROF_LEDGER_COMPUTE] = { "compute_ns", "compute" },
  [PFPROF_LEDGER_COMM] = { "comm_ns", "communication (NCCL)" },
  [PFPROF_LEDGER_COPY_PAGEABLE_COMPUTE] = { "copy_exposed_pageable_compute_stream_ns",
                                            "copy exposed: pageable, compute" },
  [PFPROF_LEDGER_COPY_PAGEABLE_SIDE] = { "copy_exposed_pageable_side_stream_ns",
                                         "copy exposed: pageable, side" },
  [PFPROF_LEDGER_COPY_PINNED_COMPUTE] = { "copy_exposed_pinned_compute_stream_ns",
                                          "copy exposed: pinned, compute" },
  [PFPROF_LEDGER_COPY_PINNED_SIDE] = { "copy_exposed_pinned_side_stream_ns",
                                       "copy exposed: pinned, side" },
  [PFPROF_LEDGER_GPU_OTHER] = { "gpu_other_ns", "other GPU work (memset, DtoD)" },
  [PFPROF_LEDGER_DATA_WAIT] = { "data_wait_ns", "idle: DataLoader wait" },
  [PFPROF_LEDGER_SYNC_COPY] = { "sync_copy_ns", "idle: sync of a blocking copy" },
  [PFPROF_LEDGER_SYNC_STREAM] = { "sync_stream_ns", "idle: cudaStreamSynchronize" },
  [PFPROF_LEDGER_SYNC_DEVICE] = { "sync_device_ns", "idle: cudaDeviceSynchronize" },
  [PFPROF_LEDGER_SYNC_EVENT] = { "sync_event_ns", "idle: cudaEventSynchronize" },
  [PFPROF_LEDGER_ALLOC] = { "alloc_ns", "idle: allocator (malloc/free)" },
  [PFPROF_LEDGER_PAGEABLE_CALL] = { "pageable_call_ns", "idle: host in pageable copies" },
  [PFPROF_LEDGER_HOST_BOUND] = { "host_bound_ns", "idle: host busy, nothing queued" },
  [PFPROF_LEDGER_OTHER_IDLE] = { "other_idle_ns", "idle: other (work queued)" },
};

const char *
pfprof_ledger_bucket_key (PfprofLedgerBucket b)
{
  return (guint) b < PFPROF_LEDGER_N_BUCKETS ? bucket_names[b].key : "unknown_ns";
}

const char *
pfprof_ledger_bucket_label (PfprofLedgerBucket b)
{
  return (guint) b < PFPROF_LEDGER_N_BUCKETS ? bucket_names[b].label : "unknown";
}

struct _PfprofStepLedger
{
  const PfprofTraceIndex *ix;
  const PfprofLoop *loop;
  PfprofIntervalSet *set[PFPROF_LEDGER_N_BUCKETS]; /* OTHER_IDLE: NULL, the rest */
  guint64 *copy_sync;     /* one bit an API index: set for the sync of a blocking copy */
  GArray *copy_sync_at;   /* gint64 starts of those syncs, time order */
  PfprofIntervalSet *pageable_runs; /* the launching thread's pageable copy runs */
  /* The correlation ids of all device work: one bit an id over their
   * range (CUPTI counts them up from one, so it is dense: an eighth of a
   * byte a record), or, where the range is sparse, the ids ascending. */
  guint32 work_lo;
  gsize work_n_bits;
  guint64 *work_bits;
  guint64 *work_shared;   /* beside work_bits: the ids that more than one record has */
  GArray *work_corr;      /* guint32, ascending; NULL when work_bits */
};

void
pfprof_step_ledger_free (PfprofStepLedger *l)
{
  if (l == NULL)
    return;
  for (guint b = 0; b < PFPROF_LEDGER_N_BUCKETS; b++)
    pfprof_interval_set_free (l->set[b]);
  g_free (l->copy_sync);
  g_array_unref (l->copy_sync_at);
  pfprof_interval_set_free (l->pageable_runs);
  g_free (l->work_bits);
  g_free (l->work_shared);
  if (l->work_corr != NULL)
    g_array_unref (l->work_corr);
  g_free (l);
}

static PfprofIntervalSet *
copy_of_set (const PfprofIntervalSet *s)
{
  g_autoptr (PfprofIntervalSet) empty = pfprof_interval_set_new ();

  return pfprof_interval_set_union (s, empty);
}

/* @x \ @taken, then @taken grows by @x; takes @x over. */
static PfprofIntervalSet *
claim (PfprofIntervalSet **taken, PfprofIntervalSet *x)
{
  PfprofIntervalSet *mine = pfprof_interval_set_subtract (x, *taken);
  PfprofIntervalSet *grown = pfprof_interval_set_union (*taken, x);

  pfprof_interval_set_free (*taken);
  pfprof_interval_set_free (x);
  *taken = grown;
  return mine;
}

/* Correlation id -> the last of a table's records that carry it, as
 * sorted keys (the id above, the record's index + 1 below): a hash table
 * of a few hundred thousand ids was resized and rehashed as it filled,
 * and took several times the memory. */
typedef struct
{
  gint64 *keys;
  guint n;
} CorrMap;

/* The top bit flipped, so that the signed order of the keys is the
 * unsigned order of the ids. */
static inline gint64
corr_key (guint32 corr, guint32 value)
{
  return (gint64) ((((guint64) corr << 32) | value) ^ G_GUINT64_CONSTANT (0x8000000000000000));
}

static void
corr_map_add (CorrMap *m, guint32 corr, guint index)
{
  m->keys[m->n++] = corr_key (corr, index + 1);
}

/* The record index + 1 that @corr maps to last, 0 for none. */
static guint
corr_map_lookup (const CorrMap *m, guint32 corr)
{
  /* No value is G_MAXUINT32 (indices are below it), so every key of
   * @corr sorts before this one. */
  guint p = pfprof_lower_bound_i64 (m->keys, 0, m->n, corr_key (corr, G_MAXUINT32));
  guint64 k;

  if (p == 0)
    return 0;
  k = (guint64) m->keys[p - 1] ^ G_GUINT64_CONSTANT (0x8000000000000000);
  return (guint32) (k >> 32) == corr ? (guint) (guint32) k : 0;
}

/* Marks the cudaStreamSynchronize calls that a blocking host-to-device copy
 * issued: PyTorch's tensor.to(device) without non_blocking=True calls
 * cudaMemcpyAsync and then cudaStreamSynchronize on the copy's stream. */
static void
find_copy_syncs (PfprofStepLedger *l)
{
  const PfprofTraceIndex *ix = l->ix;
  const PfprofTrace *t = ix->trace;
  const PfprofApiRecord *api = pfprof_trace_api_calls (t);
  guint na = pfprof_trace_n (t, PFPROF_TABLE_API_CALLS);
  const PfprofMemcpyRecord *m = pfprof_trace_memcpys (t);
  guint nm = pfprof_trace_n (t, PFPROF_TABLE_MEMCPYS);
  const PfprofSyncRecord *sy = pfprof_trace_syncs (t);
  guint ns = pfprof_trace_n (t, PFPROF_TABLE_SYNCS);
  g_autofree gint64 *copy_keys = g_new (gint64, (gsize) nm * 2 + 1);
  g_autofree gint64 *sync_keys = g_new (gint64, (gsize) ns + 1);
  CorrMap copy_of = { copy_keys, 0 };   /* a copy's ids -> the copy */
  CorrMap sync_of = { sync_keys, 0 };   /* a sync's id -> the sync, if on a stream */
  g_autoptr (GHashTable) last = g_hash_table_new (g_direct_hash, g_direct_equal);
  guint last_at = 0; /* calls before it are in @last */
  const GArray *syncs = ix->api_of_class[PFPROF_API_CLASS_STREAM_SYNC];

  l->copy_sync = g_new0 (guint64, na / 64 + 1);
  l->copy_sync_at = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (guint i = 0; i < nm; i++)
    {
      corr_map_add (&copy_of, m[i].correlation_id, i);
      if (m[i].runtime_correlation_id != 0)
        corr_map_add (&copy_of, m[i].runtime_correlation_id, i);
    }
  for (guint i = 0; i < ns; i++)
    if (sy[i].stream_id != PFPROF_NONE)
      corr_map_add (&sync_of, sy[i].correlation_id, i);
  pfprof_quantile_sort_i64 (copy_of.keys, copy_of.n);
  pfprof_quantile_sort_i64 (sync_of.keys, sync_of.n);
  /* The stream syncs, in time order. */
  for (guint k = 0; k < syncs->len; k++)
    {
      guint i = g_array_index (syncs, guint, k);
      guint prev = 0;

      /* The same thread's call before it: a few calls back, as threads
       * rarely interleave; the table of every thread's last call is built
       * only when they do. */
      for (guint j = i; j > 0 && i - j < 64; j--)
        if (api[j - 1].tid == api[i].tid)
          {
            prev = j;
            break;
          }
      if (prev == 0 && i >= 64)
        {
          for (; last_at < i; last_at++)
            g_hash_table_insert (last, GUINT_TO_POINTER (api[last_at].tid), GUINT_TO_POINTER (last_at + 1));
          prev = GPOINTER_TO_UINT (g_hash_table_lookup (last, GUINT_TO_POINTER (api[i].tid)));
        }
      if (prev == 0 || pfprof_trace_index_api_class (ix, &api[prev - 1]) != PFPROF_API_CLASS_MEMCPY)
        continue;
      {
        guint c = corr_map_lookup (&copy_of, api[prev - 1].correlation_id);
        guint y = corr_map_lookup (&sync_of, api[i].correlation_id);
        guint s = y == 0 ? 0 : sy[y - 1].stream_id + 1;

        if (c == 0 || m[c - 1].copy_kind != PFPROF_COPY_KIND_HTOD
            || (s != 0 && s - 1 != m[c - 1].stream_id))
          continue;
        l->copy_sync[i / 64] |= G_GUINT64_CONSTANT (1) << (i % 64);
        g_array_append_val (l->copy_sync_at, api[i].start_ns);
      }
    }
}

static gboolean
is_copy_sync (const PfprofStepLedger *l, guint api_index)
{
  return (l->copy_sync[api_index / 64] >> (api_index % 64)) & 1;
}

gboolean
pfprof_step_ledger_is_copy_sync (const PfprofStepLedger *l, guint api_index)
{
  return l != NULL && api_index < pfprof_trace_n (l->ix->trace, PFPROF_TABLE_API_CALLS)
         && is_copy_sync (l, api_index);
}

guint
pfprof_step_ledger_n_copy_syncs (const PfprofStepLedger *l)
{
  guint n = 0;

  for (guint i = 0; l != NULL && i < l->copy_sync_at->len; i++)
    n += pfprof_loop_in_steady (l->loop, g_array_index (l->copy_sync_at, gint64, i));
  return n;
}

/* Correlation id -> the earliest start of work with that id: work that
 * one call launched (the kernels of a CUDA graph, all under the
 * cudaGraphLaunch's id) was queued once its first piece had started, even
 * where the trace has no record of the call. The walk that asks notes
 * the work in start order and asks before it notes, so only ids that
 * more than one record has are ever found: where the ids are dense over
 * their range (CUPTI counts them up from one), those ids are the
 * ledger's work_shared bits and their starts an array in id order; a
 * hash table of every id else. */
typedef struct
{
  guint32 lo;
  gsize len;
  const guint64 *shared; /* one bit an id of [lo, lo + len): more than one record has it */
  guint32 *rank;      /* per word of shared: the bits set in the words before it */
  gint64 *dense;      /* per shared id, in id order */
  GHashTable *sparse; /* id -> gint64 *, when not dense */
} FirstStart;

static void
first_start_clear (FirstStart *f)
{
  g_free (f->rank);
  g_free (f->dense);
  if (f->sparse != NULL)
    g_hash_table_unref (f->sparse);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FirstStart, first_start_clear)

static guint
bits_set (guint64 x)
{
  x = x - ((x >> 1) & G_GUINT64_CONSTANT (0x5555555555555555));
  x = (x & G_GUINT64_CONSTANT (0x3333333333333333)) + ((x >> 2) & G_GUINT64_CONSTANT (0x3333333333333333));
  x = (x + (x >> 4)) & G_GUINT64_CONSTANT (0x0f0f0f0f0f0f0f0f);
  return (guint) ((x * G_GUINT64_CONSTANT (0x0101010101010101)) >> 56);
}

/* The place of shared id @corr in f->dense; FALSE when it is not one. */
static gboolean
first_start_slot (const FirstStart *f, guint32 corr, gsize *slot)
{
  gsize i, w;
  guint64 bit;

  if (corr < f->lo || corr - f->lo >= f->len)
    return FALSE;
  i = corr - f->lo;
  w = i / 64;
  bit = G_GUINT64_CONSTANT (1) << (i % 64);
  if ((f->shared[w] & bit) == 0)
    return FALSE;
  *slot = f->rank[w] + bits_set (f->shared[w] & (bit - 1));
  return TRUE;
}

static gboolean
first_start_get (const FirstStart *f, guint32 corr, gint64 *start)
{
  gint64 *v;
  gsize slot;

  if (corr == 0 || corr == PFPROF_NONE)
    return FALSE;
  if (f->shared != NULL)
    {
      if (!first_start_slot (f, corr, &slot) || f->dense[slot] == G_MAXINT64)
        return FALSE;
      *start = f->dense[slot];
      return TRUE;
    }
  v = g_hash_table_lookup (f->sparse, GUINT_TO_POINTER (corr));
  if (v == NULL)
    return FALSE;
  *start = *v;
  return TRUE;
}

static void
first_start_note (FirstStart *f, guint32 corr, gint64 start)
{
  gint64 *v;
  gsize slot;

  if (corr == 0 || corr == PFPROF_NONE)
    return;
  if (f->shared != NULL)
    {
      if (first_start_slot (f, corr, &slot))
        f->dense[slot] = MIN (f->dense[slot], start);
      return;
    }
  v = g_hash_table_lookup (f->sparse, GUINT_TO_POINTER (corr));
  if (v == NULL)
    {
      v = g_new (gint64, 1);
      *v = start;
      g_hash_table_insert (f->sparse, GUINT_TO_POINTER (corr), v);
    }
  else
    *v = MIN (*v, start);
}

/* One of the device's records, as the gaps need it. */
static void
device_work (const PfprofTrace *t, guint table, guint index, gint64 *start, guint32 *corr)
{
  switch (table)
    {
    case 0:
      *start = pfprof_trace_kernels (t)[index].start_ns;
      *corr = pfprof_trace_kernels (t)[index].correlation_id;
      break;
    case 1:
      *start = pfprof_trace_memcpys (t)[index].start_ns;
      *corr = pfprof_trace_memcpys (t)[index].correlation_id;
      break;
    default:
      *start = pfprof_trace_memsets (t)[index].start_ns;
      *corr = pfprof_trace_memsets (t)[index].correlation_id;
      break;
    }
}

/* The idle gaps of @idle whose ending work had been launched before the gap
 * began: the work was queued and the GPU waited on something else. */
static PfprofIntervalSet *
queued_idle (const PfprofStepLedger *l, const PfprofDeviceTimeline *dev, const PfprofIntervalSet *idle)
{
  const PfprofTraceIndex *ix = l->ix;
  static const PfprofTableId tables[3] = { PFPROF_TABLE_KERNELS, PFPROF_TABLE_MEMCPYS,
                                           PFPROF_TABLE_MEMSETS };
  const PfprofTrace *t = ix->trace;
  g_auto (FirstStart) first = { 0 };
  PfprofIntervalSetBuilder *b = pfprof_interval_set_builder_new ();
  const guint *rec[3];
  guint n[3], pos[3] = { 0, 0, 0 };
  gsize nw = 0, total;

  for (guint k = 0; k < 3; k++)
    rec[k] = pfprof_device_timeline_records (dev, tables[k], &n[k]);
  total = (gsize) n[0] + n[1] + n[2];
  /* The ids of every device's work cover this device's. */
  if (l->work_shared != NULL)
    {
      gsize words = l->work_n_bits / 64 + 1, n_shared = 0;

      first.lo = l->work_lo;
      first.len = l->work_n_bits;
      first.shared = l->work_shared;
      first.rank = g_new (guint32, words);
      for (gsize w = 0; w < words; w++)
        {
          first.rank[w] = (guint32) n_shared;
          n_shared += bits_set (first.shared[w]);
        }
      first.dense = g_new (gint64, n_shared + 1);
      for (gsize i = 0; i < n_shared; i++)
        first.dense[i] = G_MAXINT64;
    }
  else
    first.sparse = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  /* Each table's records are in start order: merged, the work is too.
   * One walk, beside the gaps: the work that ends a gap starts at its
   * end, and only work that started before it can have launched it
   * earlier (first_start below is noted as the walk passes). */
  for (guint g = 0; g < pfprof_interval_set_n (idle); g++)
    {
      PfprofInterval gap = pfprof_interval_set_get (idle, g);
      gint64 launched = G_MAXINT64;

      while (nw < total)
        {
          guint k = 3;
          gint64 best = G_MAXINT64, start, f;
          guint32 corr;

          for (guint c = 0; c < 3; c++)
            if (pos[c] < n[c])
              {
                gint64 s0;
                guint32 c0;

                device_work (t, c, pfprof_device_record_at (rec[c], pos[c]), &s0, &c0);
                if (k == 3 || s0 < best)
                  {
                    best = s0;
                    k = c;
                  }
              }
          if (best > gap.end)
            break;
          device_work (t, k, pfprof_device_record_at (rec[k], pos[k]++), &start, &corr);
          nw++;
          if (start == gap.end)
            {
              const PfprofApiRecord *api = pfprof_trace_index_api (ix, corr);
              gint64 w = api != NULL ? api->end_ns : G_MAXINT64;

              if (first_start_get (&first, corr, &f) && f < start)
                w = MIN (w, f);
              launched = MIN (launched, w);
            }
          first_start_note (&first, corr, start);
        }
      /* Launched during the gap: the host held the GPU up, and the launch
       * latency after the call returned is part of what it cost. */
      if (launched <= gap.start)
        pfprof_interval_set_builder_add (b, gap.start, gap.end);
    }
  return pfprof_interval_set_build (b);
}

/* The launching thread's calls of @classes (all threads when @tid is 0),
 * leaving out the syncs of blocking copies unless @copy_syncs, or only
 * those with @only_copy_syncs. */
static PfprofIntervalSet *
calls_of (const PfprofStepLedger *l, const PfprofApiClass *classes, guint n, guint32 tid, int copy_syncs)
{
  const PfprofTraceIndex *ix = l->ix;
  const PfprofApiRecord *api = pfprof_trace_api_calls (ix->trace);
  PfprofIntervalSetBuilder *b = pfprof_interval_set_builder_new ();

  for (guint c = 0; c < n; c++)
    {
      const GArray *list = ix->api_of_class[classes[c]];

      for (guint i = 0; i < list->len; i++)
        {
          guint k = g_array_index (list, guint, i);

          if ((tid != 0 && api[k].tid != tid) || (copy_syncs >= 0 && (int) is_copy_sync (l, k) != copy_syncs))
            continue;
          pfprof_interval_set_builder_add (b, api[k].start_ns, api[k].end_ns);
        }
    }
  return pfprof_interval_set_build (b);
}

/* Sorts @v (@n ids) ascending: least significant digit first, 11 bits a
 * pass, in O(n); the ids of a large trace are millions. */
static void
sort_u32 (guint32 *v, gsize n)
{
  g_autofree guint32 *tmp = NULL;
  guint32 *from = v, *to;
  gboolean sorted = TRUE;

  for (gsize i = 1; i < n && sorted; i++)
    sorted = v[i - 1] <= v[i];
  if (sorted)
    return;
  tmp = g_new (guint32, n);
  to = tmp;
  for (guint shift = 0; shift < 32; shift += 11)
    {
      gsize count[2048] = { 0 };
      gsize sum = 0;

      for (gsize i = 0; i < n; i++)
        count[(from[i] >> shift) & 2047]++;
      for (guint d = 0; d < 2048; d++)
        {
          gsize c = count[d];

          count[d] = sum;
          sum += c;
        }
      for (gsize i = 0; i < n; i++)
        to[count[(from[i] >> shift) & 2047]++] = from[i];
      {
        guint32 *swap = from;

        from = to;
        to = swap;
      }
    }
  /* Three passes: the result is in tmp. */
  memcpy (v, from, n * sizeof (guint32));
}

/* The correlation ids of every kernel, copy and memset: a launch leaves
 * its id on the work even when its API record was not kept. The id
 * PFPROF_NONE never lies between two others, so the bits leave it out. */
static void
work_correlations (PfprofStepLedger *l, const PfprofTrace *t)
{
  const PfprofKernelRecord *k = pfprof_trace_kernels (t);
  const PfprofMemcpyRecord *c = pfprof_trace_memcpys (t);
  const PfprofMemsetRecord *s = pfprof_trace_memsets (t);
  guint nk = pfprof_trace_n (t, PFPROF_TABLE_KERNELS), nc = pfprof_trace_n (t, PFPROF_TABLE_MEMCPYS);
  guint ns = pfprof_trace_n (t, PFPROF_TABLE_MEMSETS);
  gsize total = (gsize) nk + nc + ns;
  guint32 lo = G_MAXUINT32, hi = 0;
  GArray *a;
  guint32 *v;

#define NOTE_RANGE(id) if ((id) != PFPROF_NONE) lo = MIN (lo, (id)), hi = MAX (hi, (id))
  for (guint i = 0; i < nk; i++)
    NOTE_RANGE (k[i].correlation_id);
  for (guint i = 0; i < nc; i++)
    NOTE_RANGE (c[i].correlation_id);
  for (guint i = 0; i < ns; i++)
    NOTE_RANGE (s[i].correlation_id);
#undef NOTE_RANGE
  if (lo <= hi && (gsize) (hi - lo) < 64 * total + 4096)
    {
      l->work_lo = lo;
      l->work_n_bits = (gsize) (hi - lo) + 1;
      l->work_bits = g_new0 (guint64, l->work_n_bits / 64 + 1);
      l->work_shared = g_new0 (guint64, l->work_n_bits / 64 + 1);
#define SET_BIT(id)                                                                                \
  if ((id) != PFPROF_NONE)                                                                         \
    {                                                                                              \
      guint64 bit = G_GUINT64_CONSTANT (1) << (((id) - lo) % 64);                                  \
      if (l->work_bits[((id) - lo) / 64] & bit)                                                    \
        l->work_shared[((id) - lo) / 64] |= bit;                                                   \
      l->work_bits[((id) - lo) / 64] |= bit;                                                       \
    }
      for (guint i = 0; i < nk; i++)
        SET_BIT (k[i].correlation_id);
      for (guint i = 0; i < nc; i++)
        SET_BIT (c[i].correlation_id);
      for (guint i = 0; i < ns; i++)
        SET_BIT (s[i].correlation_id);
#undef SET_BIT
      return;
    }
  if (total == 0)
    {
      /* No work: an empty bit range. */
      l->work_bits = g_new0 (guint64, 1);
      l->work_shared = g_new0 (guint64, 1);
      return;
    }
  a = g_array_sized_new (FALSE, FALSE, sizeof (guint32), (guint) total);
  g_array_set_size (a, (guint) ((gsize) nk + nc + ns));
  v = (guint32 *) (void *) a->data;
  for (guint i = 0; i < nk; i++)
    *v++ = k[i].correlation_id;
  for (guint i = 0; i < nc; i++)
    *v++ = c[i].correlation_id;
  for (guint i = 0; i < ns; i++)
    *v++ = s[i].correlation_id;
  sort_u32 ((guint32 *) (void *) a->data, a->len);
  l->work_corr = a;
}

static gboolean back_to_back (const PfprofStepLedger *l, guint i, guint j);

static int
compare_guint (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;

  return (x > y) - (x < y);
}

/* The launching thread's runs of host-to-device copy calls from pageable
 * memory to device @dev (pfprof_step_ledger_pageable_runs). */
static PfprofIntervalSet *
pageable_copy_runs (const PfprofStepLedger *l, const PfprofDeviceTimeline *dev)
{
  const PfprofTraceIndex *ix = l->ix;
  const PfprofTrace *t = ix->trace;
  const PfprofApiRecord *api = pfprof_trace_api_calls (t);
  const PfprofMemcpyRecord *m = pfprof_trace_memcpys (t);
  PfprofIntervalSetBuilder *b = pfprof_interval_set_builder_new ();
  g_autoptr (GArray) calls = g_array_new (FALSE, FALSE, sizeof (guint));
  const guint *dev_m;
  guint dev_m_n;
  PfprofInterval run = { 0, G_MININT64 };

  if (dev == NULL || ix->main_tid == 0)
    return pfprof_interval_set_build (b);
  dev_m = pfprof_device_timeline_records (dev, PFPROF_TABLE_MEMCPYS, &dev_m_n);
  for (guint r = 0; r < dev_m_n; r++)
    {
      const PfprofMemcpyRecord *c = &m[dev_m[r]];
      const PfprofApiRecord *a;
      guint k;

      if (c->device_id != dev->device_id || c->copy_kind != PFPROF_COPY_KIND_HTOD
          || !pfprof_memcpy_is_pageable (c))
        continue;
      a = pfprof_trace_index_api (ix, c->correlation_id);
      if (a == NULL || a->tid != ix->main_tid)
        continue;
      k = (guint) (a - api);
      g_array_append_val (calls, k);
    }
  /* The API records are in start order: so are their indices. */
  g_array_sort (calls, compare_guint);
  for (guint c = 0; c < calls->len; c++)
    {
      guint j = g_array_index (calls, guint, c);

      if (c > 0 && g_array_index (calls, guint, c - 1) == j)
        continue;
      if (run.end != G_MININT64)
        {
          guint i = g_array_index (calls, guint, c - 1);
          /* Unsigned: hostile times may span more than gint64 holds. */
          gboolean joined = api[j].start_ns >= api[i].end_ns
                            && (guint64) api[j].start_ns - (guint64) api[i].end_ns
                                 <= (guint64) PFPROF_LEDGER_PAGEABLE_RUN_GAP_NS
                            && back_to_back (l, i, j)
                            && pfprof_interval_set_length_in (ix->data_wait, api[i].end_ns, api[j].start_ns) == 0;

          if (joined)
            {
              run.end = MAX (run.end, api[j].end_ns);
              continue;
            }
          pfprof_interval_set_builder_add (b, run.start, run.end);
        }
      run.start = api[j].start_ns;
      run.end = api[j].end_ns;
    }
  if (run.end != G_MININT64)
    pfprof_interval_set_builder_add (b, run.start, run.end);
  return pfprof_interval_set_build (b);
}

const PfprofIntervalSet *
pfprof_step_ledger_pageable_runs (const PfprofStepLedger *l)
{
  return l != NULL ? l->pageable_runs : NULL;
}

PfprofStepLedger *
pfprof_step_ledger_new (const PfprofTraceIndex *ix, const PfprofLoop *loop)
{
  g_return_val_if_fail (ix != NULL, NULL);
  g_return_val_if_fail (loop != NULL, NULL);

  PfprofStepLedger *l = g_new0 (PfprofStepLedger, 1);
  const PfprofDeviceTimeline *dev = pfprof_steps_primary_device (ix);
  const PfprofTrace *t = ix->trace;
  const PfprofMemcpyRecord *m = pfprof_trace_memcpys (t);
  PfprofIntervalSetBuilder *cb[4];
  const guint *dev_m;    /* the device's copies */
  guint dev_m_n;
  PfprofIntervalSet *copies[4];
  PfprofIntervalSet *taken, *all_copies, *idle, *rest;
  static const PfprofApiClass stream_sync[] = { PFPROF_API_CLASS_STREAM_SYNC };
  static const PfprofApiClass device_sync[] = { PFPROF_API_CLASS_DEVICE_SYNC };
  static const PfprofApiClass event_sync[] = { PFPROF_API_CLASS_EVENT_SYNC };
  static const PfprofApiClass alloc[] = { PFPROF_API_CLASS_MALLOC, PFPROF_API_CLASS_FREE,
                                          PFPROF_API_CLASS_VMM_MAP, PFPROF_API_CLASS_VMM_UNMAP,
                                          PFPROF_API_CLASS_HOST_ALLOC };
  struct
  {
    PfprofLedgerBucket bucket;
    PfprofIntervalSet *calls;
  } host[7];
  guint n_host = 0;

  l->ix = ix;
  l->loop = loop;
  find_copy_syncs (l);
  work_correlations (l, t);
  for (guint b = 0; b < PFPROF_LEDGER_N_BUCKETS; b++)
    l->set[b] = NULL;
  l->pageable_runs = pageable_copy_runs (l, dev);
  if (dev == NULL)
    {
      for (guint b = 0; b < PFPROF_LEDGER_N_BUCKETS; b++)
        l->set[b] = b == PFPROF_LEDGER_OTHER_IDLE ? NULL : pfprof_interval_set_new ();
      return l;
    }

  /* GPU busy: copies by kind (pageable first, the compute stream first). */
  for (guint c = 0; c < 4; c++)
    cb[c] = pfprof_interval_set_builder_new ();
  dev_m = pfprof_device_timeline_records (dev, PFPROF_TABLE_MEMCPYS, &dev_m_n);
  for (guint r = 0; r < dev_m_n; r++)
    {
      guint i = dev_m[r];
      gboolean pageable = pfprof_memcpy_is_pageable (&m[i]);

      if (m[i].device_id != dev->device_id
          || (m[i].copy_kind != PFPROF_COPY_KIND_HTOD && m[i].copy_kind != PFPROF_COPY_KIND_DTOH))
        continue;
      pfprof_interval_set_builder_add (cb[(pageable ? 0 : 2) + (m[i].stream_id == dev->compute_stream ? 0 : 1)],
                                       m[i].start_ns, m[i].end_ns);
    }
  for (guint c = 0; c < 4; c++)
    copies[c] = pfprof_interval_set_build (cb[c]);
  {
    PfprofIntervalSet *u01 = pfprof_interval_set_union (copies[0], copies[1]);
    PfprofIntervalSet *u23 = pfprof_interval_set_union (copies[2], copies[3]);

    all_copies = pfprof_interval_set_union (u01, u23);
    pfprof_interval_set_free (u01);
    pfprof_interval_set_free (u23);
  }
  l->set[PFPROF_LEDGER_COPY_HIDDEN] = pfprof_interval_set_intersect (all_copies, dev->kernels_comm);
  taken = copy_of_set (all_copies);
  l->set[PFPROF_LEDGER_COMPUTE] = claim (&taken, copy_of_set (dev->kernels));
  l->set[PFPROF_LEDGER_COMM] = claim (&taken, copy_of_set (dev->comm));
  /* Exposed copies: what no kernel covered, by kind in priority order. */
  pfprof_interval_set_free (taken);
  taken = copy_of_set (dev->kernels_comm);
  for (guint c = 0; c < 4; c++)
    l->set[PFPROF_LEDGER_COPY_PAGEABLE_COMPUTE + c] = claim (&taken, copies[c]);
  l->set[PFPROF_LEDGER_GPU_OTHER] = claim (&taken, copy_of_set (dev->busy));
  pfprof_interval_set_free (taken);
  pfprof_interval_set_free (all_copies);

  /* GPU idle: queued work first, then what the host was doing. */
  {
    PfprofIntervalSetBuilder *b = pfprof_interval_set_builder_new ();
    PfprofIntervalSet *span;

    pfprof_interval_set_builder_add (b, MIN (t->start_ns, t->end_ns), t->end_ns + 1);
    span = pfprof_interval_set_build (b);
    idle = pfprof_interval_set_subtract (span, dev->busy);
    pfprof_interval_set_free (span);
  }
  {
    PfprofIntervalSet *queued = queued_idle (l, dev, idle);

    rest = pfprof_interval_set_subtract (idle, queued);
    pfprof_interval_set_free (queued);
    pfprof_interval_set_free (idle);
  }
  host[n_host].bucket = PFPROF_LEDGER_DATA_WAIT;
  host[n_host++].calls = copy_of_set (ix->data_wait);
  host[n_host].bucket = PFPROF_LEDGER_SYNC_COPY;
  host[n_host++].calls = calls_of (l, stream_sync, 1, ix->main_tid, 1);
  host[n_host].bucket = PFPROF_LEDGER_SYNC_STREAM;
  host[n_host++].calls = calls_of (l, stream_sync, 1, ix->main_tid, 0);
  host[n_host].bucket = PFPROF_LEDGER_SYNC_DEVICE;
  host[n_host++].calls = calls_of (l, device_sync, 1, ix->main_tid, -1);
  host[n_host].bucket = PFPROF_LEDGER_SYNC_EVENT;
  host[n_host++].calls = calls_of (l, event_sync, 1, ix->main_tid, -1);
  host[n_host].bucket = PFPROF_LEDGER_ALLOC;
  host[n_host++].calls = calls_of (l, alloc, G_N_ELEMENTS (alloc), ix->main_tid, -1);
  host[n_host].bucket = PFPROF_LEDGER_PAGEABLE_CALL;
  host[n_host++].calls = copy_of_set (l->pageable_runs);
  for (guint h = 0; h < n_host; h++)
    {
      PfprofIntervalSet *left;

      l->set[host[h].bucket] = pfprof_interval_set_intersect (rest, host[h].calls);
      left = pfprof_interval_set_subtract (rest, host[h].calls);
      pfprof_interval_set_free (rest);
      pfprof_interval_set_free (host[h].calls);
      rest = left;
    }
  /* Without API records nothing says the host was the one holding up the
   * GPU: that idle time stays other_idle. */
  if (ix->has_api && ix->main_tid != 0)
    l->set[PFPROF_LEDGER_HOST_BOUND] = rest;
  else
    {
      l->set[PFPROF_LEDGER_HOST_BOUND] = pfprof_interval_set_new ();
      pfprof_interval_set_free (rest);
    }
  return l;
}

void
pfprof_step_ledger_fill_steady (const PfprofStepLedger *l, gint64 *out)
{
  g_return_if_fail (l != NULL);
  g_return_if_fail (out != NULL);

  memset (out, 0, sizeof (gint64) * PFPROF_LEDGER_N_BUCKETS);
  for (guint i = 0; i < pfprof_loop_n_steady_parts (l->loop); i++)
    {
      PfprofInterval p = pfprof_loop_steady_part (l->loop, i);
      gint64 part[PFPROF_LEDGER_N_BUCKETS];

      pfprof_step_ledger_fill (l, p.start, p.end, part);
      for (guint b = 0; b < PFPROF_LEDGER_N_BUCKETS; b++)
        out[b] += part[b];
    }
}

void
pfprof_step_ledger_fill (const PfprofStepLedger *l, gint64 start, gint64 end, gint64 *out)
{
  gint64 sum = 0;

  g_return_if_fail (l != NULL);
  g_return_if_fail (out != NULL);

  for (guint b = 0; b < PFPROF_LEDGER_N_BUCKETS; b++)
    {
      out[b] = l->set[b] != NULL && end > start ? pfprof_interval_set_length_in (l->set[b], start, end) : 0;
      sum += out[b];
    }
  out[PFPROF_LEDGER_OTHER_IDLE] = MAX (0, end - start) - sum;
}

static int
compare_by_length (gconstpointer a, gconstpointer b)
{
  const PfprofStep *x = *(const PfprofStep *const *) a;
  const PfprofStep *y = *(const PfprofStep *const *) b;
  gint64 lx = pfprof_step_length (x), ly = pfprof_step_length (y);

  if (lx != ly)
    return (lx > ly) - (lx < ly);
  if (x->gpu_start_ns != y->gpu_start_ns)
    return (x->gpu_start_ns > y->gpu_start_ns) - (x->gpu_start_ns < y->gpu_start_ns);
  /* The steps lie in one array: their order there breaks the last ties,
   * as a stable sort would. */
  return (x > y) - (x < y);
}

/* Moves the @k-th of @v[@n] (compare_by_length order, which ties never
 * reach) to v[@k]: the median step of 100k steps without sorting them. */
static void
select_nth (gpointer *v, guint n, guint k)
{
  guint lo = 0, hi = n - 1, rounds = 0;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2, store = lo;
      gpointer pivot, swap;

      if (++rounds > 64)
        {
          /* A pathological order: sort what is left. */
          qsort (v + lo, hi - lo + 1, sizeof (gpointer), compare_by_length);
          return;
        }
      /* Median of three as the pivot, moved to v[hi]. */
      if (compare_by_length (&v[mid], &v[lo]) < 0)
        swap = v[mid], v[mid] = v[lo], v[lo] = swap;
      if (compare_by_length (&v[hi], &v[lo]) < 0)
        swap = v[hi], v[hi] = v[lo], v[lo] = swap;
      if (compare_by_length (&v[mid], &v[hi]) < 0)
        swap = v[mid], v[mid] = v[hi], v[hi] = swap;
      pivot = v[hi];
      for (guint i = lo; i < hi; i++)
        if (compare_by_length (&v[i], &pivot) < 0)
          {
            swap = v[i], v[i] = v[store], v[store] = swap;
            store++;
          }
      v[hi] = v[store];
      v[store] = pivot;
      if (store == k)
        return;
      if (k < store)
        hi = store - 1;
      else
        lo = store + 1;
    }
}

void
pfprof_ledger_summarize (const GArray *steps, guint trace_index, PfprofLedgerSummary *out)
{
  g_return_if_fail (steps != NULL);
  g_return_if_fail (out != NULL);

  g_autoptr (GPtrArray) steady = g_ptr_array_new ();
  gint64 total = 0, sum[PFPROF_LEDGER_N_BUCKETS] = { 0 }, parts = 0;

  memset (out, 0, sizeof *out);
  for (guint i = 0; i < steps->len; i++)
    {
      const PfprofStep *s = &g_array_index (steps, PfprofStep, i);

      if (!pfprof_step_is_steady (s) || (trace_index != G_MAXUINT && s->trace_index != trace_index))
        continue;
      g_ptr_array_add (steady, (gpointer) s);
      total += s->gpu_end_ns - s->gpu_start_ns;
      for (guint b = 0; b < PFPROF_LEDGER_N_BUCKETS; b++)
        sum[b] += s->ledger_ns[b];
    }
  out->n_steps = steady->len;
  if (steady->len == 0)
    return;
  out->mean_step_ns = total / steady->len;
  for (guint b = 0; b < PFPROF_LEDGER_N_BUCKETS; b++)
    {
      out->mean_ns[b] = sum[b] / steady->len;
      parts += out->mean_ns[b];
    }
  /* Integer means lose up to a nanosecond a bucket: keep the sum exact. */
  out->mean_ns[PFPROF_LEDGER_OTHER_IDLE] += out->mean_step_ns - parts;
  select_nth (steady->pdata, steady->len, (steady->len - 1) / 2);
  {
    const PfprofStep *med = g_ptr_array_index (steady, (steady->len - 1) / 2);

    out->median_step_ns = pfprof_step_length (med);
    memcpy (out->median_ns, med->ledger_ns, sizeof out->median_ns);
  }
}

static gint64
refill_after_in (const PfprofStepLedger *l, const GArray *waits, gint64 lo, gint64 hi)
{
  gint64 sum = 0;

  for (guint i = 0; l != NULL && i < waits->len; i++)
    {
      PfprofInterval w = g_array_index (waits, PfprofInterval, i);
      gint64 to = i + 1 < waits->len ? g_array_index (waits, PfprofInterval, i + 1).start : hi;

      if (w.start < lo || w.start >= hi || to <= w.end)
        continue;
      sum += MIN (w.end - w.start, pfprof_interval_set_length_in (l->set[PFPROF_LEDGER_HOST_BOUND], w.end, MIN (to, hi)));
    }
  return sum;
}

gint64
pfprof_step_ledger_refill_after (const PfprofStepLedger *l, const GArray *waits)
{
  gint64 sum = 0;

  g_return_val_if_fail (waits != NULL, 0);

  for (guint i = 0; l != NULL && i < pfprof_loop_n_steady_parts (l->loop); i++)
    {
      PfprofInterval p = pfprof_loop_steady_part (l->loop, i);

      sum += refill_after_in (l, waits, p.start, p.end);
    }
  return sum;
}

gint64
pfprof_ledger_sum (const gint64 *values, guint32 buckets)
{
  gint64 sum = 0;

  g_return_val_if_fail (values != NULL, 0);

  for (guint b = 0; b < PFPROF_LEDGER_N_BUCKETS; b++)
    if (buckets & PFPROF_LEDGER_BIT (b))
      sum += values[b];
  return sum;
}

const PfprofIntervalSet *
pfprof_step_ledger_bucket_set (const PfprofStepLedger *l, PfprofLedgerBucket bucket)
{
  return l != NULL && (guint) bucket < PFPROF_LEDGER_N_BUCKETS ? l->set[bucket] : NULL;
}

static gint64
burst_idle_in (const PfprofStepLedger *l, const GArray *calls, gint64 gap, const gint64 *bounds, guint n_bounds,
               gint64 lo, gint64 hi)
{
  const PfprofIntervalSet *hb = l != NULL ? l->set[PFPROF_LEDGER_HOST_BOUND] : NULL;
  g_autoptr (GArray) bursts = g_array_new (FALSE, FALSE, sizeof (PfprofInterval));
  gint64 span_start = 0, span_end = G_MININT64, sum = 0;
  guint b = 0;

  if (hb == NULL)
    return 0;
  for (guint i = 0; i <= calls->len; i++)
    {
      PfprofInterval c = i < calls->len ? g_array_index (calls, PfprofInterval, i)
                                        : (PfprofInterval) { G_MAXINT64, G_MAXINT64 };
      gboolean crossed = FALSE;

      while (b < n_bounds && bounds[b] <= c.start)
        {
          crossed = crossed || (span_end != G_MININT64 && bounds[b] > span_start);
          b++;
        }
      /* The gap in unsigned arithmetic: a trace's times may span more
       * than gint64 holds (the sentinel call above, hostile files). */
      if (span_end != G_MININT64 && !crossed
          && (c.start <= span_end || (guint64) c.start - (guint64) span_end <= (guint64) MAX (gap, 0)))
        {
          span_end = MAX (span_end, c.end);
          continue;
        }
      if (span_end != G_MININT64 && span_start >= lo && span_start < hi)
        {
          PfprofInterval burst = { span_start, span_end };

          sum += pfprof_interval_set_length_in (hb, span_start, MIN (span_end, hi));
          g_array_append_val (bursts, burst);
        }
      span_start = c.start;
      span_end = c.end;
    }
  return sum + refill_after_in (l, bursts, lo, hi);
}

gint64
pfprof_step_ledger_burst_idle (const PfprofStepLedger *l, const GArray *calls, gint64 gap,
                               const gint64 *bounds, guint n_bounds)
{
  gint64 sum = 0;

  g_return_val_if_fail (calls != NULL, 0);
  g_return_val_if_fail (n_bounds == 0 || bounds != NULL, 0);

  for (guint i = 0; l != NULL && i < pfprof_loop_n_steady_parts (l->loop); i++)
    {
      PfprofInterval p = pfprof_loop_steady_part (l->loop, i);

      sum += burst_idle_in (l, calls, gap, bounds, n_bounds, p.start, p.end);
    }
  return sum;
}

/* TRUE when some device work's correlation id lies strictly between @a
 * and @b. */
typedef struct
{
  const GArray *ids;
  guint32 a;
} IdsAt;

static gboolean
id_at_most (gconstpointer data, guint i)
{
  const IdsAt *at = data;

  return g_array_index (at->ids, guint32, i) <= at->a;
}

static gboolean
work_between (const PfprofStepLedger *l, guint32 a, guint32 b)
{
  const GArray *ids = l->work_corr;
  IdsAt at = { ids, a };
  guint lo;

  if (b <= a + 1)
    return FALSE;
  if (l->work_bits != NULL)
    {
      /* The bits of [a + 1, b - 1] within the range, a word at a time. */
      guint64 from = MAX ((guint64) a + 1, (guint64) l->work_lo) - l->work_lo;
      guint64 to = MIN ((guint64) b, (guint64) l->work_lo + l->work_n_bits) - l->work_lo;

      while (from < to)
        {
          guint64 word = l->work_bits[from / 64] >> (from % 64);
          guint64 n = MIN (64 - from % 64, to - from);

          if (n < 64)
            word &= (G_GUINT64_CONSTANT (1) << n) - 1;
          if (word != 0)
            return TRUE;
          from += n;
        }
      return FALSE;
    }
  lo = pfprof_lower_bound (0, ids->len, id_at_most, &at);
  return lo < ids->len && g_array_index (ids, guint32, lo) < b;
}

/* TRUE when calls @i and @j (API indices, @i before @j) follow each other
 * on their thread with nothing else recorded in between. */
static gboolean
back_to_back (const PfprofStepLedger *l, guint i, guint j)
{
  const PfprofApiRecord *api = pfprof_trace_api_calls (l->ix->trace);

  if (api[j].correlation_id <= api[i].correlation_id
      || work_between (l, api[i].correlation_id, api[j].correlation_id))
    return FALSE;
  /* Calls nested in @i (the driver call a runtime call makes) are its own. */
  for (guint k = i + 1; k < j; k++)
    if (api[k].tid == api[i].tid && api[k].start_ns >= api[i].end_ns)
      return FALSE;
  return TRUE;
}

static gint64
call_run_idle_in (const PfprofStepLedger *l, const GArray *calls, gint64 max_gap, const gint64 *bounds,
                  guint n_bounds, gint64 lo, gint64 hi, guint *n_chained)
{
  const PfprofIntervalSet *hb = l != NULL ? l->set[PFPROF_LEDGER_HOST_BOUND] : NULL;
  const PfprofApiRecord *api;
  g_autoptr (GArray) runs = NULL;
  PfprofInterval run = { 0, G_MININT64 };
  guint bound = 0, chained = 0;
  gint64 sum = 0, covered = G_MININT64;

  if (n_chained != NULL)
    *n_chained = 0;
  if (hb == NULL || calls->len == 0)
    return 0;
  api = pfprof_trace_api_calls (l->ix->trace);
  runs = g_array_new (FALSE, FALSE, sizeof (PfprofInterval));
  for (guint c = 0; c < calls->len; c++)
    {
      guint i = g_array_index (calls, guint, c);
      gint64 start = MAX (api[i].start_ns, covered), end = api[i].end_ns;
      gboolean next = FALSE;

      if (api[i].start_ns < lo || api[i].start_ns >= hi)
        continue;
      if (c + 1 < calls->len)
        {
          guint j = g_array_index (calls, guint, c + 1);

          while (bound < n_bounds && bounds[bound] <= api[i].start_ns)
            bound++;
          /* Unsigned: hostile times may span more than gint64 holds. */
          next = api[j].tid == api[i].tid && api[j].start_ns >= api[i].end_ns && api[j].start_ns < hi
                 && (guint64) api[j].start_ns - (guint64) api[i].end_ns <= (guint64) MAX (max_gap, 0)
                 && (bound >= n_bounds || bounds[bound] > api[j].start_ns) && back_to_back (l, i, j);
          if (next)
            {
              end = api[j].start_ns;
              chained++;
            }
        }
      end = MIN (end, hi);
      if (end > start)
        sum += pfprof_interval_set_length_in (hb, start, end);
      covered = MAX (covered, end);
      /* A run of back-to-back calls holds the host like a wait: the GPU's
       * queue drains, and the idle while the host refills it after the run
       * goes with the run (at most its length). One call alone is no run. */
      if (run.end == G_MININT64)
        run.start = api[i].start_ns;
      run.end = MAX (run.end, MIN (api[i].end_ns, hi));
      if (!next)
        {
          if (run.end > run.start && run.start != api[i].start_ns)
            g_array_append_val (runs, run);
          run.end = G_MININT64;
        }
    }
  if (n_chained != NULL)
    *n_chained = chained;
  /* The runs of one step hold the host for their total length, whatever
   * interrupted them (an allocation, a collection): the refill after the
   * step's last run is at most that total. */
  {
    guint r = 0;

    bound = 0;
    while (r < runs->len)
      {
        PfprofInterval first = g_array_index (runs, PfprofInterval, r), last = first;
        gint64 held = 0, to;

        while (bound < n_bounds && bounds[bound] <= first.start)
          bound++;
        for (; r < runs->len; r++)
          {
            PfprofInterval x = g_array_index (runs, PfprofInterval, r);

            if (bound < n_bounds && x.start >= bounds[bound])
              break;
            held += x.end - x.start;
            last = x;
          }
        to = r < runs->len ? g_array_index (runs, PfprofInterval, r).start : hi;
        if (to > last.end)
          sum += MIN (held, pfprof_interval_set_length_in (hb, last.end, MIN (to, hi)));
      }
  }
  return sum;
}

gint64
pfprof_step_ledger_call_run_idle (const PfprofStepLedger *l, const GArray *calls, gint64 max_gap,
                                  const gint64 *bounds, guint n_bounds, guint *n_chained)
{
  gint64 sum = 0;
  guint chained = 0;

  g_return_val_if_fail (calls != NULL, 0);
  g_return_val_if_fail (n_bounds == 0 || bounds != NULL, 0);

  for (guint i = 0; l != NULL && i < pfprof_loop_n_steady_parts (l->loop); i++)
    {
      PfprofInterval p = pfprof_loop_steady_part (l->loop, i);
      guint n = 0;

      sum += call_run_idle_in (l, calls, max_gap, bounds, n_bounds, p.start, p.end, &n);
      chained += n;
    }
  if (n_chained != NULL)
    *n_chained = chained;
  return sum;
}
