/* SPDX-License-Identifier: MIT */
/* test-view-window.c: the main window in-process under Xvfb: a trace
 * dropped on it (through its drop target, as a file manager's drop would
 * arrive) is loaded off the main thread and shown, and remembered in
 * the recent files; a dropped file that is not a trace gives the error
 * dialog and leaves the window usable; the recent traces menu shows names
 * as they are, and the folder of two that share a name; the open
 * dialog's filters take every format pfprof reads; a recorded sample
 * opens on its steady state, its step ledger panel shows the text
 * report's rows, and a search for a finding's rule selects the finding; a
 * sample recorded with --sample has its pauses shaded on the timeline. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <gtk/gtk.h>

#include "pfprof-format.h"
#include "pfprof-framing.h"
#include "pfprof-renderer.h"
#include "pfprof-report.h"
#include "pfprof-view-window.h"
#include "render-test-util.h"

static char *tmp_dir;
static char *trace_path;
static char *sample_path;

typedef struct
{
  gboolean done;
  gboolean ok;
} Loaded;

static void
on_loaded (PfprofViewWindow *w, gboolean ok, gpointer data)
{
  Loaded *l = data;

  l->done = TRUE;
  l->ok = ok;
}

static GtkDropTarget *
drop_target (GtkWidget *w)
{
  GListModel *list = gtk_widget_observe_controllers (w);
  GtkDropTarget *found = NULL;

  for (guint i = 0; i < g_list_model_get_n_items (list) && found == NULL; i++)
    {
      GObject *c = g_list_model_get_item (list, i);

      if (GTK_IS_DROP_TARGET (c))
        found = GTK_DROP_TARGET (c);
      g_object_unref (c);
    }
  g_object_unref (list);
  g_assert_nonnull (found);
  return found;
}

/* Drops @path on @win and waits for the load to finish. */
static gboolean
drop_and_wait (PfprofViewWindow *win, const char *path)
{
  Loaded l = { FALSE, FALSE };
  GValue v = G_VALUE_INIT;
  GSList *files = g_slist_append (NULL, g_file_new_for_path (path));
  gboolean accepted = FALSE;
  gulong id = g_signal_connect (win, "loaded", G_CALLBACK (on_loaded), &l);
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  g_value_init (&v, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&v, gdk_file_list_new_from_list (files));
  g_signal_emit_by_name (drop_target (GTK_WIDGET (win)), "drop", &v, 100.0, 100.0, &accepted);
  g_value_unset (&v);
  g_slist_free_full (files, g_object_unref);
  g_assert_true (accepted);
  /* Loading runs on a worker: the window shows its progress meanwhile. */
  g_assert_cmpstr (pfprof_view_window_get_page (win), ==, "loading");
  while (!l.done && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_signal_handler_disconnect (win, id);
  g_assert_true (l.done);
  return l.ok;
}

static void
test_drop_trace (void)
{
  PfprofViewWindow *win = pfprof_view_window_new (NULL);
  g_autofree char *uri = g_filename_to_uri (trace_path, NULL, NULL);

  gtk_window_present (GTK_WINDOW (win));
  g_assert_cmpstr (pfprof_view_window_get_page (win), ==, "empty");
  g_assert_true (drop_and_wait (win, trace_path));
  g_assert_cmpstr (pfprof_view_window_get_page (win), ==, "content");
  g_assert_nonnull (strstr (gtk_window_get_title (GTK_WINDOW (win)), "planted.pfprof"));
  g_assert_nonnull (pfprof_view_window_get_loaded (win));
  g_assert_true (gtk_recent_manager_has_item (gtk_recent_manager_get_default (), uri));
  gtk_window_destroy (GTK_WINDOW (win));
}

static void
test_drop_bad_file (void)
{
  PfprofViewWindow *win = pfprof_view_window_new (NULL);
  g_autofree char *bad = g_build_filename (tmp_dir, "notes.txt", NULL);
  GtkWidget *dialog;

  g_assert_true (g_file_set_contents (bad, "not a trace", -1, NULL));
  gtk_window_present (GTK_WINDOW (win));
  g_assert_true (drop_and_wait (win, trace_path));
  g_assert_false (drop_and_wait (win, bad));
  dialog = pfprof_view_window_get_error_dialog (win);
  g_assert_nonnull (dialog);
  g_assert_true (gtk_widget_get_visible (dialog));
  /* What was shown before stays. */
  g_assert_cmpstr (pfprof_view_window_get_page (win), ==, "content");
  g_assert_nonnull (pfprof_view_window_get_loaded (win));
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CLOSE);
  g_assert_null (pfprof_view_window_get_error_dialog (win));
  /* And it still loads. */
  g_assert_true (drop_and_wait (win, trace_path));
  gtk_window_destroy (GTK_WINDOW (win));
}

