/* SPDX-License-Identifier: MIT */
/* test-timeline-widget.c: the timeline widget's navigation, in a real
 * window under Xvfb. Input goes through the widget's own event
 * controllers (their signals emitted as GTK would on a key press or a
 * click), so what is tested is what the handlers do with them: W/S zoom,
 * A/D pan (never before the start), 0 fits, Escape clears, a click
 * selects the event under it, a click on a group collapses it.
 *
 * Pointer navigation takes real input: the X server's XTEST extension
 * (libXtst, loaded at run time) moves the pointer, holds Ctrl or Shift and
 * presses buttons, so the events reach the widget as a user's would,
 * through GDK and the controllers: Ctrl+scroll zooms around the pointer,
 * Shift+scroll and drag pan; Shift+drag on the rows or a drag on the
 * ruler selects an interval, which the measurement line under the
 * timeline describes, F focuses, M marks, a click clears; `/` opens the
 * search bar, typed text finds kernels, Enter, Shift+Enter and F3 step
 * through the matches with the count shown. Xvfb has no
 * touch devices, so the pinch is the one gesture driven through its
 * controller's signals ("begin", "scale-changed"), with the pointer placed
 * by a real motion first. */
#include <dlfcn.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#include <X11/keysym.h>
#endif

#include "pfprof-details-panel.h"
#include "pfprof-format.h"
#include "pfprof-importer.h"
#include "pfprof-trace-generator.h"
#include "pfprof-measure-bar.h"
#include "pfprof-measure.h"
#include "pfprof-search-bar.h"
#include "pfprof-timeline-widget.h"
#include "render-test-util.h"

typedef struct
{
  PfprofAnalysis *analysis;
  PfprofTimeline *tl;
  GtkWidget *window;
  PfprofTimelineWidget *w;
  PfprofSearchBar *search;
  PfprofMeasureBar *measure;
  int selected_row;
  guint selected_ref;
  int n_selected;
} Fixture;

static void
on_selected (PfprofTimelineWidget *w, int row, guint ref, gpointer data)
{
  Fixture *fx = data;

  fx->selected_row = row;
  fx->selected_ref = ref;
  fx->n_selected++;
}

static void
wait_frames (Fixture *fx, guint n)
{
  guint target = pfprof_timeline_widget_n_frames (fx->w) + n;
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  gtk_widget_queue_draw (GTK_WIDGET (fx->w));
  while (pfprof_timeline_widget_n_frames (fx->w) < target && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (pfprof_timeline_widget_n_frames (fx->w), >=, target);
}

static void
fixture_set_up (Fixture *fx, gconstpointer data)
{
  fx->analysis = rt_analysis_new (rt_trace_new (FALSE, NULL));
  fx->tl = pfprof_timeline_new (fx->analysis, NULL, NULL);
  fx->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (fx->window), 1200, 500);
  fx->w = PFPROF_TIMELINE_WIDGET (pfprof_timeline_widget_new ());
  fx->search = PFPROF_SEARCH_BAR (pfprof_search_bar_new ());
  fx->measure = PFPROF_MEASURE_BAR (pfprof_measure_bar_new ());
  {
    GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);

    gtk_box_append (GTK_BOX (box), GTK_WIDGET (fx->search));
    gtk_box_append (GTK_BOX (box), GTK_WIDGET (fx->w));
    gtk_box_append (GTK_BOX (box), GTK_WIDGET (fx->measure));
    gtk_window_set_child (GTK_WINDOW (fx->window), box);
  }
  pfprof_search_bar_set_timeline_widget (fx->search, fx->w);
  pfprof_measure_bar_set_timeline_widget (fx->measure, fx->w);
  pfprof_timeline_widget_set_timeline (fx->w, fx->tl);
  g_signal_connect (fx->w, "event-selected", G_CALLBACK (on_selected), fx);
  gtk_window_present (GTK_WINDOW (fx->window));
  wait_frames (fx, 1);
}

