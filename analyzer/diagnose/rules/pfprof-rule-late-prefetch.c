/* SPDX-License-Identifier: MIT */
/* pfprof-rule-late-prefetch.c: a side-stream copy the compute stream
 * waits for every step (zero prefetch depth).
 *
 * The copy runs on its own stream, yet the batch is copied only when the
 * step that needs it starts: the compute stream sits idle (it waits on
 * the copy's event, cudaStreamWaitEvent) and its next kernel starts right
 * after the copy ends. Prefetching one batch ahead hides the copy behind
 * the previous step's kernels.
 */
#include "pfprof-rules.h"

#include "pfprof-format.h"
#include "pfprof-lower-bound.h"

static const PfprofRuleParam params[] = {
  { "min-bytes", 65536, "copies smaller than this many bytes are ignored" },
  { "slack-us", 100, "the compute stream's next kernel must start within this long after the copy ends (µs)" },
  { "min-step-fraction", 0.5, "fire only when this fraction of steady steps has such a wait" },
  { "min-wait-share", 0.02, "fire only when the waits add up to this share of the steady state" },
};

static const char fix[] =
  "Start the copy of batch i+1 before running step i, so it overlaps that step's\n"
  "kernels; wait for it only when step i+1 begins:\n"
  "\n"
  "    copy_stream = torch.cuda.Stream()\n"
  "\n"
  "    def to_gpu(cpu):                                  # cpu: pinned\n"
  "        gpu = torch.empty_like(cpu, device=\"cuda\")\n"
  "        copy_stream.wait_stream(torch.cuda.current_stream())\n"
  "        with torch.cuda.stream(copy_stream):\n"
  "            gpu.copy_(cpu, non_blocking=True)\n"
  "        return gpu\n"
  "\n"
  "    it = iter(loader)\n"
  "    nxt = to_gpu(next(it))\n"
  "    for cpu in it:\n"
  "        torch.cuda.current_stream().wait_stream(copy_stream)\n"
  "        x, nxt = nxt, to_gpu(cpu)    # issue the next copy first ...\n"
  "        loss = model(x) ...          # ... then this step's kernels\n";

