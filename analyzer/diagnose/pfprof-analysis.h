/* SPDX-License-Identifier: MIT */
/* pfprof-analysis.h: what the analyzer concludes from the traces of a run.
 *
 * pfprof_analysis_run() builds timelines, metrics, steps and findings over
 * a PfprofRun (pfprof-run.h), which it only reads and keeps a reference
 * to; the report formats, the renderer and the GUI only read the result.
 * GLib only.
 */
#pragma once

#include <glib.h>

#include "pfprof-finding.h"
#include "pfprof-input-pipeline.h"
#include "pfprof-run.h"
#include "pfprof-loop.h"
#include "pfprof-trace.h"

G_BEGIN_DECLS


/* Per-device metrics over the steady state. */
typedef struct
{
  guint trace_index;
  guint32 device_id;
  gint64 kernel_ns;
  guint64 htod_bytes;
  gint64 htod_ns;
  guint64 htod_pageable_bytes;
  gint64 htod_pageable_ns;
  guint64 htod_pinned_bytes;
  gint64 htod_pinned_ns;
  guint64 dtoh_bytes;
  gint64 dtoh_ns;
  double overlap_fraction;  /* |C ∩ K| / |C| for HtoD copies C, kernels K */
  gint64 exposed_copy_ns;   /* |C \ K| */
  gint64 idle_ns;
  gint64 sync_wait_ns;      /* host time in blocking synchronizing calls */
  gint64 data_wait_ns;      /* host time waiting for the DataLoader */
  /* The steady-state window and what it holds: */
  gint64 steady_start_ns;   /* the window the figures above cover */
  gint64 steady_end_ns;
  gint64 steady_ns;         /* its length: less than end - start when the
                             * trace was recorded in windows (its parts) */
  guint64 htod_count;       /* HtoD copies starting in the window */
  gint64 idle_data_wait_ns; /* GPU idle while the host waited for the DataLoader */
  guint32 compute_stream;   /* stream with the most kernel time */
  /* Communication, kept apart from compute: */
  gint64 comm_ns;           /* communication (NCCL) kernel busy time, not in kernel_ns */
} PfprofDeviceSummary;

/* The phases of one trace's run, where the trace shows training (the
 * hook's optimizer and backward marks, torch.profiler's optimizer
 * ranges): start-up before the first training step, the training loop
 * to the last training step's end, evaluation batches (inside the loop
 * or after it), and the rest after the loop. Times add up to the trace's
 * span. All zero but n_training_steps when has_marks is FALSE. */
typedef struct
{
  gboolean has_marks;
  PfprofLoopJudge judge;    /* the phase the steps, findings and predictions are of */
  guint n_training_steps;
  guint n_eval_steps;
  gint64 startup_ns;
  gint64 training_ns;       /* the loop, its evaluation batches left out */
  gint64 eval_ns;           /* every evaluation batch */
  gint64 eval_compute_ns;   /* kernel time in them */
  gint64 eval_data_wait_ns; /* DataLoader waits in them */
  gint64 after_loop_ns;     /* after the loop, evaluation left out */
  /* What each phase's time went to, in the step ledger's buckets
   * (pfprof-step-ledger.h): they sum to startup_ns, eval_ns and
   * after_loop_ns. */
  gint64 startup_ledger_ns[PFPROF_LEDGER_N_BUCKETS];
  gint64 eval_ledger_ns[PFPROF_LEDGER_N_BUCKETS];
  gint64 after_ledger_ns[PFPROF_LEDGER_N_BUCKETS];
} PfprofPhases;

/* How the steps of one trace were found, and its steady state. */
typedef struct
{
  guint trace_index;
  const char *step_source;  /* "nvtx", "dataloader", "periodic" or "none" */
  char *step_name;          /* NVTX range or kernel name used; untrusted; may be NULL */
  guint n_steps;            /* warm-up included */
  guint n_warmup_steps;
  gint64 step_median_ns;    /* over this trace's steady steps */
  gint64 steady_start_ns;   /* the window the rules judged */
  gint64 steady_end_ns;
  guint n_unrecorded_steps; /* steps left out: not whole inside one
                             * recording window, or the first of one */
  guint n_windows;          /* recording windows (--sample), 0: all through */
  guint n_api_ids_shared;   /* API calls whose correlation id another call
                             * of the same domain has: CUPTI gave a stale one */
  guint32 main_tid;         /* thread that launched most kernels, 0 if unknown */
  guint64 n_out_of_range;   /* events left out: times ~39 h or more from the rest */
  guint64 n_bad_sites;      /* python_sites rows left out (pfprof_call_sites_attach) */
  guint n_sources_withheld; /* files of its sites whose text the source-lines
                             * policy left unread (pfprof-source-lines.h) */
  PfprofLedgerSummary ledger; /* this trace's steady steps */
  gint64 predicted_step_ns; /* mean step with every finding about this trace fixed,
                             * overlapping savings counted once; 0 without steps */
  PfprofPhases phases;
  /* When its evaluation batches were judged on their own as well (they
   * take min-phase-share of its run or more, the training steps being
   * judged): their findings are in PfprofAnalysis.phase_findings, over
   * these batches; else eval_judged FALSE and the rest zero. */
  gboolean eval_judged;
  PfprofLedgerSummary eval_ledger; /* the evaluation batches' ledger */
  gint64 eval_predicted_ns; /* mean evaluation batch with every fix of those */
} PfprofTraceSummary;

