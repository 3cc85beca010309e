/* SPDX-License-Identifier: MIT */
/* pfprof-analysis.c: pfprof_analysis_run() and the result's accessors.
 *
 * Order of work: index each trace (joins, interval sets), find its steps
 * and warm-up, measure each device over the steady window, run the
 * enabled rules on it; then order steps by time and findings by
 * estimated savings.
 */
#include "pfprof-analysis.h"

#include <math.h>
#include <string.h>

#include "pfprof-call-sites.h"
#include "pfprof-display-name.h"
#include "pfprof-format.h"
#include "pfprof-kind-names.h"
#include "pfprof-lower-bound.h"
#include "pfprof-quantile.h"
#include "pfprof-rules.h"
#include "pfprof-step-ledger.h"
#include "pfprof-steps.h"
#include "pfprof-trace-index.h"

static void
trace_summary_clear (gpointer p)
{
  PfprofTraceSummary *s = p;

  g_free (s->step_name);
}

/* Per-device figures over the steady window of @ix. */
static void
summarize_devices (PfprofAnalysis *a, const PfprofTraceIndex *ix, const PfprofLoop *loop)
{
  const PfprofTrace *t = ix->trace;
  const PfprofMemcpyRecord *m = pfprof_trace_memcpys (t);
  const guint *dev_m;    /* the device's copies */
  guint dev_m_n;
  gint64 lo = loop->steady_start, hi = loop->steady_end;

  for (guint d = 0; d < ix->devices->len; d++)
    {
      const PfprofDeviceTimeline *dt = &g_array_index (ix->devices, PfprofDeviceTimeline, d);
      PfprofDeviceSummary s = { 0 };
      gint64 c, ck;

      s.trace_index = ix->trace_index;
      s.device_id = dt->device_id;
      s.compute_stream = dt->compute_stream;
      s.steady_start_ns = lo;
      s.steady_end_ns = hi;
      s.steady_ns = pfprof_loop_steady_length (loop);
      s.kernel_ns = pfprof_loop_steady_length_of (loop, dt->kernels);
      s.comm_ns = pfprof_loop_steady_length_of (loop, dt->comm);
      c = pfprof_loop_steady_length_of (loop, dt->htod);
      ck = pfprof_loop_steady_length_of (loop, dt->htod_kernels);
      s.htod_ns = c;
      s.overlap_fraction = c > 0 ? (double) ck / (double) c : NAN;
      s.exposed_copy_ns = c - ck;
      s.idle_ns = MAX (0, s.steady_ns - pfprof_loop_steady_length_of (loop, dt->busy));
      s.sync_wait_ns = pfprof_loop_steady_length_of (loop, ix->sync_wait);
      s.data_wait_ns = pfprof_loop_steady_length_of (loop, ix->data_wait);
      {
        g_autoptr (PfprofIntervalSet) wb = pfprof_interval_set_intersect (ix->data_wait, dt->busy);

        s.idle_data_wait_ns = s.data_wait_ns - pfprof_loop_steady_length_of (loop, wb);
      }
      dev_m = pfprof_device_timeline_records (dt, PFPROF_TABLE_MEMCPYS, &dev_m_n);
      for (guint r = 0; r < dev_m_n; r++)
        {
          guint i = dev_m[r];
          gint64 dur = m[i].end_ns - m[i].start_ns;

          if (m[i].device_id != dt->device_id || !pfprof_loop_in_steady (loop, m[i].start_ns))
            continue;
          if (m[i].copy_kind == PFPROF_COPY_KIND_HTOD)
            {
              s.htod_bytes += m[i].bytes;
              s.htod_count++;
              if (m[i].src_kind == PFPROF_MEMORY_KIND_PAGEABLE)
                {
                  s.htod_pageable_bytes += m[i].bytes;
                  s.htod_pageable_ns += dur;
                }
              else if (m[i].src_kind == PFPROF_MEMORY_KIND_PINNED)
                {
                  s.htod_pinned_bytes += m[i].bytes;
                  s.htod_pinned_ns += dur;
                }
            }
          else if (m[i].copy_kind == PFPROF_COPY_KIND_DTOH)
            {
              s.dtoh_bytes += m[i].bytes;
              s.dtoh_ns += dur;
            }
        }
      g_array_append_val (a->devices, s);
    }
}

