/* SPDX-License-Identifier: MIT */
/* pfprof-cli-report.c: the report of `pfprof report` and of `pfprof
 * record`, once its options are known (pfprof-cli-report.h). */
#include "pfprof-config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "pfprof-analysis.h"
#include "pfprof-cli-analysis-options.h"
#include "pfprof-cli-analyze.h"
#include "pfprof-cli-report.h"
#include "pfprof-cli-template.h"
#include "pfprof-cli.h"
#include "pfprof-report-html.h"
#include "pfprof-report-merge.h"
#include "pfprof-safe-output.h"

static guint
terminal_width (void)
{
  struct winsize ws;
  const char *columns = g_getenv ("COLUMNS");
  guint64 n;

  if (isatty (STDOUT_FILENO) && ioctl (STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  if (columns && g_ascii_string_to_unsigned (columns, 10, 20, 1000, &n, NULL))
    return (guint) n;
  return 80;
}

/* Replaces *@path by its expansion (pfprof-cli-template.h); FALSE after
 * the one-line error, @what naming the argument. */
static gboolean
expand_path (char **path, const PfprofAnalysis *analysis, const char *what)
{
  g_autoptr (GError) error = NULL;
  char *expanded = pfprof_cli_template_expand (*path, analysis, &error);

  if (expanded == NULL)
    {
      pfprof_cli_error ("report: %s%s", what, error->message);
      return FALSE;
    }
  g_free (*path);
  *path = expanded;
  return TRUE;
}

void
pfprof_cli_report_init (PfprofCliReport *report)
{
  g_return_if_fail (report != NULL);
  memset (report, 0, sizeof *report);
  pfprof_report_options_init (&report->report);
  report->report.width = 0;
  pfprof_cli_color ("report", NULL, FALSE, &report->report.color);
  report->progress = isatty (STDERR_FILENO);
}

void
pfprof_cli_report_clear (PfprofCliReport *report)
{
  g_return_if_fail (report != NULL);
  g_clear_pointer (&report->analysis, pfprof_analysis_options_free);
  g_clear_pointer (&report->output, g_free);
}

int
pfprof_cli_report_run (PfprofCliReport *report, char **traces)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PfprofAnalysis) analysis = NULL;
  g_autoptr (GString) out = NULL;
  PfprofReportOptions ro;

  g_return_val_if_fail (report != NULL, PFPROF_EXIT_USAGE);
  out = g_string_new (NULL);
  ro = report->report;
  if (ro.width == 0)
    ro.width = report->output ? 100 : terminal_width ();
  if (ro.format != PFPROF_REPORT_TEXT)
    ro.color = FALSE;
  if (report->analysis == NULL)
    {
      const PfprofCliAnalysisOptions none = { 0 };

      if ((report->analysis = pfprof_cli_analysis_options_build (&none, "report")) == NULL)
        return PFPROF_EXIT_USAGE;
    }
  if (traces == NULL || traces[0] == NULL)
    {
      pfprof_cli_error ("report: no trace given; usage: pfprof report [OPTIONS] TRACE...");
      return PFPROF_EXIT_USAGE;
    }

  /* Launcher jobs: the same command line on every rank names its own
   * trace through %r/%h (a file whose name really holds them is taken
   * as it is). */
  for (guint i = 0; traces[i]; i++)
    if (strchr (traces[i], '%') != NULL && !g_file_test (traces[i], G_FILE_TEST_EXISTS)
        && !expand_path (&traces[i], NULL, ""))
      return PFPROF_EXIT_USAGE;
  /* pfprof-report/1 results of several ranks (by content, not name). */
  {
    guint n = g_strv_length (traces), n_json = 0, first_json = 0, first_trace = 0;

    for (guint i = n; i > 0; i--)
      if (pfprof_report_merge_is_result (traces[i - 1]))
        {
          n_json++;
          first_json = i - 1;
        }
      else
        first_trace = i - 1;
    if (n_json > 0 && n_json < n)
      {
        /* Say what the other file is before calling it a trace. */
        for (guint i = 0; i < n; i++)
          {
            struct stat st;

            if (pfprof_report_merge_is_result (traces[i]))
              continue;
            if (stat (traces[i], &st) != 0)
              {
                int saved = errno;

                pfprof_cli_error ("report: %s: %s", traces[i], g_strerror (saved));
                return PFPROF_EXIT_USAGE;
              }
            if (!S_ISREG (st.st_mode) || st.st_size == 0)
              {
                pfprof_cli_error ("report: %s is %s, neither a trace nor a JSON result", traces[i],
                                  S_ISREG (st.st_mode) ? "an empty file" : "not a regular file");
                return PFPROF_EXIT_USAGE;
              }
          }
        pfprof_cli_error ("report: %s is a JSON result and %s a trace: give traces, or "
                          "pfprof-report/1 results to merge, not both",
                          traces[first_json], traces[first_trace]);
        return PFPROF_EXIT_USAGE;
      }
    if (n_json > 0 && report->html)
      {
        pfprof_cli_error ("report: --format html draws the traces' timeline; merged JSON results "
                          "have none (use text, json, markdown or junit)");
        return PFPROF_EXIT_USAGE;
      }
    if (n_json > 0)
      {
        analysis = pfprof_report_merge ((const char *const *) traces, n, report->analysis, &error);
        if (analysis == NULL)
          {
            pfprof_cli_error ("%s", error->message);
            return PFPROF_EXIT_USAGE;
          }
        goto analyzed;
      }
  }

  analysis = pfprof_cli_analyze ((const char *const *) traces, g_strv_length (traces), report->analysis,
                                 report->progress);
  if (analysis == NULL)
    return PFPROF_EXIT_USAGE;
analyzed:
  /* '-': standard output, as export and diff take it. */
  if (report->output != NULL && strcmp (report->output, "-") == 0)
    g_clear_pointer (&report->output, g_free);
  /* rank-%r.json: the rank and host the trace was recorded on. */
  if (report->output != NULL && strchr (report->output, '%') != NULL
      && !expand_path (&report->output, analysis, "-o "))
    return PFPROF_EXIT_USAGE;
  if (report->html)
    pfprof_report_html (analysis, &ro, out);
  else
    pfprof_report_render (analysis, &ro, out);
  if (report->output)
    {
      g_autoptr (GError) werr = NULL;

      if (!pfprof_safe_output_write (report->output, out->str, out->len, report->force, &werr))
        {
          pfprof_cli_error ("%s", werr->message);
          return pfprof_cli_output_exit_code (werr);
        }
    }
  else if (fwrite (out->str, 1, out->len, stdout) != out->len || fflush (stdout) != 0)
    {
      pfprof_cli_error ("report: cannot write to standard output: %s", g_strerror (errno));
      return PFPROF_EXIT_USAGE;
    }
  if (ro.has_fail_on && pfprof_analysis_fired_at (analysis, ro.fail_on))
    return PFPROF_EXIT_FINDINGS;
  return PFPROF_EXIT_OK;
}