typedef struct _PfprofAnalysisOptions PfprofAnalysisOptions;

typedef struct
{
  PfprofRun *run;         /* the run analysed (a reference); an empty run for an
                           * analysis merged from per-rank JSON results */
  GPtrArray *traces;      /* PfprofTrace*: the run's (pfprof_run_get_traces()),
                           * borrowed and read-only */
  GArray *devices;        /* PfprofDeviceSummary */
  GArray *steps;          /* PfprofStep, all traces, in time order */
  gint64 step_median_ns;  /* median step (pfprof_step_median) of the steady
                           * steps' lengths (pfprof_step_length: the GPU
                           * side), 0 if no steps */
  GPtrArray *findings;    /* PfprofFinding*, by est_savings_ns descending */
  GPtrArray *phase_findings; /* PfprofFinding*: the findings of evaluation phases
                              * judged on their own (PfprofTraceSummary.eval_judged),
                              * each per mean evaluation batch and with its phase,
                              * in the order of findings; kept apart, so that the
                              * headline, predictions and gates read findings alone.
                              * NULL or empty when none */
  /* Per trace, the rules that ran, and the spread of the steps: */
  GArray *trace_summaries; /* PfprofTraceSummary, one per trace */
  GPtrArray *rules_run;    /* const char* ids of the rules that ran, table order */
  guint n_steady_steps;    /* steps the median is over */
  gint64 step_p10_ns;      /* spread of steady steps' lengths (nearest rank) */
  gint64 step_p90_ns;
  gint64 host_step_median_ns; /* the same steps' median on the host's side: far
                               * shorter when the host runs ahead of the GPU */
  /* Only for an analysis merged from per-rank JSON results: */
  GArray *ranks;           /* PfprofRankSummary, only for an analysis merged from
                            * per-rank JSON results (pfprof-report-merge.h); NULL
                            * when analyzing traces */
  guint n_results;         /* JSON results merged; 0 when analyzing traces */
  /* The ledger of every trace's steady steps together. */
  PfprofLedgerSummary ledger;
} PfprofAnalysis;

/* Runs every enabled rule over the traces of @run: the device- and
 * trace-scoped rules once per trace, the run-scoped ones once for the run
 * (pfprof-rules.h). Reads @run only and keeps a reference to it (the
 * result's run and traces). @options may be NULL for the defaults. Never
 * fails: everything that can be wrong with options is refused by their
 * setters and the config file loader (pfprof-analysis-options.h). */
PfprofAnalysis *pfprof_analysis_run (const PfprofRun *run, const PfprofAnalysisOptions *options);

void pfprof_analysis_free (PfprofAnalysis *analysis);

/* TRUE when a finding at or above @severity fired (the CI gate). */
gboolean pfprof_analysis_fired_at (const PfprofAnalysis *analysis, PfprofSeverity severity);

/* The findings of rule @rule_id (borrowed pointers, analysis order); free
 * the array with g_ptr_array_unref. */
GPtrArray *pfprof_analysis_findings_of (const PfprofAnalysis *analysis, const char *rule_id);

/* One line describing the example event of @evidence ("cudaMemcpyAsync
 * HtoD 38.5 MiB from pageable memory on stream 7", "kernel NAME"), ending
 * in ", from train.py(57): train_step" when the trace holds the program's
 * Python frames (PFPROF_NVTX_DOMAIN_PYTHON) around the call behind it. The
 * text quotes untrusted names: escape it for the output format. */
char *pfprof_evidence_describe (const PfprofAnalysis *analysis, const PfprofEvidence *evidence);

/* The name of the example event (kernel, API call, NVTX range) of
 * @evidence as shown (pfprof-display-name.h) and as recorded, or FALSE
 * when the event has none (copies, gaps). Borrowed, untrusted text. */
gboolean pfprof_evidence_name (const PfprofAnalysis *analysis, const PfprofEvidence *evidence,
                               const char **shown, const char **raw);

/* The share of @finding's time_ns (0..1) that its example @evidence cost;
 * 0 when the finding has no time. */
double pfprof_evidence_share (const PfprofFinding *finding, const PfprofEvidence *evidence);

/* "4.1% of the finding's time" (with "cost 98.2 ms, " first when the
 * cost is not the event's own span), as every format writes an
 * example's share; NULL when the finding has no time. New string. */
char *pfprof_evidence_format_share (const PfprofFinding *finding, const PfprofEvidence *evidence);

/* The heading every format puts above a finding's examples. */
#define PFPROF_EVIDENCE_HEADING "Examples, costliest first"

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PfprofAnalysis, pfprof_analysis_free)

G_END_DECLS
