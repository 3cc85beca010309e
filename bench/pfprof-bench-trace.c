/* SPDX-License-Identifier: MIT */
/* pfprof-bench-trace.c: how fast traces are written and read, and how big
 * they are. Method and figures: bench/RESULTS-trace.md.
 *
 *   pfprof-bench-trace EVENTS PATH [PLANTS]
 *
 * 1. generate: the synthetic generator writes EVENTS events to PATH
 *    through the trace writer (generator + writer, format 2).
 * 2. read: the analyzer's reader loads PATH (every value checked).
 * 3. floor: the chunks' blobs read out of SQLite and nothing decoded
 *    (format 2's floor: no reader of the file can be faster).
 * 4. write: the loaded records written again through a fresh writer, once
 *    in format 2 (PATH.rewrite) and once as format 1 rows (PATH.rows,
 *    PFPROF_WRITER_ROWS), committing every 1M records: the writer alone,
 *    on one core (the writer is single-threaded; CPU time is user +
 *    system of this process during the write), as the collector's writer
 *    thread drives it.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "pfprof-trace-generator.h"
#include "pfprof-importer.h"
#include "pfprof-trace-writer.h"

static long
max_rss_kib (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

static double
cpu_s (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return (double) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec)
         + (double) (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static gint64
file_size (const char *path)
{
  GStatBuf st;

  return g_stat (path, &st) == 0 ? (gint64) st.st_size : -1;
}

/* Reads every chunk blob (touching its bytes); returns the records. */
static guint64
blob_floor (const char *path, guint64 *bytes)
{
  g_autofree char *uri = g_strdup_printf ("file:%s?immutable=1", path);
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  guint64 n = 0;
  guint sum = 0;

  *bytes = 0;
  if (sqlite3_open_v2 (uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK
      || sqlite3_prepare_v2 (db, "SELECT n, data FROM chunks", -1, &st, NULL) != SQLITE_OK)
    {
      sqlite3_close (db);
      return 0;
    }
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      const guchar *b = sqlite3_column_blob (st, 1);
      int len = sqlite3_column_bytes (st, 1);

      for (int i = 0; i < len; i += 64)
        sum += b[i];
      *bytes += (guint64) len;
      n += (guint64) sqlite3_column_int64 (st, 0);
    }
  sqlite3_finalize (st);
  sqlite3_close (db);
  return sum == 0xdeadbeef ? 0 : n;
}

/* Writes every record of @trace to @path with writer @flags; FALSE on
 * failure. */
