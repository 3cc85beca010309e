/* SPDX-License-Identifier: MIT */
/* test-view-follow.c: the window follows a trace while it is recorded.
 *
 * A generated trace (with pageable copies planted) is written again,
 * through the trace writer as the collector would, a part of every event
 * table per commit, into a file the window has open: each commit's
 * events appear in the window (drawn right of where the trace ended
 * before), the findings come as the steps arrive, the summary says the
 * trace is being recorded, and once the writer finishes the window
 * shows the whole trace and stops following. The writer is never kept
 * waiting: each commit returns at once while the window reads. A trace
 * being written has no sketch. */
#include <string.h>
#include <gtk/gtk.h>
#include <glib/gstdio.h>

#include "pfprof-renderer.h"
#include "pfprof-trace-generator.h"
#include "pfprof-trace-reader.h"
#include "pfprof-trace-writer.h"
#include "pfprof-view-window.h"

#define N_PARTS 4

static char *tmp_dir;

typedef struct
{
  int loaded;
  guint followed;
} Seen;

static void
on_loaded (PfprofViewWindow *w, gboolean ok, gpointer data)
{
  ((Seen *) data)->loaded = ok ? 1 : 0;
}

static void
on_followed (PfprofViewWindow *w, gpointer data)
{
  ((Seen *) data)->followed++;
}

static void
spin (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE);
}

/* Appends part @k of @N_PARTS of every event table of @t (and, with the
 * first, every object table) and commits; returns how long the commit
 * took. */
static gint64
write_part (PfprofTraceWriter *w, const PfprofTrace *t, guint k)
{
  gint64 start;

  g_assert_cmpint (pfprof_trace_writer_begin (w), ==, PFPROF_WRITER_OK);
  for (unsigned tb = 0; tb < PFPROF_N_TABLES; tb++)
    {
      GArray *a = t->tables[tb];
      gboolean chunked = pfprof_trace_schema_is_chunked ((PfprofTableId) tb);
      guint from = chunked ? (guint) ((guint64) a->len * k / N_PARTS) : 0;
      guint to = chunked ? (guint) ((guint64) a->len * (k + 1) / N_PARTS) : (k == 0 ? a->len : 0);

      for (guint i = from; i < to; i++)
        g_assert_cmpint (pfprof_trace_writer_append (w, (PfprofTableId) tb,
                                                     a->data + (gsize) i * g_array_get_element_size (a)),
                         ==, PFPROF_WRITER_OK);
    }
  start = g_get_monotonic_time ();
  g_assert_cmpint (pfprof_trace_writer_commit (w), ==, PFPROF_WRITER_OK);
  return g_get_monotonic_time () - start;
}

/* Non-background pixels of the timeline's rows right of time @t as drawn
 * now. */
static int
drawn_after (PfprofViewWindow *win, gint64 t)
{
  PfprofTimelineWidget *tw = pfprof_view_window_get_timeline (win);
  const PfprofRenderView *v = pfprof_timeline_widget_get_view (tw);
  int width = gtk_widget_get_width (GTK_WIDGET (tw)), height = gtk_widget_get_height (GTK_WIDGET (tw));
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (GTK_WIDGET (tw));
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GskRenderNode *node;
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, width, height);
  cairo_t *cr = cairo_create (s);
  int x0 = (int) pfprof_renderer_x_of (v, t) + 2, n = 0;
  guint32 bg;

  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  gsk_render_node_draw (node, cr);
  gsk_render_node_unref (node);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  /* The background: the bottom right corner, below the rows. */
  bg = *(guint32 *) (cairo_image_surface_get_data (s) + (height - 2) * cairo_image_surface_get_stride (s) + (width - 2) * 4);
  for (int y = (int) v->ruler_height + 2; y < height - 2; y++)
    for (int x = MAX (x0, (int) v->label_width); x < width - 2; x++)
      if ((*(guint32 *) (cairo_image_surface_get_data (s) + y * cairo_image_surface_get_stride (s) + x * 4) & 0xffffff)
          != (bg & 0xffffff))
        n++;
  cairo_surface_destroy (s);
  return n;
}

static gboolean
has_rule (PfprofViewWindow *win, const char *rule)
{
  const PfprofAnalysis *a = pfprof_view_window_get_loaded (win)->analysis;

  for (guint i = 0; i < a->findings->len; i++)
    if (g_str_equal (((const PfprofFinding *) g_ptr_array_index (a->findings, i))->rule, rule))
      return TRUE;
  return FALSE;
}

