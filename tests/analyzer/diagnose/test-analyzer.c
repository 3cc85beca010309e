/* SPDX-License-Identifier: MIT */
/* test-analyzer.c: metrics, steps and every rule on simulated traces.
 *
 * Each rule gets a positive case (its pattern planted), a negative one
 * (the clean pipeline, or a near miss) and a borderline pair on either
 * side of a threshold. The clean pipeline must give no finding at all and
 * a copy/compute overlap near 1, and start-up weight copies and
 * autotuning synchronizations must never be flagged.
 */
#include <math.h>
#include <string.h>

#include "analyzer-sim.h"
#include "pfprof-analysis-options.h"
#include "pfprof-analysis.h"
#include "pfprof-format.h"
#include "pfprof-json-writer.h"
#include "pfprof-kind-names.h"
#include "pfprof-quantile.h"
#include "pfprof-interval-set.h"
#include "pfprof-report.h"
#include "pfprof-rules.h"

static PfprofAnalysis *
analyze_with (PfprofTrace *t, const PfprofAnalysisOptions *o)
{
  GPtrArray *traces = g_ptr_array_new ();
  PfprofAnalysis *a;

  g_ptr_array_add (traces, t);
  a = sim_analyze (traces, o);
  g_assert_nonnull (a);
  return a;
}

static PfprofAnalysis *
analyze (const SimOptions *so)
{
  return analyze_with (sim_build (so), NULL);
}

static guint
n_findings (const PfprofAnalysis *a, const char *rule)
{
  g_autoptr (GPtrArray) f = pfprof_analysis_findings_of (a, rule);
  return f->len;
}

static const PfprofFinding *
finding (const PfprofAnalysis *a, const char *rule)
{
  for (guint i = 0; i < a->findings->len; i++)
    {
      const PfprofFinding *f = g_ptr_array_index (a->findings, i);
      if (strcmp (f->rule, rule) == 0)
        return f;
    }
  g_test_message ("no finding of %s", rule);
  g_assert_not_reached ();
  return NULL;
}

static void
dump_findings (const PfprofAnalysis *a)
{
  for (guint i = 0; i < a->findings->len; i++)
    {
      const PfprofFinding *f = g_ptr_array_index (a->findings, i);
      g_test_message ("finding %s: %s | %s", f->rule, f->title, f->message);
    }
}

/* Every finding carries the fields the report contract promises. */
static void
check_finding_complete (const PfprofFinding *f)
{
  g_assert_nonnull (f->title);
  g_assert_nonnull (f->message);
  g_assert_nonnull (f->fix);
  g_assert_cmpuint (strlen (f->title), >, 10);
  g_assert_cmpuint (strlen (f->message), >, 40);
  g_assert_cmpuint (f->count, >, 0);
  g_assert_cmpint (f->est_savings_ns, >=, 0);
  g_assert_cmpint (f->first_ns, <=, f->last_ns);
  g_assert_cmpint (f->pid, >, 0);
  g_assert_cmpuint (f->evidence->len, >, 0);
  g_assert_cmpuint (f->evidence->len, <=, PFPROF_RULE_MAX_EVIDENCE);
}

/* ---- interval sets --------------------------------------------------- */

static void
test_interval_set (void)
{
  PfprofIntervalSetBuilder *b = pfprof_interval_set_builder_new ();
  g_autoptr (PfprofIntervalSet) a = NULL;
  g_autoptr (PfprofIntervalSet) c = NULL;
  g_autoptr (PfprofIntervalSet) i = NULL;
  g_autoptr (PfprofIntervalSet) d = NULL;
  g_autoptr (PfprofIntervalSet) u = NULL;

  /* Unsorted, overlapping, touching and empty input. */
  pfprof_interval_set_builder_add (b, 50, 60);
  pfprof_interval_set_builder_add (b, 10, 20);
  pfprof_interval_set_builder_add (b, 15, 30);
  pfprof_interval_set_builder_add (b, 30, 35);
  pfprof_interval_set_builder_add (b, 40, 40);
  pfprof_interval_set_builder_add (b, 45, 41);
  a = pfprof_interval_set_build (b);
  g_assert_cmpuint (pfprof_interval_set_n (a), ==, 2); /* [10,35) [50,60) */
  g_assert_cmpint (pfprof_interval_set_length (a), ==, 35);
  g_assert_cmpint (pfprof_interval_set_length_in (a, 0, 100), ==, 35);
  g_assert_cmpint (pfprof_interval_set_length_in (a, 12, 55), ==, 28);
  g_assert_cmpint (pfprof_interval_set_length_in (a, 35, 50), ==, 0);
  g_assert_cmpint (pfprof_interval_set_length_in (a, 20, 21), ==, 1);
  g_assert_cmpint (pfprof_interval_set_length_in (a, 21, 20), ==, 0);
  g_assert_true (pfprof_interval_set_contains (a, 10));
  g_assert_false (pfprof_interval_set_contains (a, 35));
  g_assert_false (pfprof_interval_set_contains (a, 40));

  b = pfprof_interval_set_builder_new ();
  pfprof_interval_set_builder_add (b, 0, 12);
  pfprof_interval_set_builder_add (b, 30, 55);
  c = pfprof_interval_set_build (b);
  i = pfprof_interval_set_intersect (a, c); /* [10,12) [30,35) [50,55) */
  g_assert_cmpint (pfprof_interval_set_length (i), ==, 12);
  g_assert_cmpuint (pfprof_interval_set_n (i), ==, 3);
  d = pfprof_interval_set_subtract (a, c); /* [12,30) [55,60) */
  g_assert_cmpint (pfprof_interval_set_length (d), ==, 23);
  g_assert_cmpint (pfprof_interval_set_length (i) + pfprof_interval_set_length (d), ==,
                   pfprof_interval_set_length (a));
  u = pfprof_interval_set_union (a, c); /* [0,60) minus nothing */
  g_assert_cmpint (pfprof_interval_set_length (u), ==, 60);
  g_assert_cmpuint (pfprof_interval_set_n (u), ==, 1);
}

/* The length inside a window that holds none, one, a few or hundreds of
 * a set's intervals, or ends in a gap or inside one, is what the
 * intervals' overlaps with it add up to. */
static void
test_interval_set_windows (void)
{
  PfprofIntervalSetBuilder *b = pfprof_interval_set_builder_new ();
  g_autoptr (PfprofIntervalSet) s = NULL;
  const gint64 n = 500;

  /* [10k, 10k + 1 + k % 7) for k < n. */
  for (gint64 k = 0; k < n; k++)
    pfprof_interval_set_builder_add (b, 10 * k, 10 * k + 1 + k % 7);
  s = pfprof_interval_set_build (b);
  g_assert_cmpuint (pfprof_interval_set_n (s), ==, n);
  for (gint64 lo = -5; lo < 10 * n + 5; lo += 3)
    for (gint64 len = 0; len < 10 * n; len = len * 2 + 1)
      {
        gint64 hi = lo + len, want = 0;

        for (gint64 k = 0; k < n; k++)
          want += MAX (0, MIN (hi, 10 * k + 1 + k % 7) - MAX (lo, 10 * k));
        g_assert_cmpint (pfprof_interval_set_length_in (s, lo, hi), ==, want);
      }
}

/* ---- clean pipeline, steps, warm-up ---------------------------------- */

static void
test_clean (void)
{
  SimOptions so;
  g_autoptr (PfprofAnalysis) a = NULL;
  const PfprofDeviceSummary *d;
  const PfprofTraceSummary *ts;

  sim_options_init (&so);
  a = analyze (&so);
  dump_findings (a);
  g_assert_cmpuint (a->findings->len, ==, 0);
  g_assert_cmpuint (a->devices->len, ==, 1);
  d = &g_array_index (a->devices, PfprofDeviceSummary, 0);
  g_assert_cmpfloat (d->overlap_fraction, >, 0.99);
  g_assert_cmpint (d->exposed_copy_ns, <, 1000000);
  g_assert_cmpuint (d->htod_pageable_bytes, ==, 0); /* start-up copies are outside */
  g_assert_cmpuint (d->compute_stream, ==, SIM_COMPUTE_STREAM);
  ts = &g_array_index (a->trace_summaries, PfprofTraceSummary, 0);
  g_assert_cmpstr (ts->step_source, ==, "dataloader");
  g_assert_cmpuint (ts->n_steps, ==, 30);
  g_assert_cmpuint (ts->n_warmup_steps, >=, 1);
  g_assert_cmpuint (ts->n_warmup_steps, <=, 3);
  g_assert_cmpuint (ts->main_tid, ==, SIM_MAIN_TID);
  /* Step = wait 0.2 + launch 0.03 + compute 4 + 0.05 ms. */
  g_assert_cmpint (a->step_median_ns, >, 4200000);
  g_assert_cmpint (a->step_median_ns, <, 4400000);
  g_assert_cmpint (a->step_p10_ns, <=, a->step_median_ns);
  g_assert_cmpint (a->step_p90_ns, >=, a->step_median_ns);
  {
    PfprofStep m = pfprof_report_median_step (a);
    g_assert_cmpint (m.compute_ns, ==, 4000000);
    g_assert_cmpint (m.data_wait_ns, ==, 200000);
    g_assert_cmpint (m.copy_hidden_ns, ==, 2000000);
    g_assert_cmpint (m.copy_exposed_ns, ==, 0);
  }
  g_assert_false (pfprof_analysis_fired_at (a, PFPROF_SEVERITY_INFO));
}

static void
test_steps_nvtx (void)
{
  SimOptions so;
  g_autoptr (PfprofAnalysis) a = NULL;
  const PfprofTraceSummary *ts;

  sim_options_init (&so);
  so.step_nvtx = TRUE;
  a = analyze (&so);
  ts = &g_array_index (a->trace_summaries, PfprofTraceSummary, 0);
  g_assert_cmpstr (ts->step_source, ==, "nvtx");
  g_assert_cmpstr (ts->step_name, ==, "train_step");
  g_assert_cmpuint (ts->n_steps, ==, 30);
  /* The DataLoader wait before each range belongs to its step. */
  g_assert_cmpint (pfprof_report_median_step (a).data_wait_ns, ==, 200000);
  g_assert_cmpuint (a->findings->len, ==, 0);
}

static void
test_step_pattern (void)
{
  static const char *const yes[] = { "train_step", "training_step", "step", "Step 12", "iteration-3",
                                     "iter7", "Batch#4", "ProfilerStep#7", "val step 2" };
  static const char *const no[] = { "forward", "stepper", "optimizer.step", "DataLoader.next",
                                    "backward_step_x", "" };
  g_autoptr (GRegex) re = g_regex_new (PFPROF_DEFAULT_STEP_PATTERN, G_REGEX_CASELESS, 0, NULL);

  g_assert_nonnull (re);
  for (guint i = 0; i < G_N_ELEMENTS (yes); i++)
    if (!g_regex_match (re, yes[i], 0, NULL))
      g_error ("step pattern does not match %s", yes[i]);
  for (guint i = 0; i < G_N_ELEMENTS (no); i++)
    if (g_regex_match (re, no[i], 0, NULL))
      g_error ("step pattern matches %s", no[i]);
}

static void check_ledger (const PfprofAnalysis *a);

