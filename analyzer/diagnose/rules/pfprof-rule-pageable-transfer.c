/* SPDX-License-Identifier: MIT */
/* pfprof-rule-pageable-transfer.c: copies from or to pageable memory.
 *
 * A host-to-device copy from pageable memory is staged by the driver
 * through a pinned bounce buffer: it runs at a fraction of the pinned
 * bandwidth, and the cudaMemcpyAsync call blocks the host for about as
 * long as the copy, so the host cannot queue the next kernels (the ASYNC
 * flag is still set). Only recurring copies of the steady state count:
 * the model's weights are copied from pageable memory once at start-up,
 * which is not an input-pipeline problem.
 */
#include "pfprof-rules.h"

#include "pfprof-format.h"

static const PfprofRuleParam params[] = {
  { "min-bytes", 65536, "copies smaller than this many bytes are ignored" },
  { "min-count", 3, "fire only with at least this many such copies in the steady state" },
  { "min-step-fraction", 0.5, "fire only when this fraction of steady steps has such a copy" },
  { "pinned-gbps", 50, "pinned HtoD bandwidth (GB/s) assumed when the trace has no pinned copy (an H200 on PCIe 5.0 measured 53)" },
};

static const char fix[] =
  "Copy from page-locked (pinned) memory, then the copy runs at full bandwidth and can\n"
  "overlap compute:\n"
  "\n"
  "    loader = DataLoader(dataset, batch_size=B, num_workers=N,\n"
  "                        pin_memory=True)\n"
  "    for x, y in loader:\n"
  "        x = x.to(device, non_blocking=True)\n"
  "        y = y.to(device, non_blocking=True)\n"
  "\n"
  "A custom batch type stays pageable unless it has a pin_memory() method:\n"
  "\n"
  "    class Batch:\n"
  "        def pin_memory(self):\n"
  "            self.x = self.x.pin_memory()\n"
  "            self.y = self.y.pin_memory()\n"
  "            return self\n"
  "\n"
  "For tensors built by hand, allocate a pinned staging buffer once and reuse it every\n"
  "step (pinning on every call is slow as well):\n"
  "\n"
  "    staging = torch.empty(shape, dtype=dtype, pin_memory=True)  # once\n"
  "    staging.copy_(cpu_batch)                    # every step\n"
  "    gpu_batch = staging.to(device, non_blocking=True)\n"
  "    # keep two staging buffers, or wait for the copy, before refilling one\n"
  "\n"
  "For device-to-host copies (.cpu()), copy into a pinned tensor. The copy returns\n"
  "before the data has arrived: wait for it (an event, or a stream synchronize)\n"
  "before reading out, or out may still hold old values:\n"
  "\n"
  "    out = torch.empty(t.shape, dtype=t.dtype, pin_memory=True)  # once\n"
  "    out.copy_(t, non_blocking=True)\n"
  "    copied = torch.cuda.Event()\n"
  "    copied.record()                             # on the copy's stream\n"
  "    ...                                         # other work meanwhile\n"
  "    copied.synchronize()                        # before reading out\n"
  "    value = out.tolist()\n";

static const char fix_side_stream[] =
  "\n"
  "Once the batches are pinned, copy the next one on a side stream while the current\n"
  "step computes, so the copy is hidden (see serialized-copy's fix).\n";

static const char fix_blocking[] =
  "\n"
  "The copies are blocking (.to(device) without non_blocking=True): after pinning, pass\n"
  "non_blocking=True, or every copy still ends in a cudaStreamSynchronize that empties\n"
  "the GPU's queue.\n";

/* Pinned HtoD bandwidth in bytes per ns (= GB/s) measured on @device in
 * the whole trace, or 0 when it saw no sizeable pinned copy. */
static double
measured_pinned_bandwidth (const PfprofTraceIndex *ix, const PfprofDeviceTimeline *dev)
{
  const PfprofMemcpyRecord *m = pfprof_trace_memcpys (ix->trace);
  guint n;
  const guint *mi = pfprof_device_timeline_records (dev, PFPROF_TABLE_MEMCPYS, &n);
  guint64 bytes = 0;
  gint64 ns = 0;

  for (guint j = 0; j < n; j++)
    {
      const PfprofMemcpyRecord *c = &m[mi[j]];

      if (c->copy_kind == PFPROF_COPY_KIND_HTOD && c->src_kind == PFPROF_MEMORY_KIND_PINNED
          && c->bytes >= (1u << 20))
        {
          bytes += c->bytes;
          ns += c->end_ns - c->start_ns;
        }
    }
  return ns > 0 && bytes >= (8u << 20) ? (double) bytes / (double) ns : 0.0;
}

/* How long copy @m would still show once pinned. It would take its bytes at
 * @pinned from where it starts now, and the host, no longer blocked in the
 * call, would go on launching from where the call returned, at the pace
 * this trace shows: the kernels beside it are those that ran during the
 * call and in the window after it. Where the GPU waited for the host's
 * launches there, the pinned copy runs alone. */
