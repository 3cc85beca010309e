/* SPDX-License-Identifier: MIT */
/* pfprof-rule-host-bound.c: the GPU waits for the host, not for input.
 *
 * The step ledger's host_bound bucket is GPU idle time with nothing queued
 * while the launching thread was outside the DataLoader, synchronizations
 * and allocations: it was running Python or launching kernels one by one,
 * slower than the GPU ran them. Part of it is the refill after a wait (a
 * DataLoader wait, a sync, a blocking copy empties the GPU's queue, and
 * the GPU then idles while the host refills it), or the host issuing many
 * small copies back to back, which other findings name (each says how much
 * in PfprofFinding.host_bound_ns); what is left is the host's own pace,
 * which no input-pipeline fix changes. This rule names it, so that input-starved is not blamed for it and a clean
 * input pipeline is said to be clean.
 */
#include "pfprof-rules.h"

#include <math.h>

#include "pfprof-format.h"
#include "pfprof-steps.h"

static const PfprofRuleParam params[] = {
  { "min-share", 0.05, "fire when the GPU waits for the host (beyond the refill after waits other rules name) this share of the mean step" },
  { "min-share-without-nvtx", 0.1, "the same without DataLoader ranges, where time producing the next batch looks the same" },
};

static const char fix[] =
  "The GPU runs kernels faster than the host launches them. Give it more work per\n"
  "launch, and launch less often:\n"
  "\n"
  "    model = torch.compile(model, mode=\"reduce-overhead\")   # CUDA graphs: one launch per step\n"
  "\n"
  "or capture the step yourself (static shapes, static input buffers):\n"
  "\n"
  "    g = torch.cuda.CUDAGraph()\n"
  "    with torch.cuda.graph(g):\n"
  "        static_loss = step(static_x, static_y)\n"
  "    for x, y in loader:\n"
  "        static_x.copy_(x, non_blocking=True); static_y.copy_(y, non_blocking=True)\n"
  "        g.replay()\n"
  "\n"
  "A larger batch (or gradient accumulation over micro-batches kept on the GPU) makes\n"
  "each kernel longer for the same launch cost; fuse small ops (torch.compile,\n"
  "foreach/fused optimizers: torch.optim.AdamW(..., fused=True)); remove per-step\n"
  "host synchronizations (.item(), .cpu(), torch.cuda.synchronize()) so the host can\n"
  "run ahead of the GPU.\n";

typedef struct
{
  gint64 start, end;
} Gap;

static int
compare_gap_length (gconstpointer a, gconstpointer b)
{
  const Gap *x = a, *y = b;
  gint64 lx = x->end - x->start, ly = y->end - y->start;

  return (lx < ly) - (lx > ly);
}

/* Copy calls this close (50 µs, small-transfers' max-gap-us) with nothing
 * launched between are issued back to back. */
#define COPY_RUN_GAP_NS (50 * 1000)

/* The launching thread's waits, as disjoint intervals in time order:
 * DataLoader waits, synchronizations, copy calls and its runs of pageable
 * copies (the host held from a run's first call to its last). */
static GArray *
host_waits (const PfprofRuleContext *ctx)
{
  const PfprofTraceIndex *ix = ctx->ix;
  const PfprofApiRecord *api = pfprof_trace_api_calls (ix->trace);
  static const PfprofApiClass classes[] = { PFPROF_API_CLASS_STREAM_SYNC, PFPROF_API_CLASS_DEVICE_SYNC,
                                            PFPROF_API_CLASS_EVENT_SYNC, PFPROF_API_CLASS_MEMCPY };
  g_autoptr (GArray) calls = g_array_new (FALSE, FALSE, sizeof (guint));
  PfprofIntervalSetBuilder *b = pfprof_interval_set_builder_new ();
  g_autoptr (PfprofIntervalSet) set = NULL;
  GArray *out = g_array_new (FALSE, FALSE, sizeof (PfprofInterval));

  pfprof_rule_collect_calls (ctx, classes, G_N_ELEMENTS (classes), ix->main_tid, calls);
  for (guint i = 0; i < calls->len; i++)
    {
      guint k = g_array_index (calls, guint, i);

      pfprof_interval_set_builder_add (b, api[k].start_ns, api[k].end_ns);
    }
  for (guint i = 0; i < ix->data_waits->len; i++)
    {
      PfprofInterval w = g_array_index (ix->data_waits, PfprofInterval, i);

      pfprof_interval_set_builder_add (b, w.start, w.end);
    }
  {
    const PfprofIntervalSet *runs = pfprof_step_ledger_pageable_runs (ctx->loop->ledger);

    for (guint i = 0; runs != NULL && i < pfprof_interval_set_n (runs); i++)
      {
        PfprofInterval r = pfprof_interval_set_get (runs, i);

        pfprof_interval_set_builder_add (b, r.start, r.end);
      }
  }
  set = pfprof_interval_set_build (b);
  for (guint i = 0; i < pfprof_interval_set_n (set); i++)
    {
      PfprofInterval iv = pfprof_interval_set_get (set, i);

      g_array_append_val (out, iv);
    }
  return out;
}

