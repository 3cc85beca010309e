/* SPDX-License-Identifier: MIT */
/* test-render.c: the timeline model and the cairo renderer, checked on
 * images of the planted trace (render-test-util.h) for what a user must
 * see: rows, copies in their colour at their time, findings marked. */
#include <cairo.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "pfprof-format.h"
#include "pfprof-render-text.h"
#include "pfprof-renderer.h"
#include "pfprof-timeline.h"
#include "pfprof-framing.h"
#include "pfprof-importer.h"
#include "pfprof-trace-generator.h"
#include "render-test-util.h"

#define W 1200
#define H 520

typedef struct
{
  PfprofAnalysis *analysis;
  PfprofTimeline *tl;
} Fixture;

static void
fixture_set_up (Fixture *fx, gconstpointer data)
{
  fx->analysis = rt_analysis_new (rt_trace_new (data != NULL, NULL));
  fx->tl = pfprof_timeline_new (fx->analysis, NULL, NULL);
}

static void
fixture_tear_down (Fixture *fx, gconstpointer data)
{
  pfprof_timeline_free (fx->tl);
  rt_analysis_free (fx->analysis);
}

static int
find_row (PfprofTimeline *tl, PfprofRowType type, guint32 stream, guint32 tid)
{
  for (guint i = 0; i < tl->rows->len; i++)
    {
      const PfprofTimelineRow *r = pfprof_timeline_get_row (tl, i);

      if (r->type == type && r->sub_lane == 0 && (stream == PFPROF_NONE || r->stream_id == stream)
          && (tid == 0 || r->tid == tid))
        return (int) i;
    }
  return -1;
}

/* RGB of pixel (x, y) of an ARGB32 surface, 0..1. */
static void
pixel (cairo_surface_t *s, int x, int y, double rgb[3])
{
  const guint8 *data = cairo_image_surface_get_data (s);
  guint32 p = *(const guint32 *) (data + y * cairo_image_surface_get_stride (s) + x * 4);

  rgb[0] = ((p >> 16) & 0xff) / 255.0;
  rgb[1] = ((p >> 8) & 0xff) / 255.0;
  rgb[2] = (p & 0xff) / 255.0;
}

static gboolean
near (const double a[3], const double b[3], double tol)
{
  return fabs (a[0] - b[0]) < tol && fabs (a[1] - b[1]) < tol && fabs (a[2] - b[2]) < tol;
}

/* Fraction of the pixels in [x0, x1) x [y0, y1) that have colour @rgb. */
static double
fraction_of (cairo_surface_t *s, int x0, int x1, int y0, int y1, const double rgb[3])
{
  int hit = 0, n = 0;

  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++)
      {
        double p[3];

        pixel (s, x, y, p);
        hit += near (p, rgb, 0.06);
        n++;
      }
  return n ? (double) hit / n : 0;
}

static cairo_surface_t *
draw (PfprofTimeline *tl, const PfprofRenderView *view, PfprofRenderStats *stats)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) view->width,
                                                   (int) view->height);
  cairo_t *cr = cairo_create (s);

  pfprof_renderer_draw (cr, tl, view, stats);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  if (g_getenv ("RENDER_TEST_SAVE"))
    {
      static int n_saved;
      g_autofree char *name = g_strdup_printf ("%s/render-%02d.png", g_getenv ("RENDER_TEST_SAVE"), n_saved++);

      cairo_surface_write_to_png (s, name);
    }
  return s;
}

static void
test_rows (Fixture *fx, gconstpointer data)
{
  GString *labels = g_string_new ("");
  int s7, s13, s21, sync, api, nvtx;

  for (guint i = 0; i < fx->tl->rows->len; i++)
    g_string_append_printf (labels, "%s|", pfprof_timeline_get_row (fx->tl, i)->label);
  g_test_message ("rows: %s", labels->str);
  /* Process group, GPU group with streams and sync lane, host threads. */
  g_assert_true (g_str_has_prefix (labels->str, "Process 4242 planted.pfprof|GPU 0 NVIDIA H200|"));
  s7 = find_row (fx->tl, PFPROF_ROW_STREAM, 7, 0);
  s13 = find_row (fx->tl, PFPROF_ROW_STREAM, 13, 0);
  s21 = find_row (fx->tl, PFPROF_ROW_STREAM, 21, 0);
  sync = find_row (fx->tl, PFPROF_ROW_DEVICE_SYNC, PFPROF_NONE, 0);
  api = find_row (fx->tl, PFPROF_ROW_THREAD_API, PFPROF_NONE, 100);
  nvtx = find_row (fx->tl, PFPROF_ROW_THREAD_NVTX, PFPROF_NONE, 100);
  g_assert_cmpint (s7, >, 1);
  g_assert_cmpint (s13, >, s7);
  g_assert_cmpint (sync, >, s13);
  g_assert_cmpint (api, >, sync);
  g_assert_cmpint (nvtx, >, api);
  if (data != NULL)
    g_assert_cmpint (s21, >, s13);
  else
    g_assert_cmpint (s21, ==, -1);
  g_assert_cmpstr (pfprof_timeline_get_row (fx->tl, (guint) s7)->label, ==, "Stream 7");
  g_assert_cmpstr (pfprof_timeline_get_row (fx->tl, (guint) api)->label, ==, "Thread 100 CUDA API: python");
  /* Stream 7 holds its copies and kernels: 7 per step. */
  g_assert_cmpuint (pfprof_timeline_get_row (fx->tl, (guint) s7)->n_refs, ==, 7 * RT_STEPS);
  g_assert_cmpuint (fx->tl->n_gpu_events, >, 0);
  g_string_free (labels, TRUE);
}

