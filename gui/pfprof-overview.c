/* SPDX-License-Identifier: MIT */
/* pfprof-overview.c: the overview strip, with the selected finding's
 * occurrences marked along it. */
#include "pfprof-overview.h"

#include <math.h>
#include <string.h>

struct _PfprofOverview
{
  GtkDrawingArea parent_instance;

  PfprofTimelineWidget *timeline_widget;
  PfprofTimeline *timeline;
  cairo_surface_t *cache;
  int cache_w, cache_h;
  /* The selected finding's occurrences, and the columns they mark at
   * marks_w px (computed once per width: a finding can have a million). */
  const GArray *occurrences;
  PfprofEvidence current;
  gboolean has_current;
  PfprofSeverity severity;
  guint8 *marks;
  int marks_w;
};

G_DEFINE_FINAL_TYPE (PfprofOverview, pfprof_overview, GTK_TYPE_DRAWING_AREA)

static void
compute_marks (PfprofOverview *self, int w)
{
  PfprofRenderView view;

  g_clear_pointer (&self->marks, g_free);
  self->marks_w = w;
  if (self->occurrences == NULL || self->timeline == NULL || w <= 0)
    return;
  self->marks = g_new0 (guint8, w);
  pfprof_render_view_init (&view, self->timeline, w, 10);
  view.label_width = 0;
  for (guint i = 0; i < self->occurrences->len; i++)
    {
      const PfprofEvidence *e = &g_array_index (self->occurrences, PfprofEvidence, i);
      int x0 = (int) floor (pfprof_renderer_x_of (&view, e->start_ns));
      int x1 = (int) floor (pfprof_renderer_x_of (&view, e->end_ns));

      x0 = CLAMP (x0, 0, w - 1);
      x1 = CLAMP (x1, x0, w - 1);
      memset (self->marks + x0, 1, (size_t) (x1 - x0 + 1));
    }
}

/* The occurrences: a band along the bottom, one run of columns at a time,
 * and the one in focus as a line across the strip. */
static void
draw_marks (PfprofOverview *self, cairo_t *cr, int w, int h)
{
  double rgb[3];
  PfprofRenderView view;

  if (self->occurrences == NULL)
    return;
  if (self->marks_w != w)
    compute_marks (self, w);
  if (self->marks == NULL)
    return;
  pfprof_renderer_severity_color (self->severity, rgb);
  cairo_set_source_rgba (cr, rgb[0], rgb[1], rgb[2], 0.9);
  for (int x = 0; x < w;)
    {
      int end = x;

      if (!self->marks[x])
        {
          x++;
          continue;
        }
      while (end < w && self->marks[end])
        end++;
      cairo_rectangle (cr, x, h - 8, end - x, 8);
      x = end;
    }
  cairo_fill (cr);
  if (!self->has_current)
    return;
  pfprof_render_view_init (&view, self->timeline, w, h);
  view.label_width = 0;
  {
    double x0 = pfprof_renderer_x_of (&view, self->current.start_ns);
    double x1 = pfprof_renderer_x_of (&view, self->current.end_ns);

    cairo_set_source_rgba (cr, rgb[0], rgb[1], rgb[2], 1);
    cairo_rectangle (cr, floor (x0) - 1, 0, MAX (x1 - x0, 1) + 2, h);
    cairo_fill (cr);
  }
}

static void
draw (GtkDrawingArea *area, cairo_t *cr, int w, int h, gpointer data)
{
  PfprofOverview *self = PFPROF_OVERVIEW (area);
  const PfprofRenderView *main_view;
  PfprofRenderView view;
  double x0, x1;

  if (self->timeline == NULL || self->timeline_widget == NULL)
    return;
  /* The whole trace changes only with the size: draw it once. */
  if (self->cache == NULL || self->cache_w != w || self->cache_h != h)
    {
      cairo_t *ccr;
      double content;

      g_clear_pointer (&self->cache, cairo_surface_destroy);
      self->cache = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
      self->cache_w = w;
      self->cache_h = h;
      pfprof_render_view_init (&view, self->timeline, w, h);
      view.label_width = 0;
      view.ruler_height = 0;
      view.dark = pfprof_timeline_widget_get_view (self->timeline_widget)->dark;
      view.row_scale = 1;
      content = pfprof_renderer_content_height (self->timeline, &view);
      view.row_scale = content > 0 ? MIN (1.0, h / content) : 1;
      ccr = cairo_create (self->cache);
      pfprof_renderer_draw (ccr, self->timeline, &view, NULL);
      cairo_destroy (ccr);
    }
  cairo_set_source_surface (cr, self->cache, 0, 0);
  cairo_paint (cr);
  draw_marks (self, cr, w, h);
  /* The part the timeline shows. */
  main_view = pfprof_timeline_widget_get_view (self->timeline_widget);
  pfprof_render_view_init (&view, self->timeline, w, h);
  view.label_width = 0;
  x0 = pfprof_renderer_x_of (&view, main_view->t0);
  x1 = pfprof_renderer_x_of (&view, main_view->t1);
  if (x1 - x0 < 2)
    x1 = x0 + 2;
  cairo_set_source_rgba (cr, 0.2, 0.45, 0.95, 0.25);
  cairo_rectangle (cr, x0, 0, x1 - x0, h);
  cairo_fill_preserve (cr);
  cairo_set_source_rgba (cr, 0.2, 0.45, 0.95, 0.9);
  cairo_set_line_width (cr, 1.5);
  cairo_stroke (cr);
}

