/* SPDX-License-Identifier: MIT */
/* pfprof-bench-render.c: how fast the timeline draws, headless.
 *
 * Usage: pfprof-bench-render TRACE [WIDTH HEIGHT]
 *
 * Loads TRACE, runs the analysis, lays out the timeline, then times
 * pfprof_renderer_draw() into a WIDTHxHEIGHT image (default 1920x1080, the
 * size of a maximised window) at full view, at a 1 ms window and at a
 * 10 us window (deep zoom), each while panning by one pixel per frame as
 * a user scrolling would. Prints one line per measurement. */
#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pfprof-analysis.h"
#include "pfprof-renderer.h"
#include "pfprof-timeline.h"
#include "pfprof-importer.h"

#define FRAMES 40

static int
compare_i64 (const void *a, const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

/* CPU time of this thread, us: what a frame costs, apart from the time
 * other processes on a busy machine take the core away. */
static gint64
thread_cpu_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void
bench_view (const char *name, PfprofTimeline *tl, PfprofRenderView *view, cairo_t *cr)
{
  gint64 us[FRAMES], cpu[FRAMES];
  PfprofRenderStats stats = { 0 };
  gint64 span = view->t1 - view->t0;

  for (int f = 0; f < FRAMES; f++)
    {
      gint64 t = g_get_monotonic_time (), c = thread_cpu_us ();
      gint64 d = span / (gint64) view->width * ((f & 1) ? 1 : -1);

      view->t0 += d;
      view->t1 += d;
      pfprof_renderer_draw (cr, tl, view, &stats);
      cairo_surface_flush (cairo_get_target (cr));
      us[f] = g_get_monotonic_time () - t;
      cpu[f] = thread_cpu_us () - c;
    }
  qsort (us, FRAMES, sizeof us[0], compare_i64);
  qsort (cpu, FRAMES, sizeof cpu[0], compare_i64);
  printf ("%-22s wall median %6.2f ms p90 %6.2f max %6.2f | cpu median %6.2f ms max %6.2f  (%" G_GUINT64_FORMAT
          " boxes, %" G_GUINT64_FORMAT " columns, %u rows)\n",
          name, us[FRAMES / 2] / 1000.0, us[FRAMES * 9 / 10] / 1000.0, us[FRAMES - 1] / 1000.0,
          cpu[FRAMES / 2] / 1000.0, cpu[FRAMES - 1] / 1000.0, stats.n_boxes, stats.n_columns, stats.n_rows_drawn);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) traces = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_trace_free);
  PfprofAnalysis *analysis;
  g_autoptr (PfprofRun) run = NULL;
  PfprofTimeline *tl;
  PfprofRenderView view;
  PfprofTrace *trace;
  cairo_surface_t *surface;
  cairo_t *cr;
  int w = argc > 3 ? atoi (argv[2]) : 1920, h = argc > 3 ? atoi (argv[3]) : 1080;
  gint64 t, mid;

  if (argc < 2 || w < 100 || h < 100)
    {
      fprintf (stderr, "usage: pfprof-bench-render TRACE [WIDTH HEIGHT]\n");
      return 2;
    }
  t = g_get_monotonic_time ();
  trace = pfprof_importer_load (argv[1], NULL, NULL, &error);
  if (trace == NULL)
    {
      fprintf (stderr, "pfprof-bench-render: %s\n", error->message);
      return 2;
    }
  printf ("trace                  %s: %" G_GUINT64_FORMAT " events\n", argv[1], pfprof_trace_n_events (trace));
  printf ("load                   %7.1f ms\n", (g_get_monotonic_time () - t) / 1000.0);
  g_ptr_array_add (traces, trace);
  t = g_get_monotonic_time ();
  run = pfprof_run_new (g_steal_pointer (&traces));
  analysis = pfprof_analysis_run (run, NULL);
  printf ("analysis               %7.1f ms\n", (g_get_monotonic_time () - t) / 1000.0);
  t = g_get_monotonic_time ();
  tl = pfprof_timeline_new (analysis, NULL, NULL);
  printf ("layout (rows, LOD)     %7.1f ms, %u rows\n", (g_get_monotonic_time () - t) / 1000.0, tl->rows->len);

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
  cr = cairo_create (surface);
  pfprof_render_view_init (&view, tl, w, h);
  t = g_get_monotonic_time ();
  pfprof_renderer_draw (cr, tl, &view, NULL);
  printf ("first draw             %7.2f ms\n", (g_get_monotonic_time () - t) / 1000.0);
  bench_view ("frame, full view", tl, &view, cr);
  mid = tl->start_ns + (tl->end_ns - tl->start_ns) / 2;
  view.t0 = mid - 500000;
  view.t1 = mid + 500000;
  bench_view ("frame, 1 ms window", tl, &view, cr);
  view.t0 = mid - 5000;
  view.t1 = mid + 5000;
  bench_view ("frame, 10 us window", tl, &view, cr);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  pfprof_timeline_free (tl);
  pfprof_analysis_free (analysis);
  return 0;
}
