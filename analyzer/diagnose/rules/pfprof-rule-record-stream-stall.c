/* SPDX-License-Identifier: MIT */
/* pfprof-rule-record-stream-stall.c: allocator stalls from cross-stream
 * tensor lifetimes (Tensor.record_stream).
 *
 * record_stream(s) makes the caching allocator record an event on s when
 * the tensor is freed and keep the block out of its pool until the event
 * completes; it polls with cudaEventQuery (600 = not ready). Under memory
 * pressure it then calls cudaEventSynchronize on the outstanding events,
 * frees its cached blocks (cudaFree, or cuMemUnmap with expandable
 * segments) and allocates again while the GPU idles. Two signatures after
 * warm-up:
 *   A. stalls: a burst of blocking event synchronizations followed within
 *      a few milliseconds by frees (and usually fresh allocations);
 *   B. pool growth: not-ready event polls and device allocations that
 *      keep coming until late in the steady state (early growth that
 *      stops is a cache filling up, not a problem).
 * CUPTI reports both the poll and the blocking wait as an "event
 * synchronize"; the API call behind the record tells them apart.
 */
#include "pfprof-rules.h"

#include "pfprof-format.h"
#include "pfprof-steps.h"

static const PfprofRuleParam params[] = {
  { "min-episodes", 3, "stall episodes (event synchronizations followed by frees) needed to fire" },
  { "burst-gap-ms", 5, "a free this close after an event synchronization belongs to its episode (ms)" },
  { "min-polls-per-step", 1, "pool growth: not-ready event polls per steady step needed" },
  { "min-late-mallocs", 3, "pool growth: device allocations in the second half of the steady state needed" },
};

static const char fix[] =
  "Do not hand a batch to another stream with record_stream(); allocate it on the\n"
  "stream that consumes it and make the copy stream wait instead:\n"
  "\n"
  "    copy_stream = torch.cuda.Stream()   # one Stream object, reused\n"
  "\n"
  "    def to_gpu(cpu):                             # cpu: pinned\n"
  "        # allocated on the compute stream:\n"
  "        gpu = torch.empty_like(cpu, device=\"cuda\")\n"
  "        copy_stream.wait_stream(torch.cuda.current_stream())\n"
  "        with torch.cuda.stream(copy_stream):\n"
  "            gpu.copy_(cpu, non_blocking=True)  # no record_stream()\n"
  "        return gpu\n"
  "\n"
  "    batch = to_gpu(cpu_batch)\n"
  "    # just before use:\n"
  "    torch.cuda.current_stream().wait_stream(copy_stream)\n"
  "\n"
  "If a tensor must live across streams, keep a reference to it until the consumer is\n"
  "done (hold the previous batch one iteration longer) rather than record_stream(), and\n"
  "never create a new torch.cuda.Stream() per epoch or per step.\n";

typedef struct
{
  gint64 start, end;  /* the episode: first event sync to last free/malloc */
  guint first_api;    /* its first event synchronize */
} Episode;

static void
run (PfprofRuleContext *ctx)
{
  const PfprofTraceIndex *ix = ctx->ix;
  const PfprofLoop *loop = ctx->loop;
  const PfprofApiRecord *api = pfprof_trace_api_calls (ix->trace);
  const PfprofDeviceTimeline *dev = pfprof_steps_primary_device (ix);
  static const PfprofApiClass sync_classes[] = { PFPROF_API_CLASS_EVENT_SYNC };
  static const PfprofApiClass free_classes[] = { PFPROF_API_CLASS_FREE, PFPROF_API_CLASS_VMM_UNMAP };
  static const PfprofApiClass malloc_classes[] = { PFPROF_API_CLASS_MALLOC, PFPROF_API_CLASS_VMM_MAP };
  static const PfprofApiClass poll_classes[] = { PFPROF_API_CLASS_EVENT_QUERY };
  g_autoptr (GArray) syncs = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) frees = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) mallocs = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) polls = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) episodes = g_array_new (FALSE, FALSE, sizeof (Episode));
  gint64 gap = (gint64) (pfprof_rule_param (ctx, "burst-gap-ms") * 1e6);
  guint n_not_ready = 0, fi = 0, mi = 0, n_late_mallocs = 0;
  gint64 ep_idle = 0, ep_host = 0, sync_host = 0, alloc_host = 0;
  gboolean stalls, growth;
  double steps = pfprof_loop_per_step_divisor (loop);
  PfprofFinding *f;

  if (dev == NULL || !ix->has_api)
    return;
  pfprof_rule_collect_calls (ctx, sync_classes, 1, 0, syncs);
  pfprof_rule_collect_calls (ctx, free_classes, 2, 0, frees);
  pfprof_rule_collect_calls (ctx, malloc_classes, 2, 0, mallocs);
  pfprof_rule_collect_calls (ctx, poll_classes, 1, 0, polls);
  for (guint i = 0; i < polls->len; i++)
    if (api[g_array_index (polls, guint, i)].return_value == PFPROF_CUDA_NOT_READY)
      n_not_ready++;

  /* Episodes: a burst of event syncs (each starting at most `gap` after
   * the previous one ended, and no free in between), then the frees and
   * allocations that follow, chained the same way, up to the next sync.
   * On the H200 one episode was 4 syncs of ~4 ms, 7 frees and 5 mallocs,
   * every ~20 ms. */
