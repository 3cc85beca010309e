/* SPDX-License-Identifier: MIT */
/* pfprof-timeline-widget.c: the timeline canvas and its navigation. */
#include "pfprof-timeline-widget.h"

#include <math.h>
#include <time.h>

#include "pfprof-format.h"
#include "pfprof-measure.h"

/* Never zoom in further than this many ns across the whole width. */
#define MIN_SPAN_NS 200

struct _PfprofTimelineWidget
{
  GtkWidget parent_instance;

  PfprofTimeline *timeline;
  PfprofRenderView view;
  double pointer_x, pointer_y;
  /* Drag state. */
  gboolean range_drag;
  gboolean dragged;       /* the button moved since it was pressed: no click */
  gint64 drag_t0, drag_t1;
  double drag_scroll_y;
  gint64 drag_anchor_ns;
  double zoom_gesture_scale;
  gint64 zoom_gesture_t0, zoom_gesture_t1;
  gint64 last_draw_us;
  gint64 last_draw_cpu_us;
  guint n_frames;
  gboolean first_frame_sent;
  GArray *markers;        /* PfprofMarker, in the order they were set */
};

G_DEFINE_FINAL_TYPE (PfprofTimelineWidget, pfprof_timeline_widget, GTK_TYPE_WIDGET)

enum
{
  SIGNAL_EVENT_SELECTED,
  SIGNAL_VIEW_CHANGED,
  SIGNAL_FIRST_FRAME,
  SIGNAL_SELECTION_CHANGED,
  SIGNAL_MARKERS_CHANGED,
  SIGNAL_TIMELINE_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
changed (PfprofTimelineWidget *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[SIGNAL_VIEW_CHANGED], 0);
}

static double
max_scroll (PfprofTimelineWidget *self)
{
  double content;

  if (self->timeline == NULL)
    return 0;
  content = pfprof_renderer_content_height (self->timeline, &self->view);
  return MAX (0, content - (self->view.height - self->view.ruler_height) + 8);
}

static void
clamp_scroll (PfprofTimelineWidget *self)
{
  self->view.scroll_y = CLAMP (self->view.scroll_y, 0, max_scroll (self));
}

void
pfprof_timeline_widget_set_range (PfprofTimelineWidget *self, gint64 t0, gint64 t1)
{
  gint64 span, lo, hi, pad;

  g_return_if_fail (PFPROF_IS_TIMELINE_WIDGET (self));

  if (self->timeline == NULL)
    return;
  if (t1 < t0)
    {
      gint64 x = t0;

      t0 = t1;
      t1 = x;
    }
  if (t1 - t0 < MIN_SPAN_NS)
    {
      gint64 c = t0 + (t1 - t0) / 2;

      t0 = c - MIN_SPAN_NS / 2;
      t1 = t0 + MIN_SPAN_NS;
    }
  /* Allow a little room after the trace, not an endless void, and none
   * before its start: the ruler's 0. */
  span = self->timeline->end_ns - self->timeline->start_ns;
  pad = span / 20;
  lo = self->timeline->start_ns;
  hi = self->timeline->end_ns + pad;
  if (t1 - t0 > hi - lo)
    t0 = lo, t1 = hi;
  if (t0 < lo)
    t1 += lo - t0, t0 = lo;
  if (t1 > hi)
    t0 -= t1 - hi, t1 = hi;
  self->view.t0 = t0;
  self->view.t1 = t1;
  changed (self);
}

void
pfprof_timeline_widget_fit_all (PfprofTimelineWidget *self)
{
  g_return_if_fail (PFPROF_IS_TIMELINE_WIDGET (self));

  if (self->timeline != NULL)
    pfprof_timeline_widget_set_range (self, self->timeline->start_ns, self->timeline->end_ns);
}

void
pfprof_timeline_widget_zoom (PfprofTimelineWidget *self, double factor, gint64 center)
{
  g_return_if_fail (PFPROF_IS_TIMELINE_WIDGET (self));

  double t0 = (double) (self->view.t0 - center) * factor;
  double t1 = (double) (self->view.t1 - center) * factor;

  pfprof_timeline_widget_set_range (self, center + (gint64) llround (t0), center + (gint64) llround (t1));
}

