/* pfprof-rank-summary.c: per-rank steady-state figures of a multi-rank run. */
#include "pfprof-rank-summary.h"

#include "pfprof-steps.h"

static int
compare_rank (gconstpointer pa, gconstpointer pb)
{
  const PfprofRankSummary *x = pa, *y = pb;

  if (x->rank != y->rank)
    return (x->rank > y->rank) - (x->rank < y->rank);
  return (x->trace_index > y->trace_index) - (x->trace_index < y->trace_index);
}

gint64
pfprof_rank_summary_input_ns (const PfprofRankSummary *s)
{
  return s->data_wait_ns + s->copy_exposed_ns;
}

void
pfprof_rank_summary_of_trace (const PfprofAnalysis *a, guint i, PfprofRankSummary *out)
{
  const PfprofTrace *t = g_ptr_array_index (a->traces, i);
  PfprofRankSummary s = { 0 };
  g_autofree gint64 *len = g_new (gint64, a->steps->len + 1);
  gint64 dw = 0, ce = 0, idle = 0;
  guint n = 0;

  for (guint k = 0; k < a->steps->len; k++)
    {
      const PfprofStep *st = &g_array_index (a->steps, PfprofStep, k);

      if (st->trace_index != i || st->warmup)
        continue;
      if (n == 0 || st->start_ns < s.steady_start_ns)
        s.steady_start_ns = st->start_ns;
      s.steady_end_ns = MAX (s.steady_end_ns, st->end_ns);
      len[n++] = st->end_ns - st->start_ns;
      dw += st->data_wait_ns;
      ce += st->copy_exposed_ns;
      idle += st->idle_ns;
    }
  s.trace_index = i;
  s.rank = t->rank;
  s.host = pfprof_trace_meta (t, "host");
  s.path = t->path;
  s.pid = t->pid;
  s.n_steady_steps = n;
  s.step_median_ns = n > 0 ? pfprof_median_i64 (len, n) : 0;
  s.data_wait_ns = n > 0 ? dw / n : 0;
  s.copy_exposed_ns = n > 0 ? ce / n : 0;
  s.idle_ns = n > 0 ? idle / n : 0;
  for (guint k = 0; k < a->findings->len; k++)
    if (((const PfprofFinding *) g_ptr_array_index (a->findings, k))->trace_index == i)
      s.n_findings++;
  *out = s;
}

GArray *
pfprof_rank_summary_get (const PfprofAnalysis *a)
{
  if (a->ranks != NULL)
    return g_array_ref (a->ranks);
  return pfprof_rank_summary_collect (a);
}

GArray *
pfprof_rank_summary_collect (const PfprofAnalysis *a)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (PfprofRankSummary));
  guint n_ranked = 0;

  for (guint i = 0; i < a->traces->len; i++)
    if (((const PfprofTrace *) g_ptr_array_index (a->traces, i))->rank >= 0)
      n_ranked++;
  if (n_ranked < 2)
    return out;

  for (guint i = 0; i < a->traces->len; i++)
    {
      PfprofRankSummary s;

      if (((const PfprofTrace *) g_ptr_array_index (a->traces, i))->rank < 0)
        continue;
      pfprof_rank_summary_of_trace (a, i, &s);
      g_array_append_val (out, s);
    }
  g_array_sort (out, compare_rank);
  /* Two traces of one rank are two runs (or a restart), not one run's
   * ranks: comparing them as ranks would mislead. */
  for (guint i = 1; i < out->len; i++)
    if (g_array_index (out, PfprofRankSummary, i).rank == g_array_index (out, PfprofRankSummary, i - 1).rank)
      {
        g_array_set_size (out, 0);
        break;
      }
  return out;
}