#define API_START(list, k) (api[g_array_index ((list), guint, (k))].start_ns)
#define API_END(list, k) (api[g_array_index ((list), guint, (k))].end_ns)
  for (guint i = 0; i < syncs->len;)
    {
      Episode ep;
      guint j = i;
      gboolean freed = FALSE;
      gint64 next_free, next_sync;

      ep.first_api = g_array_index (syncs, guint, i);
      ep.start = API_START (syncs, i);
      ep.end = API_END (syncs, i);
      while (fi < frees->len && API_START (frees, fi) < ep.start)
        fi++;
      next_free = fi < frees->len ? API_START (frees, fi) : G_MAXINT64;
      while (j + 1 < syncs->len && API_START (syncs, j + 1) <= ep.end + gap
             && API_START (syncs, j + 1) < next_free)
        {
          j++;
          ep.end = MAX (ep.end, API_END (syncs, j));
        }
      next_sync = j + 1 < syncs->len ? API_START (syncs, j + 1) : G_MAXINT64;
      while (fi < frees->len && API_START (frees, fi) <= ep.end + gap && API_START (frees, fi) < next_sync)
        {
          ep.end = MAX (ep.end, API_END (frees, fi));
          freed = TRUE;
          fi++;
        }
      if (freed)
        {
          while (mi < mallocs->len && API_START (mallocs, mi) < ep.start)
            mi++;
          while (mi < mallocs->len && API_START (mallocs, mi) <= ep.end + gap
                 && API_START (mallocs, mi) < next_sync)
            {
              ep.end = MAX (ep.end, API_END (mallocs, mi));
              mi++;
            }
          g_array_append_val (episodes, ep);
          /* What the stall costs the GPU: idle time, and copy time that
           * ran with no kernel beside it because the host could not queue
           * compute while it waited. */
          ep_idle += (ep.end - ep.start) - pfprof_interval_set_length_in (dev->busy, ep.start, ep.end)
                     + pfprof_interval_set_length_in (dev->htod, ep.start, ep.end)
                     - pfprof_interval_set_length_in (dev->htod_kernels, ep.start, ep.end);
          ep_host += ep.end - ep.start;
        }
      i = j + 1;
    }
