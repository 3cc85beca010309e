/* pfprof-cli-trace-output.c: see the header. */
#include "pfprof-cli-trace-output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "pfprof-cli-output.h"
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
pfprof_cli_trace_output_write (const char *command, const PfprofTrace *trace, PfprofCliTraceFill fill,
                               unsigned writer_flags, const char *output, gboolean force)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  g_autofree char *tmp = NULL;
  PfprofTraceWriter *w = NULL;
  int rc, fd;

  if (!pfprof_cli_output_check (output, force, &error))
    {
      pfprof_cli_error ("%s: %s", command, error->message);
      return PFPROF_EXIT_USAGE;
    }
  dir = g_path_get_dirname (output);
  base = g_path_get_basename (output);
  tmp = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      pfprof_cli_error ("%s: %s: cannot create a file in %s: %s", command, output, dir, g_strerror (errno));
      return PFPROF_EXIT_USAGE;
    }
  close (fd);
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
  if (!pfprof_cli_output_place (tmp, output, force, &error))
    {
      pfprof_cli_error ("%s: %s", command, error->message);
      remove_output (tmp);
      return PFPROF_EXIT_USAGE;
    }
  return PFPROF_EXIT_OK;
}