static void
fixture_tear_down (Fixture *fx, gconstpointer data)
{
  gtk_window_destroy (GTK_WINDOW (fx->window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  pfprof_timeline_free (fx->tl);
  rt_analysis_free (fx->analysis);
}

static GtkEventController *
controller (Fixture *fx, GType type)
{
  GListModel *list = gtk_widget_observe_controllers (GTK_WIDGET (fx->w));
  GtkEventController *found = NULL;

  for (guint i = 0; i < g_list_model_get_n_items (list) && found == NULL; i++)
    {
      GtkEventController *c = g_list_model_get_item (list, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (c, type))
        found = c;
      g_object_unref (c);
    }
  g_object_unref (list);
  g_assert_nonnull (found);
  return found;
}

static gboolean
key (Fixture *fx, guint keyval)
{
  gboolean handled = FALSE;

  g_signal_emit_by_name (controller (fx, GTK_TYPE_EVENT_CONTROLLER_KEY), "key-pressed", keyval, 0,
                         (GdkModifierType) 0, &handled);
  wait_frames (fx, 1);
  return handled;
}

static void
test_keys (Fixture *fx, gconstpointer data)
{
  const PfprofRenderView *v = pfprof_timeline_widget_get_view (fx->w);
  gint64 t0 = v->t0, t1 = v->t1, span = t1 - t0, mid = t0 + span / 2;

  g_assert_cmpint (t0, ==, fx->tl->start_ns);
  g_assert_cmpint (t1, ==, fx->tl->end_ns);
  /* W: zoom in around the middle (the pointer is not over the canvas). */
  g_assert_true (key (fx, GDK_KEY_w));
  g_assert_cmpint (v->t1 - v->t0, <, span);
  g_assert_cmpint (ABS (v->t0 + (v->t1 - v->t0) / 2 - mid), <, span / 1000);
  g_assert_true (key (fx, GDK_KEY_w));
  span = v->t1 - v->t0;
  /* D: pan right by a fifth; A: back. */
  t0 = v->t0;
  g_assert_true (key (fx, GDK_KEY_d));
  g_assert_cmpint (v->t0, >, t0);
  g_assert_cmpint (ABS ((v->t0 - t0) - span / 5), <, span / 100);
  g_assert_cmpint (v->t1 - v->t0, ==, span);
  g_assert_true (key (fx, GDK_KEY_a));
  g_assert_cmpint (ABS (v->t0 - t0), <, span / 100);
  /* S: zoom out. */
  g_assert_true (key (fx, GDK_KEY_s));
  g_assert_cmpint (v->t1 - v->t0, >, span);
  /* F with nothing selected has nothing to focus; 0 fits all. */
  span = v->t1 - v->t0;
  g_assert_true (key (fx, GDK_KEY_f));
  g_assert_cmpint (v->t1 - v->t0, ==, span);
  g_assert_true (key (fx, GDK_KEY_0));
  g_assert_cmpint (v->t0, ==, fx->tl->start_ns);
  g_assert_cmpint (v->t1, ==, fx->tl->end_ns);
  /* A pans left no further than the start of the trace. */
  g_assert_true (key (fx, GDK_KEY_w));
  for (int i = 0; i < 20; i++)
    key (fx, GDK_KEY_a);
  g_assert_cmpint (v->t0, ==, fx->tl->start_ns);
  g_assert_true (key (fx, GDK_KEY_0));
  /* Zooming never goes below a sane span, however long W is held. */
  for (int i = 0; i < 80; i++)
    key (fx, GDK_KEY_w);
  g_assert_cmpint (v->t1 - v->t0, >=, 200);
  /* Other keys are left to the rest of the window. */
  g_assert_false (key (fx, GDK_KEY_q));
}

static void
click (Fixture *fx, double x, double y)
{
  GtkEventController *c = controller (fx, GTK_TYPE_GESTURE_CLICK);

  g_signal_emit_by_name (c, "released", 1, x, y);
  wait_frames (fx, 1);
}

static void
test_click_selects (Fixture *fx, gconstpointer data)
{
  const PfprofRenderView *v = pfprof_timeline_widget_get_view (fx->w);
  int s7 = -1, api = -1;
  gint64 copy_start = RT_ORIGIN + 30 * RT_MS, s;
  double x, y;

  for (guint i = 0; i < fx->tl->rows->len; i++)
    {
      const PfprofTimelineRow *r = pfprof_timeline_get_row (fx->tl, i);

      if (r->type == PFPROF_ROW_STREAM && r->stream_id == 7)
        s7 = (int) i;
      if (r->type == PFPROF_ROW_THREAD_API && api < 0)
        api = (int) i;
    }
  /* The middle of step 3's pageable copy on stream 7. */
  x = pfprof_renderer_x_of (v, copy_start + RT_MS);
  y = pfprof_renderer_row_y (fx->tl, v, (guint) s7) + 10;
  click (fx, x, y);
  g_assert_cmpint (fx->n_selected, ==, 1);
  g_assert_cmpint (fx->selected_row, ==, s7);
  g_assert_cmpint (PFPROF_EVENT_REF_TABLE (fx->selected_ref), ==, PFPROF_TABLE_MEMCPYS);
  pfprof_timeline_event_range (fx->analysis->traces->pdata[0], fx->selected_ref, &s, NULL);
  g_assert_cmpint (s, ==, copy_start);
  /* The link goes to the cudaMemcpyAsync call on the API row. */
  g_assert_cmpint (v->link_row, ==, api);
  g_assert_cmpint (v->link_ns, <, copy_start);
  /* F with no interval selected focuses the event: it and half its
   * length either side. */
  g_assert_true (key (fx, GDK_KEY_f));
  g_assert_cmpint (v->t0, ==, copy_start - 3 * RT_MS / 2);
  g_assert_cmpint (v->t1, ==, copy_start + 3 * RT_MS + 3 * RT_MS / 2);
  /* Escape clears the selection. */
  key (fx, GDK_KEY_Escape);
  g_assert_cmpint (fx->selected_row, ==, -1);
  g_assert_cmpint (v->selected_row, ==, -1);
}

static void
test_click_collapses (Fixture *fx, gconstpointer data)
{
  const PfprofRenderView *v = pfprof_timeline_widget_get_view (fx->w);
  int gpu = -1, api = -1;
  double before;

  for (guint i = 0; i < fx->tl->rows->len; i++)
    {
      const PfprofTimelineRow *r = pfprof_timeline_get_row (fx->tl, i);

      if (r->type == PFPROF_ROW_DEVICE)
        gpu = (int) i;
      if (r->type == PFPROF_ROW_THREAD_API && api < 0)
        api = (int) i;
    }
  before = pfprof_renderer_row_y (fx->tl, v, (guint) api);
  click (fx, 20, pfprof_renderer_row_y (fx->tl, v, (guint) gpu) + 5);
  g_assert_false (pfprof_timeline_get_row (fx->tl, (guint) gpu)->expanded);
  g_assert_cmpfloat (pfprof_renderer_row_y (fx->tl, v, (guint) api), <, before);
  click (fx, 20, pfprof_renderer_row_y (fx->tl, v, (guint) gpu) + 5);
  g_assert_true (pfprof_timeline_get_row (fx->tl, (guint) gpu)->expanded);
  g_assert_cmpfloat (pfprof_renderer_row_y (fx->tl, v, (guint) api), ==, before);
}

/* ---- real input through XTEST -------------------------------------- */

#ifdef GDK_WINDOWING_X11
typedef int (*FakeKeyFn) (Display *, unsigned int, Bool, unsigned long);
typedef int (*FakeButtonFn) (Display *, unsigned int, Bool, unsigned long);
typedef int (*FakeMotionFn) (Display *, int, int, int, unsigned long);

static struct
{
  FakeKeyFn key;
  FakeButtonFn button;
  FakeMotionFn motion;
} xtest;

static void
sym (void *lib, const char *name, void *fn, gsize size)
{
  void *p = dlsym (lib, name);

  g_assert_nonnull (p);
  g_assert_cmpuint (size, ==, sizeof p);
  memcpy (fn, &p, size);
}

/* The X display, with XTEST loaded; NULL (the test skipped) when the
 * display is not X11 or libXtst is not installed. */
static Display *
xtest_display (void)
{
  GdkDisplay *d = gdk_display_get_default ();
  void *lib;
  int ev, err, major, minor;

  if (!GDK_IS_X11_DISPLAY (d))
    {
      g_test_skip ("not an X11 display");
      return NULL;
    }
  if (xtest.key == NULL)
    {
      lib = dlopen ("libXtst.so.6", RTLD_NOW | RTLD_LOCAL);
      if (lib == NULL)
        {
          g_test_skip ("libXtst.so.6 is not installed: no real input to inject");
          return NULL;
        }
      /* POSIX guarantees dlsym's result converts to a function pointer;
       * ISO C does not, hence the copy. */
      sym (lib, "XTestFakeKeyEvent", &xtest.key, sizeof xtest.key);
      sym (lib, "XTestFakeButtonEvent", &xtest.button, sizeof xtest.button);
      sym (lib, "XTestFakeMotionEvent", &xtest.motion, sizeof xtest.motion);
    }
  if (!XQueryExtension (gdk_x11_display_get_xdisplay (d), "XTEST", &major, &ev, &err))
    {
      g_test_skip ("the X server has no XTEST extension");
      return NULL;
    }
  (void) minor;
  return gdk_x11_display_get_xdisplay (d);
}

/* Lets GTK take in what the server sent, then draws. */
static void
settle (Fixture *fx, Display *dpy)
{
  gint64 until = g_get_monotonic_time () + 150000;

  XSync (dpy, False);
  while (g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, FALSE);
  wait_frames (fx, 1);
}

/* Moves the pointer to widget coordinates (@x, @y). */
static void
pointer_to (Fixture *fx, Display *dpy, double x, double y)
{
  GtkNative *native = gtk_widget_get_native (GTK_WIDGET (fx->w));
  GdkSurface *surface = gtk_native_get_surface (native);
  graphene_point_t p;
  double sx, sy;
  int rx, ry;
  Window child;

  g_assert_true (gtk_widget_compute_point (GTK_WIDGET (fx->w), GTK_WIDGET (native),
                                           &GRAPHENE_POINT_INIT ((float) x, (float) y), &p));
  gtk_native_get_surface_transform (native, &sx, &sy);
  XTranslateCoordinates (dpy, gdk_x11_surface_get_xid (surface), DefaultRootWindow (dpy),
                         (int) lround (p.x + sx), (int) lround (p.y + sy), &rx, &ry, &child);
  xtest.motion (dpy, -1, rx, ry, CurrentTime);
  settle (fx, dpy);
}

static void
modifier (Display *dpy, KeySym sym, gboolean down)
{
  xtest.key (dpy, XKeysymToKeycode (dpy, sym), down, CurrentTime);
}

/* One wheel notch: button 4 is up (zoom in with Ctrl), 5 down. */
static void
wheel (Fixture *fx, Display *dpy, KeySym mod, unsigned int button)
{
  if (mod != NoSymbol)
    modifier (dpy, mod, TRUE);
  xtest.button (dpy, button, True, CurrentTime);
  xtest.button (dpy, button, False, CurrentTime);
  if (mod != NoSymbol)
    modifier (dpy, mod, FALSE);
  settle (fx, dpy);
}

/* Button 1 pressed at x0, dragged in steps to x1, released. */
static void
drag (Fixture *fx, Display *dpy, KeySym mod, double x0, double x1, double y)
{
  pointer_to (fx, dpy, x0, y);
  if (mod != NoSymbol)
    modifier (dpy, mod, TRUE);
  xtest.button (dpy, 1, True, CurrentTime);
  settle (fx, dpy);
  for (int i = 1; i <= 8; i++)
    pointer_to (fx, dpy, x0 + (x1 - x0) * i / 8, y);
  xtest.button (dpy, 1, False, CurrentTime);
  if (mod != NoSymbol)
    modifier (dpy, mod, FALSE);
  settle (fx, dpy);
}

static double
ns_per_px (const PfprofRenderView *v)
{
  return (double) (v->t1 - v->t0) / (v->width - v->label_width);
}

static void
test_ctrl_scroll (Fixture *fx, gconstpointer data)
{
  const PfprofRenderView *v = pfprof_timeline_widget_get_view (fx->w);
  Display *dpy = xtest_display ();
  double x, y;
  gint64 under, span;

  if (dpy == NULL)
    return;
  /* A quarter of the way across the events, away from the middle, so that
   * zooming around the pointer and around the middle differ. */
  x = v->label_width + 0.25 * (v->width - v->label_width);
  y = v->height / 2.0;
  pointer_to (fx, dpy, x, y);
  under = pfprof_renderer_time_at (v, x);
  span = v->t1 - v->t0;

  /* Ctrl + wheel up: zoom in by 1.2, the time under the pointer stays. */
  wheel (fx, dpy, XK_Control_L, 4);
  g_test_message ("span %" G_GINT64_FORMAT " -> %" G_GINT64_FORMAT, span, v->t1 - v->t0);
  g_assert_cmpfloat (fabs ((double) (v->t1 - v->t0) * 1.2 / (double) span - 1), <, 0.01);
  g_assert_cmpfloat (fabs ((double) (pfprof_renderer_time_at (v, x) - under)), <=, 2 * ns_per_px (v));
  /* The middle moved towards the pointer: not a zoom around the middle. */
  g_assert_cmpint (v->t0 + (v->t1 - v->t0) / 2, <, fx->tl->start_ns + span / 2 - span / 100);
  wheel (fx, dpy, XK_Control_L, 4);
  wheel (fx, dpy, XK_Control_L, 4);
  g_assert_cmpfloat (fabs ((double) (v->t1 - v->t0) * 1.728 / (double) span - 1), <, 0.01);
  g_assert_cmpfloat (fabs ((double) (pfprof_renderer_time_at (v, x) - under)), <=, 2 * ns_per_px (v));

  /* From another pointer position, Ctrl + wheel down zooms out around it. */
  x = v->label_width + 0.75 * (v->width - v->label_width);
  pointer_to (fx, dpy, x, y);
  under = pfprof_renderer_time_at (v, x);
  span = v->t1 - v->t0;
  wheel (fx, dpy, XK_Control_L, 5);
  g_assert_cmpfloat (fabs ((double) (v->t1 - v->t0) / 1.2 / (double) span - 1), <, 0.01);
  g_assert_cmpfloat (fabs ((double) (pfprof_renderer_time_at (v, x) - under)), <=, 2 * ns_per_px (v));

  /* Without Ctrl the wheel does not zoom; Shift + wheel pans in time. */
  span = v->t1 - v->t0;
  {
    gint64 t0 = v->t0;

    wheel (fx, dpy, NoSymbol, 5);
    g_assert_cmpint (v->t1 - v->t0, ==, span);
    g_assert_cmpint (v->t0, ==, t0);
    wheel (fx, dpy, XK_Shift_L, 5);
    g_assert_cmpint (v->t1 - v->t0, ==, span);
    g_assert_cmpfloat (fabs ((double) (v->t0 - t0) - 40 * ns_per_px (v)), <=, 2 * ns_per_px (v));
  }
}

static double hover_x = -1, hover_y = -1;

static gboolean
on_tooltip_query (GSignalInvocationHint *hint, guint n, const GValue *params, gpointer data)
{
  hover_x = g_value_get_int (&params[1]);
  hover_y = g_value_get_int (&params[2]);
  return TRUE;
}

/* The pointer resting on the pageable copy of step 3 brings up a tooltip
 * that names it, with its duration and its stream. */
static void
test_hover_tooltip (Fixture *fx, gconstpointer data)
{
  const PfprofRenderView *v = pfprof_timeline_widget_get_view (fx->w);
  Display *dpy = xtest_display ();
  guint id = g_signal_lookup ("query-tooltip", GTK_TYPE_WIDGET);
  gulong hook;
  gint64 copy_start = RT_ORIGIN + 30 * RT_MS, s, e;
  int s7 = -1;
  g_autofree char *text = NULL;
  g_autofree char *dur = NULL;
  gint64 deadline;

  if (dpy == NULL)
    return;
  for (guint i = 0; i < fx->tl->rows->len; i++)
    {
      const PfprofTimelineRow *r = pfprof_timeline_get_row (fx->tl, i);

      if (r->type == PFPROF_ROW_STREAM && r->stream_id == 7)
        s7 = (int) i;
    }
  g_assert_cmpint (s7, >=, 0);
  hook = g_signal_add_emission_hook (id, 0, on_tooltip_query, NULL, NULL);
  pointer_to (fx, dpy, pfprof_renderer_x_of (v, copy_start + RT_MS) - 20,
              pfprof_renderer_row_y (fx->tl, v, (guint) s7) + 10);
  pointer_to (fx, dpy, pfprof_renderer_x_of (v, copy_start + RT_MS),
              pfprof_renderer_row_y (fx->tl, v, (guint) s7) + 10);
  /* GTK asks for the tooltip once the pointer has rested a moment. */
  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (hover_x < 0 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  g_signal_remove_emission_hook (id, hook);
  g_assert_cmpfloat (hover_x, >=, 0);
  text = pfprof_timeline_widget_describe_at (fx->w, hover_x, hover_y);
  g_assert_nonnull (text);
  g_assert_nonnull (strstr (text, "HtoD pageable"));
  g_assert_nonnull (strstr (text, "Stream 7"));
  {
    PfprofEventRef ref = PFPROF_EVENT_REF_NONE;
    const PfprofTimelineRow *row = pfprof_timeline_get_row (fx->tl, (guint) s7);

    ref = pfprof_timeline_row_hit (row, copy_start + RT_MS, 0);
    pfprof_timeline_event_range (row->trace, ref, &s, &e);
    dur = pfprof_format_ns (e - s);
  }
  g_assert_nonnull (strstr (text, dur));
  /* Nothing to say over the row labels. */
  g_assert_null (pfprof_timeline_widget_describe_at (fx->w, 5, hover_y));
}

static void
test_drag_pan (Fixture *fx, gconstpointer data)
{
  const PfprofRenderView *v = pfprof_timeline_widget_get_view (fx->w);
  Display *dpy = xtest_display ();
  double y, x0;
  gint64 t0, span;

  if (dpy == NULL)
    return;
  /* Zoomed in first, so there is room to pan both ways. */
  pfprof_timeline_widget_zoom (fx->w, 0.25, fx->tl->start_ns + (fx->tl->end_ns - fx->tl->start_ns) / 2);
  wait_frames (fx, 1);
  t0 = v->t0;
  span = v->t1 - v->t0;
  y = v->height - 30.0;
  x0 = v->label_width + 0.6 * (v->width - v->label_width);
  /* Dragging 200 px to the left brings later times into view. */
  drag (fx, dpy, NoSymbol, x0, x0 - 200, y);
  g_test_message ("t0 moved by %.1f px", (double) (v->t0 - t0) / ns_per_px (v));
  g_assert_cmpint (v->t1 - v->t0, ==, span);
  g_assert_cmpfloat (fabs ((double) (v->t0 - t0) - 200 * ns_per_px (v)), <=, 3 * ns_per_px (v));
  /* And back. */
  drag (fx, dpy, NoSymbol, x0 - 200, x0, y);
  g_assert_cmpfloat (fabs ((double) (v->t0 - t0)), <=, 3 * ns_per_px (v));
}

/* Drags from @xb to @xa (with @mod held) and checks the selection is
 * [time at @xa, time at @xb] with the view left as it was. */
static void
select_by_drag (Fixture *fx, Display *dpy, KeySym mod, double xb, double xa, double y)
{
  const PfprofRenderView *v = pfprof_timeline_widget_get_view (fx->w);
  gint64 ta = pfprof_renderer_time_at (v, MIN (xa, xb)), tb = pfprof_renderer_time_at (v, MAX (xa, xb));
  gint64 tol = (gint64) (2 * ns_per_px (v)), t0 = v->t0, t1 = v->t1, s0, s1;

  drag (fx, dpy, mod, xb, xa, y);
  g_assert_true (pfprof_timeline_widget_get_selection (fx->w, &s0, &s1));
  g_test_message ("selection [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "], wanted [%" G_GINT64_FORMAT
                  ", %" G_GINT64_FORMAT "]", s0, s1, ta, tb);
  g_assert_cmpint (ABS (s0 - ta), <=, tol);
  g_assert_cmpint (ABS (s1 - tb), <=, tol);
  /* Selecting measures; it does not move the view. */
  g_assert_cmpint (v->t0, ==, t0);
  g_assert_cmpint (v->t1, ==, t1);
}

static void
test_measure (Fixture *fx, gconstpointer data)
{
  const PfprofRenderView *v = pfprof_timeline_widget_get_view (fx->w);
  Display *dpy = xtest_display ();
  double xa, xb, y;
  gint64 s0, s1, t0, t1;
  const char *text;

  if (dpy == NULL)
    return;
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (fx->measure)));
  /* Shift + drag from right to left over the rows selects. */
  y = v->height - 30.0;
  xa = v->label_width + 0.3 * (v->width - v->label_width);
  xb = v->label_width + 0.45 * (v->width - v->label_width);
  select_by_drag (fx, dpy, XK_Shift_L, xb, xa, y);
  g_assert_true (pfprof_timeline_widget_get_selection (fx->w, &s0, &s1));
  /* The line under the timeline says what the interval holds. */
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (fx->measure)));
  text = pfprof_measure_bar_get_text (fx->measure);
  g_test_message ("%s", text);
  {
    g_autofree char *len = pfprof_format_ns (s1 - s0);
    g_autofree char *want = g_strdup_printf ("%s selected", len);

    g_assert_true (g_str_has_prefix (text, want));
  }
  g_assert_nonnull (strstr (text, "GPU busy"));
  g_assert_nonnull (strstr (text, " kernels"));
  /* F focuses the selection. */
  g_assert_true (key (fx, GDK_KEY_f));
  g_assert_cmpint (v->t0, ==, s0);
  g_assert_cmpint (v->t1, ==, s1);
  /* A click on empty space clears it. */
  pointer_to (fx, dpy, v->width - 5, v->height - 5.0);
  xtest.button (dpy, 1, True, CurrentTime);
  xtest.button (dpy, 1, False, CurrentTime);
  settle (fx, dpy);
  g_assert_false (pfprof_timeline_widget_get_selection (fx->w, NULL, NULL));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (fx->measure)));
  /* A drag on the time ruler selects without Shift; Escape clears. */
  g_assert_true (key (fx, GDK_KEY_0));
  select_by_drag (fx, dpy, NoSymbol, xa, xb, v->ruler_height / 2);
  g_assert_true (key (fx, GDK_KEY_Escape));
  g_assert_false (pfprof_timeline_widget_get_selection (fx->w, NULL, NULL));
  /* A slip of 2 px selects nothing and moves nothing. */
  t0 = v->t0;
  t1 = v->t1;
  drag (fx, dpy, XK_Shift_L, xa, xa + 2, y);
  g_assert_false (pfprof_timeline_widget_get_selection (fx->w, NULL, NULL));
  g_assert_cmpint (v->t0, ==, t0);
  g_assert_cmpint (v->t1, ==, t1);
}

