/* SPDX-License-Identifier: MIT */
/* pfprof-cli-program.c: options and folders of the commands that run a
 * program (pfprof-cli-program.h). */
#include "pfprof-config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "pfprof-cli-program.h"
#include "pfprof-cli.h"

int
pfprof_cli_program_parse (GOptionContext *context, const gboolean *help, int argc, char **argv,
                          const char *usage, char ***command)
{
  g_autofree char **opts = g_new0 (char *, (gsize) argc + 1);
  g_autoptr (GError) error = NULL;
  int n_opts = 0;

  /* Options end at the first "--"; everything after is PROGRAM's. */
  *command = NULL;
  for (int i = 0; i < argc; i++)
    {
      if (i > 0 && strcmp (argv[i], "--") == 0)
        {
          *command = argv + i + 1;
          break;
        }
      opts[n_opts++] = argv[i];
    }
  /* GOption's own --help calls exit(); answer it ourselves. */
  g_option_context_set_help_enabled (context, FALSE);
  if (!g_option_context_parse (context, &n_opts, &opts, &error))
    {
      pfprof_cli_error ("%s", error->message);
      return PFPROF_EXIT_USAGE;
    }
  if (*help)
    {
      g_autofree char *text = g_option_context_get_help (context, TRUE, NULL);

      fputs (text, stdout);
      return PFPROF_EXIT_OK;
    }
  if (n_opts > 1)
    {
      pfprof_cli_error ("unexpected argument '%s'; put the program after '--' (%s)", opts[1], usage);
      return PFPROF_EXIT_USAGE;
    }
  if (*command == NULL || (*command)[0] == NULL)
    {
      pfprof_cli_error ("no program given; usage: %s", usage);
      return PFPROF_EXIT_USAGE;
    }
  return -1;
}

void
pfprof_cli_program_remove_tree (const char *dir)
{
  g_return_if_fail (dir != NULL);

  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d != NULL)
    while ((name = g_dir_read_name (d)) != NULL)
      {
        g_autofree char *path = g_build_filename (dir, name, NULL);

        if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
          pfprof_cli_program_remove_tree (path);
        else
          g_unlink (path);
      }
  g_rmdir (dir);
}

void
pfprof_cli_program_default_signals (void)
{
  struct sigaction dfl;

  memset (&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset (&dfl.sa_mask);
  sigaction (SIGINT, &dfl, NULL);
  sigaction (SIGTERM, &dfl, NULL);
  sigaction (SIGHUP, &dfl, NULL);
}
