/* SPDX-License-Identifier: MIT */
/* pfprof-report.c: format dispatch and what every format shares. */
#include "pfprof-report.h"

#include <string.h>

#include "pfprof-analysis-options.h"
#include "pfprof-format.h"
#include "pfprof-quantile.h"
#include "pfprof-steps.h"

void
pfprof_report_options_init (PfprofReportOptions *o)
{
  g_return_if_fail (o != NULL);

  memset (o, 0, sizeof *o);
  o->format = PFPROF_REPORT_TEXT;
  o->fail_on = PFPROF_SEVERITY_WARNING;
  o->width = 80;
}

gboolean
pfprof_report_format_from_string (const char *s, PfprofReportFormat *out)
{
  g_return_val_if_fail (out != NULL, FALSE);

  static const struct
  {
    const char *name;
    PfprofReportFormat format;
  } names[] = {
    { "text", PFPROF_REPORT_TEXT },         { "json", PFPROF_REPORT_JSON },
    { "markdown", PFPROF_REPORT_MARKDOWN }, { "md", PFPROF_REPORT_MARKDOWN },
    { "junit", PFPROF_REPORT_JUNIT },       { "csv", PFPROF_REPORT_CSV },
    { "csv-steps", PFPROF_REPORT_CSV },     { "csv-findings", PFPROF_REPORT_CSV_FINDINGS },
  };

  for (guint i = 0; s != NULL && i < G_N_ELEMENTS (names); i++)
    if (strcmp (s, names[i].name) == 0)
      {
        *out = names[i].format;
        return TRUE;
      }
  return FALSE;
}

void
pfprof_report_render (const PfprofAnalysis *a, const PfprofReportOptions *o, GString *out)
{
  g_return_if_fail (a != NULL);
  g_return_if_fail (o != NULL);
  g_return_if_fail (out != NULL);

  switch (o->format)
    {
    case PFPROF_REPORT_JSON: pfprof_report_json (a, o, out); break;
    case PFPROF_REPORT_MARKDOWN: pfprof_report_markdown (a, o, out); break;
    case PFPROF_REPORT_JUNIT: pfprof_report_junit (a, o, out); break;
    case PFPROF_REPORT_CSV: pfprof_report_csv (a, o, out); break;
    case PFPROF_REPORT_CSV_FINDINGS: pfprof_report_csv_findings (a, o, out); break;
    case PFPROF_REPORT_TEXT:
    default: pfprof_report_text (a, o, out); break;
    }
}

double
pfprof_report_max_idle_fraction (const PfprofAnalysis *a)
{
  double best = 0;

  g_return_val_if_fail (a != NULL, 0.0);

  for (guint i = 0; i < a->devices->len; i++)
    {
      const PfprofDeviceSummary *d = &g_array_index (a->devices, PfprofDeviceSummary, i);
      gint64 len = d->steady_ns;

      /* A device that ran no kernel in the window (a copy or two to a
       * second GPU) is not the one the program waits on. */
      if (len > 0 && (d->kernel_ns > 0 || d->comm_ns > 0))
        best = MAX (best, (double) d->idle_ns / (double) len);
    }
  return best;
}

/* "The GPU", or with several traces the one the figure is for: "The GPU
 * of rank 1 (the most idle of 2 traces)". */
static char *
idle_gpu_name (const PfprofAnalysis *a, const PfprofDeviceSummary *d)
{
  const PfprofTrace *t;
  const char *rank;

  if (a->traces == NULL || a->traces->len < 2 || d->trace_index >= a->traces->len)
    return g_strdup ("The GPU");
  t = g_ptr_array_index (a->traces, d->trace_index);
  rank = pfprof_trace_meta (t, "rank");
  /* The rank is untrusted text: only a number is quoted. */
  if (rank != NULL && *rank != '\0' && strspn (rank, "0123456789") == strlen (rank) && strlen (rank) < 12)
    return g_strdup_printf ("The GPU of rank %s (the most idle of %u traces)", rank, a->traces->len);
  return g_strdup_printf ("The GPU of trace [%u] (the most idle of %u traces)", d->trace_index,
                          a->traces->len);
}