static void
run (PfprofRuleContext *ctx)
{
  const PfprofTraceIndex *ix = ctx->ix;
  const PfprofLoop *loop = ctx->loop;
  const PfprofDeviceTimeline *dev = pfprof_steps_primary_device (ix);
  const PfprofIntervalSet *hb = pfprof_step_ledger_bucket_set (loop->ledger, PFPROF_LEDGER_HOST_BOUND);
  gint64 lo = loop->steady_start, hi = loop->steady_end, total, refill, own, step, data_wait;
  g_autoptr (GArray) gaps = g_array_new (FALSE, FALSE, sizeof (Gap));
  gint64 window[PFPROF_LEDGER_N_BUCKETS];
  double kernels_per_step;
  PfprofFinding *f;

  if (dev == NULL || hb == NULL || !ix->has_api || ix->main_tid == 0 || hi <= lo)
    return;
  /* Without DataLoader ranges, input-starved's fallback already names this
   * idle (it cannot tell input from the host's pace): one finding, not two. */
  if (ix->data_waits->len == 0)
    for (guint i = 0; i < ctx->analysis->findings->len; i++)
      {
        const PfprofFinding *o = g_ptr_array_index (ctx->analysis->findings, i);

        if (o->trace_index == ix->trace_index && o->phase == loop->judge
            && g_str_equal (o->rule, "input-starved"))
          return;
      }
  pfprof_step_ledger_fill_steady (loop->ledger, window);
  step = pfprof_rule_mean_step (ctx);
  total = pfprof_loop_steady_length_of (loop, hb);
  /* What other findings name, or would: the refill after each of the
   * launching thread's waits (at most the wait: the lead it took away) and
   * the idle while it issued copies back to back; or, where more, what the
   * findings of this GPU claimed of the bucket (their horizons differ: a
   * pageable copy's refill runs to the next such copy). */
  {
    g_autoptr (GArray) waits = host_waits (ctx);
    g_autofree gint64 *bounds = pfprof_rule_step_starts (ctx);
    static const PfprofApiClass copy[] = { PFPROF_API_CLASS_MEMCPY };
    g_autoptr (GArray) copies = g_array_new (FALSE, FALSE, sizeof (guint));
    gint64 named = 0;

    pfprof_rule_collect_calls (ctx, copy, 1, ix->main_tid, copies);
    refill = pfprof_step_ledger_refill_after (loop->ledger, waits)
             + pfprof_step_ledger_call_run_idle (loop->ledger, copies, COPY_RUN_GAP_NS, bounds,
                                                 pfprof_loop_n_steady_steps (loop), NULL);
    for (guint i = 0; i < ctx->analysis->findings->len; i++)
      {
        const PfprofFinding *o = g_ptr_array_index (ctx->analysis->findings, i);

        if (o->trace_index == ix->trace_index && o->phase == loop->judge
            && (o->device_id == dev->device_id || o->device_id == PFPROF_NONE))
          named += MAX (0, MIN (o->host_bound_ns, o->est_savings_ns));
      }
    refill = MIN (total, MAX (refill, (gint64) ((double) named * pfprof_loop_per_step_divisor (loop))));
  }
  own = MAX (0, total - refill);
  if (step <= 0
      || (double) pfprof_rule_per_step (ctx, own)
           < pfprof_rule_param (ctx, ix->data_waits->len > 0 ? "min-share" : "min-share-without-nvtx")
               * (double) step)
    return;

  for (guint p = 0; p < pfprof_loop_n_steady_parts (loop); p++)
    {
      PfprofInterval part = pfprof_loop_steady_part (loop, p);

      for (guint i = pfprof_interval_set_first_after (hb, part.start); i < pfprof_interval_set_n (hb); i++)
        {
          PfprofInterval iv = pfprof_interval_set_get (hb, i);
          Gap g = { MAX (iv.start, part.start), MIN (iv.end, part.end) };

          if (iv.start >= part.end)
            break;
          g_array_append_val (gaps, g);
        }
    }
  f = pfprof_rule_finding_new (ctx);
  f->device_id = dev->device_id;
  f->count = gaps->len;
  f->time_ns = own;
  f->est_savings_ns = pfprof_rule_per_step (ctx, own);
  f->buckets = PFPROF_LEDGER_BIT (PFPROF_LEDGER_HOST_BOUND);
  /* The longest gaps are the evidence, costliest first as every
   * finding's (pfprof_finding_add_evidence orders them). */
  g_array_sort (gaps, compare_gap_length);
  for (guint i = 0; i < gaps->len; i++)
    {
      Gap g = g_array_index (gaps, Gap, i);
      PfprofEvidence e = pfprof_rule_evidence (ctx, PFPROF_TABLE_KERNELS, G_MAXUINT, g.start, g.end,
                                               dev->device_id, PFPROF_NONE, ix->main_tid);

      /* The rest are occurrences only: what the reports say stays the
       * longest few. */
      if (i < PFPROF_RULE_MAX_EVIDENCE)
        pfprof_finding_add_evidence (f, &e, PFPROF_RULE_MAX_EVIDENCE);
      else
        pfprof_finding_add_occurrence (f, &e);
    }
  data_wait = window[PFPROF_LEDGER_DATA_WAIT];
  kernels_per_step = 0;
  {
    const PfprofKernelRecord *k = pfprof_trace_kernels (ix->trace);
    guint n = 0;

    guint nki;
    const guint *ki = pfprof_device_timeline_records (dev, PFPROF_TABLE_KERNELS, &nki);

    for (guint j = 0; j < nki; j++)
      n += pfprof_loop_in_steady (loop, k[pfprof_device_record_at (ki, j)].start_ns);
    kernels_per_step = (double) n / pfprof_loop_per_step_divisor (loop);
  }
  {
    g_autofree char *s_own = pfprof_format_ns (pfprof_rule_per_step (ctx, own));
    g_autofree char *s_share = pfprof_format_double (100.0 * (double) pfprof_rule_per_step (ctx, own) / (double) step, 1);
    g_autofree char *s_refill = pfprof_format_ns (pfprof_rule_per_step (ctx, refill));
    g_autofree char *s_kps = pfprof_format_double (kernels_per_step, 0);
    g_autofree char *s_kern = pfprof_format_ns (kernels_per_step > 0
                                                  ? (gint64) ((double) pfprof_rule_per_step (ctx, window[PFPROF_LEDGER_COMPUTE] + window[PFPROF_LEDGER_COPY_HIDDEN]) / kernels_per_step)
                                                  : 0);
    g_autofree char *s_dw = pfprof_format_ns (pfprof_rule_per_step (ctx, data_wait));
    g_autofree char *s_sync = pfprof_format_ns (pfprof_rule_per_step (ctx, pfprof_ledger_sum (window,
      PFPROF_LEDGER_BIT (PFPROF_LEDGER_SYNC_COPY) | PFPROF_LEDGER_BIT (PFPROF_LEDGER_SYNC_STREAM)
      | PFPROF_LEDGER_BIT (PFPROF_LEDGER_SYNC_DEVICE) | PFPROF_LEDGER_BIT (PFPROF_LEDGER_SYNC_EVENT))));

    f->title = g_strdup_printf ("GPU waits for the host: idle %s per mean step (%s%%) with nothing queued",
                                s_own, s_share);
    f->message = g_strdup_printf (
      "Device %u had no work queued for %s per mean step (%s%% of it) while the launching thread "
      "%u was outside DataLoader waits, synchronizations and allocations: it was running Python "
      "or launching kernels one by one, slower than the GPU ran them (%s kernels per mean step, %s "
      "each on average). %s more per mean step followed waits that other findings name. The input "
      "pipeline is not what holds this GPU up: the GPU idled %s per mean step while the loop waited for "
      "the DataLoader and %s in synchronizations.",
      dev->device_id, s_own, s_share, ix->main_tid, s_kps, s_kern, s_refill, s_dw, s_sync);
    if (ix->data_waits->len == 0)
      {
        g_autofree char *msg = f->message;

        f->message = g_strdup_printf ("%s The trace has no DataLoader ranges, so time the thread spent "
                                      "producing the next batch looks the same (record with `pfprof "
                                      "record` to tell them apart).", msg);
      }
  }
  f->fix = g_strdup (fix);
  pfprof_rule_emit (ctx, f);
}

const PfprofRule pfprof_rule_host_bound = {
  "host-bound",
  PFPROF_SEVERITY_WARNING,
  "The GPU waits for the host (Python, kernel launches), not for input",
  params,
  G_N_ELEMENTS (params),
  run,
  PFPROF_RULE_SCOPE_TRACE,
};
