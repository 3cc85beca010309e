/* SPDX-License-Identifier: MIT */
/* test-view-tabs.c: a second trace opens in a tab beside the first, in a
 * real window under Xvfb: the tab strip appears in the header bar with
 * both names, each tab shows its own trace, findings, view and selected
 * finding when switched to (the first trace is not read again), and a
 * tab whose trace cannot be read goes again, back to the one before; a
 * closed tab gives way to its neighbour. */
#include <string.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "pfprof-view-window.h"

static const char *samples;

static void
on_loaded (PfprofViewWindow *w, gboolean ok, gpointer data)
{
  *(int *) data = ok ? 1 : 0;
}

static int
open_and_wait (PfprofViewWindow *win, const char *name, gboolean new_tab)
{
  g_autofree char *path = g_build_filename (samples, name, NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  int done = -1;
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  gulong id = g_signal_connect (win, "loaded", G_CALLBACK (on_loaded), &done);

  if (new_tab)
    pfprof_view_window_open_in_new_tab (win, &file, 1);
  else
    pfprof_view_window_open (win, &file, 1);
  while (done < 0 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_signal_handler_disconnect (win, id);
  return done;
}

static const char *
trace_name (PfprofViewWindow *win)
{
  const PfprofTrace *t = g_ptr_array_index (pfprof_view_window_get_loaded (win)->analysis->traces, 0);

  return strrchr (t->path, '/') + 1;
}

static const char *
tab_text (GtkNotebook *tabs, int n)
{
  return gtk_notebook_get_tab_label_text (tabs, gtk_notebook_get_nth_page (tabs, n));
}

static void
test_two_tabs (void)
{
  PfprofViewWindow *win = pfprof_view_window_new (NULL);
  GtkNotebook *tabs = pfprof_view_window_get_tabs (win);
  GtkHeaderBar *bar = GTK_HEADER_BAR (gtk_window_get_titlebar (GTK_WINDOW (win)));
  PfprofViewLoaded *first;
  const PfprofRenderView *v;
  gint64 t0, t1;

  gtk_window_present (GTK_WINDOW (win));
  g_assert_cmpint (open_and_wait (win, "a_pageable.pfprof", FALSE), ==, 1);
  /* One trace: no tab strip. */
  g_assert_null (gtk_header_bar_get_title_widget (bar));
  g_assert_true (pfprof_view_window_select_rule (win, "pageable-transfer"));
  first = pfprof_view_window_get_loaded (win);
  v = pfprof_timeline_widget_get_view (pfprof_view_window_get_timeline (win));
  t0 = v->t0;
  t1 = v->t1;

  g_assert_cmpint (open_and_wait (win, "e_slow_loader.pfprof", TRUE), ==, 1);
  g_assert_true (gtk_header_bar_get_title_widget (bar) == GTK_WIDGET (tabs));
  g_assert_cmpint (gtk_notebook_get_n_pages (tabs), ==, 2);
  g_assert_cmpint (gtk_notebook_get_current_page (tabs), ==, 1);
  g_assert_cmpstr (tab_text (tabs, 0), ==, "a_pageable.pfprof");
  g_assert_cmpstr (tab_text (tabs, 1), ==, "e_slow_loader.pfprof");
  g_assert_cmpstr (trace_name (win), ==, "e_slow_loader.pfprof");
  g_assert_cmpstr (pfprof_view_window_get_page (win), ==, "content");
  g_assert_true (pfprof_view_window_select_rule (win, "input-starved"));
  g_assert_false (pfprof_view_window_select_rule (win, "pageable-transfer"));

  /* Back to the first, as a click on its tab does: as it was left. */
  gtk_notebook_set_current_page (tabs, 0);
  g_assert_true (pfprof_view_window_get_loaded (win) == first);
  g_assert_cmpstr (trace_name (win), ==, "a_pageable.pfprof");
  v = pfprof_timeline_widget_get_view (pfprof_view_window_get_timeline (win));
  g_assert_cmpint (v->t0, ==, t0);
  g_assert_cmpint (v->t1, ==, t1);
  g_assert_cmpint (v->selected_finding, >=, 0);
  g_assert_cmpstr (((const PfprofFinding *) g_ptr_array_index (first->analysis->findings, v->selected_finding))->rule,
                   ==, "pageable-transfer");
  g_assert_nonnull (strstr (pfprof_selected_finding_get_occurrence_text (pfprof_view_window_get_selected_finding (win)),
                            "Occurrence"));
  gtk_notebook_set_current_page (tabs, 1);
  g_assert_cmpstr (trace_name (win), ==, "e_slow_loader.pfprof");

  /* A tab whose file is no trace goes again. */
  {
    g_autofree char *bad = g_build_filename (g_get_tmp_dir (), "pfprof-tabs-not-a-trace.txt", NULL);
    g_autoptr (GFile) file = g_file_new_for_path (bad);
    int done = -1;
    gulong id = g_signal_connect (win, "loaded", G_CALLBACK (on_loaded), &done);
    GtkWidget *dialog;

    g_assert_true (g_file_set_contents (bad, "not a trace", -1, NULL));
    pfprof_view_window_open_in_new_tab (win, &file, 1);
    while (done < 0)
      g_main_context_iteration (NULL, TRUE);
    g_signal_handler_disconnect (win, id);
    g_assert_cmpint (done, ==, 0);
    g_assert_cmpint (gtk_notebook_get_n_pages (tabs), ==, 2);
    g_assert_cmpstr (pfprof_view_window_get_page (win), ==, "content");
    g_assert_nonnull (pfprof_view_window_get_loaded (win));
    dialog = pfprof_view_window_get_error_dialog (win);
    g_assert_nonnull (dialog);
    gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CLOSE);
    g_remove (bad);
  }
  /* Closing the tab shown shows its neighbour; the last one stays. */
  g_assert_true (pfprof_view_window_close_tab (win));
  g_assert_cmpint (gtk_notebook_get_n_pages (tabs), ==, 1);
  g_assert_cmpstr (trace_name (win), ==, "a_pageable.pfprof");
  g_assert_null (gtk_header_bar_get_title_widget (bar));
  g_assert_false (pfprof_view_window_close_tab (win));
  g_assert_nonnull (pfprof_view_window_get_loaded (win));
  gtk_window_destroy (GTK_WINDOW (win));
}

int
main (int argc, char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  samples = g_getenv ("PFPROF_SAMPLES");
  g_assert_nonnull (samples);
  g_test_add_func ("/view-tabs/two-tabs", test_two_tabs);
  return g_test_run ();
}
