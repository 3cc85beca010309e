/* pfprof-cli-analyze.c: load and analyze traces for a subcommand. */
#include "pfprof-cli-analyze.h"

#include "pfprof-cli.h"
#include "pfprof-importer.h"

PfprofAnalysis *
pfprof_cli_analyze (const char *const *paths, guint n_paths, const PfprofAnalysisOptions *options,
                    const char *command)
{
  g_autoptr (GError) error = NULL;
  GPtrArray *traces = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_trace_free);
  PfprofAnalysis *analysis;

  for (guint i = 0; i < n_paths; i++)
    {
      PfprofTrace *t = pfprof_importer_load (paths[i], NULL, NULL, &error);

      if (t == NULL)
        {
          /* The reader's message names the file. */
          pfprof_cli_error ("%s", error->message);
          g_ptr_array_unref (traces);
          return NULL;
        }
      g_ptr_array_add (traces, t);
    }
  analysis = pfprof_analysis_run (traces, options, &error);
  if (analysis == NULL)
    pfprof_cli_error ("%s: %s", command, error->message);
  return analysis;
}
