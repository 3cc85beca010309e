/* SPDX-License-Identifier: MIT */
/* test-gui.c: pfprof-view in a real window (under Xvfb, see
 * xvfb-run-test.sh), driven through pfprof-view-test, the same
 * application with a scripted session: it opens traces, selects
 * findings, opens a corrupt file, and reports what it shows plus a
 * screenshot, which this program checks the way a user would look. The
 * shipped pfprof-view is run as is. */
#include <cairo.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sqlite3.h>
#include <string.h>
#include <unistd.h>

#include "pfprof-renderer.h"
#include "render-test-util.h"

static char *tmp_dir;

typedef struct
{
  GHashTable *kv;   /* key -> last value */
  GPtrArray *lines; /* all "key=value" lines */
  int status;
} Report;

static void
report_free (Report *r)
{
  g_hash_table_unref (r->kv);
  g_ptr_array_unref (r->lines);
  g_free (r);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Report, report_free)

static const char *
get (Report *r, const char *key)
{
  const char *v = g_hash_table_lookup (r->kv, key);

  if (v == NULL)
    g_error ("report has no %s", key);
  return v;
}

static gint64
get_i64 (Report *r, const char *key)
{
  return g_ascii_strtoll (get (r, key), NULL, 10);
}

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

static const char *extra_env;    /* NAME=VALUE added to the app's environment */
static const char *view_cwd;     /* the app's working folder; NULL: this one */

/* Runs pfprof-view-test with @args plus --report; returns what it
 * reported. */
static Report *
run_view (const char *first, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *report_path = tmp_path ("report.txt");
  g_autofree char *out = NULL, *err = NULL, *text = NULL;
  g_autoptr (GError) error = NULL;
  Report *r = g_new0 (Report, 1);
  g_auto (GStrv) lines = NULL;
  va_list ap;

  g_unlink (report_path);
  g_ptr_array_add (argv, g_strdup (g_getenv ("PFPROF_VIEW_TEST")));
  g_ptr_array_add (argv, g_strdup ("--report"));
  g_ptr_array_add (argv, g_strdup (report_path));
  va_start (ap, first);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, g_strdup (a));
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  {
    g_auto (GStrv) envp = g_get_environ ();

    if (g_getenv ("PFPROF_VIEW_LSAN_OPTIONS") != NULL)
      envp = g_environ_setenv (envp, "LSAN_OPTIONS", g_getenv ("PFPROF_VIEW_LSAN_OPTIONS"), TRUE);

    if (extra_env != NULL)
      {
        g_auto (GStrv) kv = g_strsplit (extra_env, "=", 2);

        envp = g_environ_setenv (envp, kv[0], kv[1], TRUE);
      }
    g_assert_true (g_spawn_sync (view_cwd, (char **) argv->pdata, envp, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                                 &r->status, &error));
  }
  g_test_message ("pfprof-view-test stderr: %s", err);
  g_assert_true (g_file_get_contents (report_path, &text, NULL, &error));
  r->kv = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  r->lines = g_ptr_array_new_with_free_func (g_free);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *eq = strchr (lines[i], '=');

      if (eq == NULL)
        continue;
      g_ptr_array_add (r->lines, g_strdup (lines[i]));
      g_hash_table_insert (r->kv, g_strndup (lines[i], (gsize) (eq - lines[i])), g_strdup (eq + 1));
    }
  return r;
}

/* Where row @label is drawn in the screenshot: y range and x range of
 * the time area, from the report's "PREFIX_origin" and "PREFIX_row". */
static gboolean
row_box (Report *r, const char *prefix, const char *label, int *x0, int *x1, int *y0, int *y1)
{
  g_autofree char *okey = g_strdup_printf ("%s_origin", prefix);
  g_autofree char *rkey = g_strdup_printf ("%s_row=", prefix);
  double ox, oy, lw, w, h;

  if (sscanf (get (r, okey), "%lf %lf %lf %lf %lf", &ox, &oy, &lw, &w, &h) != 5)
    return FALSE;
  for (guint i = 0; i < r->lines->len; i++)
    {
      const char *line = g_ptr_array_index (r->lines, i);
      double y, rh;
      int n = 0;

      if (!g_str_has_prefix (line, rkey))
        continue;
      if (sscanf (line + strlen (rkey), "%lf %lf %n", &y, &rh, &n) != 2 || strcmp (line + strlen (rkey) + n, label) != 0)
        continue;
      *x0 = (int) (ox + lw + 1);
      *x1 = (int) (ox + w - 1);
      *y0 = (int) (oy + y + 3);
      *y1 = (int) (oy + y + rh - 3);
      return TRUE;
    }
  return FALSE;
}

static void
pixel (cairo_surface_t *s, int x, int y, double rgb[3])
{
  const guint8 *data = cairo_image_surface_get_data (s);
  guint32 p = *(const guint32 *) (data + y * cairo_image_surface_get_stride (s) + x * 4);

  rgb[0] = ((p >> 16) & 0xff) / 255.0;
  rgb[1] = ((p >> 8) & 0xff) / 255.0;
  rgb[2] = (p & 0xff) / 255.0;
}

/* Pixels of colour @rgb (within a tolerance) in a box. */
static int
count_colour (cairo_surface_t *s, int x0, int x1, int y0, int y1, const double rgb[3])
{
  int n = 0;

  x1 = MIN (x1, cairo_image_surface_get_width (s));
  y1 = MIN (y1, cairo_image_surface_get_height (s));
  for (int y = MAX (y0, 0); y < y1; y++)
    for (int x = MAX (x0, 0); x < x1; x++)
      {
        double p[3];

        pixel (s, x, y, p);
        n += fabs (p[0] - rgb[0]) < 0.06 && fabs (p[1] - rgb[1]) < 0.06 && fabs (p[2] - rgb[2]) < 0.06;
      }
  return n;
}

/* Pixels in the kernel hue at any shade (zoomed out, kernels are drawn
 * as partly covered columns, lighter than a whole kernel). */
static int
count_bluish (cairo_surface_t *s, int x0, int x1, int y0, int y1)
{
  int n = 0;

  for (int y = MAX (y0, 0); y < MIN (y1, cairo_image_surface_get_height (s)); y++)
    for (int x = MAX (x0, 0); x < MIN (x1, cairo_image_surface_get_width (s)); x++)
      {
        double p[3];

        pixel (s, x, y, p);
        n += p[2] - p[0] > 0.25 && p[2] > p[1] + 0.1;
      }
  return n;
}