static void
test_steps_periodic (void)
{
  SimOptions so;
  g_autoptr (PfprofAnalysis) a = NULL;
  const PfprofTraceSummary *ts;

  sim_options_init (&so);
  so.dataloader_nvtx = FALSE;
  a = analyze (&so);
  ts = &g_array_index (a->trace_summaries, PfprofTraceSummary, 0);
  g_assert_cmpstr (ts->step_source, ==, "periodic");
  /* One marker per step; the last step may be dropped. */
  g_assert_cmpuint (ts->n_steps, >=, 29);
  g_assert_cmpuint (ts->n_steps, <=, 30);
  g_assert_cmpstr (ts->step_name, !=, "autotune_candidate");
  g_assert_cmpuint (a->findings->len, ==, 0);
}

/* A short recording: five iterations, no NVTX at all, pageable copies
 * every iteration. The iterations come from the GPU work, the copies are
 * flagged, and nothing reports idle the kernels contradict. */
static void
test_steps_few_iterations (void)
{
  SimOptions so;
  g_autoptr (PfprofAnalysis) a = NULL;
  const PfprofTraceSummary *ts;
  g_autofree char *headline = NULL;

  sim_options_init (&so);
  so.dataloader_nvtx = FALSE;
  so.setup = FALSE;
  so.n_steps = 5; /* two of them slow: three steady steps, the last cut short */
  so.copy_mode = SIM_COPY_SERIALIZED;
  so.pageable = TRUE;
  a = analyze (&so);
  ts = &g_array_index (a->trace_summaries, PfprofTraceSummary, 0);
  g_assert_cmpstr (ts->step_source, ==, "periodic");
  g_assert_cmpuint (ts->n_steps, >=, 3);
  g_assert_cmpuint (n_findings (a, "pageable-transfer"), ==, 1);
  headline = pfprof_report_headline (a);
  g_assert_null (headline);
  g_assert_cmpfloat (pfprof_report_max_idle_fraction (a), <, 0.2);
  check_ledger (a);
}

static void
test_warmup_fixed (void)
{
  SimOptions so;
  g_autoptr (PfprofAnalysisOptions) o = pfprof_analysis_options_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (PfprofAnalysis) a = NULL;

  g_assert_true (pfprof_analysis_options_load_data (o, "[analysis]\nwarmup-steps=5\n", &error));
  sim_options_init (&so);
  a = analyze_with (sim_build (&so), o);
  g_assert_cmpuint (g_array_index (a->trace_summaries, PfprofTraceSummary, 0).n_warmup_steps, ==, 5);
  g_assert_cmpuint (a->n_steady_steps, ==, 25);
}

static void
test_warmup_detected (void)
{
  SimOptions so;

  sim_options_init (&so);
  so.slow_steps = 4;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);

    g_assert_cmpuint (g_array_index (a->trace_summaries, PfprofTraceSummary, 0).n_warmup_steps, ==, 4);
    g_assert_cmpuint (a->n_steady_steps, ==, 26);
    /* Warm-up steps are marked and left out of the median. */
    g_assert_true (g_array_index (a->steps, PfprofStep, 3).warmup);
    g_assert_false (g_array_index (a->steps, PfprofStep, 4).warmup);
    g_assert_cmpint (a->step_median_ns, <, 4400000);
  }
}

/* Two processes (ranks) analyzed together: per-trace figures, findings
 * carry their process. */
static void
test_two_traces (void)
{
  SimOptions so;
  g_autoptr (GPtrArray) traces = g_ptr_array_new ();
  g_autoptr (PfprofAnalysis) a = NULL;
  g_autoptr (GError) error = NULL;
  const PfprofFinding *f;

  sim_options_init (&so);
  so.pid = 1001;
  g_ptr_array_add (traces, sim_build (&so));
  so.pid = 1002;
  so.data_wait_ns = 20000000;
  g_ptr_array_add (traces, sim_build (&so));
  a = sim_analyze (g_steal_pointer (&traces), NULL);
  g_assert_cmpuint (a->devices->len, ==, 2);
  g_assert_cmpuint (g_array_index (a->devices, PfprofDeviceSummary, 1).trace_index, ==, 1);
  g_assert_cmpuint (a->steps->len, ==, 60);
  g_assert_cmpuint (a->findings->len, ==, 1);
  f = finding (a, "input-starved");
  g_assert_cmpint (f->pid, ==, 1002);
  g_assert_cmpuint (g_array_index (f->evidence, PfprofEvidence, 0).trace_index, ==, 1);
  /* Steps of both, in time order. */
  for (guint i = 1; i < a->steps->len; i++)
    g_assert_cmpint (g_array_index (a->steps, PfprofStep, i - 1).start_ns, <=,
                     g_array_index (a->steps, PfprofStep, i).start_ns);
}

/* Four ranks whose DataLoader waits are @base_ns per step, rank 2's
 * @slow_ns, analyzed together with the default thresholds. */
static PfprofAnalysis *
analyze_ranks (gint64 base_ns, gint64 slow_ns)
{
  SimOptions so;
  g_autoptr (GPtrArray) traces = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  PfprofAnalysis *a;

  sim_options_init (&so);
  for (guint r = 0; r < 4; r++)
    {
      PfprofTrace *t;

      so.pid = 2000 + r;
      so.data_wait_ns = r == 2 ? slow_ns : base_ns;
      t = sim_build (&so);
      t->rank = r;
      g_ptr_array_add (traces, t);
    }
  a = sim_analyze (g_steal_pointer (&traces), NULL);
  return a;
}

/* rank-imbalance: positive, negative, and borderline on both thresholds
 * (at least 1 ms and 20% over the other ranks' median per step). */
static void
test_rank_imbalance (void)
{
  {
    g_autoptr (PfprofAnalysis) a = analyze_ranks (2000000, 3500000);
    const PfprofFinding *f = finding (a, "rank-imbalance");

    g_assert_cmpuint (n_findings (a, "rank-imbalance"), ==, 1);
    g_assert_cmpint (f->pid, ==, 2002);
    g_assert_cmpuint (f->trace_index, ==, 2);
    g_assert_nonnull (strstr (f->message, "Rank 2 "));
    /* 1.5 ms more per step than the others. */
    g_assert_cmpint (f->est_savings_ns, >, 1300000);
    g_assert_cmpint (f->est_savings_ns, <, 1700000);
  }
  {
    g_autoptr (PfprofAnalysis) a = analyze_ranks (2000000, 2000000);

    g_assert_cmpuint (n_findings (a, "rank-imbalance"), ==, 0);
  }
  {
    /* 0.8 ms (40%) more: below 1 ms. */
    g_autoptr (PfprofAnalysis) a = analyze_ranks (2000000, 2800000);

    g_assert_cmpuint (n_findings (a, "rank-imbalance"), ==, 0);
  }
  {
    /* 1.5 ms but 15% more: below 20%; 2.5 ms (25%) fires. */
    g_autoptr (PfprofAnalysis) a = analyze_ranks (10000000, 11500000);
    g_autoptr (PfprofAnalysis) b = analyze_ranks (10000000, 12500000);

    g_assert_cmpuint (n_findings (a, "rank-imbalance"), ==, 0);
    g_assert_cmpuint (n_findings (b, "rank-imbalance"), ==, 1);
  }
  {
    /* The same traces without ranks are separate processes. */
    SimOptions so;
    g_autoptr (GPtrArray) traces = g_ptr_array_new ();
    g_autoptr (PfprofAnalysis) a = NULL;

    sim_options_init (&so);
    g_ptr_array_add (traces, sim_build (&so));
    so.pid = 4243;
    so.data_wait_ns = 5000000;
    g_ptr_array_add (traces, sim_build (&so));
    a = sim_analyze (g_steal_pointer (&traces), NULL);
    g_assert_cmpuint (n_findings (a, "rank-imbalance"), ==, 0);
  }
}

/* Start-up copies weights from pageable memory and autotunes with
 * hundreds of syncs; with set-up only and no steady-state problem, no
 * rule may fire, whatever the step source. */
static void
test_startup_not_flagged (void)
{
  for (guint mode = 0; mode < 3; mode++)
    {
      SimOptions so;
      g_autoptr (PfprofAnalysis) a = NULL;

      sim_options_init (&so);
      so.setup = TRUE;
      so.step_nvtx = mode == 1;
      so.dataloader_nvtx = mode != 2;
      a = analyze (&so);
      dump_findings (a);
      g_assert_cmpuint (n_findings (a, "pageable-transfer"), ==, 0);
      g_assert_cmpuint (n_findings (a, "record-stream-stall"), ==, 0);
      g_assert_cmpuint (n_findings (a, "sync-in-loop"), ==, 0);
      g_assert_cmpuint (n_findings (a, "pinned-alloc-in-loop"), ==, 0);
    }
}

/* ---- rules ----------------------------------------------------------- */

static void
test_pageable (void)
{
  SimOptions so;

  sim_options_init (&so);
  so.pageable = TRUE;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    const PfprofFinding *f = finding (a, "pageable-transfer");

    check_finding_complete (f);
    g_assert_cmpuint (f->count, >=, 27);
    g_assert_cmpuint (f->device_id, ==, 0);
    g_assert_cmpuint (f->stream_id, ==, SIM_COPY_STREAM);
    /* 48 MiB in 2 ms vs 20 GB/s assumed pinned: ~2 - 2.5 = 0 → the
     * simulated pageable copy is already fast; savings are clamped at 0
     * or small, but the finding and its numbers are there. */
    g_assert_nonnull (strstr (f->message, "48.0 MiB each"));
    g_assert_nonnull (strstr (f->fix, "pin_memory=True"));
    g_assert_nonnull (strstr (f->fix, "def pin_memory(self)"));
    g_assert_nonnull (strstr (f->fix, "non_blocking=True"));
    /* The copies already run on a side stream: the fix does not say to
     * move them there. */
    g_assert_nonnull (strstr (f->message, "already run on a side stream"));
    g_assert_null (strstr (f->fix, "copy the next one on a side stream"));
    check_ledger (a);
  }
  /* On the compute stream: both problems, each fix alone and both. */
  so.copy_mode = SIM_COPY_SERIALIZED;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    const PfprofFinding *f = finding (a, "pageable-transfer");

    g_assert_nonnull (strstr (f->message, "on the compute stream"));
    g_assert_nonnull (strstr (f->message, "Pinning alone saves"));
    g_assert_nonnull (strstr (f->message, "together"));
    g_assert_nonnull (strstr (f->fix, "copy the next one on a side stream"));
    check_ledger (a);
  }
  so.copy_mode = SIM_COPY_PREFETCH;
  /* Slow pageable copies (12 GB/s staged): the savings are the difference
   * to the pinned bandwidth, but no more than the ledger's pageable copy
   * and host-side idle time: the simulated copies run on a side stream,
   * mostly beside kernels. */
  so.copy_ns = 4000000;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    const PfprofFinding *f = finding (a, "pageable-transfer");
    const PfprofTraceSummary *ts = &g_array_index (a->trace_summaries, PfprofTraceSummary, 0);
    gint64 pinned = (gint64) ((double) (48u << 20) / 50.0);
    gint64 bucket = pfprof_ledger_sum (ts->ledger.mean_ns, f->buckets);

    g_assert_cmpint (bucket, <, 4000000 - pinned - 100000);
    g_assert_cmpint (f->est_savings_ns, ==, bucket);
    g_assert_cmpint (f->predicted_step_ns, ==, ts->ledger.mean_step_ns - bucket);
  }
  /* Negative: pinned. */
  so.pageable = FALSE;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "pageable-transfer"), ==, 0);
  }
  /* Borderline: min-bytes is 64 KiB. */
  so.pageable = TRUE;
  so.batch_bytes = 65535;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "pageable-transfer"), ==, 0);
  }
  so.batch_bytes = 65536;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "pageable-transfer"), ==, 1);
  }
}

