/* SPDX-License-Identifier: MIT */
/* test-trace-chunks.c: format 2's column chunks (suite `trace`): the codec
 * round-trips every table at its extremes, and every way a chunk can be
 * damaged ends in one PFPROF_TRACE_ERROR_CORRUPT line naming the chunk and
 * the problem, never a crash. Damaged chunks are planted with SQL into a
 * trace the writer wrote, so the rest of the file is valid. */
#include <string.h>

#include "pfprof-trace-chunk.h"
#include "trace-test-util.h"

typedef struct
{
  char *dir;
  char *path;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  f->dir = trace_test_tmp_dir ();
  f->path = g_build_filename (f->dir, "t.pfprof", NULL);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  trace_test_tmp_dir_free (f->dir);
  g_free (f->path);
}

/* ---- The codec -------------------------------------------------------- */

/* Every event table: records at the minimum, ordinary and maximum values
 * (trace_test_fill_record) and random ones, encoded and decoded. */
static void
test_codec_roundtrip (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (42);

  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    {
      const PfprofTraceTable *table = pfprof_trace_schema_table ((PfprofTableId) t);
      const guint n = 1000;
      g_autofree guint8 *records = NULL;
      g_autofree guint8 *decoded = NULL;
      g_autofree guint8 *out = NULL;
      g_autofree guint8 *scratch = NULL;
      PfprofTraceChunkError err;
      gint64 lo, hi, want_lo = G_MAXINT64, want_hi = G_MININT64;
      size_t len;

      if (!pfprof_trace_schema_is_chunked ((PfprofTableId) t))
        continue;
      records = g_malloc0 ((gsize) n * table->record_size);
      decoded = g_malloc0 ((gsize) n * table->record_size);
      for (guint i = 0; i < n; i++)
        {
          guint8 *rec = records + (gsize) i * table->record_size;

          trace_test_fill_record ((PfprofTableId) t, i < 3 ? (int) i : (int) (i % 3), rec);
          if (i >= 3)
            for (unsigned c = 0; c < table->n_columns; c++)
              {
                const PfprofTraceColumn *col = &table->columns[c];
                gint64 v = (gint64) g_rand_int (rand);

                if (col->kind == PFPROF_COLUMN_DURATION)
                  continue;
                if (col->width < 8)
                  v &= ((gint64) 1 << (8 * col->width - 1)) - 1;
                else
                  v = (gint64) (((guint64) g_rand_int (rand) << 32) | g_rand_int (rand));
                g_assert_cmpint (pfprof_trace_column_set (col, rec, v), ==, 0);
              }
          /* A duration that keeps end in range. */
          if (table->n_columns > 1 && table->columns[1].kind == PFPROF_COLUMN_DURATION)
            {
              gint64 start = *(gint64 *) (rec + table->columns[0].offset);
              gint64 d = (gint64) g_rand_int_range (rand, 0, 1 << 30);

              *(gint64 *) (rec + table->columns[1].offset) = start > G_MAXINT64 - d ? G_MAXINT64 : start + d;
            }
          {
            gint64 start = *(gint64 *) (rec + table->columns[0].offset);
            gint64 end = start;

            if (table->n_columns > 1 && table->columns[1].kind == PFPROF_COLUMN_DURATION)
              end = *(gint64 *) (rec + table->columns[1].offset);
            want_lo = MIN (want_lo, start);
            want_hi = MAX (want_hi, MAX (start, end));
          }
        }
      out = g_malloc (pfprof_trace_chunk_bound (table, n));
      scratch = g_malloc ((gsize) n * 10);
      len = pfprof_trace_chunk_encode (table, records, n, out, scratch, &lo, &hi);
      g_assert_cmpuint (len, <=, pfprof_trace_chunk_bound (table, n));
      g_assert_cmpint (lo, ==, want_lo);
      g_assert_cmpint (hi, ==, want_hi);
      g_assert_cmpint (pfprof_trace_chunk_decode (table, out, len, n, FALSE, decoded, &err), ==, 0);
      g_assert_cmpmem (decoded, (gsize) n * table->record_size, records, (gsize) n * table->record_size);
      /* Any shorter blob is refused, never read past. */
      for (size_t cut = 0; cut < len; cut += 1 + len / 97)
        {
          g_autofree guint8 *exact = g_memdup2 (out, cut);

          memset (decoded, 0, (gsize) n * table->record_size);
          g_assert_cmpint (pfprof_trace_chunk_decode (table, exact ? exact : out, cut, n, FALSE,
                                                      decoded, &err),
                           ==, -1);
          g_assert_cmpuint (strlen (err.message), >, 0);
        }
    }
}

