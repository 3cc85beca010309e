/* SPDX-License-Identifier: MIT */
/* pfprof-view-window.c: the main window. Its layout is the template
 * pfprof-view-window.ui; each panel is its own widget, and the window
 * ties them to the loads and to each other. */
#include "pfprof-view-window.h"

#include "pfprof-details-panel.h"
#include "pfprof-findings-panel.h"
#include "pfprof-framing.h"
#include "pfprof-ledger-panel.h"
#include "pfprof-measure-bar.h"
#include "pfprof-occurrence-navigator.h"
#include "pfprof-overview.h"
#include "pfprof-render-text.h"
#include "pfprof-search-bar.h"
#include "pfprof-selected-finding.h"
#include "pfprof-summary-bar.h"
#include "pfprof-view-follow.h"

struct _PfprofViewWindow
{
  GtkApplicationWindow parent_instance;

  /* From the template. */
  GtkStack *stack;
  GtkProgressBar *progress_bar;
  GtkLabel *progress_label;
  PfprofSketchView *sketch_view;
  GtkLabel *no_gpu_label;
  PfprofSummaryBar *summary;
  PfprofOverview *overview;
  PfprofTimelineWidget *timeline;
  PfprofFindingsPanel *findings;
  PfprofSelectedFinding *selected;
  PfprofDetailsPanel *details;
  PfprofSearchBar *search;
  PfprofMeasureBar *measure;
  PfprofLedgerPanel *ledger;
  GMenu *recent_menu;

  GtkWidget *error_dialog;
  PfprofViewLoaded *loaded;
  /* Shown while its load's analysis runs (owned by that load), or NULL. */
  PfprofTimeline *early;
  guint load_serial;      /* the latest open's */
  int finding;            /* pfprof_findings_panel_get_finding's index, -1 */
  PfprofOccurrenceNavigator *navigator; /* the finding's occurrence shown */
  int *progress;          /* g_atomic_rc_box */
  guint progress_source;
  GCancellable *cancellable;
  PfprofViewFollow *follow; /* while the traces shown are being recorded */
  /* Tabs: one document per page of the tab strip; the shown one's slot is
   * NULL (its load is self->loaded). */
  GtkNotebook *tabs;
  GPtrArray *docs;        /* Doc* or NULL */
  guint active;
  gboolean tab_guard;     /* the strip changes from here: not a switch */
};

/* A trace set aside in a tab that is not shown. */
typedef struct
{
  PfprofViewLoaded *loaded;
  gint64 t0, t1;
  char *rule;             /* the selected finding's, or NULL */
} Doc;

static void
doc_free (gpointer data)
{
  Doc *d = data;

  if (d == NULL)
    return;
  pfprof_view_loaded_free (d->loaded);
  g_free (d->rule);
  g_free (d);
}

G_DEFINE_FINAL_TYPE (PfprofViewWindow, pfprof_view_window, GTK_TYPE_APPLICATION_WINDOW)

enum
{
  SIGNAL_LOADED,
  SIGNAL_FOLLOWED,
  SIGNAL_TAB_SWITCHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

#define RECENT_APP "pfprof-view"

/* ---- The selected finding --------------------------------------------- */

static const PfprofFinding *
current_finding (PfprofViewWindow *self)
{
  if (self->loaded == NULL || self->finding < 0)
    return NULL;
  return pfprof_findings_panel_get_finding (self->findings, self->finding);
}

/* The selected finding's index as the timeline marks it: an evaluation
 * phase's finding has no marks (its occurrences get outlines), -1. */
static int
marked_finding (PfprofViewWindow *self)
{
  return pfprof_findings_panel_is_phase_finding (self->findings, self->finding) ? -1 : self->finding;
}

static void
show_occurrence (PfprofViewWindow *self)
{
  const PfprofFinding *f = current_finding (self);
  const PfprofEvidence *ev = pfprof_occurrence_navigator_get_current (self->navigator);
  gboolean by_time = pfprof_occurrence_navigator_get_order (self->navigator) == PFPROF_OCCURRENCE_BY_TIME;
  gint64 span, mid;
  int row, index;

  if (f == NULL || ev == NULL)
    {
      pfprof_selected_finding_set_occurrence (self->selected, -1, 0, by_time, 0, 0);
      pfprof_timeline_widget_select_finding (self->timeline, marked_finding (self), -1);
      pfprof_timeline_widget_set_focus (self->timeline, -1, 0, 0);
      pfprof_overview_set_occurrences (self->overview, NULL, NULL, PFPROF_SEVERITY_INFO);
      return;
    }
  /* Wide enough to see the occurrence with some of what surrounds it. */
  span = MAX (ev->end_ns - ev->start_ns, 1000) * 4;
  mid = ev->start_ns + (ev->end_ns - ev->start_ns) / 2;
  /* One of the few the timeline marks is outlined as such; any other
   * gets an outline of its own. */
  index = marked_finding (self) >= 0 ? pfprof_occurrence_navigator_get_evidence_index (self->navigator) : -1;
  row = index >= 0 ? pfprof_timeline_finding_rows (self->loaded->timeline, (guint) self->finding)[index]
                   : pfprof_timeline_evidence_row (self->loaded->timeline, ev);
  pfprof_timeline_widget_select_finding (self->timeline, marked_finding (self), index);
  pfprof_timeline_widget_set_focus (self->timeline, index >= 0 ? -1 : row, ev->start_ns, ev->end_ns);
  pfprof_timeline_widget_set_range (self->timeline, mid - span / 2, mid + span / 2);
  pfprof_timeline_widget_scroll_to_row (self->timeline, row);
  pfprof_overview_set_occurrences (self->overview, pfprof_occurrence_navigator_get_all (self->navigator), ev,
                                   f->severity);
  pfprof_selected_finding_set_occurrence (self->selected, pfprof_occurrence_navigator_get_position (self->navigator),
                                          pfprof_occurrence_navigator_get_n (self->navigator), by_time,
                                          ev->cost_ns, f->time_ns);
}

static void
on_finding_selected (PfprofFindingsPanel *panel, int index, PfprofViewWindow *self)
{
  const PfprofFinding *f;

  self->finding = self->loaded != NULL ? index : -1;
  f = current_finding (self);
  /* Every occurrence, the worst first unless time order is asked for:
   * that is the one to look at, not the first in time. */
  pfprof_occurrence_navigator_set_finding (self->navigator, f);
  pfprof_selected_finding_set_finding (self->selected, f);
  /* The ledger is the training steps': an evaluation finding draws on
   * none of its buckets. */
  pfprof_ledger_panel_set_finding (self->ledger, marked_finding (self) >= 0 ? f : NULL);
  if (f == NULL)
    {
      pfprof_timeline_widget_select_finding (self->timeline, -1, -1);
      pfprof_timeline_widget_set_focus (self->timeline, -1, 0, 0);
      pfprof_overview_set_occurrences (self->overview, NULL, NULL, PFPROF_SEVERITY_INFO);
      return;
    }
  show_occurrence (self);
}

gboolean
pfprof_view_window_select_finding (PfprofViewWindow *self, guint n)
{
  g_return_val_if_fail (PFPROF_IS_VIEW_WINDOW (self), FALSE);

  if (!pfprof_findings_panel_select (self->findings, n))
    return FALSE;
  /* The panel scrolled to the row; the keys go back to the timeline. */
  gtk_widget_grab_focus (GTK_WIDGET (self->timeline));
  return TRUE;
}

gboolean
pfprof_view_window_select_rule (PfprofViewWindow *self, const char *rule)
{
  g_return_val_if_fail (PFPROF_IS_VIEW_WINDOW (self), FALSE);
  g_return_val_if_fail (rule != NULL, FALSE);

  int n = pfprof_findings_panel_find_rule (self->findings, rule);

  return n >= 0 && pfprof_view_window_select_finding (self, (guint) n);
}

void
pfprof_view_window_step_occurrence (PfprofViewWindow *self, int delta)
{
  g_return_if_fail (PFPROF_IS_VIEW_WINDOW (self));

  if (current_finding (self) == NULL || pfprof_occurrence_navigator_get_n (self->navigator) == 0)
    return;
  /* Wraps around, as "find next" does. */
  pfprof_occurrence_navigator_step (self->navigator, delta);
  show_occurrence (self);
}

void
pfprof_view_window_set_occurrence_order (PfprofViewWindow *self, gboolean by_time)
{
  g_return_if_fail (PFPROF_IS_VIEW_WINDOW (self));

  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "occurrence-by-time");