static void
test_serialized (void)
{
  SimOptions so;

  sim_options_init (&so);
  so.copy_mode = SIM_COPY_SERIALIZED;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    const PfprofFinding *f = finding (a, "serialized-copy");
    const PfprofDeviceSummary *d = &g_array_index (a->devices, PfprofDeviceSummary, 0);

    dump_findings (a);
    check_finding_complete (f);
    g_assert_cmpuint (f->stream_id, ==, SIM_COMPUTE_STREAM);
    /* The whole 2 ms copy is exposed every step. */
    g_assert_cmpint (f->est_savings_ns, >, 1900000);
    g_assert_cmpint (f->est_savings_ns, <=, 2000000);
    g_assert_cmpfloat (d->overlap_fraction, <, 0.01);
    g_assert_cmpint (pfprof_report_median_step (a).copy_exposed_ns, ==, 2000000);
    g_assert_nonnull (strstr (f->fix, "wait_stream"));
    g_assert_cmpuint (n_findings (a, "late-prefetch"), ==, 0);
  }
  /* Negative: prefetched on a side stream. */
  so.copy_mode = SIM_COPY_PREFETCH;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "serialized-copy"), ==, 0);
  }
  /* Negative: on the compute stream but from pageable memory: that is
   * pageable-transfer's (pin first; as on the H200 pageable sample). */
  so.copy_mode = SIM_COPY_SERIALIZED;
  so.pageable = TRUE;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "serialized-copy"), ==, 0);
    g_assert_cmpuint (n_findings (a, "pageable-transfer"), ==, 1);
  }
  so.pageable = FALSE;
  /* Borderline: on a side stream but waited for: not serialized (that is
   * late-prefetch). */
  so.copy_mode = SIM_COPY_LATE;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "serialized-copy"), ==, 0);
    g_assert_cmpuint (n_findings (a, "late-prefetch"), ==, 1);
  }
  /* Borderline: exposed time below min-exposed-share (1%): 30 µs of a
   * ~4.3 ms step is 0.7%. */
  so.copy_mode = SIM_COPY_SERIALIZED;
  so.copy_ns = 30000;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "serialized-copy"), ==, 0);
  }
  so.copy_ns = 60000; /* 1.4% */
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "serialized-copy"), ==, 1);
  }
}

static void
test_late_prefetch (void)
{
  SimOptions so;

  sim_options_init (&so);
  so.copy_mode = SIM_COPY_LATE;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    const PfprofFinding *f = finding (a, "late-prefetch");

    check_finding_complete (f);
    g_assert_cmpuint (f->stream_id, ==, SIM_COPY_STREAM);
    g_assert_cmpint (f->est_savings_ns, >, 1900000);
    g_assert_cmpint (f->est_savings_ns, <, 2100000);
    g_assert_nonnull (strstr (f->message, "cudaStreamWaitEvent"));
  }
  so.copy_mode = SIM_COPY_PREFETCH;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "late-prefetch"), ==, 0);
  }
  /* Borderline on slack-us (100 µs). */
  so.copy_mode = SIM_COPY_LATE;
  so.late_gap_ns = 90000;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "late-prefetch"), ==, 1);
  }
  so.late_gap_ns = 150000;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "late-prefetch"), ==, 0);
  }
}

static void
test_input_starved (void)
{
  SimOptions so;

  sim_options_init (&so);
  so.data_wait_ns = 20000000;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    const PfprofFinding *f = finding (a, "input-starved");
    g_autofree char *headline = pfprof_report_headline (a);

    dump_findings (a);
    check_finding_complete (f);
    g_assert_cmpint (f->severity, ==, PFPROF_SEVERITY_ERROR);
    g_assert_cmpint (f->est_savings_ns, >, 19000000);
    g_assert_cmpint (f->est_savings_ns, <=, 20000000);
    /* It matters most, so it comes first, and the report says the GPU
     * idles most of the step. */
    g_assert_true (g_ptr_array_index (a->findings, 0) == f);
    g_assert_nonnull (headline);
    g_assert_nonnull (strstr (f->fix, "num_workers"));
    g_assert_nonnull (strstr (f->fix, "persistent_workers"));
    g_assert_nonnull (strstr (f->fix, "prefetch_factor"));
  }
  sim_options_init (&so);
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_autofree char *headline = pfprof_report_headline (a);

    g_assert_cmpuint (n_findings (a, "input-starved"), ==, 0);
    g_assert_null (headline);
  }
  /* Borderline on min-idle-share (10%): wait/(wait + 4.08 ms). */
  so.data_wait_ns = 400000; /* 8.9% */
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "input-starved"), ==, 0);
  }
  so.data_wait_ns = 520000; /* 11.3% */
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "input-starved"), ==, 1);
  }
  /* Without DataLoader ranges: the host-bound fallback. */
  so.data_wait_ns = 20000000;
  so.dataloader_nvtx = FALSE;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    const PfprofFinding *f = finding (a, "input-starved");

    g_assert_nonnull (strstr (f->message, "no DataLoader ranges"));
    g_assert_cmpint (f->est_savings_ns, >, 15000000);
  }
}

static void
test_sync_in_loop (void)
{
  SimOptions so;

  sim_options_init (&so);
  so.sync_each_step = TRUE;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    const PfprofFinding *f = finding (a, "sync-in-loop");

    check_finding_complete (f);
    g_assert_cmpuint (f->count, >=, 27);
    g_assert_cmpint (f->est_savings_ns, >, 0);
    g_assert_nonnull (strstr (f->fix, ".item()"));
  }
  sim_options_init (&so);
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "sync-in-loop"), ==, 0);
  }
  /* Borderline: every other step is half the threshold of one per step. */
  so.sync_every = 2;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "sync-in-loop"), ==, 0);
  }
  so.sync_every = 1;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "sync-in-loop"), ==, 1);
  }
}

static void assert_near (gint64 got, gint64 want, double tolerance);

/* The host runs up to four steps ahead of the GPU: the breakdown measures
 * each step's GPU work where the GPU ran it, not in the host's window
 * (where the median step of the H200 sample (d) showed compute 0). */
static void
test_steps_host_ahead (void)
{
  for (int launches = 1; launches >= 0; launches--)
    {
      SimOptions so;
      g_autoptr (PfprofAnalysis) a = NULL;
      PfprofStep med;
      guint n_ahead = 0;

      sim_options_init (&so);
      so.data_wait_ns = 100000;
      so.copy_ns = 1000000;
      so.no_launch_records = !launches;
      a = analyze_with (sim_build_host_ahead (&so), NULL);
      med = pfprof_report_median_step (a);
      g_test_message ("launch records %d: median step %" G_GINT64_FORMAT " ns (host %" G_GINT64_FORMAT
                      " ns), compute %" G_GINT64_FORMAT ", copy exposed %" G_GINT64_FORMAT
                      ", idle %" G_GINT64_FORMAT,
                      launches, a->step_median_ns, a->host_step_median_ns, med.compute_ns,
                      med.copy_exposed_ns, med.idle_ns);
      /* Three host steps in four are short (DataLoader wait, copy and 8
       * launches)... */
      g_assert_cmpint (a->host_step_median_ns, <, 1000000);
      /* ...while the median step, the GPU's side, holds its parts. */
      assert_near (a->step_median_ns, 5000000, 0.01);
      g_assert_true (pfprof_report_host_runs_ahead (a));
      /* ...the GPU's are 1 ms of copy, then 4 ms of kernels, 2 µs apart. */
      assert_near (med.compute_ns, 4000000, 0.01);
      assert_near (med.copy_exposed_ns, 1000000, 0.01);
      /* (and after each drain the GPU waits ~125 µs for the next launch) */
      g_assert_cmpint (med.idle_ns, <, 30000);
      g_assert_cmpint (med.data_wait_ns, ==, 100000);
      for (guint i = 0; i < a->steps->len; i++)
        {
          const PfprofStep *s = &g_array_index (a->steps, PfprofStep, i);

          g_assert_cmpint (s->gpu_end_ns, >=, s->gpu_start_ns);
          /* Each step's GPU work begins after the host launched it. */
          g_assert_cmpint (s->gpu_start_ns, >=, s->start_ns);
          n_ahead += s->gpu_start_ns > s->end_ns;
        }
      /* In the steady state the GPU runs each step after the host left it. */
      g_assert_cmpuint (n_ahead, >=, a->steps->len / 2);
    }
}

/* What a sync costs: the refill gap after it, the later gaps while the
 * host launches kernel by kernel into the empty queue, at most the wait. */
static gint64
sync_savings (const SimOptions *so)
{
  g_autoptr (PfprofAnalysis) a = analyze (so);
  const PfprofFinding *f = finding (a, "sync-in-loop");

  g_assert_nonnull (f);
  g_test_message ("sync-in-loop: %s", f->message);
  return f->est_savings_ns;
}

static void
assert_near (gint64 got, gint64 want, double tolerance)
{
  g_test_message ("got %" G_GINT64_FORMAT " ns, want %" G_GINT64_FORMAT " ns (±%.0f%%)", got, want,
                  100 * tolerance);
  g_assert_cmpfloat (fabs ((double) (got - want)), <=, tolerance * (double) want);
}

/* ---- a trace recorded in windows (pfprof record --sample) ------------ */

/* Keeps of @t only what starts inside @windows (as the collector records
 * nothing in the pauses) and, with @rows, the windows table. */
static void
cut_to_windows (PfprofTrace *t, const PfprofInterval *windows, guint n, gboolean rows)
{
  for (guint tab = 0; tab < PFPROF_TABLE_DEVICES; tab++)
    {
      GArray *a = t->tables[tab];
      gsize size = g_array_get_element_size (a);
      guint keep = 0;

      for (guint r = 0; r < a->len; r++)
        {
          gint64 v;
          gboolean in = FALSE;

          memcpy (&v, a->data + (gsize) r * size, sizeof v);
          for (guint w = 0; w < n; w++)
            in = in || (v >= windows[w].start && v < windows[w].end);
          if (!in && !(tab == PFPROF_TABLE_CUDA_EVENTS && v == 0))
            continue;
          if (keep != r)
            memmove (a->data + (gsize) keep * size, a->data + (gsize) r * size, size);
          keep++;
        }
      g_array_set_size (a, keep);
    }
  for (guint w = 0; rows && w < n; w++)
    {
      PfprofWindowRecord r = { windows[w].start, windows[w].end };

      g_array_append_val (t->tables[PFPROF_TABLE_WINDOWS], r);
    }
  pfprof_trace_sort (t);
}