static cairo_surface_t *
load_png (const char *path)
{
  cairo_surface_t *s;

  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  s = cairo_image_surface_create_from_png (path);

  g_assert_cmpint (cairo_surface_status (s), ==, CAIRO_STATUS_SUCCESS);
  return s;
}

static void
generate (const char *path, const char *plant)
{
  g_autofree char *err = NULL;
  g_autoptr (GError) error = NULL;
  int status;
  const char *argv[] = { g_getenv ("PFPROF"), "generate", "--steps", "40", "--plant", plant, "--force", "-o", path, NULL };

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, &error));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

static char *pageable_trace;

/* The app opens a trace, draws it, and the screenshot shows the rows: the
 * compute stream in the kernel colour, the copy stream's pageable copies
 * in the pageable colour. */
static void
test_first_frame (void)
{
  g_autofree char *shot = tmp_path ("first.png");
  g_autoptr (Report) r = run_view ("--screenshot", shot, pageable_trace, NULL);
  cairo_surface_t *s;
  double blue[3], orange[3], bg[3];
  int x0, x1, y0, y1, colours = 0;
  GHashTable *seen = g_hash_table_new (NULL, NULL);

  g_assert_cmpint (r->status, ==, 0);
  g_assert_cmpstr (get (r, "page"), ==, "content");
  g_assert_cmpstr (get (r, "screenshot"), ==, "1");
  g_assert_cmpint (get_i64 (r, "n_findings"), >=, 1);
  g_assert_nonnull (strstr (get (r, "summary"), "overlap"));
  g_assert_nonnull (strstr (get (r, "summary"), "median step"));
  /* The shortcuts window (Ctrl+?) came from the resource. */
  g_assert_cmpstr (get (r, "help_overlay"), ==, "1");
  s = load_png (shot);
  /* Not blank: many distinct colours over the window. */
  for (int y = 0; y < cairo_image_surface_get_height (s); y += 3)
    for (int x = 0; x < cairo_image_surface_get_width (s); x += 3)
      {
        double p[3];

        pixel (s, x, y, p);
        g_hash_table_add (seen, GUINT_TO_POINTER ((guint) (p[0] * 255) << 16 | (guint) (p[1] * 255) << 8 | (guint) (p[2] * 255)));
      }
  colours = (int) g_hash_table_size (seen);
  g_hash_table_unref (seen);
  g_test_message ("%d distinct colours", colours);
  g_assert_cmpint (colours, >, 50);
  /* Expected rows, with their events. */
  pfprof_renderer_item_color (PFPROF_ITEM_KERNEL, FALSE, blue);
  pfprof_renderer_item_color (PFPROF_ITEM_HTOD_PAGEABLE, FALSE, orange);
  bg[0] = bg[1] = bg[2] = 1;
  g_assert_true (row_box (r, "initial", "Stream 13", &x0, &x1, &y0, &y1));
  g_assert_cmpint (count_colour (s, x0, x1, y0, y1, blue), >, (x1 - x0) * (y1 - y0) / 10);
  g_assert_true (row_box (r, "initial", "Stream 14", &x0, &x1, &y0, &y1));
  g_assert_cmpint (count_colour (s, x0, x1, y0, y1, orange), >, 100);
  g_assert_cmpint (count_colour (s, x0, x1, y0, y1, blue), <, 10);
  g_assert_true (row_box (r, "initial", "Thread 4242 CUDA API: python3", &x0, &x1, &y0, &y1));
  g_assert_cmpint (count_colour (s, x0, x1, y0, y1, bg), <, (x1 - x0) * (y1 - y0));
  cairo_surface_destroy (s);
}

/* A trace whose analysis takes the app far longer than laying out its
 * timeline (4M events: about 1 s against 0.1-0.2 s on two cores) is
 * drawn before its analysis is done, the summary saying the analysis is
 * on, and then gets its findings. Not smaller: the load begins before
 * the display is opened, so a small trace can be analysed before the
 * window exists. */
static void
test_draws_before_analysis (void)
{
  g_autofree char *path = tmp_path ("big.pfprof");
  g_autofree char *err = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (Report) r = NULL;
  const char *argv[] = { g_getenv ("PFPROF"), "generate", "--events", "4000000", "--plant", "pageable", "--force", "-o", path, NULL };
  int status;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
                               &status, &error));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  r = run_view (path, NULL);
  g_unlink (path);
  g_assert_cmpint (r->status, ==, 0);
  /* The sketch, if the window was shown before the timeline came. */
  g_assert_cmpstr (get (r, "order") + (g_str_has_prefix (get (r, "order"), "sketch-frame ") ? 13 : 0), ==,
                   "first-frame analysed");
  g_assert_nonnull (strstr (get (r, "first_frame_summary"), "Analysing"));
  g_assert_cmpstr (get (r, "page"), ==, "content");
  g_assert_cmpint (get_i64 (r, "n_findings"), >=, 1);
  g_assert_null (strstr (get (r, "summary"), "Analysing"));
}

/* Opens @big in a window showing the small trace already, and saves
 * the window while it sketches @big (as @sketch_shot) and the timeline
 * once @big is shown (as @shot). */
static Report *
then_open (const char *big, const char *sketch_shot, const char *shot)
{
  return run_view ("--then-open", big, "--sketch-screenshot", sketch_shot, "--then-screenshot", shot,
                   pageable_trace, NULL);
}

/* With the cairo renderer asked for (as here), the app has GDK skip
 * setting GL up, which under Xvfb costs the first frame 0.3 s and more;
 * a GDK_DEBUG of the user's, even empty, is left alone. */
static void
test_cairo_skips_gl (void)
{
  g_autoptr (Report) r = NULL;
  g_autoptr (Report) own = NULL;

  g_assert_cmpstr (g_getenv ("GSK_RENDERER"), ==, "cairo");
  r = run_view (pageable_trace, NULL);
  g_assert_cmpint (r->status, ==, 0);
  g_assert_cmpstr (get (r, "page"), ==, "content");
  g_assert_cmpstr (get (r, "gl_disabled"), ==, "1");
  extra_env = "GDK_DEBUG=";
  own = run_view (pageable_trace, NULL);
  extra_env = NULL;
  g_assert_cmpint (own->status, ==, 0);
  g_assert_cmpstr (get (own, "gl_disabled"), ==, "0");
}