  g_simple_action_set_state (G_SIMPLE_ACTION (action), g_variant_new_boolean (by_time));
  pfprof_occurrence_navigator_set_order (self->navigator,
                                         by_time ? PFPROF_OCCURRENCE_BY_TIME : PFPROF_OCCURRENCE_BY_COST);
  if (current_finding (self) != NULL)
    show_occurrence (self);
}

PfprofOccurrenceNavigator *
pfprof_view_window_get_navigator (PfprofViewWindow *self)
{
  g_return_val_if_fail (PFPROF_IS_VIEW_WINDOW (self), NULL);

  return self->navigator;
}

PfprofOverview *
pfprof_view_window_get_overview (PfprofViewWindow *self)
{
  g_return_val_if_fail (PFPROF_IS_VIEW_WINDOW (self), NULL);

  return self->overview;
}

PfprofSketchView *
pfprof_view_window_get_sketch_view (PfprofViewWindow *self)
{
  g_return_val_if_fail (PFPROF_IS_VIEW_WINDOW (self), NULL);

  return self->sketch_view;
}

/* Empties the panels for a new load. */
static void
clear_findings (PfprofViewWindow *self)
{
  pfprof_findings_panel_set_analysis (self->findings, NULL);
  self->finding = -1;
  pfprof_occurrence_navigator_set_finding (self->navigator, NULL);
  pfprof_overview_set_occurrences (self->overview, NULL, NULL, PFPROF_SEVERITY_INFO);
  pfprof_selected_finding_set_finding (self->selected, NULL);
  pfprof_ledger_panel_set_analysis (self->ledger, NULL);
}

/* A finding matched the search: select it as a click in the list would. */
static void
on_search_finding (PfprofSearchBar *bar, int index, PfprofViewWindow *self)
{
  int row = pfprof_findings_panel_row_of (self->findings, index);

  if (row >= 0)
    pfprof_findings_panel_select (self->findings, (guint) row);
}

static void
on_event_selected (PfprofTimelineWidget *w, int row_index, guint ref, PfprofViewWindow *self)
{
  const PfprofRenderView *v = pfprof_timeline_widget_get_view (self->timeline);
  gint64 resolution = (gint64) ((double) (v->t1 - v->t0) / MAX (1.0, v->width - v->label_width));

  pfprof_details_panel_show_event (self->details, self->loaded != NULL ? self->loaded->timeline : NULL,
                                   row_index, ref, resolution);
}

/* ---- Loading ---------------------------------------------------------- */

static gboolean
on_progress_tick (gpointer data)
{
  PfprofViewWindow *self = data;

  gtk_progress_bar_set_fraction (self->progress_bar,
                                 g_atomic_int_get (self->progress) / 1000.0);
  return G_SOURCE_CONTINUE;
}

static void
on_error_response (GtkDialog *dialog, int response, gpointer data)
{
  PfprofViewWindow *self = data;

  if (self->error_dialog == GTK_WIDGET (dialog))
    self->error_dialog = NULL;
  gtk_window_destroy (GTK_WINDOW (dialog));
}

static void
show_error (PfprofViewWindow *self, const char *primary, const char *secondary)
{
  GtkWidget *dialog;
  g_autofree char *clean = g_utf8_make_valid (secondary, -1);

  if (self->error_dialog != NULL)
    gtk_window_destroy (GTK_WINDOW (self->error_dialog));
  dialog = gtk_message_dialog_new (GTK_WINDOW (self), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                   GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE, "%s", primary);
  /* Plain text: the message quotes a file name, which may hold markup. */
  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s", clean);
  g_signal_connect (dialog, "response", G_CALLBACK (on_error_response), self);
  self->error_dialog = dialog;
  gtk_window_present (GTK_WINDOW (dialog));
}

/* The summary, saying when the traces are still being recorded. */
static void
show_summary (PfprofViewWindow *self)
{
  pfprof_summary_bar_set_analysis (self->summary, self->loaded->analysis);
  if (pfprof_view_window_is_following (self))
    {
      g_autofree char *text = g_strdup_printf ("Unfinished trace \u2014 following it as it is written \u00b7 %s",
                                               pfprof_summary_bar_get_text (self->summary));

      pfprof_summary_bar_set_text (self->summary, text);
    }
}

static void follow_if_live (PfprofViewWindow *self);