/* A trace recorded in three windows with pauses between says per step
 * what the whole recording says: the steps are those inside the windows,
 * the pauses are neither idle nor busy, and the figures add up to the
 * steady window's parts. Without the windows table the same records would
 * read as a GPU idle through every pause. */
/* A thread whose later calls all got one correlation id (CUPTI's state
 * for it was lost): the trace summary counts them and the text report
 * says so; the same trace with its ids intact, and a driver call that
 * shares its runtime call's id, count nothing. */
static void
test_stale_correlation_ids (void)
{
  SimOptions so;
  PfprofTrace *t;
  PfprofApiRecord *api;
  PfprofApiRecord nested;
  guint n;
  g_autoptr (PfprofAnalysis) sound = NULL;
  g_autoptr (PfprofAnalysis) stale = NULL;
  g_autoptr (GString) out = g_string_new (NULL);
  PfprofReportOptions o;

  sim_options_init (&so);
  so.n_steps = 40;
  t = sim_build (&so);
  api = (PfprofApiRecord *) t->tables[PFPROF_TABLE_API_CALLS]->data;
  nested = api[0];
  nested.domain = PFPROF_API_DRIVER;
  g_array_append_val (t->tables[PFPROF_TABLE_API_CALLS], nested);
  pfprof_trace_sort (t);
  sound = analyze_with (t, NULL);
  g_assert_cmpuint (g_array_index (sound->trace_summaries, PfprofTraceSummary, 0).n_api_ids_shared, ==, 0);

  t = sim_build (&so);
  api = (PfprofApiRecord *) t->tables[PFPROF_TABLE_API_CALLS]->data;
  n = pfprof_trace_n (t, PFPROF_TABLE_API_CALLS);
  g_assert_cmpuint (n, >, 200);
  for (guint i = n - 100; i < n; i++)
    api[i].correlation_id = api[n - 101].correlation_id;
  stale = analyze_with (t, NULL);
  g_assert_cmpuint (g_array_index (stale->trace_summaries, PfprofTraceSummary, 0).n_api_ids_shared, ==, 100);
  pfprof_report_options_init (&o);
  o.width = 1000;
  pfprof_report_render (stale, &o, out);
  g_assert_nonnull (strstr (out->str, "100 API calls carry a correlation id that another call already has"));
}

static void
test_sampled_windows (void)
{
  SimOptions so;
  g_autoptr (PfprofAnalysis) full = NULL;
  g_autoptr (PfprofAnalysis) part = NULL;
  g_autoptr (PfprofAnalysis) bare = NULL;
  PfprofTrace *t;
  PfprofInterval w[3];
  gint64 lo, len;
  const PfprofFinding *f_full, *f_part;
  const PfprofTraceSummary *ts;
  const PfprofDeviceSummary *d_full, *d_part, *d_bare;
  guint n_windows = G_N_ELEMENTS (w);

  sim_options_init (&so);
  so.n_steps = 120;
  so.data_wait_ns = 3000000;
  full = analyze (&so);
  f_full = finding (full, "input-starved");

  t = sim_build (&so);
  lo = t->start_ns;
  len = t->end_ns - t->start_ns;
  for (guint i = 0; i < n_windows; i++)
    {
      /* 15% of the run from 10%, 40% and 70% on: never at a step's edge. */
      w[i].start = lo + len / 10 + (gint64) i * (len * 3 / 10) + 1234567;
      w[i].end = w[i].start + len * 15 / 100;
    }
  cut_to_windows (t, w, n_windows, TRUE);
  part = analyze_with (t, NULL);
  dump_findings (part);
  ts = &g_array_index (part->trace_summaries, PfprofTraceSummary, 0);
  g_assert_cmpuint (ts->n_windows, ==, n_windows);
  /* At least the first step of each window and the one across each pause. */
  g_assert_cmpuint (ts->n_unrecorded_steps, >=, n_windows + n_windows - 1);
  g_assert_cmpuint (part->steps->len, >, 40);
  for (guint i = 0; i < part->steps->len; i++)
    {
      const PfprofStep *s = &g_array_index (part->steps, PfprofStep, i);
      gboolean inside = FALSE;

      for (guint k = 0; k < n_windows; k++)
        inside = inside || (s->start_ns >= w[k].start && s->end_ns <= w[k].end);
      g_assert_true (inside);
    }
  /* The steady window's length is the sum of its parts, one a window. */
  d_full = &g_array_index (full->devices, PfprofDeviceSummary, 0);
  d_part = &g_array_index (part->devices, PfprofDeviceSummary, 0);
  g_assert_cmpint (d_part->steady_ns, <, (d_part->steady_end_ns - d_part->steady_start_ns) * 6 / 10);
  g_assert_cmpint (d_part->idle_ns, <=, d_part->steady_ns);
  g_assert_cmpint (d_part->kernel_ns + d_part->idle_ns, <=, d_part->steady_ns + d_part->htod_ns);
  /* Per step, the same figures as the whole run's. */
  assert_near (part->step_median_ns, full->step_median_ns, 0.02);
  g_assert_cmpfloat (fabs ((double) d_part->idle_ns / (double) d_part->steady_ns
                          - (double) d_full->idle_ns / (double) d_full->steady_ns),
                     <=, 0.02);
  f_part = finding (part, "input-starved");
  assert_near (f_part->est_savings_ns, f_full->est_savings_ns, 0.05);
  g_assert_cmpint (f_part->est_savings_ns, <=, part->step_median_ns);
  {
    const PfprofLedgerSummary *l = &ts->ledger;
    gint64 sum = 0;

    for (guint b = 0; b < PFPROF_LEDGER_N_BUCKETS; b++)
      sum += l->mean_ns[b];
    g_assert_cmpint (sum, ==, l->mean_step_ns);
  }

  /* The same records without the windows table: the pauses read as idle. */
  t = sim_build (&so);
  cut_to_windows (t, w, n_windows, FALSE);
  bare = analyze_with (t, NULL);
  d_bare = &g_array_index (bare->devices, PfprofDeviceSummary, 0);
  g_assert_cmpfloat ((double) d_bare->idle_ns / (double) d_bare->steady_ns, >,
                     (double) d_part->idle_ns / (double) d_part->steady_ns + 0.15);
}

static void
test_sync_in_loop_cost (void)
{
  SimOptions so;
  /* In the simulator the GPU drains its queue with the 2 µs DtoH copy of
   * .item(), then idles until the next step's first kernel: 60 + 50 µs of
   * host work, the 200 µs DataLoader wait, 30 µs to launch. */
  const gint64 refill = 338000;

  sim_options_init (&so);
  so.sync_each_step = TRUE;
  so.copy_mode = SIM_COPY_NONE;
  /* Only the refill gap: the host is ahead again at once. Of the 29 steady
   * steps (the first of 30 is warm-up), 28 pay: the last sync has no next
   * step. */
  assert_near (sync_savings (&so), refill * 28 / 29, 0.02);
  /* Then the GPU catches up with the host four times, 40 µs each: the lost
   * launch-ahead, which the old estimate (refill gap less the DataLoader
   * wait, 138 µs) missed. */
  so.launch_gap_ns = 40000;
  assert_near (sync_savings (&so), (refill + 4 * 40000) * 28 / 29, 0.02);
  /* The same without launch records: the estimate reads only the GPU's
   * idle gaps and the sync calls, which are recorded either way. */
  so.no_launch_records = TRUE;
  assert_near (sync_savings (&so), (refill + 4 * 40000) * 28 / 29, 0.02);
  so.no_launch_records = FALSE;
  /* Borderline: 5 µs apart is a full queue's spacing (under min-gap-us,
   * 10): not counted. */
  so.launch_gap_ns = 5000;
  assert_near (sync_savings (&so), refill * 28 / 29, 0.02);
  /* Capped: the host was ahead by only its 1.5 ms wait, so no more than
   * that of a 3 ms host stall after it could have been hidden. */
  so.launch_gap_ns = 0;
  so.host_gap_ns = 3000000;
  assert_near (sync_savings (&so), 1504000 * 28 / 29, 0.02);
}


/* ---- step ledger ------------------------------------------------------ */

/* Every step's ledger, and both summaries, sum to their step exactly; no
 * finding saves more than its buckets; each predicts the mean step less
 * its saving. */
static void
check_ledger (const PfprofAnalysis *a)
{
  const PfprofLedgerSummary *l = &a->ledger;
  gint64 sum = 0;

  for (guint i = 0; i < a->steps->len; i++)
    {
      const PfprofStep *st = &g_array_index (a->steps, PfprofStep, i);
      gint64 k = 0;

      for (guint b = 0; b < PFPROF_LEDGER_N_BUCKETS; b++)
        {
          g_assert_cmpint (st->ledger_ns[b], >=, 0);
          k += st->ledger_ns[b];
        }
      g_assert_cmpint (k, ==, st->gpu_end_ns - st->gpu_start_ns);
    }
  g_assert_cmpuint (l->n_steps, ==, a->n_steady_steps);
  for (guint b = 0; b < PFPROF_LEDGER_N_BUCKETS; b++)
    sum += l->mean_ns[b];
  g_assert_cmpint (sum, ==, l->mean_step_ns);
  sum = 0;
  for (guint b = 0; b < PFPROF_LEDGER_N_BUCKETS; b++)
    sum += l->median_ns[b];
  g_assert_cmpint (sum, ==, l->median_step_ns);
  for (guint i = 0; i < a->findings->len; i++)
    {
      const PfprofFinding *f = g_ptr_array_index (a->findings, i);
      const PfprofTraceSummary *ts = &g_array_index (a->trace_summaries, PfprofTraceSummary, f->trace_index);

      if (f->buckets != 0)
        g_assert_cmpint (f->est_savings_ns, <=, pfprof_ledger_sum (ts->ledger.mean_ns, f->buckets));
      g_assert_cmpint (f->predicted_step_ns, ==, ts->ledger.mean_step_ns - f->est_savings_ns);
      g_assert_cmpint (ts->predicted_step_ns, <=, f->predicted_step_ns);
    }
}

static gint64
mean_bucket (const PfprofAnalysis *a, PfprofLedgerBucket b)
{
  g_test_message ("mean %s: %" G_GINT64_FORMAT " ns", pfprof_ledger_bucket_key (b), a->ledger.mean_ns[b]);
  return a->ledger.mean_ns[b];
}

