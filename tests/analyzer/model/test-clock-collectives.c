/* SPDX-License-Identifier: MIT */
/* test-clock-collectives.c: hosts' clocks measured on the collectives
 * their ranks ran together (suite analyzer).
 *
 * - Synthetic: two hosts whose triples agree but whose wall clocks do not
 *   (an NTP error the triples cannot see), with a drift and a few
 *   microseconds of jitter; broadcasts that must not count; a recording
 *   that missed the first collectives; a trace without a triple.
 * - Real: the DDP traces recorded on two H200s of one host, where the
 *   true offset is 0, unmoved and with rank 1 relabelled as another host
 *   whose clock is 2.5 ms off; and two ranks recorded as two "hosts"
 *   whose wall clocks were 3.7 ms apart.
 */
#include <math.h>
#include <string.h>

#include "analyzer-sim.h"
#include "pfprof-clock-align.h"
#include "pfprof-clock-collectives-private.h"
#include "pfprof-importer.h"

#define US ((gint64) 1000)
#define MS ((gint64) 1000000)
#define T0 ((gint64) 1767225600 * (gint64) 1000000000)
#define N_COLL 400
#define PERIOD (10 * MS)

static const char *const allreduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
static const char *const broadcast = "ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

/* A small deterministic jitter in [-3, 3] us. */
static gint64
jitter (guint i, guint salt)
{
  guint32 h = (i + 1) * 2654435761u ^ salt * 40503u;

  return (gint64) (h % 6001) - 3000;
}

/* One rank's trace: N_COLL all-reduces, the i-th ending at true time
 * T0 + i * PERIOD (+ a little, varying), each with a broadcast after it
 * whose end depends on the rank (root or not); compute kernels between.
 * The rank's clock reads @error + @drift * (t - T0) ahead of true time;
 * its triple agrees with its own clock (CUPTI = REALTIME on Linux), so
 * the triples see nothing. The first @skip collectives are missing. */
static PfprofTrace *
rank_trace (const char *host, guint rank, gint64 error, double drift, guint skip, gboolean triple)
{
  PfprofTrace *t = pfprof_trace_new ();

#define CLOCK(x) ((x) + error + (gint64) llround (drift * (double) ((x) - T0)))
  for (guint i = skip; i < N_COLL; i++)
    {
      gint64 end = T0 + i * PERIOD + ((i * 2654435761u) % 997) * 2 * US;
      gint64 e = end + (rank == 0 ? 0 : jitter (i, rank));

      /* Ranks start the same all-reduce at different times (the slower
       * one last); only the end is shared. */
      sim_add_kernel (t, "void at::native::conv_fwd", 17, CLOCK (end - 6 * MS), CLOCK (end - 4 * MS));
      sim_add_kernel (t, allreduce, 17, CLOCK (end - (rank + 1) * 900 * US), CLOCK (e));
      /* The root's broadcast ends at once; the others' when they get there. */
      sim_add_kernel (t, broadcast, 17, CLOCK (end + 100 * US), CLOCK (end + (rank == 0 ? 110 : 2500) * US));
    }
#undef CLOCK
  g_hash_table_insert (t->meta, g_strdup ("host"), g_strdup (host));
  g_hash_table_insert (t->meta, g_strdup ("rank"), g_strdup_printf ("%u", rank));
  t->rank = rank;
  if (triple)
    {
      g_hash_table_insert (t->meta, g_strdup ("clock_start_cupti_ns"),
                           g_strdup_printf ("%" G_GINT64_FORMAT, T0 - 50 * MS + error));
      g_hash_table_insert (t->meta, g_strdup ("clock_start_realtime_ns"),
                           g_strdup_printf ("%" G_GINT64_FORMAT, T0 - 50 * MS + error + 74));
    }
  pfprof_trace_sort (t);
  return t;
}

/* The largest |end difference| of the all-reduces both traces hold,
 * paired by true time (rank 1's first ones may be missing). */
