/* SPDX-License-Identifier: MIT */
/* pfprof-search-bar.c: the search bar (pfprof-search-bar.h). */
#include "pfprof-search-bar.h"

#include "pfprof-search.h"

struct _PfprofSearchBar
{
  GtkBox parent_instance;

  /* From the template. */
  GtkSearchBar *bar;
  GtkSearchEntry *entry;
  GtkLabel *count;
  GtkButton *previous;
  GtkButton *next;

  PfprofTimelineWidget *timeline; /* weak */
  /* The matches, and what they were found in: */
  GArray *matches;                /* PfprofSearchMatch */
  gboolean truncated;
  const PfprofTimeline *searched;
  const PfprofAnalysis *searched_analysis;
  char *searched_query;
  int current;                    /* index in matches, -1 before the first step */
};

G_DEFINE_FINAL_TYPE (PfprofSearchBar, pfprof_search_bar, GTK_TYPE_BOX)

enum
{
  SIGNAL_FINDING_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
show_count (PfprofSearchBar *self)
{
  g_autofree char *q = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->entry))));
  g_autofree char *text = NULL;

  if (*q == '\0' || self->matches == NULL)
    text = g_strdup ("");
  else if (self->matches->len == 0)
    text = g_strdup ("No matches");
  else if (self->current < 0)
    text = g_strdup_printf ("%u%s %s", self->matches->len, self->truncated ? "+" : "",
                            self->matches->len == 1 && !self->truncated ? "match" : "matches");
  else
    text = g_strdup_printf ("%d of %u%s", self->current + 1, self->matches->len, self->truncated ? "+" : "");
  gtk_label_set_text (self->count, text);
}

/* Searches again when the query, the timeline or its analysis changed. */
static void
refresh (PfprofSearchBar *self)
{
  PfprofTimeline *tl = self->timeline != NULL ? pfprof_timeline_widget_get_timeline (self->timeline) : NULL;
  const char *q = gtk_editable_get_text (GTK_EDITABLE (self->entry));

  if (self->matches != NULL && tl == self->searched && (tl == NULL || tl->analysis == self->searched_analysis)
      && g_strcmp0 (q, self->searched_query) == 0)
    return;
  g_clear_pointer (&self->matches, g_array_unref);
  self->matches = pfprof_search_find (tl, q, &self->truncated);
  self->searched = tl;
  self->searched_analysis = tl != NULL ? tl->analysis : NULL;
  g_free (self->searched_query);
  self->searched_query = g_strdup (q);
  self->current = -1;
}

/* Puts match @m in view: the zoom stays unless the event would be a
 * sliver (or not fit); then it fills a fiftieth of the width. */
static void
show_match (PfprofSearchBar *self, const PfprofSearchMatch *m)
{
  const PfprofRenderView *v = pfprof_timeline_widget_get_view (self->timeline);
  gint64 len = MAX (m->end_ns - m->start_ns, 1);
  gint64 span = v->t1 - v->t0, mid = m->start_ns + len / 2;

  if (span > len * 50)
    span = MAX (len * 50, 20000);
  if (span < len + len / 4)
    span = len + len / 4;
  if (m->finding >= 0)
    {
      g_signal_emit (self, signals[SIGNAL_FINDING_ACTIVATED], 0, m->finding);
      return;
    }
  if (m->start_ns < v->t0 || m->end_ns > v->t1 || span != v->t1 - v->t0)
    pfprof_timeline_widget_set_range (self->timeline, mid - span / 2, mid - span / 2 + span);
  pfprof_timeline_widget_select_event (self->timeline, m->row, m->ref);
  pfprof_timeline_widget_scroll_to_row (self->timeline, m->row);
}

void
pfprof_search_bar_update (PfprofSearchBar *self)
{
  g_return_if_fail (PFPROF_IS_SEARCH_BAR (self));

  if (!gtk_search_bar_get_search_mode (self->bar))
    return;
  refresh (self);
  show_count (self);
}

void
pfprof_search_bar_step (PfprofSearchBar *self, int delta)
{
  int n;

  g_return_if_fail (PFPROF_IS_SEARCH_BAR (self));
  if (self->timeline == NULL)
    return;
  refresh (self);
  n = (int) self->matches->len;
  if (n == 0)
    {
      show_count (self);
      return;
    }
  if (self->current < 0)
    {
      /* The first step goes to the first match after the middle of the
       * view (or the last one before it), as a find from here would. */
      const PfprofRenderView *v = pfprof_timeline_widget_get_view (self->timeline);
      gint64 mid = v->t0 + (v->t1 - v->t0) / 2;
      int k = 0;

      while (k < n && g_array_index (self->matches, PfprofSearchMatch, k).start_ns < mid)
        k++;
      self->current = delta > 0 ? (k < n ? k : 0) : (k > 0 ? k - 1 : n - 1);
    }
  else
    self->current = ((self->current + delta) % n + n) % n;
  show_count (self);
  show_match (self, &g_array_index (self->matches, PfprofSearchMatch, self->current));
}

