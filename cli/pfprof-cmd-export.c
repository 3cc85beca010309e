/* pfprof-cmd-export.c: `pfprof export --format chrome-json TRACE... -o OUT`.
 *
 * Loads the traces (pfprof traces or Nsight Systems SQLite exports),
 * runs the analysis so findings and steps come along, and writes the
 * timeline in a format other viewers open (analyzer/pfprof-export-*.h).
 */
#include "pfprof-config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pfprof-analysis-options.h"
#include "pfprof-analysis.h"
#include "pfprof-cli-analyze.h"
#include "pfprof-cli-output.h"
#include "pfprof-cli.h"
#include "pfprof-export-chrome.h"

typedef struct
{
  PfprofCliOutput *file; /* NULL: standard output */
  GError *error;
} Sink;

static gboolean
sink_write (const char *data, gsize len, gpointer user_data)
{
  Sink *sink = user_data;

  if (sink->file != NULL)
    return pfprof_cli_output_append (sink->file, data, len, &sink->error);
  if (fwrite (data, 1, len, stdout) != len)
    {
      g_set_error (&sink->error, G_IO_ERROR, g_io_error_from_errno (errno),
                   "cannot write to standard output: %s", g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

int
pfprof_cmd_export (int argc, char **argv)
{
  g_autofree char *format = NULL;
  g_autofree char *output = NULL;
  g_autofree char *rules = NULL;
  g_autofree char *config = NULL;
  g_autofree char *step_pattern = NULL;
  g_auto (GStrv) inputs = NULL;
  gboolean force = FALSE;
  const GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "chrome-json (default; also 'perfetto')", "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "File to write ('-' or none: standard output)", "FILE" },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force, "Replace FILE if it exists", NULL },
    { "rules", 0, 0, G_OPTION_ARG_STRING, &rules, "Rules whose findings to include (as in report)", "LIST" },
    { "config", 0, 0, G_OPTION_ARG_FILENAME, &config, "Analysis config (as in report)", "FILE" },
    { "step-pattern", 0, 0, G_OPTION_ARG_STRING, &step_pattern, "NVTX step range regex (as in report)", "REGEX" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &inputs, NULL, "TRACE..." },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("TRACE... [-o OUT.json]");
  g_autoptr (GError) error = NULL;
  g_autoptr (PfprofAnalysisOptions) options = pfprof_analysis_options_new ();
  g_autoptr (PfprofAnalysis) analysis = NULL;
  Sink sink = { NULL, NULL };
  gboolean ok;

  g_option_context_set_summary (ctx,
    "Writes traces, their detected steps and the findings as Trace Event Format JSON,\n"
    "which ui.perfetto.dev and chrome://tracing open.");
  g_option_context_set_description (ctx,
    "Each traced process is a process with its host threads (CUDA API calls, NVTX\n"
    "ranges) and a 'pfprof steps' track; each of its GPUs is a process with one\n"
    "thread per stream (kernels, copies, memsets). Arrows join each API call to\n"
    "the GPU work it launched; findings are instant events whose arguments hold\n"
    "the rule, message and fix. Times are microseconds from the earliest event.\n"
    "TRACE may be a pfprof trace or an Nsight Systems SQLite export.\n"
    "Exit status: 0 written, 2 usage error, unreadable trace or unwritable output.\n");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      pfprof_cli_error ("export: %s", error->message);
      return PFPROF_EXIT_USAGE;
    }
  if (format != NULL && strcmp (format, "chrome-json") != 0 && strcmp (format, "perfetto") != 0
      && strcmp (format, "chrome") != 0)
    {
      pfprof_cli_error ("export: unknown format '%s' (chrome-json)", format);
      return PFPROF_EXIT_USAGE;
    }
  if (inputs == NULL || inputs[0] == NULL)
    {
      pfprof_cli_error ("export: no trace given; usage: pfprof export TRACE... -o OUT.json");
      return PFPROF_EXIT_USAGE;
    }
  if (config && !pfprof_analysis_options_load_file (options, config, &error))
    {
      pfprof_cli_error ("%s", error->message);
      return PFPROF_EXIT_USAGE;
    }
  if (rules && !pfprof_analysis_options_select_rules (options, rules, &error))
    {
      pfprof_cli_error ("export: --rules: %s", error->message);
      return PFPROF_EXIT_USAGE;
    }
  if (step_pattern && !pfprof_analysis_options_set_step_pattern (options, step_pattern, &error))
    {
      pfprof_cli_error ("export: --step-pattern: %s", error->message);
      return PFPROF_EXIT_USAGE;
    }

  analysis = pfprof_cli_analyze ((const char *const *) inputs, g_strv_length (inputs), options,
                                 "export");
  if (analysis == NULL)
    return PFPROF_EXIT_USAGE;

  if (output != NULL && strcmp (output, "-") != 0
      && (sink.file = pfprof_cli_output_open (output, force, &error)) == NULL)
    {
      pfprof_cli_error ("export: %s", error->message);
      return PFPROF_EXIT_USAGE;
    }
  ok = pfprof_export_chrome (analysis, sink_write, &sink);
  if (ok && sink.file != NULL)
    ok = pfprof_cli_output_commit (g_steal_pointer (&sink.file), &sink.error);
  else if (ok && fflush (stdout) != 0)
    {
      g_set_error (&sink.error, G_IO_ERROR, g_io_error_from_errno (errno),
                   "cannot write to standard output: %s", g_strerror (errno));
      ok = FALSE;
    }
  if (!ok)
    {
      pfprof_cli_output_abort (sink.file);
      pfprof_cli_error ("export: %s", sink.error ? sink.error->message : "write failed");
      g_clear_error (&sink.error);
      return PFPROF_EXIT_USAGE;
    }
  return PFPROF_EXIT_OK;
}
