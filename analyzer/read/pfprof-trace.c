/* SPDX-License-Identifier: MIT */
/* pfprof-trace.c: the in-memory trace. */
#include "pfprof-trace.h"

#include <stdarg.h>
#include <string.h>

PfprofTrace *
pfprof_trace_new (void)
{
  PfprofTrace *trace = g_new0 (PfprofTrace, 1);

  trace->meta = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  trace->strings = g_ptr_array_new_with_free_func (g_free);
  trace->rank = -1;
  trace->notes = g_ptr_array_new_with_free_func (g_free);
  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    trace->tables[t] = g_array_new (FALSE, TRUE,
                                    (guint) pfprof_trace_schema_table ((PfprofTableId) t)->record_size);
  return trace;
}

void
pfprof_trace_free (PfprofTrace *trace)
{
  if (trace == NULL)
    return;
  g_free (trace->path);
  g_hash_table_unref (trace->meta);
  g_ptr_array_unref (trace->strings);
  if (trace->display_names != NULL)
    g_ptr_array_unref (trace->display_names);
  g_ptr_array_unref (trace->notes);
  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    g_array_unref (trace->tables[t]);
  g_free (trace);
}

const char *
pfprof_trace_string (const PfprofTrace *trace, guint32 id)
{
  const char *s;

  g_return_val_if_fail (trace != NULL, "");

  if (id == PFPROF_NONE || id >= trace->strings->len)
    return "";
  s = g_ptr_array_index (trace->strings, id);
  return s ? s : "";
}

guint32
pfprof_trace_intern (PfprofTrace *trace, GHashTable *interned, const char *s)
{
  gpointer found;
  guint32 id;

  g_return_val_if_fail (trace != NULL, PFPROF_NONE);
  g_return_val_if_fail (interned != NULL, PFPROF_NONE);

  if (s == NULL)
    s = "";
  if (g_hash_table_lookup_extended (interned, s, NULL, &found))
    return GPOINTER_TO_UINT (found) - 1;
  id = trace->strings->len;
  g_ptr_array_add (trace->strings, g_strdup (s));
  g_hash_table_insert (interned, g_ptr_array_index (trace->strings, id), GUINT_TO_POINTER (id + 1));
  return id;
}

void
pfprof_trace_add_note (PfprofTrace *trace, const char *fmt, ...)
{
  va_list ap;

  g_return_if_fail (trace != NULL);
  g_return_if_fail (fmt != NULL);

  va_start (ap, fmt);
  g_ptr_array_add (trace->notes, g_strdup_vprintf (fmt, ap));
  va_end (ap);
}

static int
compare_nesting (gconstpointer a, gconstpointer b)
{
  const PfprofNvtxRecord *x = *(PfprofNvtxRecord *const *) a;
  const PfprofNvtxRecord *y = *(PfprofNvtxRecord *const *) b;

  if (x->tid != y->tid)
    return x->tid < y->tid ? -1 : 1;
  if (x->start_ns != y->start_ns)
    return x->start_ns < y->start_ns ? -1 : 1;
  /* The enclosing range first. */
  if (x->end_ns != y->end_ns)
    return x->end_ns > y->end_ns ? -1 : 1;
  return 0;
}

void
pfprof_trace_nest_nvtx (PfprofTrace *trace)
{
  g_return_if_fail (trace != NULL);

  GArray *nvtx = trace->tables[PFPROF_TABLE_NVTX];
  g_autoptr (GPtrArray) order = g_ptr_array_sized_new (nvtx->len);
  g_autoptr (GArray) open = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint32 tid = 0;

  for (guint i = 0; i < nvtx->len; i++)
    if (g_array_index (nvtx, PfprofNvtxRecord, i).kind == PFPROF_NVTX_RANGE)
      g_ptr_array_add (order, &g_array_index (nvtx, PfprofNvtxRecord, i));
  g_ptr_array_sort (order, compare_nesting);
  for (guint i = 0; i < order->len; i++)
    {
      PfprofNvtxRecord *r = g_ptr_array_index (order, i);

      if (i == 0 || r->tid != tid)
        {
          g_array_set_size (open, 0);
          tid = r->tid;
        }
      while (open->len > 0 && g_array_index (open, gint64, open->len - 1) <= r->start_ns)
        g_array_set_size (open, open->len - 1);
      r->depth = (guint16) MIN (open->len, G_MAXUINT16);
      g_array_append_val (open, r->end_ns);
    }
}

const char *
pfprof_trace_meta (const PfprofTrace *trace, const char *key)
{
  g_return_val_if_fail (trace != NULL, NULL);
  g_return_val_if_fail (key != NULL, NULL);

  return g_hash_table_lookup (trace->meta, key);
}

gboolean
pfprof_trace_is_incomplete (const PfprofTrace *trace)
{
  g_return_val_if_fail (trace != NULL, FALSE);

  const char *complete = pfprof_trace_meta (trace, "complete");

  /* Imports (nsys) have no such key: they are whole exports. */
  return complete != NULL && strcmp (complete, "1") != 0;
}

