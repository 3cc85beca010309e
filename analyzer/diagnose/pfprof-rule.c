/* SPDX-License-Identifier: MIT */
/* pfprof-rule.c: running a rule and the toolkit of its run function
 * (pfprof-rule.h). */
#include "pfprof-rule.h"

#include <string.h>

#include "pfprof-format.h"
#include "pfprof-lower-bound.h"

double
pfprof_rule_param (const PfprofRuleContext *ctx, const char *key)
{
  g_return_val_if_fail (ctx != NULL, 0);
  g_return_val_if_fail (key != NULL, 0);
  return pfprof_analysis_options_get_param (ctx->options, ctx->rule, key);
}

PfprofFinding *
pfprof_rule_finding_new (const PfprofRuleContext *ctx)
{
  PfprofFinding *f;

  g_return_val_if_fail (ctx != NULL, NULL);
  f = g_new0 (PfprofFinding, 1);
  f->rule = ctx->rule->id;
  f->severity = pfprof_analysis_options_rule_severity (ctx->options, ctx->rule);
  /* Without a trace (a run-scoped rule) the caller names the rank's pid
   * and index. */
  if (ctx->ix != NULL)
    {
      f->pid = ctx->ix->trace->pid;
      f->trace_index = ctx->ix->trace_index;
    }
  f->phase = ctx->loop != NULL ? ctx->loop->judge : pfprof_analysis_options_get_judge (ctx->options);
  f->device_id = PFPROF_NONE;
  f->stream_id = PFPROF_NONE;
  f->first_ns = G_MAXINT64;
  f->last_ns = G_MININT64;
  f->evidence = g_array_new (FALSE, TRUE, sizeof (PfprofEvidence));
  f->evidence_keys = g_array_new (FALSE, FALSE, sizeof (guint64));
  if (pfprof_analysis_options_get_keep_occurrences (ctx->options))
    f->occurrences = g_array_new (FALSE, FALSE, sizeof (PfprofEvidence));
  return f;
}

void
pfprof_rule_run (const PfprofRule *rule, PfprofAnalysis *analysis, const PfprofAnalysisOptions *options,
                 PfprofTraceIndex *ix, PfprofLoop *loop)
{
  PfprofRuleContext ctx;

  g_return_if_fail (rule != NULL);
  g_return_if_fail (analysis != NULL);
  g_return_if_fail ((ix == NULL) == (loop == NULL));
  ctx = (PfprofRuleContext) { analysis, options, rule, ix, loop, NULL };
  if (!pfprof_analysis_options_rule_enabled (options, rule)
      || (rule->scope == PFPROF_RULE_SCOPE_RUN) != (ix == NULL))
    return;
  if (rule->scope != PFPROF_RULE_SCOPE_DEVICE)
    {
      rule->run (&ctx);
      return;
    }
  for (guint d = 0; d < ix->devices->len; d++)
    {
      ctx.device = &g_array_index (ix->devices, PfprofDeviceTimeline, d);
      rule->run (&ctx);
    }
}

void
pfprof_rule_emit (const PfprofRuleContext *ctx, PfprofFinding *f)
{
  g_return_if_fail (ctx != NULL);
  g_return_if_fail (f != NULL);
  if (f->first_ns == G_MAXINT64)
    f->first_ns = f->last_ns = 0;
  if (f->est_savings_ns < 0)
    f->est_savings_ns = 0;
  g_ptr_array_add (ctx->analysis->findings, f);
}

double
pfprof_rule_step_coverage (const PfprofRuleContext *ctx, const gint64 *times, guint n)
{
  const PfprofLoop *loop;
  guint n_steady;
  guint hit = 0, j = 0;

  g_return_val_if_fail (ctx != NULL && ctx->ix != NULL, 0.0);
  g_return_val_if_fail (times != NULL || n == 0, 0.0);
  loop = ctx->loop;
  n_steady = pfprof_loop_n_steady_steps (loop);

  if (n == 0)
    return 0.0;
  if (n_steady == 0)
    return 1.0;
  for (guint s = loop->first_step; s < loop->first_step + loop->n_steps; s++)
    {
      const PfprofStep *st = &g_array_index (ctx->analysis->steps, PfprofStep, s);

      if (!pfprof_step_is_steady (st))
        continue;
      while (j < n && times[j] < st->start_ns)
        j++;
      if (j < n && times[j] < st->end_ns)
        hit++;
    }
  return (double) hit / (double) n_steady;
}

static int
compare_guint (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;

  return (x > y) - (x < y);
}

void
pfprof_rule_collect_calls (const PfprofRuleContext *ctx, const PfprofApiClass *classes,
                           guint n_classes, guint32 tid, GArray *out)
{
  const PfprofTraceIndex *ix;
  const PfprofLoop *loop;
  const PfprofApiRecord *api;
  g_autoptr (GArray) all = NULL;
  g_autoptr (GHashTable) open_until = NULL;

  g_return_if_fail (ctx != NULL && ctx->ix != NULL);
  g_return_if_fail (classes != NULL || n_classes == 0);
  g_return_if_fail (out != NULL);
  ix = ctx->ix;
  loop = ctx->loop;
  api = pfprof_trace_api_calls (ix->trace);
  all = g_array_new (FALSE, FALSE, sizeof (guint));
  open_until = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);

  for (guint c = 0; c < n_classes; c++)
    {
      GArray *l = ix->api_of_class[classes[c]];

      g_array_append_vals (all, l->data, l->len);
    }
  /* The API table is sorted by start, so index order is time order. */
  g_array_sort (all, compare_guint);
  for (guint i = 0; i < all->len; i++)
    {
      guint k = g_array_index (all, guint, i);
      const PfprofApiRecord *r = &api[k];
      gint64 *until;

      if (!pfprof_loop_in_steady (loop, r->start_ns) || (tid != 0 && r->tid != tid))
        continue;
      until = g_hash_table_lookup (open_until, GUINT_TO_POINTER (r->tid));
      if (until != NULL && r->start_ns < *until)
        continue; /* nested in the call we kept */
      if (until == NULL)
        {
          until = g_new (gint64, 1);
          g_hash_table_insert (open_until, GUINT_TO_POINTER (r->tid), until);
        }
      *until = r->end_ns;
      g_array_append_val (out, k);
    }
}