static int
compare_savings (gconstpointer pa, gconstpointer pb)
{
  const PfprofFinding *x = *(PfprofFinding *const *) pa;
  const PfprofFinding *y = *(PfprofFinding *const *) pb;

  return (x->est_savings_ns < y->est_savings_ns) - (x->est_savings_ns > y->est_savings_ns);
}

/* Holds the findings about trace @ts (findings[@first...]) to the ledger: no
 * saving exceeds its buckets' mean, each predicts the mean step with its fix
 * alone, a saving under the materiality threshold makes the finding info;
 * and the prediction with every fix, where findings that draw on the same
 * bucket share what it holds (largest saving first). */
static void
judge_savings (PfprofAnalysis *a, PfprofTraceSummary *ts, guint first, const PfprofTraceIndex *ix, const PfprofLoop *loop,
               const PfprofAnalysisOptions *options)
{
  const PfprofLedgerSummary *l = &ts->ledger;
  double share = pfprof_analysis_options_get_min_saving_share (options);
  gint64 left[PFPROF_LEDGER_N_BUCKETS], taken = 0;
  gint64 basis = l->n_steps > 0 ? l->mean_step_ns : pfprof_loop_steady_length (loop);
  g_autoptr (GPtrArray) mine = g_ptr_array_new ();
  gboolean input_bound = FALSE;

  memcpy (left, l->mean_ns, sizeof left);
  for (guint i = first; i < a->findings->len; i++)
    {
      PfprofFinding *f = g_ptr_array_index (a->findings, i);

      if (f->trace_index == ts->trace_index && f->buckets != 0 && l->n_steps > 0)
        f->est_savings_ns = MIN (f->est_savings_ns, pfprof_ledger_sum (l->mean_ns, f->buckets));
      if (f->trace_index == ts->trace_index && basis > 0 && l->n_steps > 0
          && g_strcmp0 (f->rule, "input-starved") == 0
          && (double) f->est_savings_ns >= share * (double) basis)
        input_bound = TRUE;
    }
  for (guint i = first; i < a->findings->len; i++)
    {
      PfprofFinding *f = g_ptr_array_index (a->findings, i);

      if (f->trace_index != ts->trace_index)
        continue;
      /* A loop starved of input is paced by the DataLoader: what a fix
       * elsewhere frees, the loop spends waiting for the next batch, up to
       * the wait it has now. Alone such a fix saves only what exceeds that
       * wait; the rest once input keeps up. */
      if (input_bound && !(f->buckets & PFPROF_LEDGER_BIT (PFPROF_LEDGER_DATA_WAIT))
          && f->est_savings_ns > 0)
        {
          gint64 alone = MAX (0, f->est_savings_ns - l->mean_ns[PFPROF_LEDGER_DATA_WAIT]);

          if (alone < f->est_savings_ns)
            {
              g_autofree char *s_wait = pfprof_format_ns (l->mean_ns[PFPROF_LEDGER_DATA_WAIT]);
              g_autofree char *s_alone = pfprof_format_ns (alone);
              g_autofree char *s_after = pfprof_format_ns (f->est_savings_ns);
              g_autofree char *msg = f->message;

              f->after_input_ns = f->est_savings_ns;
              f->est_savings_ns = alone;
              f->message = g_strdup_printf ("%s The GPU waits %s per mean step for the DataLoader: "
                                            "what this fix frees, the loop would spend waiting for "
                                            "the next batch, so alone it saves %s per mean step; "
                                            "once input keeps up, %s.",
                                            msg != NULL ? msg : "", s_wait, s_alone, s_after);
            }
        }
      f->predicted_step_ns = l->n_steps > 0 ? MAX (0, l->mean_step_ns - f->est_savings_ns) : 0;
      if (basis > 0 && (double) f->est_savings_ns < share * (double) basis)
        {
          f->severity = PFPROF_SEVERITY_INFO;
          f->immaterial = TRUE;
        }
      else if (f->severity == PFPROF_SEVERITY_INFO && basis > 0
               && (double) f->est_savings_ns >= 10 * share * (double) basis)
        {
          /* Severity follows the saving: a rule that is info by default
           * (small-transfers) is a warning when it saves a tenth of the
           * step, unless the config chose its severity. */
          const PfprofRule *rule = pfprof_rules_lookup (f->rule);

          if (rule != NULL && !pfprof_analysis_options_severity_is_set (options, rule))
            f->severity = PFPROF_SEVERITY_WARNING;
        }
      g_ptr_array_add (mine, f);
    }
  g_ptr_array_sort (mine, compare_savings);
  for (guint i = 0; i < mine->len; i++)
    {
      PfprofFinding *f = g_ptr_array_index (mine, i);
      /* Every fix includes the input's: what a fix saves once input
       * keeps up. */
      gint64 want = f->after_input_ns > 0 ? f->after_input_ns : f->est_savings_ns;

      if (f->buckets == 0)
        {
          taken += want;
          continue;
        }
      for (guint b = 0; b < PFPROF_LEDGER_N_BUCKETS && want > 0; b++)
        if (f->buckets & PFPROF_LEDGER_BIT (b))
          {
            gint64 t = MIN (want, left[b]);

            left[b] -= t;
            want -= t;
            taken += t;
          }
    }
  ts->predicted_step_ns = l->n_steps > 0 ? MAX (0, l->mean_step_ns - taken) : 0;
}

