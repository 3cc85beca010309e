/* SPDX-License-Identifier: MIT */
/* pfprof-cli-analyze.h: the load-then-analyze step the subcommands share. */
#pragma once

#include <glib.h>

#include "pfprof-analysis-options.h"
#include "pfprof-analysis.h"
#include "pfprof-run.h"

G_BEGIN_DECLS

/* Loads the @n_paths traces at @paths (each through the importer table,
 * validated) into one run. With @show_progress, a load that takes a
 * moment (0.3 s, or PFPROF_PROGRESS_DELAY_MS) shows "pfprof: loading
 * FILE: NN%" on stderr, erased when it ends: the caller asks for it only
 * when stderr is a terminal. Traces that are not of one run
 * (pfprof-run-match.h) are refused. On failure prints one line,
 * "pfprof: FILE: problem", and returns NULL; the caller exits with
 * PFPROF_EXIT_USAGE. */
PfprofRun *pfprof_cli_load (const char *const *paths, guint n_paths, gboolean show_progress);

/* pfprof_cli_load(), then the analysis of the run with @options (NULL
 * for the defaults): what every analysing command calls. NULL, with the
 * line printed, when a trace cannot be loaded. */
PfprofAnalysis *pfprof_cli_analyze (const char *const *paths, guint n_paths,
                                    const PfprofAnalysisOptions *options, gboolean show_progress);

G_END_DECLS
