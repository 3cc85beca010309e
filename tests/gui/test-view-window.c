/* SPDX-License-Identifier: MIT */
/* test-view-window.c: the main window in-process under Xvfb: a trace
 * dropped on it (through its drop target, as a file manager's drop would
 * arrive) is loaded off the main thread and shown, and remembered in
 * the recent files; a dropped file that is not a trace gives the error
 * dialog and leaves the window usable; the recent traces menu shows names
 * as they are, and the folder of two that share a name; the open
 * dialog's filters take every format pfprof reads. */
#include <glib/gstdio.h>
#include <string.h>
#include <gtk/gtk.h>

#include "pfprof-view-window.h"
#include "render-test-util.h"

static char *tmp_dir;
static char *trace_path;

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
  rc = g_test_run ();
  {
    g_autofree char *bad = g_build_filename (tmp_dir, "notes.txt", NULL);

    g_unlink (bad);
    g_unlink (trace_path);
    g_rmdir (tmp_dir);
  }
  g_free (trace_path);
  g_free (tmp_dir);
  return rc;
}
