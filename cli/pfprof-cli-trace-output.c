/* SPDX-License-Identifier: MIT */
/* pfprof-cli-trace-output.c: see the header. */
#include "pfprof-cli-trace-output.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pfprof-safe-output.h"
#include "pfprof-cli.h"
#include "pfprof-temp-file.h"

char *
pfprof_cli_trace_output_reserve (const char *command, const char *output, gboolean force, int *slot,
                                 int *code)
{
  g_return_val_if_fail (command != NULL, NULL);
  g_return_val_if_fail (output != NULL, NULL);
  g_return_val_if_fail (slot != NULL, NULL);
  g_return_val_if_fail (code != NULL, NULL);

  g_autoptr (GError) error = NULL;
  char *tmp = NULL;
  int fd;

  *code = PFPROF_EXIT_USAGE;
  if (!pfprof_safe_output_check (output, force, &error))
    {
      pfprof_cli_error ("%s: %s", command, error->message);
      *code = pfprof_cli_output_exit_code (error);
      return NULL;
    }
  fd = pfprof_temp_file_beside (output, 0666, &tmp, slot);
  if (fd < 0)
    {
      g_autofree char *dir = g_path_get_dirname (output);

      pfprof_cli_error ("%s: %s: cannot create a file in %s: %s", command, output, dir,
                        g_strerror (errno));
      return NULL;
    }
  close (fd);
  return tmp;
}

void
pfprof_cli_trace_output_discard (char *tmp, int slot)
{
  g_return_if_fail (tmp != NULL);

  pfprof_temp_file_remove (tmp);
  pfprof_temp_file_forget (slot);
  g_free (tmp);
}

int
pfprof_cli_trace_output_place (const char *command, char *tmp, int slot, const char *output,
                               gboolean force)
{
  g_return_val_if_fail (command != NULL, PFPROF_EXIT_USAGE);
  g_return_val_if_fail (tmp != NULL, PFPROF_EXIT_USAGE);
  g_return_val_if_fail (output != NULL, PFPROF_EXIT_USAGE);

  g_autoptr (GError) error = NULL;

  if (!pfprof_safe_output_place (tmp, output, force, &error))
    {
      pfprof_cli_error ("%s: %s", command, error->message);
      pfprof_cli_trace_output_discard (tmp, slot);
      return pfprof_cli_output_exit_code (error);
    }
  pfprof_temp_file_forget (slot);
  g_free (tmp);
  return PFPROF_EXIT_OK;
}

int
pfprof_cli_trace_output_copy_meta (PfprofTraceWriter *w, const PfprofTrace *trace)
{
  GHashTableIter it;
  gpointer key, value;
  int rc;

  g_return_val_if_fail (w != NULL, PFPROF_WRITER_ERR_ARG);
  g_return_val_if_fail (trace != NULL, PFPROF_WRITER_ERR_ARG);

  g_hash_table_iter_init (&it, trace->meta);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      /* "notes" is written from trace->notes below, which holds it. */
      if (strcmp (key, "format_version") == 0 || strcmp (key, "complete") == 0
          || strcmp (key, "notes") == 0)
        continue;
      if ((rc = pfprof_trace_writer_set_meta (w, key, value)) != PFPROF_WRITER_OK)
        return rc;
    }
  /* What an imported trace's source cannot show stays said in the copy;
   * the reader gives them back (analyzer/read/pfprof-trace-reader.c). A
   * pfprof trace's notes the reader works out again from its tables
   * (recording windows, capture ranges): only those it stored go on. */
  if (g_hash_table_contains (trace->meta, "format_version"))
    {
      const char *stored = g_hash_table_lookup (trace->meta, "notes");

      if (stored != NULL && (rc = pfprof_trace_writer_set_meta (w, "notes", stored)) != PFPROF_WRITER_OK)
        return rc;
    }
  else if (trace->notes->len > 0)
    {
      g_autoptr (GString) notes = g_string_new (NULL);

      for (guint i = 0; i < trace->notes->len; i++)
        {
          if (i > 0)
            g_string_append_c (notes, '\n');
          g_string_append (notes, g_ptr_array_index (trace->notes, i));
        }
      if ((rc = pfprof_trace_writer_set_meta (w, "notes", notes->str)) != PFPROF_WRITER_OK)
        return rc;
    }
  return PFPROF_WRITER_OK;
}

int
pfprof_cli_trace_output_write (const char *command, const PfprofTrace *trace, PfprofCliTraceFill fill,
                               unsigned writer_flags, const char *output, gboolean force)
{
  PfprofTraceWriter *w = NULL;
  char *tmp;
  int rc, slot = -1;

  g_return_val_if_fail (command != NULL, PFPROF_EXIT_USAGE);
  g_return_val_if_fail (trace != NULL, PFPROF_EXIT_USAGE);
  g_return_val_if_fail (output != NULL, PFPROF_EXIT_USAGE);

  if ((tmp = pfprof_cli_trace_output_reserve (command, output, force, &slot, &rc)) == NULL)
    return rc;
  rc = pfprof_trace_writer_open (tmp, PFPROF_WRITER_OVERWRITE | writer_flags, &w);
  if (rc != PFPROF_WRITER_OK)
    {
      pfprof_cli_error ("%s: cannot write %s: %s", command, output, pfprof_trace_writer_status_string (rc));
      pfprof_cli_trace_output_discard (tmp, slot);
      return PFPROF_EXIT_USAGE;
    }
  if (fill (w, trace) != PFPROF_WRITER_OK)
    {
      pfprof_cli_error ("%s: cannot write %s: %s", command, output, pfprof_trace_writer_errmsg (w));
      pfprof_trace_writer_close (w);
      pfprof_cli_trace_output_discard (tmp, slot);
      return PFPROF_EXIT_USAGE;
    }
  if ((rc = pfprof_trace_writer_finish (w)) != PFPROF_WRITER_OK)
    {
      pfprof_cli_error ("%s: cannot finish %s: %s", command, output, pfprof_trace_writer_status_string (rc));
      pfprof_cli_trace_output_discard (tmp, slot);
      return PFPROF_EXIT_USAGE;
    }
  return pfprof_cli_trace_output_place (command, tmp, slot, output, force);
}