char *
pfprof_report_headline (const PfprofAnalysis *a)
{
  const PfprofDeviceSummary *worst = NULL;
  double idle = 0;
  gint64 len, host;
  g_autofree char *pct = NULL;
  g_autofree char *pct_wait = NULL;
  g_autofree char *pct_host = NULL;
  g_autofree char *gpu = NULL;

  g_return_val_if_fail (a != NULL, NULL);

  for (guint i = 0; i < a->devices->len; i++)
    {
      const PfprofDeviceSummary *d = &g_array_index (a->devices, PfprofDeviceSummary, i);
      gint64 l = d->steady_ns;

      if (l > 0 && (d->kernel_ns > 0 || d->comm_ns > 0) && (double) d->idle_ns / (double) l > idle)
        {
          idle = (double) d->idle_ns / (double) l;
          worst = d;
        }
    }
  if (worst == NULL || idle <= 0.5)
    return NULL;
  len = worst->steady_ns;
  host = MAX (0, worst->idle_ns - worst->idle_data_wait_ns);
  pct = pfprof_format_double (idle * 100.0, 0);
  pct_wait = pfprof_format_double (100.0 * (double) worst->idle_data_wait_ns / (double) len, 0);
  pct_host = pfprof_format_double (100.0 * (double) host / (double) len, 0);
  gpu = idle_gpu_name (a, worst);
  if (worst->idle_data_wait_ns >= host)
    return g_strdup_printf ("%s idled %s%% of the steady state, mostly (%s%% of the steady "
                            "state) while the training loop waited for the DataLoader: the input "
                            "pipeline is what limits this run, and copy/compute overlap is "
                            "secondary until it keeps up.",
                            gpu, pct, pct_wait);
  return g_strdup_printf ("%s idled %s%% of the steady state: %s%% while the training loop "
                          "waited for the DataLoader, and %s%% while the host was busy elsewhere "
                          "(Python, kernel launches, synchronization), so the GPU mostly waits for "
                          "the host rather than for input copies. Larger batches, fewer and "
                          "larger kernels (torch.compile, CUDA graphs) or mixed precision help "
                          "there; the findings below cover the input pipeline.",
                          gpu, pct, pct_wait, pct_host);
}

static gint64
median_of (const PfprofAnalysis *a, gsize offset)
{
  g_autofree gint64 *v = g_new (gint64, a->steps->len + 1);
  guint n = 0;

  for (guint i = 0; i < a->steps->len; i++)
    {
      const PfprofStep *s = &g_array_index (a->steps, PfprofStep, i);

      if (pfprof_step_is_steady (s))
        v[n++] = *(const gint64 *) (const void *) ((const char *) s + offset);
    }
  return pfprof_quantile_median_i64 (v, n);
}

PfprofStep
pfprof_report_median_step (const PfprofAnalysis *a)
{
  PfprofStep m = { 0 };

  g_return_val_if_fail (a != NULL, m);

  m.end_ns = a->step_median_ns;
  m.data_wait_ns = median_of (a, G_STRUCT_OFFSET (PfprofStep, data_wait_ns));
  m.copy_hidden_ns = median_of (a, G_STRUCT_OFFSET (PfprofStep, copy_hidden_ns));
  m.copy_exposed_ns = median_of (a, G_STRUCT_OFFSET (PfprofStep, copy_exposed_ns));
  m.compute_ns = median_of (a, G_STRUCT_OFFSET (PfprofStep, compute_ns));
  m.comm_ns = median_of (a, G_STRUCT_OFFSET (PfprofStep, comm_ns));
  m.sync_wait_ns = median_of (a, G_STRUCT_OFFSET (PfprofStep, sync_wait_ns));
  m.idle_ns = median_of (a, G_STRUCT_OFFSET (PfprofStep, idle_ns));
  return m;
}

