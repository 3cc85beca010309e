/* SPDX-License-Identifier: MIT */
/* pfprof-cli.h: the pfprof command table.
 *
 * How to add a subcommand (as in git's builtin.h):
 *   1. Write cli/pfprof-cmd-NAME.c with
 *        int pfprof_cmd_NAME (int argc, char **argv);
 *      argv[0] is the subcommand's name, and a PfprofCliHelp
 *        const PfprofCliHelp pfprof_cmd_NAME_help = { "NAME", ... };
 *      (pfprof-cli-help.h: summary, synopsis, description, exit status,
 *      environment, files, examples; --help and the man page print it).
 *      Parse options with pfprof_cli_help_context_new (&pfprof_cmd_NAME_help),
 *      answer --help, and return one of the exit codes below. Never call
 *      exit(). Short options mean the same in every command: -o --output,
 *      -f --force, -F --format, -q --quiet.
 *   2. Declare both below and add one row to `commands` in cli/pfprof.c.
 *   3. Add the file to cli/meson.build and NAME to the man pages' list
 *      there, and a test under tests/cli/.
 *   A command that analyses traces takes --config, --rules and
 *   --step-pattern from pfprof-cli-analysis-options.h and loads them with
 *   pfprof_cli_analyze() (pfprof-cli-analyze.h), which refuses traces of
 *   different runs.
 */
#pragma once

#include <glib.h>

#include "pfprof-cli-help.h"

G_BEGIN_DECLS

/* Exit codes shared by every subcommand. */
enum
{
  PFPROF_EXIT_OK = 0,
  PFPROF_EXIT_FINDINGS = 1, /* report: a finding at or above --fail-on */
  PFPROF_EXIT_USAGE = 2,    /* bad arguments, unreadable or invalid input */
  PFPROF_EXIT_EXISTS = 3,   /* the output file exists and --force was not given */
};

typedef int (*PfprofCommandFunc) (int argc, char **argv);

typedef struct
{
  PfprofCommandFunc func;
  const PfprofCliHelp *help; /* name, summary, the --help and man texts */
  gboolean hidden;           /* not listed (developer tools) */
} PfprofCommand;

int pfprof_cmd_record (int argc, char **argv);
/* Whether @value (NULL: none given) is a valid --sample ON/EVERY
 * (seconds, 0 < ON < EVERY); FALSE with one line said. */
gboolean pfprof_cmd_record_check_sample (const char *value);
int pfprof_cmd_report (int argc, char **argv);
int pfprof_cmd_render (int argc, char **argv);
int pfprof_cmd_view (int argc, char **argv);

/* Starts pfprof-view on @trace and returns at once (the window lives on
 * after pfprof exits); FALSE, with one line said, when it cannot (no
 * display, no pfprof-view). */
gboolean pfprof_cli_view_start (const char *trace);
int pfprof_cmd_generate (int argc, char **argv);
int pfprof_cmd_export (int argc, char **argv);
int pfprof_cmd_diff (int argc, char **argv);
int pfprof_cmd_import (int argc, char **argv);
int pfprof_cmd_try (int argc, char **argv);

extern const PfprofCliHelp pfprof_cmd_record_help;
extern const PfprofCliHelp pfprof_cmd_report_help;
extern const PfprofCliHelp pfprof_cmd_render_help;
extern const PfprofCliHelp pfprof_cmd_view_help;
extern const PfprofCliHelp pfprof_cmd_generate_help;
extern const PfprofCliHelp pfprof_cmd_export_help;
extern const PfprofCliHelp pfprof_cmd_diff_help;
extern const PfprofCliHelp pfprof_cmd_import_help;
extern const PfprofCliHelp pfprof_cmd_try_help;

/* Prints "pfprof: MESSAGE" to stderr, one line, for user-facing errors. */
void pfprof_cli_error (const char *format, ...) G_GNUC_PRINTF (1, 2);

/* The exit code for an error of pfprof-safe-output.h: PFPROF_EXIT_EXISTS
 * for G_FILE_ERROR_EXIST (the file is there and --force was not given),
 * else PFPROF_EXIT_USAGE. */
int pfprof_cli_output_exit_code (const GError *error);

/* Whether to colour what @command writes, from --color @when (NULL,
 * "auto", "always" or "never"): auto colours standard output when it is a
 * terminal (@to_file FALSE), NO_COLOR is unset and TERM is not dumb.
 * FALSE after the one-line error for any other word. */
gboolean pfprof_cli_color (const char *command, const char *when, gboolean to_file,
                           gboolean *color);

G_END_DECLS