/* Shows @loaded (taken over) in the panels, over [@t0, @t1] (the whole
 * run when @t0 >= @t1), with the finding of @rule selected without moving
 * the view. */
static void
show_loaded (PfprofViewWindow *self, PfprofViewLoaded *loaded, gint64 t0, gint64 t1, const char *rule)
{
  int n;

  pfprof_timeline_widget_set_timeline (self->timeline, NULL);
  pfprof_overview_set_timeline (self->overview, NULL);
  clear_findings (self);
  g_clear_pointer (&self->loaded, pfprof_view_loaded_free);
  self->loaded = loaded;
  pfprof_timeline_widget_set_timeline (self->timeline, loaded->timeline);
  if (t0 < t1)
    pfprof_timeline_widget_set_range (self->timeline, t0, t1);
  else
    pfprof_timeline_widget_fit_all (self->timeline);
  show_summary (self);
  pfprof_findings_panel_set_analysis (self->findings, loaded->analysis);
  pfprof_overview_set_timeline (self->overview, loaded->timeline);
  gtk_stack_set_visible_child_name (self->stack, loaded->timeline->n_gpu_events == 0 ? "no-gpu" : "content");
  n = rule != NULL ? pfprof_findings_panel_find_rule (self->findings, rule) : -1;
  if (n >= 0)
    {
      const PfprofFinding *nf;

      self->finding = pfprof_findings_panel_index_at (self->findings, (guint) n);
      nf = current_finding (self);
      pfprof_occurrence_navigator_set_finding (self->navigator, nf);
      pfprof_selected_finding_set_finding (self->selected, nf);
      pfprof_timeline_widget_select_finding (self->timeline, marked_finding (self), -1);
      pfprof_overview_set_occurrences (self->overview, pfprof_occurrence_navigator_get_all (self->navigator),
                                       NULL, nf->severity);
    }
}

/* A reload of the traces being recorded: swapped in, keeping what is in
 * view (the whole run, or the latest part of it, stay so as it grows),
 * and the selected finding's rule. */
static void
on_follow_update (PfprofViewLoaded *loaded, gpointer data)
{
  PfprofViewWindow *self = data;
  const PfprofRenderView *v = pfprof_timeline_widget_get_view (self->timeline);
  gint64 t0 = v->t0, t1 = v->t1;
  gint64 old_start = self->loaded->timeline->start_ns, old_end = self->loaded->timeline->end_ns;
  const PfprofFinding *f = current_finding (self);
  g_autofree char *rule = f != NULL ? g_strdup (f->rule) : NULL;

  if (t0 <= old_start && t1 >= old_end)
    t0 = t1 = 0;
  else if (t1 >= old_end)
    {
      t0 = loaded->timeline->end_ns - (t1 - t0);
      t1 = loaded->timeline->end_ns;
    }
  show_loaded (self, loaded, t0, t1, rule);
  g_signal_emit (self, signals[SIGNAL_FOLLOWED], 0);
}

/* ---- Tabs ------------------------------------------------------------- */

/* Takes the trace shown out of the panels, into a Doc. */
static Doc *
stash (PfprofViewWindow *self)
{
  const PfprofRenderView *v = pfprof_timeline_widget_get_view (self->timeline);
  const PfprofFinding *f = current_finding (self);
  Doc *d;

  if (self->loaded == NULL)
    return NULL;
  d = g_new0 (Doc, 1);
  d->t0 = v->t0;
  d->t1 = v->t1;
  d->rule = f != NULL ? g_strdup (f->rule) : NULL;
  g_clear_pointer (&self->follow, pfprof_view_follow_free);
  pfprof_timeline_widget_set_timeline (self->timeline, NULL);
  pfprof_overview_set_timeline (self->overview, NULL);
  clear_findings (self);
  d->loaded = g_steal_pointer (&self->loaded);
  return d;
}

static void
update_tab_strip (PfprofViewWindow *self)
{
  GtkHeaderBar *bar = GTK_HEADER_BAR (gtk_window_get_titlebar (GTK_WINDOW (self)));

  /* One trace: the window's title says which. */
  gtk_header_bar_set_title_widget (bar, self->docs->len > 1 ? GTK_WIDGET (self->tabs) : NULL);
}

static void
on_switch_tab (GtkNotebook *notebook, GtkWidget *page, guint n, PfprofViewWindow *self)
{
  Doc *d;

  if (self->tab_guard || n == self->active || n >= self->docs->len)
    return;
  if (self->active < self->docs->len)
    g_ptr_array_index (self->docs, self->active) = stash (self);
  self->active = n;
  d = g_ptr_array_index (self->docs, n);
  g_ptr_array_index (self->docs, n) = NULL;
  if (d != NULL)
    {
      show_loaded (self, g_steal_pointer (&d->loaded), d->t0, d->t1, d->rule);
      follow_if_live (self);
      show_summary (self);
      doc_free (d);
    }
  else
    gtk_stack_set_visible_child_name (self->stack, "empty");
  g_signal_emit (self, signals[SIGNAL_TAB_SWITCHED], 0);
}

/* Removes the tab shown (its traces with it) and shows its neighbour. */
static void
drop_active_tab (PfprofViewWindow *self)
{
  guint gone = self->active;
  Doc *d = stash (self);

  doc_free (d);
  g_ptr_array_remove_index (self->docs, gone);
  self->active = G_MAXUINT;
  self->tab_guard = TRUE;
  gtk_notebook_remove_page (self->tabs, (int) gone);
  self->tab_guard = FALSE;
  on_switch_tab (self->tabs, NULL, (guint) MAX (gtk_notebook_get_current_page (self->tabs), 0), self);
  update_tab_strip (self);
}

gboolean
pfprof_view_window_close_tab (PfprofViewWindow *self)
{
  /* The last tab stays: closing it is closing the window. */
  g_return_val_if_fail (PFPROF_IS_VIEW_WINDOW (self), FALSE);

  if (self->docs->len < 2 || !gtk_widget_get_sensitive (GTK_WIDGET (self->tabs)))
    return FALSE;
  drop_active_tab (self);
  return TRUE;
}

/* Names the shown tab after its traces. */
static void
label_tab (PfprofViewWindow *self, const char *title)
{
  GtkWidget *page = gtk_notebook_get_nth_page (self->tabs, (int) self->active);

  gtk_notebook_set_tab_label_text (self->tabs, page, title);
}

