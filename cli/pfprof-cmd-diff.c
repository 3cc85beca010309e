/* SPDX-License-Identifier: MIT */
/* pfprof-cmd-diff.c: `pfprof diff [OPTIONS] BEFORE AFTER`.
 *
 * Each side is one run: a trace, or the rank traces of one run. Both
 * sides are analyzed with the same options and compared
 * (analyzer/report/pfprof-diff.h). Exit status: 0, or 1 when --fail-if-slower
 * is given and the median step got slower by more than that; 2 for
 * usage errors and unreadable traces.
 */
#include "pfprof-config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pfprof-analysis-options.h"
#include "pfprof-analysis.h"
#include "pfprof-cli-analysis-options.h"
#include "pfprof-cli-analyze.h"
#include "pfprof-cli-help.h"
#include "pfprof-safe-output.h"
#include "pfprof-cli.h"
#include "pfprof-diff.h"

typedef enum
{
  DIFF_TEXT,
  DIFF_JSON,
  DIFF_MARKDOWN,
} DiffFormat;

/* Adds the paths of @spec ("a.pfprof" or "r0.pfprof,r1.pfprof") to
 * @paths; empty items are an error. */
static gboolean
split_side (const char *spec, GPtrArray *paths, const char *side)
{
  g_auto (GStrv) items = g_strsplit (spec, ",", -1);

  for (guint i = 0; items[i] != NULL; i++)
    {
      if (items[i][0] == '\0')
        {
          pfprof_cli_error ("diff: %s: empty trace name in '%s'", side, spec);
          return FALSE;
        }
      g_ptr_array_add (paths, g_strdup (items[i]));
    }
  return TRUE;
}

static const char *const formats[] = { "text", "json", "markdown", "md", NULL };

const PfprofCliHelp pfprof_cmd_diff_help = {
  "diff",
  "Compare two runs: step breakdown, overlap, findings resolved/new",
  "BEFORE AFTER",
  "Compares two runs, e.g. before and after a fix: the median step and its\n"
  "breakdown (data wait, copy exposed/hidden, compute, sync wait, GPU idle) side\n"
  "by side with the changes, the HtoD copy/compute overlap, and the findings\n"
  "resolved, new and unchanged (matched by rule id). --config, --rules,\n"
  "--step-pattern and --phase apply to both sides.\n"
  "\n"
  "BEFORE and AFTER are each a trace, or the rank traces of one run separated by\n"
  "commas (r0.pfprof,r1.pfprof). For paths containing commas, give each trace\n"
  "with --before/--after (repeatable) instead of the two arguments. Traces may\n"
  "be pfprof traces, Nsight Systems SQLite exports or torch.profiler traces.\n"
  "The format is --format, else -o's extension (.json, .md), else text. The\n"
  "JSON layout (pfprof-diff/1) is described in docs/interop.md.\n"
  "\n"
  "The steady steps of the two runs are compared as distributions: the change\n"
  "of their mean, median and 90th percentile, each with a 95% interval from\n"
  "the percentile bootstrap (both sides' steps resampled with replacement, a\n"
  "fixed seed: the same traces give the same interval). A gate fires only when\n"
  "the change is over its limit and the interval's low end is above zero, so\n"
  "step-to-step noise does not fail a build; over the limit within the noise\n"
  "is reported as such.\n",
  "  0  the comparison was written (and no gate fired)\n"
  "  1  a gate fired: AFTER's median step (--fail-if-slower) or 90th percentile\n"
  "     step (--fail-if-p90-slower) is more than PCT percent longer than\n"
  "     BEFORE's, and the 95% interval of the change is above zero\n"
  "  2  usage error, unreadable trace, unwritable output, or a side without\n"
  "     steps under a gate\n"
  "  3  -o FILE exists and --force was not given\n",
  "  NO_COLOR  no colour (as --color never)\n"
  "  TERM  dumb: no colour\n",
  "  BEFORE, AFTER  pfprof traces, Nsight Systems SQLite exports or\n"
  "     torch.profiler traces\n"
  "  CONFIG  thresholds and options given with --config (as in report)\n",
  "  # Before and after a fix\n"
  "  pfprof diff slow.pfprof fixed.pfprof\n"
  "  # Gate a pull request on two ranks per side\n"
  "  pfprof diff --fail-if-slower 5 main/r0.pfprof,main/r1.pfprof pr/r0.pfprof,pr/r1.pfprof\n"
  "  # Gate on the slow tail too\n"
  "  pfprof diff --fail-if-slower 3 --fail-if-p90-slower 10 main.pfprof pr.pfprof\n"
  "  # Markdown for a review comment\n"
  "  pfprof diff -b old.pfprof -a new.pfprof -o diff.md\n",
  "pfprof(1), pfprof-report(1), pfprof-export(1)",
};

