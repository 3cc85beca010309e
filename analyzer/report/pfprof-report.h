/* SPDX-License-Identifier: MIT */
/* pfprof-report.h: an analysis rendered as text, JSON, Markdown, JUnit or CSV.
 *
 * `pfprof report` writes these; `pfprof record` prints the short text
 * summary at the end of a run; the GUI can show the text. Each format
 * lives in its own file (pfprof-report-FORMAT.c) and only reads the
 * PfprofAnalysis. Untrusted strings (names from the profiled program,
 * paths) are escaped for the format; the JSON layout is the contract
 * documented in docs/report-format.md ("pfprof-report/1").
 */
#pragma once

#include <stdio.h>

#include <glib.h>

#include "pfprof-analysis.h"

G_BEGIN_DECLS

#define PFPROF_REPORT_JSON_FORMAT "pfprof-report/1"

typedef enum
{
  PFPROF_REPORT_TEXT,
  PFPROF_REPORT_JSON,
  PFPROF_REPORT_MARKDOWN,
  PFPROF_REPORT_JUNIT,
  PFPROF_REPORT_CSV,          /* the per-step table */
  PFPROF_REPORT_CSV_FINDINGS, /* the findings */
} PfprofReportFormat;

typedef struct
{
  PfprofReportFormat format;
  gboolean has_fail_on;     /* a gate was given */
  PfprofSeverity fail_on;   /* the gate: JUnit cases fail at or above it */
  gboolean color;           /* text: ANSI colours */
  guint width;              /* text: columns to wrap at; 0 = 80 */
  guint top;                /* at most this many findings; 0 = all */
  gboolean summary;         /* text: the short end-of-run summary */
  gboolean all_ranks;       /* text, Markdown: a row for every rank, however many
                             * (else past PFPROF_RANK_SUMMARY_TABLE_MAX ranks, the
                             * ones that matter and a line for the rest) */
} PfprofReportOptions;

/* Defaults: text, no gate, no colour, 80 columns, all findings. */
void pfprof_report_options_init (PfprofReportOptions *options);

/* "text", "json", "markdown" (or "md"), "junit", "csv" (or "csv-steps"),
 * "csv-findings"; FALSE for anything else. */
gboolean pfprof_report_format_from_string (const char *s /* nullable */, PfprofReportFormat *out);

/* Appends the report of @analysis to @out. */
void pfprof_report_render (const PfprofAnalysis *analysis, const PfprofReportOptions *options,
                           GString *out);

/* The sentence the report opens with when the GPU idles most of the
 * steady state ("The GPU idled 72% of the steady state ..."; with several
 * traces, the GPU it is about: "The GPU of rank 1 (the most idle of 2
 * traces) idled ..."), or NULL.
 * Plain text with no untrusted content. */
char *pfprof_report_headline (const PfprofAnalysis *analysis);

/* Largest GPU idle share (0..1) of any device's steady window. */
double pfprof_report_max_idle_fraction (const PfprofAnalysis *analysis);

/* One sentence saying that @trace was cut short (meta complete = 0) and
 * where its data ends, or NULL for a finished trace. */
char *pfprof_report_describe_cut (const PfprofTrace *trace);

/* One "FILE: Incomplete trace: ..." note per trace that was cut short
 * (pfprof_report_describe_cut()), FILE its base name; untrusted text to
 * escape. Empty when every trace is finished. */
GPtrArray *pfprof_report_incomplete_notes (const PfprofAnalysis *analysis);

/* "Source text not shown for N files outside the folder pfprof runs in
 * ...: --source-lines=always shows it." for the files the source-lines
 * policy left unread (PfprofTraceSummary.n_sources_withheld), of one
 * trace when @trace_index is a trace's, of all when it is G_MAXUINT;
 * NULL when there are none. Said once by each format. */
char *pfprof_report_sources_withheld_note (const PfprofAnalysis *analysis, guint trace_index);

/* Per-format renderers, one file each. */
void pfprof_report_text (const PfprofAnalysis *analysis, const PfprofReportOptions *options, GString *out);
void pfprof_report_json (const PfprofAnalysis *analysis, const PfprofReportOptions *options, GString *out);
void pfprof_report_markdown (const PfprofAnalysis *analysis, const PfprofReportOptions *options, GString *out);
void pfprof_report_junit (const PfprofAnalysis *analysis, const PfprofReportOptions *options, GString *out);
void pfprof_report_csv (const PfprofAnalysis *analysis, const PfprofReportOptions *options, GString *out);
void pfprof_report_csv_findings (const PfprofAnalysis *analysis, const PfprofReportOptions *options,
                                 GString *out);

/* Median over steady steps of each breakdown field, in a PfprofStep
 * (start 0, end = median step length). */
PfprofStep pfprof_report_median_step (const PfprofAnalysis *analysis);

/* The one or two ledger buckets (pfprof-step-ledger.h) that took a fifth
 * or more of a phase of @phase_ns, largest first: "idle: host busy,
 * nothing queued 3.90 s, compute 1.20 s"; NULL when none did. New
 * string. */