static void
test_ledger (void)
{
  SimOptions so;

  sim_options_init (&so);
  /* The clean pipeline: the prefetched copy hides behind the kernels; the
   * planted 200 µs DataLoader wait is data wait, the 30 µs to launch after
   * it host-bound. */
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);

    check_ledger (a);
    assert_near (mean_bucket (a, PFPROF_LEDGER_COMPUTE) + mean_bucket (a, PFPROF_LEDGER_COPY_HIDDEN),
                 so.compute_ns, 0.01);
    assert_near (mean_bucket (a, PFPROF_LEDGER_COPY_HIDDEN), so.copy_ns, 0.01);
    assert_near (mean_bucket (a, PFPROF_LEDGER_DATA_WAIT), so.data_wait_ns, 0.05);
    g_assert_cmpint (mean_bucket (a, PFPROF_LEDGER_HOST_BOUND), <, 100000);
    g_assert_cmpint (a->ledger.median_step_ns, >, 0);
    g_assert_cmpuint (n_findings (a, "host-bound"), ==, 0);
  }
  /* Serialized pageable copies: exposed, pageable, on the compute stream. */
  so.copy_mode = SIM_COPY_SERIALIZED;
  so.pageable = TRUE;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);

    check_ledger (a);
    assert_near (mean_bucket (a, PFPROF_LEDGER_COPY_PAGEABLE_COMPUTE), so.copy_ns, 0.01);
    g_assert_cmpint (mean_bucket (a, PFPROF_LEDGER_COPY_HIDDEN), ==, 0);
  }
  /* Without API records nothing says the host held the GPU up. */
  so.pageable = FALSE;
  so.copy_mode = SIM_COPY_PREFETCH;
  so.host_gap_ns = 1000000;
  {
    PfprofTrace *t = sim_build (&so);
    g_autoptr (PfprofAnalysis) a = NULL;

    g_array_set_size (t->tables[PFPROF_TABLE_API_CALLS], 0);
    a = analyze_with (t, NULL);
    check_ledger (a);
    g_assert_cmpint (mean_bucket (a, PFPROF_LEDGER_HOST_BOUND), ==, 0);
    g_assert_cmpint (mean_bucket (a, PFPROF_LEDGER_OTHER_IDLE), >, 900000);
  }
}

/* The kernels of a CUDA graph replay share the cudaGraphLaunch's
 * correlation id, and the trace has no record of that call unless launches
 * are recorded: the short gaps between them are the GPU working through
 * what one call queued, not the host holding it up. */
static void
test_ledger_graph (void)
{
  SimOptions so;
  gint64 loose;

  sim_options_init (&so);
  so.copy_mode = SIM_COPY_SERIALIZED;
  so.no_launch_records = TRUE;
  so.kernel_gap_ns = 5000;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);

    check_ledger (a);
    loose = mean_bucket (a, PFPROF_LEDGER_HOST_BOUND);
    g_assert_cmpint (loose, >=, 7 * 5000);
  }
  {
    PfprofTrace *t = sim_build (&so);
    GArray *k = t->tables[PFPROF_TABLE_KERNELS];
    guint32 conv = sim_intern (t, "conv_fwd"), corr = 0;
    g_autoptr (PfprofAnalysis) a = NULL;

    /* Each step's 8 kernels as one graph: one launch's id. */
    for (guint i = 0; i < k->len; i++)
      {
        PfprofKernelRecord *r = &g_array_index (k, PfprofKernelRecord, i);

        if (r->name_id == conv)
          corr = r->correlation_id;
        if (corr != 0 && r->stream_id == SIM_COMPUTE_STREAM)
          r->correlation_id = corr;
      }
    a = analyze_with (t, NULL);
    check_ledger (a);
    g_assert_cmpint (mean_bucket (a, PFPROF_LEDGER_HOST_BOUND), <=, loose - 7 * 5000 + 1000);
    g_assert_cmpint (mean_bucket (a, PFPROF_LEDGER_OTHER_IDLE), >=, 7 * 5000);
    g_assert_cmpuint (n_findings (a, "host-bound"), ==, 0);
  }
}

/* With the options keeping occurrences (what the GUI asks for), every
 * finding keeps one per occurrence it counts, its evidence among them;
 * without, none, and the evidence is the same either way. */
static void
test_keep_occurrences(void)
{
  SimOptions so;
  g_autoptr(PfprofAnalysisOptions) o = pfprof_analysis_options_new();

  pfprof_analysis_options_set_keep_occurrences(o, TRUE);
  for (int pattern = 0; pattern < 2; pattern++)
    {
      const char *rule = pattern == 0 ? "host-bound" : "pageable-transfer";
      g_autoptr(PfprofAnalysis) plain = NULL;
      g_autoptr(PfprofAnalysis) a = NULL;
      guint n_checked = 0;

      sim_options_init(&so);
      if (pattern == 0)
        so.host_gap_ns = 1000000;
      else
        so.pageable = TRUE;
      plain = analyze(&so);
      a = analyze_with(sim_build(&so), o);

      g_assert_cmpuint(a->findings->len, ==, plain->findings->len);
      for (guint i = 0; i < a->findings->len; i++)
        {
          const PfprofFinding *f = g_ptr_array_index(a->findings, i);
          const PfprofFinding *p = g_ptr_array_index(plain->findings, i);

          g_assert_null(p->occurrences);
          g_assert_cmpstr(f->rule, ==, p->rule);
          g_assert_cmpuint(f->evidence->len, ==, p->evidence->len);
          for (guint e = 0; e < f->evidence->len; e++)
            g_assert_cmpint(g_array_index(f->evidence, PfprofEvidence, e).start_ns, ==,
                            g_array_index(p->evidence, PfprofEvidence, e).start_ns);
          if (g_str_equal(f->rule, "rank-imbalance"))
            continue;
          g_assert_nonnull(f->occurrences);
          g_assert_cmpuint(f->occurrences->len, ==, f->count);
          n_checked++;
          if (g_str_equal(f->rule, rule))
            g_assert_cmpuint(f->occurrences->len, >, PFPROF_RULE_MAX_EVIDENCE);
        }
      g_assert_cmpuint(n_findings(a, rule), ==, 1);
      g_assert_cmpuint(n_checked, >=, 1);
    }
}

/* A planted host gap (Python at each step's end, GPU idle, nothing
 * queued) is host-bound idle and the host-bound finding; the input
 * pipeline is not blamed. */
static void
test_host_bound(void)
{
  SimOptions so;

  sim_options_init (&so);
  so.host_gap_ns = 1000000;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    const PfprofFinding *f = finding (a, "host-bound");

    check_ledger (a);
    check_finding_complete (f);
    assert_near (mean_bucket (a, PFPROF_LEDGER_HOST_BOUND), 1000000 + 77000, 0.05);
    /* Up to the length of the step's burst of waits and copy calls (the
     * 200 µs DataLoader wait, then 130 µs to the prefetch copy's call) of
     * the idle after it is charged to the burst, as the refill of the
     * GPU's queue. */
    g_assert_cmpint (f->est_savings_ns, >=, 1000000 - so.data_wait_ns - 150000);
    g_assert_cmpint (f->est_savings_ns, <=, 1000000 + 50000);
    g_assert_cmpuint (n_findings (a, "input-starved"), ==, 0);
    g_assert_nonnull (strstr (f->message, "not what holds this GPU up"));
    g_assert_nonnull (strstr (f->fix, "reduce-overhead"));
    g_assert_nonnull (strstr (f->fix, "CUDAGraph"));
  }
  /* Borderline: 150 µs of a ~4.4 ms step is under min-share (5%). */
  so.host_gap_ns = 150000;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);

    check_ledger (a);
    g_assert_cmpuint (n_findings (a, "host-bound"), ==, 0);
  }
  so.host_gap_ns = 700000;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);

    g_assert_cmpuint (n_findings (a, "host-bound"), ==, 1);
  }
  /* Negative: a slow loader is input-starved, and the refill after its
   * waits is not host-bound's. */
  so.host_gap_ns = 0;
  so.data_wait_ns = 3000000;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);

    check_ledger (a);
    g_assert_cmpuint (n_findings (a, "input-starved"), ==, 1);
    g_assert_cmpuint (n_findings (a, "host-bound"), ==, 0);
    /* Each step's GPU side ends where the next step's work begins, after
     * the next wait: the first steady step's own wait lies in the warm-up
     * step's window, so 28 of the 29 steady windows hold a wait. */
    assert_near (mean_bucket (a, PFPROF_LEDGER_DATA_WAIT), 3000000 * 28 / 29, 0.01);
  }
}

/* The cudaStreamSynchronize of a blocking copy is the copy's: sync-in-loop
 * does not count it, serialized-copy does and says non_blocking=True. */
static void
test_blocking_copy_sync (void)
{
  SimOptions so;

  sim_options_init (&so);
  so.copy_mode = SIM_COPY_SERIALIZED;
  so.blocking_copy = TRUE;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    const PfprofFinding *f = finding (a, "serialized-copy");

    check_ledger (a);
    g_assert_cmpuint (n_findings (a, "sync-in-loop"), ==, 0);
    g_assert_nonnull (strstr (f->message, "own cudaStreamSynchronize"));
    g_assert_nonnull (strstr (f->fix, "non_blocking=True"));
    g_assert_cmpint (mean_bucket (a, PFPROF_LEDGER_SYNC_STREAM), ==, 0);
    g_assert_cmpint (mean_bucket (a, PFPROF_LEDGER_SYNC_COPY) + mean_bucket (a, PFPROF_LEDGER_HOST_BOUND),
                     >, 20000);
  }
  /* A sync the program asks for (.item(): a DtoH copy, then the sync)
   * stays sync-in-loop's, beside the copy's own. */
  so.sync_each_step = TRUE;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    const PfprofFinding *f = finding (a, "sync-in-loop");

    check_ledger (a);
    g_assert_cmpuint (f->count, <=, a->n_steady_steps + 1);
    g_assert_cmpint (mean_bucket (a, PFPROF_LEDGER_SYNC_COPY), >=, 0);
  }
  /* Non-blocking copies issue no sync. */
  so.sync_each_step = FALSE;
  so.blocking_copy = FALSE;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    const PfprofFinding *f = finding (a, "serialized-copy");

    g_assert_null (strstr (f->message, "own cudaStreamSynchronize"));
    g_assert_cmpint (mean_bucket (a, PFPROF_LEDGER_SYNC_COPY), ==, 0);
  }
}

/* Materiality: a finding under min-saving-share of the mean step is info,
 * whatever its rule's severity. */
static void
test_materiality (void)
{
  SimOptions so;
  g_autoptr (GError) error = NULL;

  sim_options_init (&so);
  so.copy_mode = SIM_COPY_SERIALIZED;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    const PfprofFinding *f = finding (a, "serialized-copy");

    g_assert_cmpint (f->severity, ==, PFPROF_SEVERITY_WARNING);
    g_assert_false (f->immaterial);
  }
  {
    g_autoptr (PfprofAnalysisOptions) o = pfprof_analysis_options_new ();
    g_autoptr (PfprofAnalysis) a = NULL;
    const PfprofFinding *f;

    g_assert_true (pfprof_analysis_options_load_data (o, "[analysis]\nmin-saving-share=0.9\n", &error));
    a = analyze_with (sim_build (&so), o);
    f = finding (a, "serialized-copy");
    g_assert_cmpint (f->severity, ==, PFPROF_SEVERITY_INFO);
    g_assert_true (f->immaterial);
    g_assert_false (pfprof_analysis_fired_at (a, PFPROF_SEVERITY_WARNING));
  }
  {
    g_autoptr (PfprofAnalysisOptions) o = pfprof_analysis_options_new ();

    g_assert_false (pfprof_analysis_options_load_data (o, "[analysis]\nmin-saving-share=2\n", &error));
    g_clear_error (&error);
  }
}