/* A gate's limit: a finite percentage >= 0. */
static gboolean
parse_pct (const char *option, const char *text, double *pct)
{
  char *end = NULL;

  errno = 0;
  *pct = g_ascii_strtod (text, &end);
  if (end == text || *end != '\0' || errno != 0 || !isfinite (*pct) || *pct < 0)
    {
      pfprof_cli_error ("diff: %s takes a percentage >= 0, not '%s'", option, text);
      return FALSE;
    }
  return TRUE;
}

int
pfprof_cmd_diff (int argc, char **argv)
{
  g_autofree char *format = NULL;
  g_autofree char *output = NULL;
  gboolean force = FALSE;
  g_autofree char *fail_if_slower = NULL;
  g_autofree char *fail_if_p90_slower = NULL;
  g_return_val_if_fail (argv != NULL, PFPROF_EXIT_USAGE);

  g_auto (PfprofCliAnalysisOptions) analysis_opts = { 0 };
  g_autofree char *color = NULL;
  g_auto (GStrv) before_opt = NULL;
  g_auto (GStrv) after_opt = NULL;
  g_auto (GStrv) positional = NULL;
  const GOptionEntry entries[] = {
    { "before", 'b', 0, G_OPTION_ARG_FILENAME_ARRAY, &before_opt,
      "A trace of the run before (repeat for its ranks)", "TRACE" },
    { "after", 'a', 0, G_OPTION_ARG_FILENAME_ARRAY, &after_opt,
      "A trace of the run after (repeat for its ranks)", "TRACE" },
    { "format", 'F', 0, G_OPTION_ARG_STRING, &format,
      "text, json or markdown (default: from -o's extension, else text)", "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE (whole or not at all)", "FILE" },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force, "Replace FILE if it exists", NULL },
    { "fail-if-slower", 0, 0, G_OPTION_ARG_STRING, &fail_if_slower,
      "Exit with 1 when the median step got more than PCT percent slower, beyond the noise", "PCT" },
    { "fail-if-p90-slower", 0, 0, G_OPTION_ARG_STRING, &fail_if_p90_slower,
      "Exit with 1 when the 90th percentile step got more than PCT percent slower, beyond the noise", "PCT" },
    { "color", 0, 0, G_OPTION_ARG_STRING, &color, "auto (default), always or never", "WHEN" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &positional, NULL, NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (PfprofAnalysisOptions) options = NULL;
  g_autoptr (PfprofAnalysis) before = NULL;
  g_autoptr (PfprofAnalysis) after = NULL;
  g_autoptr (PfprofDiff) diff = NULL;
  g_autoptr (GPtrArray) before_paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) after_paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GString) out = g_string_new (NULL);
  PfprofDiffGate gate = { 0 };
  DiffFormat fmt = DIFF_TEXT;
  gboolean use_color;

  if (!pfprof_cli_help_refuse_old_format ("diff", argc, argv, formats))
    return PFPROF_EXIT_USAGE;
  ctx = pfprof_cli_help_context_new (&pfprof_cmd_diff_help);
  g_option_context_add_main_entries (ctx, entries, NULL);
  pfprof_cli_analysis_options_add (&analysis_opts, ctx);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      pfprof_cli_error ("diff: %s", error->message);
      return PFPROF_EXIT_USAGE;
    }

  if (before_opt != NULL || after_opt != NULL)
    {
      if (positional != NULL && positional[0] != NULL)
        {
          pfprof_cli_error ("diff: give BEFORE AFTER or --before/--after, not both");
          return PFPROF_EXIT_USAGE;
        }
      for (guint i = 0; before_opt && before_opt[i]; i++)
        g_ptr_array_add (before_paths, g_strdup (before_opt[i]));
      for (guint i = 0; after_opt && after_opt[i]; i++)
        g_ptr_array_add (after_paths, g_strdup (after_opt[i]));
    }
  else if (positional != NULL && g_strv_length (positional) == 2)
    {
      if (!split_side (positional[0], before_paths, "BEFORE")
          || !split_side (positional[1], after_paths, "AFTER"))
        return PFPROF_EXIT_USAGE;
    }
  else
    {
      pfprof_cli_error ("diff: need two runs; usage: pfprof diff [OPTIONS] BEFORE AFTER");
      return PFPROF_EXIT_USAGE;
    }
  if (before_paths->len == 0 || after_paths->len == 0)
    {
      pfprof_cli_error ("diff: need traces for both sides (--before and --after)");
      return PFPROF_EXIT_USAGE;
    }

  if (format == NULL && output != NULL && (g_str_has_suffix (output, ".json") || g_str_has_suffix (output, ".md")))
    format = g_strdup (g_str_has_suffix (output, ".json") ? "json" : "markdown");
  if (format == NULL || strcmp (format, "text") == 0)
    fmt = DIFF_TEXT;
  else if (strcmp (format, "json") == 0)
    fmt = DIFF_JSON;
  else if (strcmp (format, "markdown") == 0 || strcmp (format, "md") == 0)
    fmt = DIFF_MARKDOWN;
  else
    {
      pfprof_cli_error ("diff: unknown format '%s' (text, json, markdown)", format);
      return PFPROF_EXIT_USAGE;
    }
  if (fail_if_slower != NULL
      && !parse_pct ("--fail-if-slower", fail_if_slower, &gate.max_slower_pct))
    return PFPROF_EXIT_USAGE;
  if (fail_if_p90_slower != NULL
      && !parse_pct ("--fail-if-p90-slower", fail_if_p90_slower, &gate.max_p90_slower_pct))
    return PFPROF_EXIT_USAGE;
  gate.has_slower = fail_if_slower != NULL;
  gate.has_p90_slower = fail_if_p90_slower != NULL;
  if (!pfprof_cli_color ("diff", color, output != NULL, &use_color))
    return PFPROF_EXIT_USAGE;
  if ((options = pfprof_cli_analysis_options_build (&analysis_opts, "diff")) == NULL)
    return PFPROF_EXIT_USAGE;

  if ((before = pfprof_cli_analyze ((const char *const *) before_paths->pdata, before_paths->len,
                                    options, FALSE)) == NULL
      || (after = pfprof_cli_analyze ((const char *const *) after_paths->pdata, after_paths->len,
                                      options, FALSE)) == NULL)
    return PFPROF_EXIT_USAGE;
  diff = pfprof_diff_new (before, after);
  if (gate.has_slower || gate.has_p90_slower)
    {
      double pct;

      if (!diff->has_change[PFPROF_STATISTIC_MEDIAN] && !pfprof_diff_step_change_pct (diff, &pct))
        {
          pfprof_cli_error ("diff: %s: %s has no steps to compare",
                            gate.has_slower ? "--fail-if-slower" : "--fail-if-p90-slower",
                            diff->before.n_steady_steps == 0 ? "BEFORE" : "AFTER");
          return PFPROF_EXIT_USAGE;
        }
      pfprof_diff_gate_judge (diff, &gate);
    }

  switch (fmt)
    {
    case DIFF_JSON: pfprof_diff_output_json (diff, &gate, out); break;
    case DIFF_MARKDOWN: pfprof_diff_output_markdown (diff, &gate, out); break;
    case DIFF_TEXT:
    default: pfprof_diff_output_text (diff, &gate, use_color, out); break;
    }
  if (output != NULL && strcmp (output, "-") != 0)
    {
      if (!pfprof_safe_output_write (output, out->str, out->len, force, &error))
        {
          pfprof_cli_error ("diff: %s", error->message);
          return pfprof_cli_output_exit_code (error);
        }
    }
  else if (fwrite (out->str, 1, out->len, stdout) != out->len || fflush (stdout) != 0)
    {
      pfprof_cli_error ("diff: cannot write to standard output: %s", g_strerror (errno));
      return PFPROF_EXIT_USAGE;
    }
  return gate.failed ? PFPROF_EXIT_FINDINGS : PFPROF_EXIT_OK;
}