static gint64
worst_allreduce_gap (const PfprofTrace *a, const PfprofTrace *b)
{
  GArray *ea = g_array_new (FALSE, FALSE, sizeof (gint64));
  GArray *eb = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 worst = 0;

  for (guint k = 0; k < 2; k++)
    {
      const PfprofTrace *t = k == 0 ? a : b;

      for (guint i = 0; i < pfprof_trace_n (t, PFPROF_TABLE_KERNELS); i++)
        {
          const PfprofKernelRecord *r = &pfprof_trace_kernels (t)[i];

          if (strcmp (pfprof_trace_string (t, r->name_id), allreduce) == 0)
            g_array_append_val (k == 0 ? ea : eb, r->end_ns);
        }
    }
  g_assert_cmpuint (eb->len, <=, ea->len);
  for (guint i = 0; i < eb->len; i++)
    {
      gint64 d = g_array_index (eb, gint64, i) - g_array_index (ea, gint64, i + ea->len - eb->len);

      worst = MAX (worst, ABS (d));
    }
  g_array_unref (ea);
  g_array_unref (eb);
  return worst;
}

static void
test_names (void)
{
  static const char *const yes[] = {
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE",
    "void ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
    "ncclAllReduceRingLLKernel_sum_f32(CollectiveArgs)",
    "ncclDevKernel_ReduceScatter_Sum_bf16_RING_SIMPLE",
  };
  static const char *const no[] = {
    "ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "ncclDevKernel_SendRecv", "ncclDevKernel_Reduce_Sum_f32_RING_LL", "ncclDevKernel_Generic",
    "void at::native::AllReduce_kernel", "", "AllReduce",
  };

  for (guint i = 0; i < G_N_ELEMENTS (yes); i++)
    g_assert_true (pfprof_kernel_name_is_symmetric_collective (yes[i]));
  for (guint i = 0; i < G_N_ELEMENTS (no); i++)
    g_assert_false (pfprof_kernel_name_is_symmetric_collective (no[i]));
  g_assert_false (pfprof_kernel_name_is_symmetric_collective (NULL));
}

/* Host b's wall clock is 1.234 ms ahead and gains 20 ppm (80 us over the
 * 4 s run): the triples see neither, the all-reduces both. */
static void
test_offset_and_drift (void)
{
  g_autoptr (GPtrArray) run = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_trace_free);
  PfprofTrace *a, *b;

  g_ptr_array_add (run, rank_trace ("node-a", 0, 0, 0, 0, TRUE));
  g_ptr_array_add (run, rank_trace ("node-b", 1, 1234 * US, 20e-6, 0, TRUE));
  a = run->pdata[0];
  b = run->pdata[1];
  g_assert_cmpint (worst_allreduce_gap (a, b), >, 1234 * US);
  g_assert_cmpuint (pfprof_clock_align (run), ==, 0);
  g_assert_cmpint (a->clock_alignment, ==, PFPROF_CLOCK_ALIGNED);
  g_assert_cmpint (a->clock_offset_ns, ==, 0);
  g_assert_cmpint (b->clock_alignment, ==, PFPROF_CLOCK_COLLECTIVES);
  g_assert_cmpstr (pfprof_clock_alignment_to_string (b->clock_alignment), ==, "collectives");
  g_test_message ("fit: %u used, offset %" G_GINT64_FORMAT " ns, drift %.2f ppm, spread %" G_GINT64_FORMAT
                  " ns", b->clock_collectives, b->clock_offset_ns, b->clock_drift * 1e6, b->clock_spread_ns);
  g_assert_cmpuint (b->clock_collectives, >=, N_COLL - 10);
  g_assert_cmpfloat (fabs (b->clock_drift - 20e-6), <, 1e-6);
  g_assert_cmpint (b->clock_spread_ns, <=, 3 * US);
  /* Every all-reduce now ends within the jitter of rank 0's. */
  g_assert_cmpint (worst_allreduce_gap (a, b), <=, 5 * US);
}

/* Rank 1's recording missed the first 5 collectives; its host has no
 * drift: the pairing still finds the right collectives, and the offset
 * is a constant. */
static void
test_late_start (void)
{
  g_autoptr (GPtrArray) run = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_trace_free);
  PfprofTrace *b;

  g_ptr_array_add (run, rank_trace ("node-a", 0, 0, 0, 0, TRUE));
  g_ptr_array_add (run, rank_trace ("node-b", 1, -730 * US, 0, 5, TRUE));
  g_assert_cmpuint (pfprof_clock_align (run), ==, 0);
  b = run->pdata[1];
  g_assert_cmpint (b->clock_alignment, ==, PFPROF_CLOCK_COLLECTIVES);
  g_assert_cmpfloat (b->clock_drift, ==, 0.0);
  g_assert_cmpint (ABS (b->clock_offset_ns - 730 * US), <=, 3 * US);
  g_assert_cmpint (worst_allreduce_gap (run->pdata[0], b), <=, 5 * US);
}

