/* SPDX-License-Identifier: MIT */
/* pfprof-cli-report.h: what `pfprof report TRACE...` does once its
 * options are parsed: load and analyse the traces (or merge pfprof-report/1
 * results), write the report, and turn the findings into the exit code.
 *
 * `pfprof report` fills a PfprofCliReport from its command line;
 * `pfprof record` takes the defaults with --summary for the end-of-run
 * report. One path, so the two print the same bytes for the same traces
 * and options.
 */
#pragma once

#include <glib.h>

#include "pfprof-analysis-options.h"
#include "pfprof-report.h"

G_BEGIN_DECLS

typedef struct
{
  PfprofReportOptions report;      /* format, --summary, --top, --fail-on, colour; width
                                    * 0: the terminal's, or 100 into a file */
  gboolean html;                   /* --format html: render/'s page, not a PfprofReportFormat */
  PfprofAnalysisOptions *analysis; /* owned; --config, --rules, --step-pattern, --source-lines */
  char *output;                    /* -o FILE, owned; NULL or "-": standard output */
  gboolean force;                  /* --force: replace FILE */
  gboolean progress;               /* a progress line on stderr while loading */
} PfprofCliReport;

/* The options of `pfprof report TRACE` given none: text on standard
 * output at the terminal's width, colour when it is a terminal, progress
 * when stderr is one; analysis NULL, which pfprof_cli_report_run() takes
 * as no --config, --rules or --step-pattern. */
void pfprof_cli_report_init (PfprofCliReport *report);

/* Reports @traces (a NULL-terminated array whose entries it may replace:
 * %-escapes are expanded in names that do not exist). Returns the exit
 * code: PFPROF_EXIT_OK, PFPROF_EXIT_FINDINGS (--fail-on), or the usage
 * or output error after its one line. */
int pfprof_cli_report_run (PfprofCliReport *report, char **traces /* nullable */);

void pfprof_cli_report_clear (PfprofCliReport *report);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (PfprofCliReport, pfprof_cli_report_clear)

G_END_DECLS