/* One step of the planted trace, measured: 5 kernels, 3 copies (the
 * pinned one inside the pageable one's time), a memset; the GPU busy
 * 8.7 of its 10 ms. */
static void
test_measure_figures (Fixture *fx, gconstpointer data)
{
  PfprofMeasure m;
  g_autofree char *text = NULL;

  pfprof_measure_compute (fx->tl, RT_ORIGIN + 20 * RT_MS, RT_ORIGIN + 30 * RT_MS, &m);
  g_assert_cmpuint (m.n_kernels, ==, 5);
  g_assert_cmpuint (m.n_copies, ==, 3);
  g_assert_cmpuint (m.n_memsets, ==, 1);
  g_assert_cmpint (m.gpu_busy_ns, ==, 8 * RT_MS + RT_MS / 2 + RT_MS / 5);
  g_assert_cmpint (m.copy_ns, ==, 3 * RT_MS + RT_MS / 2);
  text = pfprof_measure_describe (&m, RT_ORIGIN);
  g_assert_cmpstr (text, ==, "10.0 ms selected (from +20.0 ms): GPU busy 8.70 ms (87.0%), idle 1.30 ms; "
                             "5 kernels, 3 copies (192.0 MiB, 3.50 ms), 1 memset");
}

static void
test_markers (Fixture *fx, gconstpointer data)
{
  const PfprofRenderView *v = pfprof_timeline_widget_get_view (fx->w);
  const GArray *markers = pfprof_timeline_widget_get_markers (fx->w);
  Display *dpy = xtest_display ();
  double x, y;
  gint64 s0, s1;

  if (dpy == NULL)
    return;
  g_assert_cmpuint (markers->len, ==, 0);
  /* M with the pointer over the rows marks the instant under it. */
  x = v->label_width + 0.5 * (v->width - v->label_width);
  y = v->height - 30.0;
  pointer_to (fx, dpy, x, y);
  g_assert_true (key (fx, GDK_KEY_m));
  g_assert_cmpuint (markers->len, ==, 1);
  g_assert_cmpint (ABS (g_array_index (markers, PfprofMarker, 0).t0 - pfprof_renderer_time_at (v, x)), <=,
                   (gint64) ns_per_px (v) + 1);
  g_assert_cmpint (g_array_index (markers, PfprofMarker, 0).t1, ==, g_array_index (markers, PfprofMarker, 0).t0);
  /* With a selection, M marks the interval; the marker outlives it. */
  select_by_drag (fx, dpy, XK_Shift_L, x + 100, x - 100, y);
  g_assert_true (pfprof_timeline_widget_get_selection (fx->w, &s0, &s1));
  g_assert_true (key (fx, GDK_KEY_m));
  g_assert_cmpuint (markers->len, ==, 2);
  g_assert_cmpint (g_array_index (markers, PfprofMarker, 1).t0, ==, s0);
  g_assert_cmpint (g_array_index (markers, PfprofMarker, 1).t1, ==, s1);
  g_assert_true (key (fx, GDK_KEY_Escape));
  g_assert_cmpuint (markers->len, ==, 2);
  g_assert_nonnull (strstr (pfprof_measure_bar_get_text (fx->measure), "2 markers"));
  /* The marker is drawn: its flag's amber on the ruler, at its time. */
  {
    GdkPaintable *p = gtk_widget_paintable_new (GTK_WIDGET (fx->w));
    GtkSnapshot *snap = gtk_snapshot_new ();
    g_autoptr (GskRenderNode) node = NULL;
    cairo_surface_t *img = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) v->width, (int) v->height);
    cairo_t *cr = cairo_create (img);
    double mx = floor (pfprof_renderer_x_of (v, g_array_index (markers, PfprofMarker, 0).t0));
    int stride = cairo_image_surface_get_stride (img);
    guint8 *px;

    gdk_paintable_snapshot (p, snap, v->width, v->height);
    node = gtk_snapshot_free_to_node (snap);
    g_assert_nonnull (node);
    gsk_render_node_draw (node, cr);
    cairo_surface_flush (img);
    /* Just right of the line, in the flag (BGRA in memory). */
    px = cairo_image_surface_get_data (img) + (int) (v->ruler_height - 6) * stride + ((int) mx + 2) * 4;
    g_test_message ("marker pixel %d %d %d", px[2], px[1], px[0]);
    g_assert_cmpint (px[2], >, 200);
    g_assert_cmpint (px[1], >, 110);
    g_assert_cmpint (px[1], <, 190);
    g_assert_cmpint (px[0], <, 80);
    cairo_destroy (cr);
    cairo_surface_destroy (img);
    g_object_unref (p);
  }
  /* Shift+M (the key's upper case) removes them. */
  g_assert_true (key (fx, GDK_KEY_M));
  g_assert_cmpuint (markers->len, ==, 0);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (fx->measure)));
}

