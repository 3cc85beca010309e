/* SPDX-License-Identifier: MIT */
/* pfprof-summary-bar.c: the summary line above the timeline. */
#include "pfprof-summary-bar.h"

#include <math.h>

#include "pfprof-format.h"
#include "pfprof-quantile.h"
#include "pfprof-report.h"

struct _PfprofSummaryBar
{
  GtkBox parent_instance;

  GtkLabel *label;
};

G_DEFINE_FINAL_TYPE (PfprofSummaryBar, pfprof_summary_bar, GTK_TYPE_BOX)

/* The median of the gint64 at @offset in the steps of trace
 * @trace_index after warm-up, or -1 when there is none; computed where
 * the reports compute theirs, so both show the same. */
static gint64
median_of (GArray *steps, guint trace_index, gsize offset)
{
  g_autoptr (GArray) v = g_array_new (FALSE, FALSE, sizeof (gint64));

  for (guint i = 0; steps != NULL && i < steps->len; i++)
    {
      const PfprofStep *s = &g_array_index (steps, PfprofStep, i);

      if (pfprof_step_is_steady (s) && s->trace_index == trace_index)
        g_array_append_val (v, *(const gint64 *) ((const char *) s + offset));
    }
  if (v->len == 0)
    return -1;
  return pfprof_quantile_median_i64 ((gint64 *) v->data, v->len);
}

/* GPUs the line names. */
#define SUMMARY_MAX_DEVICES 8

void
pfprof_summary_bar_set_analysis (PfprofSummaryBar *self, const PfprofAnalysis *a)
{
  g_return_if_fail (PFPROF_IS_SUMMARY_BAR (self));
  g_return_if_fail (a != NULL);

  g_autoptr (GString) s = g_string_new ("");

  g_return_if_fail (PFPROF_IS_SUMMARY_BAR (self));
  g_return_if_fail (a != NULL);

  guint n_devices = a->devices != NULL ? a->devices->len : 0;

  /* One line: the first few GPUs, and how many more. A trace may name
   * thousands, and a label's natural width grows with its text: the
   * window sized to it failed (an X BadAlloc) or hit GSK's texture limit. */
  for (guint i = 0; i < MIN (n_devices, SUMMARY_MAX_DEVICES); i++)
    {
      const PfprofDeviceSummary *d = &g_array_index (a->devices, PfprofDeviceSummary, i);
      gint64 exposed = median_of (a->steps, d->trace_index, G_STRUCT_OFFSET (PfprofStep, copy_exposed_ns));
      gint64 idle = median_of (a->steps, d->trace_index, G_STRUCT_OFFSET (PfprofStep, idle_ns));

      if (s->len > 0)
        g_string_append (s, "   |   ");
      if (a->traces->len > 1)
        g_string_append_printf (s, "Process %" G_GINT64_FORMAT " ",
                                ((PfprofTrace *) g_ptr_array_index (a->traces, d->trace_index))->pid);
      /* NaN: no host-to-device copies to overlap (the HTML report's n/a). */
      if (isnan (d->overlap_fraction))
        g_string_append_printf (s, "GPU %u: copy/compute overlap n/a", d->device_id);
      else
        g_string_append_printf (s, "GPU %u: copy/compute overlap %.0f%%", d->device_id,
                                d->overlap_fraction * 100);
      if (exposed >= 0)
        {
          g_autofree char *e = pfprof_format_ns (exposed);
          g_autofree char *l = pfprof_format_ns (idle);

          /* Medians of each part over the steady steps, as the reports'
           * step line gives them, named so. */
          g_string_append_printf (s, " \u00b7 median exposed copy %s \u00b7 median GPU idle %s", e, l);
        }
    }
  if (n_devices > SUMMARY_MAX_DEVICES)
    g_string_append_printf (s, "   |   and %u more GPUs (in the timeline)", n_devices - SUMMARY_MAX_DEVICES);
  if (a->step_median_ns > 0)
    {
      g_autofree char *m = pfprof_format_ns (a->step_median_ns);

      g_string_append_printf (s, "%smedian step %s (%u steady steps)", s->len ? "   |   " : "", m,
                              a->n_steady_steps);
      if (pfprof_report_host_runs_ahead (a))
        {
          g_autofree char *h = pfprof_format_ns (a->host_step_median_ns);

          /* As the reports' step line: the median above is the GPU's
           * side; the host's steps say little of it. */
          g_string_append_printf (s, " \u00b7 host runs ahead: host median step %s", h);
        }
    }
  else
    g_string_append_printf (s, "%sno training steps detected", s->len ? "   |   " : "");
  gtk_label_set_text (self->label, s->str);
}

void
pfprof_summary_bar_set_text (PfprofSummaryBar *self, const char *text)
{
  g_return_if_fail (text != NULL);
  g_return_if_fail (PFPROF_IS_SUMMARY_BAR (self));

  gtk_label_set_text (self->label, text);
}

const char *
pfprof_summary_bar_get_text (PfprofSummaryBar *self)
{
  g_return_val_if_fail (PFPROF_IS_SUMMARY_BAR (self), NULL);

  return gtk_label_get_text (self->label);
}

static void
pfprof_summary_bar_class_init (PfprofSummaryBarClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/pfprof/View/pfprof-summary-bar.ui");
  gtk_widget_class_bind_template_child (widget_class, PfprofSummaryBar, label);
}

static void
pfprof_summary_bar_init (PfprofSummaryBar *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
pfprof_summary_bar_new (void)
{
  return g_object_new (PFPROF_TYPE_SUMMARY_BAR, NULL);
}
