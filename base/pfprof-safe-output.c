/* pfprof-safe-output.c: atomic, no-follow output files (see the header). */
#include "pfprof-safe-output.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <unistd.h>

static gboolean
set_errno_error (GError **error, int e, const char *what, const char *path)
{
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (e), "%s: %s: %s", path, what,
               g_strerror (e));
  return FALSE;
}

/* Refuses a link or a non-regular file at @path, and an existing file
 * without @overwrite. */
static gboolean
check_destination (const char *path, gboolean overwrite, GError **error)
{
  struct stat st;

  if (lstat (path, &st) != 0)
    return TRUE;
  if (S_ISLNK (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   "%s is a symbolic link; not following it", path);
      return FALSE;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE, "%s is not a regular file",
                   path);
      return FALSE;
    }
  if (!overwrite)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS, "%s exists; use --force to replace it",
                   path);
      return FALSE;
    }
  return TRUE;
}

struct _PfprofSafeOutput
{
  char *path;
  char *tmp;
  gboolean overwrite;
  int fd;
};

static void
output_free (PfprofSafeOutput *o)
{
  if (o->fd >= 0)
    close (o->fd);
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
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  PfprofSafeOutput *o;

  g_return_val_if_fail (path != NULL, NULL);

  if (!check_destination (path, overwrite, error))
    return NULL;
  o = g_new0 (PfprofSafeOutput, 1);
  o->path = g_strdup (path);
  o->overwrite = overwrite;
  o->tmp = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  /* open() applies the umask to 0666, as for any new file; no umask()
   * call, which would change it for every thread of the GUI. */
  o->fd = g_mkstemp_full (o->tmp, O_WRONLY | O_CLOEXEC, 0666);
  if (o->fd < 0)
    {
      set_errno_error (error, errno, "cannot create a file in its folder", path);
      g_free (o->tmp);
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
  return check_destination (path, overwrite, error);
}

const char *
pfprof_safe_output_get_temp_path (PfprofSafeOutput *o)
{
  g_return_val_if_fail (o != NULL, NULL);
  return o->tmp;
}

/* Gives the finished file @tmp (in @path's folder) the name @path:
 * rename() over an existing file with @overwrite, else link() + unlink()
 * so an existing file is never replaced. On failure @tmp is left for the
 * caller to remove. */
static gboolean
place (const char *tmp, const char *path, gboolean overwrite, GError **error)
{
  int e;

  if (overwrite)
    {
      /* rename() replaces the name itself, never a link's target; check
       * again for a link made since the first look. */
      if (!check_destination (path, TRUE, error))
        return FALSE;
      if (rename (tmp, path) != 0)
        return set_errno_error (error, errno, "cannot create", path);
      return TRUE;
    }
  /* link() fails when the name exists, closing the race with a file made
   * after the check. */
  if (link (tmp, path) != 0)
    {
      e = errno;
      if (e == EEXIST)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                       "%s exists; use --force to replace it", path);
          return FALSE;
        }
      return set_errno_error (error, e, "cannot create", path);
    }
  /* The file now has both names: drop the temporary one. */
  g_unlink (tmp);
  return TRUE;
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
  if (!place (o->tmp, o->path, o->overwrite, error))
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