/* Typical records cost a few bytes: the point of the format. */
static void
test_codec_compact (void)
{
  const PfprofTraceTable *table = pfprof_trace_schema_table (PFPROF_TABLE_KERNELS);
  PfprofKernelRecord k[PFPROF_TRACE_CHUNK_RECORDS];
  g_autofree guint8 *out = g_malloc (pfprof_trace_chunk_bound (table, G_N_ELEMENTS (k)));
  g_autofree guint8 *scratch = g_malloc (G_N_ELEMENTS (k) * 10);
  gint64 lo, hi;
  size_t len;

  memset (k, 0, sizeof k);
  for (guint i = 0; i < G_N_ELEMENTS (k); i++)
    {
      k[i].start_ns = 1767225600000000000 + (gint64) i * 20000;
      k[i].end_ns = k[i].start_ns + 15000 + i % 7;
      k[i].device_id = 0;
      k[i].context_id = 1;
      k[i].stream_id = 7;
      k[i].correlation_id = 1000 + i * 2;
      k[i].name_id = i % 38;
      k[i].grid_x = 1024;
      k[i].grid_y = k[i].grid_z = 1;
      k[i].block_x = 256;
      k[i].block_y = k[i].block_z = 1;
      k[i].registers = 32;
    }
  len = pfprof_trace_chunk_encode (table, k, G_N_ELEMENTS (k), out, scratch, &lo, &hi);
  g_test_message ("%zu bytes for %zu kernels", len, G_N_ELEMENTS (k));
  /* 15 columns: start delta 3 bytes, duration 2-3, name_id delta 1-2,
   * the rest 1 byte each. */
  g_assert_cmpuint (len, <, 24 * G_N_ELEMENTS (k));
}

/* ---- Damaged chunks in a file ------------------------------------------ */

/* A finished format-2 trace with three memsets in one chunk (so that
 * chunk ids and record numbers in messages are predictable) and one
 * stream (a row table). */
static void
write_memsets (const char *path)
{
  PfprofTraceWriter *w = NULL;
  PfprofStreamRecord s = { 0 };

  g_assert_cmpint (pfprof_trace_writer_open (path, 0, &w), ==, 0);
  for (int i = 0; i < 3; i++)
    {
      PfprofMemsetRecord m = { 0 };

      m.start_ns = 1000 + i * 100;
      m.end_ns = m.start_ns + 10;
      m.bytes = 4096;
      m.stream_id = 7;
      g_assert_cmpint (pfprof_trace_writer_append (w, PFPROF_TABLE_MEMSETS, &m), ==, 0);
    }
  s.stream_id = 7;
  g_assert_cmpint (pfprof_trace_writer_append (w, PFPROF_TABLE_STREAMS, &s), ==, 0);
  g_assert_cmpint (pfprof_trace_writer_finish (w), ==, 0);
}

/* A blob built by hand: @n_columns columns; column c holds the varints
 * given as raw bytes in @columns[c] (hex digits, spaces ignored). Lengths
 * are computed unless @lengths overrides them (-1 = computed). */
static char *
hex_blob (guint n_columns, const char *const *columns, const int *lengths)
{
  GString *s = g_string_new (NULL);

  g_string_append_printf (s, "%02x", n_columns);
  for (guint c = 0; c < n_columns; c++)
    {
      g_auto (GStrv) parts = g_strsplit (columns[c], " ", -1);
      g_autofree char *joined = g_strjoinv ("", parts);
      guint len = (guint) strlen (joined) / 2;

      g_string_append_printf (s, "%02x%s", lengths && lengths[c] >= 0 ? (guint) lengths[c] : len, joined);
    }
  return g_string_free (s, FALSE);
}

/* The 10 columns of memsets for 3 records, valid: start 1000 +100 +100
 * (zigzag 2000 = d0 0f, 200 = c8 01), dur 10 (zigzag 20 = 14), bytes 4096
 * then 0 deltas (zigzag 8192 = 80 40), device/context 0, stream 7 (0e),
 * correlation 0, value 0, memory_kind 0, flags 0. */
static const char *const memset_ok[] = {
  "d00f c801 c801", "14 14 14", "8040 00 00", "00 00 00", "00 00 00", "0e 00 00",
  "00 00 00", "00 00 00", "00 00 00", "00 00 00",
};

/* Replaces the memsets chunk's data (and n). */
static void
set_chunk (const char *path, const char *hex, int n)
{
  g_autofree char *sql = g_strdup_printf ("UPDATE chunks SET data = x'%s', n = %d WHERE table_name = 'memsets'",
                                          hex, n);

  trace_test_exec (path, sql);
}

