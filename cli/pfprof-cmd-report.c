/* SPDX-License-Identifier: MIT */
/* pfprof-cmd-report.c: `pfprof report [OPTIONS] TRACE...`.
 *
 * Loads the traces, runs the analysis, renders the report and turns the
 * findings into the exit code: 1 when --fail-on is given and a finding
 * at or above it fired, else 0; 2 for usage errors and unreadable input,
 * with one "pfprof: ..." line. What follows the options is
 * pfprof_cli_report_run (pfprof-cli-report.h), which `pfprof record`
 * calls too for its end-of-run report.
 */
#include "pfprof-config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pfprof-analysis-options.h"
#include "pfprof-analysis.h"
#include "pfprof-cli-analysis-options.h"
#include "pfprof-cli-help.h"
#include "pfprof-cli-report.h"
#include "pfprof-cli.h"
#include "pfprof-report.h"
#include "pfprof-rules.h"

/* The format -o's name implies, as `pfprof render` takes it from the
 * extension; text for any other name. */
static const char *
format_from_extension (const char *path)
{
  static const struct
  {
    const char *ext;
    const char *format;
  } exts[] = {
    { ".json", "json" }, { ".md", "markdown" }, { ".markdown", "markdown" }, { ".xml", "junit" },
    { ".html", "html" }, { ".htm", "html" },    { ".csv", "csv" },
  };
  const char *dot = strrchr (path, '.');

  for (guint i = 0; dot != NULL && strchr (dot, '/') == NULL && i < G_N_ELEMENTS (exts); i++)
    if (g_ascii_strcasecmp (dot, exts[i].ext) == 0)
      return exts[i].format;
  return "text";
}

static void
list_rules (void)
{
  guint n;
  const PfprofRule *const *rules = pfprof_rules_get (&n);

  for (guint i = 0; i < n; i++)
    {
      printf ("%-22s %-8s %s\n", rules[i]->id, pfprof_severity_to_string (rules[i]->severity),
              rules[i]->summary);
      for (guint p = 0; p < rules[i]->n_params; p++)
        {
          char buf[G_ASCII_DTOSTR_BUF_SIZE];

          printf ("    %s = %s  (%s)\n", rules[i]->params[p].key,
                  g_ascii_formatd (buf, sizeof buf, "%g", rules[i]->params[p].default_value),
                  rules[i]->params[p].description);
        }
    }
}

static const char *const formats[] = { "text", "json", "markdown", "md", "junit", "html", "csv",
                                       "csv-steps", "csv-findings", NULL };

const PfprofCliHelp pfprof_cmd_report_help = {
  "report",
  "Analyze traces: findings, overlap, steps (text/json/markdown/junit/html/csv)",
  "TRACE...",
  "Loads traces (pfprof traces, Nsight Systems SQLite exports or torch.profiler\n"
  "traces), finds the training steps, measures where each step's time went\n"
  "(DataLoader wait, copies exposed and hidden, compute, sync wait, GPU idle)\n"
  "and runs the rules, each of which names a cause of the GPU waiting, its cost\n"
  "and its fix.\n"
  "\n"
  "Findings, the headline and predictions are the training steps' (--phase).\n"
  "A trace whose evaluation takes a fifth of its run or more (min-phase-share\n"
  "in --config) also gets the evaluation phase's own findings, after the\n"
  "training ones, labelled [evaluation] (JSON phase_findings, CSV phase\n"
  "evaluation), their savings per mean evaluation batch; --fail-on and the\n"
  "headline read the training findings alone.\n"
  "\n"
  "The format is --format, else -o's extension (.json, .md, .xml for JUnit,\n"
  ".html, .csv, anything else text), else text. csv is the per-step table,\n"
  "csv-findings the findings, one row each. The JSON layout, the CSV columns\n"
  "and the config keys are in docs/report-format.md.\n"
  "\n"
  "Several ranks: give their traces together (traces of different runs, told\n"
  "apart by launcher job id, world size, rank, command line and recording time,\n"
  "are refused: report each run on its own), or their JSON results\n"
  "(pfprof-report/1, one per rank, made with --format json where each trace\n"
  "lives) to merge into the per-rank table and rank-imbalance. In -o and TRACE,\n"
  "%r is the rank, %h the host name, %p the pid, %% a '%' (from the trace, else\n"
  "the environment below, this host and process).\n",
  "  0  the report was written, and no finding at or above --fail-on fired\n"
  "  1  a finding at or above --fail-on fired\n"
  "  2  usage error, bad configuration, unreadable trace, traces of different\n"
  "     runs, unwritable output\n"
  "  3  -o FILE exists and --force was not given\n",
  "  NO_COLOR  no colour in the text report (as --color never)\n"
  "  TERM  dumb: no colour\n"
  "  COLUMNS  wrap width when stdout is not a terminal\n"
  "  PFPROF_SOURCE_LINES  auto, always or never: --source-lines when not given\n"
  "  RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK  %r in -o and TRACE\n",
  "  TRACE.pfprof  a trace (docs/trace-format.md)\n"
  "  RESULT.json  a pfprof-report/1 result to merge (docs/report-format.md)\n"
  "  CONFIG  thresholds and options given with --config\n",
  "  # Findings of a run, on the terminal\n"
  "  pfprof report run.pfprof\n"
  "  # JSON for a script; the format comes from the extension\n"
  "  pfprof report run.pfprof -o report.json\n"
  "  # Fail a CI job on a warning, with a JUnit file for its test view\n"
  "  pfprof report run.pfprof --fail-on warning -o findings.xml\n"
  "  # The per-step table and the findings as CSV\n"
  "  pfprof report run.pfprof -o steps.csv\n"
  "  pfprof report run.pfprof --format csv-findings -o findings.csv\n"
  "  # Two ranks of one run\n"
  "  pfprof report rank0.pfprof rank1.pfprof\n",
  "pfprof(1), pfprof-record(1), pfprof-diff(1), pfprof-export(1), pfprof-render(1)",
};