char *
pfprof_report_phase_dominated (const gint64 *ledger, gint64 phase_ns)
{
  GString *out;
  gboolean used[PFPROF_LEDGER_N_BUCKETS] = { FALSE };

  g_return_val_if_fail (ledger != NULL, NULL);

  out = g_string_new (NULL);
  for (guint k = 0; k < 2; k++)
    {
      guint best = PFPROF_LEDGER_N_BUCKETS;

      for (guint b = 0; b < PFPROF_LEDGER_N_BUCKETS; b++)
        if (!used[b] && (best == PFPROF_LEDGER_N_BUCKETS || ledger[b] > ledger[best]))
          best = b;
      /* A fifth of the phase or more: what a reader would call most of it. */
      if (best == PFPROF_LEDGER_N_BUCKETS || ledger[best] <= 0 || ledger[best] * 5 < phase_ns)
        break;
      used[best] = TRUE;
      {
        g_autofree char *t = pfprof_format_ns (ledger[best]);

        g_string_append_printf (out, "%s%s %s", out->len ? ", " : "",
                                pfprof_ledger_bucket_label ((PfprofLedgerBucket) best), t);
      }
    }
  if (out->len == 0)
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  return g_string_free (out, FALSE);
}

/* "302.3 ms (1.1%; most of it compute 200.1 ms)". */
static char *
phase_figure (gint64 ns, gint64 span_ns, const gint64 *ledger)
{
  g_autofree char *most = pfprof_report_phase_dominated (ledger, ns);
  g_autofree char *figure = NULL, *share = NULL;

  if (most == NULL)
    return pfprof_report_figure_share (ns, span_ns);
  figure = pfprof_format_ns (ns);
  if (span_ns <= 0)
    return g_strdup_printf ("%s (most of it %s)", figure, most);
  share = pfprof_format_double ((double) ns / (double) span_ns * 100.0, 1);
  return g_strdup_printf ("%s (%s%%; most of it %s)", figure, share, most);
}

char *
pfprof_report_phases_phrase (const PfprofPhases *p, gint64 span_ns)
{
  g_return_val_if_fail (p != NULL, NULL);

  g_autofree char *startup = phase_figure (p->startup_ns, span_ns, p->startup_ledger_ns);
  g_autofree char *training = pfprof_report_figure_share (p->training_ns, span_ns);
  g_autofree char *eval = phase_figure (p->eval_ns, span_ns, p->eval_ledger_ns);
  g_autofree char *after = phase_figure (p->after_loop_ns, span_ns, p->after_ledger_ns);
  g_autofree char *compute = pfprof_format_ns (p->eval_compute_ns);
  g_autofree char *wait = pfprof_format_ns (p->eval_data_wait_ns);
  g_autofree char *eval_part = NULL;

  if (p->n_eval_steps > 0)
    eval_part = g_strdup_printf (", evaluation %s in %u batch%s (GPU computing %s of it, "
                                 "waiting for the DataLoader %s)",
                                 eval, p->n_eval_steps, p->n_eval_steps == 1 ? "" : "es", compute,
                                 wait);
  else
    eval_part = g_strdup (", no evaluation");
  return g_strdup_printf ("Phases: start-up %s, training %s in %u step%s%s, after the loop %s. "
                          "Steps, findings and predictions are %s.",
                          startup, training, p->n_training_steps,
                          p->n_training_steps == 1 ? "" : "s", eval_part, after,
                          p->judge == PFPROF_LOOP_JUDGE_EVAL  ? "the evaluation batches' (--phase eval)"
                          : p->judge == PFPROF_LOOP_JUDGE_ALL ? "every step's, training and evaluation "
                                                                "(--phase all)"
                                                              : "the training steps'");
}

guint
pfprof_report_n_shown (const PfprofAnalysis *a, const PfprofReportOptions *o)
{
  g_return_val_if_fail (a != NULL, 0);
  g_return_val_if_fail (o != NULL, 0);

  guint n = a->findings->len;

  return o->top > 0 ? MIN (n, o->top) : n;
}

const PfprofReportPart pfprof_report_parts[PFPROF_REPORT_N_PARTS] = {
  { "data_wait_ns", "data wait", G_STRUCT_OFFSET (PfprofStep, data_wait_ns) },
  { "copy_exposed_ns", "copy exposed", G_STRUCT_OFFSET (PfprofStep, copy_exposed_ns) },
  { "copy_hidden_ns", "copy hidden", G_STRUCT_OFFSET (PfprofStep, copy_hidden_ns) },
  { "compute_ns", "compute", G_STRUCT_OFFSET (PfprofStep, compute_ns) },
  { "sync_wait_ns", "sync wait", G_STRUCT_OFFSET (PfprofStep, sync_wait_ns) },
  { "idle_ns", "GPU idle", G_STRUCT_OFFSET (PfprofStep, idle_ns) },
};

