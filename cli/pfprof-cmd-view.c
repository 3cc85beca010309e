/* SPDX-License-Identifier: MIT */
/* pfprof-cmd-view.c: `pfprof view [TRACE...]` runs the pfprof-view app.
 *
 * The pfprof binary never links GTK (so `pfprof report` works on a
 * headless CI machine): it executes the separate pfprof-view binary,
 * looked up next to itself (installed layout), in the build tree's gui/
 * folder (running from a build), then in PATH. */
#include "pfprof-config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pfprof-cli-program.h"
#include "pfprof-cli.h"

#define VIEW_NAME "pfprof-view"

static char *
find_view (void)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);

  if (self != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (self);
      const char *candidates[] = { VIEW_NAME, "../gui/" VIEW_NAME };

      for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
        {
          char *path = g_build_filename (dir, candidates[i], NULL);

          if (g_file_test (path, G_FILE_TEST_IS_REGULAR) && access (path, X_OK) == 0)
            return path;
          g_free (path);
        }
    }
  return g_find_program_in_path (VIEW_NAME);
}

/* GTK would say "cannot open display: " and exit 1, the code of a
 * finding that fired: one clear line instead. */
static gboolean
have_display (void)
{
  if (g_getenv ("GDK_BACKEND") == NULL && (g_getenv ("DISPLAY") == NULL || *g_getenv ("DISPLAY") == '\0')
      && (g_getenv ("WAYLAND_DISPLAY") == NULL || *g_getenv ("WAYLAND_DISPLAY") == '\0'))
    {
      pfprof_cli_error ("view: no display (neither DISPLAY nor WAYLAND_DISPLAY is set); "
                        "'pfprof report' and 'pfprof render' work without one");
      return FALSE;
    }
  return TRUE;
}

gboolean
pfprof_cli_view_start (const char *trace)
{
  g_autofree char *view = NULL;
  pid_t pid;

  g_return_val_if_fail (trace != NULL, FALSE);

  if (!have_display ())
    return FALSE;
  view = find_view ();
  if (view == NULL)
    {
      pfprof_cli_error ("view: %s was not found next to pfprof or in PATH", VIEW_NAME);
      return FALSE;
    }
  pid = fork ();
  if (pid < 0)
    {
      pfprof_cli_error ("view: cannot start %s: %s", view, g_strerror (errno));
      return FALSE;
    }
  if (pid == 0)
    {
      static const char *const drop[] = { "CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH", "PFPROF_OUTPUT",
                                          "PFPROF_STATUS_DIR", "PFPROF_HOOK_DIR", "PFPROF_PYTHON_HOOKS" };
      char *args[] = { (char *) VIEW_NAME, (char *) trace, NULL };

      /* A session of its own: the terminal's Ctrl-C for the program
       * leaves the window open; the recording's settings stay behind. */
      setsid ();
      pfprof_cli_program_default_signals ();
      for (guint i = 0; i < G_N_ELEMENTS (drop); i++)
        unsetenv (drop[i]);
      execv (view, args);
      _exit (127);
    }
  return TRUE;
}

const PfprofCliHelp pfprof_cmd_view_help = {
  "view",
  "Open traces in the timeline app",
  "[TRACE...]",
  "Opens traces in the timeline app (pfprof-view), with the findings listed\n"
  "and marked; selecting a finding steps through all its occurrences,\n"
  "costliest first or in time order (By time), marked on the overview strip.\n"
  "A trace that is still being recorded is followed: its new events and\n"
  "findings appear as the collector commits them, until the recording ends\n"
  "(pfprof record --view opens it so). Without a trace, opens an empty window\n"
  "(Ctrl+O to open). pfprof-view is looked up next to pfprof, then in PATH.\n"
  "\n"
  "The timeline opens on the steady state (from the end of the warm-up\n"
  "steps, as pfprof render draws it); 0 fits the whole run. Ctrl+F or /\n"
  "searches kernel, API, NVTX and finding names (Enter or F3: next match,\n"
  "Shift+Enter or Shift+F3: previous). A drag on the time ruler, or\n"
  "Shift+drag on the rows, selects an interval and says what it holds\n"
  "(GPU busy and idle time, kernels, copies); F focuses it, M marks it (or\n"
  "the instant under the pointer; Shift+M removes the marks), Escape or a\n"
  "click clears it. The side panel shows the step ledger of pfprof\n"
  "report. Ctrl+T opens another trace in a tab. Ctrl+? lists every key.\n",
  "  0  the window was closed\n"
  "  2  a TRACE is not a readable file, or pfprof-view was not found\n",
  "  DISPLAY, WAYLAND_DISPLAY  the display the window opens on (GTK 4)\n",
  "  TRACE.pfprof  traces, Nsight Systems SQLite exports or torch.profiler traces\n",
  "  pfprof view run.pfprof\n"
  "  pfprof view rank0.pfprof rank1.pfprof\n"
  "  # Watch a recording as it goes\n"
  "  pfprof record --view -- python train.py\n",
  "pfprof(1), pfprof-render(1), pfprof-report(1)",
};

int
pfprof_cmd_view (int argc, char **argv)
{
  g_autofree char *view = NULL;
  gboolean options_done = FALSE;
  char **args;

  g_return_val_if_fail (argv != NULL, PFPROF_EXIT_USAGE);

  for (int i = 1; i < argc; i++)
    {
      if (!options_done && strcmp (argv[i], "--") == 0)
        {
          options_done = TRUE;
          continue;
        }
      if (!options_done && (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0))
        {
          g_autoptr (GOptionContext) ctx = pfprof_cli_help_context_new (&pfprof_cmd_view_help);
          g_autofree char *text = g_option_context_get_help (ctx, TRUE, NULL);

          fputs (text, stdout);
          return PFPROF_EXIT_OK;
        }
      /* An option of pfprof-view itself (GApplication's; none takes a
       * separate value), passed on for it to judge. */
      if (!options_done && argv[i][0] == '-')
        continue;
      /* Say it here, on the terminal, rather than in a dialog. */
      if (!g_file_test (argv[i], G_FILE_TEST_IS_REGULAR))
        {
          /* The reader's wording, so every command says the same. */
          pfprof_cli_error ("%s: %s", argv[i],
                            g_file_test (argv[i], G_FILE_TEST_EXISTS) ? "not a regular file"
                                                                      : "no such file");
          return PFPROF_EXIT_USAGE;
        }
    }
  if (!have_display ())
    return PFPROF_EXIT_USAGE;
  view = find_view ();
  if (view == NULL)
    {
      pfprof_cli_error ("view: %s was not found next to pfprof or in PATH (was pfprof built without GTK 4?)",
                        VIEW_NAME);
      return PFPROF_EXIT_USAGE;
    }
  args = g_new0 (char *, (gsize) argc + 1);
  args[0] = (char *) VIEW_NAME;
  for (int i = 1; i < argc; i++)
    args[i] = argv[i];
  execv (view, args);
  pfprof_cli_error ("view: cannot run %s: %s", view, g_strerror (errno));
  g_free (args);
  return PFPROF_EXIT_USAGE;
}
