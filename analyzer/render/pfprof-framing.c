/* SPDX-License-Identifier: MIT */
/* pfprof-framing.c: the steady-state view (pfprof-framing.h). */
#include "pfprof-framing.h"

gboolean
pfprof_framing_steady (const PfprofAnalysis *analysis, gint64 *t0, gint64 *t1)
{
  gint64 lo = G_MAXINT64, hi = G_MININT64, pad;

  g_return_val_if_fail (t0 != NULL && t1 != NULL, FALSE);
  if (analysis == NULL || analysis->trace_summaries == NULL)
    return FALSE;
  for (guint i = 0; i < analysis->trace_summaries->len; i++)
    {
      const PfprofTraceSummary *ts = &g_array_index (analysis->trace_summaries, PfprofTraceSummary, i);

      if (ts->n_steps <= ts->n_warmup_steps || ts->steady_end_ns <= ts->steady_start_ns)
        continue;
      lo = MIN (lo, ts->steady_start_ns);
      hi = MAX (hi, ts->steady_end_ns);
    }
  if (hi <= lo)
    return FALSE;
  pad = MAX ((hi - lo) / 100, 1);
  *t0 = lo - pad;
  *t1 = hi + pad;
  return TRUE;
}