char *
pfprof_report_figure_share (gint64 ns, gint64 window_ns)
{
  g_autofree char *figure = pfprof_format_ns (ns);
  g_autofree char *share = NULL;

  if (window_ns <= 0)
    return g_steal_pointer (&figure);
  share = pfprof_format_double ((double) ns / (double) window_ns * 100.0, 1);
  return g_strdup_printf ("%s (%s%%)", figure, share);
}

char *
pfprof_report_steps_phrase (const PfprofAnalysis *a)
{
  g_autofree char *med = NULL, *p10 = NULL, *p90 = NULL;

  g_return_val_if_fail (a != NULL, NULL);

  if (a->n_steady_steps == 0)
    return NULL;
  med = pfprof_format_ns (a->step_median_ns);
  p10 = pfprof_format_ns (a->step_p10_ns);
  p90 = pfprof_format_ns (a->step_p90_ns);
  return g_strdup_printf ("%u steps, %u after warm-up, median %s (p10 %s, p90 %s)", a->steps->len,
                          a->n_steady_steps, med, p10, p90);
}

gboolean
pfprof_report_host_runs_ahead (const PfprofAnalysis *a)
{
  g_return_val_if_fail (a != NULL, FALSE);

  /* More than a twentieth longer: on the samples the GPU side is within
   * 3.3% of the host's where the host waits for the GPU each step, and
   * 10% or more longer where it does not. */
  return a->n_steady_steps > 0 && a->host_step_median_ns > 0
         && a->step_median_ns * 20 > a->host_step_median_ns * 21;
}

char *
pfprof_report_host_ahead_phrase (const PfprofAnalysis *a)
{
  g_autofree char *host = NULL;

  g_return_val_if_fail (a != NULL, NULL);

  if (!pfprof_report_host_runs_ahead (a))
    return NULL;
  host = pfprof_format_ns (a->host_step_median_ns);
  return g_strdup_printf ("The host runs ahead of the GPU: its median step took %s, while every "
                          "step figure here is the GPU's side, from the first GPU work a step "
                          "launched to the next step's.",
                          host);
}

char *
pfprof_report_parts_phrase (const PfprofStep *step)
{
  g_return_val_if_fail (step != NULL, NULL);

  GString *s = g_string_new (NULL);

  for (guint i = 0; i < PFPROF_REPORT_N_PARTS; i++)
    {
      g_autofree char *v = pfprof_format_ns (G_STRUCT_MEMBER (gint64, step, pfprof_report_parts[i].offset));

      g_string_append_printf (s, "%s%s %s", i ? ", " : "", pfprof_report_parts[i].label, v);
    }
  return g_string_free (s, FALSE);
}

char *
pfprof_report_describe_cut (const PfprofTrace *trace)
{
  g_autofree char *span = NULL;

  g_return_val_if_fail (trace != NULL, NULL);

  if (!pfprof_trace_is_incomplete (trace))
    return NULL;
  if (pfprof_trace_n_events (trace) == 0)
    return g_strdup ("Incomplete trace: the recording was cut short (the process was killed, or "
                     "ended without running its exit handlers) before any event was committed.");
  span = pfprof_format_ns (trace->end_ns - trace->start_ns);
  return g_strdup_printf ("Incomplete trace: the recording was cut short (the process was killed, "
                          "or ended without running its exit handlers); what was committed ends "
                          "%s after its first event, and anything later is missing.", span);
}

GPtrArray *
pfprof_report_incomplete_notes (const PfprofAnalysis *a)
{
  g_return_val_if_fail (a != NULL, NULL);

  GPtrArray *notes = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; a->traces != NULL && i < a->traces->len; i++)
    {
      const PfprofTrace *t = g_ptr_array_index (a->traces, i);
      g_autofree char *cut = pfprof_report_describe_cut (t);
      g_autofree char *base = NULL;

      if (cut == NULL)
        continue;
      base = g_path_get_basename (t->path ? t->path : "-");
      g_ptr_array_add (notes, g_strdup_printf ("%s: %s", base, cut));
    }
  return notes;
}

