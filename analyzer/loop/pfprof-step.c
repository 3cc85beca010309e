/* SPDX-License-Identifier: MIT */
/* pfprof-step.c: one step of the training loop. */

#include "pfprof-step.h"

#include "pfprof-quantile.h"

const char *
pfprof_phase_to_string (PfprofPhase phase)
{
  return phase == PFPROF_PHASE_EVAL ? "evaluation" : "training";
}

gint64
pfprof_step_median (gint64 *lengths, guint n)
{
  g_return_val_if_fail (lengths != NULL || n == 0, 0);

  pfprof_quantile_sort_i64 (lengths, n);
  return pfprof_quantile_sorted_i64 (lengths, n, 0.5);
}