static void
test_copies_coloured (Fixture *fx, gconstpointer data)
{
  PfprofRenderView view;
  cairo_surface_t *s;
  int s7 = find_row (fx->tl, PFPROF_ROW_STREAM, 7, 0);
  int s13 = find_row (fx->tl, PFPROF_ROW_STREAM, 13, 0);
  double y7, y13, h, rgb[3];
  gint64 step2 = RT_ORIGIN + 20 * RT_MS;
  int x0, x1;

  pfprof_render_view_init (&view, fx->tl, W, H);
  s = draw (fx->tl, &view, NULL);
  y7 = pfprof_renderer_row_y (fx->tl, &view, (guint) s7);
  y13 = pfprof_renderer_row_y (fx->tl, &view, (guint) s13);
  h = pfprof_renderer_row_height (fx->tl, &view, (guint) s7);
  g_assert_cmpfloat (y7, >, view.ruler_height);

  /* Pageable HtoD [s, s+3ms] on stream 7: orange, striped. */
  x0 = (int) ceil (pfprof_renderer_x_of (&view, step2)) + 2;
  x1 = (int) floor (pfprof_renderer_x_of (&view, step2 + 3 * RT_MS)) - 2;
  pfprof_renderer_item_color (PFPROF_ITEM_HTOD_PAGEABLE, FALSE, rgb);
  g_assert_cmpfloat (fraction_of (s, x0, x1, (int) y7 + 8, (int) (y7 + h) - 5, rgb), >, 0.5);
  /* ... and no orange right after it, where kernels run (blue). */
  g_assert_cmpfloat (fraction_of (s, x1 + 6, x1 + 30, (int) y7 + 8, (int) (y7 + h) - 5, rgb), <, 0.01);
  pfprof_renderer_item_color (PFPROF_ITEM_KERNEL, FALSE, rgb);
  /* (1 ms kernels are 10 px boxes with a 1 px gap between them.) */
  g_assert_cmpfloat (fraction_of (s, x1 + 6, x1 + 30, (int) y7 + 8, (int) (y7 + h) - 5, rgb), >, 0.8);
  /* The pinned HtoD copy of stream 13 [s+1ms, s+2ms]: green, no stripes. */
  x0 = (int) ceil (pfprof_renderer_x_of (&view, step2 + RT_MS)) + 1;
  x1 = (int) floor (pfprof_renderer_x_of (&view, step2 + 2 * RT_MS)) - 1;
  pfprof_renderer_item_color (PFPROF_ITEM_HTOD_PINNED, FALSE, rgb);
  g_assert_cmpfloat (fraction_of (s, x0, x1, (int) y13 + 3, (int) (y13 + h) - 3, rgb), >, 0.95);
  /* Nothing green before it on that row. */
  g_assert_cmpfloat (fraction_of (s, x0 - 8, x0 - 2, (int) y13 + 3, (int) (y13 + h) - 3, rgb), <, 0.01);
  /* DtoH pinned [s+8ms, s+8.5ms] on stream 7: purple. */
  x0 = (int) ceil (pfprof_renderer_x_of (&view, step2 + 8 * RT_MS)) + 1;
  x1 = (int) floor (pfprof_renderer_x_of (&view, step2 + 8 * RT_MS + RT_MS / 2)) - 1;
  pfprof_renderer_item_color (PFPROF_ITEM_DTOH_PINNED, FALSE, rgb);
  g_assert_cmpfloat (fraction_of (s, x0, x1, (int) y7 + 3, (int) (y7 + h) - 5, rgb), >, 0.9);
  cairo_surface_destroy (s);
}

static void
test_findings_marked (Fixture *fx, gconstpointer data)
{
  PfprofRenderView view;
  cairo_surface_t *s;
  int s7 = find_row (fx->tl, PFPROF_ROW_STREAM, 7, 0);
  int s13 = find_row (fx->tl, PFPROF_ROW_STREAM, 13, 0);
  double y7, y13, h, sev[3], p[3];
  gint64 step4 = RT_ORIGIN + 40 * RT_MS;
  int x;
  const int *rows = pfprof_timeline_finding_rows (fx->tl, 0);

  g_assert_nonnull (rows);
  g_assert_cmpint (rows[0], ==, s7);
  pfprof_render_view_init (&view, fx->tl, W, H);
  s = draw (fx->tl, &view, NULL);
  y7 = pfprof_renderer_row_y (fx->tl, &view, (guint) s7);
  y13 = pfprof_renderer_row_y (fx->tl, &view, (guint) s13);
  h = pfprof_renderer_row_height (fx->tl, &view, (guint) s7);
  pfprof_renderer_severity_color (PFPROF_SEVERITY_WARNING, sev);
  /* The underline at the bottom of stream 7 over the pageable copy. */
  x = (int) pfprof_renderer_x_of (&view, step4 + RT_MS);
  pixel (s, x, (int) (y7 + h) - 2, p);
  g_assert_true (near (p, sev, 0.08));
  /* The flag at the copy's start. */
  x = (int) ceil (pfprof_renderer_x_of (&view, step4)) + 1;
  pixel (s, x, (int) y7 + 1, p);
  g_assert_true (near (p, sev, 0.08));
  /* Not on the row without evidence, nor where no copy is. */
  pixel (s, (int) pfprof_renderer_x_of (&view, step4 + RT_MS), (int) (y13 + h) - 2, p);
  g_assert_false (near (p, sev, 0.08));
  pixel (s, (int) pfprof_renderer_x_of (&view, step4 + 5 * RT_MS), (int) (y7 + h) - 2, p);
  g_assert_false (near (p, sev, 0.08));
  cairo_surface_destroy (s);

  /* Selecting the finding outlines its evidence on the row. */
  view.selected_finding = 0;
  view.selected_evidence = 4;
  s = draw (fx->tl, &view, NULL);
  x = (int) pfprof_renderer_x_of (&view, step4 + RT_MS);
  pixel (s, x, (int) y7 + 1, p);
  g_assert_true (near (p, sev, 0.08));
  cairo_surface_destroy (s);
}

