/* SPDX-License-Identifier: MIT */
/* pfprof-diff.h: two analyses compared, "before" and "after" a change.
 *
 * `pfprof diff` analyzes each side (one trace, or the rank traces of one
 * run) and compares: the median step and its breakdown (data wait, copy
 * exposed and hidden, compute, sync wait, GPU idle) side by side with the
 * deltas, the HtoD copy/compute overlap fraction, the GPU idle fraction,
 * and the findings matched by rule id: resolved (only before), new (only
 * after) and unchanged (both sides, with their counts and times). The
 * steps of the two runs are compared as distributions too: the change of
 * their mean, median and 90th percentile, each with a 95% bootstrap
 * interval (pfprof-bootstrap.h), so that a gate fires on a slowdown
 * beyond the noise of the steps and not on the noise. The JSON layout is
 * "pfprof-diff/1" (docs/interop.md).
 */
#pragma once

#include <glib.h>

#include "pfprof-analysis.h"
#include "pfprof-bootstrap.h"

G_BEGIN_DECLS

#define PFPROF_DIFF_JSON_FORMAT "pfprof-diff/1"

typedef enum
{
  PFPROF_DIFF_RESOLVED,  /* fired before, not after */
  PFPROF_DIFF_NEW,       /* fired after, not before */
  PFPROF_DIFF_UNCHANGED, /* fired on both sides */
} PfprofDiffStatus;

/* "resolved", "new", "unchanged". */
const char *pfprof_diff_status_to_string (PfprofDiffStatus status);

/* One rule's findings on both sides (all its findings of a side summed). */
typedef struct
{
  const char *rule;       /* static rule id */
  PfprofDiffStatus status;
  PfprofSeverity severity; /* the higher of the two sides */
  char *title;            /* after's title when it fired after, else before's; untrusted parts */
  guint64 count_before, count_after;
  gint64 time_before_ns, time_after_ns;
  gint64 savings_before_ns, savings_after_ns; /* estimated per step */
} PfprofDiffFinding;

/* One side's figures. */
typedef struct
{
  const PfprofAnalysis *analysis; /* borrowed */
  PfprofStep median;      /* pfprof_report_median_step(); end_ns = median step */
  guint n_steps;
  guint n_steady_steps;
  gboolean has_overlap;   /* any HtoD copy in the steady state */
  double overlap_fraction; /* HtoD copy time hidden by kernels, 0..1 */
  double idle_fraction;   /* largest GPU idle share of a steady window */
  const char *step_source; /* of the first trace: "nvtx", "periodic", ... */
} PfprofDiffSide;

#define PFPROF_DIFF_N_STATISTICS 3

typedef struct
{
  PfprofDiffSide before;
  PfprofDiffSide after;
  GPtrArray *findings;    /* PfprofDiffFinding*: resolved, new, unchanged; by rule id within */
  /* The steady steps' mean, median and p90, before and after, indexed by
   * PfprofStatistic; has_change[i] FALSE when a side has no steady step. */
  PfprofChange change[PFPROF_DIFF_N_STATISTICS];
  gboolean has_change[PFPROF_DIFF_N_STATISTICS];
} PfprofDiff;

/* Compares @before and @after, which must outlive the result. */
PfprofDiff *pfprof_diff_new (const PfprofAnalysis *before, const PfprofAnalysis *after);

void pfprof_diff_free (PfprofDiff *diff);

/* Relative change of the median step in percent ((after - before) /
 * before * 100; positive = slower). FALSE when a side has no steps. */
gboolean pfprof_diff_step_change_pct (const PfprofDiff *diff, double *pct);

/* Number of findings of @status. */
guint pfprof_diff_count (const PfprofDiff *diff, PfprofDiffStatus status);

/* The gate given to the renderers: has_gate FALSE when none. A gate on a
 * statistic fails when its change is over the limit and its interval's
 * low end is above zero: the steps got slower by more than allowed, and
 * by more than their noise. */
typedef struct
{
  gboolean has_gate;
  gboolean has_slower;    /* --fail-if-slower: the median step */
  double max_slower_pct;
  gboolean has_p90_slower; /* --fail-if-p90-slower: the slow tail */
  double max_p90_slower_pct;
  gboolean failed;        /* either fired */
  gboolean failed_median, failed_p90;
  gboolean noise_median, noise_p90; /* over the limit, but within the noise */
} PfprofDiffGate;

/* Judges @gate's limits (has_slower, max_slower_pct, has_p90_slower,
 * max_p90_slower_pct, set by the caller) against @diff, and sets the rest. */
void pfprof_diff_gate_judge (const PfprofDiff *diff, PfprofDiffGate *gate);

/* Renderers (pfprof-diff-output.c). Untrusted text (paths, titles) is
 * escaped for each format. A NULL @gate is no gate. */
void pfprof_diff_output_text (const PfprofDiff *diff, const PfprofDiffGate *gate /* nullable */,
                              gboolean color, GString *out);
void pfprof_diff_output_json (const PfprofDiff *diff, const PfprofDiffGate *gate /* nullable */,
                              GString *out);
void pfprof_diff_output_markdown (const PfprofDiff *diff,
                                  const PfprofDiffGate *gate /* nullable */, GString *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PfprofDiff, pfprof_diff_free)

G_END_DECLS
