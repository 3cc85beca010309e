/* SPDX-License-Identifier: MIT */
/* pfprof-rank-summary.h: per-rank steady-state figures of a multi-rank run.
 *
 * When `pfprof report` is given the traces of several ranks of one run
 * (PfprofTrace.rank >= 0), the rank-imbalance rule and the per-rank table
 * of the reports compare the same figures; they are computed here, from
 * PfprofAnalysis.steps and .traces (a run-scoped rule reads them once
 * every trace is in), or taken from PfprofAnalysis.ranks for an analysis
 * merged from per-rank results.
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
  const char *command_line; /* meta "command_line", NULL if absent; untrusted, borrowed */
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

/* The rows a per-rank table shows.
 *
 * With a thousand ranks a row per rank buries the answer: past
 * PFPROF_RANK_SUMMARY_TABLE_MAX ranks the text and Markdown reports show
 * the ranks that matter and sum up the rest in one line (JSON and JUnit
 * keep every rank; `pfprof report --all-ranks` shows every row). Both
 * tables take their rows from pfprof_rank_summary_select(), so they show
 * the same ranks. */

/* Tables of at most this many ranks show every rank. */
#define PFPROF_RANK_SUMMARY_TABLE_MAX 16

/* Why a row is shown (or'ed). */
typedef enum
{
  PFPROF_RANK_SUMMARY_SHOWN_IMBALANCE = 1 << 0,  /* a rank-imbalance finding names it */
  PFPROF_RANK_SUMMARY_SHOWN_SLOW_INPUT = 1 << 1, /* among the highest data wait + exposed copy */
  PFPROF_RANK_SUMMARY_SHOWN_SLOW_STEP = 1 << 2,  /* among the longest median steps */
  PFPROF_RANK_SUMMARY_SHOWN_FAST_STEP = 1 << 3,  /* among the shortest median steps */
  PFPROF_RANK_SUMMARY_SHOWN_TYPICAL = 1 << 4,    /* the median rank by median step */
  PFPROF_RANK_SUMMARY_SHOWN_NO_STEPS = 1 << 5,   /* no steady step (of the first few) */
} PfprofRankSummaryShown;

typedef struct
{
  guint index;   /* into the summaries given */
  guint shown;   /* PfprofRankSummaryShown flags; 0 when every rank is shown */
} PfprofRankSummaryRow;

typedef struct
{
  GArray *rows;                    /* PfprofRankSummaryRow, in the summaries' order (by rank) */
  guint n_hidden;                  /* ranks left out; 0 when every rank is shown */
  guint n_hidden_no_steps;         /* of those, ranks without steady steps */
  gint64 hidden_step_median_ns;    /* of the hidden ranks with steps: median of their median step */
  gint64 hidden_step_min_ns;       /* shortest and longest median step */
  gint64 hidden_step_max_ns;
  gint64 hidden_data_wait_min_ns;  /* least and most data wait per step */
  gint64 hidden_data_wait_max_ns;
} PfprofRankSummarySelection;

/* Picks the rows of the per-rank table of @ranks (from
 * pfprof_rank_summary_get (@analysis)). Every rank when @all or when
 * there are at most PFPROF_RANK_SUMMARY_TABLE_MAX; else every rank a
 * rank-imbalance finding of @analysis names, the 5 with the highest
 * input-pipeline cost (pfprof_rank_summary_input_ns) and the 5 with the
 * longest median step, the 2 with the shortest, the median one, up to 3
 * without steady steps, and figures of the others for one summary line.
 * Free with pfprof_rank_summary_selection_free. */
PfprofRankSummarySelection *pfprof_rank_summary_select (const PfprofAnalysis *analysis,
                                                        const GArray *ranks, gboolean all);

void pfprof_rank_summary_selection_free (PfprofRankSummarySelection *selection);

/* Why row @shown was picked, in words ("rank-imbalance, slowest input"),
 * or "" for 0. Plain ASCII; free with g_free. */
char *pfprof_rank_summary_shown_describe (guint shown);

/* The summary line of the hidden ranks, without mark-up ("988 more ranks:
 * median step 15.2 ms (15.0 ms to 15.4 ms), data wait 150 µs to 210 µs
 * per step; --all-ranks shows every rank"), or NULL when none is hidden.
 * No untrusted text. Free with g_free. */
char *pfprof_rank_summary_selection_describe_hidden (const PfprofRankSummarySelection *selection);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PfprofRankSummarySelection, pfprof_rank_summary_selection_free)

G_END_DECLS
