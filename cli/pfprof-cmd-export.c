/* SPDX-License-Identifier: MIT */
/* pfprof-cmd-export.c: `pfprof export --format chrome-json TRACE... -o OUT`
 * and `pfprof export --format sqlite TRACE -o ROWS.sqlite`.
 *
 * chrome-json loads the traces (pfprof traces or Nsight Systems SQLite
 * exports), runs the analysis so findings and steps come along, and
 * writes the timeline in a format other viewers open
 * (analyzer/report/pfprof-export-*.h). sqlite rewrites one trace with every
 * table as plain rows (trace format 1, PFPROF_WRITER_ROWS), for people who
 * query traces with SQL: format 2 keeps event tables as compressed chunks.
 * An -o name ending in .gz is written gzip-compressed (zlib).
 */
#include "pfprof-config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "pfprof-analysis-options.h"
#include "pfprof-analysis.h"
#include "pfprof-cli-analysis-options.h"
#include "pfprof-cli-analyze.h"
#include "pfprof-cli-help.h"
#include "pfprof-safe-output.h"
#include "pfprof-cli-trace-output.h"
#include "pfprof-cli.h"
#include "pfprof-export-chrome.h"
#include "pfprof-importer.h"
#include "pfprof-trace-writer.h"

typedef struct
{
  PfprofSafeOutput *file; /* NULL: standard output */
  z_stream *gz;          /* -o NAME.gz: what is written goes through deflate */
  GError *error;
} Sink;

