/* SPDX-License-Identifier: MIT */
/* pfprof-run.c: align and trim the traces of a run once, then share them. */
#include "pfprof-run.h"

#include <string.h>

struct _PfprofRun
{
  gatomicrefcount ref_count;
  GPtrArray *traces;        /* PfprofTrace*, owned */
  guint64 *n_out_of_range;  /* one per trace */
  guint n_unaligned;
};

/* Events further than this from the trace's typical time are set aside
 * (~39 hours either way). Real recordings span seconds to hours; a
 * corrupt or hostile timestamp near INT64_MIN/MAX would make every
 * difference and sum of times overflow. Within the window, differences
 * stay below 2^48 ns and sums of durations cannot overflow for fewer than
 * 2^15 events spanning all of it. */
#define TIME_WINDOW_NS ((gint64) 1 << 47)
#define TIME_LIMIT_HI ((gint64) 1 << 62)
#define TIME_LIMIT_LO (-((gint64) 1 << 62))

/* Removes, in place, the events of @t outside TIME_WINDOW_NS around the
 * middle event of its largest table; returns how many. */
static guint64
drop_out_of_range (PfprofTrace *t)
{
  guint big = PFPROF_TABLE_KERNELS;
  const PfprofTraceTable *table;
  gint64 ref, lo, hi;
  guint64 dropped = 0;

  for (guint i = 0; i < PFPROF_TABLE_DEVICES; i++)
    if (i != PFPROF_TABLE_CUDA_EVENTS && t->tables[i]->len > t->tables[big]->len)
      big = i;
  if (t->tables[big]->len == 0)
    return 0;
  table = pfprof_trace_schema_table ((PfprofTableId) big);
  ref = *(const gint64 *) (const void *) (t->tables[big]->data
                                          + (gsize) (t->tables[big]->len / 2) * table->record_size);
  /* Kept times also stay within ±2^62 (CUPTI's are ~2^60.6 ns since the
   * epoch), so adding a step length or a gap to one cannot overflow. If
   * the reference itself is beyond that, nothing is kept. */
  lo = MAX (ref, TIME_LIMIT_LO + TIME_WINDOW_NS) - TIME_WINDOW_NS;
  hi = MIN (ref, TIME_LIMIT_HI - TIME_WINDOW_NS) + TIME_WINDOW_NS;
  lo = MAX (lo, TIME_LIMIT_LO);
  hi = MIN (hi, TIME_LIMIT_HI);
  if (t->start_ns >= lo && t->end_ns <= hi)
    return 0;
  for (guint i = 0; i < PFPROF_TABLE_DEVICES; i++)
    {
      GArray *a = t->tables[i];
      gsize size;
      guint keep = 0;

      /* CUDA event timestamps are optional (0) and not used for times. */
      if (i == PFPROF_TABLE_CUDA_EVENTS || a->len == 0)
        continue;
      table = pfprof_trace_schema_table ((PfprofTableId) i);
      size = table->record_size;
      for (guint r = 0; r < a->len; r++)
        {
          char *rec = a->data + (gsize) r * size;
          gint64 start = *(const gint64 *) (const void *) rec;
          gint64 end = start;

          if (table->n_columns > 1 && table->columns[1].kind == PFPROF_COLUMN_DURATION)
            end = *(const gint64 *) (const void *) (rec + table->columns[1].offset);
          if (start < lo || end > hi)
            {
              dropped++;
              continue;
            }
          if (keep != r)
            memmove (a->data + (gsize) keep * size, rec, size);
          keep++;
        }
      g_array_set_size (a, keep);
    }
  pfprof_trace_sort (t); /* recomputes start_ns/end_ns */
  return dropped;
}

PfprofRun *
pfprof_run_new (GPtrArray *traces)
{
  PfprofRun *run;

  g_return_val_if_fail (traces != NULL, NULL);
  run = g_new0 (PfprofRun, 1);
  g_atomic_ref_count_init (&run->ref_count);
  /* Own the traces through an array of our own, whatever free function
   * the caller's array had. */
  run->traces = g_ptr_array_new_full (traces->len, (GDestroyNotify) pfprof_trace_free);
  for (guint i = 0; i < traces->len; i++)
    g_ptr_array_add (run->traces, g_ptr_array_index (traces, i));
  g_ptr_array_set_free_func (traces, NULL);
  g_ptr_array_unref (traces);
  /* Several hosts onto one time axis before anything compares times;
   * then the ranges checked on the times as they will be read. */
  run->n_unaligned = pfprof_clock_align (run->traces);
  run->n_out_of_range = g_new0 (guint64, run->traces->len + 1);
  for (guint i = 0; i < run->traces->len; i++)
    run->n_out_of_range[i] = drop_out_of_range (g_ptr_array_index (run->traces, i));
  return run;
}

PfprofRun *
pfprof_run_ref (PfprofRun *run)
{
  g_return_val_if_fail (run != NULL, NULL);
  g_atomic_ref_count_inc (&run->ref_count);
  return run;
}

void
pfprof_run_unref (PfprofRun *run)
{
  if (run == NULL || !g_atomic_ref_count_dec (&run->ref_count))
    return;
  g_ptr_array_unref (run->traces);
  g_free (run->n_out_of_range);
  g_free (run);
}

GPtrArray *
pfprof_run_get_traces (const PfprofRun *run)
{
  g_return_val_if_fail (run != NULL, NULL);
  return run->traces;
}

guint
pfprof_run_n_traces (const PfprofRun *run)
{
  g_return_val_if_fail (run != NULL, 0);
  return run->traces->len;
}

const PfprofTrace *
pfprof_run_get_trace (const PfprofRun *run, guint index)
{
  g_return_val_if_fail (run != NULL, NULL);
  g_return_val_if_fail (index < run->traces->len, NULL);
  return g_ptr_array_index (run->traces, index);
}

gint64
pfprof_run_clock_offset (const PfprofRun *run, guint index)
{
  g_return_val_if_fail (run != NULL, 0);

  const PfprofTrace *t = pfprof_run_get_trace (run, index);

  g_return_val_if_fail (t != NULL, 0);
  return t->clock_offset_ns;
}

PfprofClockAlignment
pfprof_run_clock_alignment (const PfprofRun *run, guint index)
{
  g_return_val_if_fail (run != NULL, PFPROF_CLOCK_SHARED);

  const PfprofTrace *t = pfprof_run_get_trace (run, index);

  g_return_val_if_fail (t != NULL, PFPROF_CLOCK_SHARED);
  return (PfprofClockAlignment) t->clock_alignment;
}

guint
pfprof_run_n_unaligned (const PfprofRun *run)
{
  g_return_val_if_fail (run != NULL, 0);
  return run->n_unaligned;
}

guint64
pfprof_run_n_out_of_range (const PfprofRun *run, guint index)
{
  g_return_val_if_fail (run != NULL, 0);
  g_return_val_if_fail (index < run->traces->len, 0);
  return run->n_out_of_range[index];
}
