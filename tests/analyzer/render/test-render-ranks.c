/* SPDX-License-Identifier: MIT */
/* test-render-ranks.c: several ranks stacked on one aligned time axis.
 *
 * Two ranks of the same simulated run (same seed: identical GPU work at
 * identical wall-clock times), rank 1 on another host whose CUPTI clock
 * runs 5 s ahead of its wall clock (`pfprof generate --clock-offset`).
 * Loaded and analyzed as `pfprof render` and the GUI do, each rank is its
 * own top group "rank N (host, GPU)", and the compute stream of both
 * ranks draws at the same pixel columns. Control: the same two traces
 * claiming one host keep their recorded (5 s apart) times, and their
 * columns differ.
 */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "pfprof-renderer.h"
#include "pfprof-timeline.h"
#include "pfprof-trace-generator.h"
#include "pfprof-importer.h"

static char *tmpdir;

static char *
generate (const char *name, guint rank, const char *host, gint64 clock_offset_ns)
{
  PfprofTraceGenerator gen;
  char err[256];
  char *path = g_build_filename (tmpdir, name, NULL);

  pfprof_trace_generator_init (&gen);
  gen.steps = 12;
  gen.seed = 4;
  gen.rank = (int32_t) rank;
  gen.world_size = 2;
  gen.host = host;
  gen.clock_offset_ns = clock_offset_ns;
  g_assert_cmpint (pfprof_trace_generator_write (&gen, path, PFPROF_WRITER_OVERWRITE, NULL, err,
                                                 sizeof err),
                   ==, PFPROF_WRITER_OK);
  return path;
}

static PfprofAnalysis *
load (const char *a, const char *b)
{
  GPtrArray *traces = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  const char *paths[] = { a, b };
  g_autoptr (PfprofRun) run = NULL;

  for (guint i = 0; i < 2; i++)
    {
      PfprofTrace *t = pfprof_importer_load (paths[i], NULL, NULL, &error);

      g_assert_no_error (error);
      g_ptr_array_add (traces, t);
    }
  run = pfprof_run_new (traces);
  return pfprof_analysis_run (run, NULL);
}

static int
stream_row (const PfprofTimeline *tl, guint trace_index, guint32 stream)
{
  for (guint i = 0; i < tl->rows->len; i++)
    {
      const PfprofTimelineRow *r = pfprof_timeline_get_row (tl, i);

      if (r->type == PFPROF_ROW_STREAM && r->trace_index == trace_index && r->stream_id == stream
          && r->sub_lane == 0)
        return (int) i;
    }
  return -1;
}

static guint32
pixel (cairo_surface_t *s, int x, int y)
{
  const guint8 *data = cairo_image_surface_get_data (s);

  return *(const guint32 *) (const void *) (data + y * cairo_image_surface_get_stride (s) + x * 4)
         & 0xffffff;
}

static gboolean
differs (guint32 p, guint32 q)
{
  for (int sh = 0; sh < 24; sh += 8)
    if (abs ((int) ((p >> sh) & 0xff) - (int) ((q >> sh) & 0xff)) > 6)
      return TRUE;
  return FALSE;
}

/* Pixel columns where the middle line of row @row is not background
 * (its colour at the left edge of the time area, before any GPU work). */
static GArray *
busy_columns (cairo_surface_t *s, const PfprofTimeline *tl, const PfprofRenderView *v, int row)
{
  GArray *cols = g_array_new (FALSE, FALSE, sizeof (int));
  int y = (int) (pfprof_renderer_row_y (tl, v, (guint) row)
                 + pfprof_renderer_row_height (tl, v, (guint) row) / 2);
  int x0 = (int) ceil (v->label_width) + 1;
  guint32 bg = pixel (s, x0, y);

  for (int x = x0; x < (int) v->width; x++)
    if (differs (pixel (s, x, y), bg))
      g_array_append_val (cols, x);
  return cols;
}

/* First pixel column where the middle line of row @row has the kernel
 * colour, or -1. Step lines cross every row; kernels only their own. */