/* A big trace (4M events) opened in a shown window: the loading page
 * first draws its sketch, a strip per kind of event read from the chunk
 * index in the colours of the timeline, then the timeline replaces it,
 * and the sketch is gone. What is
 * drawn then is, pixel for pixel, what the same trace gives without a
 * chunk index to sketch (its min_ns column dropped: the load does not
 * read it). */
static void
test_sketch_first (void)
{
  g_autofree char *big = tmp_path ("big.pfprof");
  g_autofree char *shot_a = tmp_path ("sketched.png");
  g_autofree char *shot_b = tmp_path ("unsketched.png");
  g_autofree char *sketch = tmp_path ("sketch.png");
  g_autofree char *no_sketch = tmp_path ("no-sketch.png");
  g_autoptr (GError) error = NULL;
  g_autoptr (Report) ra = NULL;
  g_autoptr (Report) rb = NULL;
  const char *argv[] = { g_getenv ("PFPROF"), "generate", "--events", "4000000", "--plant", "pageable", "--force", "-o", big, NULL };
  cairo_surface_t *a, *b;
  sqlite3 *db = NULL;
  int status;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL,
                               &status, &error));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  ra = then_open (big, sketch, shot_a);
  /* The same file, at the same path (the process row names it), without
   * the index. */
  g_assert_cmpint (sqlite3_open (big, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "ALTER TABLE chunks DROP COLUMN min_ns", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);
  rb = then_open (big, no_sketch, shot_b);
  g_unlink (big);
  g_assert_cmpint (ra->status, ==, 0);
  g_assert_cmpint (rb->status, ==, 0);
  /* The sketch on the loading page, then the timeline. */
  g_assert_cmpstr (get (ra, "then_order"), ==, "sketch-frame first-frame loaded");
  g_assert_cmpstr (get (ra, "then_sketch"), ==,
                   "loading, Kernels, Copies, Memsets, Synchronizations, CUDA API calls, NVTX ranges, DataLoader");
  g_assert_cmpstr (get (ra, "then_page"), ==, "content");
  g_assert_cmpstr (get (ra, "then_sketch_visible"), ==, "0");
  /* The sketch in the colours of the timeline: kernels, copies. */
  g_assert_cmpstr (get (ra, "sketch_screenshot"), ==, "1");
  {
    cairo_surface_t *sk = load_png (sketch);
    int w = cairo_image_surface_get_width (sk), h = cairo_image_surface_get_height (sk);
    double kernel[3], copy[3];
    int n_kernel, n_copy;

    pfprof_renderer_item_color (PFPROF_ITEM_KERNEL, FALSE, kernel);
    pfprof_renderer_item_color (PFPROF_ITEM_COPY_OTHER, FALSE, copy);
    n_kernel = count_colour (sk, 0, w, 0, h, kernel);
    n_copy = count_colour (sk, 0, w, 0, h, copy);
    g_test_message ("sketch: %d kernel, %d copy pixels", n_kernel, n_copy);
    g_assert_cmpint (n_kernel, >, 200);
    g_assert_cmpint (n_copy, >, 200);
    cairo_surface_destroy (sk);
  }
  /* Nothing to sketch: the timeline alone. */
  g_assert_cmpstr (get (rb, "then_order"), ==, "first-frame loaded");
  g_assert_cmpstr (get (rb, "sketch_screenshot"), ==, "-1");
  g_assert_cmpstr (get (rb, "then_page"), ==, "content");
  /* The same timeline either way. */
  g_assert_cmpstr (get (ra, "then_screenshot"), ==, "1");
  g_assert_cmpstr (get (rb, "then_screenshot"), ==, "1");
  a = load_png (shot_a);
  b = load_png (shot_b);
  g_assert_cmpint (cairo_image_surface_get_width (a), ==, cairo_image_surface_get_width (b));
  g_assert_cmpint (cairo_image_surface_get_height (a), ==, cairo_image_surface_get_height (b));
  for (int y = 0; y < cairo_image_surface_get_height (a); y++)
    g_assert_cmpmem (cairo_image_surface_get_data (a) + y * cairo_image_surface_get_stride (a),
                     cairo_image_surface_get_width (a) * 4,
                     cairo_image_surface_get_data (b) + y * cairo_image_surface_get_stride (b),
                     cairo_image_surface_get_width (b) * 4);
  cairo_surface_destroy (a);
  cairo_surface_destroy (b);
}

/* Selecting a finding zooms the timeline to an occurrence that it then
 * contains, scrolls its row into view and highlights it; the occurrence's
 * event shows its details and the call that launched it. */