/* Loading fails with one CORRUPT line that says @needle; returns it. */
static char *
expect_load_says (const char *path, const char *needle)
{
  char *msg = trace_test_load_fails (path, PFPROF_TRACE_ERROR_CORRUPT);

  if (strstr (msg, needle) == NULL)
    g_error ("'%s' does not say '%s'", msg, needle);
  return msg;
}

/* Loads with the memsets chunk replaced: the trace must load. */
static PfprofTrace *
expect_loads (const char *path, const char *hex, int n)
{
  g_autoptr (GError) error = NULL;
  PfprofTrace *trace;

  set_chunk (path, hex, n);
  trace = pfprof_trace_reader_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

/* Loads with the memsets chunk replaced: refused, naming chunk 1. */
static void
expect_corrupt (const char *path, const char *hex, int n, const char *needle)
{
  g_autofree char *msg = NULL;

  set_chunk (path, hex, n);
  msg = expect_load_says (path, needle);
  g_assert_nonnull (strstr (msg, "chunk 1"));
}

/* Runs @sql on the file, then loading must fail saying @needle. */
static void
expect_sql_corrupt (const char *path, const char *sql, const char *needle)
{
  trace_test_exec (path, sql);
  g_free (expect_load_says (path, needle));
}

static void
test_handmade_chunk_ok (Fixture *f, gconstpointer data)
{
  g_autofree char *hex = hex_blob (10, memset_ok, NULL);
  g_autoptr (PfprofTrace) trace = NULL;

  write_memsets (f->path);
  /* The hand-made blob is what the writer wrote, byte for byte. */
  {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    g_autofree char *got = NULL;

    g_assert_cmpint (sqlite3_open (f->path, &db), ==, SQLITE_OK);
    g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT lower(hex(data)), n, min_ns, max_ns FROM chunks", -1,
                                         &st, NULL),
                     ==, SQLITE_OK);
    g_assert_cmpint (sqlite3_step (st), ==, SQLITE_ROW);
    got = g_strdup ((const char *) sqlite3_column_text (st, 0));
    g_assert_cmpint (sqlite3_column_int64 (st, 1), ==, 3);
    g_assert_cmpint (sqlite3_column_int64 (st, 2), ==, 1000);
    g_assert_cmpint (sqlite3_column_int64 (st, 3), ==, 1210);
    sqlite3_finalize (st);
    sqlite3_close (db);
    g_assert_cmpstr (got, ==, hex);
  }
  trace = expect_loads (f->path, hex, 3);
  g_assert_cmpuint (pfprof_trace_n (trace, PFPROF_TABLE_MEMSETS), ==, 3);
  g_assert_cmpint (pfprof_trace_memsets (trace)[2].start_ns, ==, 1200);
  g_assert_cmpint (pfprof_trace_memsets (trace)[2].end_ns, ==, 1210);
  g_assert_cmpuint (pfprof_trace_memsets (trace)[1].bytes, ==, 4096);
  g_assert_cmpuint (pfprof_trace_memsets (trace)[0].stream_id, ==, 7);
}