static void
test_level_of_detail (Fixture *fx, gconstpointer data)
{
  PfprofRenderView view;
  PfprofRenderStats full, deep;
  cairo_surface_t *s;
  int s21 = find_row (fx->tl, PFPROF_ROW_STREAM, 21, 0);
  const PfprofTimelineRow *row = pfprof_timeline_get_row (fx->tl, (guint) s21);
  double y, h, blue[3];
  int painted = 0;

  g_assert_cmpuint (row->n_refs, ==, (guint) (RT_STEPS * 10 * RT_MS / RT_DENSE_PERIOD));
  pfprof_render_view_init (&view, fx->tl, W, H);
  s = draw (fx->tl, &view, &full);
  /* 200k kernels of 300 ns on ~1000 columns of 100 us: folded into
   * columns, not drawn one by one. */
  g_test_message ("full: %" G_GUINT64_FORMAT " boxes, %" G_GUINT64_FORMAT " columns, %" G_GUINT64_FORMAT " folded",
                  full.n_boxes, full.n_columns, full.n_events_covered);
  g_assert_cmpuint (full.n_columns, <, 20 * (guint64) W);
  g_assert_cmpuint (full.n_boxes, <, 1000);
  /* A lane this big has a coverage summary, and at full view the frame
   * reads it instead of the events. */
  g_assert_nonnull (row->lod);
  /* Every column of the dense row shows activity, in the kernel hue at
   * the 60 % busy shade. */
  y = pfprof_renderer_row_y (fx->tl, &view, (guint) s21);
  h = pfprof_renderer_row_height (fx->tl, &view, (guint) s21);
  pfprof_renderer_item_color (PFPROF_ITEM_KERNEL, FALSE, blue);
  for (int x = (int) view.label_width + 2; x < W - 2; x++)
    {
      double p[3];

      pixel (s, x, (int) (y + h / 2), p);
      /* Blue over white: blue channel stays high, red drops. */
      painted += p[2] > 0.9 && p[0] < 0.8 && p[0] > blue[0] - 0.02;
    }
  g_assert_cmpint (painted, >, (W - (int) view.label_width - 4) * 95 / 100);
  /* The summary and the events give the same picture: draw again
   * without the summary (the event path: searches and prefix sums). */
  {
    PfprofTimelineLod *lod = row->lod;
    PfprofRenderStats ev_stats;
    cairo_surface_t *s2;
    int differ = 0;

    ((PfprofTimelineRow *) row)->lod = NULL;
    s2 = draw (fx->tl, &view, &ev_stats);
    ((PfprofTimelineRow *) row)->lod = lod;
    g_assert_cmpuint (ev_stats.n_events_covered, >=, row->n_refs - 10);
    for (int x = (int) view.label_width + 2; x < W - 2; x++)
      {
        double p[3], q[3];

        pixel (s, x, (int) (y + h / 2), p);
        pixel (s2, x, (int) (y + h / 2), q);
        differ += !near (p, q, 0.1);
      }
    g_assert_cmpint (differ, <, 20);
    cairo_surface_destroy (s2);
  }
  cairo_surface_destroy (s);

  /* Deep zoom: 20 us over 1000 px; the 300 ns kernels are 15 px boxes
   * with gaps between them. */
  view.t0 = RT_ORIGIN + 50 * RT_MS + 100;
  view.t1 = view.t0 + 20000;
  s = draw (fx->tl, &view, &deep);
  g_assert_cmpuint (deep.n_columns, ==, 0);
  g_assert_cmpuint (deep.n_boxes, >=, 40);
  {
    double p[3];
    gint64 k = ((view.t0 - RT_ORIGIN) / RT_DENSE_PERIOD + 2) * RT_DENSE_PERIOD + RT_ORIGIN;
    int xin = (int) pfprof_renderer_x_of (&view, k + RT_DENSE_LEN / 2);
    int xgap = (int) pfprof_renderer_x_of (&view, k + RT_DENSE_LEN + 100);

    pixel (s, xin, (int) (y + h / 2), p);
    g_assert_true (near (p, blue, 0.03));
    pixel (s, xgap, (int) (y + h / 2), p);
    g_assert_false (near (p, blue, 0.2));
  }
  cairo_surface_destroy (s);
}

static void
test_search (Fixture *fx, gconstpointer data)
{
  int s21 = find_row (fx->tl, PFPROF_ROW_STREAM, 21, 0);
  const PfprofTimelineRow *row = pfprof_timeline_get_row (fx->tl, (guint) s21);
  GRand *rand = g_rand_new_with_seed (7);

  for (int k = 0; k < 2000; k++)
    {
      gint64 t = RT_ORIGIN - 1000 + g_rand_int_range (rand, 0, (gint32) (RT_STEPS * 10 * RT_MS + 2000));
      guint from = (guint) g_rand_int_range (rand, 0, (gint32) row->n_refs);
      guint lb = pfprof_timeline_row_lower_bound (row, from, t);
      guint fa = pfprof_timeline_row_first_after (row, t);
      gint64 s, e;

      /* Brute-force definitions. */
      if (lb < row->n_refs)
        {
          pfprof_timeline_event_range (row->trace, row->refs[lb], &s, NULL);
          g_assert_cmpint (s, >=, t);
        }
      if (lb > from)
        {
          pfprof_timeline_event_range (row->trace, row->refs[lb - 1], &s, NULL);
          g_assert_cmpint (s, <, t);
        }
      if (fa < row->n_refs)
        {
          pfprof_timeline_event_range (row->trace, row->refs[fa], NULL, &e);
          g_assert_cmpint (e, >, t);
        }
      if (fa > 0)
        {
          pfprof_timeline_event_range (row->trace, row->refs[fa - 1], NULL, &e);
          g_assert_cmpint (e, <=, t);
        }
    }
  /* Hits: inside a kernel, in a gap (with and without slop). */
  {
    gint64 k0 = RT_ORIGIN + 1000 * RT_DENSE_PERIOD;
    PfprofEventRef hit = pfprof_timeline_row_hit (row, k0 + 50, 0);
    gint64 s;

    g_assert_cmpuint (hit, !=, PFPROF_EVENT_REF_NONE);
    pfprof_timeline_event_range (row->trace, hit, &s, NULL);
    g_assert_cmpint (s, ==, k0);
    g_assert_cmpuint (pfprof_timeline_row_hit (row, k0 + 350, 10), ==, PFPROF_EVENT_REF_NONE);
    g_assert_cmpuint (pfprof_timeline_row_hit (row, k0 + 350, 200), !=, PFPROF_EVENT_REF_NONE);
    g_assert_cmpint (pfprof_timeline_find_row (fx->tl, 0, hit), ==, s21);
  }
  g_rand_free (rand);
}