/* Matches point into the rows of the timeline they were found in. */
static void
on_timeline_changed (PfprofTimelineWidget *tw, PfprofSearchBar *self)
{
  g_clear_pointer (&self->matches, g_array_unref);
  self->searched = NULL;
  self->current = -1;
  if (gtk_search_bar_get_search_mode (self->bar))
    refresh (self);
  show_count (self);
}

static void
on_search_changed (GtkSearchEntry *entry, PfprofSearchBar *self)
{
  refresh (self);
  show_count (self);
}

static void
on_activate (GtkSearchEntry *entry, PfprofSearchBar *self)
{
  pfprof_search_bar_step (self, 1);
}

static void
on_next_match (GtkSearchEntry *entry, PfprofSearchBar *self)
{
  pfprof_search_bar_step (self, 1);
}

static void
on_previous_match (GtkSearchEntry *entry, PfprofSearchBar *self)
{
  pfprof_search_bar_step (self, -1);
}

static void
on_stop_search (GtkSearchEntry *entry, PfprofSearchBar *self)
{
  gtk_search_bar_set_search_mode (self->bar, FALSE);
  if (self->timeline != NULL)
    gtk_widget_grab_focus (GTK_WIDGET (self->timeline));
}

static void
on_previous_clicked (GtkButton *b, PfprofSearchBar *self)
{
  pfprof_search_bar_step (self, -1);
}

static void
on_next_clicked (GtkButton *b, PfprofSearchBar *self)
{
  pfprof_search_bar_step (self, 1);
}

/* Shift+Enter in the entry: the previous match (the entry itself takes
 * Enter, with or without Shift, for "activate"). */
static gboolean
on_entry_key (GtkEventControllerKey *ctl, guint keyval, guint keycode, GdkModifierType state, PfprofSearchBar *self)
{
  if ((keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter || keyval == GDK_KEY_ISO_Enter)
      && (state & GDK_SHIFT_MASK))
    {
      pfprof_search_bar_step (self, -1);
      return TRUE;
    }
  return FALSE;
}

static gboolean
shortcut_open (GtkWidget *w, GVariant *args, gpointer data)
{
  pfprof_search_bar_open (data);
  return TRUE;
}

static gboolean
shortcut_step (GtkWidget *w, GVariant *args, gpointer data)
{
  PfprofSearchBar *self = data;

  if (!pfprof_search_bar_is_open (self))
    pfprof_search_bar_open (self);
  pfprof_search_bar_step (self, g_variant_get_int32 (args));
  return TRUE;
}

static void
add_shortcut (GtkShortcutController *c, const char *trigger, GtkShortcutFunc fn, gpointer data, GVariant *args)
{
  GtkShortcut *s = gtk_shortcut_new (gtk_shortcut_trigger_parse_string (trigger),
                                     gtk_callback_action_new (fn, data, NULL));

  if (args != NULL)
    gtk_shortcut_set_arguments (s, args);
  gtk_shortcut_controller_add_shortcut (c, s);
}

void
pfprof_search_bar_set_timeline_widget (PfprofSearchBar *self, PfprofTimelineWidget *timeline)
{
  GtkEventController *c;

  g_return_if_fail (PFPROF_IS_TIMELINE_WIDGET (timeline));
  g_return_if_fail (PFPROF_IS_SEARCH_BAR (self));
  g_set_weak_pointer (&self->timeline, timeline);
  g_signal_connect_object (timeline, "timeline-changed", G_CALLBACK (on_timeline_changed), self, 0);
  /* `/` where the timeline has the keys (a letter key would be WASD). */
  c = gtk_shortcut_controller_new ();
  add_shortcut (GTK_SHORTCUT_CONTROLLER (c), "slash|KP_Divide", shortcut_open, self, NULL);
  gtk_widget_add_controller (GTK_WIDGET (timeline), c);
}

void
pfprof_search_bar_open (PfprofSearchBar *self)
{
  g_return_if_fail (PFPROF_IS_SEARCH_BAR (self));

  gtk_search_bar_set_search_mode (self->bar, TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->entry));
  gtk_editable_select_region (GTK_EDITABLE (self->entry), 0, -1);
}

