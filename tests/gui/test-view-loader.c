/* SPDX-License-Identifier: MIT */
/* test-view-loader.c: the app's loader shows a trace before its analysis
 * is done. On a trace recorded on the H200 (sample f, two findings), the
 * timeline-ready callback comes first, on the caller's main context, with
 * a timeline that draws (no steps, no findings yet) while the analysis
 * runs (begun with the layout, not after it); the result then carries
 * that same timeline, which load_finish() gives the analysis (steps,
 * findings). A format-2 trace's sketch comes
 * before both. A file that cannot be read gives the error and no early
 * timeline. */
#include <cairo.h>
#include <math.h>

#include "pfprof-renderer.h"
#include "pfprof-trace-reader.h"
#include "pfprof-view-loader.h"

typedef struct
{
  GMainLoop *loop;
  GThread *main_thread;
  PfprofTimeline *early;
  guint n_ready;
  const PfprofAnalysis *early_analysis;
  const PfprofRun *early_run;
  gboolean ready_on_main;
  gboolean drew;
  PfprofViewLoaded *loaded;
  GError *error;
  gboolean ready_before_result;
  PfprofTraceSketch *sketch;
  gboolean sketch_on_main;
  guint n_ready_at_sketch;
} Run;

static void
on_sketch (PfprofTraceSketch *sketch, gpointer data)
{
  Run *r = data;

  r->sketch = sketch;
  r->sketch_on_main = g_thread_self () == r->main_thread;
  r->n_ready_at_sketch = r->n_ready;
}

static void
on_ready (PfprofTimeline *timeline, gpointer data)
{
  Run *r = data;
  cairo_surface_t *img = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 800, 400);
  cairo_t *cr = cairo_create (img);
  PfprofRenderView view;

  r->n_ready++;
  r->early = timeline;
  r->ready_on_main = g_thread_self () == r->main_thread;
  r->early_analysis = timeline->analysis;
  r->early_run = timeline->run;
  /* Drawn as the window would: with nothing analysed yet. */
  pfprof_render_view_init (&view, timeline, 800, 400);
  pfprof_renderer_draw (cr, timeline, &view, NULL);
  r->drew = cairo_status (cr) == CAIRO_STATUS_SUCCESS;
  cairo_destroy (cr);
  cairo_surface_destroy (img);
}

static void
on_done (GObject *source, GAsyncResult *result, gpointer data)
{
  Run *r = data;

  r->ready_before_result = r->n_ready == 1;
  r->loaded = pfprof_view_loader_load_finish (result, &r->error);
  g_main_loop_quit (r->loop);
}

static void
load (Run *r, const char *path)
{
  const char *paths[] = { path, NULL };

  r->loop = g_main_loop_new (NULL, FALSE);
  r->main_thread = g_thread_self ();
  pfprof_view_loader_load_async_full (paths, NULL, NULL, on_sketch, on_ready, r, on_done, r);
  g_main_loop_run (r->loop);
  g_main_loop_unref (r->loop);
}

static void
test_early_timeline (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("PFPROF_SAMPLES"), "f_item.pfprof", NULL);
  Run r = { 0 };

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no recorded sample f_item.pfprof");
      return;
    }
  load (&r, path);
  g_assert_no_error (r.error);
  g_assert_nonnull (r.loaded);
  /* First the timeline alone... */
  g_assert_true (r.ready_before_result);
  g_assert_true (r.ready_on_main);
  g_assert_true (r.drew);
  g_assert_null (r.early_analysis);
  g_assert_cmpuint (r.early->rows->len, >, 4);
  /* ...then the same timeline, of the same run, with the analysis of it. */
  g_assert_true (r.loaded->timeline == r.early);
  g_assert_true (r.early_run == r.loaded->run);
  g_assert_true (r.loaded->analysis->run == r.loaded->run);
  g_assert_true (r.loaded->timeline->analysis == r.loaded->analysis);
  g_assert_cmpuint (r.loaded->analysis->findings->len, >=, 2);
  g_assert_cmpuint (r.loaded->analysis->steps->len, >, 50);
  /* The analysis did not wait for the layout: it began with it. */
  g_assert_cmpint (r.loaded->analysis_began_us, >, 0);
  g_assert_cmpint (r.loaded->analysis_began_us, <, r.loaded->layout_ended_us);
  pfprof_view_loaded_free (r.loaded);
}

/* A format-2 trace: its sketch comes first, on the main context, and
 * counts every event of the kinds it shows, over their whole span. */
static void
test_sketch (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("PFPROF_SAMPLES"), "f_item_sites.pfprof", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (PfprofTrace) trace = NULL;
  Run r = { 0 };
  gboolean kernels = FALSE;

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no recorded sample f_item_sites.pfprof");
      return;
    }
  load (&r, path);
  g_assert_no_error (r.error);
  g_assert_nonnull (r.sketch);
  g_assert_true (r.sketch_on_main);
  g_assert_cmpuint (r.n_ready_at_sketch, ==, 0);
  g_assert_cmpuint (r.n_ready, ==, 1);
  trace = pfprof_trace_reader_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < r.sketch->rows->len; i++)
    {
      const PfprofTraceSketchRow *row = &g_array_index (r.sketch->rows, PfprofTraceSketchRow, i);
      gint64 lo = G_MAXINT64, hi = G_MININT64;
      double sum = 0;
      g_autofree double *bins = g_new (double, 100);

      g_assert_cmpuint (row->n, ==, pfprof_trace_n (trace, row->table));
      kernels |= row->table == PFPROF_TABLE_KERNELS;
      if (row->table == PFPROF_TABLE_KERNELS)
        for (guint k = 0; k < row->n; k++)
          {
            lo = MIN (lo, pfprof_trace_kernels (trace)[k].start_ns);
            hi = MAX (hi, pfprof_trace_kernels (trace)[k].end_ns);
          }
      if (row->table == PFPROF_TABLE_KERNELS)
        {
          g_assert_cmpint (r.sketch->start_ns, <=, lo);
          g_assert_cmpint (r.sketch->end_ns, >=, hi);
        }
      /* The bins hold every record of the row, none twice. */
      pfprof_trace_sketch_density (r.sketch, i, r.sketch->start_ns, r.sketch->end_ns + 1, bins, 100);
      for (guint b = 0; b < 100; b++)
        sum += bins[b];
      g_assert_cmpfloat (fabs (sum - (double) row->n), <, 0.5);
    }
  g_assert_true (kernels);
  pfprof_trace_sketch_free (r.sketch);
  pfprof_view_loaded_free (r.loaded);
}

static void
test_unreadable (void)
{
  Run r = { 0 };

  load (&r, "/nonexistent/x.pfprof");
  g_assert_null (r.loaded);
  g_assert_nonnull (r.error);
  g_assert_cmpuint (r.n_ready, ==, 0);
  g_assert_null (r.sketch);
  g_error_free (r.error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/view-loader/early-timeline", test_early_timeline);
  g_test_add_func ("/view-loader/sketch", test_sketch);
  g_test_add_func ("/view-loader/unreadable", test_unreadable);
  return g_test_run ();
}