/* The texts of the labels under @w, in order. */
static void
collect_labels (GtkWidget *w, GPtrArray *texts)
{
  if (GTK_IS_LABEL (w))
    g_ptr_array_add (texts, g_strdup (gtk_label_get_text (GTK_LABEL (w))));
  for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL; c = gtk_widget_get_next_sibling (c))
    collect_labels (c, texts);
}

static GtkWidget *
find_menu_button (GtkWidget *w, const char *icon)
{
  if (GTK_IS_MENU_BUTTON (w) && g_strcmp0 (gtk_menu_button_get_icon_name (GTK_MENU_BUTTON (w)), icon) == 0)
    return w;
  for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_menu_button (c, icon);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
has_text (GPtrArray *texts, const char *want)
{
  for (guint i = 0; i < texts->len; i++)
    if (g_str_equal (g_ptr_array_index (texts, i), want))
      return TRUE;
  return FALSE;
}

static void
test_recent_menu (void)
{
  PfprofViewWindow *win = pfprof_view_window_new (NULL);
  g_autofree char *d1 = g_build_filename (tmp_dir, "run_1", NULL);
  g_autofree char *d2 = g_build_filename (tmp_dir, "run_2", NULL);
  g_autofree char *p1 = g_build_filename (d1, "rank_0.pfprof", NULL);
  g_autofree char *p2 = g_build_filename (d2, "rank_0.pfprof", NULL);
  g_autofree char *want1 = g_strdup_printf ("rank_0.pfprof \u2014 %s", d1);
  g_autofree char *want2 = g_strdup_printf ("rank_0.pfprof \u2014 %s", d2);
  g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *data = NULL;
  gsize len;
  GtkWidget *button;
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  g_assert_true (g_file_get_contents (trace_path, &data, &len, NULL));
  g_assert_cmpint (g_mkdir (d1, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (d2, 0700), ==, 0);
  g_assert_true (g_file_set_contents (p1, data, (gssize) len, NULL));
  g_assert_true (g_file_set_contents (p2, data, (gssize) len, NULL));
  gtk_window_present (GTK_WINDOW (win));
  g_assert_true (drop_and_wait (win, p1));
  g_assert_true (drop_and_wait (win, p2));
  /* The recent files are saved, and the menu rebuilt, from the main loop. */
  while (g_get_monotonic_time () < deadline)
    {
      g_ptr_array_set_size (texts, 0);
      button = find_menu_button (gtk_window_get_titlebar (GTK_WINDOW (win)), "document-open-recent-symbolic");
      g_assert_nonnull (button);
      gtk_menu_button_popup (GTK_MENU_BUTTON (button));
      for (int i = 0; i < 5; i++)
        g_main_context_iteration (NULL, FALSE);
      collect_labels (GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (button))), texts);
      gtk_menu_button_popdown (GTK_MENU_BUTTON (button));
      if (has_text (texts, want1) && has_text (texts, want2))
        break;
      g_usleep (50000);
      g_main_context_iteration (NULL, FALSE);
    }
  /* Underscores shown, not taken for mnemonics; the two told apart. */
  g_assert_true (has_text (texts, want1));
  g_assert_true (has_text (texts, want2));
  /* A name no other recent trace has goes without its folder. */
  g_assert_true (has_text (texts, "planted.pfprof"));
  gtk_window_destroy (GTK_WINDOW (win));
  g_unlink (p1);
  g_unlink (p2);
  g_rmdir (d1);
  g_rmdir (d2);
}

