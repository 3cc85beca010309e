/* SPDX-License-Identifier: MIT */
/* test-view-preload.c: a load begun before its window exists reaches the
 * window that takes it over as a load of its own would. On sample f
 * (recorded on the H200): taken after the load is done, the early
 * timeline and then the result come at once, in that order, and not
 * the sketch that the timeline overtook; taken before, the sketch (of a
 * format-2 trace: f_item_sites), the timeline and the result come when
 * the load makes them, in that order;
 * dropped, nothing comes and the load is cancelled. */
#include "pfprof-view-preload.h"

typedef struct
{
  GString *order;
  PfprofTimeline *early;
  PfprofViewLoaded *loaded;
  GError *error;
  gboolean done;
} Taker;

static void
on_sketch (PfprofTraceSketch *sketch, gpointer data)
{
  Taker *t = data;

  g_string_append (t->order, "sketch ");
  g_assert_cmpuint (sketch->rows->len, >, 0);
  pfprof_trace_sketch_free (sketch);
}

static void
on_ready (PfprofTimeline *timeline, gpointer data)
{
  Taker *t = data;

  g_string_append (t->order, "timeline ");
  t->early = timeline;
}

static void
on_done (GObject *source, GAsyncResult *result, gpointer data)
{
  Taker *t = data;

  g_string_append (t->order, "result");
  t->loaded = pfprof_view_loader_load_finish (result, &t->error);
  t->done = TRUE;
}

static char *
sample_named (const char *name)
{
  return g_build_filename (g_getenv ("PFPROF_SAMPLES"), name, NULL);
}

static char *
sample (void)
{
  return sample_named ("f_item.pfprof");
}

static void
check_taker (Taker *t, const char *order)
{
  g_assert_no_error (t->error);
  g_assert_cmpstr (t->order->str, ==, order);
  g_assert_nonnull (t->loaded);
  g_assert_true (t->loaded->timeline == t->early);
  g_assert_cmpuint (t->loaded->analysis->findings->len, >=, 2);
  pfprof_view_loaded_free (t->loaded);
  g_string_free (t->order, TRUE);
}

static void
test_taken_after (void)
{
  g_autofree char *path = sample ();
  const char *paths[] = { path, NULL };
  Taker t = { 0 };
  PfprofViewPreload *p;

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no recorded sample f_item.pfprof");
      return;
    }
  t.order = g_string_new ("");
  p = pfprof_view_preload_new (paths);
  while (!pfprof_view_preload_is_loaded (p))
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpstr (t.order->str, ==, "");
  pfprof_view_preload_take (p, on_sketch, on_ready, &t, on_done, &t);
  g_assert_true (t.done);
  check_taker (&t, "timeline result");
}

/* Taken before the load is done: what it makes comes as it is made; the
 * sketch first, for a trace with a chunk index (format 2) only. */
static void
taken_before (const char *name, const char *order)
{
  g_autofree char *path = sample_named (name);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GFile) other = g_file_new_for_path ("/nonexistent/x.pfprof");
  const char *paths[] = { path, NULL };
  Taker t = { 0 };
  PfprofViewPreload *p;

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no recorded sample");
      return;
    }
  t.order = g_string_new ("");
  p = pfprof_view_preload_new (paths);
  g_assert_true (pfprof_view_preload_has_files (p, &file, 1));
  g_assert_false (pfprof_view_preload_has_files (p, &other, 1));
  pfprof_view_preload_take (p, on_sketch, on_ready, &t, on_done, &t);
  while (!t.done)
    g_main_context_iteration (NULL, TRUE);
  check_taker (&t, order);
}

static void
test_taken_before (void)
{
  taken_before ("f_item_sites.pfprof", "sketch timeline result");
  taken_before ("f_item.pfprof", "timeline result");
}

static void
test_dropped (void)
{
  g_autofree char *path = sample ();
  const char *paths[] = { path, NULL };
  PfprofViewPreload *p;

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no recorded sample f_item.pfprof");
      return;
    }
  p = pfprof_view_preload_new (paths);
  /* Returns once the load has returned and the preload is freed. */
  pfprof_view_preload_drop (p, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/view-preload/taken-after", test_taken_after);
  g_test_add_func ("/view-preload/taken-before", test_taken_before);
  g_test_add_func ("/view-preload/dropped", test_dropped);
  return g_test_run ();
}