static void
test_select_finding (void)
{
  g_autofree char *shot = tmp_path ("selected.png");
  g_autoptr (Report) r = run_view ("--screenshot", shot, "--select-finding", "0", "--next", "2",
                                   "--select-evidence-event", pageable_trace, NULL);
  gint64 t0 = get_i64 (r, "initial_t0"), t1 = get_i64 (r, "initial_t1");
  gint64 s0 = get_i64 (r, "selected_t0"), s1 = get_i64 (r, "selected_t1");
  gint64 e0, e1;
  int index;
  double sev[3];
  int x0, x1, y0, y1;
  cairo_surface_t *s;

  g_assert_cmpint (r->status, ==, 0);
  g_assert_cmpstr (get (r, "screenshot"), ==, "1");
  g_assert_cmpstr (get (r, "select_finding_ok"), ==, "1");
  g_assert_cmpstr (get (r, "finding_rule"), ==, "pageable-transfer");
  g_assert_cmpint (sscanf (get (r, "evidence"), "%d %" G_GINT64_FORMAT " %" G_GINT64_FORMAT, &index, &e0, &e1), ==, 3);
  /* Stepping with "next" visits every occurrence once, costliest first;
   * after two presses the third costliest is shown. */
  {
    g_auto (GStrv) walk = g_strsplit (get (r, "occurrence_walk_index"), " ", -1);
    g_auto (GStrv) cost = g_strsplit (get (r, "occurrence_walk_cost"), " ", -1);
    guint n = (guint) get_i64 (r, "n_occurrences");
    g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

    g_assert_cmpuint (n, >=, 3);
    g_assert_cmpuint (g_strv_length (walk), ==, n);
    g_assert_cmpuint (g_strv_length (cost), ==, n);
    for (guint i = 0; i < n; i++)
      {
        g_assert_true (g_hash_table_add (seen, walk[i]));
        if (i > 0)
          g_assert_cmpint (g_ascii_strtoll (cost[i], NULL, 10), <=, g_ascii_strtoll (cost[i - 1], NULL, 10));
      }
    g_assert_cmpint (index, ==, (int) g_ascii_strtoll (walk[2], NULL, 10));
    /* The navigator names the costliest first, with its cost. */
    g_assert_nonnull (strstr (get (r, "occurrence_text"), "Occurrence 1 of "));
    g_assert_nonnull (strstr (get (r, "occurrence_text"), " ms"));
  }
  /* The view changed, zoomed in, and contains the occurrence. */
  g_assert_true (s0 != t0 || s1 != t1);
  g_assert_cmpint (s1 - s0, <, (t1 - t0) / 10);
  g_assert_cmpint (s0, <=, e0);
  g_assert_cmpint (s1, >=, e1);
  g_assert_cmpstr (get (r, "evidence_row"), ==, "Stream 14");
  g_assert_nonnull (strstr (get (r, "details"), "HtoD pageable copy"));
  g_assert_nonnull (strstr (get (r, "details"), "48.0 MiB"));
  g_assert_nonnull (strstr (get (r, "details"), "launched by cudaMemcpyAsync"));
  /* Times to the precision of the zoom: the start has decimals enough to
   * tell apart points a hundredth of the view apart. */
  {
    const char *start = strstr (get (r, "details"), "start ");
    const char *dot = start ? strchr (start, '.') : NULL;
    int decimals = 0;

    g_assert_nonnull (dot);
    while (g_ascii_isdigit (dot[1 + decimals]))
      decimals++;
    g_assert_cmpfloat (pow (10, 9 - decimals), <=, (s1 - s0) / 100.0);
  }
  /* The finding says where in the Python code its copies come from (the
   * generator's batch copy), and its fix is code: monospace, not
   * wrapped, and the Copy button puts it on the clipboard. */
  g_assert_nonnull (strstr (get (r, "finding_sites"), "train.py:57"));
  g_assert_cmpstr (get (r, "fix_wraps"), ==, "0");
  g_assert_cmpstr (get (r, "fix_monospace"), ==, "1");
  g_assert_cmpstr (get (r, "copied_fix"), ==, "1");
  g_assert_cmpint (get_i64 (r, "link_row"), >=, 0);
  /* The highlight: the severity colour outlines the copy on its row. */
  s = load_png (shot);
  pfprof_renderer_severity_color (PFPROF_SEVERITY_WARNING, sev);
  g_assert_true (row_box (r, "selected", "Stream 14", &x0, &x1, &y0, &y1));
  g_assert_cmpint (count_colour (s, x0, x1, y0 - 3, y1 + 3, sev), >, 20);
  cairo_surface_destroy (s);
  if (g_getenv ("PFPROF_SCREENSHOT_OUT") != NULL && get_i64 (r, "n_events") > 0)
    g_test_message ("screenshot kept: %s", shot);
}

static char *
write_corrupt (void)
{
  g_autofree char *data = NULL;
  gsize len;
  char *path = tmp_path ("corrupt.pfprof");

  /* A real trace cut short: SQLite header intact, pages missing. */
  g_assert_true (g_file_get_contents (pageable_trace, &data, &len, NULL));
  g_assert_cmpuint (len, >, 20000);
  g_assert_true (g_file_set_contents (path, data, 20000, NULL));
  return path;
}

/* Opening a corrupt file shows an error dialog naming it; dismissed, the
 * window still shows the previous trace and keeps drawing. */
static void
test_corrupt_file_survives (void)
{
  g_autofree char *corrupt = write_corrupt ();
  g_autofree char *shot = tmp_path ("error.png");
  g_autoptr (Report) r = run_view ("--then-open", corrupt, "--error-screenshot", shot, pageable_trace, NULL);
  g_autoptr (GString) all = g_string_new ("");

  for (guint i = 0; i < r->lines->len; i++)
    g_string_append_printf (all, "%s\n", (const char *) g_ptr_array_index (r->lines, i));
  g_assert_cmpint (r->status, ==, 0);
  g_assert_cmpstr (get (r, "error_dialog_after_open"), ==, "1");
  g_assert_nonnull (strstr (all->str, "error_text=Cannot open the trace"));
  g_assert_nonnull (strstr (all->str, "corrupt.pfprof"));
  g_assert_cmpstr (get (r, "alive"), ==, "1");
  g_assert_cmpstr (get (r, "page_after"), ==, "content");
  g_assert_cmpstr (get (r, "error_dialog_left"), ==, "0");
  g_assert_cmpint (get_i64 (r, "frames_after"), >, get_i64 (r, "frames_before"));
  g_assert_cmpstr (get (r, "error_screenshot"), ==, "1");
}

/* Started on a file that is not a trace: the dialog, an empty window, a
 * clean exit. */
static void
test_start_on_bad_file (void)
{
  g_autofree char *bad = tmp_path ("notes.pfprof");
  g_autoptr (Report) r = NULL;

  g_assert_true (g_file_set_contents (bad, "just some text, not a trace\n", -1, NULL));
  r = run_view (bad, NULL);
  g_assert_cmpint (r->status, ==, 0);
  g_assert_cmpstr (get (r, "page"), ==, "empty");
  g_assert_cmpstr (get (r, "error_dialog"), ==, "1");
}

/* A trace with host activity only: the empty-state page, not a blank
 * timeline. */
