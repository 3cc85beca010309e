/* SPDX-License-Identifier: MIT */
/* test-trace-reader.c: writer -> reader round trips and every way the
 * reader must refuse a file (suite `trace`). Most tests run twice: on
 * format 2 (chunks, what the writer writes by default) under /trace/...
 * and on format 1 (rows, PFPROF_WRITER_ROWS) under /trace-v1/...; the
 * ones that damage rows with SQL are format 1 only, and format 2's
 * damaged chunks have tests of their own (test-trace-chunks.c). */
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace-test-util.h"

typedef struct
{
  char *dir;
  char *path;
} Fixture;

/* The writer flags of the running test: 0 or PFPROF_WRITER_ROWS. */
static unsigned wflags;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  wflags = GPOINTER_TO_UINT (data);
  f->dir = trace_test_tmp_dir ();
  f->path = g_build_filename (f->dir, "t.pfprof", NULL);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  trace_test_tmp_dir_free (f->dir);
  g_free (f->path);
}

static PfprofTrace *
load_ok (const char *path)
{
  g_autoptr (GError) error = NULL;
  PfprofTrace *trace = pfprof_trace_reader_load (path, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

/* Writes @n_kernels kernels (and as many API calls) and finishes. */
static void
write_kernels (const char *path, guint n_kernels)
{
  PfprofTraceWriter *w = NULL;

  g_assert_cmpint (pfprof_trace_writer_open (path, wflags, &w), ==, 0);
  g_assert_cmpint (pfprof_trace_writer_begin (w), ==, 0);
  for (guint i = 0; i < n_kernels; i++)
    {
      PfprofKernelRecord k = { 0 };
      PfprofApiRecord a = { 0 };

      k.start_ns = 1000000 + (gint64) i * 5000;
      k.end_ns = k.start_ns + 4000;
      k.stream_id = 7;
      k.correlation_id = i + 1;
      k.name_id = pfprof_trace_writer_intern (w, i % 2 ? "kernel_b" : "kernel_a");
      k.grid_x = (gint32) i;
      a.start_ns = k.start_ns - 3000;
      a.end_ns = a.start_ns + 2000;
      a.tid = 99;
      a.correlation_id = i + 1;
      a.name_id = pfprof_trace_writer_intern (w, "cudaLaunchKernel");
      a.domain = PFPROF_API_RUNTIME;
      g_assert_cmpint (pfprof_trace_writer_append (w, PFPROF_TABLE_KERNELS, &k), ==, 0);
      g_assert_cmpint (pfprof_trace_writer_append (w, PFPROF_TABLE_API_CALLS, &a), ==, 0);
      if (i % 10000 == 9999)
        g_assert_cmpint (pfprof_trace_writer_commit (w), ==, 0);
    }
  g_assert_cmpint (pfprof_trace_writer_finish (w), ==, 0);
}

/* ---- Round trips ----------------------------------------------------- */

static void
test_roundtrip_extremes (Fixture *f, gconstpointer data)
{
  g_autoptr (PfprofTrace) trace = NULL;
  guint8 expected[256];

  trace_test_write_extremes (f->path, wflags);
  trace = load_ok (f->path);
  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    {
      const PfprofTraceTable *table = pfprof_trace_schema_table ((PfprofTableId) t);

      g_test_message ("table %s", table->name);
      g_assert_cmpuint (trace->tables[t]->len, ==, 3);
      for (int which = 0; which < 3; which++)
        {
          const guint8 *got = (const guint8 *) trace->tables[t]->data + (gsize) which * table->record_size;

          trace_test_fill_record ((PfprofTableId) t, which, expected);
          for (unsigned c = 0; c < table->n_columns; c++)
            g_assert_cmpint (pfprof_trace_column_get (&table->columns[c], got), ==,
                             pfprof_trace_column_get (&table->columns[c], expected));
          g_assert_cmpmem (got, table->record_size, expected, table->record_size);
        }
    }
  /* The extremes the collector really sees, spelled out. */
  g_assert_cmpuint (pfprof_trace_memory (trace)[2].address, ==, G_MAXUINT64);
  g_assert_cmpuint (pfprof_trace_memory (trace)[2].bytes, ==, G_MAXUINT64);
  g_assert_cmpuint (pfprof_trace_memcpys (trace)[2].bytes, ==, G_MAXUINT64);
  g_assert_cmpint (pfprof_trace_api_calls (trace)[0].return_value, ==, G_MININT32);
  g_assert_cmpint (pfprof_trace_api_calls (trace)[2].return_value, ==, G_MAXINT32);
  g_assert_cmpint (pfprof_trace_streams (trace)[0].priority, ==, G_MININT32);
  g_assert_cmpuint (pfprof_trace_kernels (trace)[2].correlation_id, ==, G_MAXUINT32);
  g_assert_cmpint (pfprof_trace_kernels (trace)[1].end_ns, ==, G_MAXINT64);
  g_assert_cmpint (pfprof_trace_kernels (trace)[0].start_ns, ==, G_MININT64);
  g_assert_cmpuint (pfprof_trace_nvtx (trace)[2].depth, ==, G_MAXUINT16);
  g_assert_cmpint (trace->start_ns, ==, G_MININT64);
  g_assert_cmpint (trace->end_ns, ==, G_MAXINT64);
  g_assert_cmpuint (pfprof_trace_n_events (trace), ==, 3 * PFPROF_TABLE_DEVICES);
}

static void
test_roundtrip_strings_meta (Fixture *f, gconstpointer data)
{
  g_autoptr (PfprofTrace) trace = NULL;
  PfprofTraceWriter *w = NULL;
  const char *utf8 = "ставка \xe2\x9c\x93 \"quoted\" 'x'";
  PfprofApiRecord a = { 0 };
  guint32 id_a, id_b, id_c;

  g_assert_cmpint (pfprof_trace_writer_open (f->path, wflags, &w), ==, 0);
  g_assert_cmpint (pfprof_trace_writer_set_meta (w, "command_line", "python train.py --lr 0.1"), ==, 0);
  g_assert_cmpint (pfprof_trace_writer_set_meta_int (w, "pid", 12345), ==, 0);
  g_assert_cmpint (pfprof_trace_writer_set_meta_int (w, "rank", 0), ==, 0);
  g_assert_cmpint (pfprof_trace_writer_set_meta (w, "temp", "x"), ==, 0);
  g_assert_cmpint (pfprof_trace_writer_set_meta (w, "temp", NULL), ==, 0);
  g_assert_cmpint (pfprof_trace_writer_set_meta_int (w, "dropped_records", G_MININT64), ==, 0);
  g_assert_cmpint (pfprof_trace_writer_begin (w), ==, 0);
  id_a = pfprof_trace_writer_intern (w, "cudaMemcpyAsync");
  id_b = pfprof_trace_writer_intern (w, "cudaLaunchKernel");
  g_assert_cmpuint (pfprof_trace_writer_intern (w, "cudaMemcpyAsync"), ==, id_a);
  g_assert_cmpuint (id_a, ==, 0);
  g_assert_cmpuint (id_b, ==, 1);
  g_assert_cmpuint (pfprof_trace_writer_intern (w, NULL), ==, PFPROF_NONE);
  a.name_id = id_b;
  a.end_ns = 5;
  g_assert_cmpint (pfprof_trace_writer_append (w, PFPROF_TABLE_API_CALLS, &a), ==, 0);
  g_assert_cmpint (pfprof_trace_writer_commit (w), ==, 0);
  /* Interned after the first commit: written at the next one. Enough
   * strings to grow the hash table several times. */
  g_assert_cmpint (pfprof_trace_writer_begin (w), ==, 0);
  id_c = pfprof_trace_writer_intern (w, utf8);
  for (int i = 0; i < 5000; i++)
    {
      g_autofree char *s = g_strdup_printf ("kernel_%d", i);

      g_assert_cmpuint (pfprof_trace_writer_intern (w, s), ==, id_c + 1 + (guint) i);
    }
  g_assert_cmpuint (pfprof_trace_writer_intern (w, "kernel_17"), ==, id_c + 18);
  g_assert_cmpuint (pfprof_trace_writer_intern (w, ""), ==, id_c + 5001);
  g_assert_cmpint (pfprof_trace_writer_finish (w), ==, 0);

  trace = load_ok (f->path);
  g_assert_cmpstr (pfprof_trace_string (trace, id_a), ==, "cudaMemcpyAsync");
  g_assert_cmpstr (pfprof_trace_string (trace, pfprof_trace_api_calls (trace)[0].name_id), ==,
                   "cudaLaunchKernel");
  g_assert_cmpstr (pfprof_trace_string (trace, id_c), ==, utf8);
  g_assert_cmpstr (pfprof_trace_string (trace, id_c + 4000), ==, "kernel_3999");
  g_assert_cmpstr (pfprof_trace_string (trace, PFPROF_NONE), ==, "");
  g_assert_cmpstr (pfprof_trace_string (trace, 999999), ==, "");
  g_assert_cmpuint (trace->strings->len, ==, id_c + 5002);

  g_assert_cmpstr (pfprof_trace_meta (trace, "command_line"), ==, "python train.py --lr 0.1");
  g_assert_cmpstr (pfprof_trace_meta (trace, "format_version"), ==, wflags ? "1.3" : "2.3");
  g_assert_cmpstr (pfprof_trace_meta (trace, "complete"), ==, "1");
  g_assert_cmpstr (pfprof_trace_meta (trace, "dropped_records"), ==, "-9223372036854775808");
  g_assert_null (pfprof_trace_meta (trace, "temp"));
  g_assert_cmpint (trace->pid, ==, 12345);
  g_assert_cmpint (trace->rank, ==, 0);
  g_assert_cmpstr (trace->path, ==, f->path);
}

static void
test_sparse_strings (Fixture *f, gconstpointer data)
{
  g_autoptr (PfprofTrace) trace = NULL;

  trace_test_write_extremes (f->path, wflags);
  trace_test_exec (f->path, "INSERT INTO strings VALUES (1000, 'far away')");
  trace = load_ok (f->path);
  g_assert_cmpstr (pfprof_trace_string (trace, 1000), ==, "far away");
  g_assert_cmpstr (pfprof_trace_string (trace, 500), ==, "");
  g_assert_cmpstr (pfprof_trace_string (trace, 1), ==, "volta_sgemm");
  /* No pid/rank in meta: the defaults. */
  trace_test_exec (f->path, "DELETE FROM meta WHERE key IN ('pid', 'rank')");
  g_clear_pointer (&trace, pfprof_trace_free);
  trace = load_ok (f->path);
  g_assert_cmpint (trace->pid, ==, 0);
  g_assert_cmpint (trace->rank, ==, -1);

  trace_test_exec (f->path, "INSERT INTO strings VALUES (4000000000, 'absurd')");
  g_free (trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_CORRUPT));
}

static void
test_sorted (Fixture *f, gconstpointer data)
{
  g_autoptr (PfprofTrace) trace = NULL;
  PfprofTraceWriter *w = NULL;
  const gint64 starts[] = { 500, 100, 300, 100, 200 };

  g_assert_cmpint (pfprof_trace_writer_open (f->path, wflags, &w), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (starts); i++)
    {
      PfprofMemcpyRecord m = { 0 };

      m.start_ns = starts[i];
      m.end_ns = starts[i] + 10;
      m.correlation_id = i;
      g_assert_cmpint (pfprof_trace_writer_append (w, PFPROF_TABLE_MEMCPYS, &m), ==, 0);
    }
  g_assert_cmpint (pfprof_trace_writer_finish (w), ==, 0);
  trace = load_ok (f->path);
  g_assert_cmpuint (pfprof_trace_n (trace, PFPROF_TABLE_MEMCPYS), ==, 5);
  g_assert_cmpint (pfprof_trace_memcpys (trace)[0].start_ns, ==, 100);
  g_assert_cmpuint (pfprof_trace_memcpys (trace)[0].correlation_id, ==, 1);
  g_assert_cmpuint (pfprof_trace_memcpys (trace)[1].correlation_id, ==, 3);
  g_assert_cmpint (pfprof_trace_memcpys (trace)[4].start_ns, ==, 500);
  g_assert_cmpint (trace->start_ns, ==, 100);
  g_assert_cmpint (trace->end_ns, ==, 510);
}

/* pfprof_trace_sort on its paths: a nearly sorted table (one pass of
 * insertion sort), one far from sorted (the general sort once the
 * insertion sort gives up), and a few long runs as the collector writes
 * them (merged); all stable. */
static void
test_sort_paths (void)
{
  for (int reversed = 0; reversed <= 5; reversed++)
    {
      g_autoptr (PfprofTrace) trace = pfprof_trace_new ();
      const guint n = 20000;
      GArray *a = trace->tables[PFPROF_TABLE_KERNELS];

      g_array_set_size (a, n);
      for (guint i = 0; i < n; i++)
        {
          PfprofKernelRecord *k = &g_array_index (a, PfprofKernelRecord, i);

          /* Nearly: every tenth record 3 places late; keys repeat in
           * pairs so stability shows. Reversed: descending pairs. Runs:
           * blocks of 3000 records whose times start (block * 7919) % 9000
           * ns in (six runs), keys repeating in pairs. */
          if (reversed == 2)
            k->start_ns = (gint64) ((i / 3000) * 7919 % 9000) + (gint64) (i % 3000) / 2;
          /* Two runs: a short late one among the first records (as the
           * generator's API calls), a short early one among the last, and
           * two halves fully interleaved; keys repeating in pairs. */
          else if (reversed == 3)
            k->start_ns = i < n - 200 ? (gint64) (i + 100) / 2 : (gint64) (i - (n - 200)) / 2;
          else if (reversed == 4)
            k->start_ns = i < 200 ? (gint64) (n + i) / 2 - 60 : (gint64) (i - 200) / 2;
          else if (reversed == 5)
            k->start_ns = i < n / 2 ? (gint64) i : (gint64) (i - n / 2);
          else
            k->start_ns = reversed ? (gint64) (n - i) / 2 : (gint64) (i / 2) - (i % 10 == 9 ? 3 : 0);
          k->end_ns = k->start_ns + 1;
          k->correlation_id = i;
        }
      pfprof_trace_sort (trace);
      for (guint i = 1; i < n; i++)
        {
          const PfprofKernelRecord *p = &g_array_index (a, PfprofKernelRecord, i - 1);
          const PfprofKernelRecord *k = &g_array_index (a, PfprofKernelRecord, i);

          g_assert_cmpint (p->start_ns, <=, k->start_ns);
          if (p->start_ns == k->start_ns)
            g_assert_cmpuint (p->correlation_id, <, k->correlation_id);
        }
      g_assert_cmpuint (a->len, ==, n);
    }
}

/* ---- Versions -------------------------------------------------------- */

static void
test_version_newer_major (Fixture *f, gconstpointer data)
{
  g_autofree char *msg = NULL;

  trace_test_write_extremes (f->path, wflags);
  trace_test_exec (f->path, "UPDATE meta SET value = '3.0' WHERE key = 'format_version'");
  msg = trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_NEWER);
  g_assert_nonnull (strstr (msg, "3.0"));
  g_assert_nonnull (strstr (msg, "(2.x)"));
  g_assert_nonnull (strstr (msg, "newer"));
}