static void
pan_px (PfprofTimelineWidget *self, double dx)
{
  double npp = (double) (self->view.t1 - self->view.t0) / MAX (1.0, self->view.width - self->view.label_width);
  gint64 d = (gint64) llround (dx * npp);

  pfprof_timeline_widget_set_range (self, self->view.t0 + d, self->view.t1 + d);
}

static gint64
pointer_time (PfprofTimelineWidget *self)
{
  double x = MAX (self->pointer_x, self->view.label_width);

  return pfprof_renderer_time_at (&self->view, x);
}

static gint64
thread_cpu_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void
snapshot (GtkWidget *widget, GtkSnapshot *snap)
{
  PfprofTimelineWidget *self = PFPROF_TIMELINE_WIDGET (widget);
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  cairo_t *cr;
  gint64 t;

  if (self->timeline == NULL || w <= 0 || h <= 0)
    return;
  self->view.width = w;
  self->view.height = h;
  self->view.label_width = MIN (220.0, w / 4.0);
  clamp_scroll (self);
  cr = gtk_snapshot_append_cairo (snap, &GRAPHENE_RECT_INIT (0, 0, (float) w, (float) h));
  t = g_get_monotonic_time ();
  self->last_draw_cpu_us = thread_cpu_us ();
  pfprof_renderer_draw (cr, self->timeline, &self->view, NULL);
  pfprof_measure_draw (cr, &self->view, self->markers);
  self->last_draw_us = g_get_monotonic_time () - t;
  self->last_draw_cpu_us = thread_cpu_us () - self->last_draw_cpu_us;
  cairo_destroy (cr);
  self->n_frames++;
  if (!self->first_frame_sent)
    {
      self->first_frame_sent = TRUE;
      g_signal_emit (self, signals[SIGNAL_FIRST_FRAME], 0);
    }
}

static void
measure (GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum, int *natural,
         int *minimum_baseline, int *natural_baseline)
{
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 300 : 150;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 1000 : 500;
}

static gboolean
on_scroll (GtkEventControllerScroll *ctl, double dx, double dy, gpointer data)
{
  PfprofTimelineWidget *self = data;
  GdkModifierType mods = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (ctl));

  if (self->timeline == NULL)
    return FALSE;
  if (mods & GDK_CONTROL_MASK)
    {
      /* Zoom around the pointer: the time under it stays put. */
      pfprof_timeline_widget_zoom (self, pow (1.2, dy), pointer_time (self));
      return TRUE;
    }
  if (mods & GDK_SHIFT_MASK)
    {
      dx += dy;
      dy = 0;
    }
  if (dx != 0)
    pan_px (self, dx * 40);
  if (dy != 0)
    {
      self->view.scroll_y += dy * 40;
      clamp_scroll (self);
      changed (self);
    }
  return TRUE;
}

static void
on_motion (GtkEventControllerMotion *ctl, double x, double y, gpointer data)
{
  PfprofTimelineWidget *self = data;

  self->pointer_x = x;
  self->pointer_y = y;
}

static void
on_drag_begin (GtkGestureDrag *gesture, double x, double y, gpointer data)
{
  PfprofTimelineWidget *self = data;
  GdkModifierType mods = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));

  if (self->timeline == NULL)
    return;
  /* A drag on the time ruler, or with Shift on the rows, selects. */
  self->range_drag = x > self->view.label_width && ((mods & GDK_SHIFT_MASK) != 0 || y < self->view.ruler_height);
  self->dragged = FALSE;
  self->drag_t0 = self->view.t0;
  self->drag_t1 = self->view.t1;
  self->drag_scroll_y = self->view.scroll_y;
  self->drag_anchor_ns = pfprof_renderer_time_at (&self->view, MAX (x, self->view.label_width));
}