static void
test_no_gpu (void)
{
  g_autofree char *path = tmp_path ("host-only.pfprof");
  PfprofTrace *t = rt_trace_new (FALSE, NULL);
  g_autoptr (Report) r = NULL;

  g_array_set_size (t->tables[PFPROF_TABLE_KERNELS], 0);
  g_array_set_size (t->tables[PFPROF_TABLE_MEMCPYS], 0);
  g_array_set_size (t->tables[PFPROF_TABLE_MEMSETS], 0);
  g_assert_true (rt_trace_write (t, path));
  pfprof_trace_free (t);
  r = run_view (path, NULL);
  g_assert_cmpint (r->status, ==, 0);
  g_assert_cmpstr (get (r, "page"), ==, "no-gpu");
  g_assert_cmpstr (get (r, "error_dialog"), ==, "0");
}

/* A trace naming 40,000 GPUs with a stream each (80,000 rows): the window
 * opens and reports every row on screen, in work linear in the rows (the
 * report asked each row's position with a pass over the rows before it),
 * and the summary line names a few GPUs and says how many more (naming
 * all of them made a label the window could not be sized to: X's
 * BadAlloc, GSK's texture limit). */
static void
test_many_devices (void)
{
  g_autofree char *path = tmp_path ("many-devices.pfprof");
  PfprofTrace *t = rt_trace_new (FALSE, NULL);
  g_autoptr (Report) r = NULL;
  guint on_screen = 0;

  for (guint i = 0; i < 40000; i++)
    {
      PfprofKernelRecord k = g_array_index (t->tables[PFPROF_TABLE_KERNELS], PfprofKernelRecord, 0);

      k.device_id = 100 + i;
      k.stream_id = 1000 + i;
      k.correlation_id = 0;
      g_array_append_val (t->tables[PFPROF_TABLE_KERNELS], k);
    }
  pfprof_trace_sort (t);
  g_assert_true (rt_trace_write (t, path));
  pfprof_trace_free (t);
  r = run_view (path, NULL);
  g_assert_cmpint (r->status, ==, 0);
  g_assert_cmpstr (get (r, "page"), ==, "content");
  g_assert_nonnull (strstr (get (r, "summary"), "and 39993 more GPUs"));
  /* GPUs without copies have no overlap to show, not a "nan%". */
  g_assert_nonnull (strstr (get (r, "summary"), "GPU 100: copy/compute overlap n/a"));
  g_assert_null (strstr (get (r, "summary"), "nan"));
  for (guint i = 0; i < r->lines->len; i++)
    on_screen += g_str_has_prefix (g_ptr_array_index (r->lines, i), "initial_row=");
  g_assert_cmpuint (on_screen, >, 10);
}

/* The finding's call site names train.py (relative): from the folder
 * that holds it, its line is shown; from another folder, where train.py
 * is a link to it, the file is outside the folder pfprof-view runs in, so
 * the line is not shown and the panel says why and how to show it;
 * PFPROF_SOURCE_LINES=always shows it. */
static void
test_source_lines (void)
{
  g_autofree char *project = tmp_path ("project");
  g_autofree char *elsewhere = tmp_path ("elsewhere");
  g_autofree char *train = g_build_filename (project, "train.py", NULL);
  g_autofree char *link = g_build_filename (elsewhere, "train.py", NULL);
  g_autoptr (GString) text = g_string_new (NULL);
  const char *line = "images = images.cuda(non_blocking=True)  # the batch";

  g_assert_cmpint (g_mkdir_with_parents (project, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (elsewhere, 0700), ==, 0);
  for (int i = 1; i < 57; i++)
    g_string_append_c (text, '\n');
  g_string_append_printf (text, "%s\n", line);
  g_assert_true (g_file_set_contents (train, text->str, -1, NULL));
  g_unlink (link);
  g_assert_cmpint (symlink (train, link), ==, 0);

  view_cwd = project;
  {
    g_autoptr (Report) r = run_view ("--select-finding", "0", pageable_trace, NULL);

    g_assert_cmpint (r->status, ==, 0);
    g_assert_nonnull (strstr (get (r, "finding_sites"), line));
    g_assert_null (strstr (get (r, "finding_sites"), "Source text not shown"));
  }
  view_cwd = elsewhere;
  {
    g_autoptr (Report) r = run_view ("--select-finding", "0", pageable_trace, NULL);

    g_assert_cmpint (r->status, ==, 0);
    g_assert_null (strstr (get (r, "finding_sites"), line));
    g_assert_nonnull (strstr (get (r, "finding_sites"), "train.py:57"));
    g_assert_nonnull (strstr (get (r, "finding_sites"), "Source text not shown"));
    g_assert_nonnull (strstr (get (r, "finding_sites"), "PFPROF_SOURCE_LINES=always"));
  }
  extra_env = "PFPROF_SOURCE_LINES=always";
  {
    g_autoptr (Report) r = run_view ("--select-finding", "0", pageable_trace, NULL);

    g_assert_cmpint (r->status, ==, 0);
    g_assert_nonnull (strstr (get (r, "finding_sites"), line));
  }
  extra_env = NULL;
  view_cwd = NULL;
}

/* A trace recorded on the GPU (samples/traces), if the tree has one: it
 * opens and draws its GPU rows with kernels; its first finding (the
 * pageable-copy finding for the pageable sample) can be selected, the view
 * then holding the occurrence. With PFPROF_SCREENSHOT_OUT set, that
 * screenshot is saved there (the README's picture). */
static void
test_recorded_sample (void)
{
  const char *dir = g_getenv ("PFPROF_SAMPLES");
  g_autoptr (GDir) d = dir ? g_dir_open (dir, 0, NULL) : NULL;
  g_autofree char *sample = NULL;
  g_autofree char *shot = tmp_path ("sample.png");
  g_autofree char *shot2 = tmp_path ("sample-selected.png");
  g_autoptr (Report) r = NULL;
  g_autoptr (Report) r2 = NULL;
  const char *name;
  const char *rule;
  cairo_surface_t *s;
  int x0, x1, y0, y1, kernel_px = 0;

  /* The first in name order: a_pageable.pfprof among the samples. */
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (name, ".pfprof") && (sample == NULL || strcmp (name, strrchr (sample, '/') + 1) < 0))
      {
        g_free (sample);
        sample = g_build_filename (dir, name, NULL);
      }
  if (sample == NULL)
    {
      g_test_skip ("no recorded trace under samples/traces");
      return;
    }
  g_test_message ("sample: %s", sample);
  r = run_view ("--screenshot", shot, sample, NULL);
  g_assert_cmpint (r->status, ==, 0);
  g_assert_cmpstr (get (r, "page"), ==, "content");
  /* Some stream row shows kernels at full view. */
  s = load_png (shot);
  for (guint i = 0; i < r->lines->len; i++)
    {
      const char *line = g_ptr_array_index (r->lines, i);
      const char *label = strstr (line, "Stream ");

      if (g_str_has_prefix (line, "initial_row=") && label != NULL
          && row_box (r, "initial", label, &x0, &x1, &y0, &y1))
        kernel_px += count_bluish (s, x0, x1, y0, y1);
    }
  cairo_surface_destroy (s);
  g_assert_cmpint (kernel_px, >, 100);
  g_assert_cmpint (get_i64 (r, "n_findings"), >, 0);

  rule = strstr (sample, "pageable") != NULL ? "pageable-transfer" : NULL;
  if (rule != NULL)
    r2 = run_view ("--screenshot", shot2, "--select-rule", rule, "--select-evidence-event", sample, NULL);
  else
    r2 = run_view ("--screenshot", shot2, "--select-finding", "0", "--select-evidence-event", sample, NULL);
  g_assert_cmpint (r2->status, ==, 0);
  g_assert_cmpstr (get (r2, "select_finding_ok"), ==, "1");
  if (rule != NULL)
    g_assert_cmpstr (get (r2, "finding_rule"), ==, rule);
  {
    gint64 e0, e1;
    int index;

    g_assert_cmpint (sscanf (get (r2, "evidence"), "%d %" G_GINT64_FORMAT " %" G_GINT64_FORMAT, &index, &e0, &e1), ==, 3);
    g_assert_cmpint (get_i64 (r2, "selected_t0"), <=, e0);
    g_assert_cmpint (get_i64 (r2, "selected_t1"), >=, e1);
  }
  if (g_getenv ("PFPROF_SCREENSHOT_OUT") != NULL)
    {
      g_autofree char *data = NULL;
      gsize len;

      g_assert_true (g_file_get_contents (shot2, &data, &len, NULL));
      g_assert_true (g_file_set_contents (g_getenv ("PFPROF_SCREENSHOT_OUT"), data, (gssize) len, NULL));
    }
}

