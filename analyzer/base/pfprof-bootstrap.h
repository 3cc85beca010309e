/* SPDX-License-Identifier: MIT */
/* pfprof-bootstrap.h: how sure a change between two runs' steps is.
 *
 * `pfprof diff` compares the steps of two runs by a statistic (mean,
 * median, 90th percentile) and gates CI on it. A difference of a few
 * percent can be noise: steps vary, and a run of 30 steps has a mean
 * that moves by more than that between two runs of the same program.
 * The percentile bootstrap says how far: each round resamples both sets
 * of steps with replacement, and the middle 95% of the rounds' relative
 * changes is the interval. It assumes nothing about the steps'
 * distribution (they are skewed and often bimodal), works for the median
 * and p90 alike, and with a fixed seed gives the same interval for the
 * same traces every time, so a CI gate does not flicker.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  PFPROF_STATISTIC_MEAN,
  PFPROF_STATISTIC_MEDIAN,
  PFPROF_STATISTIC_P90,
} PfprofStatistic;

/* "mean", "median", "p90". */
const char *pfprof_statistic_to_string (PfprofStatistic stat);

/* One statistic of both sides and its relative change. */
typedef struct
{
  PfprofStatistic stat;
  gint64 before_ns, after_ns;    /* of the samples themselves */
  double change_pct;             /* (after - before) / before * 100; + = slower */
  double low_pct, high_pct;      /* its 95% bootstrap interval */
  guint rounds;                  /* resampling rounds the interval is from */
} PfprofChange;

/* The change of @stat from @before (@n_before values) to @after, with its
 * interval. The values need not be sorted; they are not changed. FALSE,
 * and @out zeroed, when a side is empty or a statistic of @before is not
 * positive. Deterministic: the same samples give the same interval. The
 * work is bounded (fewer rounds for very many steps, never fewer than 200). */
gboolean pfprof_bootstrap_change (const gint64 *before, guint n_before,
                                  const gint64 *after, guint n_after,
                                  PfprofStatistic stat, PfprofChange *out);

G_END_DECLS