/* Rank 1's trace given first: rank 0's host is still the reference, and
 * rank 1's times are the ones that move. */
static void
test_reference_is_rank0 (void)
{
  g_autoptr (GPtrArray) run = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_trace_free);
  PfprofTrace *a, *b;

  g_ptr_array_add (run, rank_trace ("node-b", 1, 2 * MS, 0, 0, TRUE));
  g_ptr_array_add (run, rank_trace ("node-a", 0, 0, 0, 0, TRUE));
  b = run->pdata[0];
  a = run->pdata[1];
  g_assert_cmpuint (pfprof_clock_align (run), ==, 0);
  g_assert_cmpint (a->clock_alignment, ==, PFPROF_CLOCK_ALIGNED);
  g_assert_cmpint (a->clock_offset_ns, ==, 0);
  g_assert_cmpint (b->clock_alignment, ==, PFPROF_CLOCK_COLLECTIVES);
  g_assert_cmpint (ABS (b->clock_offset_ns + 2 * MS), <=, 3 * US);
}

/* No triple: the triples cannot place the trace, the collectives can.
 * One host: nothing moves, collectives or not. Too few collectives:
 * the triples' alignment stays. */
static void
test_fallbacks (void)
{
  g_autoptr (GPtrArray) notriple = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_trace_free);
  g_autoptr (GPtrArray) onehost = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_trace_free);
  g_autoptr (GPtrArray) few = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_trace_free);
  PfprofTrace *t;
  PfprofClockFit fit;

  g_ptr_array_add (notriple, rank_trace ("node-a", 0, 0, 0, 0, TRUE));
  g_ptr_array_add (notriple, rank_trace ("node-b", 1, 40 * MS, 0, 0, FALSE));
  g_assert_cmpuint (pfprof_clock_align (notriple), ==, 0);
  t = notriple->pdata[1];
  g_assert_cmpint (t->clock_alignment, ==, PFPROF_CLOCK_COLLECTIVES);
  g_assert_cmpint (ABS (t->clock_offset_ns + 40 * MS), <=, 3 * US);

  g_ptr_array_add (onehost, rank_trace ("node-a", 0, 0, 0, 0, TRUE));
  g_ptr_array_add (onehost, rank_trace ("node-a", 1, 500 * US, 0, 0, TRUE));
  g_assert_cmpuint (pfprof_clock_align (onehost), ==, 0);
  t = onehost->pdata[1];
  g_assert_cmpint (t->clock_alignment, ==, PFPROF_CLOCK_SHARED);
  g_assert_cmpint (t->clock_offset_ns, ==, 0);

  /* Only the last 5 all-reduces: too few to tell. */
  g_ptr_array_add (few, rank_trace ("node-a", 0, 0, 0, 0, TRUE));
  g_ptr_array_add (few, rank_trace ("node-b", 1, 2 * MS, 0, N_COLL - 5, TRUE));
  g_assert_false (pfprof_clock_collectives_fit (few->pdata[0], few->pdata[1], &fit));
  g_assert_cmpuint (fit.n_matched, ==, 0);
  g_assert_cmpuint (pfprof_clock_align (few), ==, 0);
  t = few->pdata[1];
  g_assert_cmpint (t->clock_alignment, ==, PFPROF_CLOCK_ALIGNED);
  g_assert_cmpint (t->clock_offset_ns, ==, 0);
}

/* The folder of the recorded samples, or NULL (and the test skipped). */
static const char *
samples_dir (void)
{
  const char *dir = g_getenv ("PFPROF_SAMPLES");

  if (dir == NULL)
    g_test_skip ("PFPROF_SAMPLES not set");
  return dir;
}

static PfprofTrace *
load_sample (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) error = NULL;
  PfprofTrace *t = pfprof_importer_load (path, NULL, NULL, &error);

  g_assert_no_error (error);
  return t;
}

/* Adds @d to every kernel time of @t: its host's clock is @d ahead. */
static void
shift_kernels (PfprofTrace *t, gint64 d)
{
  for (guint i = 0; i < pfprof_trace_n (t, PFPROF_TABLE_KERNELS); i++)
    {
      pfprof_trace_kernels (t)[i].start_ns += d;
      pfprof_trace_kernels (t)[i].end_ns += d;
    }
  pfprof_trace_sort (t);
}