/* Presses @sym (with @mod held) through XTEST and lets the window take it
 * in (the entry reports a change after a short delay). */
static void
press (Fixture *fx, Display *dpy, KeySym mod, KeySym sym)
{
  if (mod != NoSymbol)
    modifier (dpy, mod, TRUE);
  xtest.key (dpy, XKeysymToKeycode (dpy, sym), True, CurrentTime);
  xtest.key (dpy, XKeysymToKeycode (dpy, sym), False, CurrentTime);
  if (mod != NoSymbol)
    modifier (dpy, mod, FALSE);
  for (int i = 0; i < 3; i++)
    settle (fx, dpy);
}

/* Types @text (lower-case letters) on the keyboard through XTEST. */
static void
type_text (Fixture *fx, Display *dpy, const char *text)
{
  for (const char *c = text; *c != '\0'; c++)
    {
      char name[2] = { *c, 0 };
      KeySym sym = XStringToKeysym (name);

      xtest.key (dpy, XKeysymToKeycode (dpy, sym), True, CurrentTime);
      xtest.key (dpy, XKeysymToKeycode (dpy, sym), False, CurrentTime);
    }
  for (int i = 0; i < 3; i++)
    settle (fx, dpy);
}

/* The selected event is kernel @n (from 1, in time order) of the trace,
 * the count says so, and it is in view, wide enough to see. */
