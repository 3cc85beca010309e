/* SPDX-License-Identifier: MIT */
/* test-occurrence-navigator.c: the selected finding's occurrence
 * navigator in a real window under Xvfb, on recorded samples: it steps
 * through every occurrence the finding counts (not the few the reports
 * list), costliest first, each with its cost; the "By time" toggle puts
 * them in time order and keeps the one shown; an occurrence that is none
 * of the reported evidence is outlined on the timeline all the same; and
 * the overview strip marks all of them in the finding's colour. */
#include <string.h>
#include <gtk/gtk.h>

#include "pfprof-renderer.h"
#include "pfprof-view-window.h"

static const char *samples;

static void
on_loaded (PfprofViewWindow *w, gboolean ok, gpointer data)
{
  *(int *) data = ok ? 1 : 0;
}

static void
spin (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE);
}

static PfprofViewWindow *
open_sample (const char *name)
{
  PfprofViewWindow *win = pfprof_view_window_new (NULL);
  g_autofree char *path = g_build_filename (samples, name, NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  int done = -1;
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  gulong id = g_signal_connect (win, "loaded", G_CALLBACK (on_loaded), &done);

  gtk_window_set_default_size (GTK_WINDOW (win), 1400, 820);
  gtk_window_present (GTK_WINDOW (win));
  pfprof_view_window_open (win, &file, 1);
  while (done < 0 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_signal_handler_disconnect (win, id);
  g_assert_cmpint (done, ==, 1);
  spin (200);
  return win;
}

static const PfprofFinding *
selected (PfprofViewWindow *win)
{
  const PfprofRenderView *v = pfprof_timeline_widget_get_view (pfprof_view_window_get_timeline (win));

  g_assert_cmpint (v->selected_finding, >=, 0);
  return g_ptr_array_index (pfprof_view_window_get_loaded (win)->analysis->findings, v->selected_finding);
}

/* Pixels of the bottom band of the overview strip as drawn now in the
 * colour of @severity. */
static int
overview_marked_pixels (PfprofViewWindow *win, PfprofSeverity severity)
{
  GtkWidget *w = GTK_WIDGET (pfprof_view_window_get_overview (win));
  int width = gtk_widget_get_width (w), height = gtk_widget_get_height (w);
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (w);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GskRenderNode *node;
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, width, height);
  cairo_t *cr = cairo_create (s);
  double rgb[3];
  int n = 0;

  g_assert_cmpint (width, >, 100);
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node != NULL)
    {
      gsk_render_node_draw (node, cr);
      gsk_render_node_unref (node);
    }
  cairo_destroy (cr);
  cairo_surface_flush (s);
  pfprof_renderer_severity_color (severity, rgb);
  for (int y = height - 6; y < height; y++)
    for (int x = 0; x < width; x++)
      {
        guint32 p = *(guint32 *) (cairo_image_surface_get_data (s) + y * cairo_image_surface_get_stride (s) + x * 4);
        int r = (p >> 16) & 255, g = (p >> 8) & 255, b = p & 255;

        if (ABS (r - rgb[0] * 255) < 40 && ABS (g - rgb[1] * 255) < 40 && ABS (b - rgb[2] * 255) < 40)
          n++;
      }
  cairo_surface_destroy (s);
  return n;
}

static GtkWidget *
find_toggle (GtkWidget *w, const char *label)
{
  if (GTK_IS_TOGGLE_BUTTON (w) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (w)), label) == 0)
    return w;
  for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_toggle (c, label);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static const char *
occurrence_text (PfprofViewWindow *win)
{
  return pfprof_selected_finding_get_occurrence_text (pfprof_view_window_get_selected_finding (win));
}

