/* SPDX-License-Identifier: MIT */
/* pfprof-bootstrap.c: the percentile bootstrap of a change (see the header). */
#include "pfprof-bootstrap.h"

#include <stdlib.h>
#include <string.h>

#include "pfprof-quantile.h"

/* A 95% interval from fewer rounds than this is itself too noisy. */
#define MIN_ROUNDS 200
#define MAX_ROUNDS 1000
/* Values drawn in all, both sides and every round: about 0.1 s here. */
#define WORK_LIMIT 40000000u

const char *
pfprof_statistic_to_string (PfprofStatistic stat)
{
  switch (stat)
    {
    case PFPROF_STATISTIC_MEAN: return "mean";
    case PFPROF_STATISTIC_MEDIAN: return "median";
    case PFPROF_STATISTIC_P90:
    default: return "p90";
    }
}

/* The statistic of a resample given as how many times each of @n sorted
 * values was drawn (@counts sums to @n). Quantiles as pfprof-quantile's:
 * the median of an even count is the mean of the middle two rounded
 * down, p90 the nearest rank. */
static double
stat_of_counts (const gint64 *sorted, const guint32 *counts, guint n, PfprofStatistic stat)
{
  if (stat == PFPROF_STATISTIC_MEAN)
    {
      double sum = 0;

      for (guint i = 0; i < n; i++)
        sum += (double) counts[i] * (double) sorted[i];
      return sum / n;
    }
  if (stat == PFPROF_STATISTIC_MEDIAN)
    {
      /* 0-based ranks of the middle value(s). */
      guint64 lo = (n - 1) / 2, hi = n / 2, seen = 0;
      gint64 vlo = 0;
      gboolean have_lo = FALSE;

      for (guint i = 0; i < n; i++)
        {
          seen += counts[i];
          if (!have_lo && seen > lo)
            {
              vlo = sorted[i];
              have_lo = TRUE;
            }
          if (seen > hi)
            return (double) vlo + (double) ((sorted[i] - vlo) / 2);
        }
      return (double) sorted[n - 1];
    }
  else
    {
      /* Nearest rank: the smallest value with at least 90% at or below. */
      guint64 need = ((guint64) n * 9 + 9) / 10, seen = 0;

      if (need == 0)
        need = 1;
      for (guint i = 0; i < n; i++)
        {
          seen += counts[i];
          if (seen >= need)
            return (double) sorted[i];
        }
      return (double) sorted[n - 1];
    }
}

static gint64
stat_of_sorted (const gint64 *sorted, guint n, PfprofStatistic stat)
{
  if (stat == PFPROF_STATISTIC_MEAN)
    {
      double sum = 0;

      for (guint i = 0; i < n; i++)
        sum += (double) sorted[i];
      return (gint64) (sum / n + 0.5);
    }
  /* The nearest-rank median, as the reports' median step
   * (pfprof_step_median): the statistic the verdict gives is the one the
   * reports show. */
  if (stat == PFPROF_STATISTIC_MEDIAN)
    return pfprof_quantile_sorted_i64 (sorted, n, 0.5);
  return pfprof_quantile_sorted_i64 (sorted, n, 0.9);
}

/* splitmix64: a few instructions a draw, where GRand's Mersenne twister
 * and its range reduction cost ten times more; the resampling draws
 * hundreds of thousands of indices, and quality beyond uniformity does
 * not matter to a bootstrap. */
static guint64
next_random (guint64 *state)
{
  guint64 z = (*state += 0x9e3779b97f4a7c15ull);

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void
resample (guint64 *state, guint n, guint32 *counts)
{
  memset (counts, 0, n * sizeof *counts);
  for (guint i = 0; i < n; i++)
    /* Lemire's multiply-shift: an index in [0, n) from the top 32 bits. */
    counts[(guint32) (((next_random (state) >> 32) * (guint64) n) >> 32)]++;
}

static int
compare_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

gboolean
pfprof_bootstrap_change (const gint64 *before, guint n_before,
                         const gint64 *after, guint n_after,
                         PfprofStatistic stat, PfprofChange *out)
{
  g_autofree gint64 *b = NULL, *a = NULL;
  g_autofree guint32 *cb = NULL, *ca = NULL;
  g_autofree double *changes = NULL;
  guint64 state;
  guint rounds, kept = 0;
  guint64 per_round;

  g_return_val_if_fail (n_before == 0 || before != NULL, FALSE);
  g_return_val_if_fail (n_after == 0 || after != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);
  memset (out, 0, sizeof *out);
  out->stat = stat;
  g_return_val_if_fail (before != NULL || n_before == 0, FALSE);
  g_return_val_if_fail (after != NULL || n_after == 0, FALSE);
  if (n_before == 0 || n_after == 0 || n_before > G_MAXINT32 || n_after > G_MAXINT32)
    return FALSE;

  b = g_memdup2 (before, (gsize) n_before * sizeof *b);
  a = g_memdup2 (after, (gsize) n_after * sizeof *a);
  pfprof_quantile_sort_i64 (b, n_before);
  pfprof_quantile_sort_i64 (a, n_after);
  out->before_ns = stat_of_sorted (b, n_before, stat);
  out->after_ns = stat_of_sorted (a, n_after, stat);
  if (out->before_ns <= 0)
    {
      memset (out, 0, sizeof *out);
      out->stat = stat;
      return FALSE;
    }
  out->change_pct = ((double) out->after_ns - (double) out->before_ns) / (double) out->before_ns * 100.0;

  per_round = (guint64) n_before + n_after;
  rounds = (guint) CLAMP (WORK_LIMIT / per_round, MIN_ROUNDS, MAX_ROUNDS);
  cb = g_new (guint32, n_before);
  ca = g_new (guint32, n_after);
  changes = g_new (double, rounds);
  /* A fixed seed: the same traces give the same interval, run after run. */
  state = 0x70667072u;
  for (guint r = 0; r < rounds; r++)
    {
      double sb, sa;

      resample (&state, n_before, cb);
      resample (&state, n_after, ca);
      sb = stat_of_counts (b, cb, n_before, stat);
      sa = stat_of_counts (a, ca, n_after, stat);
      if (sb > 0)
        changes[kept++] = (sa - sb) / sb * 100.0;
    }
  if (kept == 0)
    {
      out->low_pct = out->high_pct = out->change_pct;
      return TRUE;
    }
  qsort (changes, kept, sizeof *changes, compare_double);
  out->low_pct = changes[(guint) ((kept - 1) * 0.025 + 0.5)];
  out->high_pct = changes[(guint) ((kept - 1) * 0.975 + 0.5)];
  out->rounds = kept;
  return TRUE;
}
