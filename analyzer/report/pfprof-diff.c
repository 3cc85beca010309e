/* SPDX-License-Identifier: MIT */
/* pfprof-diff.c: comparing two analyses (see the header). */
#include "pfprof-diff.h"

#include <string.h>

#include "pfprof-report.h"

const char *
pfprof_diff_status_to_string (PfprofDiffStatus status)
{
  switch (status)
    {
    case PFPROF_DIFF_RESOLVED: return "resolved";
    case PFPROF_DIFF_NEW: return "new";
    case PFPROF_DIFF_UNCHANGED:
    default: return "unchanged";
    }
}

static void
diff_finding_free (gpointer p)
{
  PfprofDiffFinding *f = p;

  g_free (f->title);
  g_free (f);
}

/* Overlap over all devices, each weighted by its HtoD copy time, so a
 * device that barely copies does not swing the figure. */
static void
side_init (PfprofDiffSide *side, const PfprofAnalysis *a)
{
  double hidden = 0, total = 0;

  memset (side, 0, sizeof *side);
  side->analysis = a;
  side->median = pfprof_report_median_step (a);
  side->n_steps = a->steps->len;
  side->n_steady_steps = a->n_steady_steps;
  side->idle_fraction = pfprof_report_max_idle_fraction (a);
  for (guint i = 0; i < a->devices->len; i++)
    {
      const PfprofDeviceSummary *d = &g_array_index (a->devices, PfprofDeviceSummary, i);

      if (d->htod_ns <= 0)
        continue;
      hidden += d->overlap_fraction * (double) d->htod_ns;
      total += (double) d->htod_ns;
    }
  side->has_overlap = total > 0;
  side->overlap_fraction = total > 0 ? hidden / total : 0;
  side->step_source = "none";
  if (a->trace_summaries && a->trace_summaries->len > 0)
    side->step_source = g_array_index (a->trace_summaries, PfprofTraceSummary, 0).step_source;
}

static PfprofDiffFinding *
lookup_or_add (GHashTable *by_rule, const PfprofFinding *f)
{
  PfprofDiffFinding *d = g_hash_table_lookup (by_rule, f->rule);

  if (d == NULL)
    {
      d = g_new0 (PfprofDiffFinding, 1);
      d->rule = f->rule;
      d->severity = f->severity;
      g_hash_table_insert (by_rule, (gpointer) f->rule, d);
    }
  d->severity = MAX (d->severity, f->severity);
  return d;
}

static int
compare_findings (gconstpointer a, gconstpointer b)
{
  const PfprofDiffFinding *x = *(PfprofDiffFinding *const *) a;
  const PfprofDiffFinding *y = *(PfprofDiffFinding *const *) b;

  if (x->status != y->status)
    return (int) x->status - (int) y->status;
  return strcmp (x->rule, y->rule);
}

/* The lengths of @a's steady steps, the set step_median_ns is over. */
static gint64 *
steady_step_lengths (const PfprofAnalysis *a, guint *n)
{
  gint64 *d = g_new (gint64, a->steps->len + 1);

  *n = 0;
  for (guint i = 0; i < a->steps->len; i++)
    {
      const PfprofStep *s = &g_array_index (a->steps, PfprofStep, i);

      if (pfprof_step_is_steady (s))
        d[(*n)++] = pfprof_step_length (s);
    }
  return d;
}

static void
changes_init (PfprofDiff *diff, const PfprofAnalysis *before, const PfprofAnalysis *after)
{
  guint nb, na;
  g_autofree gint64 *b = steady_step_lengths (before, &nb);
  g_autofree gint64 *a = steady_step_lengths (after, &na);

  for (guint i = 0; i < PFPROF_DIFF_N_STATISTICS; i++)
    diff->has_change[i] = pfprof_bootstrap_change (b, nb, a, na, (PfprofStatistic) i,
                                                   &diff->change[i]);
}