#undef API_START
#undef API_END
  for (guint i = 0; i < syncs->len; i++)
    {
      const PfprofApiRecord *r = &api[g_array_index (syncs, guint, i)];
      sync_host += r->end_ns - r->start_ns;
    }
  for (guint i = 0; i < mallocs->len; i++)
    {
      const PfprofApiRecord *r = &api[g_array_index (mallocs, guint, i)];
      alloc_host += r->end_ns - r->start_ns;
    }

  /* Growth means allocations still come late in the run: a pool that
   * grows for the first steady steps and then stays is a healthy cache
   * (a record_stream prefetcher with memory to spare polls thousands of
   * events and is fine). */
  for (guint i = 0; i < mallocs->len; i++)
    if (api[g_array_index (mallocs, guint, i)].start_ns >= loop->steady_start + (loop->steady_end - loop->steady_start) / 2)
      n_late_mallocs++;
  stalls = episodes->len >= (guint) pfprof_rule_param (ctx, "min-episodes");
  growth = n_not_ready > 0
           && (double) n_not_ready >= pfprof_rule_param (ctx, "min-polls-per-step") * steps
           && n_late_mallocs >= (guint) pfprof_rule_param (ctx, "min-late-mallocs");
  if (!stalls && !growth)
    return;

  f = pfprof_rule_finding_new (ctx);
  f->device_id = dev->device_id;
  if (stalls)
    {
      f->count = episodes->len;
      f->time_ns = ep_idle;
      f->est_savings_ns = pfprof_rule_per_step (ctx, ep_idle);
      for (guint i = 0; i < episodes->len; i++)
        {
          Episode *ep = &g_array_index (episodes, Episode, i);
          PfprofEvidence e = pfprof_rule_evidence (ctx, PFPROF_TABLE_API_CALLS, ep->first_api,
                                                   ep->start, ep->end, PFPROF_NONE, PFPROF_NONE,
                                                   api[ep->first_api].tid);

          pfprof_finding_add_evidence (f, &e, PFPROF_RULE_MAX_EVIDENCE);
        }
    }
  else
    {
      f->count = n_not_ready;
      f->time_ns = alloc_host;
      f->est_savings_ns = pfprof_rule_per_step (ctx, alloc_host);
      for (guint i = 0; i < mallocs->len; i++)
        {
          guint k = g_array_index (mallocs, guint, i);
          PfprofEvidence e = pfprof_rule_evidence (ctx, PFPROF_TABLE_API_CALLS, k, api[k].start_ns,
                                                   api[k].end_ns, PFPROF_NONE, PFPROF_NONE, api[k].tid);

          pfprof_finding_add_evidence (f, &e, PFPROF_RULE_MAX_EVIDENCE);
        }
    }
  {
    g_autofree char *s_idle = pfprof_format_ns (ep_idle);
    g_autofree char *s_idle_step = pfprof_format_ns (pfprof_rule_per_step (ctx, ep_idle));
    g_autofree char *s_sync = pfprof_format_ns (sync_host);
    g_autofree char *s_alloc = pfprof_format_ns (alloc_host);
    g_autofree char *s_host = pfprof_format_ns (ep_host);

    if (stalls)
      {
        f->title = g_strdup_printf ("Allocator stalls: %u event-synchronize-and-free episodes after warm-up",
                                    episodes->len);
        f->message = g_strdup_printf (
          "After warm-up the host blocked in %u cudaEventSynchronize calls (%s) and the caching "
          "allocator freed and re-allocated device memory in %u episodes (%u frees, %u "
          "allocations; %s of host time, %s in allocations): the signature of record_stream() "
          "under memory pressure. During these episodes the GPU was idle, or copied with no kernel "
          "beside the copy, for %s (%s per mean step). "
          "%u event polls returned not-ready.",
          syncs->len, s_sync, episodes->len, frees->len, mallocs->len, s_host, s_alloc, s_idle,
          s_idle_step, n_not_ready);
      }
    else
      {
        f->title = g_strdup_printf ("Allocator pool keeps growing: %u not-ready event polls after warm-up",
                                    n_not_ready);
        f->message = g_strdup_printf (
          "After warm-up the caching allocator polled %u events that were not ready yet "
          "(cudaEventQuery returned 600) and still allocated device memory %u times (%u of them "
          "in the second half of the steady state; %s of host time): blocks freed on another "
          "stream with record_stream() stay out of the pool until their event completes, so "
          "memory keeps growing; under memory pressure this turns into synchronize-and-free "
          "stalls.",
          n_not_ready, mallocs->len, n_late_mallocs, s_alloc);
      }
  }
  f->fix = g_strdup (fix);
  f->buckets = PFPROF_LEDGER_BIT (PFPROF_LEDGER_ALLOC) | PFPROF_LEDGER_BIT (PFPROF_LEDGER_SYNC_EVENT)
               | PFPROF_LEDGER_BIT (PFPROF_LEDGER_COPY_PINNED_SIDE)
               | PFPROF_LEDGER_BIT (PFPROF_LEDGER_COPY_PINNED_COMPUTE)
               | PFPROF_LEDGER_BIT (PFPROF_LEDGER_HOST_BOUND) | PFPROF_LEDGER_BIT (PFPROF_LEDGER_OTHER_IDLE);
  pfprof_rule_emit (ctx, f);
}

const PfprofRule pfprof_rule_record_stream_stall = {
  "record-stream-stall",
  PFPROF_SEVERITY_ERROR,
  "Allocator stalls from cross-stream tensor lifetimes (record_stream)",
  params,
  G_N_ELEMENTS (params),
  run,
  PFPROF_RULE_SCOPE_TRACE,
};