static void
move_to (PfprofOverview *self, double x)
{
  PfprofRenderView view;
  const PfprofRenderView *main_view;
  gint64 center, half;
  int w = gtk_widget_get_width (GTK_WIDGET (self));

  if (self->timeline == NULL || self->timeline_widget == NULL || w <= 0)
    return;
  pfprof_render_view_init (&view, self->timeline, w, 10);
  view.label_width = 0;
  main_view = pfprof_timeline_widget_get_view (self->timeline_widget);
  center = pfprof_renderer_time_at (&view, x);
  half = (main_view->t1 - main_view->t0) / 2;
  pfprof_timeline_widget_set_range (self->timeline_widget, center - half, center + half);
}

static void
on_drag_begin (GtkGestureDrag *g, double x, double y, PfprofOverview *self)
{
  move_to (self, x);
}

static void
on_drag_update (GtkGestureDrag *g, double ox, double oy, PfprofOverview *self)
{
  double sx, sy;

  gtk_gesture_drag_get_start_point (g, &sx, &sy);
  move_to (self, sx + ox);
}

static void
on_view_changed (PfprofTimelineWidget *w, PfprofOverview *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
pfprof_overview_set_timeline_widget (PfprofOverview *self, PfprofTimelineWidget *timeline_widget)
{
  g_return_if_fail (PFPROF_IS_OVERVIEW (self));

  if (self->timeline_widget != NULL)
    g_signal_handlers_disconnect_by_data (self->timeline_widget, self);
  self->timeline_widget = timeline_widget;
  if (timeline_widget != NULL)
    g_signal_connect (timeline_widget, "view-changed", G_CALLBACK (on_view_changed), self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
pfprof_overview_set_timeline (PfprofOverview *self, PfprofTimeline *timeline)
{
  g_return_if_fail (PFPROF_IS_OVERVIEW (self));

  if (self->timeline != timeline)
    pfprof_overview_set_occurrences (self, NULL, NULL, PFPROF_SEVERITY_INFO);
  self->timeline = timeline;
  g_clear_pointer (&self->cache, cairo_surface_destroy);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
pfprof_overview_set_occurrences (PfprofOverview *self, const GArray *occurrences,
                                 const PfprofEvidence *current, PfprofSeverity severity)
{
  g_return_if_fail (PFPROF_IS_OVERVIEW (self));

  if (self->occurrences != occurrences || self->severity != severity)
    {
      g_clear_pointer (&self->marks, g_free);
      self->marks_w = -1;
    }
  self->occurrences = occurrences;
  self->severity = severity;
  self->has_current = current != NULL;
  if (current != NULL)
    self->current = *current;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
pfprof_overview_n_marked_columns (PfprofOverview *self)
{
  g_return_val_if_fail (PFPROF_IS_OVERVIEW (self), 0);

  int w = gtk_widget_get_width (GTK_WIDGET (self));
  guint n = 0;

  g_return_val_if_fail (PFPROF_IS_OVERVIEW (self), 0);

  if (self->marks_w != w)
    compute_marks (self, w);
  for (int x = 0; self->marks != NULL && x < w; x++)
    n += self->marks[x];
  return n;
}

static void
pfprof_overview_dispose (GObject *object)
{
  PfprofOverview *self = PFPROF_OVERVIEW (object);

  pfprof_overview_set_timeline_widget (self, NULL);
  self->timeline = NULL;
  G_OBJECT_CLASS (pfprof_overview_parent_class)->dispose (object);
}

static void
pfprof_overview_finalize (GObject *object)
{
  PfprofOverview *self = PFPROF_OVERVIEW (object);

  g_clear_pointer (&self->cache, cairo_surface_destroy);
  g_clear_pointer (&self->marks, g_free);
  G_OBJECT_CLASS (pfprof_overview_parent_class)->finalize (object);
}

static void
pfprof_overview_class_init (PfprofOverviewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pfprof_overview_dispose;
  object_class->finalize = pfprof_overview_finalize;
  gtk_widget_class_set_template_from_resource (widget_class, "/org/pfprof/View/pfprof-overview.ui");
  gtk_widget_class_bind_template_callback (widget_class, on_drag_begin);
  gtk_widget_class_bind_template_callback (widget_class, on_drag_update);
}

static void
pfprof_overview_init (PfprofOverview *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self), draw, NULL, NULL);
}

GtkWidget *
pfprof_overview_new (void)
{
  return g_object_new (PFPROF_TYPE_OVERVIEW, NULL);
}