static void
assert_kernel_selected (Fixture *fx, guint n)
{
  const PfprofRenderView *v = pfprof_timeline_widget_get_view (fx->w);
  const PfprofTimelineRow *row;
  g_autofree char *count = g_strdup_printf ("%u of 50", n);
  gint64 s, e;

  g_assert_cmpstr (pfprof_search_bar_get_count (fx->search), ==, count);
  g_assert_cmpint (fx->selected_row, >=, 0);
  row = pfprof_timeline_get_row (fx->tl, (guint) fx->selected_row);
  g_assert_cmpuint (PFPROF_EVENT_REF_TABLE (fx->selected_ref), ==, PFPROF_TABLE_KERNELS);
  g_assert_cmpuint (PFPROF_EVENT_REF_INDEX (fx->selected_ref), ==, n - 1);
  pfprof_timeline_event_range (row->trace, fx->selected_ref, &s, &e);
  g_assert_cmpint (s, >=, v->t0);
  g_assert_cmpint (e, <=, v->t1);
  g_assert_cmpfloat (pfprof_renderer_x_of (v, e) - pfprof_renderer_x_of (v, s), >=, 10);
  g_assert_cmpfloat (pfprof_renderer_row_y (fx->tl, v, (guint) fx->selected_row), >=, v->ruler_height);
}