/* The H200 DDP traces (two ranks, one host, NVLink): unmoved, the fit
 * measures the method's own error (the true offset is 0); with rank 1
 * put on a host 2.5 ms ahead, the alignment takes it back to that. */
static void
test_h200_ddp (void)
{
  const char *dir = samples_dir ();
  const char *const runs[] = { "even", "slow" };

  if (dir == NULL)
    return;
  for (guint r = 0; r < G_N_ELEMENTS (runs); r++)
    {
      g_autofree char *n0 = g_strdup_printf ("g_ddp_%s_rank0.pfprof", runs[r]);
      g_autofree char *n1 = g_strdup_printf ("g_ddp_%s_rank1.pfprof", runs[r]);
      g_autoptr (GPtrArray) run = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_trace_free);
      PfprofTrace *a = load_sample (dir, n0), *b = load_sample (dir, n1);
      PfprofClockFit fit;

      g_ptr_array_add (run, a);
      g_ptr_array_add (run, b);
      g_assert_true (pfprof_clock_collectives_fit (a, b, &fit));
      g_test_message ("%s, one host: %u all-reduces paired, %u used, offset %" G_GINT64_FORMAT
                      " ns, spread %" G_GINT64_FORMAT " ns, drift %.3f ppm",
                      runs[r], fit.n_matched, fit.n_used, fit.offset_ns, fit.spread_ns, fit.drift * 1e6);
      /* 128 all-reduces and all-gathers in each trace. */
      g_assert_cmpuint (fit.n_matched, ==, 128);
      g_assert_cmpuint (fit.n_used, >=, 120);
      g_assert_cmpint (ABS (fit.offset_ns), <=, 20 * US);
      g_assert_cmpint (fit.spread_ns, <=, 10 * US);

      g_hash_table_insert (b->meta, g_strdup ("host"), g_strdup ("node-b"));
      shift_kernels (b, 2500 * US);
      g_assert_cmpuint (pfprof_clock_align (run), ==, 0);
      g_assert_cmpint (b->clock_alignment, ==, PFPROF_CLOCK_COLLECTIVES);
      g_assert_cmpint (ABS (b->clock_collectives_ns + 2500 * US), <=, 20 * US);
      g_assert_cmpint (b->clock_spread_ns, <=, 10 * US);
    }
}

/* Two ranks recorded as two "hosts" on the H200s (samples/README.md, h):
 * rank 1's wall clock, and with it CUPTI's, 3.700 ms ahead, which its
 * triple cannot see. Given rank 1 first, rank 0 stays the reference and
 * rank 1 moves back by what the collectives measured. */
static void
test_h200_two_hosts (void)
{
  const char *dir = samples_dir ();
  g_autoptr (GPtrArray) run = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_trace_free);
  PfprofTrace *a, *b;

  if (dir == NULL)
    return;
  b = load_sample (dir, "h_hosts_rank1.pfprof");
  a = load_sample (dir, "h_hosts_rank0.pfprof");
  g_ptr_array_add (run, b);
  g_ptr_array_add (run, a);
  g_assert_cmpstr (pfprof_trace_meta (b, "host"), ==, "pfprof-host-b");
  g_assert_cmpuint (pfprof_clock_align (run), ==, 0);
  g_test_message ("rank 1: moved %" G_GINT64_FORMAT " ns (%" G_GINT64_FORMAT " by the collectives, %u of them, "
                  "spread %" G_GINT64_FORMAT " ns)", b->clock_offset_ns, b->clock_collectives_ns,
                  b->clock_collectives, b->clock_spread_ns);
  g_assert_cmpint (a->clock_alignment, ==, PFPROF_CLOCK_ALIGNED);
  g_assert_cmpint (a->clock_offset_ns, ==, 0);
  g_assert_cmpint (b->clock_alignment, ==, PFPROF_CLOCK_COLLECTIVES);
  /* The triples saw next to nothing; the collectives saw the 3.7 ms. */
  g_assert_cmpint (ABS (b->clock_offset_ns - b->clock_collectives_ns), <=, 10 * US);
  g_assert_cmpint (ABS (b->clock_offset_ns + 3700 * US), <=, 50 * US);
  g_assert_cmpuint (b->clock_collectives, >=, 120);
  g_assert_cmpint (b->clock_spread_ns, <=, 50 * US);
}

