/* SPDX-License-Identifier: MIT */
/* pfprof-rule-pinned-alloc-in-loop.c: page-locked allocations after
 * warm-up.
 *
 * cudaHostAlloc and cudaHostRegister are slow (they pin pages in the
 * kernel, and may synchronize the device); PyTorch's caching host
 * allocator makes them rare once batches have a steady shape. When they
 * keep coming after warm-up, something pins per call: tensor.pin_memory()
 * in a custom collate or per sample, or batches whose shapes keep changing.
 */
#include "pfprof-rules.h"

#include "pfprof-display-name.h"
#include "pfprof-format.h"

static const PfprofRuleParam params[] = {
  { "min-count", 3, "page-locked allocations after warm-up needed to fire" },
  { "min-step-fraction", 0.25, "fire only when this fraction of steady steps has one (a host cache filling up during the first steps is not a loop)" },
};

static const char fix[] =
  "Allocate pinned buffers once and reuse them, instead of pinning every batch:\n"
  "\n"
  "    pinned = torch.empty((B, C, H, W), dtype=torch.uint8,\n"
  "                         pin_memory=True)            # once\n"
  "    for cpu_batch in batches:\n"
  "        pinned.copy_(cpu_batch)\n"
  "        gpu = pinned.to(device, non_blocking=True)\n"
  "        # before the next copy_ into pinned, make sure this copy finished\n"
  "        # (keep two buffers and alternate, or record and wait on an event)\n"
  "\n"
  "Remove .pin_memory() calls from collate functions and per-sample code and let\n"
  "DataLoader(pin_memory=True) pin whole batches; pad batches to a fixed shape so the\n"
  "caching host allocator can reuse its blocks.\n";

static void
run (PfprofRuleContext *ctx)
{
  const PfprofTraceIndex *ix = ctx->ix;
  const PfprofLoop *loop = ctx->loop;
  const PfprofApiRecord *api = pfprof_trace_api_calls (ix->trace);
  static const PfprofApiClass classes[] = { PFPROF_API_CLASS_HOST_ALLOC };
  g_autoptr (GArray) calls = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GHashTable) tids = g_hash_table_new (g_direct_hash, g_direct_equal);
  gint64 host = 0;
  PfprofFinding *f;

  g_autoptr (GArray) times = g_array_new (FALSE, FALSE, sizeof (gint64));

  pfprof_rule_collect_calls (ctx, classes, 1, 0, calls);
  if (calls->len == 0 || calls->len < (guint) pfprof_rule_param (ctx, "min-count"))
    return;
  /* PyTorch's caching host allocator grows for a while after warm-up (on
   * the H200, ~40 ms cudaHostAlloc calls over the first quarter of the
   * steady state) and then stops: that is not pinning in the loop. */
  for (guint i = 0; i < calls->len; i++)
    g_array_append_val (times, api[g_array_index (calls, guint, i)].start_ns);
  if (pfprof_rule_step_coverage (ctx, (gint64 *) (void *) times->data, times->len)
      < pfprof_rule_param (ctx, "min-step-fraction"))
    return;
  f = pfprof_rule_finding_new (ctx);
  for (guint i = 0; i < calls->len; i++)
    {
      guint k = g_array_index (calls, guint, i);
      PfprofEvidence e = pfprof_rule_evidence (ctx, PFPROF_TABLE_API_CALLS, k, api[k].start_ns,
                                               api[k].end_ns, PFPROF_NONE, PFPROF_NONE, api[k].tid);

      host += api[k].end_ns - api[k].start_ns;
      g_hash_table_add (tids, GUINT_TO_POINTER (api[k].tid));
      pfprof_finding_add_evidence (f, &e, PFPROF_RULE_MAX_EVIDENCE);
    }
  f->count = calls->len;
  f->time_ns = host;
  f->est_savings_ns = pfprof_rule_per_step (ctx, host);
  {
    g_autofree char *s_host = pfprof_format_ns (host);
    g_autofree char *s_step = pfprof_format_ns (pfprof_rule_per_step (ctx, host));
    g_autofree char *s_per = pfprof_format_double ((double) calls->len / pfprof_loop_per_step_divisor (loop), 1);
    const PfprofApiRecord *first = &api[g_array_index (calls, guint, 0)];

    f->title = g_strdup_printf ("%u page-locked host allocations after warm-up", calls->len);
    f->message = g_strdup_printf (
      "%u page-locked allocations or registrations (%s, ...) ran after warm-up on %u thread(s), "
      "%s per mean step: %s in all, %s per mean step. Pinning is slow and can stall the thread that "
      "delivers batches.",
      calls->len, pfprof_display_name (ix->trace, first->name_id), g_hash_table_size (tids), s_per,
      s_host, s_step);
  }
  f->fix = g_strdup (fix);
  f->buckets = PFPROF_LEDGER_BIT (PFPROF_LEDGER_ALLOC) | PFPROF_LEDGER_BIT (PFPROF_LEDGER_DATA_WAIT)
               | PFPROF_LEDGER_BIT (PFPROF_LEDGER_HOST_BOUND);
  pfprof_rule_emit (ctx, f);
}

const PfprofRule pfprof_rule_pinned_alloc_in_loop = {
  "pinned-alloc-in-loop",
  PFPROF_SEVERITY_WARNING,
  "Page-locked (pinned) host allocations after warm-up",
  params,
  G_N_ELEMENTS (params),
  run,
  PFPROF_RULE_SCOPE_TRACE,
};