static void
test_small_transfers (void)
{
  SimOptions so;

  sim_options_init (&so);
  so.small_copies = 48;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    const PfprofFinding *f = finding (a, "small-transfers");

    check_finding_complete (f);
    g_assert_cmpuint (f->count, >=, 48 * 27);
    g_assert_cmpint (f->severity, ==, PFPROF_SEVERITY_INFO);
  }
  so.small_copies = 0;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "small-transfers"), ==, 0);
  }
  so.small_copies = 15;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "small-transfers"), ==, 0);
  }
  so.small_copies = 16;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "small-transfers"), ==, 1);
  }
}

/* Small copies while the GPU idles. Issued back to back (a dict of
 * tensors .to()'d in a loop), the host's time from one call to the next is
 * each copy's cost, and batching saves it; scattered through a model's code
 * with other work between them (torchvision's detection heads), only the
 * calls themselves and their copy time are the copies': the rest is the
 * host's pace, host-bound's. */
static void
test_small_transfers_idle (void)
{
  SimOptions so;
  const gint64 n = 48, spacing = 40000, call = 5000, copy = 3000;

  sim_options_init (&so);
  so.copy_mode = SIM_COPY_NONE;
  so.small_idle = TRUE;
  so.small_copies = n;
  so.small_spacing_ns = spacing;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    const PfprofFinding *f = finding (a, "small-transfers");

    check_ledger (a);
    check_finding_complete (f);
    g_assert_cmpint (f->est_savings_ns, >=, (gint64) (0.8 * (double) ((n - 1) * (spacing - copy))));
    /* At most the run, and the refill after it: the step's other ~100 µs
     * of host-bound idle (after the DataLoader wait, before the kernels,
     * at the step's end). */
    g_assert_cmpint (f->est_savings_ns, <=, n * spacing + 150000);
    g_assert_false (f->immaterial);
    g_assert_nonnull (strstr (f->message, "98% of the calls came back to back"));
    /* The idle while the host issued them is the copies', not host-bound's. */
    g_assert_cmpuint (n_findings (a, "host-bound"), ==, 0);
  }
  so.small_interleaved = TRUE;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    const PfprofFinding *f = finding (a, "small-transfers");
    const PfprofFinding *h = finding (a, "host-bound");

    check_ledger (a);
    g_assert_cmpint (f->est_savings_ns, >, 0);
    g_assert_cmpint (f->est_savings_ns, <=, n * (call + copy));
    g_assert_nonnull (strstr (f->message, "0% of the calls came back to back"));
    /* The GPU waits for the host between the copies. */
    g_assert_cmpint (h->est_savings_ns, >=, (n - 1) * (spacing - copy - 1000) / 2);
    g_assert_cmpint (h->est_savings_ns, >, 3 * f->est_savings_ns);
    g_assert_cmpuint (n_findings (a, "input-starved"), ==, 0);
  }
}

/* A small model whose library reads values back between kernels (PyG's
 * scatter without dim_size, nonzero): the host runs Python between every
 * two kernels, with a tiny copy and a sync in each gap, all within a few
 * milliseconds. The GPU mostly waits for the host: host-bound, though
 * waits come every few hundred microseconds (each claims only the refill
 * after it, at most its own length). */
static void
test_host_bound_between_syncs (void)
{
  SimOptions so;

  sim_options_init (&so);
  so.copy_mode = SIM_COPY_NONE;
  so.compute_ns = 800000;
  so.kernel_gap_ns = 600000;
  so.sync_between_kernels = TRUE;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    const PfprofFinding *f = finding (a, "host-bound");

    check_ledger (a);
    check_finding_complete (f);
    g_assert_cmpint (mean_bucket (a, PFPROF_LEDGER_HOST_BOUND), >=, 7 * 600000);
    g_assert_cmpint (f->est_savings_ns, >=, (gint64) (0.9 * 7 * 600000));
    g_assert_cmpint (f->severity, ==, PFPROF_SEVERITY_WARNING);
    g_assert_cmpuint (n_findings (a, "input-starved"), ==, 0);
    for (guint i = 0; i < a->findings->len; i++)
      {
        const PfprofFinding *o = g_ptr_array_index (a->findings, i);

        if (o != f)
          g_assert_true (o->immaterial);
      }
  }
  /* Borderline, with 8 ms of kernels a step: 7 gaps of ~45 µs (20 µs to
   * the sync, 25 µs of Python after it) are under min-share (5%) of the
   * step; of ~80 µs, over it. */
  so.compute_ns = 8000000;
  so.kernel_gap_ns = 25000;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);

    check_ledger (a);
    g_assert_cmpuint (n_findings (a, "host-bound"), ==, 0);
  }
  so.kernel_gap_ns = 60000;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);

    check_ledger (a);
    g_assert_cmpuint (n_findings (a, "host-bound"), ==, 1);
  }
}

static void
test_pinned_alloc (void)
{
  SimOptions so;

  sim_options_init (&so);
  so.host_allocs = 1;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    const PfprofFinding *f = finding (a, "pinned-alloc-in-loop");

    check_finding_complete (f);
    g_assert_nonnull (strstr (f->message, "cudaHostAlloc"));
    g_assert_nonnull (strstr (f->fix, "pin_memory=True"));
  }
  /* Negative: the 4 start-up allocations only. */
  sim_options_init (&so);
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "pinned-alloc-in-loop"), ==, 0);
  }
  /* Either side of min-step-fraction (25% of ~29 steady steps): every
   * 5th step is 6 steps (21%), every 3rd is 10 (34%). */
  so.host_allocs_every = 5;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "pinned-alloc-in-loop"), ==, 0);
  }
  so.host_allocs_every = 3;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "pinned-alloc-in-loop"), ==, 1);
  }
}

static void
test_record_stream (void)
{
  SimOptions so;

  sim_options_init (&so);
  so.stall_episodes = 4;
  so.polls_per_step = 8;
  so.polls_not_ready = TRUE;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    const PfprofFinding *f = finding (a, "record-stream-stall");

    dump_findings (a);
    check_finding_complete (f);
    g_assert_cmpuint (f->count, ==, 4);
    /* Each episode idles the GPU ~3.4 ms (16 syncs, 6 frees, 6 mallocs). */
    g_assert_cmpint (f->time_ns, >, 4 * 3000000);
    g_assert_cmpint (f->est_savings_ns, >, 0);
    g_assert_nonnull (strstr (f->fix, "record_stream"));
    g_assert_nonnull (strstr (f->fix, "wait_stream"));
    /* The stalls' event syncs are not reported as sync-in-loop. */
    g_assert_cmpuint (n_findings (a, "sync-in-loop"), ==, 0);
  }
  /* Episodes every step, closer together than burst-gap-ms: each is still
   * its own episode (a free ends a burst), as on the H200. */
  so.stall_episodes = 20;
  so.compute_ns = 1000000; /* last malloc to next sync: ~1.3 ms */
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (finding (a, "record-stream-stall")->count, ==, 20);
  }
  so.compute_ns = 4000000;
  /* Negative: polls that find their event ready, no stalls; autotuning
   * syncs and frees at start-up only. */
  sim_options_init (&so);
  so.polls_per_step = 8;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "record-stream-stall"), ==, 0);
  }
  /* Borderline on min-episodes (3). */
  so.stall_episodes = 2;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "record-stream-stall"), ==, 0);
  }
  so.stall_episodes = 3;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "record-stream-stall"), ==, 1);
  }
  /* Pool growth: not-ready polls and allocations that keep coming
   * (8 spread over the steady steps: 4 in its second half). */
  sim_options_init (&so);
  so.polls_per_step = 8;
  so.polls_not_ready = TRUE;
  so.mallocs_total = 8;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    const PfprofFinding *f = finding (a, "record-stream-stall");

    g_assert_nonnull (strstr (f->title, "not-ready"));
  }
  /* Borderline: growth that stops early (a cache filling up, as a healthy
   * record_stream prefetcher shows on the H200): 4 allocations in the
   * first steady steps only. */
  so.mallocs_total = 4;
  so.mallocs_early_only = TRUE;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "record-stream-stall"), ==, 0);
  }
  so.mallocs_early_only = FALSE;
  so.polls_not_ready = FALSE;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_assert_cmpuint (n_findings (a, "record-stream-stall"), ==, 0);
  }
}

/* When the GPU idles most of the step the report says so first, and says
 * whether the loop waited for data or the host was busy elsewhere. */
static void
test_headline (void)
{
  SimOptions so;

  sim_options_init (&so);
  so.data_wait_ns = 20000000;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_autofree char *h = pfprof_report_headline (a);
    g_autoptr (GString) out = g_string_new (NULL);
    PfprofReportOptions o;

    g_assert_nonnull (strstr (h, "waited for the DataLoader: the input pipeline"));
    pfprof_report_options_init (&o);
    pfprof_report_render (a, &o, out);
    /* First thing after the header, before devices and findings. */
    g_assert_nonnull (strstr (out->str, "The GPU idled"));
    g_assert_true (strstr (out->str, "The GPU idled") < strstr (out->str, "Steady state per device"));
  }
  sim_options_init (&so);
  so.host_gap_ns = 10000000;
  {
    g_autoptr (PfprofAnalysis) a = analyze (&so);
    g_autofree char *h = pfprof_report_headline (a);

    g_assert_nonnull (strstr (h, "busy elsewhere"));
    g_assert_cmpuint (n_findings (a, "input-starved"), ==, 0);
  }
}

/* Several problems at once: ordered by estimated savings. */
static void
test_ordering (void)
{
  SimOptions so;
  g_autoptr (PfprofAnalysis) a = NULL;

  sim_options_init (&so);
  so.data_wait_ns = 10000000;
  so.copy_mode = SIM_COPY_SERIALIZED;
  so.small_copies = 20;
  so.sync_each_step = TRUE;
  a = analyze (&so);
  dump_findings (a);
  g_assert_cmpuint (a->findings->len, >=, 3);
  g_assert_cmpstr (((PfprofFinding *) g_ptr_array_index (a->findings, 0))->rule, ==, "input-starved");
  for (guint i = 1; i < a->findings->len; i++)
    g_assert_cmpint (((PfprofFinding *) g_ptr_array_index (a->findings, i - 1))->est_savings_ns, >=,
                     ((PfprofFinding *) g_ptr_array_index (a->findings, i))->est_savings_ns);
  g_assert_true (pfprof_analysis_fired_at (a, PFPROF_SEVERITY_ERROR));
  /* The 10 ms DataLoader wait after each .item() is input-starved's; the
   * sync is charged only the lead it threw away, its 1.5 ms wait (the host
   * could have waited for data while the GPU still had that much queued). */
  g_assert_cmpint (finding (a, "sync-in-loop")->est_savings_ns, <=, 1504000);
  g_assert_cmpint (finding (a, "sync-in-loop")->est_savings_ns, <,
                   finding (a, "input-starved")->est_savings_ns / 5);
}

/* ---- options --------------------------------------------------------- */