/* Event tables come first in PfprofTableId; each record starts with its
 * int64 timestamp. */
static gboolean
is_event_table (unsigned t)
{
  return t < PFPROF_TABLE_DEVICES;
}

guint64
pfprof_trace_n_events (const PfprofTrace *trace)
{
  guint64 n = 0;

  g_return_val_if_fail (trace != NULL, 0);

  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    if (is_event_table (t))
      n += trace->tables[t]->len;
  return n;
}

/* Every event record starts with its int64 start (or ts) field. */
static int
compare_start (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a;
  gint64 y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

/* The leading timestamp of record @i of @data (records of @size bytes). */
#define KEY(data, i, size) (*(const gint64 *) ((data) + (gsize) (i) * (size)))

/* Sorts @a by its leading timestamp if it is nearly sorted, the usual case:
 * CUPTI delivers each stream's records in order and interleaves streams a
 * little, and an NVTX range is written when it ends, after the ranges
 * nested in it. An insertion sort then moves each late record back by a
 * few places, in one pass without allocating (a merge sort of 10M records
 * copies them all, twice). Gives up after moving @budget records in all
 * and returns FALSE, leaving a permutation of @a (still in stable order)
 * for the caller's general sort. Stable: a record goes after the records
 * with its timestamp. */
static gboolean
sort_nearly_sorted (GArray *a, gsize size, guint64 budget)
{
  guchar *data = (guchar *) a->data;
  guchar tmp[256];
  guint64 moved = 0;

  if (size > sizeof tmp)
    return FALSE;
  for (guint i = 1; i < a->len; i++)
    {
      gint64 key = KEY (data, i, size);
      guint j = i;

      if (key >= KEY (data, i - 1, size))
        continue;
      while (j > 0 && KEY (data, j - 1, size) > key)
        j--;
      moved += i - j;
      if (moved > budget)
        return FALSE;
      memcpy (tmp, data + (gsize) i * size, size);
      memmove (data + (gsize) (j + 1) * size, data + (gsize) j * size, (gsize) (i - j) * size);
      memcpy (data + (gsize) j * size, tmp, size);
    }
  return TRUE;
}

/* Up to this many runs (10 merge passes) merging beats the general sort;
 * with more, the records are usually only a few places late. */
#define MAX_MERGED_RUNS 1024

/* Sorts @a, made of @n_runs sorted runs starting at @run_starts, by
 * merging neighbouring runs pass by pass through a buffer of the array's
 * size: ceil(log2 n_runs) passes. The traces the collector records look
 * like that: CUPTI hands over buffers whose records are in order, but a
 * buffer (a stream's, the API records') may come after records that
 * started later, so tens of runs (4-97 in the H200 samples). Stable: on
 * equal keys the left run goes first. */
static void
sort_by_merging_runs (GArray *a, gsize size, const guint *run_starts, guint n_runs)
{
  guint n = a->len;
  guint *starts = g_new (guint, n_runs + 1);
  guint *next_starts = g_new (guint, n_runs + 1);
  guchar *src = (guchar *) a->data;
  guchar *dst = g_malloc ((gsize) n * size);
  guchar *buffer = dst;
  guint r;

  memcpy (starts, run_starts, n_runs * sizeof *starts);
  starts[n_runs] = n;
  while (n_runs > 1)
    {
      guint m = 0;

      for (r = 0; r < n_runs; r += 2)
        {
          guint lo = starts[r], mid = starts[MIN (r + 1, n_runs)], hi = starts[MIN (r + 2, n_runs)];
          guint i = lo, j = mid, k = lo;

          next_starts[m++] = lo;
          while (i < mid && j < hi)
            {
              /* Copy the longest stretch that comes from one side. */
              guint from = i;

              if (KEY (src, j, size) < KEY (src, i, size))
                {
                  from = j;
                  while (j < hi && KEY (src, j, size) < KEY (src, i, size))
                    j++;
                  memcpy (dst + (gsize) k * size, src + (gsize) from * size, (gsize) (j - from) * size);
                  k += j - from;
                }
              else
                {
                  while (i < mid && KEY (src, i, size) <= KEY (src, j, size))
                    i++;
                  memcpy (dst + (gsize) k * size, src + (gsize) from * size, (gsize) (i - from) * size);
                  k += i - from;
                }
            }
          memcpy (dst + (gsize) k * size, src + (gsize) i * size, (gsize) (mid - i) * size);
          k += mid - i;
          memcpy (dst + (gsize) k * size, src + (gsize) j * size, (gsize) (hi - j) * size);
        }
      next_starts[m] = n;
      memcpy (starts, next_starts, (m + 1) * sizeof *starts);
      n_runs = m;
      {
        guchar *t = src;

        src = dst;
        dst = t;
      }
    }
  if (src != (guchar *) a->data)
    memcpy (a->data, src, (gsize) n * size);
  g_free (buffer);
  g_free (starts);
  g_free (next_starts);
}

/* Sorts @a, made of two sorted runs (the second from @mid), moving only
 * the records that must move: left records not after the right run's
 * first key and right records not before the left run's last key are in
 * place already; the rest merges through a buffer of the shorter side. The generator's API
 * calls look like that (a couple of hundred early records written after
 * 4.7 million): merging them all copied 190 MB twice into fresh memory.
 * Stable: on equal keys the left run goes first. */
static void
sort_two_runs (GArray *a, gsize size, guint mid)
{
  guchar *d = (guchar *) a->data;
  guint n = a->len, lo = 0, hi, l, h;
  gint64 first_right, last_left;
  guchar *buf;

  first_right = KEY (d, mid, size);
  last_left = KEY (d, mid - 1, size);
  for (l = 0, h = mid; l < h;)
    {
      guint m = l + (h - l) / 2;

      if (KEY (d, m, size) > first_right)
        h = m;
      else
        l = m + 1;
    }
  lo = l;
  for (l = mid, h = n; l < h;)
    {
      guint m = l + (h - l) / 2;

      if (KEY (d, m, size) >= last_left)
        h = m;
      else
        l = m + 1;
    }
  hi = l;
  if (mid - lo <= hi - mid)
    {
      /* Left part aside, merged forwards: writes stay behind the reads. */
      guint nl = mid - lo, i = 0, j = mid, k = lo;

      buf = g_memdup2 (d + (gsize) lo * size, (gsize) nl * size);
      while (i < nl && j < hi)
        {
          if (KEY (d, j, size) < KEY (buf, i, size))
            memcpy (d + (gsize) k * size, d + (gsize) j++ * size, size);
          else
            memcpy (d + (gsize) k * size, buf + (gsize) i++ * size, size);
          k++;
        }
      memcpy (d + (gsize) k * size, buf + (gsize) i * size, (gsize) (nl - i) * size);
    }
  else
    {
      /* Right part aside, merged backwards. */
      guint i = mid, j = hi - mid, k = hi;

      buf = g_memdup2 (d + (gsize) mid * size, (gsize) j * size);
      while (i > lo && j > 0)
        {
          k--;
          if (KEY (d, i - 1, size) > KEY (buf, j - 1, size))
            memcpy (d + (gsize) k * size, d + (gsize) --i * size, size);
          else
            memcpy (d + (gsize) k * size, buf + (gsize) --j * size, size);
        }
      memcpy (d + (gsize) lo * size, buf, (gsize) j * size);
    }
  g_free (buf);
}

void
pfprof_trace_sort (PfprofTrace *trace)
{
  gint64 lo = G_MAXINT64;
  gint64 hi = G_MININT64;

  g_return_if_fail (trace != NULL);

  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    {
      const PfprofTraceTable *table = pfprof_trace_schema_table ((PfprofTableId) t);
      GArray *a = trace->tables[t];

      if (!is_event_table (t) || a->len == 0)
        continue;
      /* Writers append in nearly time order. A few long sorted runs (the
       * collector's CUPTI buffers) are merged; records a few places late
       * (streams interleaved, NVTX ranges written when they end) are moved
       * back by one pass of an insertion sort; either saves the general
       * sort's allocation, indirection and copying, and a sorted table
       * costs one comparison a record. A table far from sorted falls back
       * to g_array_sort. All three are stable, so equal starts keep file
       * order. */
      {
        /* Where each run starts, found once for the sort that uses them. */
        guint starts[MAX_MERGED_RUNS + 1];
        guint n_runs = 1;

        starts[0] = 0;
        for (guint i = 1; i < a->len && n_runs <= MAX_MERGED_RUNS; i++)
          if (KEY (a->data, i, table->record_size) < KEY (a->data, i - 1, table->record_size))
            starts[n_runs++] = i;
        if (n_runs == 2)
          sort_two_runs (a, table->record_size, starts[1]);
        else if (n_runs > 1 && n_runs <= MAX_MERGED_RUNS)
          sort_by_merging_runs (a, table->record_size, starts, n_runs);
        else if (n_runs > MAX_MERGED_RUNS
                 && !sort_nearly_sorted (a, table->record_size, (guint64) a->len + 4096))
          g_array_sort (a, compare_start);
      }
      /* CUDA event timestamps are optional (0): not part of the extent. */
      if (t == PFPROF_TABLE_CUDA_EVENTS)
        continue;
      for (guint i = 0; i < a->len; i++)
        {
          const char *rec = a->data + (gsize) i * table->record_size;
          gint64 start = *(const gint64 *) rec;
          gint64 end = start;

          /* The duration column, when present, is the second one. */
          if (table->n_columns > 1 && table->columns[1].kind == PFPROF_COLUMN_DURATION)
            end = *(const gint64 *) (rec + table->columns[1].offset);
          if (start < lo)
            lo = start;
          if (end > hi)
            hi = end;
        }
    }
  trace->start_ns = lo == G_MAXINT64 ? 0 : lo;
  trace->end_ns = hi == G_MININT64 ? 0 : hi;
}