gint64 *
pfprof_rule_step_starts (const PfprofRuleContext *ctx)
{
  const PfprofLoop *loop;
  guint n;
  gint64 *out;
  guint k = 0;

  g_return_val_if_fail (ctx != NULL && ctx->ix != NULL, NULL);
  loop = ctx->loop;
  n = pfprof_loop_n_steady_steps (loop);
  out = g_new (gint64, n + 1);

  /* Evaluation batches between epochs are not steady steps. */
  for (guint s = loop->first_step; s < loop->first_step + loop->n_steps && k < n; s++)
    {
      const PfprofStep *st = &g_array_index (ctx->analysis->steps, PfprofStep, s);

      if (pfprof_step_is_steady (st))
        out[k++] = st->start_ns;
    }
  return out;
}

gint64
pfprof_rule_per_step (const PfprofRuleContext *ctx, gint64 total)
{
  g_return_val_if_fail (ctx != NULL && ctx->ix != NULL, 0);
  return (gint64) ((double) total / pfprof_loop_per_step_divisor (ctx->loop));
}

gint64
pfprof_rule_mean_step (const PfprofRuleContext *ctx)
{
  PfprofLedgerSummary l;

  g_return_val_if_fail (ctx != NULL && ctx->ix != NULL && ctx->analysis != NULL, 0);
  pfprof_ledger_summarize (ctx->analysis->steps, ctx->ix->trace_index, &l);
  return l.n_steps > 0 ? l.mean_step_ns : pfprof_rule_per_step (ctx, pfprof_loop_steady_length (ctx->loop));
}

char *
pfprof_rule_min_bytes_phrase (guint64 min_bytes)
{
  g_autofree char *size = NULL;

  if (min_bytes == 0)
    return g_strdup ("");
  size = pfprof_format_bytes (min_bytes);
  return g_strconcat (" \u2265 ", size, NULL);
}

double
pfprof_rule_share (const PfprofRuleContext *ctx, gint64 ns)
{
  gint64 len;

  g_return_val_if_fail (ctx != NULL && ctx->ix != NULL, 0.0);
  len = pfprof_loop_steady_length (ctx->loop);

  return len > 0 ? 100.0 * (double) ns / (double) len : 0.0;
}

PfprofEvidence
pfprof_rule_evidence (const PfprofRuleContext *ctx, PfprofTableId table, guint index, gint64 start,
                      gint64 end, guint32 device_id, guint32 stream_id, guint32 tid)
{
  PfprofEvidence e = { 0 };

  g_return_val_if_fail (ctx != NULL && ctx->ix != NULL, e);
  e.trace_index = ctx->ix->trace_index;
  e.table = table;
  e.index = index;
  e.start_ns = start;
  e.end_ns = end;
  e.device_id = device_id;
  e.stream_id = stream_id;
  e.tid = tid;
  e.cost_ns = MAX (end - start, 0);
  return e;
}

void
pfprof_rule_add_memcpy_evidence (const PfprofRuleContext *ctx, PfprofFinding *finding,
                                 const GArray *hits)
{
  const PfprofMemcpyRecord *m;

  g_return_if_fail (ctx != NULL && ctx->ix != NULL);
  g_return_if_fail (finding != NULL);
  g_return_if_fail (hits != NULL);
  m = pfprof_trace_memcpys (ctx->ix->trace);

  for (guint i = 0; i < hits->len; i++)
    {
      guint k = g_array_index (hits, guint, i);
      PfprofEvidence e = pfprof_rule_evidence (ctx, PFPROF_TABLE_MEMCPYS, k, m[k].start_ns,
                                               m[k].end_ns, m[k].device_id, m[k].stream_id, 0);

      pfprof_finding_add_evidence (finding, &e, PFPROF_RULE_MAX_EVIDENCE);
    }
}

gboolean
pfprof_rule_has_input_copies (const PfprofRuleContext *ctx, const PfprofDeviceTimeline *dev)
{
  const PfprofTraceIndex *ix;
  const PfprofLoop *loop;
  const PfprofMemcpyRecord *m;
  guint n;
  g_autoptr (GArray) starts = NULL;

  g_return_val_if_fail (ctx != NULL && ctx->ix != NULL && dev != NULL, FALSE);
  ix = ctx->ix;
  loop = ctx->loop;
  m = pfprof_trace_memcpys (ix->trace);
  n = pfprof_trace_n (ix->trace, PFPROF_TABLE_MEMCPYS);
  starts = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (guint i = 0; i < n; i++)
    if (m[i].copy_kind == PFPROF_COPY_KIND_HTOD && m[i].device_id == dev->device_id
        && pfprof_loop_in_steady (loop, m[i].start_ns))
      g_array_append_val (starts, m[i].start_ns);
  if (starts->len < 2)
    return FALSE;
  return pfprof_rule_step_coverage (ctx, (const gint64 *) starts->data, starts->len) >= 0.5;
}