static void
test_search (Fixture *fx, gconstpointer data)
{
  const PfprofRenderView *v = pfprof_timeline_widget_get_view (fx->w);
  Display *dpy = xtest_display ();
  GtkRoot *root;

  if (dpy == NULL)
    return;
  g_assert_false (pfprof_search_bar_is_open (fx->search));
  /* `/` on the timeline opens the bar, with the keys in its entry. */
  pointer_to (fx, dpy, v->label_width + 50, v->height - 30.0);
  gtk_widget_grab_focus (GTK_WIDGET (fx->w));
  press (fx, dpy, NoSymbol, XK_slash);
  g_assert_true (pfprof_search_bar_is_open (fx->search));
  root = gtk_widget_get_root (GTK_WIDGET (fx->w));
  g_assert_true (gtk_widget_is_ancestor (gtk_root_get_focus (root), GTK_WIDGET (pfprof_search_bar_get_entry (fx->search))));
  /* Typed, the query counts the kernels by name, case aside. */
  type_text (fx, dpy, "sgemx");
  press (fx, dpy, NoSymbol, XK_BackSpace);
  type_text (fx, dpy, "m");
  g_assert_cmpstr (gtk_editable_get_text (pfprof_search_bar_get_entry (fx->search)), ==, "sgemm");
  g_assert_cmpstr (pfprof_search_bar_get_count (fx->search), ==, "50 matches");
  /* Enter: the first match after the middle of the view, which shows the
   * whole run: kernel 26 of 50. */
  press (fx, dpy, NoSymbol, XK_Return);
  assert_kernel_selected (fx, 26);
  press (fx, dpy, NoSymbol, XK_Return);
  assert_kernel_selected (fx, 27);
  press (fx, dpy, XK_Shift_L, XK_Return);
  assert_kernel_selected (fx, 26);
  press (fx, dpy, NoSymbol, XK_F3);
  press (fx, dpy, NoSymbol, XK_F3);
  assert_kernel_selected (fx, 28);
  press (fx, dpy, XK_Shift_L, XK_F3);
  assert_kernel_selected (fx, 27);
  /* API calls by their names too; nothing for a stray query. */
  press (fx, dpy, XK_Control_L, XK_a);
  type_text (fx, dpy, "streamsync");
  g_assert_cmpstr (pfprof_search_bar_get_count (fx->search), ==, "10 matches");
  type_text (fx, dpy, "x");
  g_assert_cmpstr (pfprof_search_bar_get_count (fx->search), ==, "No matches");
  /* Escape closes the bar and gives the keys back to the timeline. */
  press (fx, dpy, NoSymbol, XK_Escape);
  g_assert_false (pfprof_search_bar_is_open (fx->search));
  g_assert_true (gtk_root_get_focus (root) == GTK_WIDGET (fx->w));
  /* Ctrl+F opens it again. */
  press (fx, dpy, XK_Control_L, XK_f);
  g_assert_true (pfprof_search_bar_is_open (fx->search));
}