static void
test_version_newer_minor (Fixture *f, gconstpointer data)
{
  g_autoptr (PfprofTrace) trace = NULL;
  g_autofree char *sql = g_strdup_printf (
    "UPDATE meta SET value = '%d.%d' WHERE key = 'format_version';"
    /* A later minor version may add columns (anywhere in the row order)
     * and tables; this reader ignores both. */
    "ALTER TABLE %s ADD COLUMN launch_type INTEGER NOT NULL DEFAULT 7;"
    "CREATE TABLE graphs (graph_id INTEGER NOT NULL);"
    "INSERT INTO graphs VALUES (1);"
    "%s",
    wflags ? PFPROF_TRACE_ROWS_FORMAT_MAJOR : PFPROF_TRACE_FORMAT_MAJOR,
    (wflags ? PFPROF_TRACE_ROWS_FORMAT_MINOR : PFPROF_TRACE_FORMAT_MINOR) + 3,
    wflags ? "kernels" : "streams",
    /* Format 2: chunks of a table this reader does not know are skipped. */
    wflags ? "" : "INSERT INTO chunks (table_name, n, min_ns, max_ns, data) VALUES ('graphs', 1, 0, 0, x'010101');");
  guint8 expected[256];

  trace_test_write_extremes (f->path, wflags);
  trace_test_exec (f->path, sql);
  trace = load_ok (f->path);
  g_assert_cmpuint (pfprof_trace_n (trace, PFPROF_TABLE_KERNELS), ==, 3);
  trace_test_fill_record (PFPROF_TABLE_KERNELS, 2, expected);
  g_assert_cmpmem (&pfprof_trace_kernels (trace)[2], sizeof (PfprofKernelRecord), expected,
                   sizeof (PfprofKernelRecord));
}

