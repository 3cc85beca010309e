/* SPDX-License-Identifier: MIT */
/* pfprof-findings-panel.c: the list of findings. */
#include "pfprof-findings-panel.h"

#include "pfprof-report.h"

struct _PfprofFindingsPanel
{
  GtkBox parent_instance;

  GtkListBox *list;

  const PfprofAnalysis *analysis; /* borrowed */
  /* row -> finding index (pfprof_findings_panel_get_finding): the
   * training findings in the analysis's order, largest saving first, then
   * each judged evaluation phase's, as every report lists them. */
  GArray *order;
};

G_DEFINE_FINAL_TYPE (PfprofFindingsPanel, pfprof_findings_panel, GTK_TYPE_BOX)

enum
{
  SIGNAL_FINDING_SELECTED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
on_row_selected (GtkListBox *box, GtkListBoxRow *row, PfprofFindingsPanel *self)
{
  int index = -1;

  if (row != NULL && self->order != NULL && (guint) gtk_list_box_row_get_index (row) < self->order->len)
    index = g_array_index (self->order, int, gtk_list_box_row_get_index (row));
  g_signal_emit (self, signals[SIGNAL_FINDING_SELECTED], 0, index);
}

/* Whether finding index @index is one of analysis->phase_findings. */
static gboolean
is_phase_index (const PfprofAnalysis *a, int index)
{
  return index >= (int) (a->findings != NULL ? a->findings->len : 0);
}

const PfprofFinding *
pfprof_findings_panel_get_finding (PfprofFindingsPanel *self, int index)
{
  const PfprofAnalysis *a;
  guint n;

  g_return_val_if_fail (PFPROF_IS_FINDINGS_PANEL (self), NULL);

  a = self->analysis;
  if (a == NULL || index < 0)
    return NULL;
  n = a->findings != NULL ? a->findings->len : 0;
  if ((guint) index < n)
    return g_ptr_array_index (a->findings, index);
  if (a->phase_findings != NULL && (guint) index - n < a->phase_findings->len)
    return g_ptr_array_index (a->phase_findings, (guint) index - n);
  return NULL;
}

gboolean
pfprof_findings_panel_is_phase_finding (PfprofFindingsPanel *self, int index)
{
  g_return_val_if_fail (PFPROF_IS_FINDINGS_PANEL (self), FALSE);

  return pfprof_findings_panel_get_finding (self, index) != NULL && is_phase_index (self->analysis, index);
}

/* The line under a finding's title: severity, rule, saving, count; a
 * finding of an evaluation phase tagged with it and saving per
 * evaluation batch, as the reports word it (@apart). */
static char *
finding_meta (const PfprofAnalysis *a, const PfprofFinding *f, gboolean apart)
{
  g_autofree char *savings = apart ? pfprof_report_phase_saving (a, f) : pfprof_report_saving (f);
  g_autofree char *tag = apart ? g_strdup_printf ("[%s] ", pfprof_loop_judge_to_string (f->phase)) : NULL;

  return g_strdup_printf ("%s%s \u00b7 %s \u00b7 %s \u00b7 %" G_GUINT64_FORMAT " occurrences", tag ? tag : "",
                          pfprof_severity_to_string (f->severity), f->rule, savings, f->count);
}

/* The heading over an evaluation phase's first row, the report's. */
static void
update_header (GtkListBoxRow *row, GtkListBoxRow *before, gpointer data)
{
  const char *heading = g_object_get_data (G_OBJECT (row), "pfprof-heading");
  GtkWidget *label;

  if (heading == NULL)
    {
      gtk_list_box_row_set_header (row, NULL);
      return;
    }
  label = gtk_label_new (heading);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "heading");
  gtk_widget_set_margin_start (label, 8);
  gtk_widget_set_margin_end (label, 8);
  gtk_widget_set_margin_top (label, 12);
  gtk_widget_set_margin_bottom (label, 4);
  gtk_list_box_row_set_header (row, label);
}

static GtkWidget *
finding_row (const PfprofAnalysis *a, const PfprofFinding *f, gboolean apart)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  /* Trace-derived text goes through set_text: never parsed as markup. */
  GtkWidget *title = gtk_label_new (f->title ? f->title : f->rule);
  g_autofree char *meta = finding_meta (a, f, apart);
  GtkWidget *sub = gtk_label_new (meta);

  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_label_set_wrap (GTK_LABEL (title), TRUE);
  gtk_widget_add_css_class (title, "heading");
  gtk_label_set_xalign (GTK_LABEL (sub), 0);
  gtk_label_set_wrap (GTK_LABEL (sub), TRUE);
  gtk_widget_add_css_class (sub, "dim-label");
  gtk_widget_add_css_class (box, f->severity == PFPROF_SEVERITY_ERROR     ? "pfprof-error"
                                 : f->severity == PFPROF_SEVERITY_WARNING ? "pfprof-warning"
                                                                          : "pfprof-info");
  gtk_widget_set_margin_start (box, 8);
  gtk_widget_set_margin_end (box, 8);
  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);
  gtk_box_append (GTK_BOX (box), title);
  gtk_box_append (GTK_BOX (box), sub);
  return box;
}

