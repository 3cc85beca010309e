/* SPDX-License-Identifier: MIT */
/* pfprof-bench-report.c: how long `pfprof report` takes, by phase, and
 * the floor a plain SQLite scan of the same tables sets.
 *
 * Usage: pfprof-bench-report TRACE
 *
 * Prints one line per phase (ms) and the peak RSS after each. The floor
 * reads every row of every event table with sqlite3_step and
 * sqlite3_column_int64 on each column (trace format 1), or every chunk's
 * blob (format 2: `SELECT n, data FROM chunks`, touching each blob's
 * bytes), and nothing else: no reader of the format can be faster. The end-to-end command (what users run) is timed separately
 * with /usr/bin/time; see bench/RESULTS-report.md.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "pfprof-analysis.h"
#include "pfprof-report.h"
#include "pfprof-importer.h"

/* User + system CPU time of this process so far, ms: less sensitive than
 * wall time to other jobs sharing the machine's two cores. */
static double
cpu_ms (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3
         + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static long
peak_rss_mib (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024;
}

/* The floor: step through every event table's rows, reading each column. */
static gboolean
sqlite_scan (const char *path, guint64 *rows, gint64 *checksum)
{
  g_autofree char *uri = g_strdup_printf ("file:%s?immutable=1", path);
  sqlite3 *db = NULL;

  sqlite3_stmt *chunks = NULL;

  if (sqlite3_open_v2 (uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK)
    return FALSE;
  /* Format 2: the event tables are chunks; read each blob out of SQLite
   * (what the reader's decoder starts from) and add up its bytes. */
  if (sqlite3_prepare_v2 (db, "SELECT n, data FROM chunks", -1, &chunks, NULL) == SQLITE_OK)
    {
      while (sqlite3_step (chunks) == SQLITE_ROW)
        {
          const unsigned char *b = sqlite3_column_blob (chunks, 1);
          int len = sqlite3_column_bytes (chunks, 1);

          for (int i = 0; i < len; i += 64)
            *checksum += b[i];
          *rows += (guint64) sqlite3_column_int64 (chunks, 0);
        }
      sqlite3_finalize (chunks);
      sqlite3_close (db);
      return TRUE;
    }
  for (unsigned t = 0; t < PFPROF_TABLE_DEVICES; t++)
    {
      const PfprofTraceTable *table = pfprof_trace_schema_table ((PfprofTableId) t);
      g_autofree char *sql = g_strdup_printf ("SELECT * FROM %s", table->name);
      sqlite3_stmt *st = NULL;

      if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK)
        continue;
      while (sqlite3_step (st) == SQLITE_ROW)
        {
          int n = sqlite3_column_count (st);

          for (int c = 0; c < n; c++)
            *checksum += sqlite3_column_int64 (st, c);
          (*rows)++;
        }
      sqlite3_finalize (st);
    }
  sqlite3_close (db);
  return TRUE;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) traces = NULL;
  g_autoptr (PfprofRun) run = NULL;
  g_autoptr (PfprofAnalysis) analysis = NULL;
  g_autoptr (GString) out = g_string_new (NULL);
  PfprofReportOptions ro;
  PfprofTrace *trace;
  guint64 rows = 0, events;
  gint64 checksum = 0, t0, t1, t2, t3, t4;
  double c0, c1, c2, c3, c4;

  if (argc != 2)
    {
      fprintf (stderr, "usage: %s TRACE\n", argv[0]);
      return 2;
    }
  t0 = g_get_monotonic_time ();
  c0 = cpu_ms ();
  if (!sqlite_scan (argv[1], &rows, &checksum))
    {
      fprintf (stderr, "%s: cannot open\n", argv[1]);
      return 2;
    }
  t1 = g_get_monotonic_time ();
  c1 = cpu_ms ();
  printf ("sqlite-scan  %8.0f ms wall %8.0f ms cpu  %" G_GUINT64_FORMAT " rows (checksum %" G_GINT64_FORMAT
          ")  peak %ld MiB\n",
          (t1 - t0) / 1e3, c1 - c0, rows, checksum, peak_rss_mib ());

  trace = pfprof_importer_load (argv[1], NULL, NULL, &error);
  if (trace == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 2;
    }
  t2 = g_get_monotonic_time ();
  c2 = cpu_ms ();
  events = pfprof_trace_n_events (trace);
  printf ("load         %8.0f ms wall %8.0f ms cpu  %" G_GUINT64_FORMAT " events  peak %ld MiB\n",
          (t2 - t1) / 1e3, c2 - c1, events, peak_rss_mib ());

  traces = g_ptr_array_new ();
  g_ptr_array_add (traces, trace);
  run = pfprof_run_new (g_steal_pointer (&traces));
  analysis = pfprof_analysis_run (run, NULL);
  t3 = g_get_monotonic_time ();
  c3 = cpu_ms ();
  printf ("analyze      %8.0f ms wall %8.0f ms cpu  %u steps, %u findings  peak %ld MiB\n",
          (t3 - t2) / 1e3, c3 - c2, analysis->steps->len, analysis->findings->len, peak_rss_mib ());

  pfprof_report_options_init (&ro);
  ro.format = PFPROF_REPORT_JSON;
  pfprof_report_render (analysis, &ro, out);
  t4 = g_get_monotonic_time ();
  c4 = cpu_ms ();
  printf ("render json  %8.0f ms wall %8.0f ms cpu  %" G_GSIZE_FORMAT " bytes  peak %ld MiB\n",
          (t4 - t3) / 1e3, c4 - c3, out->len, peak_rss_mib ());
  printf ("report total %8.0f ms wall %8.0f ms cpu (load + analyze + render): %.2fx the SQLite scan "
          "(wall), %.2fx (cpu)\n",
          (t4 - t1) / 1e3, c4 - c1, (double) (t4 - t1) / (double) MAX (1, t1 - t0),
          (c4 - c1) / MAX (1.0, c1 - c0));
  return 0;
}
