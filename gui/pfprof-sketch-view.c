/* SPDX-License-Identifier: MIT */
/* pfprof-sketch-view.c: the densities of a trace's sketch, one strip a
 * kind. */
#include "pfprof-sketch-view.h"

#include "pfprof-format.h"

#define LABEL_WIDTH 170
#define ROW_HEIGHT 22
#define ROW_GAP 6
#define CAPTION_HEIGHT 28

struct _PfprofSketchView
{
  GtkDrawingArea parent_instance;

  PfprofTraceSketch *sketch;
  gboolean dark;
  guint n_frames;
};

enum
{
  SIGNAL_FIRST_FRAME,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (PfprofSketchView, pfprof_sketch_view, GTK_TYPE_DRAWING_AREA)

static void
draw_text (PfprofSketchView *self, cairo_t *cr, const char *text, double x, double y)
{
  g_autoptr (PangoLayout) layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), text);

  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, layout);
}

static void
draw (GtkDrawingArea *area, cairo_t *cr, int w, int h, gpointer data)
{
  PfprofSketchView *self = PFPROF_SKETCH_VIEW (area);
  const PfprofTraceSketch *sk = self->sketch;
  double fg = self->dark ? 0.9 : 0.15;
  int strip = w - LABEL_WIDTH;

  if (sk == NULL || strip <= 0)
    return;
  {
    g_autofree char *span = pfprof_format_ns (sk->end_ns - sk->start_ns);
    g_autofree char *caption = g_strdup_printf ("Events per interval over %s, from the trace's "
                                                "chunk index; the timeline follows",
                                                span);

    cairo_set_source_rgb (cr, fg, fg, fg);
    draw_text (self, cr, caption, 0, 4);
  }
  for (guint r = 0; r < sk->rows->len; r++)
    {
      const PfprofTraceSketchRow *row = &g_array_index (sk->rows, PfprofTraceSketchRow, r);
      double y = CAPTION_HEIGHT + r * (ROW_HEIGHT + ROW_GAP);
      g_autofree double *bins = g_new (double, strip);
      double max = 0, rgb[3];

      if (y + ROW_HEIGHT > h)
        break;
      cairo_set_source_rgb (cr, fg, fg, fg);
      draw_text (self, cr, row->label, 0, y + 2);
      pfprof_trace_sketch_density (sk, r, sk->start_ns, sk->end_ns + 1, bins, (guint) strip);
      for (int x = 0; x < strip; x++)
        max = MAX (max, bins[x]);
      pfprof_renderer_item_color (row->cls, self->dark, rgb);
      cairo_set_source_rgba (cr, rgb[0], rgb[1], rgb[2], 0.08);
      cairo_rectangle (cr, LABEL_WIDTH, y, strip, ROW_HEIGHT);
      cairo_fill (cr);
      for (int x = 0; x < strip && max > 0; x++)
        if (bins[x] > 0)
          {
            /* Never fainter than a fifth: a stretch with events stays
             * visible beside the busiest. */
            cairo_set_source_rgba (cr, rgb[0], rgb[1], rgb[2], 0.2 + 0.8 * bins[x] / max);
            cairo_rectangle (cr, LABEL_WIDTH + x, y, 1, ROW_HEIGHT);
            cairo_fill (cr);
          }
    }
  if (self->n_frames++ == 0)
    g_signal_emit (self, signals[SIGNAL_FIRST_FRAME], 0);
}

static void
pfprof_sketch_view_finalize (GObject *object)
{
  PfprofSketchView *self = PFPROF_SKETCH_VIEW (object);

  g_clear_pointer (&self->sketch, pfprof_trace_sketch_free);
  G_OBJECT_CLASS (pfprof_sketch_view_parent_class)->finalize (object);
}

static void
pfprof_sketch_view_class_init (PfprofSketchViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = pfprof_sketch_view_finalize;
  signals[SIGNAL_FIRST_FRAME] = g_signal_new ("first-frame", G_TYPE_FROM_CLASS (klass),
                                              G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                              G_TYPE_NONE, 0);
}

static void
pfprof_sketch_view_init (PfprofSketchView *self)
{
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self), draw, NULL, NULL);
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}

GtkWidget *
pfprof_sketch_view_new (void)
{
  return g_object_new (PFPROF_TYPE_SKETCH_VIEW, NULL);
}

void
pfprof_sketch_view_set_sketch (PfprofSketchView *self, PfprofTraceSketch *sketch)
{
  g_return_if_fail (PFPROF_IS_SKETCH_VIEW (self));

  g_clear_pointer (&self->sketch, pfprof_trace_sketch_free);
  self->sketch = sketch;
  self->n_frames = 0;
  if (sketch != NULL)
    gtk_widget_set_size_request (GTK_WIDGET (self), -1,
                                 CAPTION_HEIGHT + (int) sketch->rows->len * (ROW_HEIGHT + ROW_GAP));
  gtk_widget_set_visible (GTK_WIDGET (self), sketch != NULL);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

const PfprofTraceSketch *
pfprof_sketch_view_get_sketch (PfprofSketchView *self)
{
  g_return_val_if_fail (PFPROF_IS_SKETCH_VIEW (self), NULL);

  return self->sketch;
}

guint
pfprof_sketch_view_n_frames (PfprofSketchView *self)
{
  g_return_val_if_fail (PFPROF_IS_SKETCH_VIEW (self), 0);

  return self->n_frames;
}

void
pfprof_sketch_view_set_dark (PfprofSketchView *self, gboolean dark)
{
  g_return_if_fail (PFPROF_IS_SKETCH_VIEW (self));

  self->dark = dark;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}