void
pfprof_view_window_open_in_new_tab (PfprofViewWindow *self, GFile **files, int n_files)
{
  GtkWidget *page;

  g_return_if_fail (PFPROF_IS_VIEW_WINDOW (self));
  g_return_if_fail (n_files == 0 || files != NULL);

  if (self->loaded == NULL || n_files <= 0)
    {
      pfprof_view_window_open (self, files, n_files);
      return;
    }
  page = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  g_ptr_array_index (self->docs, self->active) = stash (self);
  g_ptr_array_add (self->docs, NULL);
  self->active = self->docs->len - 1;
  /* In the header bar first: a notebook out of any window has no focus
   * to move. */
  update_tab_strip (self);
  self->tab_guard = TRUE;
  gtk_notebook_append_page (self->tabs, page, gtk_label_new ("Loading\u2026"));
  gtk_notebook_set_current_page (self->tabs, (int) self->active);
  self->tab_guard = FALSE;
  pfprof_view_window_open (self, files, n_files);
}

GtkNotebook *
pfprof_view_window_get_tabs (PfprofViewWindow *self)
{
  g_return_val_if_fail (PFPROF_IS_VIEW_WINDOW (self), NULL);

  return self->tabs;
}

/* Follows the traces of the load just shown while they are recorded. */
static void
follow_if_live (PfprofViewWindow *self)
{
  g_autoptr (GPtrArray) paths = g_ptr_array_new ();
  GPtrArray *traces = self->loaded->analysis->traces;

  g_clear_pointer (&self->follow, pfprof_view_follow_free);
  if (!pfprof_view_follow_is_live (self->loaded))
    return;
  for (guint i = 0; i < traces->len; i++)
    {
      const PfprofTrace *t = g_ptr_array_index (traces, i);

      if (t->path == NULL)
        return;
      g_ptr_array_add (paths, t->path);
    }
  g_ptr_array_add (paths, NULL);
  self->follow = pfprof_view_follow_new ((const char *const *) paths->pdata, on_follow_update, self);
}

gboolean
pfprof_view_window_is_following (PfprofViewWindow *self)
{
  g_return_val_if_fail (PFPROF_IS_VIEW_WINDOW (self), FALSE);

  return self->follow != NULL && self->loaded != NULL && pfprof_view_follow_is_live (self->loaded);
}

/* One open: its window (referenced) and which open it was. */
typedef struct
{
  PfprofViewWindow *self;
  guint serial;
} Pending;

/* The chunk index is read and the events still load: draw its sketch
 * on the loading page until the timeline comes. */
static void
on_sketch_ready (PfprofTraceSketch *sketch, gpointer data)
{
  Pending *p = data;
  PfprofViewWindow *self = p->self;

  if (p->serial != self->load_serial)
    {
      pfprof_trace_sketch_free (sketch);
      return;
    }
  pfprof_sketch_view_set_sketch (self->sketch_view, sketch);
}

/* The timeline is laid out and the analysis still runs: show the trace
 * now, without steps or findings, the panel saying the analysis is on. */
static void
on_timeline_ready (PfprofTimeline *timeline, gpointer data)
{
  Pending *p = data;
  PfprofViewWindow *self = p->self;

  if (p->serial != self->load_serial || timeline->n_gpu_events == 0)
    return;
  pfprof_sketch_view_set_sketch (self->sketch_view, NULL);
  pfprof_timeline_widget_set_timeline (self->timeline, NULL);
  pfprof_overview_set_timeline (self->overview, NULL);
  clear_findings (self);
  g_clear_pointer (&self->loaded, pfprof_view_loaded_free);
  pfprof_summary_bar_set_text (self->summary, "Analysing\u2026 (steps and findings follow)");
  self->early = timeline;
  pfprof_timeline_widget_set_timeline (self->timeline, timeline);
  on_event_selected (self->timeline, -1, 0, self);
  gtk_stack_set_visible_child_name (self->stack, "content");
  gtk_widget_grab_focus (GTK_WIDGET (self->timeline));
}