static gint64
pinned_exposed (const PfprofTraceIndex *ix, const PfprofDeviceTimeline *dev, const PfprofMemcpyRecord *m,
                double pinned)
{
  const PfprofApiRecord *api = pfprof_trace_index_api (ix, m->correlation_id);
  gint64 d = pinned > 0 ? (gint64) ((double) m->bytes / pinned) : 0;
  gint64 ret = api != NULL ? MAX (api->end_ns, m->start_ns) : m->end_ns;
  gint64 beside = pfprof_interval_set_length_in (dev->kernels_comm, m->start_ns, ret);

  beside += pfprof_interval_set_length_in (dev->kernels_comm, ret, ret + MAX (0, d - beside));
  return MAX (0, d - beside);
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
  g_autoptr (GArray) hits = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) times = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint64 bytes = 0, n_htod = 0, n_dtoh = 0;
  gint64 time = 0, host_ns = 0, ideal;
  double pinned = measured_pinned_bandwidth (ix, dev);
  gboolean measured = pinned > 0;
  guint32 stream = PFPROF_NONE;
  guint best_count = 0;
  g_autoptr (GHashTable) per_stream = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GArray) calls = g_array_new (FALSE, FALSE, sizeof (PfprofInterval));
  guint64 n_compute = 0, side_bytes = 0;
  gint64 side_time = 0;
  gint64 refill, hb_refill, pin_alone, both, side_exposed, all_exposed;
  guint n_copy_syncs, n_steady, min_count;
  PfprofFinding *f;

  for (guint j = 0; j < n; j++)
    {
      guint i = mi[j];
      const PfprofApiRecord *api;

      if (m[i].device_id != dev->device_id || !pfprof_memcpy_is_pageable (&m[i]) || m[i].bytes < min_bytes
          || !pfprof_loop_in_steady (loop, m[i].start_ns))
        continue;
      g_array_append_val (hits, i);
      g_array_append_val (times, m[i].start_ns);
      bytes += m[i].bytes;
      time += m[i].end_ns - m[i].start_ns;
      if (m[i].stream_id != dev->compute_stream)
        {
          side_bytes += m[i].bytes;
          side_time += m[i].end_ns - m[i].start_ns;
        }
      if (m[i].copy_kind == PFPROF_COPY_KIND_HTOD)
        n_htod++;
      else
        n_dtoh++;
      n_compute += m[i].stream_id == dev->compute_stream;
      api = pfprof_trace_index_api (ix, m[i].correlation_id);
      if (api != NULL)
        {
          PfprofInterval iv = { api->start_ns, api->end_ns };

          host_ns += api->end_ns - api->start_ns;
          if (calls->len == 0 || g_array_index (calls, PfprofInterval, calls->len - 1).end <= iv.start)
            g_array_append_val (calls, iv);
        }
      {
        gpointer key = GUINT_TO_POINTER (m[i].stream_id);
        guint c = GPOINTER_TO_UINT (g_hash_table_lookup (per_stream, key)) + 1;

        g_hash_table_insert (per_stream, key, GUINT_TO_POINTER (c));
        if (c > best_count)
          {
            best_count = c;
            stream = m[i].stream_id;
          }
      }
    }
  /* A short recording of a few iterations has fewer copies than
   * min-count: there, two copies recur if there are only three steady
   * steps (the last step, cut by the end of the recording, may hold none). */
  n_steady = pfprof_loop_n_steady_steps (loop);
  min_count = (guint) pfprof_rule_param (ctx, "min-count");
  if (n_steady >= 3)
    min_count = MIN (min_count, MAX (2u, n_steady - 1));
  if (hits->len == 0 || hits->len < min_count
      || pfprof_rule_step_coverage (ctx, (gint64 *) (void *) times->data, times->len)
           < pfprof_rule_param (ctx, "min-step-fraction"))
    return;

  if (!measured)
    pinned = pfprof_rule_param (ctx, "pinned-gbps");
  ideal = pinned > 0 ? (gint64) ((double) bytes / pinned) : 0;

  f = pfprof_rule_finding_new (ctx);
  f->device_id = dev->device_id;
  f->stream_id = stream;
  f->count = hits->len;
  f->time_ns = time;
  /* A pageable copy blocks the host for as long as it runs: the GPU's queue
   * drains, and the idle while the host refills it goes with the fix, as
   * does the ledger's idle while the host was in its runs of pageable
   * copies (staging each source, releasing it before the next). */
  {
    g_autofree gint64 *bounds = pfprof_rule_step_starts (ctx);

    /* Many pageable copies a step (a batch of separate tensors) block the
     * host one after the other: the idle while it issues them goes too. */
    hb_refill = pfprof_step_ledger_burst_idle (loop->ledger, calls, PFPROF_LEDGER_PAGEABLE_RUN_GAP_NS, bounds,
                                               pfprof_loop_n_steady_steps (loop));
    refill = hb_refill + pfprof_loop_steady_length_of (loop, pfprof_step_ledger_bucket_set (loop->ledger,
                                                                                           PFPROF_LEDGER_PAGEABLE_CALL));
  }
  /* Pinned, a copy on a side stream hides behind the kernels that run
   * beside it; one on the compute stream still runs alone, at pinned
   * bandwidth. Pinned and prefetched on a side stream, every copy hides as
   * far as kernels run beside it. */
  {
    gint64 side_ideal = pinned > 0 ? (gint64) ((double) side_bytes / pinned) : 0;
    gint64 on_compute = MAX (0, (time - side_time) - (ideal - side_ideal));

    side_exposed = 0;
    all_exposed = 0;
    for (guint h = 0; h < hits->len; h++)
      {
        const PfprofMemcpyRecord *c = &m[g_array_index (hits, guint, h)];
        gint64 e = pinned_exposed (ix, dev, c, pinned);

        all_exposed += e;
        if (c->stream_id != dev->compute_stream)
          side_exposed += e;
      }
    pin_alone = pfprof_rule_per_step (ctx, on_compute + side_time - side_exposed + refill);
  }
  both = pfprof_rule_per_step (ctx, time - all_exposed + refill);
  f->est_savings_ns = pin_alone;
  f->host_bound_ns = MIN (pin_alone, pfprof_rule_per_step (ctx, hb_refill));
  f->copy_directions = (n_htod > 0 ? PFPROF_FINDING_HTOD : 0) | (n_dtoh > 0 ? PFPROF_FINDING_DTOH : 0);
  f->buckets = PFPROF_LEDGER_BIT (PFPROF_LEDGER_COPY_PAGEABLE_COMPUTE)
               | PFPROF_LEDGER_BIT (PFPROF_LEDGER_COPY_PAGEABLE_SIDE)
               | PFPROF_LEDGER_BIT (PFPROF_LEDGER_SYNC_COPY) | PFPROF_LEDGER_BIT (PFPROF_LEDGER_PAGEABLE_CALL)
               | PFPROF_LEDGER_BIT (PFPROF_LEDGER_HOST_BOUND);
  n_copy_syncs = pfprof_step_ledger_n_copy_syncs (loop->ledger);
  pfprof_rule_add_memcpy_evidence (ctx, f, hits);
  {
    g_autofree char *s_bytes = pfprof_format_bytes (bytes);
    g_autofree char *s_avg = pfprof_format_bytes (bytes / hits->len);
    g_autofree char *s_time = pfprof_format_ns (time);
    g_autofree char *s_step = pfprof_format_ns (pfprof_rule_per_step (ctx, time));
    g_autofree char *s_bw = pfprof_format_bandwidth (bytes, time);
    g_autofree char *s_pin = pfprof_format_double (pinned, 1);
    g_autofree char *s_share = pfprof_format_double (pfprof_rule_share (ctx, time), 1);
    g_autofree char *s_host = pfprof_format_ns (host_ns);
    g_autofree char *s_min = pfprof_rule_min_bytes_phrase (min_bytes);

    f->title = g_strdup_printf ("%" G_GUINT64_FORMAT " copies%s from/to pageable memory in the steady state",
                                (guint64) hits->len, s_min);
    f->message = g_strdup_printf (
      "%" G_GUINT64_FORMAT " host-to-device and %" G_GUINT64_FORMAT " device-to-host copies%s used "
      "pageable host memory on device %u: %s in all (%s each on average), %s of copy time "
      "(%s per mean step, %s%% of the steady state) at %s, where pinned copies run at about %s GB/s "
      "(%s). The host thread was blocked %s in these copy calls, so it could not queue work "
      "ahead of the GPU.",
      n_htod, n_dtoh, s_min, dev->device_id, s_bytes, s_avg, s_time, s_step, s_share, s_bw, s_pin,
      measured ? "measured in this trace" : "assumed", s_host);
    if (n_compute > 0)
      {
        g_autofree char *s_alone = pfprof_format_ns (pin_alone);
        g_autofree char *s_both = pfprof_format_ns (MAX (both, pin_alone));
        g_autofree char *msg = f->message;

        /* Two problems: pageable, and on the compute stream. */
        f->message = g_strdup_printf (
          "%s %" G_GUINT64_FORMAT " of them ran on the compute stream %u as well, so once pinned they "
          "still run with no kernel beside them (serialized-copy). Pinning alone saves ~%s per mean step; "
          "pinning and prefetching on a side stream together ~%s; a side stream alone, nothing: a "
          "pageable copy blocks the host and cannot overlap compute.",
          msg, n_compute, dev->compute_stream, s_alone, s_both);
      }
    else
      {
        g_autofree char *msg = f->message;

        f->message = g_strdup_printf ("%s The copies already run on a side stream: once pinned they "
                                      "can overlap compute.", msg);
      }
  }
  f->fix = g_strconcat (fix, n_compute > 0 ? fix_side_stream : "", n_copy_syncs > 0 ? fix_blocking : "",
                        NULL);
  pfprof_rule_emit (ctx, f);
}

const PfprofRule pfprof_rule_pageable_transfer = {
  "pageable-transfer",
  PFPROF_SEVERITY_WARNING,
  "Recurring host<->device copies from pageable memory (no pin_memory)",
  params,
  G_N_ELEMENTS (params),
  run,
  PFPROF_RULE_SCOPE_DEVICE,
};
