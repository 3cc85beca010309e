/* pfprof-rule-sync-in-loop.c: host synchronizations every step.
 *
 * `.item()` is a tiny device-to-host copy plus cudaStreamSynchronize;
 * `.cpu()`, printing a tensor and torch.cuda.synchronize() block the same
 * way. While the host waits the GPU drains its queue; after the wait the
 * GPU idles until the host launches the next kernel. That refill gap
 * (less any DataLoader wait inside it, which input-starved counts) is
 * what a sync costs, and what the rule estimates as savings. Event
 * synchronizations belong to record-stream-stall and are not counted.
 */
#include "pfprof-rules.h"

#include "pfprof-format.h"
#include "pfprof-steps.h"

static const PfprofRuleParam params[] = {
  { "min-per-step", 1, "blocking synchronizations per steady step needed to fire" },
  { "min-step-fraction", 0.5, "fire only when this fraction of steady steps has one" },
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

static void
run (PfprofRuleContext *ctx)
{
  const PfprofTraceIndex *ix = ctx->ix;
  const PfprofApiRecord *api = pfprof_trace_api_calls (ix->trace);
  const PfprofDeviceTimeline *dev = pfprof_steps_primary_device (ix);
  static const PfprofApiClass classes[] = { PFPROF_API_CLASS_STREAM_SYNC, PFPROF_API_CLASS_DEVICE_SYNC };
  g_autoptr (GArray) calls = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) times = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 host = 0, refill = 0;
  guint n_stream = 0;
  PfprofFinding *f;

  if (dev == NULL)
    return;
  pfprof_rule_collect_calls (ctx, classes, G_N_ELEMENTS (classes), ix->main_tid, calls);
  if (calls->len == 0)
    return;
  for (guint i = 0; i < calls->len; i++)
    {
      const PfprofApiRecord *r = &api[g_array_index (calls, guint, i)];
      guint j = pfprof_interval_set_first_after (dev->busy, r->end_ns);

      g_array_append_val (times, r->start_ns);
      host += r->end_ns - r->start_ns;
      n_stream += pfprof_trace_index_api_class (ix, r) == PFPROF_API_CLASS_STREAM_SYNC;
      /* The GPU idles from the end of the wait until its next work. */
      if (j < pfprof_interval_set_n (dev->busy))
        {
          PfprofInterval b = pfprof_interval_set_get (dev->busy, j);

          /* Time the host then spent waiting for the DataLoader is
           * input-starved's, not this rule's. */
          if (b.start > r->end_ns)
            refill += MIN (b.start, ix->steady_end) - r->end_ns
                      - pfprof_interval_set_length_in (ix->data_wait, r->end_ns, b.start);
        }
    }
  if ((double) calls->len < pfprof_rule_param (ctx, "min-per-step") * pfprof_trace_index_per_step_divisor (ix)
      || pfprof_rule_step_coverage (ctx, (gint64 *) (void *) times->data, times->len)
           < pfprof_rule_param (ctx, "min-step-fraction"))
    return;

  f = pfprof_rule_finding_new (ctx);
  f->device_id = dev->device_id;
  f->count = calls->len;
  f->time_ns = host;
  f->est_savings_ns = pfprof_rule_per_step (ctx, refill);
  for (guint i = 0; i < calls->len; i++)
    {
      guint k = g_array_index (calls, guint, i);
      PfprofEvidence e = pfprof_rule_evidence (ctx, PFPROF_TABLE_API_CALLS, k, api[k].start_ns,
                                               api[k].end_ns, PFPROF_NONE, PFPROF_NONE, api[k].tid);

      pfprof_finding_add_evidence (f, &e, PFPROF_RULE_MAX_EVIDENCE);
    }
  {
    double per = (double) calls->len / pfprof_trace_index_per_step_divisor (ix);
    g_autofree char *s_per = pfprof_format_double (per, 1);
    g_autofree char *s_host = pfprof_format_ns (host);
    g_autofree char *s_host_step = pfprof_format_ns (pfprof_rule_per_step (ctx, host));
    g_autofree char *s_refill = pfprof_format_ns (pfprof_rule_per_step (ctx, refill));
    g_autofree char *s_share = pfprof_format_double (pfprof_rule_share (ctx, host), 1);

    f->title = g_strdup_printf ("Host synchronizes with the GPU %s times per step", s_per);
    f->message = g_strdup_printf (
      "The launching thread %u blocked in %u synchronizing calls after warm-up (%u stream, "
      "%u device synchronizations; %s per step): %s in all, %s per step (%s%% of the steady "
      "state). After each wait the GPU sat idle until the next launch: %s per step. Typical "
      "causes: loss.item(), .cpu(), printing tensors, torch.cuda.synchronize().",
      ix->main_tid, calls->len, n_stream, calls->len - n_stream, s_per, s_host, s_host_step,
      s_share, s_refill);
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
};