static void
on_drag_update (GtkGestureDrag *gesture, double ox, double oy, gpointer data)
{
  PfprofTimelineWidget *self = data;
  double sx, sy;

  if (self->timeline == NULL)
    return;
  gtk_gesture_drag_get_start_point (gesture, &sx, &sy);
  if (fabs (ox) >= 4 || fabs (oy) >= 4)
    self->dragged = TRUE;
  if (self->range_drag)
    {
      gint64 t = pfprof_renderer_time_at (&self->view, MAX (sx + ox, self->view.label_width));

      self->view.range_start = MIN (t, self->drag_anchor_ns);
      self->view.range_end = MAX (t, self->drag_anchor_ns);
      gtk_widget_queue_draw (GTK_WIDGET (self));
      return;
    }
  {
    double npp = (double) (self->drag_t1 - self->drag_t0) / MAX (1.0, self->view.width - self->view.label_width);
    gint64 d = (gint64) llround (-ox * npp);

    self->view.scroll_y = self->drag_scroll_y - oy;
    clamp_scroll (self);
    pfprof_timeline_widget_set_range (self, self->drag_t0 + d, self->drag_t1 + d);
  }
}

void
pfprof_timeline_widget_set_selection (PfprofTimelineWidget *self, gint64 t0, gint64 t1)
{
  g_return_if_fail (PFPROF_IS_TIMELINE_WIDGET (self));

  if (t1 < t0)
    {
      gint64 x = t0;

      t0 = t1;
      t1 = x;
    }
  self->view.range_start = t0;
  self->view.range_end = t1;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[SIGNAL_SELECTION_CHANGED], 0);
}

gboolean
pfprof_timeline_widget_get_selection (PfprofTimelineWidget *self, gint64 *t0, gint64 *t1)
{
  g_return_val_if_fail (PFPROF_IS_TIMELINE_WIDGET (self), FALSE);

  if (self->view.range_end <= self->view.range_start)
    return FALSE;
  if (t0 != NULL)
    *t0 = self->view.range_start;
  if (t1 != NULL)
    *t1 = self->view.range_end;
  return TRUE;
}

static void
clear_selection (PfprofTimelineWidget *self)
{
  if (self->view.range_end > self->view.range_start)
    pfprof_timeline_widget_set_selection (self, 0, 0);
}

gboolean
pfprof_timeline_widget_focus (PfprofTimelineWidget *self)
{
  gint64 a, b;

  g_return_val_if_fail (PFPROF_IS_TIMELINE_WIDGET (self), FALSE);

  if (self->timeline == NULL)
    return FALSE;
  if (!pfprof_timeline_widget_get_selection (self, &a, &b))
    {
      const PfprofTimelineRow *r;
      gint64 pad;

      if (self->view.selected_row < 0
          || (r = pfprof_timeline_get_row (self->timeline, (guint) self->view.selected_row)) == NULL)
        return FALSE;
      pfprof_timeline_event_range (r->trace, self->view.selected_event, &a, &b);
      /* The event with as much again around it. */
      pad = MAX ((b - a) / 2, MIN_SPAN_NS);
      a -= pad;
      b += pad;
    }
  pfprof_timeline_widget_set_range (self, a, b);
  return TRUE;
}

void
pfprof_timeline_widget_add_marker (PfprofTimelineWidget *self, gint64 t0, gint64 t1)
{
  g_return_if_fail (PFPROF_IS_TIMELINE_WIDGET (self));

  PfprofMarker m = { MIN (t0, t1), MAX (t0, t1) };

  g_array_append_val (self->markers, m);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[SIGNAL_MARKERS_CHANGED], 0);
}

void
pfprof_timeline_widget_clear_markers (PfprofTimelineWidget *self)
{
  g_return_if_fail (PFPROF_IS_TIMELINE_WIDGET (self));

  if (self->markers->len == 0)
    return;
  g_array_set_size (self->markers, 0);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[SIGNAL_MARKERS_CHANGED], 0);
}

PfprofTimeline *
pfprof_timeline_widget_get_timeline (PfprofTimelineWidget *self)
{
  g_return_val_if_fail (PFPROF_IS_TIMELINE_WIDGET (self), NULL);

  return self->timeline;
}

const GArray *
pfprof_timeline_widget_get_markers (PfprofTimelineWidget *self)
{
  g_return_val_if_fail (PFPROF_IS_TIMELINE_WIDGET (self), NULL);

  return self->markers;
}