static int
compare_steps (gconstpointer pa, gconstpointer pb)
{
  const PfprofStep *x = pa, *y = pb;

  if (x->start_ns != y->start_ns)
    return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
  return (x->trace_index > y->trace_index) - (x->trace_index < y->trace_index);
}

static guint
rule_rank (const char *id)
{
  guint n;
  const PfprofRule *const *rules = pfprof_rules_get (&n);

  for (guint i = 0; i < n; i++)
    if (strcmp (rules[i]->id, id) == 0)
      return i;
  return n;
}

static int
compare_findings (gconstpointer pa, gconstpointer pb)
{
  const PfprofFinding *x = *(PfprofFinding *const *) pa;
  const PfprofFinding *y = *(PfprofFinding *const *) pb;
  guint rx, ry;

  if (x->est_savings_ns != y->est_savings_ns)
    return x->est_savings_ns > y->est_savings_ns ? -1 : 1;
  if (x->severity != y->severity)
    return x->severity > y->severity ? -1 : 1;
  rx = rule_rank (x->rule);
  ry = rule_rank (y->rule);
  if (rx != ry)
    return rx < ry ? -1 : 1;
  return (x->first_ns > y->first_ns) - (x->first_ns < y->first_ns);
}

/* Severity follows the saving: listed largest saving first (@a's
 * findings, sorted), a material finding is at least as severe as any
 * material one that saves less, unless the config chose its rule's
 * severity. Without this a rule's default would put an error saving 1%
 * of the step below a warning saving 60% of it. */
static void
order_severities (GPtrArray *findings, const PfprofAnalysisOptions *options)
{
  PfprofSeverity floor = PFPROF_SEVERITY_INFO;

  for (guint i = findings->len; i-- > 0;)
    {
      PfprofFinding *f = g_ptr_array_index (findings, i);
      const PfprofRule *rule = pfprof_rules_lookup (f->rule);

      if (f->immaterial)
        continue;
      if (f->severity < floor && rule != NULL && !pfprof_analysis_options_severity_is_set (options, rule))
        f->severity = floor;
      floor = MAX (floor, f->severity);
    }
}

static void
overall_steps (PfprofAnalysis *a)
{
  g_autofree gint64 *d = g_new (gint64, a->steps->len + 1);
  g_autofree gint64 *h = g_new (gint64, a->steps->len + 1);
  guint n = 0;

  for (guint i = 0; i < a->steps->len; i++)
    {
      PfprofStep *s = &g_array_index (a->steps, PfprofStep, i);

      if (pfprof_step_is_steady (s))
        {
          h[n] = s->end_ns - s->start_ns;
          d[n++] = pfprof_step_length (s);
        }
    }
  a->n_steady_steps = n;
  a->step_median_ns = pfprof_step_median (d, n); /* sorts d */
  a->step_p10_ns = pfprof_quantile_sorted_i64 (d, n, 0.10);
  a->step_p90_ns = pfprof_quantile_sorted_i64 (d, n, 0.90);
  a->host_step_median_ns = pfprof_step_median (h, n);
}