/* With a dark desktop theme the timeline is drawn dark too. */
static void
test_dark_theme (void)
{
  g_autofree char *shot = tmp_path ("dark.png");
  g_autoptr (Report) r = NULL;
  cairo_surface_t *s;
  double p[3], blue[3];
  int x0, x1, y0, y1;

  extra_env = "GTK_THEME=Adwaita:dark";
  r = run_view ("--screenshot", shot, pageable_trace, NULL);
  extra_env = NULL;
  g_assert_cmpint (r->status, ==, 0);
  s = load_png (shot);
  g_assert_true (row_box (r, "initial", "Stream 15", &x0, &x1, &y0, &y1));
  /* The timeline's background between events, and the kernels in the
   * dark palette's kernel colour. */
  pixel (s, x1 - 2, y0 - 2, p);
  g_assert_cmpfloat (p[0] + p[1] + p[2], <, 0.9);
  g_assert_true (row_box (r, "initial", "Stream 13", &x0, &x1, &y0, &y1));
  pfprof_renderer_item_color (PFPROF_ITEM_KERNEL, TRUE, blue);
  g_assert_cmpint (count_colour (s, x0, x1, y0, y1, blue), >, (x1 - x0) * (y1 - y0) / 10);
  cairo_surface_destroy (s);
}

/* Runs @argv (NULL-terminated) with the app's environment; its exit
 * status, and its output (stdout then stderr) in @out. */
static int
run_shipped (const char *const *argv, char **out)
{
  g_auto (GStrv) envp = g_get_environ ();
  g_autofree char *o = NULL, *e = NULL;
  g_autoptr (GError) error = NULL;
  int status;

  if (g_getenv ("PFPROF_VIEW_LSAN_OPTIONS") != NULL)
    envp = g_environ_setenv (envp, "LSAN_OPTIONS", g_getenv ("PFPROF_VIEW_LSAN_OPTIONS"), TRUE);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_DEFAULT, NULL, NULL, &o, &e, &status, &error));
  *out = g_strconcat (o, e, NULL);
  return status;
}

/* `pfprof view` runs the shipped app (found next to pfprof in the build
 * tree), passing its arguments on: the app's own --help-all answers. */
static void
test_pfprof_view (void)
{
  const char *argv[] = { g_getenv ("PFPROF"), "view", "--help-all", NULL };
  g_autofree char *out = NULL;
  int status = run_shipped (argv, &out);

  g_test_message ("%s", out);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (out, "[TRACE...]"));
  g_assert_nonnull (strstr (out, "Timeline of pfprof traces with the findings marked."));
}

/* The shipped pfprof-view has no test mode: its help lists none of
 * pfprof-view-test's options, and it refuses them. */
static void
test_shipped_app (void)
{
  const char *help[] = { g_getenv ("PFPROF_VIEW"), "--help-all", NULL };
  const char *report[] = { g_getenv ("PFPROF_VIEW"), "--report", "report.txt", pageable_trace, NULL };
  static const char *const options[] = { "--report", "--screenshot", "--select-finding", "--select-rule",
                                         "--then-open", "--bench", "--search", "--measure" };
  g_autofree char *out = NULL, *out2 = NULL;
  int status = run_shipped (help, &out);

  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (out, "[TRACE...]"));
  for (guint i = 0; i < G_N_ELEMENTS (options); i++)
    if (strstr (out, options[i]) != NULL)
      g_error ("pfprof-view --help-all lists %s:\n%s", options[i], out);
  status = run_shipped (report, &out2);
  g_test_message ("%s", out2);
  g_assert_false (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (out2, "--report"));
}

/* Two ranks of one run on two hosts whose CUPTI clocks differ by 5 s
 * from each other: the window stacks them, each its own top group "rank N
 * (host, GPU)", on one aligned axis (the whole run spans well under the
 * planted 5 s). */
