/* SPDX-License-Identifier: MIT */
/* pfprof-rule-sync-in-loop.c: host synchronizations every step.
 *
 * `.item()` is a tiny device-to-host copy plus cudaStreamSynchronize;
 * `.cpu()`, printing a tensor and torch.cuda.synchronize() block the same
 * way. What a sync costs is not the host's wait (the GPU is busy then) but
 * the launch-ahead it throws away: before the wait the host was ahead of
 * the GPU by the length of the wait; after it the GPU's queue is empty, so
 * the GPU idles until the host launches again (the refill gap, DataLoader
 * wait included), and again whenever the GPU catches up with the host
 * launching kernel by kernel, until the host is ahead once more. On the
 * H200 sample (f) those later gaps cost twice the refill gap.
 *
 * A device-wide idle gap means nothing runnable was queued, so every gap
 * of at least min-gap-us between the end of a sync and the next one is
 * time the host kept the GPU waiting; with the queue full, back-to-back
 * work is 1-2 µs apart. Had the host kept its lead, it would have hidden
 * up to that lead of such gaps: the estimate per sync is the idle in those
 * gaps, at most the sync's wait. The gaps stop at the next call that
 * copies from or to pageable memory: such a call holds the host while
 * the GPU drains its queue again, and the idle after it is that copy's
 * (pageable-transfer). Event synchronizations belong to
 * record-stream-stall and are not counted.
 */
#include "pfprof-rules.h"

#include "pfprof-format.h"
#include "pfprof-quantile.h"
#include "pfprof-steps.h"

static const PfprofRuleParam params[] = {
  { "min-per-step", 1, "blocking synchronizations per steady step needed to fire" },
  { "min-step-fraction", 0.5, "fire only when this fraction of steady steps has one" },
  { "min-gap-us", 10, "GPU idle gaps counted as waiting for the host after a sync" },
};

static const char fix[] =
  "Keep values on the GPU inside the loop and read them rarely:\n"
  "\n"
  "    running = torch.zeros((), device=device)\n"
  "    for i, (x, y) in enumerate(loader):\n"
  "        loss = criterion(model(x), y)\n"
  "        ...\n"
  "        running += loss.detach()            # no .item() per step\n"
  "        if i % 100 == 0:\n"
  "            print(running.item() / 100)     # one sync every 100 steps\n"
  "            running.zero_()\n"
  "\n"
  "Remove torch.cuda.synchronize() from the loop (time with CUDA events instead), and\n"
  "avoid .cpu()/.tolist()/printing tensors and data-dependent Python branches on GPU\n"
  "values every step.\n";

/* Idle time of @busy in gaps of at least @min_gap from the end of the
 * sync [@wait_start, @from) until @to, where the next sync starts; the
 * first such gap is the refill gap. It begins where the GPU drained its
 * queue, which is before the host wakes up from the wait. */
static gint64
idle_gaps_in (const PfprofIntervalSet *busy, gint64 wait_start, gint64 from, gint64 to,
              gint64 min_gap, gint64 *refill)
{
  guint n = pfprof_interval_set_n (busy);
  guint j = pfprof_interval_set_first_after (busy, from);
  gint64 t = from, sum = 0;

  if (j > 0 && pfprof_interval_set_get (busy, j - 1).end > wait_start)
    t = pfprof_interval_set_get (busy, j - 1).end;
  *refill = 0;
  for (; j < n; j++)
    {
      PfprofInterval b = pfprof_interval_set_get (busy, j);

      if (b.start >= to)
        break;
      if (b.start - t >= min_gap)
        {
          if (sum == 0)
            *refill = b.start - t;
          sum += b.start - t;
        }
      t = MAX (t, b.end);
    }
  return sum;
}

/* Where the launching thread @tid started calls that copy from or to
 * pageable memory, in time order: each holds the host while the GPU
 * drains its queue, an idle of its own (pageable-transfer's), so the idle
 * a sync is charged with stops at the next one. */
static GArray *
pageable_copy_calls (const PfprofTraceIndex *ix, guint32 tid)
{
  const PfprofMemcpyRecord *m = pfprof_trace_memcpys (ix->trace);
  guint n = pfprof_trace_n (ix->trace, PFPROF_TABLE_MEMCPYS);
  GArray *starts = g_array_new (FALSE, FALSE, sizeof (gint64));

  for (guint i = 0; i < n; i++)
    {
      const PfprofApiRecord *api;

      if (!pfprof_memcpy_is_pageable (&m[i]))
        continue;
      api = pfprof_trace_index_api (ix, m[i].correlation_id);
      if (api != NULL && api->tid == tid)
        g_array_append_val (starts, api->start_ns);
    }
  pfprof_quantile_sort_i64 ((gint64 *) (void *) starts->data, starts->len);
  return starts;
}

