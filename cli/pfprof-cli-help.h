/* SPDX-License-Identifier: MIT */
/* pfprof-cli-help.h: the one source of a command's documentation.
 *
 * Each pfprof-cmd-NAME.c defines a PfprofCliHelp next to its options;
 * `pfprof NAME --help` prints it around GOptionContext's option list, and
 * scripts/help-to-man.py turns that --help text into pfprof-NAME(1), one
 * heading per man section, so the two cannot drift. Texts are wrapped at
 * 80 columns by hand; a list item is "  KEY  meaning".
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  const char *name;        /* "report"; NULL for pfprof itself */
  const char *summary;     /* one line: `pfprof --help`, the man page's NAME */
  const char *synopsis;    /* what follows "pfprof NAME [OPTION…]" */
  const char *description; /* paragraphs under the summary: DESCRIPTION */
  const char *exit_status; /* items "  CODE  meaning": EXIT STATUS */
  const char *environment; /* items "  VARIABLE  meaning", or NULL */
  const char *files;       /* items "  PATH  meaning", or NULL */
  const char *examples;    /* "  pfprof ..." lines, each under a comment line */
  const char *see_also;    /* "pfprof(1), pfprof-report(1)" */
} PfprofCliHelp;

/* A context whose --help prints "Usage: pfprof NAME [OPTION…] SYNOPSIS",
 * the summary and description, the options, then the sections. Entries
 * for G_OPTION_REMAINING take no arg_description: the synopsis says it. */
GOptionContext *pfprof_cli_help_context_new (const PfprofCliHelp *help);

/* Appends the sections after the options ("Exit status:", "Environment:",
 * "Files:", "Examples:", "See also:"), each under its heading, to @out. */
void pfprof_cli_help_append_sections (const PfprofCliHelp *help, GString *out);

/* -f is --force in every command; --format's short option is -F. Before
 * that, report, export and diff took `-f FORMAT`: when @argv holds -f
 * followed by one of @formats (or -fFORMAT), says so naming --format and
 * returns FALSE, rather than replacing a file the user did not mean to. */
gboolean pfprof_cli_help_refuse_old_format (const char *command, int argc, char **argv,
                                            const char *const *formats);

G_END_DECLS
