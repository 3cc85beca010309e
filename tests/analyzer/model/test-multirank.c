/* SPDX-License-Identifier: MIT */
/* test-multirank.c: several ranks of one run, below the report (suite analyzer).
 *
 * - NCCL kernels are communication: which names count, and that they stay
 *   out of compute (kernel_ns, the compute stream) while a copy beside an
 *   all-reduce counts as hidden.
 * - Clock alignment: traces of one host keep their times; traces of
 *   several hosts are moved by their clock triples; a trace without a
 *   triple, or with a hostile one, is left alone and said to be.
 */
#include <math.h>
#include <string.h>

#include "analyzer-sim.h"
#include "pfprof-analysis.h"
#include "pfprof-clock-align.h"
#include "pfprof-trace-index.h"

#define MS ((gint64) 1000000)
#define T0 ((gint64) 1767225600 * 1000000000LL)

static void
test_comm_names (void)
{
  static const char *const comm[] = {
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "ncclDevKernel_SendRecv",
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)",
    "ncclAllReduceRingLLKernel_sum_f32(CollectiveArgs)",
    "void ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
    "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE",
    "ncclDevKernel_Generic",
  };
  static const char *const compute[] = {
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>",
    "sm90_xmma_gemm_f16f16_f16f32_f32_nt_n_tilesize128x128x64",
    "_Z14my_nccl_kernelPf", /* "nccl" inside a name is not NCCL's */
    "NCCLlike",
    "_Z", "void ", "", "_Z9", "nccL",
  };

  for (guint i = 0; i < G_N_ELEMENTS (comm); i++)
    g_assert_true (pfprof_kernel_name_is_comm (comm[i]));
  for (guint i = 0; i < G_N_ELEMENTS (compute); i++)
    g_assert_false (pfprof_kernel_name_is_comm (compute[i]));
  g_assert_false (pfprof_kernel_name_is_comm (NULL));
}

static void
add_htod (PfprofTrace *t, gint64 start, gint64 end)
{
  PfprofMemcpyRecord m = { 0 };

  m.start_ns = start;
  m.end_ns = end;
  m.bytes = 48 << 20;
  m.copy_kind = PFPROF_COPY_KIND_HTOD;
  m.src_kind = PFPROF_MEMORY_KIND_PINNED;
  m.dst_kind = PFPROF_MEMORY_KIND_DEVICE;
  m.stream_id = 14;
  m.context_id = 1;
  m.correlation_id = PFPROF_NONE;
  g_array_append_val (t->tables[PFPROF_TABLE_MEMCPYS], m);
}

/* Compute kernels [0, 10) and [14, 20) ms on stream 13, @middle on
 * stream 15 over [10, 14) ms (none when NULL), an HtoD copy over [11, 13)
 * ms that only the middle kernel can hide. The steady window starts after
 * the first tenth of the GPU work: [2, 20) ms. */
static PfprofAnalysis *
analyze_gap (const char *middle)
{
  PfprofTrace *t = pfprof_trace_new ();
  GPtrArray *traces = g_ptr_array_new ();
  PfprofAnalysis *a;

  sim_add_kernel (t, "void at::native::conv_fwd", 13, T0, T0 + 10 * MS);
  if (middle != NULL)
    sim_add_kernel (t, middle, 15, T0 + 10 * MS, T0 + 14 * MS);
  sim_add_kernel (t, "void at::native::conv_bwd", 13, T0 + 14 * MS, T0 + 20 * MS);
  add_htod (t, T0 + 11 * MS, T0 + 13 * MS);
  pfprof_trace_sort (t);
  g_ptr_array_add (traces, t);
  a = sim_analyze (traces, NULL);
  g_assert_cmpuint (a->devices->len, ==, 1);
  return a;
}