static void
test_version_garbage (Fixture *f, gconstpointer data)
{
  const char *bad[] = { "one", "", "1.x", "0.9", "-1.0", "99999999999999999999.0",
                        "1.0\n\x1b[31mred", "2.0\r", "2.0.1" };

  trace_test_write_extremes (f->path, wflags);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *sql = g_strdup_printf (
        "UPDATE meta SET value = '%s' WHERE key = 'format_version'", bad[i]);

      trace_test_exec (f->path, sql);
      g_free (trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_CORRUPT));
    }
  trace_test_exec (f->path, "DELETE FROM meta WHERE key = 'format_version'");
  g_free (trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_CORRUPT));
}

/* ---- Files that are not traces --------------------------------------- */

static void
test_missing (Fixture *f, gconstpointer data)
{
  g_free (trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_NOT_FOUND));
  g_free (trace_test_load_fails (f->dir, PFPROF_TRACE_ERROR_NOT_FOUND));
  /* Still nothing there: the reader never creates the file. */
  g_assert_false (g_file_test (f->path, G_FILE_TEST_EXISTS));
}

static void
test_symlink_and_odd_names (Fixture *f, gconstpointer data)
{
  g_autofree char *link = g_build_filename (f->dir, "link.pfprof", NULL);
  g_autofree char *odd = g_build_filename (f->dir, "a b?c#d%20e'f.pfprof", NULL);
  g_autofree char *listing = NULL;

  trace_test_write_extremes (f->path, wflags);
  g_assert_cmpint (symlink (f->path, link), ==, 0);
  {
    g_autoptr (PfprofTrace) trace = load_ok (link);

    g_assert_cmpuint (pfprof_trace_n (trace, PFPROF_TABLE_KERNELS), ==, 3);
  }
  /* Characters that mean something in a file: URI. */
  g_assert_cmpint (g_rename (f->path, odd), ==, 0);
  {
    g_autoptr (PfprofTrace) trace = load_ok (odd);

    g_assert_cmpuint (pfprof_trace_n (trace, PFPROF_TABLE_KERNELS), ==, 3);
  }
  /* The dangling link is "not found", not a crash. */
  g_free (trace_test_load_fails (link, PFPROF_TRACE_ERROR_NOT_FOUND));
  listing = trace_test_list_dir (f->dir);
  g_assert_cmpstr (listing, ==, "a b?c#d%20e'f.pfprof link.pfprof");
}

/* Damaged copies of a real trace load or fail with a GError; never a
 * crash, a hang or a sanitizer report. */
