/* SPDX-License-Identifier: MIT */
/* pfprof-selected-finding.c: the selected finding's message, occurrences
 * and fix. */
#include "pfprof-selected-finding.h"

#include "pfprof-call-sites.h"
#include "pfprof-format.h"
#include "pfprof-report.h"

struct _PfprofSelectedFinding
{
  GtkBox parent_instance;

  GtkLabel *title;
  GtkLabel *message;
  GtkLabel *sites_heading;
  GtkLabel *sites;
  GtkLabel *occurrence;
  GtkTextView *fix;
};

G_DEFINE_FINAL_TYPE (PfprofSelectedFinding, pfprof_selected_finding, GTK_TYPE_BOX)

static void
on_copy (GtkButton *button, PfprofSelectedFinding *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->fix);
  GtkTextIter start, end;
  g_autofree char *text = NULL;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  if (text[0] != '\0')
    gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), text);
}

void
pfprof_selected_finding_set_finding (PfprofSelectedFinding *self, const PfprofFinding *f)
{
  g_return_if_fail (PFPROF_IS_SELECTED_FINDING (self));

  gtk_widget_set_visible (GTK_WIDGET (self), f != NULL);
  if (f == NULL)
    return;
  /* Trace-derived text goes through set_text: never parsed as markup. */
  gtk_label_set_text (self->title, f->title ? f->title : f->rule);
  gtk_label_set_text (self->message, f->message ? f->message : "");
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->fix), f->fix ? f->fix : "", -1);
  {
    g_autoptr (GString) s = g_string_new ("");
    gboolean withheld = FALSE;

    for (guint i = 0; f->sites != NULL && i < f->sites->len; i++)
      {
        const PfprofFindingSite *site = &g_array_index (f->sites, PfprofFindingSite, i);
        g_autofree char *line = pfprof_call_site_summary (site);
        g_autofree char *clean = g_utf8_make_valid (line, -1);

        g_string_append_printf (s, "%s%s", s->len ? "\n" : "", clean);
        withheld |= site->source_withheld;
      }
    /* Said once, under the sites it concerns. */
    if (withheld)
      g_string_append (s, "\nSource text not shown for files outside the folder pfprof-view runs in "
                          "(or not Python files): PFPROF_SOURCE_LINES=always shows it.");
    gtk_label_set_text (self->sites, s->str);
    gtk_widget_set_visible (GTK_WIDGET (self->sites_heading), s->len > 0);
    gtk_widget_set_visible (GTK_WIDGET (self->sites), s->len > 0);
  }
}

void
pfprof_selected_finding_set_occurrence (PfprofSelectedFinding *self, int n, guint total, gboolean by_time,
                                        gint64 cost_ns, gint64 finding_ns)
{
  g_autofree char *cost = NULL;
  g_autofree char *text = NULL;

  g_return_if_fail (PFPROF_IS_SELECTED_FINDING (self));

  if (n < 0)
    {
      gtk_label_set_text (self->occurrence, "No occurrence on the timeline");
      return;
    }
  cost = pfprof_report_figure_share (cost_ns, finding_ns);
  text = g_strdup_printf ("Occurrence %d of %u, %s \u00b7 %s", n + 1, total,
                          by_time ? "in time order" : "costliest first", cost);
  gtk_label_set_text (self->occurrence, text);
}

const char *
pfprof_selected_finding_get_occurrence_text (PfprofSelectedFinding *self)
{
  g_return_val_if_fail (PFPROF_IS_SELECTED_FINDING (self), NULL);

  return gtk_label_get_text (self->occurrence);
}

const char *
pfprof_selected_finding_get_sites_text (PfprofSelectedFinding *self)
{
  g_return_val_if_fail (PFPROF_IS_SELECTED_FINDING (self), NULL);

  return gtk_widget_get_visible (GTK_WIDGET (self->sites)) ? gtk_label_get_text (self->sites) : "";
}

GtkTextView *
pfprof_selected_finding_get_fix_view (PfprofSelectedFinding *self)
{
  g_return_val_if_fail (PFPROF_IS_SELECTED_FINDING (self), NULL);

  return self->fix;
}

static void
pfprof_selected_finding_class_init (PfprofSelectedFindingClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/pfprof/View/pfprof-selected-finding.ui");
  gtk_widget_class_bind_template_child (widget_class, PfprofSelectedFinding, title);
  gtk_widget_class_bind_template_child (widget_class, PfprofSelectedFinding, message);
  gtk_widget_class_bind_template_child (widget_class, PfprofSelectedFinding, sites_heading);
  gtk_widget_class_bind_template_child (widget_class, PfprofSelectedFinding, sites);
  gtk_widget_class_bind_template_child (widget_class, PfprofSelectedFinding, occurrence);
  gtk_widget_class_bind_template_child (widget_class, PfprofSelectedFinding, fix);
  gtk_widget_class_bind_template_callback (widget_class, on_copy);
}

static void
pfprof_selected_finding_init (PfprofSelectedFinding *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
pfprof_selected_finding_new (void)
{
  return g_object_new (PFPROF_TYPE_SELECTED_FINDING, NULL);
}
