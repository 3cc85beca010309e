/* pfprof-cli-output.c: atomic, no-follow output files for the CLI. */
#include "pfprof-cli-output.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pfprof-output-check.h"
#include "pfprof-temp-file.h"

static gboolean
set_errno_error (GError **error, int e, const char *what, const char *path)
{
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (e), "%s: %s: %s", path, what,
               g_strerror (e));
  return FALSE;
}

static gboolean
check_destination (const char *path, gboolean overwrite, GError **error)
{
  return pfprof_output_check (path, overwrite, error);
}

struct _PfprofCliOutput
{
  char *path;
  char *tmp;
  gboolean overwrite;
  int fd;
  int slot;  /* pfprof-temp-file registration */
};

static void
output_free (PfprofCliOutput *o)
{
  if (o->fd >= 0)
    close (o->fd);
  pfprof_temp_file_forget (o->slot);
  g_free (o->tmp);
  g_free (o->path);
  g_free (o);
}

void
pfprof_cli_output_abort (PfprofCliOutput *o)
{
  if (o == NULL)
    return;
  g_unlink (o->tmp);
  output_free (o);
}

PfprofCliOutput *
pfprof_cli_output_open (const char *path, gboolean overwrite, GError **error)
{
  PfprofCliOutput *o;
  mode_t mask;

  if (!check_destination (path, overwrite, error))
    return NULL;
  o = g_new0 (PfprofCliOutput, 1);
  o->path = g_strdup (path);
  o->overwrite = overwrite;
  o->fd = pfprof_temp_file_beside (path, 0600, &o->tmp, &o->slot);
  if (o->fd < 0)
    {
      set_errno_error (error, errno, "cannot create a file in its folder", path);
      g_free (o->path);
      g_free (o);
      return NULL;
    }
  /* mkstemp makes 0600; the output is an ordinary file for the user. */
  mask = umask (0);
  umask (mask);
  (void) fchmod (o->fd, 0666 & ~mask);
  return o;
}

gboolean
pfprof_cli_output_append (PfprofCliOutput *o, const char *data, gsize len, GError **error)
{
  gsize off = 0;

  while (off < len)
    {
      ssize_t w = write (o->fd, data + off, len - off);

      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return set_errno_error (error, w < 0 ? errno : ENOSPC, "cannot write", o->path);
      off += (gsize) w;
    }
  return TRUE;
}

gboolean
pfprof_cli_output_check (const char *path, gboolean overwrite, GError **error)
{
  return check_destination (path, overwrite, error);
}

gboolean
pfprof_cli_output_place (const char *tmp, const char *path, gboolean overwrite, GError **error)
{
  return pfprof_output_check_place (tmp, path, overwrite, error);
}

gboolean
pfprof_cli_output_commit (PfprofCliOutput *o, GError **error)
{
  int e;

  e = close (o->fd) != 0 ? errno : 0;
  o->fd = -1;
  if (e != 0)
    {
      set_errno_error (error, e, "cannot write", o->path);
      pfprof_cli_output_abort (o);
      return FALSE;
    }
  if (!pfprof_cli_output_place (o->tmp, o->path, o->overwrite, error))
    {
      pfprof_cli_output_abort (o);
      return FALSE;
    }
  output_free (o);
  return TRUE;
}

gboolean
pfprof_cli_output_write (const char *path, const char *data, gsize len, gboolean overwrite,
                         GError **error)
{
  PfprofCliOutput *o = pfprof_cli_output_open (path, overwrite, error);

  if (o == NULL)
    return FALSE;
  if (!pfprof_cli_output_append (o, data, len, error))
    {
      pfprof_cli_output_abort (o);
      return FALSE;
    }
  return pfprof_cli_output_commit (o, error);
}