static void
test_launch_link (Fixture *fx, gconstpointer data)
{
  int s7 = find_row (fx->tl, PFPROF_ROW_STREAM, 7, 0);
  int api = find_row (fx->tl, PFPROF_ROW_THREAD_API, PFPROF_NONE, 100);
  const PfprofTimelineRow *row = pfprof_timeline_get_row (fx->tl, (guint) s7);
  const PfprofTrace *t = row->trace;
  PfprofEventRef copy_ref = row->refs[7 * 3]; /* step 3's pageable copy */
  gint64 call;
  int call_row;

  g_assert_cmpint (PFPROF_EVENT_REF_TABLE (copy_ref), ==, PFPROF_TABLE_MEMCPYS);
  call = pfprof_timeline_launching_call (fx->tl, 0, copy_ref);
  g_assert_cmpint (call, >=, 0);
  g_assert_cmpstr (pfprof_trace_string (t, pfprof_trace_api_calls (t)[call].name_id), ==, "cudaMemcpyAsync");
  g_assert_cmpuint (pfprof_trace_api_calls (t)[call].correlation_id, ==,
                    pfprof_trace_memcpys (t)[PFPROF_EVENT_REF_INDEX (copy_ref)].correlation_id);
  call_row = pfprof_timeline_find_row (fx->tl, 0, PFPROF_EVENT_REF (PFPROF_TABLE_API_CALLS, call));
  g_assert_cmpint (call_row, ==, api);
  /* Host events have no launching call. */
  g_assert_cmpint (pfprof_timeline_launching_call (fx->tl, 0, PFPROF_EVENT_REF (PFPROF_TABLE_NVTX, 0)), ==, -1);
}

static void
test_collapse (Fixture *fx, gconstpointer data)
{
  PfprofRenderView view;
  int s7 = find_row (fx->tl, PFPROF_ROW_STREAM, 7, 0);
  int api = find_row (fx->tl, PFPROF_ROW_THREAD_API, PFPROF_NONE, 100);
  double before, after;
  guint gpu = (guint) pfprof_timeline_get_row (fx->tl, (guint) s7)->parent;

  pfprof_render_view_init (&view, fx->tl, W, H);
  before = pfprof_renderer_row_y (fx->tl, &view, (guint) api);
  pfprof_timeline_set_expanded (fx->tl, gpu, FALSE);
  g_assert_false (pfprof_renderer_row_shown (fx->tl, &view, (guint) s7));
  g_assert_cmpfloat (pfprof_renderer_row_y (fx->tl, &view, (guint) s7), <, 0);
  after = pfprof_renderer_row_y (fx->tl, &view, (guint) api);
  g_assert_cmpfloat (after, <, before);
  g_assert_cmpint (pfprof_renderer_row_at (fx->tl, &view, after + 5), ==, api);
  pfprof_timeline_set_expanded (fx->tl, gpu, TRUE);
  g_assert_cmpfloat (pfprof_renderer_row_y (fx->tl, &view, (guint) api), ==, before);
}

/* Kernel names come from the profiled program: invalid UTF-8, control
 * and bidi characters and huge names must be drawn literally without
 * breaking the drawing. */
static void
test_hostile_text (void)
{
  static const char *names[] = {
    "bad\xff\xfe utf8", "new\nline\tand\x1b[31m escape", "\u202eevil bidi", "<svg onload=alert(1)>&amp;",
  };

  for (guint n = 0; n < G_N_ELEMENTS (names); n++)
    {
      PfprofAnalysis *a = rt_analysis_new (rt_trace_new (FALSE, names[n]));
      PfprofTimeline *tl = pfprof_timeline_new (a, NULL, NULL);
      PfprofRenderView view;
      cairo_surface_t *s;
      g_autofree char *clean = pfprof_render_sanitize (names[n], 100);

      g_assert_true (g_utf8_validate (clean, -1, NULL));
      g_assert_null (strchr (clean, '\n'));
      g_assert_null (strchr (clean, '\x1b'));
      g_assert_null (strstr (clean, "\u202e"));
      pfprof_render_view_init (&view, tl, W, H);
      /* Zoom so the kernels are wide enough to carry their names. */
      view.t0 = RT_ORIGIN + 3 * RT_MS;
      view.t1 = RT_ORIGIN + 5 * RT_MS;
      s = draw (tl, &view, NULL);
      g_assert_cmpint (cairo_surface_status (s), ==, CAIRO_STATUS_SUCCESS);
      cairo_surface_destroy (s);
      pfprof_timeline_free (tl);
      rt_analysis_free (a);
    }
  {
    g_autofree char *cut = pfprof_render_sanitize ("abcdefghij", 4);

    g_assert_cmpstr (cut, ==, "abcd\u2026");
  }
}

/* Dark colours for a dark desktop: dark background, the same hues. */
static void
test_dark (Fixture *fx, gconstpointer data)
{
  PfprofRenderView view;
  cairo_surface_t *s;
  int s13 = find_row (fx->tl, PFPROF_ROW_STREAM, 13, 0);
  double p[3], green[3], y, h;
  gint64 step2 = RT_ORIGIN + 20 * RT_MS;

  pfprof_render_view_init (&view, fx->tl, W, H);
  view.dark = TRUE;
  s = draw (fx->tl, &view, NULL);
  pixel (s, W - 5, H - 5, p);
  g_assert_cmpfloat (p[0] + p[1] + p[2], <, 0.6);
  y = pfprof_renderer_row_y (fx->tl, &view, (guint) s13);
  h = pfprof_renderer_row_height (fx->tl, &view, (guint) s13);
  pfprof_renderer_item_color (PFPROF_ITEM_HTOD_PINNED, TRUE, green);
  pixel (s, (int) pfprof_renderer_x_of (&view, step2 + 3 * RT_MS / 2), (int) (y + h / 2), p);
  g_assert_true (near (p, green, 0.05));
  cairo_surface_destroy (s);
}

static void
test_empty_trace (void)
{
  PfprofTrace *t = pfprof_trace_new ();
  PfprofAnalysis *a = rt_analysis_new (t);
  PfprofTimeline *tl = pfprof_timeline_new (a, NULL, NULL);
  PfprofRenderView view;
  cairo_surface_t *s;

  g_assert_cmpuint (tl->n_gpu_events, ==, 0);
  g_assert_cmpint (tl->end_ns, >, tl->start_ns);
  pfprof_render_view_init (&view, tl, 400, 200);
  s = draw (tl, &view, NULL);
  cairo_surface_destroy (s);
  pfprof_timeline_free (tl);
  rt_analysis_free (a);
}

