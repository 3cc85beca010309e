/* SPDX-License-Identifier: MIT */
/* pfprof-output-check.c: see the header. */
#include "pfprof-output-check.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

typedef struct
{
  dev_t dev;
  ino_t ino;
} FileId;

static GMutex lock;
static GArray *inputs; /* FileId */

void
pfprof_output_check_add_input (const char *path)
{
  struct stat st;
  FileId id;

  if (path == NULL || stat (path, &st) != 0)
    return;
  id.dev = st.st_dev;
  id.ino = st.st_ino;
  g_mutex_lock (&lock);
  if (inputs == NULL)
    inputs = g_array_new (FALSE, FALSE, sizeof (FileId));
  g_array_append_val (inputs, id);
  g_mutex_unlock (&lock);
}

static gboolean
is_input (const struct stat *st)
{
  gboolean found = FALSE;

  g_mutex_lock (&lock);
  for (guint i = 0; inputs != NULL && i < inputs->len && !found; i++)
    {
      const FileId *id = &g_array_index (inputs, FileId, i);

      found = id->dev == st->st_dev && id->ino == st->st_ino;
    }
  g_mutex_unlock (&lock);
  return found;
}

gboolean
pfprof_output_check (const char *path, gboolean overwrite, GError **error)
{
  struct stat st;

  g_return_val_if_fail (path != NULL, FALSE);

  if (lstat (path, &st) != 0)
    return TRUE;
  if (S_ISLNK (st.st_mode))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "%s is a symbolic link; not following it", path);
      return FALSE;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s is not a regular file", path);
      return FALSE;
    }
  if (is_input (&st))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "%s is an input of this command; not replacing it with the output", path);
      return FALSE;
    }
  if (!overwrite)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_EXIST, "%s exists; use --force to replace it", path);
      return FALSE;
    }
  return TRUE;
}

gboolean
pfprof_output_check_place (const char *tmp, const char *path, gboolean overwrite, GError **error)
{
  int e;

  g_return_val_if_fail (tmp != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (overwrite)
    {
      /* rename() replaces the name itself, never a link's target; check
       * again for a link made since the first look. */
      if (!pfprof_output_check (path, TRUE, error))
        return FALSE;
      if (rename (tmp, path) == 0)
        return TRUE;
      e = errno;
    }
  else
    {
      /* link() fails when the name exists, closing the race with a file
       * made after the check. */
      if (link (tmp, path) == 0)
        {
          /* The file now has both names: drop the temporary one. */
          g_unlink (tmp);
          return TRUE;
        }
      e = errno;
      if (e == EEXIST)
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_EXIST, "%s exists; use --force to replace it",
                       path);
          return FALSE;
        }
    }
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "%s: cannot create: %s", path,
               g_strerror (e));
  return FALSE;
}
