/* SPDX-License-Identifier: MIT */
/* pfprof-cli-program.h: what the commands that run a program share
 * (`record`, `try`): options before "--", the program after it, and the
 * private folder they remove afterwards. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Parses @argv (argv[0] is the subcommand) with @context up to the first
 * "--"; *@command is what follows it (NULL when there is no "--"). The
 * option -h/--help, whose flag is @help, prints @context's help. Returns
 * -1 to go on, else the exit code: 0 after --help, PFPROF_EXIT_USAGE with
 * a one-line message for bad options, an argument before "--" or no
 * program (@usage is the usage line of that message). */
int pfprof_cli_program_parse (GOptionContext *context, const gboolean *help, int argc, char **argv,
                              const char *usage, char ***command);

/* Removes @dir and everything in it, never following a link. */
void pfprof_cli_program_remove_tree (const char *dir);

/* In a forked child before exec: SIGINT, SIGTERM and SIGHUP back to their
 * default actions (the launcher forwards them; what it runs must not
 * inherit its handlers). */
void pfprof_cli_program_default_signals (void);

G_END_DECLS