static void
test_pinch (Fixture *fx, gconstpointer data)
{
  const PfprofRenderView *v = pfprof_timeline_widget_get_view (fx->w);
  Display *dpy = xtest_display ();
  GtkEventController *zoom;
  double x;
  gint64 under, span;

  if (dpy == NULL)
    return;
  zoom = controller (fx, GTK_TYPE_GESTURE_ZOOM);
  x = v->label_width + 0.2 * (v->width - v->label_width);
  pointer_to (fx, dpy, x, v->height / 2.0);
  under = pfprof_renderer_time_at (v, x);
  span = v->t1 - v->t0;
  /* Fingers apart to twice their distance, in steps: twice the detail. */
  g_signal_emit_by_name (zoom, "begin", NULL);
  for (int i = 1; i <= 4; i++)
    {
      g_signal_emit_by_name (zoom, "scale-changed", 1.0 + 0.25 * i);
      wait_frames (fx, 1);
    }
  g_test_message ("span %" G_GINT64_FORMAT " -> %" G_GINT64_FORMAT, span, v->t1 - v->t0);
  g_assert_cmpfloat (fabs ((double) (v->t1 - v->t0) * 2 / (double) span - 1), <, 0.01);
  g_assert_cmpfloat (fabs ((double) (pfprof_renderer_time_at (v, x) - under)), <=, 2 * ns_per_px (v));
  /* Pinching in from there: back to the whole trace. */
  span = v->t1 - v->t0;
  g_signal_emit_by_name (zoom, "begin", NULL);
  g_signal_emit_by_name (zoom, "scale-changed", 0.5);
  wait_frames (fx, 1);
  g_assert_cmpfloat (fabs ((double) (v->t1 - v->t0) * 0.5 / (double) span - 1), <, 0.01);
  g_assert_cmpfloat (fabs ((double) (pfprof_renderer_time_at (v, x) - under)), <=, 2 * ns_per_px (v));
}
#else
static void
test_ctrl_scroll (Fixture *fx, gconstpointer data)
{
  g_test_skip ("built without X11");
}
#define test_drag_pan test_ctrl_scroll
#define test_zoom_to_selection test_ctrl_scroll
#define test_pinch test_ctrl_scroll
#endif