static void
test_two_ranks (void)
{
  g_autofree char *a = tmp_path ("rank0.pfprof");
  g_autofree char *b = tmp_path ("rank1.pfprof");
  const char *ga[] = { g_getenv ("PFPROF"), "generate", "--steps", "20", "--rank", "0", "--host", "host-a",
                       "--force", "-o", a, NULL };
  const char *gb[] = { g_getenv ("PFPROF"), "generate", "--steps", "20", "--rank", "1", "--host", "host-b",
                       "--clock-offset", "5000000000", "--force", "-o", b, NULL };
  const char *const *gens[] = { ga, gb };
  g_autoptr (Report) r = NULL;
  gboolean seen[2] = { FALSE, FALSE };

  for (guint i = 0; i < 2; i++)
    {
      g_autoptr (GError) error = NULL;
      int status;

      g_assert_true (g_spawn_sync (NULL, (char **) gens[i], NULL,
                                   G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                                   NULL, NULL, &status, &error));
      g_assert_true (g_spawn_check_wait_status (status, NULL));
    }
  r = run_view (a, b, NULL);
  g_assert_cmpint (r->status, ==, 0);
  g_assert_cmpstr (get (r, "page"), ==, "content");
  g_assert_cmpint (get_i64 (r, "initial_t1") - get_i64 (r, "initial_t0"), <, G_GINT64_CONSTANT (2000000000));
  for (guint i = 0; i < r->lines->len; i++)
    {
      const char *line = g_ptr_array_index (r->lines, i);

      if (!g_str_has_prefix (line, "initial_row="))
        continue;
      seen[0] |= strstr (line, " rank 0 (host-a, GPU 0) pid 4242 ") != NULL;
      seen[1] |= strstr (line, " rank 1 (host-b, GPU 0) pid 4243 ") != NULL;
    }
  g_assert_true (seen[0]);
  g_assert_true (seen[1]);
}

/* The app's search and measurement: the search bar counts the matches,
 * the line under the timeline measures the interval selected, and the
 * screenshot shows the interval on the time ruler, tinted where it is
 * and not elsewhere. */
static void
test_search_measure (void)
{
  g_autofree char *shot = tmp_path ("measure.png");
  g_autoptr (Report) r = run_view ("--screenshot", shot, "--search", "cudalaunch", "--measure", "0.25:0.5",
                                   pageable_trace, NULL);
  cairo_surface_t *s;
  double ox, oy, lw, w, h, iy;
  int x0, x1, y0, y1, inside, outside, a, b;

  g_assert_cmpint (r->status, ==, 0);
  g_test_message ("%s | %s", get (r, "search_count"), get (r, "measure"));
  g_assert_true (g_str_has_suffix (get (r, "search_count"), " matches"));
  g_assert_cmpint (g_ascii_strtoll (get (r, "search_count"), NULL, 10), >, 100);
  g_assert_nonnull (strstr (get (r, "measure"), " selected (from +"));
  g_assert_nonnull (strstr (get (r, "measure"), "GPU busy"));
  g_assert_nonnull (strstr (get (r, "measure"), " kernels"));
  /* Where the timeline is in the picture, the bar open above it. */
  g_assert_true (sscanf (get (r, "shot_origin"), "%lf %lf %lf %lf %lf", &ox, &oy, &lw, &w, &h) == 5);
  g_assert_true (sscanf (get (r, "initial_origin"), "%*f %lf", &iy) == 1);
  g_assert_cmpfloat (oy, >, iy + 20);
  g_assert_true (row_box (r, "shot", "Stream 13", &x0, &x1, &y0, &y1));
  s = load_png (shot);
  a = (int) (ox + lw + 0.25 * (w - lw));
  b = (int) (ox + lw + 0.5 * (w - lw));
  /* Tinted: bluer than it is red, by more than the ruler's grey is. */
  inside = outside = 0;
  for (int y = (int) oy + 2; y < (int) oy + 12; y++)
    for (int x = a + 4; x < b - 4; x++)
      {
        double p[3], q[3];

        pixel (s, x, y, p);
        pixel (s, x + (b - a) + 20, y, q);
        inside += p[2] - p[0] > 0.12;
        outside += q[2] - q[0] > 0.12;
      }
  g_test_message ("ruler: %d tinted pixels inside the interval, %d beside it", inside, outside);
  g_assert_cmpint (inside, >, (b - a - 8) * 10 * 8 / 10);
  g_assert_cmpint (outside, <, inside / 10);
  cairo_surface_destroy (s);
}

/* The text report of @trace, unwrapped, without colour. */
static char *
text_report (const char *trace)
{
  const char *argv[] = { g_getenv ("PFPROF"), "report", "--color=never", "--width=1000", trace, NULL };
  g_autoptr (GError) error = NULL;
  char *out = NULL;
  int status;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                               &status, &error));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return out;
}

/* An evaluation phase judged on its own (p_apex_pageable: 25% of the
 * run) has its findings listed after the training ones, under the
 * report's heading, each tagged "[evaluation]", in the report's order;
 * selecting one shows one of its occurrences, outlined in view. Without
 * one (p_apex: 17.6% of the run), the list has no such row. */