void
pfprof_findings_panel_set_analysis (PfprofFindingsPanel *self, const PfprofAnalysis *analysis)
{
  GtkWidget *child;
  g_return_if_fail (PFPROF_IS_FINDINGS_PANEL (self));

  GPtrArray *findings = analysis != NULL ? analysis->findings : NULL;

  g_return_if_fail (PFPROF_IS_FINDINGS_PANEL (self));

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->list))) != NULL)
    gtk_list_box_remove (self->list, child);
  g_clear_pointer (&self->order, g_array_unref);
  self->analysis = analysis;
  if (analysis == NULL)
    return;
  self->order = g_array_new (FALSE, FALSE, sizeof (int));
  for (int i = 0; findings != NULL && i < (int) findings->len; i++)
    g_array_append_val (self->order, i);
  for (guint i = 0; i < self->order->len; i++)
    gtk_list_box_append (self->list, finding_row (analysis, g_ptr_array_index (findings, g_array_index (self->order, int, i)),
                                                  FALSE));
  /* Each evaluation phase judged on its own, after the training
   * findings, under the report's heading: its findings in the report's
   * order. */
  for (guint i = 0; analysis->trace_summaries != NULL && analysis->phase_findings != NULL
                    && i < analysis->trace_summaries->len; i++)
    {
      const PfprofTraceSummary *ts = &g_array_index (analysis->trace_summaries, PfprofTraceSummary, i);
      char *heading;

      if (!ts->eval_judged)
        continue;
      heading = pfprof_report_eval_phase_heading (analysis, ts);
      for (guint j = 0; j < analysis->phase_findings->len; j++)
        {
          const PfprofFinding *f = g_ptr_array_index (analysis->phase_findings, j);
          int index = (int) (findings != NULL ? findings->len : 0) + (int) j;
          GtkListBoxRow *row;

          if (f->trace_index != ts->trace_index)
            continue;
          g_array_append_val (self->order, index);
          gtk_list_box_append (self->list, finding_row (analysis, f, TRUE));
          row = gtk_list_box_get_row_at_index (self->list, (int) self->order->len - 1);
          if (heading != NULL)
            g_object_set_data_full (G_OBJECT (row), "pfprof-heading", g_steal_pointer (&heading), g_free);
        }
      g_free (heading);
    }
  gtk_list_box_invalidate_headers (self->list);
  if (self->order->len == 0)
    {
      GtkWidget *none = gtk_label_new ("No findings: the input pipeline keeps up.");

      gtk_widget_set_margin_top (none, 12);
      gtk_widget_set_margin_bottom (none, 12);
      gtk_list_box_append (self->list, none);
      gtk_list_box_row_set_selectable (gtk_list_box_get_row_at_index (self->list, 0), FALSE);
    }
}

gboolean
pfprof_findings_panel_select (PfprofFindingsPanel *self, guint n)
{
  GtkListBoxRow *row;

  g_return_val_if_fail (PFPROF_IS_FINDINGS_PANEL (self), FALSE);

  if (self->order == NULL || n >= self->order->len)
    return FALSE;
  row = gtk_list_box_get_row_at_index (self->list, (int) n);
  gtk_list_box_select_row (self->list, row);
  /* Focusing the row scrolls the panel to it. */
  gtk_widget_grab_focus (GTK_WIDGET (row));
  return TRUE;
}

int
pfprof_findings_panel_find_rule (PfprofFindingsPanel *self, const char *rule)
{
  g_return_val_if_fail (rule != NULL, -1);
  g_return_val_if_fail (PFPROF_IS_FINDINGS_PANEL (self), -1);

  for (guint i = 0; self->analysis != NULL && self->order != NULL && i < self->order->len; i++)
    {
      const PfprofFinding *f = pfprof_findings_panel_get_finding (self, g_array_index (self->order, int, i));

      if (g_strcmp0 (f->rule, rule) == 0)
        return (int) i;
    }
  return -1;
}

char *
pfprof_findings_panel_dup_rows_text (PfprofFindingsPanel *self)
{
  g_autoptr (GString) s = NULL;

  g_return_val_if_fail (PFPROF_IS_FINDINGS_PANEL (self), NULL);

  s = g_string_new ("");
  for (guint i = 0; self->analysis != NULL && self->order != NULL && i < self->order->len; i++)
    {
      int index = g_array_index (self->order, int, i);
      g_autofree char *meta = finding_meta (self->analysis, pfprof_findings_panel_get_finding (self, index),
                                            is_phase_index (self->analysis, index));

      g_string_append_printf (s, "%s%s", i > 0 ? "\n" : "", meta);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

int
pfprof_findings_panel_index_at (PfprofFindingsPanel *self, guint n)
{
  g_return_val_if_fail (PFPROF_IS_FINDINGS_PANEL (self), -1);

  if (self->order == NULL || n >= self->order->len)
    return -1;
  return g_array_index (self->order, int, n);
}

int
pfprof_findings_panel_row_of (PfprofFindingsPanel *self, int index)
{
  g_return_val_if_fail (PFPROF_IS_FINDINGS_PANEL (self), -1);

  for (guint i = 0; self->order != NULL && i < self->order->len; i++)
    if (g_array_index (self->order, int, i) == index)
      return (int) i;
  return -1;
}

static void
pfprof_findings_panel_finalize (GObject *object)
{
  PfprofFindingsPanel *self = PFPROF_FINDINGS_PANEL (object);

  g_clear_pointer (&self->order, g_array_unref);
  G_OBJECT_CLASS (pfprof_findings_panel_parent_class)->finalize (object);
}

static void
pfprof_findings_panel_class_init (PfprofFindingsPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = pfprof_findings_panel_finalize;
  signals[SIGNAL_FINDING_SELECTED] = g_signal_new ("finding-selected", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                                   0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/pfprof/View/pfprof-findings-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, PfprofFindingsPanel, list);
  gtk_widget_class_bind_template_callback (widget_class, on_row_selected);
}

static void
pfprof_findings_panel_init (PfprofFindingsPanel *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_list_box_set_header_func (self->list, update_header, NULL, NULL);
}

GtkWidget *
pfprof_findings_panel_new (void)
{
  return g_object_new (PFPROF_TYPE_FINDINGS_PANEL, NULL);
}
