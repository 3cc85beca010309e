/* SPDX-License-Identifier: MIT */
/* pfprof-safe-output.c: atomic, no-follow output files (see the header). */
#include "pfprof-safe-output.h"

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

struct _PfprofSafeOutput
{
  char *path;
  char *tmp;
  gboolean overwrite;
  int fd;
  int slot;  /* pfprof-temp-file registration */
};

static void
output_free (PfprofSafeOutput *o)
{
  if (o->fd >= 0)
    close (o->fd);
  pfprof_temp_file_forget (o->slot);
  g_free (o->tmp);
  g_free (o->path);
  g_free (o);
}

void
pfprof_safe_output_abort (PfprofSafeOutput *o)
{
  if (o == NULL)
    return;
  g_unlink (o->tmp);
  output_free (o);
}

PfprofSafeOutput *
pfprof_safe_output_open (const char *path, gboolean overwrite, GError **error)
{
  PfprofSafeOutput *o;

  g_return_val_if_fail (path != NULL, NULL);

  if (!pfprof_output_check (path, overwrite, error))
    return NULL;
  o = g_new0 (PfprofSafeOutput, 1);
  o->path = g_strdup (path);
  o->overwrite = overwrite;
  /* open() applies the umask to 0666, as for any new file; no umask()
   * call, which would change it for every thread of the GUI. The name is
   * registered, so an interrupted command removes it. */
  o->fd = pfprof_temp_file_beside (path, 0666, &o->tmp, &o->slot);
  if (o->fd < 0)
    {
      set_errno_error (error, errno, "cannot create a file in its folder", path);
      g_free (o->path);
      g_free (o);
      return NULL;
    }
  return o;
}

gboolean
pfprof_safe_output_append (PfprofSafeOutput *o, const char *data, gsize len, GError **error)
{
  gsize off = 0;

  g_return_val_if_fail (o != NULL && (data != NULL || len == 0), FALSE);

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
pfprof_safe_output_check (const char *path, gboolean overwrite, GError **error)
{
  g_return_val_if_fail (path != NULL, FALSE);

  return pfprof_output_check (path, overwrite, error);
}

gboolean
pfprof_safe_output_place (const char *tmp, const char *path, gboolean overwrite, GError **error)
{
  g_return_val_if_fail (tmp != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  return pfprof_output_check_place (tmp, path, overwrite, error);
}


gboolean
pfprof_safe_output_commit (PfprofSafeOutput *o, GError **error)
{
  int e;

  g_return_val_if_fail (o != NULL, FALSE);

  /* On disk before it takes the name, so a crash leaves the old file or
   * the whole new one; EINVAL: a file system that cannot sync. */
  e = fsync (o->fd) != 0 && errno != EINVAL ? errno : 0;
  if (close (o->fd) != 0 && e == 0)
    e = errno;
  o->fd = -1;
  if (e != 0)
    {
      set_errno_error (error, e, "cannot write", o->path);
      pfprof_safe_output_abort (o);
      return FALSE;
    }
  if (!pfprof_safe_output_place (o->tmp, o->path, o->overwrite, error))
    {
      pfprof_safe_output_abort (o);
      return FALSE;
    }
  output_free (o);
  return TRUE;
}

gboolean
pfprof_safe_output_write (const char *path, const char *data, gsize len, gboolean overwrite,
                         GError **error)
{
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (len == 0 || data != NULL, FALSE);

  PfprofSafeOutput *o = pfprof_safe_output_open (path, overwrite, error);

  if (o == NULL)
    return FALSE;
  if (!pfprof_safe_output_append (o, data, len, error))
    {
      pfprof_safe_output_abort (o);
      return FALSE;
    }
  return pfprof_safe_output_commit (o, error);
}
