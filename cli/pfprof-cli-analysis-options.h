/* SPDX-License-Identifier: MIT */
/* pfprof-cli-analysis-options.h: the options of every command that
 * analyses traces (report, export, diff, render): --config, --rules,
 * --step-pattern and --source-lines (else PFPROF_SOURCE_LINES), with one
 * help text and one way of applying them.
 *
 * A command adds them to its option context after its own entries,
 * parses, then builds the PfprofAnalysisOptions it hands to
 * pfprof_cli_analyze(). The config file is read first, so --rules and
 * --step-pattern on the command line override its keys.
 */
#pragma once

#include <glib.h>

#include "pfprof-analysis-options.h"

G_BEGIN_DECLS

typedef struct
{
  char *config;       /* --config FILE */
  char *rules;        /* --rules LIST */
  char *step_pattern; /* --step-pattern REGEX */
  char *source_lines; /* --source-lines WHEN */
  char *phase;        /* --phase PHASE */
} PfprofCliAnalysisOptions;

/* Adds the four options to @context's main group, parsed into @opts
 * (zeroed by the caller; freed by pfprof_cli_analysis_options_clear()). */
void pfprof_cli_analysis_options_add (PfprofCliAnalysisOptions *opts, GOptionContext *context);

/* The analysis options @opts ask for; NULL after one "pfprof: COMMAND:
 * ..." line when the config file or a value is bad (the caller exits
 * with PFPROF_EXIT_USAGE). */
PfprofAnalysisOptions *pfprof_cli_analysis_options_build (const PfprofCliAnalysisOptions *opts,
                                                          const char *command);

void pfprof_cli_analysis_options_clear (PfprofCliAnalysisOptions *opts);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (PfprofCliAnalysisOptions, pfprof_cli_analysis_options_clear)

G_END_DECLS