static void
test_units (void)
{
  struct
  {
    gint64 ns;
    const char *text;
  } d[] = {
    { 12, "12 ns" }, { 1500, "1.50 \u00b5s" }, { 830000, "830.0 \u00b5s" }, { 1250000, "1.25 ms" },
    { 42500000, "42.5 ms" }, { 3500000000, "3.50 s" }, { 123456789012, "123.46 s" },
  };

  /* Labels and the GUI show durations and sizes as the reports print
   * them: base/'s formatter. */

  for (guint i = 0; i < G_N_ELEMENTS (d); i++)
    {
      g_autofree char *s = pfprof_format_ns (d[i].ns);

      g_assert_cmpstr (s, ==, d[i].text);
    }
  g_assert_cmpint (pfprof_render_nice_step (7), ==, 10);
  g_assert_cmpint (pfprof_render_nice_step (130), ==, 200);
  g_assert_cmpint (pfprof_render_nice_step (4000001), ==, 5000000);
  {
    g_autofree char *a = pfprof_render_format_tick (20000000, 5000000, 45000000);
    g_autofree char *b = pfprof_render_format_tick (1500, 500, 3000);
    g_autofree char *c = pfprof_format_bytes (64u << 20);

    g_autofree char *tick = pfprof_render_format_tick (3200000, 200000, 4000000);

    g_assert_cmpstr (a, ==, "20 ms");
    g_autofree char *deep = pfprof_render_format_tick (6760550000, 50000, 6760800000);

    g_assert_cmpstr (tick, ==, "3.2 ms");
    g_assert_cmpstr (deep, ==, "6.76055 s");
    g_assert_cmpstr (b, ==, "1.5 \u00b5s");
    g_assert_cmpstr (c, ==, "64.0 MiB");
  }
}

/* A trace recorded on the H200 (samples/traces/a_pageable.pfprof): the
 * real reader and analysis, then the picture: its stream and thread rows,
 * a pageable copy in the pageable colour over exactly its time range, and
 * the analyzer's pageable-transfer finding marked on that copy's row. */
/* The analysis of samples/traces/@name, its trace in *@trace; NULL (the
 * test skipped) when the sample is not there. */
static PfprofAnalysis *
analyse_sample (const char *name, PfprofTrace **trace)
{
  const char *dir = g_getenv ("PFPROF_SAMPLES");
  g_autofree char *path = dir ? g_build_filename (dir, name, NULL) : NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) traces = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_trace_free);
  g_autoptr (PfprofRun) run = NULL;

  if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("a trace of samples/traces/ is not there");
      return NULL;
    }
  *trace = pfprof_importer_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_ptr_array_add (traces, *trace);
  run = pfprof_run_new (g_steal_pointer (&traces));
  return pfprof_analysis_run (run, NULL);
}

static void
test_recorded_sample (void)
{
  PfprofAnalysis *a;
  PfprofTimeline *tl;
  PfprofTrace *t;
  PfprofRenderView view;
  cairo_surface_t *s;
  const PfprofFinding *f = NULL;
  const PfprofEvidence *ev;
  const PfprofMemcpyRecord *m;
  double orange[3], sev[3], p[3], y, h;
  int row, x0, x1;

  if ((a = analyse_sample ("a_pageable.pfprof", &t)) == NULL)
    return;
  tl = pfprof_timeline_new (a, NULL, NULL);
  g_assert_cmpuint (tl->n_gpu_events, >, 1000);
  g_assert_cmpint (find_row (tl, PFPROF_ROW_STREAM, 7, 0), >=, 0);
  g_assert_cmpint (find_row (tl, PFPROF_ROW_THREAD_API, PFPROF_NONE, 0), >=, 0);
  g_assert_cmpint (find_row (tl, PFPROF_ROW_THREAD_NVTX, PFPROF_NONE, 0), >=, 0);
  for (guint i = 0; i < a->findings->len && f == NULL; i++)
    if (g_str_equal (((PfprofFinding *) g_ptr_array_index (a->findings, i))->rule, "pageable-transfer"))
      f = g_ptr_array_index (a->findings, i);
  g_assert_nonnull (f);
  g_assert_cmpuint (f->evidence->len, >, 0);
  ev = &g_array_index (f->evidence, PfprofEvidence, 0);
  g_assert_cmpint (ev->table, ==, PFPROF_TABLE_MEMCPYS);
  m = &pfprof_trace_memcpys (t)[ev->index];
  g_assert_cmpint (m->src_kind, ==, PFPROF_MEMORY_KIND_PAGEABLE);
  row = pfprof_timeline_find_row (tl, 0, PFPROF_EVENT_REF (PFPROF_TABLE_MEMCPYS, ev->index));
  g_assert_cmpint (row, >=, 0);
  g_assert_cmpint (pfprof_timeline_evidence_row (tl, ev), ==, row);

  /* The copy in the middle third of the picture. */
  pfprof_render_view_init (&view, tl, W, 700);
  view.t0 = m->start_ns - (m->end_ns - m->start_ns);
  view.t1 = m->end_ns + (m->end_ns - m->start_ns);
  s = draw (tl, &view, NULL);
  y = pfprof_renderer_row_y (tl, &view, (guint) row);
  h = pfprof_renderer_row_height (tl, &view, (guint) row);
  g_assert_cmpfloat (y, >, 0);
  x0 = (int) ceil (pfprof_renderer_x_of (&view, m->start_ns));
  x1 = (int) floor (pfprof_renderer_x_of (&view, m->end_ns));
  pfprof_renderer_item_color (PFPROF_ITEM_HTOD_PAGEABLE, FALSE, orange);
  /* Orange, or the lighter stripes that mark pageable copies (any blend
   * of the two along the anti-aliased stripe edges). */
  {
    int hits = 0, n = 0;

    for (int yy = (int) y + 8; yy < (int) (y + h) - 5; yy++)
      for (int xx = x0 + 3; xx < x1 - 3; xx++)
        {
          pixel (s, xx, yy, p);
          hits += p[0] > 0.9 && p[1] > 0.4 && p[1] < 0.85 && p[2] < 0.65;
          n++;
        }
    g_assert_cmpint (n, >, 100);
    /* (The rest is the copy's label, drawn in white.) */
    g_assert_cmpfloat ((double) hits / n, >, 0.8);
  }
  /* Not before it on that row. */
  g_assert_cmpfloat (fraction_of (s, x0 - 40, x0 - 4, (int) y + 8, (int) (y + h) - 5, orange), <, 0.01);
  /* The finding's underline on the copy's row. */
  pfprof_renderer_severity_color (f->severity, sev);
  pixel (s, (x0 + x1) / 2, (int) (y + h) - 2, p);
  g_assert_true (near (p, sev, 0.08));
  cairo_surface_destroy (s);
  pfprof_timeline_free (tl);
  pfprof_analysis_free (a);
}

/* Luminance of pixel (x, y). */
static double
luma (cairo_surface_t *s, int x, int y)
{
  double p[3];

  pixel (s, x, y, p);
  return 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
}