static void
test_mutations (Fixture *f, gconstpointer data)
{
  /* More rounds and other seeds by hand: PFPROF_MUTATION_ROUNDS, _SEED. */
  const char *rounds_env = g_getenv ("PFPROF_MUTATION_ROUNDS");
  const char *seed_env = g_getenv ("PFPROF_MUTATION_SEED");
  int rounds = rounds_env ? atoi (rounds_env) : 300;
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed_env ? (guint32) atoi (seed_env) : 1234);
  g_autofree char *orig = NULL;
  gsize len = 0;
  guint loaded = 0, refused = 0;

  write_kernels (f->path, 300);
  g_assert_true (g_file_get_contents (f->path, &orig, &len, NULL));
  for (int round = 0; round < rounds; round++)
    {
      g_autofree char *buf = g_memdup2 (orig, len);
      g_autoptr (GError) error = NULL;
      g_autoptr (PfprofTrace) trace = NULL;
      int n = g_rand_int_range (rand, 1, 8);

      for (int i = 0; i < n; i++)
        {
          /* Half the time hit the header and the first pages, where the
           * schema and page pointers live. */
          gsize at = g_rand_boolean (rand) ? (gsize) g_rand_int_range (rand, 0, 8192)
                                           : (gsize) g_rand_int_range (rand, 0, (gint32) len);

          buf[at] = (char) g_rand_int_range (rand, 0, 256);
        }
      g_assert_true (g_file_set_contents (f->path, buf, (gssize) len, NULL));
      trace = pfprof_trace_reader_load (f->path, NULL, NULL, &error);
      g_assert_true ((trace == NULL) == (error != NULL));
      if (trace != NULL)
        loaded++;
      else
        {
          g_test_message ("%s", error->message);
          g_assert_true (error->domain == PFPROF_TRACE_ERROR);
          for (const char *c = error->message; *c; c++)
            g_assert_true ((unsigned char) *c >= 0x20 && *c != 0x7f);
          /* SQLite quotes the corrupt schema's bytes: made valid UTF-8. */
          g_assert_true (g_utf8_validate (error->message, -1, NULL));
          refused++;
        }
    }
  g_test_message ("%u loaded, %u refused", loaded, refused);
  g_assert_cmpuint (refused, >, 0);
}

static void
test_empty (Fixture *f, gconstpointer data)
{
  g_autofree char *msg = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  g_assert_true (g_file_set_contents (f->path, "", 0, NULL));
  before = trace_test_list_dir (f->dir);
  msg = trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_EMPTY);
  g_assert_nonnull (strstr (msg, "empty"));
  after = trace_test_list_dir (f->dir);
  g_assert_cmpstr (before, ==, after);
}

static void
test_random_bytes (Fixture *f, gconstpointer data)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  guint8 buf[65536];

  for (gsize i = 0; i < sizeof buf; i++)
    buf[i] = (guint8) g_rand_int (rand);
  g_assert_true (g_file_set_contents (f->path, (const char *) buf, sizeof buf, NULL));
  g_free (trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_NOT_A_TRACE));
  /* A few bytes only. */
  g_assert_true (g_file_set_contents (f->path, "PK\x03\x04", 4, NULL));
  g_free (trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_NOT_A_TRACE));
  /* SQLite's magic followed by garbage: claims to be SQLite, is broken. */
  memcpy (buf, "SQLite format 3", 16);
  g_assert_true (g_file_set_contents (f->path, (const char *) buf, sizeof buf, NULL));
  g_free (trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_CORRUPT));
  /* Magic and a cut header. */
  g_assert_true (g_file_set_contents (f->path, (const char *) buf, 40, NULL));
  g_free (trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_CORRUPT));
}

static void
test_foreign_sqlite (Fixture *f, gconstpointer data)
{
  g_autofree char *msg = NULL;
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open (f->path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db,
                                 "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);"
                                 "INSERT INTO users VALUES (1, 'ada');"
                                 /* Even a meta table with the right columns. */
                                 "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
                                 "INSERT INTO meta VALUES ('format_version', '1.0');",
                                 NULL, NULL, NULL),
                   ==, SQLITE_OK);
  sqlite3_close (db);
  msg = trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_NOT_A_TRACE);
  g_assert_nonnull (strstr (msg, "another application"));

  /* Our application id but no meta table. */
  g_unlink (f->path);
  g_assert_cmpint (sqlite3_open (f->path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "PRAGMA application_id = 1346785350; CREATE TABLE x (y);",
                                 NULL, NULL, NULL),
                   ==, SQLITE_OK);
  sqlite3_close (db);
  g_free (trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_NOT_A_TRACE));
}

static void
test_truncated (Fixture *f, gconstpointer data)
{
  g_autofree char *contents = NULL;
  g_autofree char *msg = NULL;
  gsize len = 0;

  write_kernels (f->path, 20000);
  g_assert_true (g_file_get_contents (f->path, &contents, &len, NULL));
  g_assert_cmpuint (len, >, 200000);
  g_assert_true (g_file_set_contents (f->path, contents, (gssize) len / 2, NULL));
  msg = trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_CORRUPT);
  g_assert_nonnull (strstr (msg, "truncated"));

  /* Cut, and the header's page count invalidated too, so that only
   * SQLite's own checks can notice. */
  contents[95] ^= 0xff;
  g_assert_true (g_file_set_contents (f->path, contents, (gssize) len / 2, NULL));
  g_free (trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_CORRUPT));
}

static void
test_corrupt_pages (Fixture *f, gconstpointer data)
{
  g_autofree char *contents = NULL;
  gsize len = 0;

  write_kernels (f->path, 20000);
  g_assert_true (g_file_get_contents (f->path, &contents, &len, NULL));
  /* Scribble over every page but the first, keeping the size. */
  for (gsize i = 4096; i < len; i += 97)
    contents[i] = (char) 0xA5;
  g_assert_true (g_file_set_contents (f->path, contents, (gssize) len, NULL));
  g_free (trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_CORRUPT));
}

/* ---- Bad rows -------------------------------------------------------- */

/* A file with the trace schema minus its NOT NULL constraints, the way a
 * buggy or foreign writer could leave it. */
static void
write_handmade (const char *path, const char *rows_sql)
{
  char schema[8192];
  g_auto (GStrv) parts = NULL;
  g_autofree char *loose = NULL;
  g_autofree char *sql = NULL;

  g_assert_cmpuint (pfprof_trace_schema_create_sql (schema, sizeof schema), <, sizeof schema);
  parts = g_strsplit (schema, " NOT NULL", -1);
  loose = g_strjoinv ("", parts);
  sql = g_strdup_printf ("PRAGMA application_id = 1346785350; %s"
                         "INSERT INTO meta VALUES ('format_version', '1.0'); %s",
                         loose, rows_sql);
  {
    sqlite3 *db = NULL;

    g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
    sqlite3_close (db);
  }
  trace_test_exec (path, sql);
}

static void
test_handmade_ok (Fixture *f, gconstpointer data)
{
  g_autoptr (PfprofTrace) trace = NULL;

  /* The hand-made schema itself loads: the failures below come from the
   * rows. */
  write_handmade (f->path, "INSERT INTO threads VALUES (5, 0);");
  trace = load_ok (f->path);
  g_assert_cmpuint (pfprof_trace_n (trace, PFPROF_TABLE_THREADS), ==, 1);
  g_assert_cmpuint (pfprof_trace_threads (trace)[0].tid, ==, 5);
}