/* Adds (@sign 1) or takes away (-1) the ledger of [@start, @end) to
 * @out. */
static void
phase_ledger_add (const PfprofLoop *loop, gint64 start, gint64 end, gint64 *out, int sign)
{
  gint64 part[PFPROF_LEDGER_N_BUCKETS] = { 0 };

  if (end <= start)
    return;
  pfprof_step_ledger_fill (loop->ledger, start, end, part);
  for (guint b = 0; b < PFPROF_LEDGER_N_BUCKETS; b++)
    out[b] = MAX (0, out[b] + sign * part[b]);
}

static void
summarize_phases (const PfprofAnalysis *a, const PfprofTraceIndex *ix, const PfprofLoop *loop, PfprofPhases *p)
{
  gint64 eval_before = 0, eval_in_loop = 0, eval_after = 0;

  memset (p, 0, sizeof *p);
  p->judge = loop->judge;
  p->n_training_steps = loop->n_training_steps;
  p->has_marks = loop->has_training_marks;
  if (!p->has_marks || loop->n_training_steps == 0)
    return;
  p->n_eval_steps = loop->n_eval_steps;
  /* What each phase's time went to, in the ledger's buckets: start-up and
   * after the loop are their spans less the evaluation batches in them
   * (the buckets add over disjoint windows). */
  phase_ledger_add (loop, ix->trace->start_ns, loop->loop_start_ns, p->startup_ledger_ns, 1);
  phase_ledger_add (loop, loop->loop_end_ns, ix->trace->end_ns, p->after_ledger_ns, 1);
  for (guint i = loop->first_step; i < loop->first_step + loop->n_steps; i++)
    {
      const PfprofStep *s = &g_array_index (a->steps, PfprofStep, i);
      gint64 d = s->end_ns - s->start_ns;

      if (s->phase != PFPROF_PHASE_EVAL)
        continue;
      p->eval_ns += d;
      p->eval_compute_ns += s->compute_ns;
      p->eval_data_wait_ns += s->data_wait_ns;
      phase_ledger_add (loop, s->start_ns, s->end_ns, p->eval_ledger_ns, 1);
      if (s->start_ns >= loop->loop_end_ns)
        {
          eval_after += d;
          phase_ledger_add (loop, s->start_ns, s->end_ns, p->after_ledger_ns, -1);
        }
      else if (s->start_ns >= loop->loop_start_ns)
        eval_in_loop += d;
      else
        {
          eval_before += d;
          phase_ledger_add (loop, s->start_ns, MIN (s->end_ns, loop->loop_start_ns),
                            p->startup_ledger_ns, -1);
        }
    }
  p->startup_ns = MAX (0, loop->loop_start_ns - ix->trace->start_ns - eval_before);
  p->training_ns = MAX (0, loop->loop_end_ns - loop->loop_start_ns - eval_in_loop);
  p->after_loop_ns = MAX (0, ix->trace->end_ns - loop->loop_end_ns - eval_after);
}

/* Judges the evaluation batches of trace @ts on their own as well, when
 * the training steps are the ones judged and the batches take
 * min-phase-share of its run or more: the trace's and its devices' rules
 * run again over the same loop with the evaluation batches judged
 * (pfprof_steps_judge, as --phase eval judges them), their savings are
 * held to those batches' ledger, and their findings go to
 * phase_findings; then the training steps are judged again, as every
 * figure of the report is theirs. */