static void
on_loaded (GObject *source, GAsyncResult *result, gpointer data)
{
  Pending *p = data;
  PfprofViewWindow *self = p->self;
  g_autoptr (GError) error = NULL;
  PfprofViewLoaded *loaded = pfprof_view_loader_load_finish (result, &error);
  /* This load's timeline is on screen already: keep its view. */
  gboolean shown = loaded != NULL && p->serial == self->load_serial && self->early == loaded->timeline;

  g_free (p);
  g_clear_handle_id (&self->progress_source, g_source_remove);
  pfprof_sketch_view_set_sketch (self->sketch_view, NULL);
  if (loaded == NULL && self->early != NULL)
    {
      /* Its load failed after showing the timeline (the load frees it). */
      pfprof_timeline_widget_set_timeline (self->timeline, NULL);
      self->early = NULL;
    }
  if (loaded == NULL)
    {
      gboolean cancelled = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

      /* Back to what was shown before. */
      gtk_stack_set_visible_child_name (self->stack,
                                        self->loaded == NULL ? "empty"
                                        : self->loaded->timeline->n_gpu_events == 0 ? "no-gpu"
                                                                                     : "content");
      /* A new tab that got nothing goes, and the one before comes back. */
      if (self->loaded == NULL && self->docs->len > 1 && g_ptr_array_index (self->docs, self->active) == NULL)
        drop_active_tab (self);
      gtk_widget_set_sensitive (GTK_WIDGET (self->tabs), TRUE);
      if (!cancelled)
        show_error (self, "Cannot open the trace", error->message);
      g_signal_emit (self, signals[SIGNAL_LOADED], 0, FALSE);
      g_object_unref (self);
      return;
    }
  if (!shown)
    pfprof_timeline_widget_set_timeline (self->timeline, NULL);
  pfprof_overview_set_timeline (self->overview, NULL);
  clear_findings (self);
  g_clear_pointer (&self->loaded, pfprof_view_loaded_free);
  self->loaded = loaded;
  self->early = NULL;
  if (shown)
    gtk_widget_queue_draw (GTK_WIDGET (self->timeline));
  else
    pfprof_timeline_widget_set_timeline (self->timeline, loaded->timeline);
  {
    /* Open on the steady state, unless the view was moved while the
     * analysis ran. */
    const PfprofRenderView *v = pfprof_timeline_widget_get_view (self->timeline);
    gint64 t0, t1;

    if (v->t0 == loaded->timeline->start_ns && v->t1 == loaded->timeline->end_ns
        && pfprof_framing_steady (loaded->analysis, &t0, &t1))
      pfprof_timeline_widget_set_range (self->timeline, t0, t1);
  }
  pfprof_ledger_panel_set_analysis (self->ledger, loaded->analysis);
  pfprof_search_bar_update (self->search);
  follow_if_live (self);
  show_summary (self);
  pfprof_findings_panel_set_analysis (self->findings, loaded->analysis);
  on_event_selected (self->timeline, -1, 0, self);
  {
    const PfprofTrace *t = g_ptr_array_index (loaded->analysis->traces, 0);
    g_autofree char *base = g_path_get_basename (t->path ? t->path : "trace");
    g_autofree char *clean = pfprof_render_sanitize (base, 80);
    g_autofree char *title = loaded->analysis->traces->len > 1
                               ? g_strdup_printf ("%s and %u more \u2014 pfprof", clean, loaded->analysis->traces->len - 1)
                               : g_strdup_printf ("%s \u2014 pfprof", clean);

    gtk_window_set_title (GTK_WINDOW (self), title);
    label_tab (self, loaded->analysis->traces->len > 1 ? title : clean);
    gtk_widget_set_sensitive (GTK_WIDGET (self->tabs), TRUE);
    for (guint i = 0; i < loaded->analysis->traces->len; i++)
      {
        const PfprofTrace *ti = g_ptr_array_index (loaded->analysis->traces, i);
        g_autofree char *uri = ti->path ? g_filename_to_uri (ti->path, NULL, NULL) : NULL;
        GtkRecentData rd = { 0 };

        if (uri == NULL)
          continue;
        rd.mime_type = (char *) "application/vnd.sqlite3";
        rd.app_name = (char *) RECENT_APP;
        rd.app_exec = (char *) RECENT_APP " %u";
        gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &rd);
      }
  }
  if (loaded->timeline->n_gpu_events == 0)
    {
      g_autofree char *msg = g_strdup_printf (
        "No GPU activity in this trace\n\n"
        "It holds %" G_GUINT64_FORMAT " host events but no kernels, copies or memsets.\n"
        "Did the program use CUDA, and did it run long enough to launch work?",
        pfprof_trace_n_events (g_ptr_array_index (loaded->analysis->traces, 0)));

      gtk_label_set_text (self->no_gpu_label, msg);
      gtk_stack_set_visible_child_name (self->stack, "no-gpu");
    }
  else
    gtk_stack_set_visible_child_name (self->stack, "content");
  pfprof_overview_set_timeline (self->overview, loaded->timeline);
  gtk_widget_grab_focus (GTK_WIDGET (self->timeline));
  g_signal_emit (self, signals[SIGNAL_LOADED], 0, TRUE);
  g_object_unref (self);
}

/* Readies the window for a load of @first_path and the others (the
 * loading page, the progress bar reading @progress, @cancellable to stop
 * it when another comes), returning its Pending. */
static Pending *
begin_load (PfprofViewWindow *self, const char *first_path, GCancellable *cancellable, int *progress)
{
  Pending *p = g_new (Pending, 1);

  g_clear_pointer (&self->follow, pfprof_view_follow_free);
  /* No switching tabs while a load is on its way into this one. */
  gtk_widget_set_sensitive (GTK_WIDGET (self->tabs), FALSE);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_object_ref (cancellable);
  if (progress != self->progress)
    {
      g_atomic_rc_box_release (self->progress);
      self->progress = g_atomic_rc_box_acquire (progress);
    }
  {
    g_autofree char *base = g_path_get_basename (first_path);
    g_autofree char *clean = pfprof_render_sanitize (base, 80);
    g_autofree char *msg = g_strdup_printf ("Loading %s\u2026", clean);

    gtk_label_set_text (self->progress_label, msg);
  }
  gtk_progress_bar_set_fraction (self->progress_bar, g_atomic_int_get (self->progress) / 1000.0);
  pfprof_sketch_view_set_sketch (self->sketch_view, NULL);
  gtk_stack_set_visible_child_name (self->stack, "loading");
  g_clear_handle_id (&self->progress_source, g_source_remove);
  self->progress_source = g_timeout_add (50, on_progress_tick, self);
  p->self = g_object_ref (self);
  p->serial = ++self->load_serial;
  return p;
}

void
pfprof_view_window_open (PfprofViewWindow *self, GFile **files, int n_files)
{
  g_return_if_fail (PFPROF_IS_VIEW_WINDOW (self));
  g_return_if_fail (n_files == 0 || files != NULL);

  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GCancellable) cancellable = NULL;
  Pending *p;

  for (int i = 0; i < n_files; i++)
    {
      char *path = g_file_get_path (files[i]);

      if (path == NULL)
        {
          g_autofree char *uri = g_file_get_uri (files[i]);
          g_autofree char *msg = g_strdup_printf ("%s: only local files can be opened", uri);

          show_error (self, "Cannot open the trace", msg);
          return;
        }
      g_ptr_array_add (paths, path);
    }
  if (paths->len == 0)
    return;
  g_ptr_array_add (paths, NULL);
  cancellable = g_cancellable_new ();
  g_atomic_int_set (self->progress, 0);
  p = begin_load (self, g_ptr_array_index (paths, 0), cancellable, self->progress);
  pfprof_view_loader_load_async_full ((const char *const *) paths->pdata, self->progress,
                                      self->cancellable, on_sketch_ready, on_timeline_ready, p,
                                      on_loaded, p);
}

void
pfprof_view_window_open_preloaded (PfprofViewWindow *self, PfprofViewPreload *preload,
                                   const char *first_path)
{
  g_return_if_fail (PFPROF_IS_VIEW_WINDOW (self));
  g_return_if_fail (preload != NULL);
  g_return_if_fail (first_path != NULL);

  Pending *p = begin_load (self, first_path, pfprof_view_preload_get_cancellable (preload),
                           pfprof_view_preload_get_progress (preload));

  pfprof_view_preload_take (preload, on_sketch_ready, on_timeline_ready, p, on_loaded, p);
}

/* ---- Actions ---------------------------------------------------------- */

static GtkFileFilter *
file_filter (const char *name, const char *const *patterns)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, name);
  for (guint i = 0; patterns[i] != NULL; i++)
    gtk_file_filter_add_pattern (filter, patterns[i]);
  return filter;
}