static void
test_null (Fixture *f, gconstpointer data)
{
  g_autofree char *msg = NULL;

  write_handmade (f->path,
                  "INSERT INTO kernels VALUES (1,1,0,0,0,0,0,1,1,1,1,1,1,0,0);"
                  "INSERT INTO kernels VALUES (1,1,0,0,0,0,0,NULL,1,1,1,1,1,0,0);");
  msg = trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_CORRUPT);
  g_assert_nonnull (strstr (msg, "table kernels row 2"));
  g_assert_nonnull (strstr (msg, "grid_x is NULL"));

  g_unlink (f->path);
  write_handmade (f->path, "INSERT INTO strings VALUES (0, NULL);");
  msg = (g_free (msg), trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_CORRUPT));
  g_assert_nonnull (strstr (msg, "strings"));

  g_unlink (f->path);
  write_handmade (f->path, "INSERT INTO memory VALUES (1, 'text', 0, 0, 0, 0, 0, 1, 1, 0);");
  msg = (g_free (msg), trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_CORRUPT));
  g_assert_nonnull (strstr (msg, "address is not an integer"));
}

static void
test_negative_duration (Fixture *f, gconstpointer data)
{
  g_autofree char *msg = NULL;
  PfprofTraceWriter *w = NULL;
  PfprofMemcpyRecord m = { 0 };

  /* The writer stores what it is given; the reader is the gate. */
  g_assert_cmpint (pfprof_trace_writer_open (f->path, wflags, &w), ==, 0);
  m.start_ns = 1000;
  m.end_ns = 2000;
  g_assert_cmpint (pfprof_trace_writer_append (w, PFPROF_TABLE_MEMCPYS, &m), ==, 0);
  m.start_ns = 5000;
  m.end_ns = 4990;
  g_assert_cmpint (pfprof_trace_writer_append (w, PFPROF_TABLE_MEMCPYS, &m), ==, 0);
  g_assert_cmpint (pfprof_trace_writer_finish (w), ==, 0);
  msg = trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_CORRUPT);
  if (!wflags)
    {
      g_assert_nonnull (strstr (msg, "table memcpys: column dur_ns: record 2 is negative (-10)"));
      return;
    }
  g_assert_nonnull (strstr (msg, "table memcpys row 2"));
  g_assert_nonnull (strstr (msg, "dur_ns is negative (-10)"));

  /* end = start + dur past INT64_MAX. */
  trace_test_exec (f->path, "UPDATE memcpys SET start_ns = 9223372036854775000, dur_ns = 1000");
  msg = (g_free (msg), trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_CORRUPT));
  g_assert_nonnull (strstr (msg, "overflows"));
}

static void
test_overflow (Fixture *f, gconstpointer data)
{
  const char *updates[] = {
    "UPDATE kernels SET grid_x = 2147483648 WHERE rowid = 2",       /* int32 + 1 */
    "UPDATE kernels SET stream_id = 4294967296 WHERE rowid = 2",    /* uint32 + 1 */
    "UPDATE kernels SET device_id = -1 WHERE rowid = 2",            /* uint32 < 0 */
    "UPDATE memcpys SET copy_kind = 256 WHERE rowid = 2",           /* uint8 + 1 */
    "UPDATE nvtx SET depth = 65536 WHERE rowid = 2",                /* uint16 + 1 */
    "UPDATE kernels SET grid_y = 65536 WHERE rowid = 2",            /* uint16 + 1 */
    "UPDATE kernels SET registers = -1 WHERE rowid = 2",            /* uint16 < 0 */
    "UPDATE api_calls SET return_value = -2147483649 WHERE rowid = 2", /* int32 - 1 */
  };

  for (guint i = 0; i < G_N_ELEMENTS (updates); i++)
    {
      g_autofree char *msg = NULL;

      g_unlink (f->path);
      trace_test_write_extremes (f->path, wflags);
      trace_test_exec (f->path, updates[i]);
      msg = trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_CORRUPT);
      g_assert_nonnull (strstr (msg, "row 2"));
      g_assert_nonnull (strstr (msg, "does not fit"));
    }
}

static void
test_missing_table_column (Fixture *f, gconstpointer data)
{
  g_autofree char *msg = NULL;

  trace_test_write_extremes (f->path, wflags);
  trace_test_exec (f->path, "ALTER TABLE streams DROP COLUMN priority");
  msg = trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_CORRUPT);
  g_assert_nonnull (strstr (msg, "table streams has no column priority"));
  trace_test_exec (f->path, "DROP TABLE streams");
  msg = (g_free (msg), trace_test_load_fails (f->path, PFPROF_TRACE_ERROR_CORRUPT));
  g_assert_nonnull (strstr (msg, "no table streams"));
}

/* ---- Read-only, WAL -------------------------------------------------- */

static char *
file_checksum (const char *path)
{
  g_autofree char *contents = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) contents, len);
}

static void
test_read_only (Fixture *f, gconstpointer data)
{
  g_autoptr (PfprofTrace) trace = NULL;
  g_autofree char *sum_before = NULL;
  g_autofree char *sum_after = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  GStatBuf st1, st2;

  write_kernels (f->path, 1000);
  /* A finished trace is one self-contained file. */
  before = trace_test_list_dir (f->dir);
  g_assert_cmpstr (before, ==, "t.pfprof");
  sum_before = file_checksum (f->path);
  g_assert_cmpint (g_stat (f->path, &st1), ==, 0);
  /* Read-only file in a read-only folder still loads. */
  g_assert_cmpint (g_chmod (f->path, 0444), ==, 0);
  g_assert_cmpint (g_chmod (f->dir, 0555), ==, 0);
  trace = load_ok (f->path);
  g_assert_cmpint (g_chmod (f->dir, 0755), ==, 0);
  g_assert_cmpuint (pfprof_trace_n (trace, PFPROF_TABLE_KERNELS), ==, 1000);
  g_clear_pointer (&trace, pfprof_trace_free);
  g_assert_cmpint (g_chmod (f->path, 0644), ==, 0);
  trace = load_ok (f->path);
  after = trace_test_list_dir (f->dir);
  g_assert_cmpstr (before, ==, after);
  sum_after = file_checksum (f->path);
  g_assert_cmpstr (sum_before, ==, sum_after);
  g_assert_cmpint (g_stat (f->path, &st2), ==, 0);
  g_assert_cmpint (st1.st_mtime, ==, st2.st_mtime);
}

/* A child writes two committed batches and one uncommitted batch, then
 * dies without finishing: the file is left in WAL mode with a -wal (and
 * -shm) beside it. */
