/* SPDX-License-Identifier: MIT */
/* pfprof-trace-sketch.c: a trace's chunk spans as densities per kind. */
#include "pfprof-trace-sketch.h"

#include <string.h>

#include <glib/gstdio.h>

#include "pfprof-trace-reader.h"

/* The event tables the timeline draws, the colour of each (the class of
 * most of its events) and its row's label. */
static const struct
{
  PfprofTableId table;
  PfprofItemClass cls;
  const char *label;
} kinds[] = {
  { PFPROF_TABLE_KERNELS, PFPROF_ITEM_KERNEL, "Kernels" },
  { PFPROF_TABLE_MEMCPYS, PFPROF_ITEM_COPY_OTHER, "Copies" },
  { PFPROF_TABLE_MEMSETS, PFPROF_ITEM_MEMSET, "Memsets" },
  { PFPROF_TABLE_SYNCS, PFPROF_ITEM_SYNC, "Synchronizations" },
  { PFPROF_TABLE_API_CALLS, PFPROF_ITEM_API, "CUDA API calls" },
  { PFPROF_TABLE_NVTX, PFPROF_ITEM_NVTX, "NVTX ranges" },
  { PFPROF_TABLE_WORKER_EVENTS, PFPROF_ITEM_BATCH, "DataLoader" },
};

static int
kind_of (PfprofTableId table)
{
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    if (kinds[k].table == table)
      return (int) k;
  return -1;
}

PfprofTraceSketch *
pfprof_trace_sketch_new (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);

  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autoptr (GArray) all = NULL;
  guint64 n[G_N_ELEMENTS (kinds)] = { 0 };
  PfprofTraceSketch *sketch;
  GStatBuf st;

  /* A trace being written is read through a private copy of it and its
   * WAL (pfprof-trace-reader.h): the sketch would copy it a second time,
   * beside the load, for a trace that is seldom big yet. */
  if (g_stat (wal, &st) == 0 && st.st_size > 0)
    return NULL;
  all = pfprof_trace_reader_chunk_spans (path, error);
  if (all == NULL)
    return NULL;
  sketch = g_new0 (PfprofTraceSketch, 1);
  sketch->rows = g_array_new (FALSE, FALSE, sizeof (PfprofTraceSketchRow));
  sketch->spans = g_array_new (FALSE, FALSE, sizeof (PfprofTraceChunkSpan));
  sketch->start_ns = G_MAXINT64;
  sketch->end_ns = G_MININT64;
  for (guint i = 0; i < all->len; i++)
    {
      const PfprofTraceChunkSpan *s = &g_array_index (all, PfprofTraceChunkSpan, i);
      int k = kind_of (s->table);

      if (k < 0 || s->n == 0)
        continue;
      n[k] += s->n;
      sketch->start_ns = MIN (sketch->start_ns, s->min_ns);
      sketch->end_ns = MAX (sketch->end_ns, s->max_ns);
      g_array_append_val (sketch->spans, *s);
    }
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    if (n[k] > 0)
      {
        PfprofTraceSketchRow row = { kinds[k].table, kinds[k].cls, kinds[k].label, n[k] };

        g_array_append_val (sketch->rows, row);
      }
  if (sketch->rows->len == 0)
    {
      pfprof_trace_sketch_free (sketch);
      return NULL;
    }
  return sketch;
}

void
pfprof_trace_sketch_free (PfprofTraceSketch *sketch)
{
  if (sketch == NULL)
    return;
  g_array_unref (sketch->rows);
  g_array_unref (sketch->spans);
  g_free (sketch);
}

void
pfprof_trace_sketch_density (const PfprofTraceSketch *sketch, guint row, gint64 t0, gint64 t1,
                             double *bins, guint n_bins)
{
  g_return_if_fail (sketch != NULL);
  g_return_if_fail (row < sketch->rows->len);
  g_return_if_fail (bins != NULL || n_bins == 0);

  PfprofTableId table = g_array_index (sketch->rows, PfprofTraceSketchRow, row).table;
  double width = (double) (t1 - t0) / MAX (n_bins, 1);

  memset (bins, 0, sizeof (double) * n_bins);
  if (n_bins == 0 || t1 <= t0)
    return;
  for (guint i = 0; i < sketch->spans->len; i++)
    {
      const PfprofTraceChunkSpan *s = &g_array_index (sketch->spans, PfprofTraceChunkSpan, i);
      double a, b, len;
      gint64 first, last;

      if (s->table != table || s->max_ns < t0 || s->min_ns >= t1)
        continue;
      a = (double) (s->min_ns - t0) / width;
      b = (double) (s->max_ns - t0) / width;
      len = b - a;
      first = CLAMP ((gint64) a, 0, (gint64) n_bins - 1);
      last = CLAMP ((gint64) b, 0, (gint64) n_bins - 1);
      if (len <= 0)
        {
          /* An instant: all of it in its bin. */
          if (a >= 0 && a < (double) n_bins)
            bins[first] += (double) s->n;
          continue;
        }
      for (gint64 j = first; j <= last; j++)
        {
          double lo = MAX (a, (double) j), hi = MIN (b, (double) j + 1);

          if (hi > lo)
            bins[j] += (double) s->n * (hi - lo) / len;
        }
    }
}