static void
on_drag_end (GtkGestureDrag *gesture, double ox, double oy, gpointer data)
{
  PfprofTimelineWidget *self = data;

  if (self->range_drag)
    {
      self->range_drag = FALSE;
      /* A selection a few pixels wide is a slip, not a measurement. */
      if (fabs (ox) >= 4)
        pfprof_timeline_widget_set_selection (self, self->view.range_start, self->view.range_end);
      else
        pfprof_timeline_widget_set_selection (self, 0, 0);
    }
}

void
pfprof_timeline_widget_select_event (PfprofTimelineWidget *self, int row, PfprofEventRef ref)
{
  const PfprofTimelineRow *r;

  g_return_if_fail (PFPROF_IS_TIMELINE_WIDGET (self));

  self->view.selected_row = row;
  self->view.selected_event = row >= 0 ? ref : PFPROF_EVENT_REF_NONE;
  self->view.link_row = -1;
  if (row >= 0 && self->timeline != NULL && (r = pfprof_timeline_get_row (self->timeline, (guint) row)) != NULL)
    {
      gint64 call = pfprof_timeline_launching_call (self->timeline, r->trace_index, ref);

      if (call >= 0)
        {
          PfprofEventRef cref = PFPROF_EVENT_REF (PFPROF_TABLE_API_CALLS, call);

          self->view.link_row = pfprof_timeline_find_row (self->timeline, r->trace_index, cref);
          pfprof_timeline_event_range (r->trace, cref, &self->view.link_ns, NULL);
        }
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[SIGNAL_EVENT_SELECTED], 0, row, (guint) (row >= 0 ? ref : PFPROF_EVENT_REF_NONE));
}

/* The event under (@x, @y), its row in *@row_out; PFPROF_EVENT_REF_NONE
 * when there is none (a group row, the labels, empty space). */
static PfprofEventRef
event_at (PfprofTimelineWidget *self, double x, double y, int *row_out)
{
  const PfprofTimelineRow *row;
  double npp;
  int r;

  *row_out = -1;
  if (self->timeline == NULL || x <= self->view.label_width)
    return PFPROF_EVENT_REF_NONE;
  r = pfprof_renderer_row_at (self->timeline, &self->view, y);
  if (r < 0)
    return PFPROF_EVENT_REF_NONE;
  row = pfprof_timeline_get_row (self->timeline, (guint) r);
  if (row->is_group)
    return PFPROF_EVENT_REF_NONE;
  *row_out = r;
  npp = (double) (self->view.t1 - self->view.t0) / MAX (1.0, self->view.width - self->view.label_width);
  /* Three pixels either side: sub-pixel events stay clickable. */
  return pfprof_timeline_row_hit (row, pfprof_renderer_time_at (&self->view, x), (gint64) ceil (3 * npp));
}

static void
on_click (GtkGestureClick *gesture, int n_press, double x, double y, gpointer data)
{
  PfprofTimelineWidget *self = data;
  const PfprofTimelineRow *row;
  PfprofEventRef ref;
  int r;

  gtk_widget_grab_focus (GTK_WIDGET (self));
  if (self->timeline == NULL || self->dragged)
    return;
  /* A click in the time area ends the measurement, as in Perfetto. */
  if (x > self->view.label_width)
    clear_selection (self);
  r = pfprof_renderer_row_at (self->timeline, &self->view, y);
  if (r < 0)
    return;
  row = pfprof_timeline_get_row (self->timeline, (guint) r);
  if (row->is_group)
    {
      pfprof_timeline_set_expanded (self->timeline, (guint) r, !row->expanded);
      clamp_scroll (self);
      changed (self);
      return;
    }
  if (x > self->view.label_width)
    {
      ref = event_at (self, x, y, &r);
      pfprof_timeline_widget_select_event (self, ref == PFPROF_EVENT_REF_NONE ? -1 : r, ref);
    }
}