static int
first_kernel_x (cairo_surface_t *s, const PfprofTimeline *tl, const PfprofRenderView *v, int row)
{
  int y = (int) (pfprof_renderer_row_y (tl, v, (guint) row)
                 + pfprof_renderer_row_height (tl, v, (guint) row) / 2);
  double rgb[3];
  guint32 k;

  pfprof_renderer_item_color (PFPROF_ITEM_KERNEL, FALSE, rgb);
  k = (guint32) lround (rgb[0] * 255) << 16 | (guint32) lround (rgb[1] * 255) << 8
      | (guint32) lround (rgb[2] * 255);
  for (int x = (int) ceil (v->label_width) + 1; x < (int) v->width; x++)
    if (!differs (pixel (s, x, y), k))
      return x;
  return -1;
}

/* Columns in one set and not within 1 px of the other's. */
static guint
mismatches (const GArray *a, const GArray *b)
{
  guint n = 0;

  for (guint i = 0; i < a->len; i++)
    {
      int x = g_array_index (a, int, i);
      gboolean found = FALSE;

      for (guint j = 0; j < b->len && !found; j++)
        found = abs (g_array_index (b, int, j) - x) <= 1;
      n += !found;
    }
  return n;
}

typedef struct
{
  guint mismatched;
  guint n0, n1;
  int first0, first1; /* first kernel column of each rank's compute stream */
} Columns;

static Columns
draw_ranks (PfprofAnalysis *a, gboolean check_labels)
{
  g_autoptr (PfprofTimeline) tl = pfprof_timeline_new (a, NULL, NULL);
  PfprofRenderView v;
  cairo_surface_t *s;
  cairo_t *cr;
  int r0, r1;
  Columns c;
  g_autoptr (GArray) c0 = NULL;
  g_autoptr (GArray) c1 = NULL;

  pfprof_render_view_init (&v, tl, 1400, 100);
  v.height = v.ruler_height + pfprof_renderer_content_height (tl, &v) + 10;
  s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) v.width, (int) v.height);
  cr = cairo_create (s);
  pfprof_renderer_draw (cr, tl, &v, NULL);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  if (g_getenv ("RENDER_TEST_SAVE"))
    {
      g_autofree char *name = g_strdup_printf ("%s/ranks-%d.png", g_getenv ("RENDER_TEST_SAVE"),
                                               check_labels);

      cairo_surface_write_to_png (s, name);
    }

  if (check_labels)
    {
      /* Each rank is a top group, labelled with its rank, host and GPU,
       * and drawn: its label column holds text. */
      guint n_top = 0;
      const char *want[] = { "rank 0 (host-a, GPU 0) pid 4242 ", "rank 1 (host-b, GPU 0) pid 4243 " };

      for (guint i = 0; i < tl->rows->len; i++)
        {
          const PfprofTimelineRow *r = pfprof_timeline_get_row (tl, i);
          int y, dark = 0;

          if (r->depth != 0)
            continue;
          g_assert_cmpuint (n_top, <, 2);
          g_assert_true (r->type == PFPROF_ROW_PROCESS && r->is_group);
          g_assert_cmpuint (r->trace_index, ==, n_top);
          g_test_message ("top row %u: %s", i, r->label);
          g_assert_true (g_str_has_prefix (r->label, want[n_top]));
          g_assert_true (pfprof_renderer_row_shown (tl, &v, i));
          y = (int) (pfprof_renderer_row_y (tl, &v, i) + pfprof_renderer_row_height (tl, &v, i) / 2);
          for (int x = 0; x < (int) v.label_width; x++)
            dark += differs (pixel (s, x, y), pixel (s, 1, y));
          g_assert_cmpint (dark, >, 5);
          n_top++;
        }
      g_assert_cmpuint (n_top, ==, 2);
    }

  r0 = stream_row (tl, 0, 13);
  r1 = stream_row (tl, 1, 13);
  g_assert_cmpint (r0, >=, 0);
  g_assert_cmpint (r1, >, r0);
  c0 = busy_columns (s, tl, &v, r0);
  c1 = busy_columns (s, tl, &v, r1);
  c.n0 = c0->len;
  c.n1 = c1->len;
  c.mismatched = mismatches (c0, c1) + mismatches (c1, c0);
  c.first0 = first_kernel_x (s, tl, &v, r0);
  c.first1 = first_kernel_x (s, tl, &v, r1);
  g_test_message ("compute-stream columns: %u and %u, %u not matched; first kernel at x %d and %d",
                  c.n0, c.n1, c.mismatched, c.first0, c.first1);
  cairo_surface_destroy (s);
  return c;
}