static void
test_damaged_chunks (Fixture *f, gconstpointer data)
{
  const char *cols[10];
  int lengths[10];

  write_memsets (f->path);

#define RESET()                                                                \
  do                                                                           \
    {                                                                          \
      memcpy (cols, memset_ok, sizeof cols);                                   \
      for (guint i = 0; i < 10; i++)                                           \
        lengths[i] = -1;                                                       \
    }                                                                          \
  while (0)
#define EXPECT(n_columns, n, needle)                                           \
  do                                                                           \
    {                                                                          \
      g_autofree char *hex = hex_blob (n_columns, cols, lengths);              \
      expect_corrupt (f->path, hex, n, needle);                                \
      RESET ();                                                                \
    }                                                                          \
  while (0)

  RESET ();
  /* n disagrees with the values. */
  EXPECT (10, 7, "column start_ns: 6 bytes cannot hold 7 values");
  EXPECT (10, 2, "column start_ns: byte length 6 holds more than its 2 values");
  /* A byte length past the end of the blob, and one too short. */
  lengths[9] = 5;
  EXPECT (10, 3, "runs past the end of the chunk");
  cols[2] = "8040 00 00 00";
  EXPECT (10, 3, "column bytes: byte length 5 holds more than its 3 values");
  /* Varints: cut inside a column, overlong, past 64 bits. */
  cols[0] = "d00f c801 c8";
  EXPECT (10, 3, "column start_ns: value of record 3 is truncated");
  cols[0] = "d00f c801 c88100";
  EXPECT (10, 3, "column start_ns: value of record 3 is overlong");
  cols[2] = "ffffffffffffffffff7f 00 00";
  EXPECT (10, 3, "column bytes: value of record 1 exceeds 64 bits");
  /* Values that do not fit their field: device_id (u32) 2^32 (zigzag
   * 2^33 = 80 80 80 80 20), -1; memory_kind (u8) 256. */
  cols[3] = "00 8080808020 00";
  EXPECT (10, 3, "column device_id: value 4294967296 of record 2 does not fit its 4-byte unsigned field");
  cols[3] = "01 00 00";
  EXPECT (10, 3, "column device_id: value -1 of record 1 does not fit");
  cols[8] = "8004 00 00";
  EXPECT (10, 3, "column memory_kind: value 256 of record 1 does not fit its 1-byte unsigned field");
  /* Durations: negative (zigzag 19 = -10), end past INT64_MAX. */
  cols[1] = "14 13 14";
  EXPECT (10, 3, "column dur_ns: record 2 is negative (-10)");
  cols[0] = "feffffffffffffffff01 00 00"; /* start INT64_MAX */
  EXPECT (10, 3, "column dur_ns: record 1 overflows the end time");
  /* Columns missing (a file of this minor must have them all), bytes
   * after the last one. */
  EXPECT (9, 3, "9 columns, table memsets has 10");
  {
    g_autofree char *hex = hex_blob (10, cols, lengths);
    g_autofree char *longer = g_strconcat (hex, "00", NULL);

    expect_corrupt (f->path, longer, 3, "1 bytes after the last column");
  }
  expect_corrupt (f->path, "", 0, "column count is truncated");
  /* Chunk rows that are wrong before any byte is decoded. */
  {
    g_autofree char *hex = hex_blob (10, cols, lengths);

    pfprof_trace_free (expect_loads (f->path, hex, 3));
    expect_sql_corrupt (f->path, "UPDATE chunks SET table_name = 'graphs'",
                        "chunk 1: unknown table 'graphs'");
    expect_sql_corrupt (f->path, "UPDATE chunks SET table_name = 'streams'",
                        "unknown table 'streams'");
    expect_sql_corrupt (f->path, "UPDATE chunks SET table_name = 'memsets', n = -1",
                        "-1 records cannot fit");
    /* A huge n must not allocate: bounded by the blob's length. */
    expect_sql_corrupt (f->path, "UPDATE chunks SET n = 4000000000",
                        "4000000000 records cannot fit in 45 bytes");
    expect_sql_corrupt (f->path, "UPDATE chunks SET n = 3, data = CAST(data AS TEXT)",
                        "data is not a blob");
    expect_sql_corrupt (f->path, "DROP TABLE chunks", "no table chunks");
  }
#undef EXPECT
#undef RESET
}

/* Format 2 files of a newer minor version may add columns (at the end,
 * skipped by their length) and tables (skipped). (An older minor may lack
 * the newest tables: tests/analyzer/diagnose/test-sites-cli.py reads a 2.0 file
 * without the Python tables.) */
static void
test_minor_versions (Fixture *f, gconstpointer data)
{
  const char *cols[11];
  g_autofree char *sql = NULL;

  write_memsets (f->path);
  memcpy (cols, memset_ok, sizeof memset_ok);
  cols[10] = "05 05 05";
  {
    g_autofree char *hex = hex_blob (11, cols, NULL);

    /* A column past the table's is skipped by its length. */
    pfprof_trace_free (expect_loads (f->path, hex, 3));
  }
  /* A newer minor's table: skipped, not an error. */
  sql = g_strdup_printf ("UPDATE meta SET value = '%d.%d' WHERE key = 'format_version';"
                         "INSERT INTO chunks (table_name, n, min_ns, max_ns, data)"
                         " VALUES ('graphs', 1, 0, 0, x'0101ff')",
                         PFPROF_TRACE_FORMAT_MAJOR, PFPROF_TRACE_FORMAT_MINOR + 1);
  trace_test_exec (f->path, sql);
  {
    g_autoptr (PfprofTrace) trace = pfprof_trace_reader_load (f->path, NULL, NULL, NULL);

    g_assert_nonnull (trace);
    g_assert_cmpuint (pfprof_trace_n (trace, PFPROF_TABLE_MEMSETS), ==, 3);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/chunks/codec/roundtrip", test_codec_roundtrip);
  g_test_add_func ("/chunks/codec/compact", test_codec_compact);
#define ADD(name, func) g_test_add (name, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/chunks/file/handmade-ok", test_handmade_chunk_ok);
  ADD ("/chunks/file/damaged", test_damaged_chunks);
  ADD ("/chunks/file/minor-versions", test_minor_versions);
#undef ADD
  return g_test_run ();
}
