/* SPDX-License-Identifier: MIT */
/* pfprof-source-lines.c: the text of the Python lines a trace names
 * (pfprof-source-lines.h). */
#include "pfprof-source-lines.h"
#include "pfprof-file-read.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Larger files are not read. */
#define FILE_MAX_BYTES ((gsize) 4 << 20)
/* Files of more lines are not read (a file of newlines would cost a
 * pointer and an allocation per byte). */
#define FILE_MAX_LINES 100000
/* No more is read over one analysis. */
#define TOTAL_MAX_BYTES ((gsize) 64 << 20)

struct _PfprofSourceLines
{
  PfprofSourceLinesPolicy policy;
  char *folder;        /* the folder pfprof runs in, resolved; NULL when "/" or unknown */
  GHashTable *files;   /* name as given -> File */
  gsize bytes_read;
  guint n_withheld;
};

typedef struct
{
  char **lines;        /* NULL when not read */
  gboolean withheld;   /* there, but left unread by AUTO */
} File;

gboolean
pfprof_source_lines_policy_from_string (const char *s, PfprofSourceLinesPolicy *policy)
{
  g_return_val_if_fail (policy != NULL, FALSE);

  static const struct
  {
    const char *name;
    PfprofSourceLinesPolicy policy;
  } names[] = {
    { "auto", PFPROF_SOURCE_LINES_AUTO },
    { "always", PFPROF_SOURCE_LINES_ALWAYS },
    { "never", PFPROF_SOURCE_LINES_NEVER },
  };

  g_return_val_if_fail (policy != NULL, FALSE);
  for (gsize i = 0; s != NULL && i < G_N_ELEMENTS (names); i++)
    if (strcmp (s, names[i].name) == 0)
      {
        *policy = names[i].policy;
        return TRUE;
      }
  return FALSE;
}

static void
file_free (gpointer p)
{
  File *f = p;

  g_strfreev (f->lines);
  g_free (f);
}

PfprofSourceLines *
pfprof_source_lines_new (PfprofSourceLinesPolicy policy)
{
  PfprofSourceLines *s = g_new0 (PfprofSourceLines, 1);
  g_autofree char *cwd = g_get_current_dir ();
  char *folder = realpath (cwd, NULL);

  s->policy = policy;
  s->files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, file_free);
  /* Run from "/", the folder would be every file. */
  if (folder != NULL && strcmp (folder, "/") != 0)
    s->folder = g_strdup (folder);
  free (folder);
  return s;
}

void
pfprof_source_lines_free (PfprofSourceLines *sources)
{
  if (sources == NULL)
    return;
  g_hash_table_unref (sources->files);
  g_free (sources->folder);
  g_free (sources);
}

/* Whether @path is @folder or inside it. */
static gboolean
under (const char *path, const char *folder)
{
  gsize n = strlen (folder);

  return strncmp (path, folder, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Whether the resolved @real may be read; marks what AUTO withholds. */
static gboolean
allowed (PfprofSourceLines *s, const char *real, File *f)
{
  if (under (real, "/proc") || under (real, "/sys") || under (real, "/dev"))
    return FALSE;
  if (s->policy == PFPROF_SOURCE_LINES_ALWAYS)
    return TRUE;
  if (s->folder != NULL && under (real, s->folder) && g_str_has_suffix (real, ".py"))
    return TRUE;
  f->withheld = TRUE;
  s->n_withheld++;
  return FALSE;
}

static char **
read_lines (PfprofSourceLines *s, const char *path, File *f)
{
  g_autofree char *text = NULL;
  char *real;
  gsize len = 0, n_lines = 1;
  gboolean ok;

  if (s->policy == PFPROF_SOURCE_LINES_NEVER || *path == '\0')
    return NULL;
  /* Links resolved, so that the folder and /proc checks see where the
   * name leads; the file is then opened by that name, not following a
   * link put there since. */
  if ((real = realpath (path, NULL)) == NULL)
    return NULL;
  ok = allowed (s, real, f) && s->bytes_read < TOTAL_MAX_BYTES;
  if (ok)
    text = pfprof_file_read (real, MIN (FILE_MAX_BYTES, TOTAL_MAX_BYTES - s->bytes_read),
                             PFPROF_FILE_READ_NO_FOLLOW, &len, NULL);
  free (real);
  if (text == NULL)
    return NULL;
  s->bytes_read += len;
  for (const char *p = text; (p = memchr (p, '\n', len - (gsize) (p - text))) != NULL; p++)
    if (++n_lines > FILE_MAX_LINES)
      return NULL;
  return g_strsplit (text, "\n", -1);
}

static File *
file_of (PfprofSourceLines *sources, const char *path)
{
  File *f = g_hash_table_lookup (sources->files, path);

  if (f == NULL)
    {
      f = g_new0 (File, 1);
      f->lines = read_lines (sources, path, f);
      g_hash_table_insert (sources->files, g_strdup (path), f);
    }
  return f;
}

char **
pfprof_source_lines_get (PfprofSourceLines *sources, const char *path)
{
  g_return_val_if_fail (sources != NULL, NULL);
  return path != NULL ? file_of (sources, path)->lines : NULL;
}

gboolean
pfprof_source_lines_withheld (PfprofSourceLines *sources, const char *path)
{
  g_return_val_if_fail (sources != NULL, FALSE);
  return path != NULL && file_of (sources, path)->withheld;
}

guint
pfprof_source_lines_n_withheld (const PfprofSourceLines *sources)
{
  g_return_val_if_fail (sources != NULL, 0);
  return sources->n_withheld;
}