static void
judge_eval_phase (PfprofAnalysis *a, PfprofTraceSummary *ts, PfprofTraceIndex *ix, PfprofLoop *loop,
                  const PfprofAnalysisOptions *options)
{
  const PfprofPhases *p = &ts->phases;
  gint64 span = ix->trace->end_ns - ix->trace->start_ns;
  guint first = a->findings->len, n_rules;
  const PfprofRule *const *rules = pfprof_rules_get (&n_rules);
  PfprofTraceSummary eval = { 0 };
  guint64 n_bad_sites = 0;
  guint n_withheld = 0;

  if (loop->judge != PFPROF_LOOP_JUDGE_TRAINING || p->n_eval_steps == 0 || span <= 0
      || (double) p->eval_ns < pfprof_analysis_options_get_min_phase_share (options) * (double) span)
    return;
  pfprof_steps_judge (loop, PFPROF_LOOP_JUDGE_EVAL, a->steps);
  if (pfprof_loop_n_steady_steps (loop) > 0)
    {
      for (guint r = 0; r < n_rules; r++)
        pfprof_rule_run (rules[r], a, options, ix, loop);
      /* Its sites were counted with the training findings'. */
      pfprof_call_sites_attach (ix, loop, a->findings, first,
                                pfprof_analysis_options_get_source_lines (options), &n_bad_sites, &n_withheld);
      eval.trace_index = ts->trace_index;
      pfprof_ledger_summarize (a->steps, ts->trace_index, &eval.ledger);
      judge_savings (a, &eval, first, ix, loop, options);
      ts->eval_judged = TRUE;
      ts->eval_ledger = eval.ledger;
      ts->eval_predicted_ns = eval.predicted_step_ns;
      while (a->findings->len > first)
        g_ptr_array_add (a->phase_findings, g_ptr_array_steal_index (a->findings, first));
    }
  pfprof_steps_judge (loop, PFPROF_LOOP_JUDGE_TRAINING, a->steps);
}

PfprofAnalysis *
pfprof_analysis_run (const PfprofRun *run, const PfprofAnalysisOptions *options)
{
  PfprofAnalysis *a;
  guint n_rules;
  PfprofLoopOptions loop_options;

  g_return_val_if_fail (run != NULL, NULL);

  const PfprofRule *const *rules = pfprof_rules_get (&n_rules);

  loop_options.step_pattern = pfprof_analysis_options_get_step_pattern (options);
  loop_options.warmup_steps = pfprof_analysis_options_get_warmup_steps (options);
  loop_options.judge = pfprof_analysis_options_get_judge (options);
  a = g_new0 (PfprofAnalysis, 1);
  /* The reference count is no part of the run's contents, which stay
   * untouched. */
  a->run = pfprof_run_ref ((PfprofRun *) run);
  a->traces = pfprof_run_get_traces (run);
  a->devices = g_array_new (FALSE, TRUE, sizeof (PfprofDeviceSummary));
  /* Not cleared: the loop reserves room for all its steps at once and
   * writes each whole. */
  a->steps = g_array_new (FALSE, FALSE, sizeof (PfprofStep));
  a->findings = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_finding_free);
  a->phase_findings = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_finding_free);
  a->trace_summaries = g_array_new (FALSE, TRUE, sizeof (PfprofTraceSummary));
  g_array_set_clear_func (a->trace_summaries, trace_summary_clear);
  a->rules_run = g_ptr_array_new ();
  for (guint r = 0; r < n_rules; r++)
    if (pfprof_analysis_options_rule_enabled (options, rules[r]))
      g_ptr_array_add (a->rules_run, (gpointer) rules[r]->id);

  for (guint i = 0; i < a->traces->len; i++)
    {
      PfprofTraceIndex *ix = pfprof_trace_index_new (g_ptr_array_index (a->traces, i), i);
      PfprofTraceSummary ts = { 0 };
      guint first_finding = a->findings->len;
      PfprofLoop *loop = pfprof_loop_new (ix, &loop_options, a->steps);

      ts.n_out_of_range = pfprof_run_n_out_of_range (run, i);
      pfprof_ledger_summarize (a->steps, i, &ts.ledger);
      summarize_devices (a, ix, loop);
      for (guint r = 0; r < n_rules; r++)
        pfprof_rule_run (rules[r], a, options, ix, loop);
      pfprof_call_sites_attach (ix, loop, a->findings, first_finding,
                                pfprof_analysis_options_get_source_lines (options), &ts.n_bad_sites,
                                &ts.n_sources_withheld);
      ts.trace_index = i;
      ts.step_source = loop->step_source;
      ts.step_name = g_strdup (loop->step_name);
      ts.n_steps = loop->n_steps;
      ts.n_warmup_steps = loop->n_warmup_steps;
      ts.step_median_ns = loop->step_median_ns;
      ts.steady_start_ns = loop->steady_start;
      ts.steady_end_ns = loop->steady_end;
      ts.n_unrecorded_steps = loop->n_unrecorded_steps;
      ts.n_windows = ix->windows != NULL ? pfprof_interval_set_n (ix->windows) : 0;
      ts.n_api_ids_shared = ix->n_api_ids_shared;
      ts.main_tid = ix->main_tid;
      summarize_phases (a, ix, loop, &ts.phases);
      judge_savings (a, &ts, first_finding, ix, loop, options);
      judge_eval_phase (a, &ts, ix, loop, options);
      g_array_append_val (a->trace_summaries, ts);
      pfprof_loop_free (loop);
      pfprof_trace_index_free (ix);
    }
  /* Rules that compare the traces with one another, once every trace is
   * in. */
  for (guint r = 0; r < n_rules; r++)
    pfprof_rule_run (rules[r], a, options, NULL, NULL);
  g_array_sort (a->steps, compare_steps);
  overall_steps (a);
  pfprof_ledger_summarize (a->steps, G_MAXUINT, &a->ledger);
  g_ptr_array_sort (a->findings, compare_findings);
  order_severities (a->findings, options);
  g_ptr_array_sort (a->phase_findings, compare_findings);
  order_severities (a->phase_findings, options);
  return a;
}