static void
write_killed (const char *path)
{
  pid_t pid = fork ();
  int status = 0;

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      PfprofTraceWriter *w = NULL;

      if (pfprof_trace_writer_open (path, wflags, &w) != 0)
        _exit (10);
      pfprof_trace_writer_set_meta_int (w, "pid", 777);
      for (int batch = 0; batch < 3; batch++)
        {
          pfprof_trace_writer_begin (w);
          for (int i = 0; i < 1000; i++)
            {
              PfprofKernelRecord k = { 0 };

              k.start_ns = batch * 1000000 + i * 100;
              k.end_ns = k.start_ns + 50;
              k.name_id = pfprof_trace_writer_intern (w, batch == 1 ? "second" : "first");
              if (pfprof_trace_writer_append (w, PFPROF_TABLE_KERNELS, &k) != 0)
                _exit (11);
            }
          /* The third batch is never committed: lost, as documented. */
          if (batch < 2 && pfprof_trace_writer_commit (w) != 0)
            _exit (12);
        }
      _exit (0);
    }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
}

static void
check_killed_trace (const char *path)
{
  g_autoptr (PfprofTrace) trace = load_ok (path);

  g_assert_cmpuint (pfprof_trace_n (trace, PFPROF_TABLE_KERNELS), ==, 2000);
  g_assert_cmpstr (pfprof_trace_meta (trace, "complete"), ==, "0");
  g_assert_cmpint (trace->pid, ==, 777);
  g_assert_cmpstr (pfprof_trace_string (trace, pfprof_trace_kernels (trace)[1999].name_id), ==,
                   "second");
}

static void
test_wal_killed_writer (Fixture *f, gconstpointer data)
{
  g_autofree char *wal = g_strconcat (f->path, "-wal", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *sum_db = NULL;
  g_autofree char *sum_wal = NULL;
  g_autofree char *sum = NULL;

  write_killed (f->path);
  before = trace_test_list_dir (f->dir);
  g_assert_cmpstr (before, ==, "t.pfprof t.pfprof-shm t.pfprof-wal");
  sum_db = file_checksum (f->path);
  sum_wal = file_checksum (wal);
  check_killed_trace (f->path);
  /* Loaded twice: the first load changed nothing. */
  check_killed_trace (f->path);
  after = trace_test_list_dir (f->dir);
  g_assert_cmpstr (before, ==, after);
  sum = file_checksum (f->path);
  g_assert_cmpstr (sum, ==, sum_db);
  g_free (sum);
  sum = file_checksum (wal);
  g_assert_cmpstr (sum, ==, sum_wal);
}

static void
copy_to (const char *src, const char *dst)
{
  g_autofree char *contents = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (src, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (dst, contents, (gssize) len, NULL));
}

static void
test_wal_copied_without_shm (Fixture *f, gconstpointer data)
{
  g_autofree char *sub = g_build_filename (f->dir, "copy", NULL);
  g_autofree char *copy = g_build_filename (sub, "t.pfprof", NULL);
  g_autofree char *src_wal = g_strconcat (f->path, "-wal", NULL);
  g_autofree char *copy_wal = g_strconcat (copy, "-wal", NULL);
  g_autofree char *listing = NULL;

  /* What a user gets when they copy a crashed run's trace and -wal to
   * another machine: no -shm. The reader must not create one. */
  write_killed (f->path);
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  copy_to (f->path, copy);
  copy_to (src_wal, copy_wal);
  g_assert_cmpint (g_chmod (sub, 0555), ==, 0);
  check_killed_trace (copy);
  g_assert_cmpint (g_chmod (sub, 0755), ==, 0);
  check_killed_trace (copy);
  listing = trace_test_list_dir (sub);
  g_assert_cmpstr (listing, ==, "t.pfprof t.pfprof-wal");

  /* Without its -wal the committed batches are gone but the file is
   * still a valid (older) trace or a clear error, never a crash. */
  g_unlink (copy_wal);
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (PfprofTrace) trace = pfprof_trace_reader_load (copy, NULL, NULL, &error);

    g_assert_true ((trace != NULL) != (error != NULL));
    if (error != NULL)
      g_assert_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_NOT_A_TRACE);
  }
  g_free (listing);
  listing = trace_test_list_dir (sub);
  g_assert_cmpstr (listing, ==, "t.pfprof");
  trace_test_tmp_dir_free (g_steal_pointer (&sub));
}

/* A finished trace that another program started to modify in a rollback
 * transaction and died: the -journal beside it is hot. The reader sees the
 * file as it was before the transaction and touches neither file. */
static void
test_hot_journal (Fixture *f, gconstpointer data)
{
  g_autofree char *journal = g_strconcat (f->path, "-journal", NULL);
  g_autofree char *sum_db = NULL, *sum_journal = NULL, *sum = NULL;
  g_autoptr (PfprofTrace) trace = NULL;
  int status = 0;
  pid_t pid;

  write_kernels (f->path, 20000);
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      sqlite3 *db = NULL;

      /* A tiny page cache makes SQLite write changed pages into the file
       * before the commit, so the file alone is inconsistent. */
      if (sqlite3_open (f->path, &db) != SQLITE_OK
          || sqlite3_exec (db,
                           wflags ? "PRAGMA cache_size = 2; BEGIN;"
                                    "UPDATE kernels SET grid_x = 77, stream_id = 99;"
                                    "DELETE FROM api_calls;"
                                  : "PRAGMA cache_size = 2; BEGIN;"
                                    "UPDATE chunks SET data = zeroblob(length(data)) WHERE id % 2 = 0;"
                                    "DELETE FROM chunks WHERE id % 2 = 1;",
                           NULL, NULL, NULL)
               != SQLITE_OK)
        _exit (1);
      _exit (0);
    }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  g_assert_true (g_file_test (journal, G_FILE_TEST_IS_REGULAR));
  sum_db = file_checksum (f->path);
  sum_journal = file_checksum (journal);

  trace = load_ok (f->path);
  g_assert_cmpuint (pfprof_trace_n (trace, PFPROF_TABLE_KERNELS), ==, 20000);
  g_assert_cmpuint (pfprof_trace_n (trace, PFPROF_TABLE_API_CALLS), ==, 20000);
  for (guint i = 0; i < 20000; i++)
    {
      g_assert_cmpint (pfprof_trace_kernels (trace)[i].grid_x, ==, (gint32) i);
      g_assert_cmpuint (pfprof_trace_kernels (trace)[i].stream_id, ==, 7);
    }
  sum = file_checksum (f->path);
  g_assert_cmpstr (sum, ==, sum_db);
  g_free (sum);
  sum = file_checksum (journal);
  g_assert_cmpstr (sum, ==, sum_journal);
}

/* ---- Progress -------------------------------------------------------- */

typedef struct
{
  guint calls;
  double last;
  gboolean monotonic;
  guint cancel_after; /* 0 = never */
} Progress;

static gboolean
on_progress (double fraction, gpointer user_data)
{
  Progress *p = user_data;

  if (fraction < p->last || fraction < 0.0 || fraction > 1.0)
    p->monotonic = FALSE;
  p->last = fraction;
  p->calls++;
  return p->cancel_after == 0 || p->calls < p->cancel_after;
}

/* A progress callback that says stop on its third call stops the load
 * there, with CANCELLED. */
