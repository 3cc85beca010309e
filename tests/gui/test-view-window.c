/* test-view-window.c: the main window in-process under Xvfb: a trace
 * dropped on it (through its drop target, as a file manager's drop would
 * arrive) is loaded off the main thread and shown, and remembered in
 * the recent files; a dropped file that is not a trace gives the error
 * dialog and leaves the window usable. */
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
