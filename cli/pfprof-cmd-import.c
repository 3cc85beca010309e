/* SPDX-License-Identifier: MIT */
/* pfprof-cmd-import.c: `pfprof import NSYS.sqlite|TRACE.json[.gz] -o TRACE.pfprof`.
 *
 * Every command reads Nsight Systems SQLite exports and torch.profiler
 * traces directly; importing once gives a pfprof trace that loads faster,
 * is smaller to keep as a CI artifact, and carries its origin in its
 * metadata (meta "source"). The file is read through the importer table
 * (analyzer/model/pfprof-importer.h) and written by the trace writer.
 */
#include "pfprof-config.h"

#include <stdio.h>
#include <string.h>

#include "pfprof-cli-trace-output.h"
#include "pfprof-cli.h"
#include "pfprof-importer.h"
#include "pfprof-trace-writer.h"

/* Writes @trace to @w: metadata, strings (ids renumbered by the writer),
 * then every table. */
static int
write_trace (PfprofTraceWriter *w, const PfprofTrace *trace)
{
  g_autofree guint32 *ids = g_new0 (guint32, trace->strings->len + 1);
  int rc;

  if ((rc = pfprof_cli_trace_output_copy_meta (w, trace)) != PFPROF_WRITER_OK)
    return rc;
  for (guint i = 0; i < trace->strings->len; i++)
    {
      const char *s = g_ptr_array_index (trace->strings, i);

      ids[i] = pfprof_trace_writer_intern (w, s ? s : "");
      if (ids[i] == PFPROF_NONE)
        return PFPROF_WRITER_ERR_NOMEM;
    }
#define REMAP(field) ((field) = (field) < trace->strings->len ? ids[(field)] : PFPROF_NONE)
  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    {
      GArray *a = trace->tables[t];
      gsize size = g_array_get_element_size (a);
      g_autofree guchar *copy = g_malloc (MAX (size, 1));

      for (guint i = 0; i < a->len; i++)
        {
          void *rec = copy;

          memcpy (copy, a->data + (gsize) i * size, size);
          switch ((PfprofTableId) t)
            {
            case PFPROF_TABLE_KERNELS: REMAP (((PfprofKernelRecord *) rec)->name_id); break;
            case PFPROF_TABLE_API_CALLS: REMAP (((PfprofApiRecord *) rec)->name_id); break;
            case PFPROF_TABLE_NVTX:
              REMAP (((PfprofNvtxRecord *) rec)->name_id);
              REMAP (((PfprofNvtxRecord *) rec)->domain_id);
              break;
            case PFPROF_TABLE_DEVICES:
              REMAP (((PfprofDeviceRecord *) rec)->name_id);
              REMAP (((PfprofDeviceRecord *) rec)->uuid_id);
              break;
            case PFPROF_TABLE_THREADS: REMAP (((PfprofThreadRecord *) rec)->name_id); break;
            case PFPROF_TABLE_PYTHON_SITES:
              REMAP (((PfprofPythonSiteRecord *) rec)->api_id);
              REMAP (((PfprofPythonSiteRecord *) rec)->file_id);
              REMAP (((PfprofPythonSiteRecord *) rec)->function_id);
              REMAP (((PfprofPythonSiteRecord *) rec)->caller_file_id);
              REMAP (((PfprofPythonSiteRecord *) rec)->caller_function_id);
              break;
            default: break;
            }
          if ((rc = pfprof_trace_writer_append (w, (PfprofTableId) t, copy)) != PFPROF_WRITER_OK)
            return rc;
        }
    }
#undef REMAP
  return pfprof_trace_writer_commit (w);
}

const PfprofCliHelp pfprof_cmd_import_help = {
  "import",
  "Convert an nsys export or a torch.profiler trace into a pfprof trace",
  "NSYS.sqlite|TRACE.json[.gz] -o TRACE.pfprof",
  "Converts an Nsight Systems SQLite export (nsys export --type sqlite) or a\n"
  "torch.profiler trace (*.pt.trace.json[.gz]) into a pfprof trace. Not needed\n"
  "to analyze one: report, render, view, export and diff read both directly.\n"
  "nsys schema 3.x and both Kineto JSON schemas are read (docs/interop.md):\n"
  "kernels, copies, memsets, synchronizations, CUDA API calls and NVTX ranges.\n"
  "TRACE is written under a temporary name beside it and renamed when\n"
  "finished, so a failed import never leaves half a trace.\n",
  "  0  TRACE was written\n"
  "  2  usage error, unreadable input, unwritable output\n"
  "  3  TRACE exists and --force was not given\n",
  NULL,
  "  NSYS.sqlite  made by nsys export --type sqlite REPORT.nsys-rep\n"
  "  TRACE.json[.gz]  written by torch.profiler (export_chrome_trace)\n"
  "  TRACE.pfprof  the pfprof trace written (docs/trace-format.md)\n",
  "  # Convert, then report on the pfprof trace\n"
  "  nsys export --type sqlite -o run.sqlite run.nsys-rep\n"
  "  pfprof import run.sqlite -o run.pfprof\n"
  "  pfprof report run.pfprof\n",
  "pfprof(1), pfprof-report(1), nsys(1)",
};

int
pfprof_cmd_import (int argc, char **argv)
{
  g_autofree char *output = NULL;
  g_return_val_if_fail (argv != NULL, PFPROF_EXIT_USAGE);

  g_auto (GStrv) inputs = NULL;
  gboolean force = FALSE;
  const GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "pfprof trace to write (required)", "TRACE" },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force, "Replace TRACE if it exists", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &inputs, NULL, NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = pfprof_cli_help_context_new (&pfprof_cmd_import_help);
  g_autoptr (GError) error = NULL;
  g_autoptr (PfprofTrace) trace = NULL;
  int code;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      pfprof_cli_error ("import: %s", error->message);
      return PFPROF_EXIT_USAGE;
    }
  if (inputs == NULL || inputs[0] == NULL || inputs[1] != NULL)
    {
      pfprof_cli_error ("import: give one export; "
                        "usage: pfprof import NSYS.sqlite|TRACE.json[.gz] -o TRACE.pfprof");
      return PFPROF_EXIT_USAGE;
    }
  if (output == NULL || *output == '\0')
    {
      pfprof_cli_error ("import: -o TRACE.pfprof is required");
      return PFPROF_EXIT_USAGE;
    }
  trace = pfprof_importer_load (inputs[0], NULL, NULL, &error);
  if (trace == NULL)
    {
      pfprof_cli_error ("%s", error->message);
      return PFPROF_EXIT_USAGE;
    }
  /* Written under a temporary name beside TRACE and renamed once
   * finished, so a failed import never touches an existing TRACE. */
  if ((code = pfprof_cli_trace_output_write ("import", trace, write_trace, 0, output, force)) != PFPROF_EXIT_OK)
    return code;
  printf ("%s: %" G_GUINT64_FORMAT " events from %s\n", output, pfprof_trace_n_events (trace),
          inputs[0]);
  return PFPROF_EXIT_OK;
}