static gboolean
sink_put (Sink *sink, const char *data, gsize len)
{
  if (sink->file != NULL)
    return pfprof_safe_output_append (sink->file, data, len, &sink->error);
  if (fwrite (data, 1, len, stdout) != len)
    {
      g_set_error (&sink->error, G_IO_ERROR, g_io_error_from_errno (errno),
                   "cannot write to standard output: %s", g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

/* Compresses @len bytes of @data (with @flush Z_FINISH: and ends the gzip
 * member) and writes what deflate gives out. */
static gboolean
sink_deflate (Sink *sink, const char *data, gsize len, int flush)
{
  unsigned char buf[65536];
  z_stream *z = sink->gz;
  int rc;

  do
    {
      /* avail_in is a uInt: feed at most 1 GiB at a time. */
      gsize part = MIN (len, (gsize) 1 << 30);

      z->next_in = (Bytef *) data;
      z->avail_in = (uInt) part;
      data += part;
      len -= part;
      do
        {
          z->next_out = buf;
          z->avail_out = sizeof buf;
          rc = deflate (z, len > 0 ? Z_NO_FLUSH : flush);
          if (rc == Z_STREAM_ERROR)
            {
              g_set_error (&sink->error, G_IO_ERROR, G_IO_ERROR_FAILED, "gzip compression failed");
              return FALSE;
            }
          if (sizeof buf - z->avail_out > 0 && !sink_put (sink, (const char *) buf, sizeof buf - z->avail_out))
            return FALSE;
        }
      while (z->avail_out == 0 || (flush == Z_FINISH && len == 0 && rc != Z_STREAM_END));
    }
  while (len > 0);
  return TRUE;
}

static gboolean
sink_write (const char *data, gsize len, gpointer user_data)
{
  Sink *sink = user_data;

  return sink->gz != NULL ? sink_deflate (sink, data, len, Z_NO_FLUSH) : sink_put (sink, data, len);
}

/* Writes @trace to @w as it is: meta (but the writer's own keys), strings
 * with their ids, every table in the reader's (time) order. */
static int
write_rows (PfprofTraceWriter *w, const PfprofTrace *trace)
{
  guint64 n = 0;
  int rc;

  if ((rc = pfprof_cli_trace_output_copy_meta (w, trace)) != PFPROF_WRITER_OK)
    return rc;
  for (guint i = 0; i < trace->strings->len; i++)
    {
      const char *s = g_ptr_array_index (trace->strings, i);

      if (s != NULL && (rc = pfprof_trace_writer_set_string (w, i, s)) != PFPROF_WRITER_OK)
        return rc;
    }
  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    {
      GArray *a = trace->tables[t];
      gsize size = g_array_get_element_size (a);

      for (guint i = 0; i < a->len; i++)
        {
          if ((rc = pfprof_trace_writer_append (w, (PfprofTableId) t, a->data + (gsize) i * size))
              != PFPROF_WRITER_OK)
            return rc;
          /* Commits now and then keep the WAL small. */
          if (++n % 1000000 == 0 && (rc = pfprof_trace_writer_commit (w)) != PFPROF_WRITER_OK)
            return rc;
        }
    }
  return pfprof_trace_writer_commit (w);
}

/* `export --format sqlite`: one trace to a format-1 file at @output,
 * written under a temporary name beside it and renamed when finished. */
static int
export_sqlite (char **inputs, const char *output, gboolean force)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PfprofTrace) trace = NULL;

  if (inputs[1] != NULL)
    {
      pfprof_cli_error ("export: --format sqlite takes one trace");
      return PFPROF_EXIT_USAGE;
    }
  if (output == NULL || *output == '\0' || strcmp (output, "-") == 0)
    {
      pfprof_cli_error ("export: --format sqlite needs -o FILE (an SQLite database, not standard output)");
      return PFPROF_EXIT_USAGE;
    }
  if (!pfprof_safe_output_check (output, force, &error))
    {
      pfprof_cli_error ("export: %s", error->message);
      return pfprof_cli_output_exit_code (error);
    }
  trace = pfprof_importer_load (inputs[0], NULL, NULL, &error);
  if (trace == NULL)
    {
      pfprof_cli_error ("%s", error->message);
      return PFPROF_EXIT_USAGE;
    }
  return pfprof_cli_trace_output_write ("export", trace, write_rows, PFPROF_WRITER_ROWS, output, force);
}

static const char *const formats[] = { "chrome-json", "chrome", "perfetto", "sqlite", NULL };

const PfprofCliHelp pfprof_cmd_export_help = {
  "export",
  "Write traces and findings as Chrome/Perfetto trace JSON",
  "TRACE... [-o OUT.json|OUT.json.gz]",
  "Writes traces, their detected steps and the findings as Trace Event Format\n"
  "JSON, which ui.perfetto.dev and chrome://tracing open; a name ending in .gz\n"
  "is written gzip-compressed, which both read as well.\n"
  "\n"
  "Each traced process is a process with its host threads (CUDA API calls, NVTX\n"
  "ranges) and a 'pfprof steps' track; each of its GPUs is a process with one\n"
  "thread per stream (kernels, copies, memsets). Work on one stream that\n"
  "overlaps without nesting (kernels that run concurrently) goes on further\n"
  "tracks of that stream ('stream 7 #2'), so no viewer drops a slice. Arrows\n"
  "join each API call to the GPU work it launched; findings are instant events\n"
  "whose arguments hold the rule, message and fix. Times are microseconds from\n"
  "the earliest event. TRACE may be a pfprof trace, an Nsight Systems SQLite\n"
  "export or a torch.profiler (Kineto) trace.\n"
  "\n"
  "--format sqlite writes one trace as an SQLite database with every table as\n"
  "plain rows (trace format 1: kernels, memcpys, api_calls, ... with start_ns and\n"
  "dur_ns columns; docs/trace-format.md), for queries with any SQLite client:\n"
  "pfprof export --format sqlite TRACE -o ROWS.sqlite. pfprof's own traces keep\n"
  "events in compressed chunks that SQL cannot read. The file is about three\n"
  "times larger; pfprof reads it too.\n",
  "  0  written\n"
  "  2  usage error, unreadable trace, unwritable output\n"
  "  3  -o FILE exists and --force was not given\n",
  NULL,
  "  OUT.json  Trace Event Format JSON (docs/interop.md)\n"
  "  OUT.json.gz  the same, gzip-compressed\n",
  "  # Open a run in Perfetto: load run.json.gz at https://ui.perfetto.dev\n"
  "  pfprof export run.pfprof -o run.json.gz\n"
  "  # Every table as rows for SQL\n"
  "  pfprof export --format sqlite run.pfprof -o run-rows.sqlite\n",
  "pfprof(1), pfprof-report(1), pfprof-import(1)",
};

int
pfprof_cmd_export (int argc, char **argv)
{
  g_autofree char *format = NULL;
  g_autofree char *output = NULL;
  g_return_val_if_fail (argv != NULL, PFPROF_EXIT_USAGE);

  g_auto (PfprofCliAnalysisOptions) analysis_opts = { 0 };
  g_auto (GStrv) inputs = NULL;
  gboolean force = FALSE;
  const GOptionEntry entries[] = {
    { "format", 'F', 0, G_OPTION_ARG_STRING, &format,
      "chrome-json (default; also 'perfetto') or sqlite", "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "File to write (.json.gz: gzip-compressed; '-' or none: standard output)", "FILE" },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force, "Replace FILE if it exists", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &inputs, NULL, NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (PfprofAnalysisOptions) options = NULL;
  g_autoptr (PfprofAnalysis) analysis = NULL;
  Sink sink = { NULL, NULL, NULL };
  z_stream gz = { 0 };
  gboolean ok;

  if (!pfprof_cli_help_refuse_old_format ("export", argc, argv, formats))
    return PFPROF_EXIT_USAGE;
  ctx = pfprof_cli_help_context_new (&pfprof_cmd_export_help);
  g_option_context_add_main_entries (ctx, entries, NULL);
  pfprof_cli_analysis_options_add (&analysis_opts, ctx);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      pfprof_cli_error ("export: %s", error->message);
      return PFPROF_EXIT_USAGE;
    }
  if (format != NULL && strcmp (format, "chrome-json") != 0 && strcmp (format, "perfetto") != 0
      && strcmp (format, "chrome") != 0 && strcmp (format, "sqlite") != 0)
    {
      pfprof_cli_error ("export: unknown format '%s' (chrome-json, sqlite)", format);
      return PFPROF_EXIT_USAGE;
    }
  if (inputs == NULL || inputs[0] == NULL)
    {
      pfprof_cli_error ("export: no trace given; usage: pfprof export TRACE... -o OUT.json");
      return PFPROF_EXIT_USAGE;
    }
  if (format != NULL && strcmp (format, "sqlite") == 0)
    return export_sqlite (inputs, output, force);
  if ((options = pfprof_cli_analysis_options_build (&analysis_opts, "export")) == NULL)
    return PFPROF_EXIT_USAGE;

  analysis = pfprof_cli_analyze ((const char *const *) inputs, g_strv_length (inputs), options, FALSE);
  if (analysis == NULL)
    return PFPROF_EXIT_USAGE;

  if (output != NULL && strcmp (output, "-") != 0
      && (sink.file = pfprof_safe_output_open (output, force, &error)) == NULL)
    {
      pfprof_cli_error ("export: %s", error->message);
      return pfprof_cli_output_exit_code (error);
    }
  /* Perfetto and chrome://tracing read gzip: a .gz name means it. */
  if (sink.file != NULL && g_str_has_suffix (output, ".gz"))
    {
      /* windowBits 15 + 16: a gzip header and trailer, not raw zlib. */
      if (deflateInit2 (&gz, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        {
          pfprof_safe_output_abort (sink.file);
          pfprof_cli_error ("export: cannot start gzip compression");
          return PFPROF_EXIT_USAGE;
        }
      sink.gz = &gz;
    }
  ok = pfprof_export_chrome (analysis, sink_write, &sink);
  if (ok && sink.gz != NULL)
    ok = sink_deflate (&sink, "", 0, Z_FINISH);
  if (sink.gz != NULL)
    deflateEnd (&gz);
  if (ok && sink.file != NULL)
    ok = pfprof_safe_output_commit (g_steal_pointer (&sink.file), &sink.error);
  else if (ok && fflush (stdout) != 0)
    {
      g_set_error (&sink.error, G_IO_ERROR, g_io_error_from_errno (errno),
                   "cannot write to standard output: %s", g_strerror (errno));
      ok = FALSE;
    }
  if (!ok)
    {
      pfprof_safe_output_abort (sink.file);
      pfprof_cli_error ("export: %s", sink.error ? sink.error->message : "write failed");
      g_clear_error (&sink.error);
      return PFPROF_EXIT_USAGE;
    }
  return PFPROF_EXIT_OK;
}