static gboolean
filter_takes (GtkFilter *filter, const char *name)
{
  g_autoptr (GFileInfo) info = g_file_info_new ();

  g_file_info_set_display_name (info, name);
  g_file_info_set_name (info, name);
  return gtk_filter_match (filter, info);
}

static void
test_open_filters (void)
{
  static const char *const traces[] = { "run.pfprof", "run.nsys-rep.sqlite", "trace.json", "trace.pt.trace.json.gz" };
  g_autoptr (GListModel) filters = pfprof_view_window_new_file_filters ();
  g_autoptr (GtkFilter) first = g_list_model_get_item (filters, 0);

  g_assert_cmpuint (g_list_model_get_n_items (filters), >=, 2);
  /* The filter the dialog opens with takes every format... */
  for (guint i = 0; i < G_N_ELEMENTS (traces); i++)
    g_assert_true (filter_takes (first, traces[i]));
  g_assert_false (filter_takes (first, "notes.txt"));
  /* ...and each has a filter of its own besides. */
  for (guint i = 0; i < G_N_ELEMENTS (traces); i++)
    {
      guint n = 0;

      for (guint j = 1; j < g_list_model_get_n_items (filters); j++)
        {
          g_autoptr (GtkFilter) f = g_list_model_get_item (filters, j);

          n += filter_takes (f, traces[i]) && !filter_takes (f, "notes.txt");
        }
      g_assert_cmpuint (n, ==, 1);
    }
}

/* The timeline opens on the steady state the analysis found, not on the
 * whole run; fit all (the header's button) shows the whole run. */
static void
test_steady_framing (void)
{
  PfprofViewWindow *win = pfprof_view_window_new (NULL);
  const PfprofRenderView *v;
  PfprofViewLoaded *loaded;
  gint64 t0, t1;

  gtk_window_present (GTK_WINDOW (win));
  g_assert_true (drop_and_wait (win, sample_path));
  loaded = pfprof_view_window_get_loaded (win);
  v = pfprof_timeline_widget_get_view (pfprof_view_window_get_timeline (win));
  g_assert_true (pfprof_framing_steady (loaded->analysis, &t0, &t1));
  g_test_message ("steady [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "], run [%" G_GINT64_FORMAT
                  ", %" G_GINT64_FORMAT "]", t0, t1, loaded->timeline->start_ns, loaded->timeline->end_ns);
  g_assert_cmpint (v->t0, ==, t0);
  g_assert_cmpint (v->t1, ==, t1);
  /* The sample's start-up is most of the run: the view shows less than
   * half of it, and starts after the warm-up step. */
  g_assert_cmpint (v->t1 - v->t0, <, (loaded->timeline->end_ns - loaded->timeline->start_ns) / 2);
  g_assert_cmpint (v->t0, >, g_array_index (loaded->analysis->steps, PfprofStep, 0).start_ns);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.fit-all", NULL));
  g_assert_cmpint (v->t0, ==, loaded->timeline->start_ns);
  g_assert_cmpint (v->t1, ==, loaded->timeline->end_ns);
  gtk_window_destroy (GTK_WINDOW (win));
}

/* Luminance (0..255) of pixel (@x, @y) of @img (BGRA in memory). */
static double
luma_at (cairo_surface_t *img, int x, int y)
{
  const guint8 *px = cairo_image_surface_get_data (img) + y * cairo_image_surface_get_stride (img) + x * 4;

  return 0.2126 * px[2] + 0.7152 * px[1] + 0.0722 * px[0];
}