char *
pfprof_timeline_widget_describe_at (PfprofTimelineWidget *self, double x, double y)
{
  const PfprofTimelineRow *row;
  PfprofEventRef ref;
  gint64 start, end;
  int r;
  g_autofree char *name = NULL;
  g_autofree char *dur = NULL;
  g_autofree char *text = NULL;

  g_return_val_if_fail (PFPROF_IS_TIMELINE_WIDGET (self), NULL);

  ref = event_at (self, x, y, &r);
  if (ref == PFPROF_EVENT_REF_NONE)
    return NULL;
  row = pfprof_timeline_get_row (self->timeline, (guint) r);
  name = pfprof_renderer_event_label (row, ref);
  pfprof_timeline_event_range (row->trace, ref, &start, &end);
  dur = pfprof_format_ns (end - start);
  text = g_strdup_printf ("%s\n%s \u00b7 %s", name, dur, row->label);
  /* Names come from the program: valid UTF-8, and set as plain text. */
  return g_utf8_make_valid (text, -1);
}

static gboolean
on_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip, gpointer data)
{
  g_autofree char *text = NULL;

  if (keyboard)
    return FALSE;
  text = pfprof_timeline_widget_describe_at (PFPROF_TIMELINE_WIDGET (widget), x, y);
  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

static void
on_zoom_begin (GtkGesture *gesture, GdkEventSequence *seq, gpointer data)
{
  PfprofTimelineWidget *self = data;

  self->zoom_gesture_t0 = self->view.t0;
  self->zoom_gesture_t1 = self->view.t1;
}

static void
on_zoom_scale (GtkGestureZoom *gesture, double scale, gpointer data)
{
  PfprofTimelineWidget *self = data;
  double cx, cy;
  gint64 center;
  double span;

  if (self->timeline == NULL || scale <= 0)
    return;
  /* Zoom around the fingers; a pinch without touch points (a touchpad's,
   * or one driven through the signals) zooms around the pointer. */
  if (!gtk_gesture_is_recognized (GTK_GESTURE (gesture))
      || !gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &cx, &cy))
    {
      cx = self->pointer_x;
      cy = self->pointer_y;
    }
  center = pfprof_renderer_time_at (&self->view, MAX (cx, self->view.label_width));
  span = (double) (self->zoom_gesture_t1 - self->zoom_gesture_t0) / scale;
  {
    double frac = (double) (center - self->view.t0) / (double) MAX (1, self->view.t1 - self->view.t0);
    gint64 t0 = center - (gint64) (frac * span);

    pfprof_timeline_widget_set_range (self, t0, t0 + (gint64) span);
  }
}

static gboolean
on_key (GtkEventControllerKey *ctl, guint keyval, guint keycode, GdkModifierType state, gpointer data)
{
  PfprofTimelineWidget *self = data;
  gint64 center = self->view.t0 + (self->view.t1 - self->view.t0) / 2;

  if (self->timeline == NULL || (state & (GDK_CONTROL_MASK | GDK_ALT_MASK)))
    return FALSE;
  /* Zoom around the pointer when it is over the timeline. */
  if (self->pointer_x > self->view.label_width)
    center = pointer_time (self);
  switch (keyval)
    {
    case GDK_KEY_w:
    case GDK_KEY_W:
      pfprof_timeline_widget_zoom (self, 0.7, center);
      return TRUE;
    case GDK_KEY_s:
    case GDK_KEY_S:
      pfprof_timeline_widget_zoom (self, 1 / 0.7, center);
      return TRUE;
    case GDK_KEY_a:
    case GDK_KEY_A:
    case GDK_KEY_Left:
      pan_px (self, -(self->view.width - self->view.label_width) / 5);
      return TRUE;
    case GDK_KEY_d:
    case GDK_KEY_D:
    case GDK_KEY_Right:
      pan_px (self, (self->view.width - self->view.label_width) / 5);
      return TRUE;
    case GDK_KEY_Up:
    case GDK_KEY_Down:
      self->view.scroll_y += keyval == GDK_KEY_Up ? -40 : 40;
      clamp_scroll (self);
      changed (self);
      return TRUE;
    case GDK_KEY_f:
    case GDK_KEY_F:
    case GDK_KEY_z:
    case GDK_KEY_Z:
      /* Perfetto's F: focus the selection (or the selected event). */
      pfprof_timeline_widget_focus (self);
      return TRUE;
    case GDK_KEY_0:
    case GDK_KEY_KP_0:
      pfprof_timeline_widget_fit_all (self);
      return TRUE;
    case GDK_KEY_M:
      /* Shift+M: every marker away. */
      pfprof_timeline_widget_clear_markers (self);
      return TRUE;
    case GDK_KEY_m:
      {
        gint64 a, b;

        /* The selection, else the instant under the pointer. */
        if (!pfprof_timeline_widget_get_selection (self, &a, &b))
          {
            if (self->pointer_x <= self->view.label_width)
              return TRUE;
            a = b = pointer_time (self);
          }
        pfprof_timeline_widget_add_marker (self, a, b);
        return TRUE;
      }
    case GDK_KEY_Escape:
      clear_selection (self);
      pfprof_timeline_widget_select_event (self, -1, PFPROF_EVENT_REF_NONE);
      return TRUE;
    default:
      return FALSE;
    }
}

