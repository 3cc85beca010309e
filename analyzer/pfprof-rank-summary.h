/* pfprof-rank-summary.h: per-rank steady-state figures of a multi-rank run.
 *
 * When `pfprof report` is given the traces of several ranks of one run
 * (PfprofTrace.rank >= 0), the rank-imbalance rule and the per-rank table
 * of the reports compare the same figures; they are computed here, from
 * PfprofAnalysis.steps and .traces only, so the rule can use them while
 * the analysis is still running (before trace_summaries is complete).
 */
#pragma once

#include <glib.h>

#include "pfprof-analysis.h"

G_BEGIN_DECLS

typedef struct
{
  guint trace_index;       /* into PfprofAnalysis.traces; for a merged result, into
                            * PfprofAnalysis.ranks (there are no traces) */
  gint64 rank;             /* meta "rank" */
  const char *host;        /* meta "host", NULL if absent; untrusted, borrowed */
  const char *path;        /* the trace (or the JSON result) it came from; borrowed */
  gint64 pid;
  guint n_steady_steps;    /* steps after warm-up */
  gint64 step_median_ns;   /* median steady step length, 0 without steps */
  gint64 data_wait_ns;     /* per steady step (mean): host waited for the DataLoader */
  gint64 copy_exposed_ns;  /* per steady step (mean): HtoD copy with no kernel beside it */
  gint64 idle_ns;          /* per steady step (mean): GPU neither computing nor copying */
  guint n_findings;        /* findings whose trace is this one */
  gint64 steady_start_ns;  /* first steady step's start, 0 without steps */
  gint64 steady_end_ns;    /* last steady step's end */
} PfprofRankSummary;

/* The figures of trace @trace_index of @analysis into *@summary (any
 * trace, ranked or not; the per-rank table and the JSON traces[] use
 * them). */
void pfprof_rank_summary_of_trace (const PfprofAnalysis *analysis, guint trace_index,
                                   PfprofRankSummary *summary);

/* The summaries to show for @analysis: PfprofAnalysis.ranks when it was
 * merged from results (pfprof-report-merge.h), else collected from its
 * traces as below. Free with g_array_unref. */
GArray *pfprof_rank_summary_get (const PfprofAnalysis *analysis);

/* One PfprofRankSummary per trace of @analysis with a rank (rank >= 0),
 * by rank, then trace index. Empty when fewer than two traces have a
 * rank, or when two of them have the same rank: a single process, or
 * traces of several runs, is no multi-rank run. n_findings counts the
 * findings already in the analysis. Free with g_array_unref. */
GArray *pfprof_rank_summary_collect (const PfprofAnalysis *analysis);

/* Input-pipeline cost per step of @summary: data wait + exposed copy. */
gint64 pfprof_rank_summary_input_ns (const PfprofRankSummary *summary);

G_END_DECLS