static void
run (PfprofRuleContext *ctx)
{
  const PfprofTraceIndex *ix = ctx->ix;
  const PfprofLoop *loop = ctx->loop;
  const PfprofApiRecord *api = pfprof_trace_api_calls (ix->trace);
  const PfprofDeviceTimeline *dev = pfprof_steps_primary_device (ix);
  static const PfprofApiClass classes[] = { PFPROF_API_CLASS_STREAM_SYNC, PFPROF_API_CLASS_DEVICE_SYNC };
  g_autoptr (GArray) calls = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) times = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr (GArray) copies = NULL;
  gint64 min_gap = (gint64) (pfprof_rule_param (ctx, "min-gap-us") * 1000.0);
  gint64 host = 0, refill = 0, starved = 0, lost = 0, lost_host_bound = 0;
  const PfprofIntervalSet *hb = pfprof_step_ledger_bucket_set (loop->ledger, PFPROF_LEDGER_HOST_BOUND);
  guint n_stream = 0;
  PfprofFinding *f;

  if (dev == NULL)
    return;
  pfprof_rule_collect_calls (ctx, classes, G_N_ELEMENTS (classes), ix->main_tid, calls);
  /* The syncs a blocking input copy issues itself are the copy's
   * (serialized-copy, pageable-transfer): the program did not ask for them. */
  {
    guint w = 0;

    for (guint i = 0; i < calls->len; i++)
      if (!pfprof_step_ledger_is_copy_sync (loop->ledger, g_array_index (calls, guint, i)))
        g_array_index (calls, guint, w++) = g_array_index (calls, guint, i);
    g_array_set_size (calls, w);
  }
  if (calls->len == 0)
    return;
  copies = pageable_copy_calls (ix, ix->main_tid);
  for (guint i = 0, k = 0; i < calls->len; i++)
    {
      const PfprofApiRecord *r = &api[g_array_index (calls, guint, i)];
      gint64 to = pfprof_loop_steady_end_at (loop, r->start_ns), first, idle;

      if (i + 1 < calls->len)
        to = MIN (to, MAX (r->end_ns, api[g_array_index (calls, guint, i + 1)].start_ns));
      while (k < copies->len && g_array_index (copies, gint64, k) < r->end_ns)
        k++;
      if (k < copies->len)
        to = MIN (to, MAX (r->end_ns, g_array_index (copies, gint64, k)));
      g_array_append_val (times, r->start_ns);
      host += r->end_ns - r->start_ns;
      n_stream += pfprof_trace_index_api_class (ix, r) == PFPROF_API_CLASS_STREAM_SYNC;
      idle = idle_gaps_in (dev->busy, r->start_ns, r->end_ns, to, MAX (min_gap, 1), &first);
      refill += first;
      starved += idle - first;
      /* Without the sync the host would have stayed ahead by the time it
       * waited, and no more than that of idle could have been hidden. */
      lost += MIN (idle, r->end_ns - r->start_ns);
      /* What of it lies after the wait, where the ledger has host-bound idle. */
      if (hb != NULL && to > r->end_ns)
        lost_host_bound += MIN (MIN (idle, r->end_ns - r->start_ns),
                                pfprof_interval_set_length_in (hb, r->end_ns, to));
    }
  if ((double) calls->len < pfprof_rule_param (ctx, "min-per-step") * pfprof_loop_per_step_divisor (loop)
      || pfprof_rule_step_coverage (ctx, (gint64 *) (void *) times->data, times->len)
           < pfprof_rule_param (ctx, "min-step-fraction"))
    return;

  f = pfprof_rule_finding_new (ctx);
  f->device_id = dev->device_id;
  f->count = calls->len;
  f->time_ns = host;
  f->est_savings_ns = pfprof_rule_per_step (ctx, lost);
  f->host_bound_ns = pfprof_rule_per_step (ctx, lost_host_bound);
  f->buckets = PFPROF_LEDGER_IDLE_HOST_BITS;
  for (guint i = 0; i < calls->len; i++)
    {
      guint k = g_array_index (calls, guint, i);
      PfprofEvidence e = pfprof_rule_evidence (ctx, PFPROF_TABLE_API_CALLS, k, api[k].start_ns,
                                               api[k].end_ns, PFPROF_NONE, PFPROF_NONE, api[k].tid);

      pfprof_finding_add_evidence (f, &e, PFPROF_RULE_MAX_EVIDENCE);
    }
  {
    double per = (double) calls->len / pfprof_loop_per_step_divisor (loop);
    g_autofree char *s_per = pfprof_format_double (per, 1);
    g_autofree char *s_host = pfprof_format_ns (host);
    g_autofree char *s_host_step = pfprof_format_ns (pfprof_rule_per_step (ctx, host));
    g_autofree char *s_refill = pfprof_format_ns (pfprof_rule_per_step (ctx, refill));
    g_autofree char *s_starved = pfprof_format_ns (pfprof_rule_per_step (ctx, starved));
    g_autofree char *s_lost = pfprof_format_ns (pfprof_rule_per_step (ctx, lost));
    g_autofree char *s_share = pfprof_format_double (pfprof_rule_share (ctx, host), 1);

    f->title = g_strdup_printf ("Host synchronizes with the GPU %s times per mean step", s_per);
    f->message = g_strdup_printf (
      "The launching thread %u blocked in %u synchronizing calls after warm-up (%u stream, "
      "%u device synchronizations; %s per mean step): %s in all, %s per mean step (%s%% of the steady "
      "state). Each wait emptied the GPU's queue: the GPU then sat idle until the next launch "
      "(%s per mean step) and again while the host refilled the queue kernel by kernel (%s per "
      "mean step), time the host's lead before the wait would have hidden: %s per mean step. Typical "
      "causes: loss.item(), .cpu(), printing tensors, torch.cuda.synchronize().",
      ix->main_tid, calls->len, n_stream, calls->len - n_stream, s_per, s_host, s_host_step,
      s_share, s_refill, s_starved, s_lost);
  }
  f->fix = g_strdup (fix);
  pfprof_rule_emit (ctx, f);
}

const PfprofRule pfprof_rule_sync_in_loop = {
  "sync-in-loop",
  PFPROF_SEVERITY_WARNING,
  "Host synchronizations every step (.item(), .cpu(), synchronize)",
  params,
  G_N_ELEMENTS (params),
  run,
  PFPROF_RULE_SCOPE_TRACE,
};
