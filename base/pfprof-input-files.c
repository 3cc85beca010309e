/* pfprof-input-files.c: see the header. */
#include "pfprof-input-files.h"

#include <sys/stat.h>

typedef struct
{
  dev_t dev;
  ino_t ino;
} FileId;

static GMutex lock;
static GArray *files; /* FileId */

void
pfprof_input_files_add (const char *path)
{
  struct stat st;
  FileId id;

  if (path == NULL || stat (path, &st) != 0)
    return;
  id.dev = st.st_dev;
  id.ino = st.st_ino;
  g_mutex_lock (&lock);
  if (files == NULL)
    files = g_array_new (FALSE, FALSE, sizeof (FileId));
  g_array_append_val (files, id);
  g_mutex_unlock (&lock);
}

gboolean
pfprof_input_files_contains (const char *path)
{
  gboolean found = FALSE;
  struct stat st;

  if (path == NULL || lstat (path, &st) != 0)
    return FALSE;
  g_mutex_lock (&lock);
  for (guint i = 0; files != NULL && i < files->len && !found; i++)
    {
      const FileId *id = &g_array_index (files, FileId, i);

      found = id->dev == st.st_dev && id->ino == st.st_ino;
    }
  g_mutex_unlock (&lock);
  return found;
}
