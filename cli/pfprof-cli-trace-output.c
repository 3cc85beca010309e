/* pfprof-cli-trace-output.c: see the header. */
#include "pfprof-cli-trace-output.h"

#include <stdio.h>
#include <string.h>

#include "pfprof-safe-output.h"
#include "pfprof-cli.h"

/* The file and the SQLite side files the writer may have made. */
static void
remove_output (const char *path)
{
  static const char *const suffixes[] = { "", "-wal", "-shm", "-journal" };

  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    {
      g_autofree char *p = g_strconcat (path, suffixes[i], NULL);

      remove (p);
    }
}

int
pfprof_cli_trace_output_copy_meta (PfprofTraceWriter *w, const PfprofTrace *trace)
{
  GHashTableIter it;
  gpointer key, value;
  int rc;

  g_hash_table_iter_init (&it, trace->meta);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      if (strcmp (key, "format_version") == 0 || strcmp (key, "complete") == 0)
        continue;
      if ((rc = pfprof_trace_writer_set_meta (w, key, value)) != PFPROF_WRITER_OK)
        return rc;
    }
  return PFPROF_WRITER_OK;
}

int
pfprof_cli_trace_output_write (const char *command, const PfprofTrace *trace, PfprofCliTraceFill fill,
                               unsigned writer_flags, const char *output, gboolean force)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PfprofSafeOutput) file = NULL;
  PfprofTraceWriter *w = NULL;
  g_autofree char *tmp = NULL;
  int rc;

  if ((file = pfprof_safe_output_open (output, force, &error)) == NULL)
    {
      pfprof_cli_error ("%s: %s", command, error->message);
      return pfprof_cli_output_exit_code (error);
    }
  /* The writer replaces the empty temporary file with its database;
   * commit then gives that the destination's name. */
  tmp = g_strdup (pfprof_safe_output_get_temp_path (file));
  rc = pfprof_trace_writer_open (tmp, PFPROF_WRITER_OVERWRITE | writer_flags, &w);
  if (rc != PFPROF_WRITER_OK)
    {
      pfprof_cli_error ("%s: cannot write %s: %s", command, output, pfprof_trace_writer_status_string (rc));
      remove_output (tmp);
      return PFPROF_EXIT_USAGE;
    }
  if (fill (w, trace) != PFPROF_WRITER_OK)
    {
      pfprof_cli_error ("%s: cannot write %s: %s", command, output, pfprof_trace_writer_errmsg (w));
      pfprof_trace_writer_close (w);
      remove_output (tmp);
      return PFPROF_EXIT_USAGE;
    }
  if ((rc = pfprof_trace_writer_finish (w)) != PFPROF_WRITER_OK)
    {
      pfprof_cli_error ("%s: cannot finish %s: %s", command, output, pfprof_trace_writer_status_string (rc));
      remove_output (tmp);
      return PFPROF_EXIT_USAGE;
    }
  if (!pfprof_safe_output_commit (g_steal_pointer (&file), &error))
    {
      pfprof_cli_error ("%s: %s", command, error->message);
      remove_output (tmp);
      return pfprof_cli_output_exit_code (error);
    }
  return PFPROF_EXIT_OK;
}
