/* SPDX-License-Identifier: MIT */
/* pfprof-measure-bar.c: the measurement line under the timeline. */
#include "pfprof-measure-bar.h"

#include "pfprof-measure.h"

struct _PfprofMeasureBar
{
  GtkBox parent_instance;

  GtkLabel *label;
  PfprofTimelineWidget *timeline;
  /* The last interval measured: a marker added leaves it as it was. */
  const PfprofTimeline *measured;
  PfprofMeasure measure;
};

G_DEFINE_FINAL_TYPE (PfprofMeasureBar, pfprof_measure_bar, GTK_TYPE_BOX)

static void
update (PfprofMeasureBar *self)
{
  const PfprofTimeline *tl = pfprof_timeline_widget_get_timeline (self->timeline);
  const GArray *markers = pfprof_timeline_widget_get_markers (self->timeline);
  g_autoptr (GString) text = g_string_new ("");
  gint64 t0, t1;

  if (tl != NULL && pfprof_timeline_widget_get_selection (self->timeline, &t0, &t1))
    {
      g_autofree char *line = NULL;

      if (tl != self->measured || t0 != self->measure.t0 || t1 != self->measure.t1)
        {
          pfprof_measure_compute (tl, t0, t1, &self->measure);
          self->measured = tl;
        }
      line = pfprof_measure_describe (&self->measure, pfprof_timeline_widget_get_view (self->timeline)->origin_ns);
      g_string_append (text, line);
      g_string_append (text, "  (F focuses, M marks, Escape clears)");
    }
  if (markers != NULL && markers->len > 0)
    g_string_append_printf (text, "%s%u marker%s", text->len > 0 ? "   |   " : "", markers->len,
                            markers->len == 1 ? "" : "s");
  gtk_label_set_text (self->label, text->str);
  gtk_widget_set_visible (GTK_WIDGET (self), text->len > 0);
}

static void
on_changed (PfprofTimelineWidget *tw, gpointer data)
{
  update (data);
}

/* Another timeline may live where the last one did. */
static void
on_timeline_changed (PfprofTimelineWidget *tw, gpointer data)
{
  PFPROF_MEASURE_BAR (data)->measured = NULL;
}

void
pfprof_measure_bar_set_timeline_widget (PfprofMeasureBar *self, PfprofTimelineWidget *timeline)
{
  g_return_if_fail (PFPROF_IS_TIMELINE_WIDGET (timeline));
  g_return_if_fail (PFPROF_IS_MEASURE_BAR (self));

  g_set_weak_pointer (&self->timeline, timeline);
  g_signal_connect_object (timeline, "timeline-changed", G_CALLBACK (on_timeline_changed), self, 0);
  g_signal_connect_object (timeline, "selection-changed", G_CALLBACK (on_changed), self, 0);
  g_signal_connect_object (timeline, "markers-changed", G_CALLBACK (on_changed), self, 0);
  update (self);
}

const char *
pfprof_measure_bar_get_text (PfprofMeasureBar *self)
{
  g_return_val_if_fail (PFPROF_IS_MEASURE_BAR (self), NULL);

  return gtk_label_get_text (self->label);
}

static void
pfprof_measure_bar_dispose (GObject *object)
{
  PfprofMeasureBar *self = PFPROF_MEASURE_BAR (object);

  if (self->timeline != NULL)
    g_signal_handlers_disconnect_by_data (self->timeline, self);
  g_clear_weak_pointer (&self->timeline);
  G_OBJECT_CLASS (pfprof_measure_bar_parent_class)->dispose (object);
}

static void
pfprof_measure_bar_class_init (PfprofMeasureBarClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = pfprof_measure_bar_dispose;
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "pfprof-measure-bar");
}

static void
pfprof_measure_bar_init (PfprofMeasureBar *self)
{
  self->label = GTK_LABEL (gtk_label_new (""));
  gtk_label_set_xalign (self->label, 0);
  gtk_label_set_selectable (self->label, TRUE);
  gtk_label_set_wrap (self->label, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->label), "pfprof-summary");
  gtk_box_append (GTK_BOX (self), GTK_WIDGET (self->label));
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}

GtkWidget *
pfprof_measure_bar_new (void)
{
  return g_object_new (PFPROF_TYPE_MEASURE_BAR, NULL);
}