static void
test_sampled_pauses (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("PFPROF_SAMPLES"), "a_pageable_sampled.pfprof", NULL);
  PfprofViewWindow *win = pfprof_view_window_new (NULL);
  PfprofTimelineWidget *tw;
  const PfprofRenderView *v;
  PfprofViewLoaded *loaded;
  const PfprofTrace *t;
  const PfprofWindowRecord *w;
  GdkPaintable *p;
  GtkSnapshot *snap;
  g_autoptr (GskRenderNode) node = NULL;
  cairo_surface_t *img;
  cairo_t *cr;
  int row = -1, y, checked = 0;

  gtk_window_present (GTK_WINDOW (win));
  g_assert_true (drop_and_wait (win, path));
  loaded = pfprof_view_window_get_loaded (win);
  tw = pfprof_view_window_get_timeline (win);
  v = pfprof_timeline_widget_get_view (tw);
  t = g_ptr_array_index (loaded->timeline->traces, 0);
  w = pfprof_trace_windows (t);
  g_assert_cmpuint (pfprof_trace_n (t, PFPROF_TABLE_WINDOWS), >=, 3);
  for (guint i = 0; i < loaded->timeline->rows->len && row < 0; i++)
    if (pfprof_timeline_get_row (loaded->timeline, i)->type == PFPROF_ROW_DEVICE_SYNC)
      row = (int) i;
  g_assert_cmpint (row, >=, 0);
  y = (int) (pfprof_renderer_row_y (loaded->timeline, v, (guint) row)
             + pfprof_renderer_row_height (loaded->timeline, v, (guint) row) / 2);

  {
    guint target = pfprof_timeline_widget_n_frames (tw) + 1;
    gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

    gtk_widget_queue_draw (GTK_WIDGET (tw));
    while (pfprof_timeline_widget_n_frames (tw) < target && g_get_monotonic_time () < deadline)
      g_main_context_iteration (NULL, TRUE);
    g_assert_cmpuint (pfprof_timeline_widget_n_frames (tw), >=, target);
  }
  p = gtk_widget_paintable_new (GTK_WIDGET (tw));
  snap = gtk_snapshot_new ();
  img = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) v->width, (int) v->height);
  cr = cairo_create (img);
  gdk_paintable_snapshot (p, snap, v->width, v->height);
  node = gtk_snapshot_free_to_node (snap);
  g_assert_nonnull (node);
  gsk_render_node_draw (node, cr);
  cairo_surface_flush (img);
  /* Every pause between two windows the view shows: darker than the
   * row's own colour at its left edge; the middle of each window: not. */
  for (guint i = 0; i + 1 < pfprof_trace_n (t, PFPROF_TABLE_WINDOWS); i++)
    {
      double xp = pfprof_renderer_x_of (v, (w[i].end_ns + w[i + 1].start_ns) / 2);
      double xw = pfprof_renderer_x_of (v, w[i + 1].start_ns + (w[i + 1].end_ns - w[i + 1].start_ns) / 2);

      if (xp <= v->label_width + 2 || xw >= v->width - 2)
        continue;
      g_test_message ("pause %u: luma %.0f at x %.0f, row %.0f", i, luma_at (img, (int) xp, y), xp,
                      luma_at (img, 1, y));
      g_assert_cmpfloat (luma_at (img, (int) xp, y), <, luma_at (img, 1, y) - 12);
      g_assert_cmpfloat (fabs (luma_at (img, (int) xw, y) - luma_at (img, 1, y)), <, 3);
      checked++;
    }
  g_assert_cmpint (checked, >=, 2);
  cairo_destroy (cr);
  cairo_surface_destroy (img);
  g_object_unref (p);
  gtk_window_destroy (GTK_WINDOW (win));
}

