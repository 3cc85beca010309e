/* pfprof-report.h: an analysis rendered as text, JSON, Markdown or JUnit.
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

/* "text", "json", "markdown" (or "md"), "junit"; FALSE for anything else. */
gboolean pfprof_report_format_from_string (const char *s, PfprofReportFormat *out);

/* Appends the report of @analysis to @out. */
void pfprof_report_render (const PfprofAnalysis *analysis, const PfprofReportOptions *options,
                           GString *out);

/* The sentence the report opens with when the GPU idles most of the
 * steady state ("The GPU idled 72% of the steady state ..."), or NULL.
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

/* Per-format renderers, one file each. */
void pfprof_report_text (const PfprofAnalysis *analysis, const PfprofReportOptions *options, GString *out);
void pfprof_report_json (const PfprofAnalysis *analysis, const PfprofReportOptions *options, GString *out);
void pfprof_report_markdown (const PfprofAnalysis *analysis, const PfprofReportOptions *options, GString *out);
void pfprof_report_junit (const PfprofAnalysis *analysis, const PfprofReportOptions *options, GString *out);

/* Median over steady steps of each breakdown field, in a PfprofStep
 * (start 0, end = median step length). */
PfprofStep pfprof_report_median_step (const PfprofAnalysis *analysis);

/* What @finding saves and the step it predicts, saying the basis: "saves
 * ~8.75 ms per mean step: fix → ~28.6 ms per step (−23.4%)", or "saves
 * ~1.2 ms over the steady window" without steps. */
char *pfprof_report_saving (const PfprofFinding *finding);

/* The number of findings (of the first @n) that save at least the
 * materiality threshold: the others are folded into one line. */
guint pfprof_report_n_material (const PfprofAnalysis *analysis, guint n);

/* Number of findings to show under @options. */
guint pfprof_report_n_shown (const PfprofAnalysis *analysis, const PfprofReportOptions *options);

G_END_DECLS
