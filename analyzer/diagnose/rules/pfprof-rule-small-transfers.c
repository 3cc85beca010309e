/* SPDX-License-Identifier: MIT */
/* pfprof-rule-small-transfers.c: many tiny host-to-device copies a step.
 *
 * Each copy costs a launch on the host (a few microseconds, more with the
 * Python that dispatches each .to()) and a fixed setup on the copy engine,
 * whatever its size; per-sample copies or a dict of small tensors multiply
 * that by the batch. One collated, pinned batch costs it once. Only the
 * part of those costs on the step's critical path (the GPU idle, or
 * copying with no kernel beside) is saved.
 */
#include "pfprof-rules.h"

#include "pfprof-format.h"

static const PfprofRuleParam params[] = {
  { "max-bytes", 65536, "copies below this many bytes count as small" },
  { "min-per-step", 16, "small HtoD copies per steady step needed to fire" },
  { "min-step-fraction", 0.5, "fire only when this fraction of steady steps has small copies" },
  { "pinned-gbps", 50, "pinned HtoD bandwidth (GB/s) of the one batched copy that replaces them" },
  { "max-gap-us", 50, "a small copy call this soon (µs) after the previous one's end, with nothing launched between, follows it back to back: the time between is the host dispatching the next copy" },
};

static const char fix[] =
  "Copy one collated batch instead of many small tensors. Let the DataLoader stack\n"
  "samples into one pinned tensor per field, then move it once:\n"
  "\n"
  "    # default_collate stacks the samples:\n"
  "    loader = DataLoader(dataset, batch_size=B, pin_memory=True)\n"
  "    x = x.to(device, non_blocking=True)\n"
  "\n"
  "For a dict of small tensors, pack them into one buffer and split on the GPU:\n"
  "\n"
  "    flat = torch.cat([t.reshape(-1) for t in parts]).pin_memory()\n"
  "    gpu = flat.to(device, non_blocking=True)\n"
  "    sizes = [t.numel() for t in parts]\n"
  "    parts = [g.view(t.shape) for g, t in zip(gpu.split(sizes), parts)]\n"
  "\n"
  "(parts of different dtypes: one buffer per dtype.)\n";

static int
compare_index (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;

  return (x > y) - (x < y);
}