char *pfprof_report_phase_dominated (const gint64 *ledger, gint64 phase_ns);

/* One sentence on a trace's phases (@span_ns: the trace's span): each
 * phase's time and share, the steps and batches in each, and that the
 * figures are the training steps'. Plain text, no untrusted content. */
char *pfprof_report_phases_phrase (const PfprofPhases *phases, gint64 span_ns);

/* The words and figures every human-readable format (text, Markdown,
 * HTML, diff) uses for the same thing, so a reader comparing two of them
 * finds the same label and the same number. */

/* One part of a step's time: its label and its field in PfprofStep. */
typedef struct
{
  const char *key;   /* the JSON member */
  const char *label; /* "data wait", "copy exposed", ... */
  gsize offset;      /* of the gint64 in PfprofStep */
} PfprofReportPart;

/* The parts of a step, in the order every format prints them. */
extern const PfprofReportPart pfprof_report_parts[];
#define PFPROF_REPORT_N_PARTS 6

/* Column headings of the per-device table, shared by Markdown and HTML;
 * the text report says the same words in lower case. */
#define PFPROF_REPORT_KERNEL_BUSY "Kernel busy"
#define PFPROF_REPORT_GPU_IDLE "GPU idle"
#define PFPROF_REPORT_OVERLAP "Copy/compute overlap"
#define PFPROF_REPORT_COPY_EXPOSED "Copy exposed"
#define PFPROF_REPORT_DATA_WAIT "Data wait"
#define PFPROF_REPORT_SYNC_WAIT "Sync wait"
/* What the parts after it are: each part's median over the steady steps,
 * not the parts of the median step (the ledger's "median" column). */
#define PFPROF_REPORT_MEDIAN_PARTS "Median of each part over the steady steps"

/* TRUE when the host runs steps ahead of the GPU: the median step is over
 * 5% longer on the GPU's side than on the host's, whose steps then say
 * little of the GPU's; every format says so (JSON:
 * summary.steps.host_ahead). */
gboolean pfprof_report_host_runs_ahead (const PfprofAnalysis *analysis);

/* The sentence that says so, with the host-side median step; NULL when
 * the host does not run ahead. New string. */
char *pfprof_report_host_ahead_phrase (const PfprofAnalysis *analysis);

/* "2.02 s (93.8%)": a time and its share of @window_ns; the time alone
 * when the window is empty. New string. */
char *pfprof_report_figure_share (gint64 ns, gint64 window_ns);

/* "77 steps, 76 after warm-up, median 29.1 ms (p10 16.0 ms, p90 31.8 ms)";
 * NULL when no steady step was found. New string. */
char *pfprof_report_steps_phrase (const PfprofAnalysis *analysis);

/* "data wait 91.8 µs, copy exposed 732.8 µs, copy hidden 0 ns, compute
 * 27.8 ms, sync wait 0 ns, GPU idle 497.1 µs" for @step. New string. */
char *pfprof_report_parts_phrase (const PfprofStep *step);
/* What @finding saves and the step it predicts, saying the basis: "saves
 * ~8.75 ms per mean step: fix → ~28.6 ms per step (−23.4%)", or "saves
 * ~1.2 ms over the steady window" without steps. */
char *pfprof_report_saving (const PfprofFinding *finding);

/* The same in another @unit than "step": "evaluation batch" for a
 * finding of PfprofAnalysis.phase_findings. New string. */
char *pfprof_report_saving_per (const PfprofFinding *finding, const char *unit);

/* What a finding of phase_findings saves per mean evaluation batch
 * (pfprof_report_saving_per), and over the phase's batches: "...; ~2.98 s
 * over the phase's 13 batches". New string. */
char *pfprof_report_phase_saving (const PfprofAnalysis *analysis, const PfprofFinding *finding);

/* The phase_findings about trace @trace_index, in the report's order
 * (the findings are the analysis's; free the array only). */
GPtrArray *pfprof_report_phase_findings (const PfprofAnalysis *analysis, guint trace_index);

/* The number of phase_findings about trace @trace_index. */
guint pfprof_report_n_phase_findings (const PfprofAnalysis *analysis, guint trace_index);

/* The heading of a trace's evaluation phase judged on its own
 * (PfprofTraceSummary.eval_judged): "Evaluation phase (5.67 s, 21.0% of
 * the run, 13 batches): 2 findings of its own", counting the material
 * ones. New string. */
char *pfprof_report_eval_phase_heading (const PfprofAnalysis *analysis, const PfprofTraceSummary *summary);

/* What its findings' figures are over and why it was judged, with the
 * mean batch every fix together predicts. New string. */
char *pfprof_report_eval_phase_basis (const PfprofTraceSummary *summary);

/* The number of findings (of the first @n) that save at least the
 * materiality threshold: the others are folded into one line. */
guint pfprof_report_n_material (const PfprofAnalysis *analysis, guint n);

/* Number of findings to show under @options. */
guint pfprof_report_n_shown (const PfprofAnalysis *analysis, const PfprofReportOptions *options);

G_END_DECLS