static void
test_aligned (void)
{
  g_autofree char *a = generate ("a.pfprof", 0, "host-a", 0);
  g_autofree char *b = generate ("b.pfprof", 1, "host-b", G_GINT64_CONSTANT (5000000000));
  g_autoptr (PfprofAnalysis) an = load (a, b);
  Columns c;

  g_assert_cmpint (((PfprofTrace *) an->traces->pdata[1])->clock_offset_ns, ==,
                   -G_GINT64_CONSTANT (5000000000));
  c = draw_ranks (an, TRUE);
  g_assert_cmpuint (c.n0, >, 100);
  g_assert_cmpuint (c.n1, ==, c.n0);
  g_assert_cmpuint (c.mismatched, ==, 0);
  g_assert_cmpint (c.first0, >, (int) 0);
  g_assert_cmpint (c.first0, ==, c.first1);
}

static void
test_one_host_not_moved (void)
{
  g_autofree char *a = generate ("c.pfprof", 0, "host-a", 0);
  g_autofree char *b = generate ("d.pfprof", 1, "host-a", G_GINT64_CONSTANT (5000000000));
  g_autoptr (PfprofAnalysis) an = load (a, b);
  Columns c = draw_ranks (an, FALSE);

  g_assert_cmpint (((PfprofTrace *) an->traces->pdata[1])->clock_offset_ns, ==, 0);
  /* 5 s apart on a ~5.3 s axis 1,200 px wide: about 1,130 px. */
  g_assert_cmpint (c.first0, >, 0);
  g_assert_cmpint (c.first1 - c.first0, >, 1000);
}

/* Lays out the traces @first and @second (in that order) and checks that
 * the two top-level groups are rank 0's on GPU 0, then rank 1's on GPU 1. */
static void
assert_rank_groups (const char *first, const char *second)
{
  PfprofAnalysis *an = load (first, second);
  g_autoptr (PfprofTimeline) tl = pfprof_timeline_new (an, NULL, NULL);
  const char *want[] = { "rank 0 (vm, GPU 0) ", "rank 1 (vm, GPU 1) " };
  guint n_top = 0;

  for (guint i = 0; i < tl->rows->len; i++)
    {
      const PfprofTimelineRow *r = pfprof_timeline_get_row (tl, i);

      if (r->depth != 0)
        continue;
      g_assert_cmpuint (n_top, <, 2);
      g_test_message ("top row %u: %s", i, r->label);
      g_assert_true (g_str_has_prefix (r->label, want[n_top]));
      n_top++;
    }
  g_assert_cmpuint (n_top, ==, 2);
  g_clear_pointer (&tl, pfprof_timeline_free);
  pfprof_analysis_free (an);
}

/* The DDP traces recorded on two H200s: each rank sees both GPUs (the
 * devices table lists them) and CUDA_VISIBLE_DEVICES is unset, yet rank 1
 * runs on GPU 1 and its group must say so. Given rank 1 first (as a glob
 * of run-<host>-<rank> may), rank 0 still comes first. */
static void
test_ddp_sample_gpus (void)
{
  const char *dir = g_getenv ("PFPROF_SAMPLES");
  g_autofree char *a = NULL, *b = NULL;

  if (dir == NULL)
    {
      g_test_skip ("PFPROF_SAMPLES not set");
      return;
    }
  a = g_build_filename (dir, "g_ddp_even_rank0.pfprof", NULL);
  b = g_build_filename (dir, "g_ddp_even_rank1.pfprof", NULL);
  assert_rank_groups (a, b);
  assert_rank_groups (b, a);
}

int
main (int argc, char **argv)
{
  int rc;

  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("pfprof-render-ranks-XXXXXX", NULL);
  g_assert_nonnull (tmpdir);
  g_test_add_func ("/render/ranks/aligned", test_aligned);
  g_test_add_func ("/render/ranks/one-host-not-moved", test_one_host_not_moved);
  g_test_add_func ("/render/ranks/ddp-sample-gpus", test_ddp_sample_gpus);
  rc = g_test_run ();
  {
    const char *names[] = { "a.pfprof", "b.pfprof", "c.pfprof", "d.pfprof" };

    for (guint i = 0; i < G_N_ELEMENTS (names); i++)
      {
        g_autofree char *p = g_build_filename (tmpdir, names[i], NULL);

        g_unlink (p);
      }
    g_rmdir (tmpdir);
    g_free (tmpdir);
  }
  return rc;
}
