/* SPDX-License-Identifier: MIT */
/* pfprof-rule-rank-imbalance.c: one rank's input pipeline is slower than
 * the others'.
 *
 * In data-parallel training every rank waits for the slowest at each
 * gradient all-reduce, so a rank whose DataLoader or copies take longer
 * per step slows the whole job, even when each trace on its own looks
 * only mildly input-bound. The rule compares, across the ranked traces
 * given together (PfprofTrace.rank >= 0), each rank's input-pipeline cost
 * per steady step (DataLoader wait + exposed HtoD copy, the figures of
 * pfprof-rank-summary.h) with the median of the other ranks.
 *
 * A run-scoped rule: called once, when every trace's steps are in the
 * analysis, over pfprof_rank_summary_get(), so that per-rank JSON results
 * merged by pfprof-report-merge.c (PfprofAnalysis.ranks) are judged by the
 * same function as traces given together.
 */
#include "pfprof-rules.h"

#include "pfprof-format.h"
#include "pfprof-lower-bound.h"
#include "pfprof-quantile.h"
#include "pfprof-rank-summary.h"

static const PfprofRuleParam params[] = {
  { "min-excess-share", 0.20, "fire when a rank's data wait + exposed copy per step exceeds the other ranks' median by at least this fraction" },
  { "min-excess-ms", 1.0, "and by at least this many milliseconds per step" },
};

static const char fix[] =
  "Every rank waits for the slowest at each all-reduce: make this rank's input\n"
  "pipeline as fast as the others'. On its host check:\n"
  "\n"
  "- the DataLoader workers: same num_workers on every rank, and enough CPU\n"
  "  cores for them (nproc on that node / GPUs per node), not shared with\n"
  "  other jobs;\n"
  "- CPU affinity: keep each rank and its workers on the cores near its GPU\n"
  "  (`numactl --cpunodebind=NODE --membind=NODE python train.py`, or\n"
  "  os.sched_setaffinity in worker_init_fn), not all ranks on one socket;\n"
  "- storage and data locality: is this node reading over the network (NFS,\n"
  "  object store) or from a slower disk? Stage the shards to local disk or\n"
  "  page cache first;\n"
  "- worker restarts each epoch:\n"
  "\n"
  "    loader = DataLoader(dataset, batch_size=B, sampler=DistributedSampler(dataset),\n"
  "                        num_workers=8, persistent_workers=True,\n"
  "                        prefetch_factor=4, pin_memory=True)\n";

/* Element @k of @sorted (@n values) with element @skip left out. */
static gint64
without (const gint64 *sorted, guint skip, guint k)
{
  return sorted[k < skip ? k : k + 1];
}

static void
run (PfprofRuleContext *ctx)
{
  g_autoptr (GArray) ranks = pfprof_rank_summary_get (ctx->analysis);
  g_autofree gint64 *sorted = g_new (gint64, ranks->len + 1);
  double min_share;
  gint64 min_ns;
  guint n_with = 0;

  min_share = pfprof_rule_param (ctx, "min-excess-share");
  min_ns = (gint64) (pfprof_rule_param (ctx, "min-excess-ms") * 1e6);
  /* Every rank's input cost sorted once; the other ranks' median is then
   * read off it with the rank's own value left out (a median per rank
   * over the others made 10,000 ranks take seconds). */
  for (guint j = 0; j < ranks->len; j++)
    {
      const PfprofRankSummary *o = &g_array_index (ranks, PfprofRankSummary, j);

      if (o->n_steady_steps > 0)
        sorted[n_with++] = pfprof_rank_summary_input_ns (o);
    }
  pfprof_quantile_sort_i64 (sorted, n_with);
  for (guint i = 0; i < ranks->len; i++)
    {
      const PfprofRankSummary *s = &g_array_index (ranks, PfprofRankSummary, i);
      gint64 mine = pfprof_rank_summary_input_ns (s);
      gint64 median, excess, lo, hi;
      guint n = n_with - 1, skip, lo_i = 0, hi_i = n_with;
      PfprofFinding *f;

      if (s->n_steady_steps == 0)
        continue; /* nothing per step to compare */
      if (n == 0)
        continue;
      /* Where @mine sits in sorted (any of equal values will do). */
      skip = pfprof_lower_bound_i64 (sorted, lo_i, hi_i, mine);
      if (n % 2)
        median = without (sorted, skip, n / 2);
      else
        {
          lo = without (sorted, skip, n / 2 - 1);
          hi = without (sorted, skip, n / 2);
          median = lo + (hi - lo) / 2;
        }
      excess = mine - median;
      if (excess < min_ns || (double) excess < min_share * (double) median)
        continue;

      f = pfprof_rule_finding_new (ctx);
      f->pid = s->pid;
      f->trace_index = s->trace_index;
      f->count = s->n_steady_steps;
      f->time_ns = excess * (gint64) s->n_steady_steps;
      f->est_savings_ns = excess;
      f->first_ns = s->steady_start_ns;
      f->last_ns = s->steady_end_ns;
      {
        g_autofree char *s_mine = pfprof_format_ns (mine);
        g_autofree char *s_med = pfprof_format_ns (median);
        g_autofree char *s_ex = pfprof_format_ns (excess);
        g_autofree char *s_dw = pfprof_format_ns (s->data_wait_ns);
        g_autofree char *s_ce = pfprof_format_ns (s->copy_exposed_ns);
        g_autofree char *s_step = pfprof_format_ns (s->step_median_ns);
        /* "260 times" reads better than "26039% more" once the other
         * ranks hardly wait at all. */
        double ratio = median > 0 ? (double) mine / (double) median : 0;
        g_autofree char *s_num = pfprof_format_double (
          ratio >= 10 ? ratio : median > 0 ? 100.0 * (double) excess / (double) median : 100.0, 0);
        g_autofree char *s_pct = g_strdup_printf (ratio >= 10 ? "%s times" : "%s%% more than", s_num);
        const char *host = s->host != NULL ? s->host : "unknown host";
        g_autofree char *s_others = n == 1 ? g_strdup ("rank") : g_strdup_printf ("%u ranks", n);

        f->title = g_strdup_printf ("Rank %" G_GINT64_FORMAT " is input-bound: its input pipeline takes %s "
                                    "more per step than the other ranks'",
                                    s->rank, s_ex);
        f->message = g_strdup_printf (
          "Rank %" G_GINT64_FORMAT " (host %s, pid %" G_GINT64_FORMAT ", %s) spent %s per step "
          "waiting for the DataLoader and on exposed host-to-device copies (data wait %s, exposed "
          "copy %s; median step %s), %s the median %s of the other %s. In "
          "data-parallel training every rank waits for the slowest, so the whole job loses about "
          "%s per step.",
          s->rank, host, s->pid, s->path != NULL ? s->path : "trace", s_mine, s_dw, s_ce, s_step,
          s_pct, s_med, s_others, s_ex);
      }
      f->fix = g_strdup (fix);
      pfprof_rule_emit (ctx, f);
    }
}

const PfprofRule pfprof_rule_rank_imbalance = {
  "rank-imbalance",
  PFPROF_SEVERITY_WARNING,
  "One rank's input pipeline (data wait + exposed copy per step) is slower than the other ranks'",
  params,
  G_N_ELEMENTS (params),
  run,
  PFPROF_RULE_SCOPE_RUN,
};
