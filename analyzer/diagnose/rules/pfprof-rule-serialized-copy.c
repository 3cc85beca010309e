/* SPDX-License-Identifier: MIT */
/* pfprof-rule-serialized-copy.c: input copies that no kernel ran beside.
 *
 * A host-to-device copy issued on the stream that runs the compute
 * kernels, or a blocking (non-async) copy, is ordered with the kernels:
 * the GPU computes, then copies, then computes again. The copy time is
 * exposed in every step even though the copy engine could have run it
 * during the previous step's kernels. Copies from pageable memory are left
 * to pageable-transfer: they cannot overlap until they are pinned.
 */
#include "pfprof-rules.h"

#include "pfprof-format.h"

static const PfprofRuleParam params[] = {
  { "min-bytes", 65536, "copies smaller than this many bytes are ignored (see small-transfers)" },
  { "max-overlap", 0.1, "a copy counts as serialized when kernels overlapped less than this fraction of it" },
  { "min-step-fraction", 0.5, "fire only when this fraction of steady steps has such a copy" },
  { "min-exposed-share", 0.01, "fire only when the exposed copy time is at least this share of the steady state" },
};

static const char fix[] =
  "Copy the next batch on a side stream from pinned memory while the current step\n"
  "computes, and make the compute stream wait just before it uses the batch:\n"
  "\n"
  "    copy_stream = torch.cuda.Stream()           # create once\n"
  "\n"
  "    def to_gpu(cpu):                     # cpu: pinned (pin_memory=True)\n"
  "        # allocated on the compute stream:\n"
  "        gpu = torch.empty_like(cpu, device=\"cuda\")\n"
  "        copy_stream.wait_stream(torch.cuda.current_stream())\n"
  "        with torch.cuda.stream(copy_stream):\n"
  "            gpu.copy_(cpu, non_blocking=True)\n"
  "        return gpu\n"
  "\n"
  "    def prefetched(loader):\n"
  "        it = iter(loader)\n"
  "        nxt = to_gpu(next(it))\n"
  "        for cpu in it:\n"
  "            # just before use:\n"
  "            torch.cuda.current_stream().wait_stream(copy_stream)\n"
  "            cur, nxt = nxt, to_gpu(cpu)  # next copy overlaps this step\n"
  "            yield cur\n"
  "        torch.cuda.current_stream().wait_stream(copy_stream)\n"
  "        yield nxt\n"
  "\n"
  "    for x in prefetched(loader):\n"
  "        loss = model(x) ...\n";

static const char fix_blocking[] =
  "\n"
  "Pass non_blocking=True to every .to(device) of a pinned batch: without it each copy\n"
  "ends in a cudaStreamSynchronize.\n";

static const char fix_blocking_only[] =
  "The copies already run on a side stream but are blocking. Copy pinned batches with\n"
  "non_blocking=True, so the host does not wait for each copy and the copy overlaps the\n"
  "kernels already queued:\n"
  "\n"
  "    x = x.to(device, non_blocking=True)   # x from DataLoader(pin_memory=True)\n";

/* Host-bound idle after the syncs of blocking copies in the steady window. */
static gint64
copy_sync_refill (PfprofRuleContext *ctx)
{
  const PfprofTraceIndex *ix = ctx->ix;
  const PfprofLoop *loop = ctx->loop;
  const PfprofApiRecord *api = pfprof_trace_api_calls (ix->trace);
  static const PfprofApiClass classes[] = { PFPROF_API_CLASS_STREAM_SYNC };
  g_autoptr (GArray) calls = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) waits = g_array_new (FALSE, FALSE, sizeof (PfprofInterval));

  pfprof_rule_collect_calls (ctx, classes, 1, ix->main_tid, calls);
  for (guint i = 0; i < calls->len; i++)
    {
      guint k = g_array_index (calls, guint, i);
      PfprofInterval iv = { api[k].start_ns, api[k].end_ns };

      if (pfprof_step_ledger_is_copy_sync (loop->ledger, k))
        g_array_append_val (waits, iv);
    }
  return pfprof_step_ledger_refill_after (loop->ledger, waits);
}