int
pfprof_cmd_report (int argc, char **argv)
{
  g_autofree char *format = NULL;
  g_autofree char *output = NULL;
  gboolean force = FALSE;
  g_autofree char *fail_on = NULL;
  g_return_val_if_fail (argv != NULL, PFPROF_EXIT_USAGE);

  g_auto (PfprofCliAnalysisOptions) analysis_opts = { 0 };
  g_autofree char *color = NULL;
  g_auto (GStrv) traces = NULL;
  gboolean do_list = FALSE, summary = FALSE, quiet = FALSE, all_ranks = FALSE;
  gint width = 0, top = 0;
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (PfprofCliReport) report = { 0 };
  PfprofReportOptions *ro = &report.report;
  const GOptionEntry entries[] = {
    { "format", 'F', 0, G_OPTION_ARG_STRING, &format,
      "text (default), json, markdown, junit, html, csv or csv-findings", "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write the report to FILE (whole or not at all)", "FILE" },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force, "Replace FILE if it exists", NULL },
    { "fail-on", 0, 0, G_OPTION_ARG_STRING, &fail_on,
      "Exit with 1 when a finding at or above this severity fired (info, warning, error)", "LEVEL" },
    { "top", 0, 0, G_OPTION_ARG_INT, &top, "Show at most N findings", "N" },
    { "summary", 0, 0, G_OPTION_ARG_NONE, &summary, "Short text: headline, steps, one line per finding", NULL },
    { "all-ranks", 0, 0, G_OPTION_ARG_NONE, &all_ranks,
      "Text and Markdown: a row for every rank (past 16 ranks, by default the slowest, a few "
      "fast and typical ones, and one line for the rest)", NULL },
    { "color", 0, 0, G_OPTION_ARG_STRING, &color, "auto (default), always or never", "WHEN" },
    { "width", 0, 0, G_OPTION_ARG_INT, &width, "Wrap text at N columns (default: terminal width)", "N" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No progress on stderr", NULL },
    { "list-rules", 0, 0, G_OPTION_ARG_NONE, &do_list, "List the rules and their thresholds", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &traces, NULL, NULL },
    { NULL }
  };

  if (!pfprof_cli_help_refuse_old_format ("report", argc, argv, formats))
    return PFPROF_EXIT_USAGE;
  context = pfprof_cli_help_context_new (&pfprof_cmd_report_help);
  g_option_context_add_main_entries (context, entries, NULL);
  pfprof_cli_analysis_options_add (&analysis_opts, context);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      pfprof_cli_error ("report: %s", error->message);
      return PFPROF_EXIT_USAGE;
    }
  if (do_list)
    {
      list_rules ();
      return PFPROF_EXIT_OK;
    }

  pfprof_cli_report_init (&report);
  if (format == NULL && output != NULL)
    format = g_strdup (format_from_extension (output));
  /* html is drawn by render/ (it embeds the SVG timeline): not a
   * PfprofReportFormat of the analyzer. */
  report.html = format && g_ascii_strcasecmp (format, "html") == 0;
  if (format && !report.html && !pfprof_report_format_from_string (format, &ro->format))
    {
      pfprof_cli_error ("report: unknown format '%s' (text, json, markdown, junit, html, csv, csv-findings)", format);
      return PFPROF_EXIT_USAGE;
    }
  if (fail_on)
    {
      if (!pfprof_severity_from_string (fail_on, &ro->fail_on))
        {
          pfprof_cli_error ("report: --fail-on takes info, warning or error, not '%s'", fail_on);
          return PFPROF_EXIT_USAGE;
        }
      ro->has_fail_on = TRUE;
    }
  if (top < 0 || width < 0 || (width > 0 && width < 20))
    {
      pfprof_cli_error ("report: --top and --width take a positive number (width >= 20)");
      return PFPROF_EXIT_USAGE;
    }
  ro->top = (guint) top;
  ro->summary = summary;
  ro->all_ranks = all_ranks;
  ro->width = (guint) width;
  if (!pfprof_cli_color ("report", color, output != NULL, &ro->color))
    return PFPROF_EXIT_USAGE;
  if ((report.analysis = pfprof_cli_analysis_options_build (&analysis_opts, "report")) == NULL)
    return PFPROF_EXIT_USAGE;
  report.output = g_steal_pointer (&output);
  report.force = force;
  report.progress = !quiet && isatty (STDERR_FILENO);
  return pfprof_cli_report_run (&report, traces);
}