/* A trace recorded with --sample (samples/traces/a_pageable_sampled.pfprof):
 * on its empty sync row, the pause between two windows is shaded, the
 * windows are not. */
static void
test_sampled_pauses (void)
{
  PfprofAnalysis *a;
  PfprofTimeline *tl;
  PfprofTrace *t;
  PfprofRenderView view;
  cairo_surface_t *s;
  const PfprofWindowRecord *w;
  const PfprofTimelineRow *r;
  double y, h, row_bg, pause;
  int row, xp, xw = -1, shaded = 0, n = 0;

  if ((a = analyse_sample ("a_pageable_sampled.pfprof", &t)) == NULL)
    return;
  g_assert_cmpuint (pfprof_trace_n (t, PFPROF_TABLE_WINDOWS), >=, 3);
  w = pfprof_trace_windows (t);
  tl = pfprof_timeline_new (a, NULL, NULL);
  row = find_row (tl, PFPROF_ROW_DEVICE_SYNC, PFPROF_NONE, 0);
  g_assert_cmpint (row, >=, 0);
  r = pfprof_timeline_get_row (tl, (guint) row);
  pfprof_render_view_init (&view, tl, W, 700);
  view.t0 = w[1].start_ns;
  view.t1 = w[2].end_ns;
  s = draw (tl, &view, NULL);
  y = pfprof_renderer_row_y (tl, &view, (guint) row);
  h = pfprof_renderer_row_height (tl, &view, (guint) row);
  row_bg = luma (s, 1, (int) (y + h / 2));
  /* The middle of the pause between windows 1 and 2. */
  xp = (int) pfprof_renderer_x_of (&view, (w[1].end_ns + w[2].start_ns) / 2);
  pause = luma (s, xp, (int) (y + h / 2));
  g_assert_cmpfloat (pause, <, row_bg - 0.05);
  for (int x = (int) pfprof_renderer_x_of (&view, w[2].end_ns) - 1; x > xp; x--)
    {
      gint64 tx = (gint64) pfprof_renderer_time_at (&view, x);

      if (tx <= w[2].start_ns || tx >= w[2].end_ns)
        continue;
      n++;
      shaded += luma (s, x, (int) (y + h / 2)) < row_bg - 0.05;
      if (xw < 0 && pfprof_timeline_row_hit (r, tx, (gint64) (3 * (view.t1 - view.t0) / W)) == PFPROF_EVENT_REF_NONE)
        xw = x;
    }
  /* Inside window 2, where the row has nothing: the row's own colour. */
  g_assert_cmpint (n, >, 100);
  g_assert_cmpint (xw, >=, 0);
  g_assert_cmpfloat (fabs (luma (s, xw, (int) (y + h / 2)) - row_bg), <, 0.01);
  g_assert_cmpint (shaded, <, n / 10);
  cairo_surface_destroy (s);
  pfprof_timeline_free (tl);
  pfprof_analysis_free (a);
}

/* `pfprof render` and pfprof-view open on the steady state: on a
 * recorded sample, from after the warm-up step to the last step, every
 * steady step inside, the start-up left out; a run without steps has no
 * steady view. */
/* Whether lane @row has an event in [@t0, @t1), every event looked at. */
static gboolean
lane_busy (const PfprofTimelineRow *row, gint64 t0, gint64 t1)
{
  for (guint k = 0; k < row->n_refs; k++)
    {
      gint64 a, b;

      pfprof_timeline_event_range (row->trace, row->refs[k], &a, &b);
      if (a < t1 && (b > t0 || (a == b && a >= t0)))
        return TRUE;
    }
  return FALSE;
}

/* A picture of the steady state leaves out the lanes with no event in
 * it (and groups left with none), and its legend says how many. */
static void
test_empty_rows_hidden (void)
{
  PfprofAnalysis *a;
  PfprofTimeline *tl;
  PfprofTrace *t;
  PfprofRenderView view;
  PfprofRenderStats all = { 0 }, shown = { 0 };
  g_autofree guint8 *mask = NULL;
  g_autofree char *note = NULL;
  g_autofree char *want = NULL;
  cairo_surface_t *s;
  cairo_t *cr;
  guint empty = 0, hidden;

  if ((a = analyse_sample ("a_pageable.pfprof", &t)) == NULL)
    return;
  tl = pfprof_timeline_new (a, NULL, NULL);
  pfprof_render_view_init (&view, tl, W, 2000);
  view.legend_height = 40;
  g_assert_true (pfprof_framing_steady (a, &view.t0, &view.t1));
  for (guint i = 0; i < tl->rows->len; i++)
    {
      const PfprofTimelineRow *row = pfprof_timeline_get_row (tl, i);

      if (!row->is_group && !lane_busy (row, view.t0, view.t1))
        empty++;
    }
  g_assert_cmpuint (empty, >, 0);
  g_assert_null (pfprof_renderer_legend_note (&view));

  s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, W, 2000);
  cr = cairo_create (s);
  pfprof_renderer_draw (cr, tl, &view, &all);
  mask = g_new0 (guint8, tl->rows->len);
  hidden = pfprof_renderer_hide_empty_rows (tl, &view, mask);
  g_assert_cmpuint (hidden, ==, empty);
  g_assert_true (view.row_mask == mask);
  for (guint i = 0; i < tl->rows->len; i++)
    {
      const PfprofTimelineRow *row = pfprof_timeline_get_row (tl, i);

      if (!row->is_group)
        g_assert_cmpint (pfprof_renderer_row_y (tl, &view, i) >= 0, ==, lane_busy (row, view.t0, view.t1));
    }
  pfprof_renderer_draw (cr, tl, &view, &shown);
  g_assert_cmpuint (shown.n_rows_drawn, <=, all.n_rows_drawn - empty);
  note = pfprof_renderer_legend_note (&view);
  want = g_strdup_printf ("%u empty rows hidden", empty);
  g_assert_cmpstr (note, ==, want);
  cairo_destroy (cr);
  cairo_surface_destroy (s);
  pfprof_timeline_free (tl);
  pfprof_analysis_free (a);
}

/* Host-thread lanes of a torch.profiler trace (its thread names repeat
 * the tid and the process) differ in the text drawn in the label column. */
