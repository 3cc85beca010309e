/* pfprof-cli-output.c: atomic, no-follow output files for the CLI. */
#include "pfprof-cli-output.h"

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

gboolean
pfprof_cli_output_write (const char *path, const char *data, gsize len, gboolean overwrite,
                         GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *tmp = NULL;
  gsize off = 0;
  mode_t mask;
  int fd;

  if (!check_destination (path, overwrite, error))
    return FALSE;
  tmp = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0)
    return set_errno_error (error, errno, "cannot create a file in its folder", path);
  /* mkstemp makes 0600; the output is an ordinary file for the user. */
  mask = umask (0);
  umask (mask);
  (void) fchmod (fd, 0666 & ~mask);
  while (off < len)
    {
      ssize_t w = write (fd, data + off, len - off);

      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        {
          int e = w < 0 ? errno : ENOSPC;

          close (fd);
          g_unlink (tmp);
          return set_errno_error (error, e, "cannot write", path);
        }
      off += (gsize) w;
    }
  if (close (fd) != 0)
    {
      int e = errno;

      g_unlink (tmp);
      return set_errno_error (error, e, "cannot write", path);
    }
  if (overwrite)
    {
      /* rename() replaces the name itself, never a link's target; check
       * again for a link made since the first look. */
      if (!check_destination (path, TRUE, error))
        {
          g_unlink (tmp);
          return FALSE;
        }
      if (rename (tmp, path) != 0)
        {
          int e = errno;

          g_unlink (tmp);
          return set_errno_error (error, e, "cannot create", path);
        }
      return TRUE;
    }
  /* link() fails when the name exists, closing the race with a file made
   * after the check. */
  if (link (tmp, path) != 0)
    {
      int e = errno;

      g_unlink (tmp);
      if (e == EEXIST)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                       "%s exists; use --force to replace it", path);
          return FALSE;
        }
      return set_errno_error (error, e, "cannot create", path);
    }
  g_unlink (tmp);
  return TRUE;
}