PfprofDiff *
pfprof_diff_new (const PfprofAnalysis *before, const PfprofAnalysis *after)
{
  g_return_val_if_fail (before != NULL, NULL);
  g_return_val_if_fail (after != NULL, NULL);

  PfprofDiff *diff = g_new0 (PfprofDiff, 1);
  g_autoptr (GHashTable) by_rule = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter it;
  gpointer value;

  g_return_val_if_fail (before != NULL && after != NULL, NULL);
  side_init (&diff->before, before);
  side_init (&diff->after, after);
  changes_init (diff, before, after);
  diff->findings = g_ptr_array_new_with_free_func (diff_finding_free);

  for (guint i = 0; i < before->findings->len; i++)
    {
      const PfprofFinding *f = g_ptr_array_index (before->findings, i);
      PfprofDiffFinding *d = lookup_or_add (by_rule, f);

      if (d->title == NULL)
        d->title = g_strdup (f->title);
      d->count_before += f->count;
      d->time_before_ns += f->time_ns;
      d->savings_before_ns += f->est_savings_ns;
    }
  for (guint i = 0; i < after->findings->len; i++)
    {
      const PfprofFinding *f = g_ptr_array_index (after->findings, i);
      PfprofDiffFinding *d = lookup_or_add (by_rule, f);

      /* The title describes the side where it still fires. */
      if (d->count_after == 0 && d->time_after_ns == 0 && d->savings_after_ns == 0)
        {
          g_free (d->title);
          d->title = g_strdup (f->title);
        }
      d->count_after += f->count;
      d->time_after_ns += f->time_ns;
      d->savings_after_ns += f->est_savings_ns;
    }

  g_hash_table_iter_init (&it, by_rule);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      PfprofDiffFinding *d = value;
      gboolean in_before, in_after;
      GPtrArray *of;

      /* findings_of returns a new array each time. */
      of = pfprof_analysis_findings_of (before, d->rule);
      in_before = of->len > 0;
      g_ptr_array_unref (of);
      of = pfprof_analysis_findings_of (after, d->rule);
      in_after = of->len > 0;
      g_ptr_array_unref (of);
      d->status = in_before && in_after ? PFPROF_DIFF_UNCHANGED
                  : in_before          ? PFPROF_DIFF_RESOLVED
                                       : PFPROF_DIFF_NEW;
      g_ptr_array_add (diff->findings, d);
    }
  g_ptr_array_sort (diff->findings, compare_findings);
  return diff;
}

void
pfprof_diff_free (PfprofDiff *diff)
{
  if (diff == NULL)
    return;
  g_ptr_array_unref (diff->findings);
  g_free (diff);
}

gboolean
pfprof_diff_step_change_pct (const PfprofDiff *diff, double *pct)
{
  g_return_val_if_fail (diff != NULL, FALSE);
  g_return_val_if_fail (pct != NULL, FALSE);

  gint64 b = diff->before.median.end_ns;
  gint64 a = diff->after.median.end_ns;

  if (b <= 0 || a <= 0 || diff->before.n_steady_steps == 0 || diff->after.n_steady_steps == 0)
    return FALSE;
  *pct = ((double) a - (double) b) / (double) b * 100.0;
  return TRUE;
}

guint
pfprof_diff_count (const PfprofDiff *diff, PfprofDiffStatus status)
{
  guint n = 0;

  g_return_val_if_fail (diff != NULL, 0);

  for (guint i = 0; i < diff->findings->len; i++)
    if (((PfprofDiffFinding *) g_ptr_array_index (diff->findings, i))->status == status)
      n++;
  return n;
}

static void
judge_one (const PfprofDiff *diff, PfprofStatistic stat, double limit,
           gboolean *failed, gboolean *noise)
{
  const PfprofChange *c = &diff->change[stat];

  double pct;

  *failed = *noise = FALSE;
  if (!diff->has_change[stat])
    {
      /* Results merged from JSON carry each side's median, not its steps:
       * the point estimate is all there is to judge. */
      if (stat == PFPROF_STATISTIC_MEDIAN && pfprof_diff_step_change_pct (diff, &pct))
        *failed = pct > limit;
      return;
    }
  if (c->change_pct <= limit)
    return;
  if (c->low_pct > 0)
    *failed = TRUE;
  else
    *noise = TRUE;
}

void
pfprof_diff_gate_judge (const PfprofDiff *diff, PfprofDiffGate *gate)
{
  g_return_if_fail (diff != NULL && gate != NULL);
  gate->has_gate = gate->has_slower || gate->has_p90_slower;
  gate->failed_median = gate->noise_median = FALSE;
  gate->failed_p90 = gate->noise_p90 = FALSE;
  if (gate->has_slower)
    judge_one (diff, PFPROF_STATISTIC_MEDIAN, gate->max_slower_pct,
               &gate->failed_median, &gate->noise_median);
  if (gate->has_p90_slower)
    judge_one (diff, PFPROF_STATISTIC_P90, gate->max_p90_slower_pct,
               &gate->failed_p90, &gate->noise_p90);
  gate->failed = gate->failed_median || gate->failed_p90;
}