char *
pfprof_report_sources_withheld_note (const PfprofAnalysis *a, guint trace_index)
{
  guint n = 0;

  g_return_val_if_fail (a != NULL, NULL);
  for (guint i = 0; a->trace_summaries != NULL && i < a->trace_summaries->len; i++)
    {
      const PfprofTraceSummary *ts = &g_array_index (a->trace_summaries, PfprofTraceSummary, i);

      if (trace_index == G_MAXUINT || ts->trace_index == trace_index)
        n += ts->n_sources_withheld;
    }
  if (n == 0)
    return NULL;
  return g_strdup_printf ("Source text not shown for %u file%s outside the folder pfprof runs in (or "
                          "not Python files): --source-lines=always shows it.",
                          n, n == 1 ? "" : "s");
}

char *
pfprof_report_saving_per (const PfprofFinding *f, const char *unit)
{
  g_return_val_if_fail (f != NULL, NULL);
  g_return_val_if_fail (unit != NULL, NULL);

  g_autofree char *s_save = pfprof_format_ns (f->est_savings_ns);
  gint64 before = f->predicted_step_ns + f->est_savings_ns;
  g_autofree char *s_after = NULL;
  g_autofree char *s_pct = NULL;

  if (f->predicted_step_ns <= 0 || before <= 0)
    return g_strdup_printf ("saves ~%s over the steady window", s_save);
  s_after = pfprof_format_ns (f->predicted_step_ns);
  s_pct = pfprof_format_double (100.0 * (double) f->est_savings_ns / (double) before, 1);
  if (f->after_input_ns > 0)
    {
      g_autofree char *s_input = pfprof_format_ns (f->after_input_ns);

      return g_strdup_printf ("saves ~%s per mean %s alone, while the loop waits for input (~%s once "
                              "input keeps up): fix \u2192 ~%s per mean %s (\u2212%s%%)",
                              s_save, unit, s_input, s_after, unit, s_pct);
    }
  return g_strdup_printf ("saves ~%s per mean %s: fix \u2192 ~%s per mean %s (\u2212%s%%)", s_save, unit,
                          s_after, unit, s_pct);
}

char *
pfprof_report_saving (const PfprofFinding *f)
{
  g_return_val_if_fail (f != NULL, NULL);
  return pfprof_report_saving_per (f, "step");
}

char *
pfprof_report_phase_saving (const PfprofAnalysis *a, const PfprofFinding *f)
{
  g_return_val_if_fail (a != NULL, NULL);
  g_return_val_if_fail (f != NULL, NULL);

  g_autofree char *per_batch = pfprof_report_saving_per (f, "evaluation batch");
  g_autofree char *total = NULL;
  guint n = 0;

  for (guint i = 0; a->trace_summaries != NULL && i < a->trace_summaries->len; i++)
    {
      const PfprofTraceSummary *ts = &g_array_index (a->trace_summaries, PfprofTraceSummary, i);

      if (ts->trace_index == f->trace_index && ts->eval_judged)
        n = ts->eval_ledger.n_steps;
    }
  if (n == 0 || f->predicted_step_ns <= 0)
    return g_steal_pointer (&per_batch);
  /* The mean batch times the batches: what the phase as recorded loses. */
  total = pfprof_format_ns (f->est_savings_ns * (gint64) n);
  return g_strdup_printf ("%s; ~%s over the phase's %u batches", per_batch, total, n);
}

GPtrArray *
pfprof_report_phase_findings (const PfprofAnalysis *a, guint trace_index)
{
  GPtrArray *out;

  g_return_val_if_fail (a != NULL, NULL);
  out = g_ptr_array_new ();
  for (guint i = 0; a->phase_findings != NULL && i < a->phase_findings->len; i++)
    {
      PfprofFinding *f = g_ptr_array_index (a->phase_findings, i);

      if (f->trace_index == trace_index)
        g_ptr_array_add (out, f);
    }
  return out;
}