static void
test_thread_labels_distinct (void)
{
  PfprofAnalysis *a;
  PfprofTimeline *tl;
  PfprofTrace *t;
  PfprofRenderView view;
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  cairo_surface_t *s;
  cairo_t *cr;
  guint lanes = 0;

  if ((a = analyse_sample ("kineto/a_pageable.stack.pt.trace.json.gz", &t)) == NULL)
    return;
  tl = pfprof_timeline_new (a, NULL, NULL);
  pfprof_render_view_init (&view, tl, 1600, 2000);
  s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 1600, 2000);
  cr = cairo_create (s);
  for (guint i = 0; i < tl->rows->len; i++)
    {
      const PfprofTimelineRow *row = pfprof_timeline_get_row (tl, i);
      char *text;

      if (row->type != PFPROF_ROW_THREAD_API && row->type != PFPROF_ROW_THREAD_NVTX)
        continue;
      lanes++;
      text = pfprof_renderer_row_label_text (cr, tl, &view, i);
      g_test_message ("row %u: %s -> %s", i, row->label, text);
      g_assert_nonnull (text);
      g_assert_false (g_hash_table_contains (seen, text));
      g_hash_table_add (seen, text);
    }
  g_assert_cmpuint (lanes, >=, 4);
  cairo_destroy (cr);
  cairo_surface_destroy (s);
  pfprof_timeline_free (tl);
  pfprof_analysis_free (a);
}

static void
test_steady_framing (void)
{
  PfprofAnalysis *a;
  PfprofTrace *t;
  gint64 t0 = 0, t1 = 0;

  if ((a = analyse_sample ("a_pageable.pfprof", &t)) == NULL)
    return;
  g_assert_true (pfprof_framing_steady (a, &t0, &t1));
  g_assert_cmpint (t0, >, t->start_ns);
  g_assert_cmpint (t1, <=, t->end_ns + (t1 - t0) / 50);
  /* The start-up is most of this run. */
  g_assert_cmpint (t1 - t0, <, (t->end_ns - t->start_ns) / 2);
  for (guint i = 0; i < a->steps->len; i++)
    {
      const PfprofStep *st = &g_array_index (a->steps, PfprofStep, i);

      if (st->warmup)
        g_assert_cmpint (st->start_ns, <, t0);
      else
        {
          g_assert_cmpint (st->start_ns, >=, t0);
          g_assert_cmpint (st->end_ns, <=, t1);
        }
    }
  pfprof_analysis_free (a);
  /* No steps, no steady state: the caller shows the whole run. */
  {
    PfprofAnalysis *none = rt_analysis_new (rt_trace_new (FALSE, NULL));

    t0 = t1 = 7;
    g_assert_false (pfprof_framing_steady (none, &t0, &t1));
    g_assert_cmpint (t0, ==, 7);
    g_assert_cmpint (t1, ==, 7);
    rt_analysis_free (none);
  }
}

/* Inside the DataLoader (worker_events of a generated trace): a group
 * with the batches the loop got, the pin thread's, and a lane per worker
 * with its batches; stages below them; labels name the batch. */