static void
pfprof_timeline_widget_finalize (GObject *object)
{
  g_clear_pointer (&PFPROF_TIMELINE_WIDGET (object)->markers, g_array_unref);
  G_OBJECT_CLASS (pfprof_timeline_widget_parent_class)->finalize (object);
}

static void
pfprof_timeline_widget_class_init (PfprofTimelineWidgetClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  widget_class->snapshot = snapshot;
  widget_class->measure = measure;
  signals[SIGNAL_EVENT_SELECTED] = g_signal_new ("event-selected", G_TYPE_FROM_CLASS (klass),
                                                 G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                 G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_UINT);
  signals[SIGNAL_VIEW_CHANGED] = g_signal_new ("view-changed", G_TYPE_FROM_CLASS (klass),
                                               G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_FIRST_FRAME] = g_signal_new ("first-frame", G_TYPE_FROM_CLASS (klass),
                                              G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_SELECTION_CHANGED] = g_signal_new ("selection-changed", G_TYPE_FROM_CLASS (klass),
                                                    G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_MARKERS_CHANGED] = g_signal_new ("markers-changed", G_TYPE_FROM_CLASS (klass),
                                                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_TIMELINE_CHANGED] = g_signal_new ("timeline-changed", G_TYPE_FROM_CLASS (klass),
                                                   G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  G_OBJECT_CLASS (klass)->finalize = pfprof_timeline_widget_finalize;
}

static void
pfprof_timeline_widget_init (PfprofTimelineWidget *self)
{
  GtkEventController *ctl;
  GtkGesture *g;

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
  self->view.selected_finding = -1;
  self->view.selected_evidence = -1;
  self->view.selected_row = -1;
  self->view.link_row = -1;
  self->view.focus_row = -1;
  self->view.selected_event = PFPROF_EVENT_REF_NONE;
  self->markers = g_array_new (FALSE, FALSE, sizeof (PfprofMarker));

  ctl = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect (ctl, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self), ctl);

  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (on_query_tooltip), NULL);

  ctl = gtk_event_controller_motion_new ();
  g_signal_connect (ctl, "motion", G_CALLBACK (on_motion), self);
  gtk_widget_add_controller (GTK_WIDGET (self), ctl);

  g = gtk_gesture_drag_new ();
  g_signal_connect (g, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (g, "drag-update", G_CALLBACK (on_drag_update), self);
  g_signal_connect (g, "drag-end", G_CALLBACK (on_drag_end), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (g));

  g = gtk_gesture_click_new ();
  g_signal_connect (g, "released", G_CALLBACK (on_click), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (g));

  g = gtk_gesture_zoom_new ();
  g_signal_connect (g, "begin", G_CALLBACK (on_zoom_begin), self);
  g_signal_connect (g, "scale-changed", G_CALLBACK (on_zoom_scale), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (g));

  ctl = gtk_event_controller_key_new ();
  g_signal_connect (ctl, "key-pressed", G_CALLBACK (on_key), self);
  gtk_widget_add_controller (GTK_WIDGET (self), ctl);
}

