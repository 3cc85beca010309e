/* SPDX-License-Identifier: MIT */
/* trace-test-util.c: helpers shared by the trace suite's tests. */
#include "trace-test-util.h"

#include <glib/gstdio.h>
#include <string.h>

char *
trace_test_tmp_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("pfprof-test-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

void
trace_test_tmp_dir_free (char *dir)
{
  GDir *d;
  const char *name;

  if (dir == NULL)
    return;
  d = g_dir_open (dir, 0, NULL);
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);

      if (g_file_test (p, G_FILE_TEST_IS_DIR) && !g_file_test (p, G_FILE_TEST_IS_SYMLINK))
        g_rmdir (p);
      else
        g_unlink (p);
    }
  if (d != NULL)
    g_dir_close (d);
  g_rmdir (dir);
  g_free (dir);
}

static gint64
column_min (const PfprofTraceColumn *col)
{
  if (!col->is_signed)
    return 0;
  switch (col->width)
    {
    case 1: return G_MININT8;
    case 2: return G_MININT16;
    case 4: return G_MININT32;
    default: return G_MININT64;
    }
}

static gint64
column_max (const PfprofTraceColumn *col)
{
  switch (col->width)
    {
    case 1: return col->is_signed ? G_MAXINT8 : G_MAXUINT8;
    case 2: return col->is_signed ? G_MAXINT16 : G_MAXUINT16;
    case 4: return col->is_signed ? G_MAXINT32 : (gint64) G_MAXUINT32;
    default:
      /* An unsigned 64-bit field at UINT64_MAX is stored as -1. */
      return col->is_signed ? G_MAXINT64 : -1;
    }
}

void
trace_test_fill_record (PfprofTableId table, int which, void *record)
{
  const PfprofTraceTable *t = pfprof_trace_schema_table (table);

  memset (record, 0, t->record_size);
  for (unsigned c = 0; c < t->n_columns; c++)
    {
      const PfprofTraceColumn *col = &t->columns[c];
      gint64 v;

      if (col->kind == PFPROF_COLUMN_DURATION)
        {
          /* start: min, 1000 + ..., max; end: start, INT64_MAX, max. */
          gint64 start = pfprof_trace_column_get (&t->columns[0], record);

          v = which == 0 ? start : which == 1 ? G_MAXINT64 : start;
        }
      else if (which == 0)
        v = column_min (col);
      else if (which == 2)
        v = column_max (col);
      else
        v = (gint64) (c + 1) * 3 + (col->width > 1 ? 200 : 0);
      g_assert_cmpint (pfprof_trace_column_set (col, record, v), ==, 0);
    }
}

void
trace_test_write_extremes (const char *path, unsigned flags)
{
  PfprofTraceWriter *w = NULL;
  guint8 record[256];

  g_assert_cmpint (pfprof_trace_writer_open (path, flags, &w), ==, PFPROF_WRITER_OK);
  g_assert_cmpint (pfprof_trace_writer_set_meta (w, "host", "test-host"), ==, 0);
  g_assert_cmpint (pfprof_trace_writer_set_meta_int (w, "pid", 4242), ==, 0);
  g_assert_cmpint (pfprof_trace_writer_set_meta_int (w, "rank", 3), ==, 0);
  g_assert_cmpint (pfprof_trace_writer_begin (w), ==, 0);
  g_assert_cmpuint (pfprof_trace_writer_intern (w, "cudaLaunchKernel"), ==, 0);
  g_assert_cmpuint (pfprof_trace_writer_intern (w, "volta_sgemm"), ==, 1);
  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    {
      g_assert_cmpuint (pfprof_trace_schema_table ((PfprofTableId) t)->record_size, <=, sizeof record);
      for (int which = 0; which < 3; which++)
        {
          trace_test_fill_record ((PfprofTableId) t, which, record);
          g_assert_cmpint (pfprof_trace_writer_append (w, (PfprofTableId) t, record), ==, 0);
        }
    }
  g_assert_cmpint (pfprof_trace_writer_commit (w), ==, 0);
  g_assert_cmpint (pfprof_trace_writer_finish (w), ==, 0);
}

void
trace_test_exec (const char *path, const char *sql)
{
  sqlite3 *db = NULL;
  char *err = NULL;

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READWRITE, NULL), ==, SQLITE_OK);
  if (sqlite3_exec (db, sql, NULL, NULL, &err) != SQLITE_OK)
    g_error ("%s: %s", sql, err);
  g_assert_cmpint (sqlite3_close (db), ==, SQLITE_OK);
}

char *
trace_test_load_fails (const char *path, PfprofTraceError code)
{
  g_autoptr (GError) error = NULL;
  PfprofTrace *trace = pfprof_trace_reader_load (path, NULL, NULL, &error);

  g_assert_null (trace);
  g_assert_error (error, PFPROF_TRACE_ERROR, (gint) code);
  /* One line that names the file, no control characters. */
  for (const char *c = error->message; *c; c++)
    g_assert_true ((unsigned char) *c >= 0x20 && *c != 0x7f);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_test_message ("%s", error->message);
  return g_strdup (error->message);
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

char *
trace_test_list_dir (const char *dir)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_dir_close (d);
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}
