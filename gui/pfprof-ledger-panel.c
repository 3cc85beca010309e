/* SPDX-License-Identifier: MIT */
/* pfprof-ledger-panel.c: the step ledger (pfprof-ledger-panel.h). */
#include "pfprof-ledger-panel.h"

#include "pfprof-format.h"
#include "pfprof-report.h"

struct _PfprofLedgerPanel
{
  GtkBox parent_instance;

  /* From the template. */
  GtkLabel *headline;
  GtkGrid *grid;
  GtkLabel *note;

  const PfprofAnalysis *analysis; /* borrowed */
  const PfprofFinding *finding;   /* borrowed, or NULL */
  GString *text;                  /* pfprof_ledger_panel_get_text() */
};

G_DEFINE_FINAL_TYPE (PfprofLedgerPanel, pfprof_ledger_panel, GTK_TYPE_BOX)

static void
cell (PfprofLedgerPanel *self, const char *text, int col, int row, gboolean right, gboolean bold)
{
  GtkWidget *l = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (l), right ? 1 : 0);
  if (bold)
    gtk_widget_add_css_class (l, "heading");
  gtk_grid_attach (self->grid, l, col, row, 1, 1);
  g_string_append (self->text, col == 0 ? "" : "\t");
  g_string_append (self->text, text);
}

static void
rebuild (PfprofLedgerPanel *self)
{
  const PfprofAnalysis *a = self->analysis;
  const PfprofLedgerSummary *l = a != NULL ? &a->ledger : NULL;
  GtkWidget *child;
  int row = 1;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->grid))) != NULL)
    gtk_grid_remove (self->grid, child);
  g_string_truncate (self->text, 0);
  if (l == NULL || l->n_steps == 0 || l->mean_step_ns <= 0)
    {
      gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
      return;
    }
  {
    g_autofree char *s_rate = pfprof_format_double (1e9 / (double) l->mean_step_ns, 1);
    g_autofree char *s_mean = pfprof_format_ns (l->mean_step_ns);
    g_autofree char *s_med = pfprof_format_ns (l->median_step_ns);
    g_autofree char *line = g_strdup_printf ("GPU side of %u steady steps: %s steps/s; mean step %s, "
                                             "median step %s. Each instant counts once, in the first "
                                             "bucket that claims it.",
                                             l->n_steps, s_rate, s_mean, s_med);

    gtk_label_set_text (self->headline, line);
    g_string_append_printf (self->text, "%s\n", line);
  }
  /* The header row is the grid's, not the text's. */
  {
    static const char *const head[] = { "", "mean", "share", "median" };

    for (int c = 0; c < 4; c++)
      {
        GtkWidget *h = gtk_label_new (head[c]);

        gtk_label_set_xalign (GTK_LABEL (h), c == 0 ? 0 : 1);
        gtk_widget_add_css_class (h, "dim-label");
        gtk_grid_attach (self->grid, h, c, 0, 1, 1);
      }
  }
  for (guint b = 0; b < PFPROF_LEDGER_N_BUCKETS; b++)
    {
      g_autofree char *v_mean = NULL, *v_share = NULL, *v_pct = NULL, *v_med = NULL;
      gboolean marked = self->finding != NULL && (self->finding->buckets & PFPROF_LEDGER_BIT (b));

      /* Under a microsecond on both bases: left out, as in the report. */
      if (l->mean_ns[b] < 1000 && l->median_ns[b] < 1000)
        continue;
      v_mean = pfprof_format_ns (l->mean_ns[b]);
      v_pct = pfprof_format_double (100.0 * (double) l->mean_ns[b] / (double) l->mean_step_ns, 1);
      v_share = g_strconcat (v_pct, "%", NULL);
      v_med = pfprof_format_ns (l->median_ns[b]);
      cell (self, pfprof_ledger_bucket_label ((PfprofLedgerBucket) b), 0, row, FALSE, marked);
      cell (self, v_mean, 1, row, TRUE, marked);
      cell (self, v_share, 2, row, TRUE, marked);
      cell (self, v_med, 3, row, TRUE, marked);
      g_string_append (self->text, marked ? "\t*\n" : "\n");
      row++;
    }
  {
    g_autofree char *note = NULL;

    if (self->finding != NULL)
      {
        g_autofree char *saving = pfprof_report_saving (self->finding);

        note = g_strdup_printf ("%s %s%s.", self->finding->rule, saving,
                                self->finding->buckets != 0 ? "; the buckets it draws on in bold" : "");
      }
    else if (a->trace_summaries->len == 1)
      {
        const PfprofTraceSummary *ts = &g_array_index (a->trace_summaries, PfprofTraceSummary, 0);

        if (ts->predicted_step_ns > 0 && ts->predicted_step_ns < l->mean_step_ns)
          {
            g_autofree char *s_all = pfprof_format_ns (ts->predicted_step_ns);
            g_autofree char *s_pct = pfprof_format_double (
              100.0 * (double) (l->mean_step_ns - ts->predicted_step_ns) / (double) l->mean_step_ns, 1);

            note = g_strdup_printf ("With every fix: ~%s per step (\u2212%s%%), savings that draw on the "
                                    "same bucket counted once. Savings are per mean step.",
                                    s_all, s_pct);
          }
      }
    if (note == NULL)
      note = g_strdup ("\"median\": the ledger of the step of median length.");
    gtk_label_set_text (self->note, note);
    g_string_append (self->text, note);
  }
  gtk_widget_set_visible (GTK_WIDGET (self), TRUE);
}

void
pfprof_ledger_panel_set_analysis (PfprofLedgerPanel *self, const PfprofAnalysis *analysis)
{
  g_return_if_fail (PFPROF_IS_LEDGER_PANEL (self));

  self->analysis = analysis;
  self->finding = NULL;
  rebuild (self);
}

void
pfprof_ledger_panel_set_finding (PfprofLedgerPanel *self, const PfprofFinding *finding)
{
  g_return_if_fail (PFPROF_IS_LEDGER_PANEL (self));

  self->finding = finding;
  rebuild (self);
}

char *
pfprof_ledger_panel_get_text (PfprofLedgerPanel *self)
{
  g_return_val_if_fail (PFPROF_IS_LEDGER_PANEL (self), NULL);

  return g_strdup (self->text->str);
}

static void
pfprof_ledger_panel_finalize (GObject *object)
{
  PfprofLedgerPanel *self = PFPROF_LEDGER_PANEL (object);

  g_string_free (self->text, TRUE);
  G_OBJECT_CLASS (pfprof_ledger_panel_parent_class)->finalize (object);
}

static void
pfprof_ledger_panel_class_init (PfprofLedgerPanelClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = pfprof_ledger_panel_finalize;
  gtk_widget_class_set_template_from_resource (widget_class, "/org/pfprof/View/pfprof-ledger-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, PfprofLedgerPanel, headline);
  gtk_widget_class_bind_template_child (widget_class, PfprofLedgerPanel, grid);
  gtk_widget_class_bind_template_child (widget_class, PfprofLedgerPanel, note);
}

static void
pfprof_ledger_panel_init (PfprofLedgerPanel *self)
{
  self->text = g_string_new ("");
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
pfprof_ledger_panel_new (void)
{
  return g_object_new (PFPROF_TYPE_LEDGER_PANEL, NULL);
}