/* a_pageable: 74 pageable copies, of which the report lists 8. */
static void
test_every_occurrence (void)
{
  PfprofViewWindow *win = open_sample ("a_pageable.pfprof");
  PfprofOccurrenceNavigator *nav = pfprof_view_window_get_navigator (win);
  const PfprofFinding *f;
  g_autofree char *first = NULL;
  g_autofree char *of = NULL;
  gint64 last_cost = G_MAXINT64;
  guint outside_evidence = 0;
  int before;

  before = overview_marked_pixels (win, PFPROF_SEVERITY_ERROR);
  g_assert_true (pfprof_view_window_select_rule (win, "pageable-transfer"));
  f = selected (win);
  g_assert_cmpuint (f->count, >, 8u);
  g_assert_cmpuint (pfprof_occurrence_navigator_get_n (nav), ==, f->count);
  of = g_strdup_printf ("Occurrence 1 of %" G_GUINT64_FORMAT ", costliest first", f->count);
  g_assert_nonnull (strstr (occurrence_text (win), of));
  /* Costliest first, each once, each with its cost in the text. */
  for (guint i = 0; i < f->count; i++)
    {
      const PfprofEvidence *e = pfprof_occurrence_navigator_get_current (nav);
      const PfprofRenderView *v = pfprof_timeline_widget_get_view (pfprof_view_window_get_timeline (win));
      g_autofree char *pos = g_strdup_printf ("Occurrence %u of ", i + 1);

      g_assert_nonnull (strstr (occurrence_text (win), pos));
      g_assert_nonnull (strstr (occurrence_text (win), " ms"));
      g_assert_cmpint (e->cost_ns, <=, last_cost);
      last_cost = e->cost_ns;
      /* The timeline shows it, marked as reported evidence or outlined. */
      g_assert_cmpint (v->t0, <=, e->start_ns);
      g_assert_cmpint (v->t1, >=, e->end_ns);
      if (v->selected_evidence < 0)
        {
          outside_evidence++;
          g_assert_cmpint (v->focus_row, >=, 0);
          g_assert_cmpint (v->focus_start, ==, e->start_ns);
        }
      pfprof_view_window_step_occurrence (win, 1);
    }
  g_assert_cmpuint (outside_evidence, ==, f->count - f->evidence->len);
  /* Back at the first. */
  g_assert_cmpint (pfprof_occurrence_navigator_get_position (nav), ==, 0);
  /* Time order, through the toggle: the one shown stays, the rest by start. */
  pfprof_view_window_step_occurrence (win, 5);
  first = g_strdup_printf ("%" G_GINT64_FORMAT, pfprof_occurrence_navigator_get_current (nav)->start_ns);
  {
    GtkWidget *toggle = find_toggle (GTK_WIDGET (pfprof_view_window_get_selected_finding (win)), "By time");
    gint64 last = G_MININT64;

    g_assert_nonnull (toggle);
    g_signal_emit_by_name (toggle, "clicked");
    spin (50);
    g_assert_true (gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (toggle)));
    g_assert_cmpint (pfprof_occurrence_navigator_get_order (nav), ==, PFPROF_OCCURRENCE_BY_TIME);
    g_assert_nonnull (strstr (occurrence_text (win), "in time order"));
    g_assert_cmpstr (first, ==, g_strdup_printf ("%" G_GINT64_FORMAT, pfprof_occurrence_navigator_get_current (nav)->start_ns));
    pfprof_view_window_step_occurrence (win, -pfprof_occurrence_navigator_get_position (nav));
    for (guint i = 0; i < f->count; i++)
      {
        const PfprofEvidence *e = pfprof_occurrence_navigator_get_current (nav);

        g_assert_cmpint (e->start_ns, >=, last);
        last = e->start_ns;
        pfprof_view_window_step_occurrence (win, 1);
      }
    g_signal_emit_by_name (toggle, "clicked");
    spin (50);
    g_assert_cmpint (pfprof_occurrence_navigator_get_order (nav), ==, PFPROF_OCCURRENCE_BY_COST);
  }
  /* The strip marks the occurrences: more columns than the reported
   * evidence alone would, in the finding's colour. */
  spin (200);
  g_assert_cmpuint (pfprof_overview_n_marked_columns (pfprof_view_window_get_overview (win)), >,
                    8u * 2);
  g_assert_cmpint (overview_marked_pixels (win, f->severity), >,
                   before + (int) 8u * 2 * 4);
  gtk_window_destroy (GTK_WINDOW (win));
}

/* host-bound: its rule keeps every idle gap as an occurrence. */
static void
test_host_bound_occurrences (void)
{
  PfprofViewWindow *win = open_sample ("g_ddp_even_rank1.pfprof");
  PfprofOccurrenceNavigator *nav = pfprof_view_window_get_navigator (win);
  const PfprofFinding *f;

  g_assert_true (pfprof_view_window_select_rule (win, "host-bound"));
  f = selected (win);
  g_assert_cmpuint (f->count, >, 1000);
  g_assert_cmpuint (pfprof_occurrence_navigator_get_n (nav), ==, f->count);
  /* The costliest is the reports' first piece of evidence. */
  g_assert_cmpint (pfprof_occurrence_navigator_get_current (nav)->start_ns, ==,
                   g_array_index (f->evidence, PfprofEvidence, 0).start_ns);
  pfprof_view_window_step_occurrence (win, -1);
  g_assert_cmpint (pfprof_occurrence_navigator_get_position (nav), ==, (int) f->count - 1);
  gtk_window_destroy (GTK_WINDOW (win));
}

int
main (int argc, char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  samples = g_getenv ("PFPROF_SAMPLES");
  g_assert_nonnull (samples);
  g_test_add_func ("/occurrence-navigator/every-occurrence", test_every_occurrence);
  g_test_add_func ("/occurrence-navigator/host-bound", test_host_bound_occurrences);
  return g_test_run ();
}
