/* test-timeline-widget.c: the timeline widget's navigation, in a real
 * window under Xvfb. Input goes through the widget's own event
 * controllers (their signals emitted as GTK would on a key press or a
 * click), so what is tested is what the handlers do with them: W/S zoom,
 * A/D pan, F fits, Escape clears, a click selects the event under it, a
 * click on a group collapses it. */
#include <gtk/gtk.h>

#include "pfprof-timeline-widget.h"
#include "render-test-util.h"

typedef struct
{
  PfprofAnalysis *analysis;
  PfprofTimeline *tl;
  GtkWidget *window;
  PfprofTimelineWidget *w;
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
  gtk_window_set_child (GTK_WINDOW (fx->window), GTK_WIDGET (fx->w));
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
  /* F: fit all. */
  g_assert_true (key (fx, GDK_KEY_f));
  g_assert_cmpint (v->t0, ==, fx->tl->start_ns);
  g_assert_cmpint (v->t1, ==, fx->tl->end_ns);
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

int
main (int argc, char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  g_test_add ("/timeline-widget/keys", Fixture, NULL, fixture_set_up, test_keys, fixture_tear_down);
  g_test_add ("/timeline-widget/click-selects", Fixture, NULL, fixture_set_up, test_click_selects, fixture_tear_down);
  g_test_add ("/timeline-widget/click-collapses", Fixture, NULL, fixture_set_up, test_click_collapses, fixture_tear_down);
  return g_test_run ();
}