guint
pfprof_report_n_phase_findings (const PfprofAnalysis *a, guint trace_index)
{
  guint n = 0;

  g_return_val_if_fail (a != NULL, 0);
  for (guint i = 0; a->phase_findings != NULL && i < a->phase_findings->len; i++)
    {
      const PfprofFinding *f = g_ptr_array_index (a->phase_findings, i);

      n += f->trace_index == trace_index && !f->immaterial;
    }
  return n;
}

char *
pfprof_report_eval_phase_heading (const PfprofAnalysis *a, const PfprofTraceSummary *ts)
{
  g_return_val_if_fail (a != NULL, NULL);
  g_return_val_if_fail (ts != NULL, NULL);

  const PfprofTrace *tr = ts->trace_index < a->traces->len ? g_ptr_array_index (a->traces, ts->trace_index) : NULL;
  gint64 span = tr != NULL ? tr->end_ns - tr->start_ns : 0;
  guint n = pfprof_report_n_phase_findings (a, ts->trace_index);
  g_autofree char *time = pfprof_format_ns (ts->phases.eval_ns);
  g_autofree char *share = pfprof_format_double (span > 0 ? 100.0 * (double) ts->phases.eval_ns / (double) span : 0.0, 1);
  g_autofree char *of_trace = a->traces->len > 1 ? g_strdup_printf (" of trace %u", ts->trace_index)
                                                 : g_strdup ("");

  return g_strdup_printf ("Evaluation phase%s (%s, %s%% of the run, %u batch%s): %u finding%s of its own",
                          of_trace, time, share, ts->phases.n_eval_steps,
                          ts->phases.n_eval_steps == 1 ? "" : "es", n, n == 1 ? "" : "s");
}

char *
pfprof_report_eval_phase_basis (const PfprofTraceSummary *ts)
{
  g_return_val_if_fail (ts != NULL, NULL);

  g_autofree char *share = pfprof_format_double (100.0 * PFPROF_DEFAULT_MIN_PHASE_SHARE, 0);
  g_autofree char *mean = pfprof_format_ns (ts->eval_ledger.mean_step_ns);
  g_autofree char *median = pfprof_format_ns (ts->eval_ledger.median_step_ns);
  g_autofree char *after = pfprof_format_ns (ts->eval_predicted_ns);
  g_autofree char *pct = NULL;
  GString *out = g_string_new (NULL);

  g_string_append_printf (out,
                          "Judged because evaluation takes at least min-phase-share of the run (by "
                          "default %s%%), over its %u batches as --phase eval judges them: a step in "
                          "these findings is one evaluation batch. Their savings are per mean "
                          "evaluation batch (%s; median %s), apart from the training figures above, "
                          "which they do not change.",
                          share, ts->eval_ledger.n_steps, mean, median);
  /* A mean far above the median is a few long batches, not a pace: the
   * first of a pass, whose loader starts its workers and whose first
   * forward pass sets up (autotuning for new shapes). */
  if (ts->eval_ledger.median_step_ns > 0 && ts->eval_ledger.mean_step_ns >= 2 * ts->eval_ledger.median_step_ns)
    {
      g_autofree char *times = pfprof_format_double ((double) ts->eval_ledger.mean_step_ns
                                                       / (double) ts->eval_ledger.median_step_ns, 1);

      g_string_append_printf (out, " The mean batch is %s times the median: a few long batches hold most "
                              "of the time (the first of a pass: its loader's workers starting, set-up "
                              "such as autotuning for new shapes), a cost per pass rather than per batch.",
                              times);
    }
  if (ts->eval_predicted_ns > 0 && ts->eval_ledger.mean_step_ns > 0)
    {
      pct = pfprof_format_double (100.0 * (double) (ts->eval_ledger.mean_step_ns - ts->eval_predicted_ns)
                                    / (double) ts->eval_ledger.mean_step_ns, 1);
      g_string_append_printf (out, " With every fix below: ~%s per mean evaluation batch (\u2212%s%%).",
                              after, pct);
    }
  return g_string_free (out, FALSE);
}

guint
pfprof_report_n_material (const PfprofAnalysis *a, guint n)
{
  guint k = 0;

  g_return_val_if_fail (a != NULL, 0);

  for (guint i = 0; i < n && i < a->findings->len; i++)
    k += !((PfprofFinding *) g_ptr_array_index (a->findings, i))->immaterial;
  return k;
}
