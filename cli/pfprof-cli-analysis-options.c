/* SPDX-License-Identifier: MIT */
/* pfprof-cli-analysis-options.c: --config, --rules, --step-pattern,
 * --phase and --source-lines for every analysing command; see
 * pfprof-cli-analysis-options.h. */
#include "pfprof-cli-analysis-options.h"

#include "pfprof-cli.h"

void
pfprof_cli_analysis_options_add (PfprofCliAnalysisOptions *opts, GOptionContext *context)
{
  g_return_if_fail (opts != NULL);
  g_return_if_fail (context != NULL);

  const GOptionEntry entries[] = {
    { "rules", 0, 0, G_OPTION_ARG_STRING, &opts->rules,
      "Rules to run: id,id,... or -id to leave one out", "LIST" },
    { "config", 0, 0, G_OPTION_ARG_FILENAME, &opts->config,
      "Thresholds and options (docs/report-format.md)", "FILE" },
    { "step-pattern", 0, 0, G_OPTION_ARG_STRING, &opts->step_pattern,
      "Regular expression for NVTX step range names", "REGEX" },
    { "phase", 0, 0, G_OPTION_ARG_STRING, &opts->phase,
      "The phase every figure is over: training (default), eval or all", "PHASE" },
    { "source-lines", 0, 0, G_OPTION_ARG_STRING, &opts->source_lines,
      "Show the source text of call sites: auto (Python files under the current folder), "
      "always or never", "WHEN" },
    { NULL }
  };

  g_return_if_fail (opts != NULL && context != NULL);
  /* GLib copies the entries into the group. */
  g_option_context_add_main_entries (context, entries, NULL);
}

PfprofAnalysisOptions *
pfprof_cli_analysis_options_build (const PfprofCliAnalysisOptions *opts, const char *command)
{
  g_return_val_if_fail (opts != NULL, NULL);
  g_return_val_if_fail (command != NULL, NULL);

  g_autoptr (PfprofAnalysisOptions) options = pfprof_analysis_options_new ();
  g_autoptr (GError) error = NULL;

  g_return_val_if_fail (opts != NULL && command != NULL, NULL);
  /* The config's message names its file. */
  if (opts->config && !pfprof_analysis_options_load_file (options, opts->config, &error))
    {
      pfprof_cli_error ("%s", error->message);
      return NULL;
    }
  if (opts->rules && !pfprof_analysis_options_select_rules (options, opts->rules, &error))
    {
      pfprof_cli_error ("%s: --rules: %s", command, error->message);
      return NULL;
    }
  if (opts->step_pattern
      && !pfprof_analysis_options_set_step_pattern (options, opts->step_pattern, &error))
    {
      pfprof_cli_error ("%s: --step-pattern: %s", command, error->message);
      return NULL;
    }
  if (opts->phase != NULL)
    {
      PfprofLoopJudge judge;

      if (!pfprof_loop_judge_from_string (opts->phase, &judge))
        {
          pfprof_cli_error ("%s: --phase: '%s' is not training, eval or all", command, opts->phase);
          return NULL;
        }
      pfprof_analysis_options_set_judge (options, judge);
    }
  {
    /* The option, else the environment (which pfprof view hands on to
     * pfprof-view, whose analysis reads the same variable). */
    const char *when = opts->source_lines ? opts->source_lines : g_getenv ("PFPROF_SOURCE_LINES");
    PfprofSourceLinesPolicy policy;

    if (when != NULL && !pfprof_source_lines_policy_from_string (when, &policy))
      {
        pfprof_cli_error ("%s: %s: '%s' is not auto, always or never", command,
                          opts->source_lines ? "--source-lines" : "PFPROF_SOURCE_LINES", when);
        return NULL;
      }
    if (when != NULL)
      pfprof_analysis_options_set_source_lines (options, policy);
  }
  return g_steal_pointer (&options);
}

void
pfprof_cli_analysis_options_clear (PfprofCliAnalysisOptions *opts)
{
  g_return_if_fail (opts != NULL);

  g_clear_pointer (&opts->config, g_free);
  g_clear_pointer (&opts->rules, g_free);
  g_clear_pointer (&opts->step_pattern, g_free);
  g_clear_pointer (&opts->source_lines, g_free);
  g_clear_pointer (&opts->phase, g_free);
}