GListModel *
pfprof_view_window_new_file_filters (void)
{
  /* What the importer table reads; it tells them apart by content. */
  static const char *const pfprof[] = { "*.pfprof", NULL };
  static const char *const nsys[] = { "*.sqlite", NULL };
  static const char *const kineto[] = { "*.json", "*.json.gz", NULL };
  static const char *const traces[] = { "*.pfprof", "*.sqlite", "*.json", "*.json.gz", NULL };
  static const char *const all[] = { "*", NULL };
  GListStore *store = g_list_store_new (GTK_TYPE_FILE_FILTER);
  GtkFileFilter *filters[] = {
    file_filter ("All traces", traces),
    file_filter ("pfprof traces", pfprof),
    file_filter ("Nsight Systems SQLite exports", nsys),
    file_filter ("Kineto (PyTorch profiler) traces", kineto),
    file_filter ("All files", all),
  };

  for (guint i = 0; i < G_N_ELEMENTS (filters); i++)
    {
      g_list_store_append (store, filters[i]);
      g_object_unref (filters[i]);
    }
  return G_LIST_MODEL (store);
}

GMenuModel *
pfprof_view_window_get_recent_menu (PfprofViewWindow *self)
{
  g_return_val_if_fail (PFPROF_IS_VIEW_WINDOW (self), NULL);

  return G_MENU_MODEL (self->recent_menu);
}

static void
on_open_response (GtkNativeDialog *dialog, int response, gpointer data)
{
  PfprofViewWindow *self = data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      GListModel *files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (dialog));
      guint n = g_list_model_get_n_items (files);
      g_autofree GFile **arr = g_new0 (GFile *, n + 1);

      for (guint i = 0; i < n; i++)
        arr[i] = g_list_model_get_item (files, i);
      if (g_object_get_data (G_OBJECT (dialog), "pfprof-new-tab") != NULL)
        pfprof_view_window_open_in_new_tab (self, arr, (int) n);
      else
        pfprof_view_window_open (self, arr, (int) n);
      for (guint i = 0; i < n; i++)
        g_object_unref (arr[i]);
      g_object_unref (files);
    }
  g_object_unref (dialog);
}

static void
action_open (GSimpleAction *action, GVariant *param, gpointer data)
{
  PfprofViewWindow *self = data;
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new ("Open Trace", GTK_WINDOW (self),
                                                              GTK_FILE_CHOOSER_ACTION_OPEN, "_Open", "_Cancel");
  g_autoptr (GListModel) filters = pfprof_view_window_new_file_filters ();

  for (guint i = 0; i < g_list_model_get_n_items (filters); i++)
    {
      g_autoptr (GtkFileFilter) filter = g_list_model_get_item (filters, i);

      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
    }
  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (dialog), TRUE);
  if (g_str_equal (g_action_get_name (G_ACTION (action)), "open-tab"))
    g_object_set_data (G_OBJECT (dialog), "pfprof-new-tab", GINT_TO_POINTER (1));
  g_signal_connect (dialog, "response", G_CALLBACK (on_open_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
action_close_tab (GSimpleAction *action, GVariant *param, gpointer data)
{
  pfprof_view_window_close_tab (data);
}

static void
action_open_recent (GSimpleAction *action, GVariant *param, gpointer data)
{
  g_autoptr (GFile) file = g_file_new_for_uri (g_variant_get_string (param, NULL));

  pfprof_view_window_open (data, &file, 1);
}

static void
action_fit (GSimpleAction *action, GVariant *param, gpointer data)
{
  PfprofViewWindow *self = data;

  pfprof_timeline_widget_fit_all (self->timeline);
}

static void
action_search (GSimpleAction *action, GVariant *param, gpointer data)
{
  PfprofViewWindow *self = data;

  pfprof_search_bar_open (self->search);
}

static void
action_zoom (GSimpleAction *action, GVariant *param, gpointer data)
{
  PfprofViewWindow *self = data;
  const PfprofRenderView *v = pfprof_timeline_widget_get_view (self->timeline);
  gboolean in = g_str_equal (g_action_get_name (G_ACTION (action)), "zoom-in");

  pfprof_timeline_widget_zoom (self->timeline, in ? 0.5 : 2.0, v->t0 + (v->t1 - v->t0) / 2);
}

static void
action_occurrence (GSimpleAction *action, GVariant *param, gpointer data)
{
  pfprof_view_window_step_occurrence (data, g_str_equal (g_action_get_name (G_ACTION (action)), "next-occurrence") ? 1 : -1);
}

static void
action_occurrence_by_time (GSimpleAction *action, GVariant *param, gpointer data)
{
  GVariant *state = g_action_get_state (G_ACTION (action));

  pfprof_view_window_set_occurrence_order (data, !g_variant_get_boolean (state));
  g_variant_unref (state);
}

/* @text shown as itself in a menu, whose labels take '_' for a mnemonic:
 * "a_pageable" would read "apageable". */
static char *
escape_mnemonic (const char *text)
{
  g_auto (GStrv) parts = g_strsplit (text, "_", -1);

  return g_strjoinv ("__", parts);
}

static void
rebuild_recent (PfprofViewWindow *self)
{
  GList *items = gtk_recent_manager_get_items (gtk_recent_manager_get_default ());
  g_autoptr (GPtrArray) shown = g_ptr_array_new ();
  g_autoptr (GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);

  g_menu_remove_all (self->recent_menu);
  for (GList *l = items; l != NULL && shown->len < 10; l = l->next)
    {
      GtkRecentInfo *info = l->data;
      const char *name = gtk_recent_info_get_display_name (info);

      if (!gtk_recent_info_has_application (info, RECENT_APP) || !gtk_recent_info_exists (info))
        continue;
      g_ptr_array_add (shown, info);
      g_hash_table_insert (names, (gpointer) name,
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (names, name)) + 1));
    }
  for (guint i = 0; i < shown->len; i++)
    {
      GtkRecentInfo *info = g_ptr_array_index (shown, i);
      const char *name = gtk_recent_info_get_display_name (info);
      g_autofree char *text = NULL;
      g_autofree char *label = NULL;
      g_autoptr (GMenuItem) item = NULL;

      /* Two traces of the same name (rank0.pfprof of two runs) are told
       * apart by their folder. */
      if (GPOINTER_TO_UINT (g_hash_table_lookup (names, name)) > 1)
        {
          g_autoptr (GFile) file = g_file_new_for_uri (gtk_recent_info_get_uri (info));
          g_autoptr (GFile) parent = g_file_get_parent (file);
          g_autofree char *folder = parent != NULL ? g_file_get_parse_name (parent) : g_strdup ("");
          g_autofree char *both = g_strdup_printf ("%s \u2014 %s", name, folder);

          text = pfprof_render_sanitize (both, 100);
        }
      else
        text = pfprof_render_sanitize (name, 60);
      label = escape_mnemonic (text);
      item = g_menu_item_new (label, NULL);
      g_menu_item_set_action_and_target_value (item, "win.open-recent",
                                               g_variant_new_string (gtk_recent_info_get_uri (info)));
      g_menu_append_item (self->recent_menu, item);
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
  if (shown->len == 0)
    g_menu_append (self->recent_menu, "No recent traces", "win.none");
}

static void
on_recent_changed (GtkRecentManager *m, gpointer data)
{
  rebuild_recent (data);
}

static gboolean
on_drop (GtkDropTarget *target, const GValue *value, double x, double y, gpointer data)
{
  PfprofViewWindow *self = data;
  GSList *list;
  g_autofree GFile **arr = NULL;
  int n = 0;

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  list = gdk_file_list_get_files (g_value_get_boxed (value));
  arr = g_new0 (GFile *, g_slist_length (list) + 1);
  for (GSList *l = list; l != NULL; l = l->next)
    arr[n++] = l->data;
  g_slist_free (list);
  if (n == 0)
    return FALSE;
  pfprof_view_window_open (self, arr, n);
  return TRUE;
}

static void
update_dark (PfprofViewWindow *self)
{
  GtkSettings *settings = gtk_widget_get_settings (GTK_WIDGET (self));
  gboolean prefer_dark = FALSE;
  g_autofree char *theme = NULL;

  g_object_get (settings, "gtk-application-prefer-dark-theme", &prefer_dark, "gtk-theme-name", &theme, NULL);
  if (theme != NULL && (g_str_has_suffix (theme, "-dark") || g_str_has_suffix (theme, ":dark")))
    prefer_dark = TRUE;
  {
    const char *env = g_getenv ("GTK_THEME");

    if (env != NULL && g_str_has_suffix (env, ":dark"))
      prefer_dark = TRUE;
  }
  pfprof_timeline_widget_set_dark (self->timeline, prefer_dark);
  pfprof_sketch_view_set_dark (self->sketch_view, prefer_dark);
  pfprof_overview_set_timeline (self->overview, self->loaded != NULL ? self->loaded->timeline : NULL);
}

static void
on_settings_changed (GObject *o, GParamSpec *p, gpointer data)
{
  update_dark (data);
}

/* ---- Construction ----------------------------------------------------- */

static void
pfprof_view_window_dispose (GObject *object)
{
  PfprofViewWindow *self = PFPROF_VIEW_WINDOW (object);

  if (self->cancellable)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->follow, pfprof_view_follow_free);
  if (self->tabs != NULL)
    g_signal_handlers_disconnect_matched (self->tabs, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, self);
  g_clear_handle_id (&self->progress_source, g_source_remove);
  g_signal_handlers_disconnect_matched (gtk_recent_manager_get_default (), G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, self);
  if (self->timeline != NULL)
    pfprof_timeline_widget_set_timeline (self->timeline, NULL);
  if (self->overview != NULL)
    pfprof_overview_set_timeline (self->overview, NULL);
  if (self->findings != NULL)
    pfprof_findings_panel_set_analysis (self->findings, NULL);
  G_OBJECT_CLASS (pfprof_view_window_parent_class)->dispose (object);
}