static void
test_comm_not_compute (void)
{
  g_autoptr (PfprofAnalysis) nccl = analyze_gap ("ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  g_autoptr (PfprofAnalysis) comp = analyze_gap ("void at::native::reduce_kernel");
  g_autoptr (PfprofAnalysis) none = analyze_gap (NULL);
  const PfprofDeviceSummary *d = &g_array_index (nccl->devices, PfprofDeviceSummary, 0);
  const PfprofDeviceSummary *c = &g_array_index (comp->devices, PfprofDeviceSummary, 0);
  const PfprofDeviceSummary *n = &g_array_index (none->devices, PfprofDeviceSummary, 0);

  g_assert_cmpint (d->steady_start_ns, ==, T0 + 2 * MS);
  /* The all-reduce is communication: out of kernel_ns, in comm_ns, and
   * the GPU is not idle during it. */
  g_assert_cmpint (d->kernel_ns, ==, 14 * MS);
  g_assert_cmpint (d->comm_ns, ==, 4 * MS);
  g_assert_cmpint (d->idle_ns, ==, 0);
  g_assert_cmpuint (d->compute_stream, ==, 13);
  /* The same kernel under a compute name is compute. */
  g_assert_cmpint (c->kernel_ns, ==, 18 * MS);
  g_assert_cmpint (c->comm_ns, ==, 0);
  /* The copy beside the all-reduce is hidden, as beside compute: the step
   * waits for the all-reduce anyway. Without it the copy is exposed. */
  g_assert_cmpfloat (d->overlap_fraction, ==, 1.0);
  g_assert_cmpint (d->exposed_copy_ns, ==, 0);
  g_assert_cmpfloat (c->overlap_fraction, ==, 1.0);
  g_assert_cmpfloat (n->overlap_fraction, ==, 0.0);
  g_assert_cmpint (n->exposed_copy_ns, ==, 2 * MS);
  g_assert_cmpint (n->idle_ns, ==, 2 * MS);
}

/* One kernel of 1 ms at @at (CUPTI clock), a host and a start triple
 * whose CUPTI reading is @cupti_minus_real ahead of REALTIME. */
static PfprofTrace *
clock_trace (const char *host, gint64 at, gint64 cupti_minus_real, gboolean triple)
{
  PfprofTrace *t = pfprof_trace_new ();
  PfprofCudaEventRecord e = { 0 };

  sim_add_kernel (t, "void k", 13, at, at + MS);
  e.device_ts_ns = 0; /* unknown: must stay 0 */
  g_array_append_val (t->tables[PFPROF_TABLE_CUDA_EVENTS], e);
  e.device_ts_ns = at + MS;
  g_array_append_val (t->tables[PFPROF_TABLE_CUDA_EVENTS], e);
  if (host != NULL)
    g_hash_table_insert (t->meta, g_strdup ("host"), g_strdup (host));
  if (triple)
    {
      g_hash_table_insert (t->meta, g_strdup ("clock_start_cupti_ns"),
                           g_strdup_printf ("%" G_GINT64_FORMAT, at - 50 * MS));
      g_hash_table_insert (t->meta, g_strdup ("clock_start_realtime_ns"),
                           g_strdup_printf ("%" G_GINT64_FORMAT, at - 50 * MS - cupti_minus_real));
    }
  pfprof_trace_sort (t);
  return t;
}

static gint64
kernel_start (GPtrArray *traces, guint i)
{
  return pfprof_trace_kernels ((PfprofTrace *) g_ptr_array_index (traces, i))[0].start_ns;
}

static void
test_clock_align (void)
{
  g_autoptr (GPtrArray) same = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_trace_free);
  g_autoptr (GPtrArray) hosts = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_trace_free);
  g_autoptr (GPtrArray) odd = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_trace_free);
  PfprofTrace *t;
  gint64 off;

  /* One host: the triples disagree (as reads a few µs apart do), but the
   * processes share the clock: nothing moves. */
  g_ptr_array_add (same, clock_trace ("node-a", T0, 0, TRUE));
  g_ptr_array_add (same, clock_trace ("node-a", T0, 7000, TRUE));
  g_assert_cmpuint (pfprof_clock_align (same), ==, 0);
  g_assert_cmpint (kernel_start (same, 1), ==, T0);
  g_assert_cmpint (((PfprofTrace *) same->pdata[1])->clock_alignment, ==, PFPROF_CLOCK_SHARED);

  /* Three hosts: the same moment, each host's CUPTI clock off by its
   * offset (+5 s, -3 ms). Node-b's second trace takes node-b's first
   * triple, not its own slightly different one. */
  g_ptr_array_add (hosts, clock_trace ("node-a", T0, 0, TRUE));
  g_ptr_array_add (hosts, clock_trace ("node-b", T0 + 5000 * MS, 5000 * MS, TRUE));
  g_ptr_array_add (hosts, clock_trace ("node-c", T0 - 3 * MS, -3 * MS, TRUE));
  g_ptr_array_add (hosts, clock_trace ("node-b", T0 + 5000 * MS + 20, 5000 * MS + 20, TRUE));
  g_assert_cmpuint (pfprof_clock_align (hosts), ==, 0);
  g_assert_cmpint (kernel_start (hosts, 0), ==, T0);
  g_assert_cmpint (kernel_start (hosts, 1), ==, T0);
  g_assert_cmpint (kernel_start (hosts, 2), ==, T0);
  g_assert_cmpint (kernel_start (hosts, 3), ==, T0 + 20);
  t = g_ptr_array_index (hosts, 1);
  g_assert_cmpint (t->clock_offset_ns, ==, -5000 * MS);
  g_assert_cmpint (t->clock_alignment, ==, PFPROF_CLOCK_ALIGNED);
  g_assert_cmpint (t->start_ns, ==, T0);
  g_assert_cmpint (t->end_ns, ==, T0 + MS);
  g_assert_cmpint (pfprof_trace_kernels (t)[0].end_ns, ==, T0 + MS);
  g_assert_cmpint (pfprof_trace_cuda_events (t)[0].device_ts_ns, ==, 0);
  g_assert_cmpint (pfprof_trace_cuda_events (t)[1].device_ts_ns, ==, T0 + MS);
  g_assert_cmpint (((PfprofTrace *) hosts->pdata[2])->clock_offset_ns, ==, 3 * MS);

  /* No triple, a hostile one (beyond 2^52 ns), no host: left alone. */
  g_ptr_array_add (odd, clock_trace ("node-a", T0, 0, TRUE));
  g_ptr_array_add (odd, clock_trace ("node-b", T0 + 5000 * MS, 5000 * MS, FALSE));
  g_ptr_array_add (odd, clock_trace ("node-c", T0, (gint64) 1 << 60, TRUE));
  g_ptr_array_add (odd, clock_trace (NULL, T0 + 7, 7, TRUE));
  t = g_ptr_array_index (odd, 2);
  g_assert_false (pfprof_clock_wall_offset (t, &off));
  g_hash_table_insert (t->meta, g_strdup ("clock_start_cupti_ns"), g_strdup ("12abc"));
  g_assert_false (pfprof_clock_wall_offset (t, &off));
  g_assert_cmpuint (pfprof_clock_align (odd), ==, 3);
  g_assert_cmpint (kernel_start (odd, 1), ==, T0 + 5000 * MS);
  g_assert_cmpint (kernel_start (odd, 2), ==, T0);
  g_assert_cmpint (kernel_start (odd, 3), ==, T0 + 7);
  g_assert_cmpint (((PfprofTrace *) odd->pdata[1])->clock_alignment, ==, PFPROF_CLOCK_UNALIGNED);
  g_assert_cmpstr (pfprof_clock_alignment_to_string (PFPROF_CLOCK_UNALIGNED), ==, "unaligned");
}