static void
test_follow_recording (void)
{
  g_autofree char *source = g_build_filename (tmp_dir, "source.pfprof", NULL);
  g_autofree char *live = g_build_filename (tmp_dir, "live.pfprof", NULL);
  PfprofTraceGenerator gen;
  PfprofTrace *t;
  PfprofTraceWriter *w = NULL;
  PfprofViewWindow *win;
  g_autoptr (GFile) file = g_file_new_for_path (live);
  g_autoptr (GError) error = NULL;
  Seen seen = { -1, 0 };
  gint64 deadline, worst_commit = 0, commit_us;
  guint64 shown_events = 0;
  gboolean finding_seen_live = FALSE;

  pfprof_trace_generator_init (&gen);
  gen.steps = 160;
  gen.plants = PFPROF_PLANT_PAGEABLE;
  g_assert_cmpint (pfprof_trace_generator_write (&gen, source, 0, NULL, NULL, 0), ==, PFPROF_WRITER_OK);
  t = pfprof_trace_reader_load (source, NULL, NULL, &error);
  g_assert_no_error (error);

  /* The recording starts: meta, strings, the first part. */
  g_assert_cmpint (pfprof_trace_writer_open (live, PFPROF_WRITER_OVERWRITE, &w), ==, PFPROF_WRITER_OK);
  {
    GHashTableIter it;
    gpointer key, value;

    g_hash_table_iter_init (&it, t->meta);
    while (g_hash_table_iter_next (&it, &key, &value))
      if (strcmp (key, "format_version") != 0 && strcmp (key, "complete") != 0)
        g_assert_cmpint (pfprof_trace_writer_set_meta (w, key, value), ==, PFPROF_WRITER_OK);
  }
  for (guint i = 0; i < t->strings->len; i++)
    {
      const char *str = g_ptr_array_index (t->strings, i);

      g_assert_cmpint (pfprof_trace_writer_set_string (w, i, str ? str : ""), ==, PFPROF_WRITER_OK);
    }
  commit_us = write_part (w, t, 0);
  worst_commit = MAX (worst_commit, commit_us);
  /* A trace being written is read through a copy of it and its WAL:
   * no sketch, which would copy it a second time. */
  {
    PfprofTraceSketch *sketch = pfprof_trace_sketch_new (live, &error);

    g_assert_no_error (error);
    g_assert_null (sketch);
  }

  win = pfprof_view_window_new (NULL);
  g_signal_connect (win, "loaded", G_CALLBACK (on_loaded), &seen);
  g_signal_connect (win, "followed", G_CALLBACK (on_followed), &seen);
  gtk_window_set_default_size (GTK_WINDOW (win), 1400, 820);
  gtk_window_present (GTK_WINDOW (win));
  pfprof_view_window_open (win, &file, 1);
  deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  while (seen.loaded < 0 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (seen.loaded, ==, 1);
  g_assert_true (pfprof_view_window_is_following (win));
  g_assert_nonnull (strstr (pfprof_view_window_get_summary (win), "following it as it is written"));
  shown_events = pfprof_trace_n_events (g_ptr_array_index (pfprof_view_window_get_loaded (win)->analysis->traces, 0));
  g_assert_cmpuint (shown_events, >, 0);

  for (guint k = 1; k < N_PARTS; k++)
    {
      gint64 old_end = pfprof_view_window_get_loaded (win)->timeline->end_ns;
      guint followed = seen.followed;
      guint64 n;

      commit_us = write_part (w, t, k);
      worst_commit = MAX (worst_commit, commit_us);
      deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
      while (seen.followed == followed && g_get_monotonic_time () < deadline)
        g_main_context_iteration (NULL, TRUE);
      g_assert_cmpuint (seen.followed, >, followed);
      spin (200);
      /* The new events, and the view (the whole trace) grew with them. */
      n = pfprof_trace_n_events (g_ptr_array_index (pfprof_view_window_get_loaded (win)->analysis->traces, 0));
      g_assert_cmpuint (n, >, shown_events);
      shown_events = n;
      g_assert_cmpint (pfprof_view_window_get_loaded (win)->timeline->end_ns, >, old_end);
      g_assert_cmpint (pfprof_timeline_widget_get_view (pfprof_view_window_get_timeline (win))->t1, >=,
                       pfprof_view_window_get_loaded (win)->timeline->end_ns);
      g_assert_cmpint (drawn_after (win, old_end), >, 500);
      g_assert_cmpstr (pfprof_view_window_get_page (win), ==, "content");
      if (has_rule (win, "pageable-transfer"))
        finding_seen_live = TRUE;
      g_assert_true (pfprof_view_window_is_following (win));
    }
  /* The findings came while it was still being recorded. */
  g_assert_true (finding_seen_live);
  /* The recording ends: the whole trace, and no more following. */
  {
    guint followed = seen.followed;

    g_assert_cmpint (pfprof_trace_writer_finish (w), ==, PFPROF_WRITER_OK);
    deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
    while (seen.followed == followed && g_get_monotonic_time () < deadline)
      g_main_context_iteration (NULL, TRUE);
    g_assert_cmpuint (seen.followed, >, followed);
  }
  g_assert_cmpuint (pfprof_trace_n_events (g_ptr_array_index (pfprof_view_window_get_loaded (win)->analysis->traces, 0)),
                    ==, pfprof_trace_n_events (t));
  g_assert_false (pfprof_view_window_is_following (win));
  g_assert_null (strstr (pfprof_view_window_get_summary (win), "following it as it is written"));
  g_assert_true (has_rule (win, "pageable-transfer"));
  /* Never blocked: a commit is a local write, whatever the window does. */
  g_test_message ("slowest commit %" G_GINT64_FORMAT " us", worst_commit);
  g_assert_cmpint (worst_commit, <, 2 * G_USEC_PER_SEC);
  gtk_window_destroy (GTK_WINDOW (win));
  pfprof_trace_free (t);
  g_unlink (source);
  g_unlink (live);
}

int
main (int argc, char **argv)
{
  int rc;

  gtk_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("pfprof-follow-XXXXXX", NULL);
  g_test_add_func ("/view-follow/recording", test_follow_recording);
  rc = g_test_run ();
  g_rmdir (tmp_dir);
  g_free (tmp_dir);
  return rc;
}