static void
pfprof_view_window_finalize (GObject *object)
{
  PfprofViewWindow *self = PFPROF_VIEW_WINDOW (object);

  g_clear_pointer (&self->loaded, pfprof_view_loaded_free);
  g_clear_pointer (&self->navigator, pfprof_occurrence_navigator_free);
  g_clear_pointer (&self->docs, g_ptr_array_unref);
  g_clear_object (&self->tabs);
  g_atomic_rc_box_release (self->progress);
  G_OBJECT_CLASS (pfprof_view_window_parent_class)->finalize (object);
}

static void
pfprof_view_window_class_init (PfprofViewWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pfprof_view_window_dispose;
  object_class->finalize = pfprof_view_window_finalize;
  signals[SIGNAL_LOADED] = g_signal_new ("loaded", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                         NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);
  signals[SIGNAL_FOLLOWED] = g_signal_new ("followed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                           NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_TAB_SWITCHED] = g_signal_new ("tab-switched", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                               NULL, NULL, NULL, G_TYPE_NONE, 0);
  g_type_ensure (PFPROF_TYPE_TIMELINE_WIDGET);
  g_type_ensure (PFPROF_TYPE_SUMMARY_BAR);
  g_type_ensure (PFPROF_TYPE_OVERVIEW);
  g_type_ensure (PFPROF_TYPE_FINDINGS_PANEL);
  g_type_ensure (PFPROF_TYPE_SELECTED_FINDING);
  g_type_ensure (PFPROF_TYPE_DETAILS_PANEL);
  g_type_ensure (PFPROF_TYPE_SEARCH_BAR);
  g_type_ensure (PFPROF_TYPE_MEASURE_BAR);
  g_type_ensure (PFPROF_TYPE_LEDGER_PANEL);
  g_type_ensure (PFPROF_TYPE_SKETCH_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/pfprof/View/pfprof-view-window.ui");
  gtk_widget_class_bind_template_child (widget_class, PfprofViewWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, PfprofViewWindow, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, PfprofViewWindow, progress_label);
  gtk_widget_class_bind_template_child (widget_class, PfprofViewWindow, sketch_view);
  gtk_widget_class_bind_template_child (widget_class, PfprofViewWindow, no_gpu_label);
  gtk_widget_class_bind_template_child (widget_class, PfprofViewWindow, summary);
  gtk_widget_class_bind_template_child (widget_class, PfprofViewWindow, overview);
  gtk_widget_class_bind_template_child (widget_class, PfprofViewWindow, timeline);
  gtk_widget_class_bind_template_child (widget_class, PfprofViewWindow, findings);
  gtk_widget_class_bind_template_child (widget_class, PfprofViewWindow, selected);
  gtk_widget_class_bind_template_child (widget_class, PfprofViewWindow, details);
  gtk_widget_class_bind_template_child (widget_class, PfprofViewWindow, search);
  gtk_widget_class_bind_template_child (widget_class, PfprofViewWindow, measure);
  gtk_widget_class_bind_template_child (widget_class, PfprofViewWindow, ledger);
  gtk_widget_class_bind_template_child (widget_class, PfprofViewWindow, recent_menu);
  gtk_widget_class_bind_template_callback (widget_class, on_event_selected);
  gtk_widget_class_bind_template_callback (widget_class, on_finding_selected);
  gtk_widget_class_bind_template_callback (widget_class, on_search_finding);
}

static const GActionEntry win_actions[] = {
  { "open", action_open, NULL, NULL, NULL, { 0 } },
  { "open-tab", action_open, NULL, NULL, NULL, { 0 } },
  { "close-tab", action_close_tab, NULL, NULL, NULL, { 0 } },
  { "open-recent", action_open_recent, "s", NULL, NULL, { 0 } },
  { "fit-all", action_fit, NULL, NULL, NULL, { 0 } },
  { "search", action_search, NULL, NULL, NULL, { 0 } },
  { "zoom-in", action_zoom, NULL, NULL, NULL, { 0 } },
  { "zoom-out", action_zoom, NULL, NULL, NULL, { 0 } },
  { "next-occurrence", action_occurrence, NULL, NULL, NULL, { 0 } },
  { "previous-occurrence", action_occurrence, NULL, NULL, NULL, { 0 } },
  { "occurrence-by-time", action_occurrence_by_time, NULL, "false", NULL, { 0 } },
};

static void
pfprof_view_window_init (PfprofViewWindow *self)
{
  GtkDropTarget *drop;
  GtkCssProvider *css;

  self->finding = -1;
  self->navigator = pfprof_occurrence_navigator_new ();
  self->docs = g_ptr_array_new_with_free_func (doc_free);
  g_ptr_array_add (self->docs, NULL);
  /* The tab strip: a notebook whose pages are empty, shown in the header
   * bar once there are two traces; the panels below show the tab's. */
  self->tabs = GTK_NOTEBOOK (gtk_notebook_new ());
  g_object_ref_sink (self->tabs);
  gtk_notebook_set_show_border (self->tabs, FALSE);
  gtk_notebook_set_scrollable (self->tabs, TRUE);
  gtk_notebook_append_page (self->tabs, gtk_box_new (GTK_ORIENTATION_VERTICAL, 0), gtk_label_new ("pfprof"));
  g_signal_connect (self->tabs, "switch-page", G_CALLBACK (on_switch_tab), self);
  self->progress = g_atomic_rc_box_new0 (int);
  gtk_widget_init_template (GTK_WIDGET (self));
  g_action_map_add_action_entries (G_ACTION_MAP (self), win_actions, G_N_ELEMENTS (win_actions), self);

  css = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (css, "/org/pfprof/View/pfprof-view.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  g_object_unref (css);

  pfprof_overview_set_timeline_widget (self->overview, self->timeline);
  pfprof_search_bar_set_timeline_widget (self->search, self->timeline);
  pfprof_measure_bar_set_timeline_widget (self->measure, self->timeline);
  rebuild_recent (self);
  g_signal_connect (gtk_recent_manager_get_default (), "changed", G_CALLBACK (on_recent_changed), self);

  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  g_signal_connect_object (gtk_widget_get_settings (GTK_WIDGET (self)), "notify::gtk-application-prefer-dark-theme",
                           G_CALLBACK (on_settings_changed), self, 0);
  g_signal_connect_object (gtk_widget_get_settings (GTK_WIDGET (self)), "notify::gtk-theme-name",
                           G_CALLBACK (on_settings_changed), self, 0);
  update_dark (self);
}

PfprofViewWindow *
pfprof_view_window_new (GtkApplication *app)
{
  return g_object_new (PFPROF_TYPE_VIEW_WINDOW, "application", app, NULL);
}

PfprofViewLoaded *
pfprof_view_window_get_loaded (PfprofViewWindow *self)
{
  g_return_val_if_fail (PFPROF_IS_VIEW_WINDOW (self), NULL);

  return self->loaded;
}

PfprofTimelineWidget *
pfprof_view_window_get_timeline (PfprofViewWindow *self)
{
  g_return_val_if_fail (PFPROF_IS_VIEW_WINDOW (self), NULL);

  return self->timeline;
}

GtkWidget *
pfprof_view_window_get_error_dialog (PfprofViewWindow *self)
{
  g_return_val_if_fail (PFPROF_IS_VIEW_WINDOW (self), NULL);

  return self->error_dialog;
}

const char *
pfprof_view_window_get_page (PfprofViewWindow *self)
{
  g_return_val_if_fail (PFPROF_IS_VIEW_WINDOW (self), NULL);

  return gtk_stack_get_visible_child_name (self->stack);
}

const char *
pfprof_view_window_get_summary (PfprofViewWindow *self)
{
  g_return_val_if_fail (PFPROF_IS_VIEW_WINDOW (self), NULL);

  return pfprof_summary_bar_get_text (self->summary);
}

const char *
pfprof_view_window_get_details (PfprofViewWindow *self)
{
  g_return_val_if_fail (PFPROF_IS_VIEW_WINDOW (self), NULL);

  return pfprof_details_panel_get_text (self->details);
}

PfprofSelectedFinding *
pfprof_view_window_get_selected_finding (PfprofViewWindow *self)
{
  g_return_val_if_fail (PFPROF_IS_VIEW_WINDOW (self), NULL);

  return self->selected;
}

int
pfprof_view_window_get_occurrence (PfprofViewWindow *self)
{
  g_return_val_if_fail (PFPROF_IS_VIEW_WINDOW (self), -1);

  return current_finding (self) != NULL ? pfprof_occurrence_navigator_get_index (self->navigator) : -1;
}

PfprofSearchBar *
pfprof_view_window_get_search_bar (PfprofViewWindow *self)
{
  g_return_val_if_fail (PFPROF_IS_VIEW_WINDOW (self), NULL);

  return self->search;
}

PfprofMeasureBar *
pfprof_view_window_get_measure_bar (PfprofViewWindow *self)
{
  g_return_val_if_fail (PFPROF_IS_VIEW_WINDOW (self), NULL);

  return self->measure;
}

PfprofFindingsPanel *
pfprof_view_window_get_findings_panel (PfprofViewWindow *self)
{
  g_return_val_if_fail (PFPROF_IS_VIEW_WINDOW (self), NULL);
  return self->findings;
}

PfprofLedgerPanel *
pfprof_view_window_get_ledger_panel (PfprofViewWindow *self)
{
  g_return_val_if_fail (PFPROF_IS_VIEW_WINDOW (self), NULL);

  return self->ledger;
}