static void
expect_cancelled (const char *path)
{
  g_autoptr (GError) error = NULL;
  Progress p = { 0, 0.0, TRUE, 3 };
  PfprofTrace *trace = pfprof_trace_reader_load (path, on_progress, &p, &error);

  g_assert_null (trace);
  g_assert_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CANCELLED);
  g_assert_cmpuint (p.calls, ==, 3);
}

static void
test_progress_cancel (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PfprofTrace) trace = NULL;
  Progress p = { 0, 0.0, TRUE, 0 };

  write_kernels (f->path, 150000);
  trace = pfprof_trace_reader_load (f->path, on_progress, &p, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  g_assert_true (p.monotonic);
  /* 300,000 rows: at the start, every 65,536 rows (4), and at the end. */
  g_assert_cmpuint (p.calls, ==, 6);
  g_assert_cmpfloat (p.last, ==, 1.0);

  g_clear_pointer (&trace, pfprof_trace_free);
  expect_cancelled (f->path);
}

/* A trace big enough that format 2 is decoded by two threads: the same
 * records, progress still monotonic and complete, cancelling still stops
 * the load. */
static void
test_progress_threads (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PfprofTrace) trace = NULL;
  Progress p = { 0, 0.0, TRUE, 0 };

  write_kernels (f->path, 600000);
  trace = pfprof_trace_reader_load (f->path, on_progress, &p, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  g_assert_cmpuint (pfprof_trace_n (trace, PFPROF_TABLE_KERNELS), ==, 600000);
  g_assert_cmpuint (pfprof_trace_n (trace, PFPROF_TABLE_API_CALLS), ==, 600000);
  for (guint i = 0; i < 600000; i++)
    {
      g_assert_cmpint (pfprof_trace_kernels (trace)[i].grid_x, ==, (gint32) i);
      g_assert_cmpuint (pfprof_trace_api_calls (trace)[i].correlation_id, ==, i + 1);
    }
  g_assert_true (p.monotonic);
  g_assert_cmpuint (p.calls, >=, 3);
  g_assert_cmpfloat (p.last, ==, 1.0);

  g_clear_pointer (&trace, pfprof_trace_free);
  expect_cancelled (f->path);
}

/* ---- Writer ---------------------------------------------------------- */

static void
test_writer_no_overwrite (Fixture *f, gconstpointer data)
{
  g_autofree char *contents = NULL;
  g_autofree char *link = g_build_filename (f->dir, "link.pfprof", NULL);
  g_autofree char *target = g_build_filename (f->dir, "target.txt", NULL);
  g_autofree char *dangling = g_build_filename (f->dir, "dangling.pfprof", NULL);
  g_autofree char *nowhere = g_build_filename (f->dir, "nowhere", NULL);
  PfprofTraceWriter *w = NULL;

  g_assert_true (g_file_set_contents (f->path, "precious", -1, NULL));
  g_assert_cmpint (pfprof_trace_writer_open (f->path, 0, &w), ==, PFPROF_WRITER_ERR_EXISTS);
  g_assert_null (w);
  g_assert_true (g_file_get_contents (f->path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "precious");

  /* A symlink is never followed, not even with OVERWRITE. */
  g_assert_true (g_file_set_contents (target, "target", -1, NULL));
  g_assert_cmpint (symlink (target, link), ==, 0);
  g_assert_cmpint (pfprof_trace_writer_open (link, 0, &w), ==, PFPROF_WRITER_ERR_EXISTS);
  g_assert_cmpint (pfprof_trace_writer_open (link, PFPROF_WRITER_OVERWRITE, &w), ==,
                   PFPROF_WRITER_ERR_EXISTS);
  g_assert_null (w);
  g_free (contents);
  g_assert_true (g_file_get_contents (target, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "target");
  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  g_assert_cmpint (symlink (nowhere, dangling), ==, 0);
  g_assert_cmpint (pfprof_trace_writer_open (dangling, PFPROF_WRITER_OVERWRITE, &w), ==,
                   PFPROF_WRITER_ERR_EXISTS);
  g_assert_false (g_file_test (nowhere, G_FILE_TEST_EXISTS));

  /* A directory is not replaced either. */
  g_assert_cmpint (pfprof_trace_writer_open (f->dir, PFPROF_WRITER_OVERWRITE, &w), ==,
                   PFPROF_WRITER_ERR_EXISTS);

  /* OVERWRITE replaces a regular file with a valid trace. */
  g_assert_cmpint (pfprof_trace_writer_open (f->path, PFPROF_WRITER_OVERWRITE, &w), ==, 0);
  g_assert_nonnull (w);
  g_assert_cmpint (pfprof_trace_writer_finish (w), ==, 0);
  {
    g_autoptr (PfprofTrace) trace = load_ok (f->path);

    g_assert_cmpuint (pfprof_trace_n_events (trace), ==, 0);
  }
  /* A folder that does not exist: an error, nothing created. */
  {
    g_autofree char *deep = g_build_filename (f->dir, "no", "such", "t.pfprof", NULL);

    g_assert_cmpint (pfprof_trace_writer_open (deep, 0, &w), ==, PFPROF_WRITER_ERR_OPEN);
    g_assert_null (w);
  }
  g_assert_cmpint (pfprof_trace_writer_open (NULL, 0, &w), ==, PFPROF_WRITER_ERR_ARG);
  g_assert_cmpint (pfprof_trace_writer_open (f->path, 0, NULL), ==, PFPROF_WRITER_ERR_ARG);
}

static void
test_writer_bad_args (Fixture *f, gconstpointer data)
{
  PfprofTraceWriter *w = NULL;
  PfprofKernelRecord k = { 0 };

  g_assert_cmpint (pfprof_trace_writer_open (f->path, wflags, &w), ==, 0);
  g_assert_cmpint (pfprof_trace_writer_append (w, PFPROF_N_TABLES, &k), ==, PFPROF_WRITER_ERR_ARG);
  g_assert_cmpint (pfprof_trace_writer_append (w, PFPROF_TABLE_KERNELS, NULL), ==,
                   PFPROF_WRITER_ERR_ARG);
  g_assert_cmpint (pfprof_trace_writer_append (NULL, PFPROF_TABLE_KERNELS, &k), ==,
                   PFPROF_WRITER_ERR_ARG);
  g_assert_cmpuint (pfprof_trace_writer_n_records (w), ==, 0);
  g_assert_cmpint (pfprof_trace_writer_append (w, PFPROF_TABLE_KERNELS, &k), ==, 0);
  g_assert_cmpuint (pfprof_trace_writer_n_records (w), ==, 1);
  g_assert_cmpstr (pfprof_trace_writer_status_string (PFPROF_WRITER_ERR_EXISTS), ==, "file exists");
  g_assert_cmpint (pfprof_trace_writer_finish (w), ==, 0);
}

/* Appends without begin() share one transaction; close() without
 * finish() keeps them and the strings they name. */
static void
test_writer_close_keeps (Fixture *f, gconstpointer data)
{
  g_autoptr (PfprofTrace) trace = NULL;
  PfprofTraceWriter *w = NULL;

  g_assert_cmpint (pfprof_trace_writer_open (f->path, wflags, &w), ==, 0);
  for (int i = 0; i < 5000; i++)
    {
      PfprofNvtxRecord r = { 0 };

      r.start_ns = i;
      r.end_ns = i + 1;
      r.name_id = pfprof_trace_writer_intern (w, i < 2500 ? "first half" : "second half");
      g_assert_cmpint (pfprof_trace_writer_append (w, PFPROF_TABLE_NVTX, &r), ==, 0);
      if (i == 2499)
        g_assert_cmpint (pfprof_trace_writer_commit (w), ==, 0);
    }
  pfprof_trace_writer_close (w);
  trace = load_ok (f->path);
  g_assert_cmpuint (pfprof_trace_n (trace, PFPROF_TABLE_NVTX), ==, 5000);
  g_assert_cmpstr (pfprof_trace_string (trace, pfprof_trace_nvtx (trace)[4999].name_id), ==,
                   "second half");
  g_assert_cmpstr (pfprof_trace_meta (trace, "complete"), ==, "0");
}

/* ---- Chunk spans -------------------------------------------------- */

/* What a view draws before the load: the spans cover every record, and
 * only the chunks' own rows are read. */
static void
test_chunk_spans (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) spans = NULL;
  guint64 n[PFPROF_N_TABLES] = { 0 };
  gint64 lo = G_MAXINT64, hi = G_MININT64;

  write_kernels (f->path, 20000);
  spans = pfprof_trace_reader_chunk_spans (f->path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (spans);
  if (wflags)
    {
      /* Format 1 has no chunks: nothing to show before the load. */
      g_assert_cmpuint (spans->len, ==, 0);
      return;
    }
  g_assert_cmpuint (spans->len, >, 2);
  for (guint i = 0; i < spans->len; i++)
    {
      const PfprofTraceChunkSpan *s = &g_array_index (spans, PfprofTraceChunkSpan, i);

      n[s->table] += s->n;
      g_assert_cmpint (s->min_ns, <=, s->max_ns);
      if (s->table == PFPROF_TABLE_KERNELS)
        {
          lo = MIN (lo, s->min_ns);
          hi = MAX (hi, s->max_ns);
        }
    }
  g_assert_cmpuint (n[PFPROF_TABLE_KERNELS], ==, 20000);
  g_assert_cmpuint (n[PFPROF_TABLE_API_CALLS], ==, 20000);
  g_assert_cmpuint (n[PFPROF_TABLE_MEMCPYS], ==, 0);
  g_assert_cmpint (lo, ==, 1000000);
  g_assert_cmpint (hi, ==, 1000000 + 19999 * (gint64) 5000 + 4000);

  /* A span that ends before it starts is a corrupt file, said so. */
  trace_test_exec (f->path, "UPDATE chunks SET max_ns = min_ns - 1 WHERE id = (SELECT max(id) FROM chunks);");
  g_clear_pointer (&spans, g_array_unref);
  spans = pfprof_trace_reader_chunk_spans (f->path, &error);
  g_assert_null (spans);
  g_assert_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, "impossible span"));
  g_clear_error (&error);

  /* Not a trace: one error, as load() says it. */
  g_assert_true (g_file_set_contents (f->path, "{\"traceEvents\": []}", -1, NULL));
  spans = pfprof_trace_reader_chunk_spans (f->path, &error);
  g_assert_null (spans);
  g_assert_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_NOT_A_TRACE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name, func) g_test_add (name, Fixture, NULL, fixture_setup, func, fixture_teardown)
  /* On both formats. */