gboolean
pfprof_search_bar_is_open (PfprofSearchBar *self)
{
  g_return_val_if_fail (PFPROF_IS_SEARCH_BAR (self), FALSE);

  return gtk_search_bar_get_search_mode (self->bar);
}

GtkEditable *
pfprof_search_bar_get_entry (PfprofSearchBar *self)
{
  g_return_val_if_fail (PFPROF_IS_SEARCH_BAR (self), NULL);

  return GTK_EDITABLE (self->entry);
}

const char *
pfprof_search_bar_get_count (PfprofSearchBar *self)
{
  g_return_val_if_fail (PFPROF_IS_SEARCH_BAR (self), NULL);

  return gtk_label_get_text (self->count);
}

static void
pfprof_search_bar_dispose (GObject *object)
{
  PfprofSearchBar *self = PFPROF_SEARCH_BAR (object);

  if (self->timeline != NULL)
    g_signal_handlers_disconnect_by_data (self->timeline, self);
  g_clear_weak_pointer (&self->timeline);
  gtk_widget_dispose_template (GTK_WIDGET (self), PFPROF_TYPE_SEARCH_BAR);
  G_OBJECT_CLASS (pfprof_search_bar_parent_class)->dispose (object);
}

static void
pfprof_search_bar_finalize (GObject *object)
{
  PfprofSearchBar *self = PFPROF_SEARCH_BAR (object);

  g_clear_pointer (&self->matches, g_array_unref);
  g_free (self->searched_query);
  G_OBJECT_CLASS (pfprof_search_bar_parent_class)->finalize (object);
}

static void
pfprof_search_bar_class_init (PfprofSearchBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pfprof_search_bar_dispose;
  object_class->finalize = pfprof_search_bar_finalize;
  signals[SIGNAL_FINDING_ACTIVATED] = g_signal_new ("finding-activated", G_TYPE_FROM_CLASS (klass),
                                                    G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                                    1, G_TYPE_INT);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/pfprof/View/pfprof-search-bar.ui");
  gtk_widget_class_bind_template_child (widget_class, PfprofSearchBar, bar);
  gtk_widget_class_bind_template_child (widget_class, PfprofSearchBar, entry);
  gtk_widget_class_bind_template_child (widget_class, PfprofSearchBar, count);
  gtk_widget_class_bind_template_child (widget_class, PfprofSearchBar, previous);
  gtk_widget_class_bind_template_child (widget_class, PfprofSearchBar, next);
}

static void
pfprof_search_bar_init (PfprofSearchBar *self)
{
  GtkEventController *c;

  self->current = -1;
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_search_bar_connect_entry (self->bar, GTK_EDITABLE (self->entry));
  g_signal_connect (self->entry, "search-changed", G_CALLBACK (on_search_changed), self);
  g_signal_connect (self->entry, "activate", G_CALLBACK (on_activate), self);
  g_signal_connect (self->entry, "next-match", G_CALLBACK (on_next_match), self);
  g_signal_connect (self->entry, "previous-match", G_CALLBACK (on_previous_match), self);
  g_signal_connect (self->entry, "stop-search", G_CALLBACK (on_stop_search), self);
  g_signal_connect (self->previous, "clicked", G_CALLBACK (on_previous_clicked), self);
  g_signal_connect (self->next, "clicked", G_CALLBACK (on_next_clicked), self);
  c = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (c, GTK_PHASE_CAPTURE);
  g_signal_connect (c, "key-pressed", G_CALLBACK (on_entry_key), self);
  gtk_widget_add_controller (GTK_WIDGET (self->entry), c);
  /* Ctrl+F and F3 wherever the focus is in the window. */
  c = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_set_scope (GTK_SHORTCUT_CONTROLLER (c), GTK_SHORTCUT_SCOPE_GLOBAL);
  add_shortcut (GTK_SHORTCUT_CONTROLLER (c), "<Control>f", shortcut_open, self, NULL);
  add_shortcut (GTK_SHORTCUT_CONTROLLER (c), "F3", shortcut_step, self, g_variant_new_int32 (1));
  add_shortcut (GTK_SHORTCUT_CONTROLLER (c), "<Shift>F3", shortcut_step, self, g_variant_new_int32 (-1));
  gtk_widget_add_controller (GTK_WIDGET (self), c);
}

GtkWidget *
pfprof_search_bar_new (void)
{
  return g_object_new (PFPROF_TYPE_SEARCH_BAR, NULL);
}