/* The line of @report that starts with "  LABEL " and holds @cells in
 * order, or NULL. */
static const char *
report_row (char **lines, char **cells)
{
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autofree char *head = g_strdup_printf ("  %s ", cells[0]);
      const char *p = lines[i];

      if (!g_str_has_prefix (p, head))
        continue;
      p += strlen (head);
      for (guint c = 1; cells[c] != NULL && p != NULL; c++)
        if (g_strcmp0 (cells[c], "*") != 0)
          p = strstr (p, cells[c]) ? strstr (p, cells[c]) + strlen (cells[c]) : NULL;
      if (p != NULL)
        return lines[i];
    }
  return NULL;
}

/* The ledger panel shows the text report's ledger: every row with the
 * same label, mean, share and median; a selected finding marks the
 * buckets its saving comes from and says what its fix predicts. */
static void
test_ledger_panel (void)
{
  PfprofViewWindow *win = pfprof_view_window_new (NULL);
  PfprofLedgerPanel *panel;
  PfprofViewLoaded *loaded;
  PfprofReportOptions opts;
  g_autoptr (GString) report = g_string_new ("");
  g_auto (GStrv) report_lines = NULL;
  g_auto (GStrv) lines = NULL;
  g_autofree char *text = NULL;
  const PfprofFinding *f;
  guint n_rows = 0, n_marked = 0;

  gtk_window_present (GTK_WINDOW (win));
  panel = pfprof_view_window_get_ledger_panel (win);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (panel)));
  g_assert_true (drop_and_wait (win, sample_path));
  loaded = pfprof_view_window_get_loaded (win);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (panel)));
  pfprof_report_options_init (&opts);
  opts.width = 1000; /* one line per paragraph */
  pfprof_report_text (loaded->analysis, &opts, report);
  report_lines = g_strsplit (report->str, "\n", -1);
  text = pfprof_ledger_panel_get_text (panel);
  g_test_message ("%s", text);
  lines = g_strsplit (text, "\n", -1);
  /* The headline: the report's words and figures. */
  {
    const PfprofLedgerSummary *l = &loaded->analysis->ledger;
    g_autofree char *rate = pfprof_format_double (1e9 / (double) l->mean_step_ns, 1);
    g_autofree char *mean = pfprof_format_ns (l->mean_step_ns);
    g_autofree char *median = pfprof_format_ns (l->median_step_ns);
    g_autofree char *steps = g_strdup_printf ("GPU side of %u steady steps", l->n_steps);
    g_autofree char *figures = g_strdup_printf ("%s steps/s; mean step %s, median step %s", rate, mean, median);

    g_assert_nonnull (strstr (lines[0], steps));
    g_assert_nonnull (strstr (report->str, steps));
    g_assert_nonnull (strstr (lines[0], figures));
    g_assert_nonnull (strstr (report->str, figures));
  }
  for (guint i = 1; lines[i] != NULL && lines[i + 1] != NULL; i++)
    {
      g_auto (GStrv) cells = g_strsplit (lines[i], "\t", -1);

      g_assert_cmpuint (g_strv_length (cells), >=, 4);
      g_assert_nonnull (report_row (report_lines, cells));
      n_rows++;
    }
  g_assert_cmpuint (n_rows, >=, 3);
  /* The same rows as the report: no more, no fewer. */
  {
    guint n_report = 0;

    for (guint b = 0; b < PFPROF_LEDGER_N_BUCKETS; b++)
      {
        g_autofree char *head = g_strdup_printf ("  %s ", pfprof_ledger_bucket_label ((PfprofLedgerBucket) b));

        for (guint i = 0; report_lines[i] != NULL; i++)
          if (g_str_has_prefix (report_lines[i], head))
            {
              n_report++;
              break;
            }
      }
    g_assert_cmpuint (n_rows, ==, n_report);
  }
  /* The selected finding's buckets, and its own prediction. */
  g_assert_true (pfprof_view_window_select_finding (win, 0));
  f = g_ptr_array_index (loaded->analysis->findings, 0);
  g_clear_pointer (&text, g_free);
  g_clear_pointer (&lines, g_strfreev);
  text = pfprof_ledger_panel_get_text (panel);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 1; lines[i] != NULL && lines[i + 1] != NULL; i++)
    n_marked += g_str_has_suffix (lines[i], "\t*");
  g_assert_cmpuint (f->buckets, !=, 0);
  g_assert_cmpuint (n_marked, >=, 1);
  {
    g_autofree char *saving = pfprof_report_saving (f);

    g_assert_nonnull (strstr (text, saving));
  }
  gtk_window_destroy (GTK_WINDOW (win));
}