#define ADD2(name, func)                                                       \
  do                                                                           \
    {                                                                          \
      g_test_add ("/trace" name, Fixture, GUINT_TO_POINTER (0), fixture_setup, func, \
                  fixture_teardown);                                           \
      g_test_add ("/trace-v1" name, Fixture, GUINT_TO_POINTER (PFPROF_WRITER_ROWS), \
                  fixture_setup, func, fixture_teardown);                      \
    }                                                                          \
  while (0)
  /* Damage done to rows with SQL: format 1 only. */
#define ADD1(name, func)                                                       \
  g_test_add ("/trace-v1" name, Fixture, GUINT_TO_POINTER (PFPROF_WRITER_ROWS), fixture_setup, \
              func, fixture_teardown)
  ADD2 ("/roundtrip/extremes", test_roundtrip_extremes);
  ADD2 ("/roundtrip/strings-meta", test_roundtrip_strings_meta);
  ADD2 ("/roundtrip/sparse-strings", test_sparse_strings);
  ADD2 ("/roundtrip/sorted", test_sorted);
  ADD2 ("/version/newer-major", test_version_newer_major);
  ADD2 ("/version/newer-minor", test_version_newer_minor);
  ADD2 ("/version/garbage", test_version_garbage);
  g_test_add_func ("/trace/sort-paths", test_sort_paths);
  ADD ("/trace/bad/missing", test_missing);
  ADD ("/trace/bad/empty", test_empty);
  ADD2 ("/bad/mutations", test_mutations);
  ADD2 ("/symlink-and-odd-names", test_symlink_and_odd_names);
  ADD ("/trace/bad/random-bytes", test_random_bytes);
  ADD ("/trace/bad/foreign-sqlite", test_foreign_sqlite);
  ADD2 ("/bad/truncated", test_truncated);
  ADD2 ("/bad/corrupt-pages", test_corrupt_pages);
  ADD1 ("/bad/handmade-ok", test_handmade_ok);
  ADD1 ("/bad/null", test_null);
  ADD2 ("/bad/negative-duration", test_negative_duration);
  ADD1 ("/bad/overflow", test_overflow);
  ADD2 ("/bad/missing-table-column", test_missing_table_column);
  ADD2 ("/readonly/finished", test_read_only);
  ADD2 ("/readonly/wal-killed-writer", test_wal_killed_writer);
  ADD2 ("/readonly/wal-copied-without-shm", test_wal_copied_without_shm);
  ADD2 ("/readonly/hot-journal", test_hot_journal);
  ADD2 ("/progress-cancel", test_progress_cancel);
  g_test_add ("/trace/progress-cancel-threads", Fixture, GUINT_TO_POINTER (0), fixture_setup,
              test_progress_threads, fixture_teardown);
  ADD ("/trace/writer/no-overwrite", test_writer_no_overwrite);
  ADD ("/trace/writer/bad-args", test_writer_bad_args);
  ADD2 ("/writer/close-keeps", test_writer_close_keeps);
  ADD2 ("/chunk-spans", test_chunk_spans);
#undef ADD2
#undef ADD1
#undef ADD
  return g_test_run ();
}