static void
run (PfprofRuleContext *ctx)
{
  const PfprofDeviceTimeline *dev = ctx->device;
  const PfprofTraceIndex *ix = ctx->ix;
  const PfprofLoop *loop = ctx->loop;
  const PfprofKernelRecord *k = pfprof_trace_kernels (ix->trace);
  const PfprofMemcpyRecord *m = pfprof_trace_memcpys (ix->trace);
  const PfprofSyncRecord *sy = pfprof_trace_syncs (ix->trace);
  const guint *ki, *mi; /* the device's kernels and copies */
  guint nk, nm;
  guint ns = pfprof_trace_n (ix->trace, PFPROF_TABLE_SYNCS);
  guint64 min_bytes = (guint64) pfprof_rule_param (ctx, "min-bytes");
  gint64 slack = (gint64) (pfprof_rule_param (ctx, "slack-us") * 1e3);
  g_autoptr (GArray) hits = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) times = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 waited = 0, run_max = G_MININT64, compute, last_start = G_MININT64;
  guint kj = 0; /* the first compute kernel not before the copy: kernels and
                 * copies are in start order, so one cursor walks both */
  guint n_side = 0, n_stream_waits = 0;
  guint32 copy_stream = PFPROF_NONE;
  PfprofFinding *f;

  if (dev->compute_stream == PFPROF_NONE)
    return;
  ki = pfprof_device_timeline_records (dev, PFPROF_TABLE_KERNELS, &nk);
  mi = pfprof_device_timeline_records (dev, PFPROF_TABLE_MEMCPYS, &nm);
  for (guint j = 0; j < nm; j++)
    {
      guint i = mi[j];
      gint64 prev_end, wait, next;

      if (m[i].device_id != dev->device_id || m[i].copy_kind != PFPROF_COPY_KIND_HTOD
          || m[i].stream_id == dev->compute_stream || m[i].bytes < min_bytes
          || !pfprof_loop_in_steady (loop, m[i].start_ns))
        continue;
      n_side++;
      /* first compute kernel starting at or after the copy; prev_end: the
       * latest end of the compute kernels before it */
      if (m[i].start_ns < last_start)
        {
          kj = 0;
          run_max = G_MININT64;
        }
      last_start = m[i].start_ns;
      while (kj < nk && (k[pfprof_device_record_at (ki, kj)].stream_id != dev->compute_stream || k[pfprof_device_record_at (ki, kj)].start_ns < m[i].start_ns))
        {
          if (k[pfprof_device_record_at (ki, kj)].stream_id == dev->compute_stream)
            run_max = MAX (run_max, k[pfprof_device_record_at (ki, kj)].end_ns);
          kj++;
        }
      if (kj >= nk)
        continue;
      next = k[pfprof_device_record_at (ki, kj)].start_ns;
      if (next < m[i].end_ns || next - m[i].end_ns > slack)
        continue;
      prev_end = run_max;
      if (prev_end >= m[i].end_ns)
        continue; /* the compute stream was still busy: nothing waited */
      wait = next - MAX (prev_end, m[i].start_ns);
      if (wait <= 0)
        continue;
      waited += wait;
      copy_stream = m[i].stream_id;
      g_array_append_val (hits, i);
      g_array_append_val (times, m[i].start_ns);
    }
  if (hits->len == 0
      || pfprof_rule_step_coverage (ctx, (gint64 *) (void *) times->data, times->len)
           < pfprof_rule_param (ctx, "min-step-fraction")
      || pfprof_rule_share (ctx, waited) / 100.0 < pfprof_rule_param (ctx, "min-wait-share"))
    return;
  for (guint i = 0; i < ns; i++)
    if (sy[i].type == PFPROF_SYNC_STREAM_WAIT_EVENT && sy[i].stream_id == dev->compute_stream
        && pfprof_loop_in_steady (loop, sy[i].start_ns))
      n_stream_waits++;

  compute = pfprof_loop_steady_length_of (loop, dev->kernels);
  f = pfprof_rule_finding_new (ctx);
  f->device_id = dev->device_id;
  f->stream_id = copy_stream;
  f->count = hits->len;
  f->time_ns = waited;
  f->est_savings_ns = MIN (pfprof_rule_per_step (ctx, waited), pfprof_rule_per_step (ctx, compute));
  pfprof_rule_add_memcpy_evidence (ctx, f, hits);
  {
    g_autofree char *s_wait = pfprof_format_ns (waited);
    g_autofree char *s_step = pfprof_format_ns (pfprof_rule_per_step (ctx, waited));
    g_autofree char *s_share = pfprof_format_double (pfprof_rule_share (ctx, waited), 1);
    g_autofree char *s_min = pfprof_rule_min_bytes_phrase (min_bytes);

    f->title = g_strdup_printf ("Prefetch too late: compute waits for the side-stream copy (%s per mean step)",
                                s_step);
    f->message = g_strdup_printf (
      "%u of %u host-to-device copies%s on side stream %u were waited for by compute stream %u: "
      "it had nothing to run while the copy was in flight and its next kernel started right "
      "after the copy ended. The compute stream waited %s in all (%s per mean step, %s%% of the "
      "steady state); %u cudaStreamWaitEvent waits on the compute stream were recorded.",
      hits->len, n_side, s_min, copy_stream, dev->compute_stream, s_wait, s_step, s_share, n_stream_waits);
  }
  f->fix = g_strdup (fix);
  f->buckets = PFPROF_LEDGER_BIT (PFPROF_LEDGER_COPY_PINNED_SIDE)
               | PFPROF_LEDGER_BIT (PFPROF_LEDGER_COPY_PAGEABLE_SIDE) | PFPROF_LEDGER_BIT (PFPROF_LEDGER_OTHER_IDLE);
  pfprof_rule_emit (ctx, f);
}

const PfprofRule pfprof_rule_late_prefetch = {
  "late-prefetch",
  PFPROF_SEVERITY_WARNING,
  "Side-stream copy that the compute stream waits for every step (zero prefetch depth)",
  params,
  G_N_ELEMENTS (params),
  run,
  PFPROF_RULE_SCOPE_DEVICE,
};
