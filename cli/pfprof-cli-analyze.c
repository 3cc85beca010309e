/* SPDX-License-Identifier: MIT */
/* pfprof-cli-analyze.c: load traces into a run and analyze it, for every
 * subcommand. */
#include "pfprof-cli-analyze.h"

#include <stdio.h>

#include "pfprof-cli.h"
#include "pfprof-format.h"
#include "pfprof-importer.h"
#include "pfprof-run-match.h"

typedef struct
{
  const char *name;   /* file being loaded */
  gint64 started;     /* monotonic µs */
  gint64 delay;       /* µs before the first line */
  gint64 last_shown;
  gboolean shown;
  char *clean;        /* name, escaped for the terminal */
} Progress;

/* Shown only once a load has taken a moment, so short loads stay quiet. */
static gboolean
progress_cb (double fraction, gpointer data)
{
  Progress *p = data;
  gint64 now = g_get_monotonic_time ();

  if (now - p->started < p->delay || now - p->last_shown < 100000)
    return TRUE;
  p->last_shown = now;
  p->shown = TRUE;
  if (p->clean == NULL)
    {
      /* The name goes to a terminal: no escape sequences from it. */
      g_autoptr (GString) clean = g_string_new (NULL);

      pfprof_escape_terminal (clean, p->name, FALSE);
      p->clean = g_string_free (g_steal_pointer (&clean), FALSE);
    }
  fprintf (stderr, "\rpfprof: loading %s: %3d%%", p->clean, (int) (CLAMP (fraction, 0.0, 1.0) * 100));
  fflush (stderr);
  return TRUE;
}

/* 0.3 s unless PFPROF_PROGRESS_DELAY_MS says otherwise (the tests: a
 * million-event load now ends sooner than that). */
static gint64
progress_delay (void)
{
  const char *env = g_getenv ("PFPROF_PROGRESS_DELAY_MS");
  guint64 ms = 300;

  if (env != NULL && !g_ascii_string_to_unsigned (env, 10, 0, 60000, &ms, NULL))
    ms = 300;
  return (gint64) ms * 1000;
}

PfprofRun *
pfprof_cli_load (const char *const *paths, guint n_paths, gboolean show_progress)
{
  g_autoptr (GPtrArray) traces = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_trace_free);
  gint64 delay = show_progress ? progress_delay () : 0;

  for (guint i = 0; i < n_paths; i++)
    {
      g_autoptr (GError) error = NULL;
      Progress p = { paths[i], g_get_monotonic_time (), delay, 0, FALSE, NULL };
      PfprofTrace *t = pfprof_importer_load (paths[i], show_progress ? progress_cb : NULL, &p, &error);

      g_free (p.clean);
      if (p.shown)
        fprintf (stderr, "\r\033[K");
      if (t == NULL)
        {
          /* The reader's message starts with the file name. */
          pfprof_cli_error ("%s", error->message);
          return NULL;
        }
      g_ptr_array_add (traces, t);
    }
  {
    g_autoptr (GError) error = NULL;

    if (!pfprof_run_match_traces (traces, &error))
      {
        pfprof_cli_error ("%s", error->message);
        return NULL;
      }
  }
  return pfprof_run_new (g_steal_pointer (&traces));
}

PfprofAnalysis *
pfprof_cli_analyze (const char *const *paths, guint n_paths, const PfprofAnalysisOptions *options,
                    gboolean show_progress)
{
  g_return_val_if_fail (n_paths == 0 || paths != NULL, NULL);

  g_autoptr (PfprofRun) run = pfprof_cli_load (paths, n_paths, show_progress);

  if (run == NULL)
    return NULL;
  return pfprof_analysis_run (run, options);
}
