/* pfprof-bench-trace.c: how fast traces are written and read, and how big
 * they are. Writes a synthetic trace of N events with the generator (the
 * same writer the collector uses), then loads it with the analyzer's
 * reader. Results go in bench/RESULTS-trace.md with the command used.
 *
 *   pfprof-bench-trace EVENTS PATH [PLANTS]
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "pfprof-trace-generator.h"
#include "pfprof-trace-reader.h"

static long
max_rss_kib (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  PfprofTraceGenerator gen;
  PfprofTraceGeneratorResult result;
  PfprofTrace *trace;
  GStatBuf st;
  char errbuf[256];
  gint64 t0, t1, t2;
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
  g_unlink (argv[2]);

  t0 = g_get_monotonic_time ();
  if (pfprof_trace_generator_write (&gen, argv[2], 0, &result, errbuf, sizeof errbuf) != 0)
    {
      fprintf (stderr, "write failed: %s\n", errbuf);
      return 1;
    }
  t1 = g_get_monotonic_time ();
  rss_before = max_rss_kib ();
  trace = pfprof_trace_reader_load (argv[2], NULL, NULL, &error);
  t2 = g_get_monotonic_time ();
  if (trace == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  if (g_stat (argv[2], &st) != 0)
    return 1;

  printf ("events            %" G_GUINT64_FORMAT " (%u steps)\n", result.n_events, result.n_steps);
  printf ("file bytes        %" G_GINT64_FORMAT "\n", (gint64) st.st_size);
  printf ("bytes per event   %.1f\n", (double) st.st_size / (double) result.n_events);
  printf ("write seconds     %.2f\n", (double) (t1 - t0) / 1e6);
  printf ("write events/s    %.0f\n", (double) result.n_events / ((double) (t1 - t0) / 1e6));
  printf ("read seconds      %.2f\n", (double) (t2 - t1) / 1e6);
  printf ("read events/s     %.0f\n",
          (double) pfprof_trace_n_events (trace) / ((double) (t2 - t1) / 1e6));
  printf ("peak RSS MiB      %.0f (before reading: %.0f)\n", max_rss_kib () / 1024.0,
          rss_before / 1024.0);
  pfprof_trace_free (trace);
  return 0;
}