/* A run is aligned and trimmed once, when it is made; analysing it (twice,
 * as the GUI's timeline and analysis share one run) leaves every time
 * where the run put it, and the analysis keeps the run alive. */
static void
test_run (void)
{
  GPtrArray *traces = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_trace_free);
  g_autoptr (PfprofRun) run = NULL;
  PfprofAnalysis *kept;
  PfprofTrace *t = clock_trace ("node-a", T0, 0, TRUE);
  const PfprofTrace *b;

  /* Two more kernels, and one ~13 days away: set aside, and counted. */
  sim_add_kernel (t, "void k", 13, T0 + 2 * MS, T0 + 3 * MS);
  sim_add_kernel (t, "void k", 13, T0 + 4 * MS, T0 + 5 * MS);
  sim_add_kernel (t, "void k", 13, T0 + ((gint64) 1 << 50), T0 + ((gint64) 1 << 50) + MS);
  pfprof_trace_sort (t);
  g_ptr_array_add (traces, t);
  g_ptr_array_add (traces, clock_trace ("node-b", T0 + 5000 * MS, 5000 * MS, TRUE));
  run = pfprof_run_new (traces);
  g_assert_cmpuint (pfprof_run_n_traces (run), ==, 2);
  g_assert_cmpuint (pfprof_run_n_unaligned (run), ==, 0);
  g_assert_cmpint (pfprof_run_clock_offset (run, 0), ==, 0);
  g_assert_cmpint (pfprof_run_clock_offset (run, 1), ==, -5000 * MS);
  g_assert_cmpint (pfprof_run_clock_alignment (run, 1), ==, PFPROF_CLOCK_ALIGNED);
  g_assert_cmpuint (pfprof_run_n_out_of_range (run, 0), ==, 1);
  g_assert_cmpuint (pfprof_run_n_out_of_range (run, 1), ==, 0);
  g_assert_cmpuint (pfprof_trace_n (pfprof_run_get_trace (run, 0), PFPROF_TABLE_KERNELS), ==, 3);
  b = pfprof_run_get_trace (run, 1);
  g_assert_cmpint (pfprof_trace_kernels (b)[0].start_ns, ==, T0);
  for (int k = 0; k < 2; k++)
    {
      g_autoptr (PfprofAnalysis) a = pfprof_analysis_run (run, NULL);

      g_assert_true (a->run == run);
      g_assert_true (a->traces == pfprof_run_get_traces (run));
      g_assert_cmpuint (g_array_index (a->trace_summaries, PfprofTraceSummary, 0).n_out_of_range, ==, 1);
      g_assert_cmpuint (g_array_index (a->trace_summaries, PfprofTraceSummary, 1).n_out_of_range, ==, 0);
      g_assert_cmpint (pfprof_trace_kernels (b)[0].start_ns, ==, T0);
      g_assert_cmpint (b->clock_offset_ns, ==, -5000 * MS);
      g_assert_cmpuint (pfprof_trace_n (pfprof_run_get_trace (run, 0), PFPROF_TABLE_KERNELS), ==, 3);
    }
  kept = pfprof_analysis_run (run, NULL);
  g_clear_pointer (&run, pfprof_run_unref);
  g_assert_cmpint (pfprof_trace_kernels ((PfprofTrace *) g_ptr_array_index (kept->traces, 1))[0].start_ns, ==, T0);
  pfprof_analysis_free (kept);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/multirank/comm/names", test_comm_names);
  g_test_add_func ("/multirank/comm/not-compute", test_comm_not_compute);
  g_test_add_func ("/multirank/clock/align", test_clock_align);
  g_test_add_func ("/multirank/run", test_run);
  return g_test_run ();
}