void
pfprof_analysis_free (PfprofAnalysis *a)
{
  if (a == NULL)
    return;
  /* traces is the run's. */
  g_clear_pointer (&a->run, pfprof_run_unref);
  g_clear_pointer (&a->devices, g_array_unref);
  g_clear_pointer (&a->steps, g_array_unref);
  g_clear_pointer (&a->findings, g_ptr_array_unref);
  g_clear_pointer (&a->phase_findings, g_ptr_array_unref);
  g_clear_pointer (&a->trace_summaries, g_array_unref);
  g_clear_pointer (&a->rules_run, g_ptr_array_unref);
  g_clear_pointer (&a->ranks, g_array_unref);
  g_free (a);
}

gboolean
pfprof_analysis_fired_at (const PfprofAnalysis *a, PfprofSeverity severity)
{
  g_return_val_if_fail (a != NULL, FALSE);
  for (guint i = 0; i < a->findings->len; i++)
    if (((PfprofFinding *) g_ptr_array_index (a->findings, i))->severity >= severity)
      return TRUE;
  return FALSE;
}

GPtrArray *
pfprof_analysis_findings_of (const PfprofAnalysis *a, const char *rule_id)
{
  GPtrArray *out;

  g_return_val_if_fail (a != NULL, NULL);
  g_return_val_if_fail (rule_id != NULL, NULL);
  out = g_ptr_array_new ();

  for (guint i = 0; i < a->findings->len; i++)
    {
      PfprofFinding *f = g_ptr_array_index (a->findings, i);

      if (strcmp (f->rule, rule_id) == 0)
        g_ptr_array_add (out, f);
    }
  return out;
}

double
pfprof_evidence_share (const PfprofFinding *f, const PfprofEvidence *e)
{
  g_return_val_if_fail (f != NULL, 0.0);
  g_return_val_if_fail (e != NULL, 0.0);

  if (f->time_ns <= 0)
    return 0.0;
  return CLAMP ((double) e->cost_ns / (double) f->time_ns, 0.0, 1.0);
}

char *
pfprof_evidence_format_share (const PfprofFinding *f, const PfprofEvidence *e)
{
  g_return_val_if_fail (f != NULL, NULL);
  g_return_val_if_fail (e != NULL, NULL);

  double share = pfprof_evidence_share (f, e);
  g_autofree char *pct = pfprof_format_double (share * 100.0, share >= 0.1 ? 0 : 1);

  if (f->time_ns <= 0)
    return NULL;
  if (e->cost_ns != e->end_ns - e->start_ns)
    {
      g_autofree char *cost = pfprof_format_ns (e->cost_ns);

      return g_strdup_printf ("cost %s, %s%% of the finding's time", cost, pct);
    }
  return g_strdup_printf ("%s%% of the finding's time", pct);
}