/* End times of @t's symmetric collectives, in order of start. */
static GArray *
collective_ends (const PfprofTrace *t)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (gint64));

  for (guint i = 0; i < pfprof_trace_n (t, PFPROF_TABLE_KERNELS); i++)
    {
      const PfprofKernelRecord *k = &pfprof_trace_kernels (t)[i];

      if (pfprof_kernel_name_is_symmetric_collective (pfprof_trace_string (t, k->name_id)))
        g_array_append_val (out, k->end_ns);
    }
  return out;
}

/* Median of the end differences b - a over pairs [@from, @to). */
static gint64
median_gap (GArray *a, GArray *b, guint from, guint to)
{
  g_autofree gint64 *d = g_new (gint64, to - from);

  for (guint i = from; i < to; i++)
    {
      gint64 x = g_array_index (b, gint64, i) - g_array_index (a, gint64, i), v = x;
      guint j = i - from;

      /* insertion sort: a few hundred values */
      while (j > 0 && d[j - 1] > v)
        {
          d[j] = d[j - 1];
          j--;
        }
      d[j] = v;
    }
  return d[(to - from) / 2];
}

/* The same two "hosts" recorded again with rank 1's wall clock also
 * running 500 ppm fast (samples/README.md, h): CUPTI's times followed it.
 * The fit finds the drift, and after alignment the collectives end
 * together in the first half of the run as in the last. */
static void
test_h200_drift (void)
{
  const char *dir = samples_dir ();
  g_autoptr (GPtrArray) run = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_trace_free);
  g_autoptr (GArray) ea = NULL;
  g_autoptr (GArray) eb = NULL;
  PfprofTrace *a, *b;
  gint64 before_first, before_last, first, last;
  guint n;

  if (dir == NULL)
    return;
  a = load_sample (dir, "h_drift_rank0.pfprof");
  b = load_sample (dir, "h_drift_rank1.pfprof");
  g_ptr_array_add (run, a);
  g_ptr_array_add (run, b);
  ea = collective_ends (a);
  eb = collective_ends (b);
  n = ea->len;
  g_assert_cmpuint (n, ==, eb->len);
  g_assert_cmpuint (n, >=, 300);
  before_first = median_gap (ea, eb, 0, n / 4);
  before_last = median_gap (ea, eb, n - n / 4, n);
  /* Rank 1's clock gained over the run: the gap grew by milliseconds. */
  g_test_message ("before: first quarter %" G_GINT64_FORMAT " ns, last quarter %" G_GINT64_FORMAT " ns",
                  before_first, before_last);
  g_assert_cmpint (before_last - before_first, >=, 1 * MS);
  g_assert_cmpuint (pfprof_clock_align (run), ==, 0);
  g_assert_cmpint (b->clock_alignment, ==, PFPROF_CLOCK_COLLECTIVES);
  g_assert_cmpfloat (fabs (b->clock_drift - 500e-6), <=, 5e-6);
  g_assert_cmpint (b->clock_spread_ns, <=, 50 * US);
  g_assert_cmpuint (b->clock_collectives, >=, 300);
  g_array_unref (g_steal_pointer (&eb));
  eb = collective_ends (b);
  first = median_gap (ea, eb, 0, n / 4);
  last = median_gap (ea, eb, n - n / 4, n);
  g_test_message ("after: first quarter %" G_GINT64_FORMAT " ns, last quarter %" G_GINT64_FORMAT " ns, drift %.2f "
                  "ppm", first, last, b->clock_drift * 1e6);
  g_assert_cmpint (ABS (first), <=, 30 * US);
  g_assert_cmpint (ABS (last), <=, 30 * US);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/clock-collectives/names", test_names);
  g_test_add_func ("/clock-collectives/offset-and-drift", test_offset_and_drift);
  g_test_add_func ("/clock-collectives/late-start", test_late_start);
  g_test_add_func ("/clock-collectives/reference-is-rank-0", test_reference_is_rank0);
  g_test_add_func ("/clock-collectives/fallbacks", test_fallbacks);
  g_test_add_func ("/clock-collectives/h200-ddp", test_h200_ddp);
  g_test_add_func ("/clock-collectives/h200-two-hosts", test_h200_two_hosts);
  g_test_add_func ("/clock-collectives/h200-drift", test_h200_drift);
  return g_test_run ();
}
