/* pfprof-cli.h: the pfprof command table.
 *
 * How to add a subcommand (as in git's builtin.h):
 *   1. Write cli/pfprof-cmd-NAME.c with
 *        int pfprof_cmd_NAME (int argc, char **argv);
 *      argv[0] is the subcommand's name. Parse options with GOptionContext,
 *      answer --help, and return the exit code (0 ok, 1 findings at the
 *      gate, 2 usage error or unreadable input). Never call exit().
 *   2. Declare it below and add one row to `commands` in cli/pfprof.c.
 *   3. Add the file to cli/meson.build and a test to tests/cli/.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Exit codes shared by every subcommand. */
enum
{
  PFPROF_EXIT_OK = 0,
  PFPROF_EXIT_FINDINGS = 1, /* report: a finding at or above --fail-on */
  PFPROF_EXIT_USAGE = 2,    /* bad arguments, unreadable or invalid input */
};

typedef int (*PfprofCommandFunc) (int argc, char **argv);

typedef struct
{
  const char *name;
  PfprofCommandFunc func;
  const char *summary; /* one line for `pfprof --help` */
  gboolean hidden;     /* not listed (developer tools) */
} PfprofCommand;

int pfprof_cmd_record (int argc, char **argv);
int pfprof_cmd_report (int argc, char **argv);
int pfprof_cmd_render (int argc, char **argv);
int pfprof_cmd_view (int argc, char **argv);
int pfprof_cmd_generate (int argc, char **argv);
int pfprof_cmd_export (int argc, char **argv);
int pfprof_cmd_diff (int argc, char **argv);
int pfprof_cmd_import (int argc, char **argv);

/* Prints "pfprof: MESSAGE" to stderr, one line, for user-facing errors. */
void pfprof_cli_error (const char *format, ...) G_GNUC_PRINTF (1, 2);

G_END_DECLS