gboolean
pfprof_evidence_name (const PfprofAnalysis *a, const PfprofEvidence *e, const char **shown,
                      const char **raw)
{
  PfprofTrace *t;
  guint32 id;

  g_return_val_if_fail (a != NULL, FALSE);
  g_return_val_if_fail (e != NULL, FALSE);
  g_return_val_if_fail (shown != NULL, FALSE);
  g_return_val_if_fail (raw != NULL, FALSE);

  if (e->trace_index >= a->traces->len)
    return FALSE;
  t = g_ptr_array_index (a->traces, e->trace_index);
  if ((guint) e->table >= PFPROF_N_TABLES || e->index >= pfprof_trace_n (t, e->table))
    return FALSE;
  switch (e->table)
    {
    case PFPROF_TABLE_KERNELS: id = pfprof_trace_kernels (t)[e->index].name_id; break;
    case PFPROF_TABLE_API_CALLS: id = pfprof_trace_api_calls (t)[e->index].name_id; break;
    case PFPROF_TABLE_NVTX: id = pfprof_trace_nvtx (t)[e->index].name_id; break;
    default: return FALSE;
    }
  *shown = pfprof_display_name (t, id);
  *raw = pfprof_trace_string (t, id);
  return TRUE;
}

static char *evidence_describe (const PfprofAnalysis *a, const PfprofEvidence *e);

/* The host thread and time of the call behind @e: the API call itself,
 * or the one that launched the copy or kernel (same correlation id). */
static gboolean
evidence_call (const PfprofTrace *t, const PfprofEvidence *e, guint32 *tid, gint64 *ts)
{
  const PfprofApiRecord *api = pfprof_trace_api_calls (t);
  guint32 corr = 0;

  if (e->table == PFPROF_TABLE_API_CALLS)
    {
      *tid = api[e->index].tid;
      *ts = api[e->index].start_ns;
      return TRUE;
    }
  if (e->table == PFPROF_TABLE_MEMCPYS)
    corr = pfprof_trace_memcpys (t)[e->index].correlation_id;
  else if (e->table == PFPROF_TABLE_KERNELS)
    corr = pfprof_trace_kernels (t)[e->index].correlation_id;
  else if (e->table == PFPROF_TABLE_MEMSETS)
    corr = pfprof_trace_memsets (t)[e->index].correlation_id;
  if (corr == 0)
    return FALSE;
  for (guint i = 0; i < pfprof_trace_n (t, PFPROF_TABLE_API_CALLS); i++)
    if (api[i].correlation_id == corr)
      {
        *tid = api[i].tid;
        *ts = api[i].start_ns;
        return TRUE;
      }
  return FALSE;
}

/* The program's innermost source frame (an NVTX range of domain
 * PFPROF_NVTX_DOMAIN_PYTHON, as importers of traces with Python stacks
 * write them) around the call behind @e, or NULL. */
typedef struct
{
  const PfprofNvtxRecord *nv;
  gint64 ts;
} NvtxAt;

static gboolean
nvtx_starts_by (gconstpointer data, guint i)
{
  const NvtxAt *a = data;

  return a->nv[i].start_ns <= a->ts;
}

static const char *
evidence_frame (const PfprofTrace *t, const PfprofEvidence *e)
{
  const PfprofNvtxRecord *nv = pfprof_trace_nvtx (t);
  guint n = pfprof_trace_n (t, PFPROF_TABLE_NVTX), lo = 0, hi = n;
  guint32 dom = PFPROF_NONE, tid = 0;
  gint64 ts = 0;

  if (n == 0 || !evidence_call (t, e, &tid, &ts))
    return NULL;
  for (guint i = 0; i < t->strings->len && dom == PFPROF_NONE; i++)
    if (g_strcmp0 (g_ptr_array_index (t->strings, i), PFPROF_NVTX_DOMAIN_PYTHON) == 0)
      dom = i;
  if (dom == PFPROF_NONE)
    return NULL;
  /* The last range starting at or before the call, then back: the first
   * frame of the thread that still covers it is the innermost. */
  lo = pfprof_lower_bound (lo, hi, nvtx_starts_by, &(NvtxAt) { nv, ts });
  for (guint i = lo, seen = 0; i > 0 && seen < 100000; i--, seen++)
    {
      const PfprofNvtxRecord *r = &nv[i - 1];

      if (r->domain_id == dom && r->tid == tid && r->end_ns >= ts)
        return pfprof_trace_string (t, r->name_id);
    }
  return NULL;
}