static void
test_dataloader_lanes (void)
{
  g_autofree char *dir = g_dir_make_tmp ("pfprof-render-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "dl.pfprof", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (PfprofRun) run = NULL;
  GPtrArray *traces = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_trace_free);
  PfprofTraceGenerator gen;
  PfprofAnalysis *a;
  PfprofTimeline *tl;
  PfprofTrace *t;
  const PfprofWorkerEventRecord *ev;
  char err[256];
  int group, got, pin, w0, w1;
  guint batches = 0, stages = 0;

  pfprof_trace_generator_init (&gen);
  gen.steps = 12;
  gen.plants = PFPROF_PLANT_INPUT_STARVED;
  g_assert_cmpint (pfprof_trace_generator_write (&gen, path, PFPROF_WRITER_OVERWRITE, NULL, err, sizeof err), ==,
                   PFPROF_WRITER_OK);
  t = pfprof_importer_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_ptr_array_add (traces, t);
  run = pfprof_run_new (traces);
  a = pfprof_analysis_run (run, NULL);
  tl = pfprof_timeline_new (a, NULL, NULL);
  ev = pfprof_trace_worker_events (t);

  group = find_row (tl, PFPROF_ROW_WORKERS, PFPROF_NONE, 0);
  got = find_row (tl, PFPROF_ROW_WORKER, PFPROF_TIMELINE_WORKER_GOT, 0);
  pin = find_row (tl, PFPROF_ROW_WORKER, PFPROF_TIMELINE_WORKER_PIN, 0);
  w0 = find_row (tl, PFPROF_ROW_WORKER, PFPROF_TIMELINE_WORKER_BATCHES, 4342);
  w1 = find_row (tl, PFPROF_ROW_WORKER, PFPROF_TIMELINE_WORKER_BATCHES, 4343);
  /* Below the host threads, in this order. */
  g_assert_cmpint (group, >, find_row (tl, PFPROF_ROW_THREAD_NVTX, PFPROF_NONE, 0));
  g_assert_cmpint (got, ==, group + 1);
  g_assert_cmpint (pin, ==, got + 1);
  g_assert_cmpint (w0, ==, pin + 1);
  g_assert_cmpint (w1, >, w0);
  g_assert_cmpstr (pfprof_timeline_get_row (tl, (guint) group)->label, ==, "DataLoader");
  g_assert_cmpstr (pfprof_timeline_get_row (tl, (guint) got)->label, ==, "Batches got");
  g_assert_cmpstr (pfprof_timeline_get_row (tl, (guint) w0)->label, ==, "Worker 0 (pid 4342)");
  g_assert_cmpstr (pfprof_timeline_get_row (tl, (guint) w1)->label, ==, "Worker 1 (pid 4343)");
  /* Every batch a step got, and its label names the batch and worker. */
  g_assert_cmpuint (pfprof_timeline_get_row (tl, (guint) got)->n_refs, ==, gen.steps);
  {
    const PfprofTimelineRow *row = pfprof_timeline_get_row (tl, (guint) got);
    g_autofree char *label = pfprof_renderer_event_label (row, row->refs[3]);

    g_assert_cmpstr (label, ==, "batch 3 (worker 1)");
  }
  /* A worker's first lane holds its batches; its stages are below it. */
  for (int r = w0; r < (int) tl->rows->len; r++)
    {
      const PfprofTimelineRow *row = pfprof_timeline_get_row (tl, (guint) r);

      if (row->type != PFPROF_ROW_WORKER || row->stream_id != PFPROF_TIMELINE_WORKER_BATCHES)
        break;
      for (guint k = 0; k < row->n_refs; k++)
        {
          const PfprofWorkerEventRecord *e = &ev[PFPROF_EVENT_REF_INDEX (row->refs[k])];
          g_autofree char *label = pfprof_renderer_event_label (row, row->refs[k]);

          g_assert_cmpuint (e->pid, ==, row->tid);
          if (e->kind == PFPROF_WORKER_BATCH)
            {
              g_autofree char *want = g_strdup_printf ("batch %" G_GINT64_FORMAT, e->batch);

              g_assert_cmpuint (row->sub_lane, ==, 0);
              g_assert_cmpint (pfprof_timeline_event_class (row, row->refs[k]), ==, PFPROF_ITEM_BATCH);
              g_assert_cmpstr (label, ==, want);
              batches++;
            }
          else
            {
              g_assert_cmpint (e->kind, ==, PFPROF_WORKER_STAGE);
              g_assert_cmpint (pfprof_timeline_event_class (row, row->refs[k]), ==, PFPROF_ITEM_STAGE);
              g_assert_true (g_str_equal (label, "default_loader") || g_str_equal (label, "RandomResizedCrop"));
              stages++;
            }
        }
    }
  g_assert_cmpuint (batches, ==, gen.steps);
  g_assert_cmpuint (stages, ==, 2 * gen.steps);
  /* Zoomed onto worker 0's first batch: its collate_fn is a slice of its
   * own over the batch's end, in the collate colour, the batch's before. */
  {
    const PfprofTimelineRow *row = pfprof_timeline_get_row (tl, (guint) w0);
    const PfprofWorkerEventRecord *b = NULL;
    PfprofRenderView view;
    PfprofRenderStats stats;
    cairo_surface_t *s;
    double collate[3], batch[3], y;
    int cx, bx;

    for (guint k = 0; k < row->n_refs && b == NULL; k++)
      if (ev[PFPROF_EVENT_REF_INDEX (row->refs[k])].kind == PFPROF_WORKER_BATCH)
        b = &ev[PFPROF_EVENT_REF_INDEX (row->refs[k])];
    g_assert_nonnull (b);
    g_assert_cmpint (b->value_a, >, b->start_ns);
    pfprof_render_view_init (&view, tl, 1600, 2000);
    view.t0 = b->start_ns - (b->end_ns - b->start_ns) / 10;
    view.t1 = b->end_ns + (b->end_ns - b->start_ns) / 10;
    s = draw (tl, &view, &stats);
    g_assert_cmpuint (stats.n_collates, >=, 1);
    pfprof_renderer_item_color (PFPROF_ITEM_COLLATE, FALSE, collate);
    pfprof_renderer_item_color (PFPROF_ITEM_BATCH, FALSE, batch);
    y = pfprof_renderer_row_y (tl, &view, (guint) w0);
    g_assert_cmpfloat (y, >=, 0);
    cx = (int) pfprof_renderer_x_of (&view, (b->value_a + b->value_b) / 2);
    bx = (int) pfprof_renderer_x_of (&view, b->start_ns + (b->value_a - b->start_ns) / 4);
    g_assert_cmpfloat (fraction_of (s, cx - 2, cx + 3, (int) y + 4, (int) y + 8, collate), >, 0.9);
    g_assert_cmpfloat (fraction_of (s, bx - 2, bx + 3, (int) y + 4, (int) y + 8, batch), >, 0.9);
    cairo_surface_destroy (s);
  }
  /* Over a few steps each batch is linked to where the loop got it (a
   * line from the batch's end on its worker's lane to its end on "Batches
   * got"); over the whole run in 400 px, the batches too dense, none is. */
  {
    const PfprofTimelineRow *grow = pfprof_timeline_get_row (tl, (guint) got);
    PfprofRenderView view;
    PfprofRenderStats stats;
    cairo_surface_t *s;

    pfprof_render_view_init (&view, tl, 1600, 2000);
    view.t0 = ev[PFPROF_EVENT_REF_INDEX (grow->refs[2])].start_ns;
    view.t1 = ev[PFPROF_EVENT_REF_INDEX (grow->refs[5])].end_ns;
    s = draw (tl, &view, &stats);
    /* Batches 2 to 5 at least, each got in view and put before it. */
    g_assert_cmpuint (stats.n_batch_links, >=, 3);
    cairo_surface_destroy (s);
    pfprof_render_view_init (&view, tl, 400, 2000);
    s = draw (tl, &view, &stats);
    g_assert_cmpuint (stats.n_batch_links, ==, 0);
    cairo_surface_destroy (s);
  }
  pfprof_timeline_free (tl);
  pfprof_analysis_free (a);
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/render/rows", Fixture, NULL, fixture_set_up, test_rows, fixture_tear_down);
  g_test_add ("/render/rows-dense", Fixture, "dense", fixture_set_up, test_rows, fixture_tear_down);
  g_test_add ("/render/copies-coloured", Fixture, NULL, fixture_set_up, test_copies_coloured, fixture_tear_down);
  g_test_add ("/render/findings-marked", Fixture, NULL, fixture_set_up, test_findings_marked, fixture_tear_down);
  g_test_add ("/render/level-of-detail", Fixture, "dense", fixture_set_up, test_level_of_detail, fixture_tear_down);
  g_test_add ("/render/search", Fixture, "dense", fixture_set_up, test_search, fixture_tear_down);
  g_test_add ("/render/launch-link", Fixture, NULL, fixture_set_up, test_launch_link, fixture_tear_down);
  g_test_add ("/render/collapse", Fixture, NULL, fixture_set_up, test_collapse, fixture_tear_down);
  g_test_add ("/render/dark", Fixture, NULL, fixture_set_up, test_dark, fixture_tear_down);
  g_test_add_func ("/render/hostile-text", test_hostile_text);
  g_test_add_func ("/render/empty-trace", test_empty_trace);
  g_test_add_func ("/render/units", test_units);
  g_test_add_func ("/render/recorded-sample", test_recorded_sample);
  g_test_add_func ("/render/sampled-pauses", test_sampled_pauses);
  g_test_add_func ("/render/steady-framing", test_steady_framing);
  g_test_add_func ("/render/empty-rows-hidden", test_empty_rows_hidden);
  g_test_add_func ("/render/thread-labels-distinct", test_thread_labels_distinct);
  g_test_add_func ("/render/dataloader-lanes", test_dataloader_lanes);
  return g_test_run ();
}