static gboolean
rewrite (const PfprofTrace *trace, const char *path, unsigned flags)
{
  PfprofTraceWriter *w = NULL;
  guint64 n = 0;
  int rc;

  g_unlink (path);
  if ((rc = pfprof_trace_writer_open (path, flags, &w)) != PFPROF_WRITER_OK)
    {
      fprintf (stderr, "%s: %s\n", path, pfprof_trace_writer_status_string (rc));
      return FALSE;
    }
  for (guint i = 0; i < trace->strings->len; i++)
    if (g_ptr_array_index (trace->strings, i) != NULL)
      pfprof_trace_writer_set_string (w, i, g_ptr_array_index (trace->strings, i));
  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    {
      GArray *a = trace->tables[t];
      gsize size = g_array_get_element_size (a);

      for (guint i = 0; i < a->len; i++)
        {
          if (pfprof_trace_writer_append (w, (PfprofTableId) t, a->data + (gsize) i * size)
                != PFPROF_WRITER_OK
              || (++n % 1000000 == 0 && pfprof_trace_writer_commit (w) != PFPROF_WRITER_OK))
            {
              fprintf (stderr, "%s: %s\n", path, pfprof_trace_writer_errmsg (w));
              pfprof_trace_writer_close (w);
              return FALSE;
            }
        }
    }
  return pfprof_trace_writer_finish (w) == PFPROF_WRITER_OK;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *rewritten = NULL;
  g_autofree char *rows = NULL;
  PfprofTraceGenerator gen;
  PfprofTraceGeneratorResult result;
  PfprofTrace *trace;
  char errbuf[256];
  gint64 t0, t1, t2, t3;
  double c0, c1, c2, c3;
  guint64 floor_rows, floor_bytes, n_events;
  long rss_before;

  if (argc < 3 || argc > 4)
    {
      fprintf (stderr, "usage: %s EVENTS PATH [PLANTS]\n", argv[0]);
      return 2;
    }
  pfprof_trace_generator_init (&gen);
  gen.steps = 0;
  gen.events = g_ascii_strtoull (argv[1], NULL, 10);
  if (argc == 4 && pfprof_trace_generator_parse_plants (argv[3], &gen.plants) != 0)
    {
      fprintf (stderr, "bad plant list %s\n", argv[3]);
      return 2;
    }
  rewritten = g_strconcat (argv[2], ".rewrite", NULL);
  rows = g_strconcat (argv[2], ".rows", NULL);
  g_unlink (argv[2]);

  t0 = g_get_monotonic_time ();
  c0 = cpu_s ();
  if (pfprof_trace_generator_write (&gen, argv[2], 0, &result, errbuf, sizeof errbuf) != 0)
    {
      fprintf (stderr, "write failed: %s\n", errbuf);
      return 1;
    }
  t1 = g_get_monotonic_time ();
  c1 = cpu_s ();
  rss_before = max_rss_kib ();
  trace = pfprof_importer_load (argv[2], NULL, NULL, &error);
  t2 = g_get_monotonic_time ();
  c2 = cpu_s ();
  if (trace == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  n_events = pfprof_trace_n_events (trace);
  printf ("events            %" G_GUINT64_FORMAT " (%u steps)\n", result.n_events, result.n_steps);
  printf ("file bytes        %" G_GINT64_FORMAT "\n", file_size (argv[2]));
  printf ("bytes per event   %.1f\n", (double) file_size (argv[2]) / (double) result.n_events);
  printf ("generate          %.2f s wall, %.2f s cpu, %.0f events/s (generator + writer)\n",
          (double) (t1 - t0) / 1e6, c1 - c0, (double) result.n_events / ((double) (t1 - t0) / 1e6));
  printf ("read              %.2f s wall, %.2f s cpu, %.0f events/s\n", (double) (t2 - t1) / 1e6,
          c2 - c1, (double) n_events / ((double) (t2 - t1) / 1e6));
  printf ("peak RSS MiB      %.0f (before reading: %.0f)\n", max_rss_kib () / 1024.0,
          rss_before / 1024.0);

  t2 = g_get_monotonic_time ();
  c2 = cpu_s ();
  floor_rows = blob_floor (argv[2], &floor_bytes);
  t3 = g_get_monotonic_time ();
  c3 = cpu_s ();
  printf ("floor (blobs)     %.2f s wall, %.2f s cpu, %" G_GUINT64_FORMAT " records in %" G_GUINT64_FORMAT
          " blob bytes\n", (double) (t3 - t2) / 1e6, c3 - c2, floor_rows, floor_bytes);

  for (int rows_mode = 0; rows_mode <= 1; rows_mode++)
    {
      const char *out = rows_mode ? rows : rewritten;

      t2 = g_get_monotonic_time ();
      c2 = cpu_s ();
      if (!rewrite (trace, out, rows_mode ? PFPROF_WRITER_ROWS : 0))
        return 1;
      t3 = g_get_monotonic_time ();
      c3 = cpu_s ();
      printf ("write %s  %.2f s wall, %.2f s cpu, %.0f records/s (cpu), %.0f records/s (wall), "
              "%.1f bytes/event\n", rows_mode ? "format 1" : "format 2", (double) (t3 - t2) / 1e6,
              c3 - c2, (double) n_events / (c3 - c2), (double) n_events / ((double) (t3 - t2) / 1e6),
              (double) file_size (out) / (double) n_events);
      g_unlink (out);
    }
  pfprof_trace_free (trace);
  return 0;
}