static void
test_evaluation_findings (void)
{
  const char *dir = g_getenv ("PFPROF_SAMPLES");
  g_autofree char *pageable = dir ? g_build_filename (dir, "p_apex_pageable.pfprof", NULL) : NULL;
  g_autofree char *plain = dir ? g_build_filename (dir, "p_apex.pfprof", NULL) : NULL;
  g_autofree char *report = NULL, *heading = NULL, *select = NULL;
  g_autoptr (GPtrArray) want = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) rows = g_ptr_array_new ();
  g_auto (GStrv) lines = NULL;
  g_autoptr (Report) r = NULL;
  gint64 n_training, a, b, fa, fb, v0, v1;
  int focus_row;

  if (pageable == NULL || !g_file_test (pageable, G_FILE_TEST_EXISTS) || !g_file_test (plain, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no p_apex samples under samples/traces");
      return;
    }
  /* The report's heading and its tagged findings, in its order. */
  report = text_report (pageable);
  lines = g_strsplit (report, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *tag = strstr (lines[i], ". [evaluation] [");

      if (g_str_has_prefix (lines[i], "Evaluation phase ("))
        heading = g_strdup (lines[i]);
      if (tag != NULL && g_ascii_isdigit (lines[i][0]))
        {
          /* "1. [evaluation] [error] input-starved" -> "[evaluation] error · input-starved" */
          g_auto (GStrv) w = g_strsplit (tag + 2, " ", 3);

          g_ptr_array_add (want, g_strdup_printf ("[evaluation] %.*s \u00b7 %s", (int) strlen (w[1]) - 2, w[1] + 1,
                                                  w[2]));
        }
    }
  g_assert_nonnull (heading);
  g_assert_cmpuint (want->len, ==, 3);

  r = run_view (pageable, NULL);
  g_assert_cmpint (r->status, ==, 0);
  n_training = get_i64 (r, "n_findings");
  g_assert_cmpint (n_training, >, 0);
  for (guint i = 0; i < r->lines->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (r->lines, i), "finding_row="))
      g_ptr_array_add (rows, (char *) g_ptr_array_index (r->lines, i) + strlen ("finding_row="));
  /* The training findings first, untagged; then the evaluation ones,
   * the report's first, in its order. */
  g_assert_cmpuint (rows->len, >=, n_training + want->len);
  for (guint i = 0; i < rows->len; i++)
    g_assert_cmpint (g_str_has_prefix (g_ptr_array_index (rows, i), "[evaluation] "), ==, i >= n_training);
  for (guint i = 0; i < want->len; i++)
    g_assert_true (g_str_has_prefix (g_ptr_array_index (rows, n_training + i), g_ptr_array_index (want, i)));
  /* The report's heading, over the first evaluation row only. */
  {
    g_autofree char *h = g_strdup_printf ("%" G_GINT64_FORMAT "\t%s", n_training, heading);

    g_assert_cmpstr (get (r, "finding_heading"), ==, h);
    for (guint i = 0, n = 0; i < r->lines->len; i++)
      g_assert_cmpuint (n += g_str_has_prefix (g_ptr_array_index (r->lines, i), "finding_heading="), <=, 1);
  }
  g_clear_pointer (&r, report_free);

  /* Selecting the first evaluation finding, as a click on its row. */
  select = g_strdup_printf ("%" G_GINT64_FORMAT, n_training);
  r = run_view ("--select-finding", select, pageable, NULL);
  g_assert_cmpint (r->status, ==, 0);
  g_assert_cmpstr (get (r, "select_finding_ok"), ==, "1");
  g_assert_cmpstr (get (r, "finding_selected_row"), ==, select);
  g_assert_cmpstr (get (r, "finding_phase"), ==, "evaluation");
  g_assert_true (g_str_has_suffix (g_ptr_array_index (want, 0), get (r, "finding_rule")));
  g_assert_cmpint (get_i64 (r, "n_occurrences"), >, 0);
  g_assert_cmpint (sscanf (get (r, "occurrence"), "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT, &a, &b), ==, 2);
  g_assert_cmpint (sscanf (get (r, "focus"), "%d %" G_GINT64_FORMAT " %" G_GINT64_FORMAT, &focus_row, &fa, &fb), ==, 3);
  g_assert_cmpint (sscanf (get (r, "view_range"), "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT, &v0, &v1), ==, 2);
  /* Outlined on its row, and in view. */
  g_assert_cmpint (focus_row, >=, 0);
  g_assert_cmpint (fa, ==, a);
  g_assert_cmpint (fb, ==, b);
  g_assert_cmpint (v0, <=, a);
  g_assert_cmpint (v1, >=, b);
  g_assert_cmpint (a, <, b);
  g_clear_pointer (&r, report_free);

  r = run_view (plain, NULL);
  g_assert_cmpint (r->status, ==, 0);
  g_assert_cmpint (get_i64 (r, "n_findings"), >, 0);
  for (guint i = 0; i < r->lines->len; i++)
    {
      const char *line = g_ptr_array_index (r->lines, i);

      g_assert_false (g_str_has_prefix (line, "finding_heading="));
      g_assert_null (strstr (line, "[evaluation]"));
    }
}

int
main (int argc, char **argv)
{
  int rc;

  g_test_init (&argc, &argv, NULL);
  if (g_getenv ("PFPROF_VIEW_TEST") == NULL || g_getenv ("PFPROF_VIEW") == NULL || g_getenv ("PFPROF") == NULL)
    g_error ("PFPROF_VIEW_TEST, PFPROF_VIEW and PFPROF must name the binaries");
  tmp_dir = g_dir_make_tmp ("pfprof-gui-XXXXXX", NULL);
  pageable_trace = tmp_path ("pageable.pfprof");
  generate (pageable_trace, "pageable");
  g_test_add_func ("/gui/first-frame", test_first_frame);
  g_test_add_func ("/gui/draws-before-analysis", test_draws_before_analysis);
  g_test_add_func ("/gui/sketch-first", test_sketch_first);
  g_test_add_func ("/gui/cairo-skips-gl", test_cairo_skips_gl);
  g_test_add_func ("/gui/select-finding", test_select_finding);
  g_test_add_func ("/gui/search-measure", test_search_measure);
  g_test_add_func ("/gui/corrupt-file-survives", test_corrupt_file_survives);
  g_test_add_func ("/gui/start-on-bad-file", test_start_on_bad_file);
  g_test_add_func ("/gui/no-gpu", test_no_gpu);
  g_test_add_func ("/gui/many-devices", test_many_devices);
  g_test_add_func ("/gui/source-lines", test_source_lines);
  g_test_add_func ("/gui/pfprof-view", test_pfprof_view);
  g_test_add_func ("/gui/shipped-app", test_shipped_app);
  g_test_add_func ("/gui/dark-theme", test_dark_theme);
  g_test_add_func ("/gui/recorded-sample", test_recorded_sample);
  g_test_add_func ("/gui/two-ranks", test_two_ranks);
  g_test_add_func ("/gui/evaluation-findings", test_evaluation_findings);
  rc = g_test_run ();
  {
    g_autoptr (GDir) d = g_dir_open (tmp_dir, 0, NULL);
    const char *n;

    while (d != NULL && (n = g_dir_read_name (d)) != NULL)
      {
        g_autofree char *p = tmp_path (n);

        g_unlink (p);
      }
    g_rmdir (tmp_dir);
  }
  g_free (pageable_trace);
  g_free (tmp_dir);
  return rc;
}