GtkWidget *
pfprof_timeline_widget_new (void)
{
  return g_object_new (PFPROF_TYPE_TIMELINE_WIDGET, NULL);
}

void
pfprof_timeline_widget_set_timeline (PfprofTimelineWidget *self, PfprofTimeline *timeline)
{
  g_return_if_fail (PFPROF_IS_TIMELINE_WIDGET (self));

  gboolean dark = self->view.dark;

  self->timeline = timeline;
  self->first_frame_sent = FALSE;
  self->view.range_start = self->view.range_end = 0;
  g_array_set_size (self->markers, 0);
  if (timeline != NULL)
    {
      pfprof_render_view_init (&self->view, timeline, MAX (gtk_widget_get_width (GTK_WIDGET (self)), 1),
                               MAX (gtk_widget_get_height (GTK_WIDGET (self)), 1));
      self->view.dark = dark;
    }
  changed (self);
  g_signal_emit (self, signals[SIGNAL_TIMELINE_CHANGED], 0);
  g_signal_emit (self, signals[SIGNAL_SELECTION_CHANGED], 0);
  g_signal_emit (self, signals[SIGNAL_MARKERS_CHANGED], 0);
}

const PfprofRenderView *
pfprof_timeline_widget_get_view (PfprofTimelineWidget *self)
{
  g_return_val_if_fail (PFPROF_IS_TIMELINE_WIDGET (self), NULL);

  return &self->view;
}

void
pfprof_timeline_widget_select_finding (PfprofTimelineWidget *self, int finding, int evidence)
{
  g_return_if_fail (PFPROF_IS_TIMELINE_WIDGET (self));

  self->view.selected_finding = finding;
  self->view.selected_evidence = evidence;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
pfprof_timeline_widget_set_focus (PfprofTimelineWidget *self, int row, gint64 start, gint64 end)
{
  g_return_if_fail (PFPROF_IS_TIMELINE_WIDGET (self));

  self->view.focus_row = row;
  self->view.focus_start = start;
  self->view.focus_end = end;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
pfprof_timeline_widget_scroll_to_row (PfprofTimelineWidget *self, int row)
{
  double y, h, top, bottom;

  g_return_if_fail (PFPROF_IS_TIMELINE_WIDGET (self));

  if (self->timeline == NULL || row < 0)
    return;
  /* Open the groups around it first. */
  for (int p = pfprof_timeline_get_row (self->timeline, (guint) row)->parent; p >= 0;
       p = pfprof_timeline_get_row (self->timeline, (guint) p)->parent)
    pfprof_timeline_set_expanded (self->timeline, (guint) p, TRUE);
  y = pfprof_renderer_row_y (self->timeline, &self->view, (guint) row);
  if (y < 0 && !pfprof_renderer_row_shown (self->timeline, &self->view, (guint) row))
    return;
  h = pfprof_renderer_row_height (self->timeline, &self->view, (guint) row);
  top = self->view.ruler_height;
  bottom = self->view.height - self->view.legend_height;
  if (y < top)
    self->view.scroll_y -= top - y + 4;
  else if (y + h > bottom)
    self->view.scroll_y += y + h - bottom + 4;
  clamp_scroll (self);
  changed (self);
}

void
pfprof_timeline_widget_set_dark (PfprofTimelineWidget *self, gboolean dark)
{
  g_return_if_fail (PFPROF_IS_TIMELINE_WIDGET (self));

  self->view.dark = dark;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gint64
pfprof_timeline_widget_last_draw_us (PfprofTimelineWidget *self)
{
  g_return_val_if_fail (PFPROF_IS_TIMELINE_WIDGET (self), 0);

  return self->last_draw_us;
}

gint64
pfprof_timeline_widget_last_draw_cpu_us (PfprofTimelineWidget *self)
{
  g_return_val_if_fail (PFPROF_IS_TIMELINE_WIDGET (self), 0);

  return self->last_draw_cpu_us;
}

guint
pfprof_timeline_widget_n_frames (PfprofTimelineWidget *self)
{
  g_return_val_if_fail (PFPROF_IS_TIMELINE_WIDGET (self), 0);

  return self->n_frames;
}