static void
run (PfprofRuleContext *ctx)
{
  const PfprofDeviceTimeline *dev = ctx->device;
  const PfprofTraceIndex *ix = ctx->ix;
  const PfprofLoop *loop = ctx->loop;
  const PfprofMemcpyRecord *m = pfprof_trace_memcpys (ix->trace);
  guint n;
  const guint *mi = pfprof_device_timeline_records (ctx->device, PFPROF_TABLE_MEMCPYS, &n);
  guint64 min_bytes = (guint64) pfprof_rule_param (ctx, "min-bytes");
  double max_overlap = pfprof_rule_param (ctx, "max-overlap");
  g_autoptr (GArray) hits = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) times = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 exposed = 0, time = 0, compute, saving, refill;
  guint n_copy_syncs;
  guint64 bytes = 0, n_same_stream = 0, n_blocking = 0;
  PfprofFinding *f;

  for (guint j = 0; j < n; j++)
    {
      guint i = mi[j];
      gint64 dur = m[i].end_ns - m[i].start_ns;
      gint64 ov;
      gboolean same = m[i].stream_id == dev->compute_stream;
      gboolean blocking = !(m[i].flags & PFPROF_MEMCPY_FLAG_ASYNC);

      /* A copy from pageable memory cannot overlap anything wherever it
       * is issued (the driver stages it and the host waits): that is
       * pageable-transfer's finding and fix, which comes first. */
      if (m[i].device_id != dev->device_id || m[i].copy_kind != PFPROF_COPY_KIND_HTOD
          || m[i].src_kind == PFPROF_MEMORY_KIND_PAGEABLE || m[i].bytes < min_bytes || dur <= 0
          || !pfprof_loop_in_steady (loop, m[i].start_ns) || !(same || blocking))
        continue;
      /* An all-reduce beside the copy hides it as well as compute does. */
      ov = pfprof_interval_set_length_in (dev->kernels_comm, m[i].start_ns, m[i].end_ns);
      if ((double) ov > max_overlap * (double) dur)
        continue;
      g_array_append_val (hits, i);
      g_array_append_val (times, m[i].start_ns);
      exposed += dur - ov;
      time += dur;
      bytes += m[i].bytes;
      n_same_stream += same;
      n_blocking += blocking;
    }
  if (hits->len == 0
      || pfprof_rule_step_coverage (ctx, (gint64 *) (void *) times->data, times->len)
           < pfprof_rule_param (ctx, "min-step-fraction")
      || pfprof_rule_share (ctx, exposed) / 100.0 < pfprof_rule_param (ctx, "min-exposed-share"))
    return;

  /* A prefetched copy can hide behind at most one step of compute. A
   * blocking copy's own cudaStreamSynchronize empties the GPU's queue: the
   * idle while the host refills it goes with non_blocking=True. */
  compute = pfprof_loop_steady_length_of (loop, dev->kernels);
  n_copy_syncs = pfprof_step_ledger_n_copy_syncs (loop->ledger);
  refill = n_blocking > 0 || n_copy_syncs > 0 ? copy_sync_refill (ctx) : 0;
  saving = MIN (pfprof_rule_per_step (ctx, exposed), pfprof_rule_per_step (ctx, compute))
           + pfprof_rule_per_step (ctx, refill);

  f = pfprof_rule_finding_new (ctx);
  f->device_id = dev->device_id;
  f->stream_id = n_same_stream ? dev->compute_stream : m[g_array_index (hits, guint, 0)].stream_id;
  f->count = hits->len;
  f->time_ns = exposed;
  f->est_savings_ns = saving;
  f->host_bound_ns = MIN (saving, pfprof_rule_per_step (ctx, refill));
  f->buckets = PFPROF_LEDGER_BIT (PFPROF_LEDGER_COPY_PINNED_COMPUTE)
               | PFPROF_LEDGER_BIT (PFPROF_LEDGER_COPY_PINNED_SIDE)
               | PFPROF_LEDGER_BIT (PFPROF_LEDGER_SYNC_COPY) | PFPROF_LEDGER_BIT (PFPROF_LEDGER_HOST_BOUND);
  pfprof_rule_add_memcpy_evidence (ctx, f, hits);
  {
    g_autofree char *s_exp = pfprof_format_ns (exposed);
    g_autofree char *s_step = pfprof_format_ns (pfprof_rule_per_step (ctx, exposed));
    g_autofree char *s_share = pfprof_format_double (pfprof_rule_share (ctx, exposed), 1);
    g_autofree char *s_bytes = pfprof_format_bytes (bytes);
    gint64 c = pfprof_loop_steady_length_of (loop, dev->htod);
    gint64 ck = pfprof_loop_steady_length_of (loop, dev->htod_kernels);
    g_autofree char *s_max = pfprof_format_double (max_overlap * 100, 0);
    g_autofree char *s_ov = pfprof_format_double (c > 0 ? 100.0 * (double) ck / (double) c : 0.0, 1);
    g_autofree char *s_min = pfprof_rule_min_bytes_phrase (min_bytes);

    f->title = g_strdup_printf ("Input copies ran with no kernel beside them (%s exposed per mean step)",
                                s_step);
    f->message = g_strdup_printf (
      "%u host-to-device copies%s (%s) on device %u ran with kernels beside them for less than "
      "%s%% of their time: %" G_GUINT64_FORMAT " were on the compute stream %u and %" G_GUINT64_FORMAT
      " were blocking copies. That left %s of copy time exposed (%s per mean step, %s%% of the steady "
      "state); overall only %s%% of the device's HtoD copy time overlapped kernels.",
      hits->len, s_min, s_bytes, dev->device_id, s_max, n_same_stream,
      dev->compute_stream, n_blocking, s_exp, s_step, s_share, s_ov);
    if (n_copy_syncs > 0)
      {
        g_autofree char *msg = f->message;
        g_autofree char *s_refill = pfprof_format_ns (pfprof_rule_per_step (ctx, refill));

        f->message = g_strdup_printf ("%s %u of the copies were followed by their own "
                                      "cudaStreamSynchronize (a .to(device) without "
                                      "non_blocking=True), after which the GPU idled %s per mean step "
                                      "while the host refilled its queue.",
                                      msg, n_copy_syncs, s_refill);
      }
  }
  f->fix = g_strconcat (n_same_stream == 0 && n_blocking > 0 ? fix_blocking_only : fix,
                        n_copy_syncs > 0 && n_same_stream > 0 ? fix_blocking : "", NULL);
  pfprof_rule_emit (ctx, f);
}

const PfprofRule pfprof_rule_serialized_copy = {
  "serialized-copy",
  PFPROF_SEVERITY_WARNING,
  "Input copies on the compute stream or blocking, with no kernel beside them",
  params,
  G_N_ELEMENTS (params),
  run,
  PFPROF_RULE_SCOPE_DEVICE,
};