/* Clicking a DataLoader batch or stage (worker_events of a generated
 * trace) shows which batch, worker and stage it is. */
static void
test_dataloader_details (void)
{
  g_autofree char *dir = g_dir_make_tmp ("pfprof-gui-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "dl.pfprof", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (PfprofRun) run = NULL;
  GPtrArray *traces = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_trace_free);
  PfprofTraceGenerator gen;
  PfprofAnalysis *a;
  PfprofTimeline *tl;
  GtkWidget *panel = g_object_ref_sink (pfprof_details_panel_new ());
  char err[256];
  gboolean saw_batch = FALSE, saw_stage = FALSE;

  pfprof_trace_generator_init (&gen);
  gen.steps = 8;
  g_assert_cmpint (pfprof_trace_generator_write (&gen, path, PFPROF_WRITER_OVERWRITE, NULL, err, sizeof err), ==,
                   PFPROF_WRITER_OK);
  g_ptr_array_add (traces, pfprof_importer_load (path, NULL, NULL, &error));
  g_assert_no_error (error);
  run = pfprof_run_new (traces);
  a = pfprof_analysis_run (run, NULL);
  tl = pfprof_timeline_new (a, NULL, NULL);
  for (guint i = 0; i < tl->rows->len; i++)
    {
      const PfprofTimelineRow *row = pfprof_timeline_get_row (tl, i);

      if (row->type != PFPROF_ROW_WORKER || row->stream_id != PFPROF_TIMELINE_WORKER_BATCHES || row->n_refs == 0)
        continue;
      pfprof_details_panel_show_event (PFPROF_DETAILS_PANEL (panel), tl, (int) i, row->refs[0], 1000);
      if (row->sub_lane == 0)
        {
          g_autofree char *want = g_strdup_printf ("DataLoader batch %u\nworker %u (pid %u), 32 samples", row->tid - 4342,
                                                   row->tid - 4342, row->tid);

          g_assert_true (g_str_has_prefix (pfprof_details_panel_get_text (PFPROF_DETAILS_PANEL (panel)), want));
          saw_batch = TRUE;
        }
      else
        {
          g_assert_true (g_str_has_prefix (pfprof_details_panel_get_text (PFPROF_DETAILS_PANEL (panel)),
                                           "DataLoader stage "));
          g_assert_nonnull (strstr (pfprof_details_panel_get_text (PFPROF_DETAILS_PANEL (panel)), "over 32 calls"));
          saw_stage = TRUE;
        }
    }
  g_assert_true (saw_batch && saw_stage);
  g_object_unref (panel);
  pfprof_timeline_free (tl);
  pfprof_analysis_free (a);
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  g_test_add_func ("/timeline-widget/dataloader-details", test_dataloader_details);
  g_test_add ("/timeline-widget/keys", Fixture, NULL, fixture_set_up, test_keys, fixture_tear_down);
  g_test_add ("/timeline-widget/click-selects", Fixture, NULL, fixture_set_up, test_click_selects, fixture_tear_down);
  g_test_add ("/timeline-widget/click-collapses", Fixture, NULL, fixture_set_up, test_click_collapses, fixture_tear_down);
  g_test_add ("/timeline-widget/ctrl-scroll", Fixture, NULL, fixture_set_up, test_ctrl_scroll, fixture_tear_down);
  g_test_add ("/timeline-widget/hover-tooltip", Fixture, NULL, fixture_set_up, test_hover_tooltip, fixture_tear_down);
  g_test_add ("/timeline-widget/drag-pan", Fixture, NULL, fixture_set_up, test_drag_pan, fixture_tear_down);
  g_test_add ("/timeline-widget/measure", Fixture, NULL, fixture_set_up, test_measure, fixture_tear_down);
  g_test_add ("/timeline-widget/measure-figures", Fixture, NULL, fixture_set_up, test_measure_figures, fixture_tear_down);
  g_test_add ("/timeline-widget/markers", Fixture, NULL, fixture_set_up, test_markers, fixture_tear_down);
  g_test_add ("/timeline-widget/search", Fixture, NULL, fixture_set_up, test_search, fixture_tear_down);
  g_test_add ("/timeline-widget/pinch", Fixture, NULL, fixture_set_up, test_pinch, fixture_tear_down);
  return g_test_run ();
}