static void
run (PfprofRuleContext *ctx)
{
  const PfprofDeviceTimeline *dev = ctx->device;
  const PfprofTraceIndex *ix = ctx->ix;
  const PfprofLoop *loop = ctx->loop;
  const PfprofMemcpyRecord *m = pfprof_trace_memcpys (ix->trace);
  guint nm;
  const guint *mi = pfprof_device_timeline_records (ctx->device, PFPROF_TABLE_MEMCPYS, &nm);
  guint64 max_bytes = (guint64) pfprof_rule_param (ctx, "max-bytes");
  g_autoptr (GArray) hits = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) times = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 copy_ns = 0, host_ns = 0, exposed = 0, min_dur = G_MAXINT64, host_idle, host_save, gpu_save, gpu_one;
  g_autoptr (GArray) calls = g_array_new (FALSE, FALSE, sizeof (guint));
  guint n_chained = 0;
  guint64 bytes = 0;
  double per_step, divisor = pfprof_loop_per_step_divisor (loop);
  PfprofFinding *f;

  for (guint j = 0; j < nm; j++)
    {
      guint i = mi[j];
      const PfprofApiRecord *api;
      gint64 dur = m[i].end_ns - m[i].start_ns;

      if (m[i].device_id != dev->device_id || m[i].copy_kind != PFPROF_COPY_KIND_HTOD
          || m[i].bytes >= max_bytes || !pfprof_loop_in_steady (loop, m[i].start_ns))
        continue;
      g_array_append_val (hits, i);
      g_array_append_val (times, m[i].start_ns);
      copy_ns += dur;
      min_dur = MIN (min_dur, dur);
      bytes += m[i].bytes;
      exposed += dur - pfprof_interval_set_length_in (dev->kernels_comm, m[i].start_ns, m[i].end_ns);
      api = pfprof_trace_index_api (ix, m[i].correlation_id);
      if (api != NULL)
        {
          guint k = (guint) (api - pfprof_trace_api_calls (ix->trace));

          host_ns += api->end_ns - api->start_ns;
          if (api->tid == ix->main_tid)
            g_array_append_val (calls, k);
        }
    }
  per_step = (double) hits->len / divisor;
  if (hits->len == 0 || per_step < pfprof_rule_param (ctx, "min-per-step")
      || pfprof_rule_step_coverage (ctx, (gint64 *) (void *) times->data, times->len)
           < pfprof_rule_param (ctx, "min-step-fraction"))
    return;

  /* Batching saves each copy's fixed cost but one, where it held the step
   * up. On the host: the GPU's host-bound idle (nothing queued) while the
   * launching thread was in a copy call, and, for copies issued back to
   * back, up to the next one (Python dispatching each .to()); not what the
   * host did between copies that are not back to back, which batching
   * leaves. On the GPU: the copy time no kernel hid, less what the one
   * batched copy (the step's bytes at pinned bandwidth, plus one copy's
   * latency) would leave exposed in the same proportion. */
  {
    g_autofree gint64 *bounds = pfprof_rule_step_starts (ctx);

    g_array_sort (calls, compare_index);
    host_idle = pfprof_step_ledger_call_run_idle (loop->ledger, calls,
                                                  (gint64) (pfprof_rule_param (ctx, "max-gap-us") * 1000.0),
                                                  bounds, pfprof_loop_n_steady_steps (loop), &n_chained);
  }
  host_save = (gint64) ((double) pfprof_rule_per_step (ctx, host_idle) * (1.0 - 1.0 / MAX (per_step, 1.0)));
  gpu_one = (gint64) (((double) bytes / divisor / pfprof_rule_param (ctx, "pinned-gbps") + (double) min_dur)
                      * (copy_ns > 0 ? (double) exposed / (double) copy_ns : 0.0));
  gpu_save = MAX (0, pfprof_rule_per_step (ctx, exposed) - gpu_one);
  f = pfprof_rule_finding_new (ctx);
  f->device_id = dev->device_id;
  f->stream_id = m[g_array_index (hits, guint, 0)].stream_id;
  f->count = hits->len;
  f->time_ns = copy_ns;
  f->est_savings_ns = host_save + gpu_save;
  f->host_bound_ns = host_save;
  pfprof_rule_add_memcpy_evidence (ctx, f, hits);
  {
    g_autofree char *s_per = pfprof_format_double (per_step, 1);
    g_autofree char *s_avg = pfprof_format_bytes (bytes / hits->len);
    g_autofree char *s_copy = pfprof_format_ns (pfprof_rule_per_step (ctx, copy_ns));
    g_autofree char *s_host = pfprof_format_ns (pfprof_rule_per_step (ctx, host_ns));
    g_autofree char *s_exp = pfprof_format_ns (pfprof_rule_per_step (ctx, exposed));
    g_autofree char *s_idle = pfprof_format_ns (pfprof_rule_per_step (ctx, host_idle));
    g_autofree char *s_chained = pfprof_format_double (100.0 * (double) n_chained / (double) hits->len, 0);

    f->title = g_strdup_printf ("%s small host-to-device copies per mean step", s_per);
    f->message = g_strdup_printf (
      "Device %u received %u host-to-device copies smaller than %" G_GUINT64_FORMAT " bytes after "
      "warm-up, %s per mean step, %s on average. Per mean step they took %s of copy-engine time (%s of it "
      "with no kernel beside) and %s of host time in the copy calls; %s%% of the calls came back "
      "to back, and the GPU sat idle with nothing queued for %s per mean step while the host issued "
      "them, which is what batching them into one copy saves besides the exposed copy time.",
      dev->device_id, hits->len, max_bytes, s_per, s_avg, s_copy, s_exp, s_host, s_chained, s_idle);
  }
  f->fix = g_strdup (fix);
  f->buckets = PFPROF_LEDGER_BIT (PFPROF_LEDGER_COPY_PINNED_COMPUTE)
               | PFPROF_LEDGER_BIT (PFPROF_LEDGER_COPY_PINNED_SIDE)
               | PFPROF_LEDGER_BIT (PFPROF_LEDGER_COPY_PAGEABLE_COMPUTE)
               | PFPROF_LEDGER_BIT (PFPROF_LEDGER_COPY_PAGEABLE_SIDE) | PFPROF_LEDGER_BIT (PFPROF_LEDGER_HOST_BOUND);
  pfprof_rule_emit (ctx, f);
}

const PfprofRule pfprof_rule_small_transfers = {
  "small-transfers",
  PFPROF_SEVERITY_INFO,
  "Many tiny host-to-device copies per step instead of one collated batch",
  params,
  G_N_ELEMENTS (params),
  run,
  PFPROF_RULE_SCOPE_DEVICE,
};