char *
pfprof_evidence_describe (const PfprofAnalysis *a, const PfprofEvidence *e)
{
  g_autofree char *what = NULL;
  const char *frame;
  const PfprofTrace *t;

  g_return_val_if_fail (a != NULL, NULL);
  g_return_val_if_fail (e != NULL, NULL);
  what = evidence_describe (a, e);
  if (e->trace_index >= a->traces->len)
    return g_steal_pointer (&what);
  t = g_ptr_array_index (a->traces, e->trace_index);
  if ((guint) e->table >= PFPROF_N_TABLES || e->index >= pfprof_trace_n (t, e->table))
    return g_steal_pointer (&what);
  frame = evidence_frame (t, e);
  if (frame == NULL)
    return g_steal_pointer (&what);
  return g_strdup_printf ("%s, from %s", what, frame);
}

static char *
evidence_describe (const PfprofAnalysis *a, const PfprofEvidence *e)
{
  const PfprofTrace *t;
  g_autofree char *dur = NULL;

  g_return_val_if_fail (a != NULL, NULL);
  g_return_val_if_fail (e != NULL, NULL);
  dur = pfprof_format_ns (e->end_ns - e->start_ns);
  if (e->trace_index >= a->traces->len)
    return g_strdup ("");
  t = g_ptr_array_index (a->traces, e->trace_index);
  if ((guint) e->table >= PFPROF_N_TABLES || e->index >= pfprof_trace_n (t, e->table))
    return g_strdup_printf ("GPU idle gap of %s", dur);
  switch (e->table)
    {
    case PFPROF_TABLE_KERNELS:
      {
        const PfprofKernelRecord *k = &pfprof_trace_kernels (t)[e->index];
        return g_strdup_printf ("kernel %s on stream %u, %s", pfprof_display_name (t, k->name_id),
                                k->stream_id, dur);
      }
    case PFPROF_TABLE_MEMCPYS:
      {
        const PfprofMemcpyRecord *m = &pfprof_trace_memcpys (t)[e->index];
        g_autofree char *bytes = pfprof_format_bytes (m->bytes);
        return g_strdup_printf ("%s copy of %s, %s to %s memory, %s, stream %u, %s",
                                pfprof_kind_names_copy (m->copy_kind), bytes, pfprof_kind_names_memory (m->src_kind),
                                pfprof_kind_names_memory (m->dst_kind),
                                (m->flags & PFPROF_MEMCPY_FLAG_ASYNC) ? "async" : "blocking",
                                m->stream_id, dur);
      }
    case PFPROF_TABLE_API_CALLS:
      {
        const PfprofApiRecord *c = &pfprof_trace_api_calls (t)[e->index];
        return g_strdup_printf ("%s on thread %u, %s%s", pfprof_display_name (t, c->name_id), c->tid,
                                dur, c->return_value == 600 ? " (not ready)" : "");
      }
    case PFPROF_TABLE_NVTX:
      {
        const PfprofNvtxRecord *r = &pfprof_trace_nvtx (t)[e->index];
        return g_strdup_printf ("NVTX range %s on thread %u, %s", pfprof_trace_string (t, r->name_id),
                                r->tid, dur);
      }
    case PFPROF_TABLE_SYNCS:
      {
        const PfprofSyncRecord *s = &pfprof_trace_syncs (t)[e->index];
        return g_strdup_printf ("synchronization type %u on stream %d, %s", s->type,
                                s->stream_id == PFPROF_NONE ? -1 : (int) s->stream_id, dur);
      }
    case PFPROF_TABLE_MEMORY:
      {
        const PfprofMemoryRecord *m = &pfprof_trace_memory (t)[e->index];
        g_autofree char *bytes = pfprof_format_bytes (m->bytes);
        return g_strdup_printf ("%s %s of %s memory", bytes,
                                m->operation == PFPROF_MEMORY_OP_RELEASE ? "release" : "allocation",
                                pfprof_kind_names_memory (m->memory_kind));
      }
    default:
      return g_strdup_printf ("%s event, %s", pfprof_trace_schema_table (e->table)->name, dur);
    }
}
