/* pfprof-cmd-import.c: `pfprof import NSYS.sqlite -o TRACE.pfprof`.
 *
 * Every command reads Nsight Systems SQLite exports directly; importing
 * once gives a pfprof trace that loads faster, is smaller to keep as a CI
 * artifact, and carries its origin in its metadata (meta "source").
 * The file is read by the trace reader (which hands nsys exports to
 * model/pfprof-nsys-import.c) and written by the trace writer.
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

int
pfprof_cmd_import (int argc, char **argv)
{
  g_autofree char *output = NULL;
  g_auto (GStrv) inputs = NULL;
  gboolean force = FALSE;
  const GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "pfprof trace to write (required)", "TRACE" },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force, "Replace TRACE if it exists", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &inputs, NULL, "NSYS.sqlite" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("NSYS.sqlite -o TRACE.pfprof");
  g_autoptr (GError) error = NULL;
  g_autoptr (PfprofTrace) trace = NULL;

  g_option_context_set_summary (ctx,
    "Converts an Nsight Systems SQLite export (nsys export --type sqlite) into a\n"
    "pfprof trace. Not needed to analyze one: report, render, view, export and diff\n"
    "read nsys exports directly. Schema 3.x is read (see docs/interop.md).");
  g_option_context_set_description (ctx,
    "Exit status: 0 written, 2 usage error, unreadable input or unwritable output.\n");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      pfprof_cli_error ("import: %s", error->message);
      return PFPROF_EXIT_USAGE;
    }
  if (inputs == NULL || inputs[0] == NULL || inputs[1] != NULL)
    {
      pfprof_cli_error ("import: give one export; "
                        "usage: pfprof import NSYS.sqlite -o TRACE.pfprof");
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
  if (pfprof_cli_trace_output_write ("import", trace, write_trace, 0, output, force) != PFPROF_EXIT_OK)
    return PFPROF_EXIT_USAGE;
  printf ("%s: %" G_GUINT64_FORMAT " events from %s\n", output, pfprof_trace_n_events (trace),
          inputs[0]);
  return PFPROF_EXIT_OK;
}