static void
test_options (void)
{
  SimOptions so;
  g_autoptr (GError) error = NULL;

  sim_options_init (&so);
  so.small_copies = 48;
  so.sync_each_step = TRUE;
  {
    g_autoptr (PfprofAnalysisOptions) o = pfprof_analysis_options_new ();
    g_autoptr (PfprofAnalysis) a = NULL;

    g_assert_true (pfprof_analysis_options_load_data (
      o, "# raise the bar\n[small-transfers]\nmin-per-step=50\n[sync-in-loop]\nseverity=error\n", &error));
    g_assert_no_error (error);
    a = analyze_with (sim_build (&so), o);
    g_assert_cmpuint (n_findings (a, "small-transfers"), ==, 0);
    g_assert_cmpint (finding (a, "sync-in-loop")->severity, ==, PFPROF_SEVERITY_ERROR);
  }
  {
    g_autoptr (PfprofAnalysisOptions) o = pfprof_analysis_options_new ();
    g_autoptr (PfprofAnalysis) a = NULL;

    g_assert_true (pfprof_analysis_options_select_rules (o, "small-transfers", &error));
    a = analyze_with (sim_build (&so), o);
    g_assert_cmpuint (a->rules_run->len, ==, 1);
    g_assert_cmpuint (a->findings->len, ==, 1);
  }
  {
    g_autoptr (PfprofAnalysisOptions) o = pfprof_analysis_options_new ();
    g_autoptr (PfprofAnalysis) a = NULL;

    g_assert_true (pfprof_analysis_options_select_rules (o, "-small-transfers", &error));
    a = analyze_with (sim_build (&so), o);
    {
      guint n_rules;

      pfprof_rules_get (&n_rules);
      g_assert_cmpuint (a->rules_run->len, ==, n_rules - 1);
    }
    g_assert_cmpuint (n_findings (a, "small-transfers"), ==, 0);
    g_assert_cmpuint (n_findings (a, "sync-in-loop"), ==, 1);
  }
  {
    g_autoptr (PfprofAnalysisOptions) o = pfprof_analysis_options_new ();
    static const char *const bad[] = {
      "[small-transfers]\nmin-per-stepp=3\n", "[no-such-rule]\nenabled=true\n",
      "[small-transfers]\nmin-per-step=lots\n", "[small-transfers]\nseverity=fatal\n",
      "[analysis]\nstep-pattern=(\n", "[analysis]\nwarmup-steps=-1\n", "not a key file",
      "[small-transfers]\nmin-per-step=-4\n",
    };

    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        g_autoptr (GError) e = NULL;

        g_assert_false (pfprof_analysis_options_load_data (o, bad[i], &e));
        g_assert_nonnull (e);
        g_test_message ("rejected: %s", e->message);
      }
    g_assert_false (pfprof_analysis_options_select_rules (o, "pageable", &error));
    g_clear_error (&error);
    g_assert_false (pfprof_analysis_options_load_file (o, "/nonexistent/pfprof.conf", &error));
  }
}

/* Every default threshold named in the rules is documented. */
static void
test_rules_documented (void)
{
  const char *doc_path = g_getenv ("PFPROF_REPORT_DOC");
  g_autofree char *doc = NULL;
  guint n;
  const PfprofRule *const *rules = pfprof_rules_get (&n);

  if (doc_path == NULL)
    {
      g_test_skip ("PFPROF_REPORT_DOC not set");
      return;
    }
  g_assert_true (g_file_get_contents (doc_path, &doc, NULL, NULL));
  for (guint i = 0; i < n; i++)
    {
      g_assert_nonnull (strstr (doc, rules[i]->id));
      for (guint p = 0; p < rules[i]->n_params; p++)
        {
          g_autofree char *key = g_strdup_printf ("`%s`", rules[i]->params[p].key);
          if (strstr (doc, key) == NULL)
            g_error ("%s: threshold %s not in docs/report-format.md", rules[i]->id, key);
        }
    }
}

/* ---- report formats and escaping ------------------------------------- */

#define NASTY "train_step\033[31m\"<b>&amp;</b>|*_`\n\r\007\033]0;x\007\xff end"

static PfprofAnalysis *
nasty_analysis (void)
{
  SimOptions so;
  PfprofTrace *t;

  sim_options_init (&so);
  so.step_nvtx = TRUE;
  so.step_name = NASTY;
  so.pageable = TRUE;
  so.copy_ns = 4000000;
  t = sim_build (&so);
  g_free (t->path);
  t->path = g_strdup ("/tmp/evil\"\n\033[2J<x>&.pfprof");
  return analyze_with (t, NULL);
}

static void
test_escape_text (void)
{
  g_autoptr (PfprofAnalysis) a = nasty_analysis ();
  g_autoptr (GString) out = g_string_new (NULL);
  PfprofReportOptions o;

  pfprof_report_options_init (&o);
  g_assert_cmpstr (g_array_index (a->trace_summaries, PfprofTraceSummary, 0).step_source, ==, "nvtx");
  pfprof_report_render (a, &o, out);
  g_test_message ("%s", out->str);
  g_assert_null (strchr (out->str, '\033'));
  g_assert_null (strchr (out->str, '\007'));
  g_assert_null (strchr (out->str, '\r'));
  g_assert_true (g_utf8_validate (out->str, -1, NULL));
  g_assert_nonnull (strstr (out->str, "pageable-transfer"));
  /* Fits the width (code lines of fixes are short too). */
  {
    g_auto (GStrv) lines = g_strsplit (out->str, "\n", -1);
    for (guint i = 0; lines[i]; i++)
      if (g_utf8_strlen (lines[i], -1) > 80)
        g_error ("line longer than 80 columns: %s", lines[i]);
  }
  /* With colour, our own sequences only. */
  g_string_truncate (out, 0);
  o.color = TRUE;
  pfprof_report_render (a, &o, out);
  g_assert_null (strstr (out->str, "\033[31m\""));
  g_assert_null (strstr (out->str, "\033]"));
  g_assert_null (strstr (out->str, "\033[2J"));
}

static void
test_escape_markdown (void)
{
  g_autoptr (PfprofAnalysis) a = nasty_analysis ();
  g_autoptr (GString) out = g_string_new (NULL);
  PfprofReportOptions o;

  pfprof_report_options_init (&o);
  o.format = PFPROF_REPORT_MARKDOWN;
  pfprof_report_render (a, &o, out);
  g_assert_null (strstr (out->str, "<x>"));
  g_assert_null (strstr (out->str, "<b>"));
  g_assert_null (strchr (out->str, '\033'));
  g_assert_null (strchr (out->str, '\007'));
  g_assert_nonnull (strstr (out->str, "&lt;x&gt;"));
  g_assert_nonnull (strstr (out->str, "`pageable-transfer`"));
}

static void
test_escape_json_xml (void)
{
  g_autoptr (GString) out = g_string_new (NULL);

  pfprof_escape_json (out, "a\"b\\c\nd\033e\xff\xe2\x80\xa8");
  g_assert_cmpstr (out->str, ==, "\"a\\\"b\\\\c\\nd\\u001be\xef\xbf\xbd\\u2028\"");
  g_string_truncate (out, 0);
  pfprof_escape_xml (out, "<a href='x'>&\"\033\n");
  g_assert_cmpstr (out->str, ==, "&lt;a href=&apos;x&apos;&gt;&amp;&quot;&#10;");
  g_string_truncate (out, 0);
  /* C1 CSI encoded in UTF-8 is dropped; a raw 0x9b byte is not UTF-8
   * and becomes U+FFFD. */
  pfprof_escape_terminal (out, "ok\033[31mred\007\xc2\x9b" "1m\tz\x9b", FALSE);
  g_assert_cmpstr (out->str, ==, "ok[31mred1m z\xef\xbf\xbd");
  /* CSV: a formula sign behind a dropped control is still a formula
   * sign; bidi controls are replaced as in every other format. */
  g_string_truncate (out, 0);
  pfprof_escape_csv (out, "\t=HYPERLINK(\"x\")");
  g_assert_cmpstr (out->str, ==, "\"'=HYPERLINK(\"\"x\"\")\"");
  g_string_truncate (out, 0);
  pfprof_escape_csv (out, "a\xe2\x80\xae" "b");
  g_assert_cmpstr (out->str, ==, "\"a\xef\xbf\xbd" "b\"");
  g_string_truncate (out, 0);
  pfprof_escape_csv (out, "-1");
  g_assert_cmpstr (out->str, ==, "\"'-1\"");
}

/* The JSON every output writes: commas, nesting, nulls for what JSON
 * cannot hold, exact fixed-point microseconds, one element a line. */
static void
test_json_writer (void)
{
  g_autoptr (GString) out = g_string_new ("x");
  PfprofJsonWriter w;

  pfprof_json_writer_init (&w, out);
  pfprof_json_writer_begin_object (&w);
  pfprof_json_writer_member_string (&w, "s", "plain");
  pfprof_json_writer_member_string (&w, "k\"ey", "t\tb");
  pfprof_json_writer_member_string (&w, "none", NULL);
  pfprof_json_writer_member_int (&w, "min", G_MININT64);
  pfprof_json_writer_member_uint (&w, "max", G_MAXUINT64);
  pfprof_json_writer_member_double (&w, "d", 0.1234567, 6);
  pfprof_json_writer_member_double (&w, "nan", NAN, 6);
  pfprof_json_writer_key (&w, "us");
  pfprof_json_writer_begin_array (&w);
  pfprof_json_writer_fixed (&w, -1500, 3);
  pfprof_json_writer_fixed (&w, 7, 3);
  pfprof_json_writer_fixed (&w, 42, 0);
  pfprof_json_writer_end_array (&w);
  pfprof_json_writer_key (&w, "lines");
  pfprof_json_writer_begin_array (&w);
  pfprof_json_writer_new_line (&w);
  pfprof_json_writer_begin_object (&w);
  pfprof_json_writer_end_object (&w);
  pfprof_json_writer_new_line (&w);
  pfprof_json_writer_bool (&w, TRUE);
  pfprof_json_writer_null (&w);
  pfprof_json_writer_end_array (&w);
  pfprof_json_writer_end_object (&w);
  g_assert_cmpstr (out->str, ==,
                   "x{\"s\":\"plain\",\"k\\\"ey\":\"t\\tb\",\"none\":null,"
                   "\"min\":-9223372036854775808,\"max\":18446744073709551615,"
                   "\"d\":0.123457,\"nan\":null,\"us\":[-1.500,0.007,42],"
                   "\"lines\":[\n{},\ntrue,null]}");
}