/* A search for a finding's rule selects that finding in the list. */
static void
test_search_finding (void)
{
  PfprofViewWindow *win = pfprof_view_window_new (NULL);
  PfprofSearchBar *bar;
  PfprofViewLoaded *loaded;
  const PfprofFinding *f;

  gtk_window_present (GTK_WINDOW (win));
  g_assert_true (drop_and_wait (win, sample_path));
  loaded = pfprof_view_window_get_loaded (win);
  f = g_ptr_array_index (loaded->analysis->findings, 0);
  bar = pfprof_view_window_get_search_bar (win);
  g_assert_false (pfprof_search_bar_is_open (bar));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.search", NULL));
  g_assert_true (pfprof_search_bar_is_open (bar));
  gtk_editable_set_text (pfprof_search_bar_get_entry (bar), f->rule);
  pfprof_search_bar_step (bar, 1);
  g_assert_cmpstr (pfprof_search_bar_get_count (bar), ==, "1 of 1");
  g_assert_cmpint (pfprof_timeline_widget_get_view (pfprof_view_window_get_timeline (win))->selected_finding, ==, 0);
  g_assert_cmpint (pfprof_view_window_get_occurrence (win), >=, 0);
  /* Another load: the matches are found again in what it shows. */
  g_assert_true (drop_and_wait (win, sample_path));
  g_assert_cmpstr (pfprof_search_bar_get_count (bar), ==, "1 match");
  pfprof_search_bar_step (bar, 1);
  g_assert_cmpstr (pfprof_search_bar_get_count (bar), ==, "1 of 1");
  gtk_window_destroy (GTK_WINDOW (win));
}

int
main (int argc, char **argv)
{
  PfprofTrace *t;
  int rc;

  gtk_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("pfprof-window-XXXXXX", NULL);
  trace_path = g_build_filename (tmp_dir, "planted.pfprof", NULL);
  t = rt_trace_new (FALSE, NULL);
  g_assert_true (rt_trace_write (t, trace_path));
  pfprof_trace_free (t);
  g_test_add_func ("/view-window/drop-trace", test_drop_trace);
  g_test_add_func ("/view-window/drop-bad-file", test_drop_bad_file);
  g_test_add_func ("/view-window/recent-menu", test_recent_menu);
  g_test_add_func ("/view-window/open-filters", test_open_filters);
  sample_path = g_build_filename (g_getenv ("PFPROF_SAMPLES"), "a_pageable.pfprof", NULL);
  g_test_add_func ("/view-window/steady-framing", test_steady_framing);
  g_test_add_func ("/view-window/ledger-panel", test_ledger_panel);
  g_test_add_func ("/view-window/search-finding", test_search_finding);
  g_test_add_func ("/view-window/sampled-pauses", test_sampled_pauses);
  rc = g_test_run ();
  {
    g_autofree char *bad = g_build_filename (tmp_dir, "notes.txt", NULL);

    g_unlink (bad);
    g_unlink (trace_path);
    g_rmdir (tmp_dir);
  }
  g_free (trace_path);
  g_free (sample_path);
  g_free (tmp_dir);
  return rc;
}
