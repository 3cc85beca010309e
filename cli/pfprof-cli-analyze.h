/* pfprof-cli-analyze.h: the load-then-analyze step the subcommands share. */
#pragma once

#include <glib.h>

#include "pfprof-analysis-options.h"
#include "pfprof-analysis.h"

G_BEGIN_DECLS

/* Loads the @n_paths traces at @paths (validated by the reader) and
 * analyzes them together with @options (NULL for the defaults). On
 * failure prints one line, "pfprof: FILE: problem" or "pfprof: COMMAND:
 * problem", and returns NULL; the caller exits with PFPROF_EXIT_USAGE. */
PfprofAnalysis *pfprof_cli_analyze (const char *const *paths, guint n_paths,
                                    const PfprofAnalysisOptions *options, const char *command);

G_END_DECLS