/* Medians and nearest-rank quantiles as the reports state them. */
static void
test_quantile (void)
{
  gint64 odd[] = { 9, 1, 5 }, even[] = { 4, 1, 3, 2 }, ten[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

  g_assert_cmpint (pfprof_quantile_median_i64 (odd, 3), ==, 5);
  g_assert_cmpint (pfprof_quantile_median_i64 (even, 4), ==, 2); /* (2 + 3) / 2, rounded down */
  g_assert_cmpint (pfprof_quantile_median_i64 (NULL, 0), ==, 0);
  g_assert_cmpint (pfprof_quantile_sorted_i64 (ten, 10, 0.10), ==, 1);
  g_assert_cmpint (pfprof_quantile_sorted_i64 (ten, 10, 0.90), ==, 9);
  g_assert_cmpint (pfprof_quantile_sorted_i64 (ten, 10, 1.0), ==, 10);
}

/* Many values sort ascending whatever their bytes share: negative ones,
 * the extremes, duplicates, values that differ in one byte only. */
static void
test_quantile_sort_many (void)
{
  for (guint kind = 0; kind < 4; kind++)
    {
      const guint n = 5000;
      g_autofree gint64 *v = g_new (gint64, n);
      GRand *rand = g_rand_new_with_seed (kind + 1);
      guint64 sum_before = 0, sum_after = 0; /* wrapping */

      for (guint i = 0; i < n; i++)
        {
          guint64 r = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);

          v[i] = kind == 0   ? (gint64) r                               /* anything, sign included */
                 : kind == 1 ? (gint64) (r % 7) - 3                     /* few, around zero */
                 : kind == 2 ? 1000000 + (gint64) ((r & 0xff) << 16)    /* one byte differs */
                             : (i % 3 == 0 ? G_MININT64 : i % 3 == 1 ? G_MAXINT64 : 0);
          sum_before += (guint64) v[i];
        }
      g_rand_free (rand);
      pfprof_quantile_sort_i64 (v, n);
      for (guint i = 0; i < n; i++)
        {
          if (i > 0)
            g_assert_cmpint (v[i - 1], <=, v[i]);
          sum_after += (guint64) v[i];
        }
      g_assert_cmpuint (sum_after, ==, sum_before); /* the same values */
    }
}

/* Every CUPTI kind has its docs/trace-format.md name; others "unknown". */
static void
test_kind_names (void)
{
  g_assert_cmpstr (pfprof_kind_names_copy (PFPROF_COPY_KIND_HTOD), ==, "HtoD");
  g_assert_cmpstr (pfprof_kind_names_copy (3), ==, "HtoA");
  g_assert_cmpstr (pfprof_kind_names_copy (PFPROF_COPY_KIND_PTOP), ==, "PtoP");
  g_assert_cmpstr (pfprof_kind_names_copy (PFPROF_COPY_KIND_UNKNOWN), ==, "unknown");
  g_assert_cmpstr (pfprof_kind_names_copy (200), ==, "unknown");
  g_assert_cmpstr (pfprof_kind_names_memory (PFPROF_MEMORY_KIND_PAGEABLE), ==, "pageable");
  g_assert_cmpstr (pfprof_kind_names_memory (PFPROF_MEMORY_KIND_MANAGED_STATIC), ==, "managed-static");
  g_assert_cmpstr (pfprof_kind_names_memory (8), ==, "unknown");
}

/* Odd but loadable input: empty traces, ids at their limits, events with
 * no API record, zero-length events, a single step. Nothing may crash, and
 * every format still renders. */
static void
test_odd_input (void)
{
  g_autoptr (GPtrArray) traces = g_ptr_array_new ();
  g_autoptr (PfprofAnalysis) a = NULL;
  g_autoptr (GError) error = NULL;
  PfprofTrace *t = pfprof_trace_new ();
  PfprofKernelRecord k = { 0 };
  PfprofMemcpyRecord m = { 0 };
  PfprofApiRecord c = { 0 };
  PfprofNvtxRecord n = { 0 };

  g_ptr_array_add (traces, pfprof_trace_new ()); /* empty */
  k.start_ns = 5;
  k.end_ns = 5;
  k.device_id = PFPROF_NONE;
  k.stream_id = PFPROF_NONE;
  k.correlation_id = PFPROF_NONE;
  k.name_id = PFPROF_NONE;
  for (guint i = 0; i < 20; i++)
    {
      k.start_ns = 1000 * i;
      k.end_ns = 1000 * i + 10;
      g_array_append_val (t->tables[PFPROF_TABLE_KERNELS], k);
    }
  m.start_ns = 0;
  m.end_ns = 100000;
  m.bytes = G_MAXUINT64;
  m.copy_kind = PFPROF_COPY_KIND_HTOD;
  m.src_kind = PFPROF_MEMORY_KIND_PAGEABLE;
  m.device_id = PFPROF_NONE;
  m.correlation_id = 7;
  g_array_append_val (t->tables[PFPROF_TABLE_MEMCPYS], m);
  c.start_ns = 0;
  c.end_ns = 10;
  c.correlation_id = PFPROF_NONE - 1; /* sparse ids: the hash path */
  c.name_id = PFPROF_NONE;
  g_array_append_val (t->tables[PFPROF_TABLE_API_CALLS], c);
  n.start_ns = 0;
  n.end_ns = 50;
  n.kind = PFPROF_NVTX_RANGE;
  n.name_id = sim_intern (t, "step");
  n.domain_id = PFPROF_NONE;
  g_array_append_val (t->tables[PFPROF_TABLE_NVTX], n);
  pfprof_trace_sort (t);
  g_ptr_array_add (traces, t);
  a = sim_analyze (g_steal_pointer (&traces), NULL);
  g_assert_cmpuint (a->traces->len, ==, 2);
  for (int f = PFPROF_REPORT_TEXT; f <= PFPROF_REPORT_JUNIT; f++)
    {
      g_autoptr (GString) out = g_string_new (NULL);
      PfprofReportOptions o;

      pfprof_report_options_init (&o);
      o.format = (PfprofReportFormat) f;
      pfprof_report_render (a, &o, out);
      g_assert_cmpuint (out->len, >, 0);
      g_assert_true (g_utf8_validate (out->str, -1, NULL));
    }
  /* Times at both ends of int64 next to a normal trace: the outliers are
   * left out (and counted), the rest analyzed as usual, no overflow
   * (UBSan in the sanitizer build). */
  {
    SimOptions so;
    PfprofTrace *x;
    PfprofKernelRecord kk = { 0 };
    PfprofNvtxRecord nn = { 0 };
    g_autoptr (PfprofAnalysis) b = NULL;
    g_autoptr (GPtrArray) one = g_ptr_array_new ();

    sim_options_init (&so);
    so.data_wait_ns = 20000000;
    x = sim_build (&so);
    kk.start_ns = kk.end_ns = G_MININT64;
    g_array_append_val (x->tables[PFPROF_TABLE_KERNELS], kk);
    kk.start_ns = kk.end_ns = G_MAXINT64;
    g_array_append_val (x->tables[PFPROF_TABLE_KERNELS], kk);
    nn.start_ns = G_MININT64;
    nn.end_ns = G_MAXINT64;
    nn.kind = PFPROF_NVTX_RANGE;
    nn.name_id = sim_intern (x, "step");
    g_array_append_val (x->tables[PFPROF_TABLE_NVTX], nn);
    pfprof_trace_sort (x);
    g_ptr_array_add (one, x);
    b = sim_analyze (g_steal_pointer (&one), NULL);
    g_assert_cmpuint (g_array_index (b->trace_summaries, PfprofTraceSummary, 0).n_out_of_range, ==, 3);
    g_assert_cmpuint (b->steps->len, ==, 30);
    g_assert_cmpuint (n_findings (b, "input-starved"), ==, 1);
    for (int f = PFPROF_REPORT_TEXT; f <= PFPROF_REPORT_JUNIT; f++)
      {
        g_autoptr (GString) out = g_string_new (NULL);
        PfprofReportOptions o;

        pfprof_report_options_init (&o);
        o.format = (PfprofReportFormat) f;
        pfprof_report_render (b, &o, out);
        g_assert_cmpuint (out->len, >, 0);
      }
  }
  /* No traces at all. */
  {
    g_autoptr (PfprofAnalysis) e = sim_analyze (g_ptr_array_new (), NULL);
    g_autoptr (GString) out = g_string_new (NULL);
    PfprofReportOptions o;

    pfprof_report_options_init (&o);
    pfprof_report_render (e, &o, out);
    g_assert_nonnull (strstr (out->str, "No input-pipeline problem found"));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analyzer/interval-set", test_interval_set);
  g_test_add_func ("/analyzer/interval-set/windows", test_interval_set_windows);
  g_test_add_func ("/analyzer/clean", test_clean);
  g_test_add_func ("/analyzer/keep-occurrences", test_keep_occurrences);
  g_test_add_func ("/analyzer/steps/nvtx", test_steps_nvtx);
  g_test_add_func ("/analyzer/steps/periodic", test_steps_periodic);
  g_test_add_func ("/analyzer/steps/pattern", test_step_pattern);
  g_test_add_func ("/analyzer/steps/few-iterations", test_steps_few_iterations);
  g_test_add_func ("/analyzer/steps/warmup-fixed", test_warmup_fixed);
  g_test_add_func ("/analyzer/steps/warmup-detected", test_warmup_detected);
  g_test_add_func ("/analyzer/two-traces", test_two_traces);
  g_test_add_func ("/analyzer/startup-not-flagged", test_startup_not_flagged);
  g_test_add_func ("/analyzer/rule/pageable-transfer", test_pageable);
  g_test_add_func ("/analyzer/rule/serialized-copy", test_serialized);
  g_test_add_func ("/analyzer/rule/late-prefetch", test_late_prefetch);
  g_test_add_func ("/analyzer/rule/input-starved", test_input_starved);
  g_test_add_func ("/analyzer/rule/sync-in-loop", test_sync_in_loop);
  g_test_add_func ("/analyzer/rule/sync-in-loop/cost", test_sync_in_loop_cost);
  g_test_add_func ("/analyzer/steps/host-ahead", test_steps_host_ahead);
  g_test_add_func ("/analyzer/steps/sampled-windows", test_sampled_windows);
  g_test_add_func ("/analyzer/trace/stale-correlation-ids", test_stale_correlation_ids);
  g_test_add_func ("/analyzer/ledger", test_ledger);
  g_test_add_func ("/analyzer/ledger/host-bound", test_host_bound);
  g_test_add_func ("/analyzer/ledger/graph", test_ledger_graph);
  g_test_add_func ("/analyzer/ledger/blocking-copy-sync", test_blocking_copy_sync);
  g_test_add_func ("/analyzer/ledger/materiality", test_materiality);
  g_test_add_func ("/analyzer/rule/small-transfers", test_small_transfers);
  g_test_add_func ("/analyzer/rule/small-transfers-idle", test_small_transfers_idle);
  g_test_add_func ("/analyzer/ledger/host-bound-between-syncs", test_host_bound_between_syncs);
  g_test_add_func ("/analyzer/rule/pinned-alloc-in-loop", test_pinned_alloc);
  g_test_add_func ("/analyzer/rule/record-stream-stall", test_record_stream);
  g_test_add_func ("/analyzer/rule/rank-imbalance", test_rank_imbalance);
  g_test_add_func ("/analyzer/ordering", test_ordering);
  g_test_add_func ("/analyzer/headline", test_headline);
  g_test_add_func ("/analyzer/options", test_options);
  g_test_add_func ("/analyzer/odd-input", test_odd_input);
  g_test_add_func ("/analyzer/rules-documented", test_rules_documented);
  g_test_add_func ("/analyzer/escape/text", test_escape_text);
  g_test_add_func ("/analyzer/escape/markdown", test_escape_markdown);
  g_test_add_func ("/analyzer/escape/json-xml", test_escape_json_xml);
  g_test_add_func ("/analyzer/json-writer", test_json_writer);
  g_test_add_func ("/analyzer/quantile", test_quantile);
  g_test_add_func ("/analyzer/quantile/sort-many", test_quantile_sort_many);
  g_test_add_func ("/analyzer/kind-names", test_kind_names);
  return g_test_run ();
}
