/* SPDX-License-Identifier: MIT */
/* pfprof-report-json.c: the "pfprof-report/1" JSON contract.
 *
 * The layout is documented key by key in docs/report-format.md and
 * checked by tests/analyzer; keys are only ever added. Written through
 * base/'s JSON writer (pfprof-json-writer.h).
 */
#include "pfprof-config.h"

#include <math.h>

#include "pfprof-call-sites.h"
#include "pfprof-clock-align.h"
#include "pfprof-format.h"
#include "pfprof-json-writer.h"
#include "pfprof-rank-summary.h"
#include "pfprof-report.h"

/* PFPROF_NONE becomes null. */
static void
member_id (PfprofJsonWriter *w, const char *k, guint32 v)
{
  pfprof_json_writer_key (w, k);
  if (v == PFPROF_NONE)
    pfprof_json_writer_null (w);
  else
    pfprof_json_writer_uint (w, v);
}

/* @v nanoseconds, or null when 0 (no steps). */
static void
member_ns_or_null (PfprofJsonWriter *w, const char *k, gint64 v)
{
  pfprof_json_writer_key (w, k);
  if (v > 0)
    pfprof_json_writer_int (w, v);
  else
    pfprof_json_writer_null (w);
}

/* "@key": the steady steps' ledger, on the mean and the median basis. */
static void
write_ledger (PfprofJsonWriter *w, const char *key, const PfprofLedgerSummary *l)
{
  pfprof_json_writer_key (w, key);
  pfprof_json_writer_begin_object (w);
  pfprof_json_writer_member_uint (w, "steps", l->n_steps);
  pfprof_json_writer_member_double (w, "steps_per_s", l->mean_step_ns > 0 ? 1e9 / (double) l->mean_step_ns : NAN,
                                    6);
  for (guint basis = 0; basis < 2; basis++)
    {
      const gint64 *v = basis == 0 ? l->mean_ns : l->median_ns;

      pfprof_json_writer_key (w, basis == 0 ? "mean" : "median");
      pfprof_json_writer_begin_object (w);
      pfprof_json_writer_member_int (w, "step_ns", basis == 0 ? l->mean_step_ns : l->median_step_ns);
      for (guint b = 0; b < PFPROF_LEDGER_N_BUCKETS; b++)
        pfprof_json_writer_member_int (w, pfprof_ledger_bucket_key ((PfprofLedgerBucket) b), v[b]);
      pfprof_json_writer_end_object (w);
    }
  pfprof_json_writer_end_object (w);
}

/* "@key": { bucket key: ns, ... }: what a phase's time went to. */
static void
write_phase_ledger (PfprofJsonWriter *w, const char *key, const gint64 *v)
{
  pfprof_json_writer_key (w, key);
  pfprof_json_writer_begin_object (w);
  for (guint b = 0; b < PFPROF_LEDGER_N_BUCKETS; b++)
    pfprof_json_writer_member_int (w, pfprof_ledger_bucket_key ((PfprofLedgerBucket) b), v[b]);
  pfprof_json_writer_end_object (w);
}

static void
write_traces (PfprofJsonWriter *w, const PfprofAnalysis *a)
{
  pfprof_json_writer_key (w, "traces");
  pfprof_json_writer_begin_array (w);
  for (guint i = 0; i < a->traces->len; i++)
    {
      const PfprofTrace *t = g_ptr_array_index (a->traces, i);
      const PfprofTraceSummary *ts = &g_array_index (a->trace_summaries, PfprofTraceSummary, i);

      pfprof_json_writer_begin_object (w);
      pfprof_json_writer_member_int (w, "index", i);
      pfprof_json_writer_member_string (w, "path", t->path ? t->path : "");
      pfprof_json_writer_member_int (w, "pid", t->pid);
      pfprof_json_writer_member_int (w, "rank", t->rank);
      pfprof_json_writer_member_string (w, "command_line", pfprof_trace_meta (t, "command_line"));
      pfprof_json_writer_member_uint (w, "events", pfprof_trace_n_events (t));
      pfprof_json_writer_member_int (w, "start_ns", t->start_ns);
      pfprof_json_writer_member_int (w, "end_ns", t->end_ns);
      pfprof_json_writer_member_string (w, "step_source", ts->step_source);
      pfprof_json_writer_member_string (w, "step_name", ts->step_name);
      pfprof_json_writer_member_uint (w, "steps", ts->n_steps);
      pfprof_json_writer_member_uint (w, "warmup_steps", ts->n_warmup_steps);
      pfprof_json_writer_member_int (w, "step_median_ns", ts->step_median_ns);
      pfprof_json_writer_member_int (w, "steady_start_ns", ts->steady_start_ns);
      pfprof_json_writer_member_int (w, "steady_end_ns", ts->steady_end_ns);
      pfprof_json_writer_member_uint (w, "recording_windows", ts->n_windows);
      pfprof_json_writer_member_uint (w, "steps_left_out", ts->n_unrecorded_steps);
      pfprof_json_writer_member_uint (w, "api_ids_shared", ts->n_api_ids_shared);
      pfprof_json_writer_member_uint (w, "main_tid", ts->main_tid);
      pfprof_json_writer_member_uint (w, "events_out_of_range", ts->n_out_of_range);
      pfprof_json_writer_member_uint (w, "sites_left_out", ts->n_bad_sites);
      pfprof_json_writer_key (w, "phases");
      pfprof_json_writer_begin_object (w);
      pfprof_json_writer_key (w, "marks");
      pfprof_json_writer_bool (w, ts->phases.has_marks);
      pfprof_json_writer_member_uint (w, "training_steps", ts->phases.n_training_steps);
      pfprof_json_writer_member_uint (w, "evaluation_batches", ts->phases.n_eval_steps);
      pfprof_json_writer_member_int (w, "startup_ns", ts->phases.startup_ns);
      pfprof_json_writer_member_int (w, "training_ns", ts->phases.training_ns);
      pfprof_json_writer_member_int (w, "evaluation_ns", ts->phases.eval_ns);
      pfprof_json_writer_member_int (w, "evaluation_compute_ns", ts->phases.eval_compute_ns);
      pfprof_json_writer_member_int (w, "evaluation_data_wait_ns", ts->phases.eval_data_wait_ns);
      pfprof_json_writer_member_int (w, "after_loop_ns", ts->phases.after_loop_ns);
      write_phase_ledger (w, "startup_ledger", ts->phases.startup_ledger_ns);
      write_phase_ledger (w, "evaluation_ledger", ts->phases.eval_ledger_ns);
      write_phase_ledger (w, "after_loop_ledger", ts->phases.after_ledger_ns);
      /* Evaluation judged on its own as well: its batches' ledger and
       * the mean batch with every fix of phase_findings. */
      pfprof_json_writer_key (w, "evaluation_judged");
      pfprof_json_writer_bool (w, ts->eval_judged);
      if (ts->eval_judged)
        {
          write_ledger (w, "evaluation_batch_ledger", &ts->eval_ledger);
          member_ns_or_null (w, "evaluation_predicted_all_fixes_ns", ts->eval_predicted_ns);
        }
      else
        {
          pfprof_json_writer_member_string (w, "evaluation_batch_ledger", NULL);
          pfprof_json_writer_member_string (w, "evaluation_predicted_all_fixes_ns", NULL);
        }
      pfprof_json_writer_member_uint (w, "evaluation_findings", pfprof_report_n_phase_findings (a, i));
      pfprof_json_writer_end_object (w);
      pfprof_json_writer_member_uint (w, "sources_withheld", ts->n_sources_withheld);
      /* A trace cut short: its data ends at end_ns. */
      pfprof_json_writer_key (w, "complete");
      pfprof_json_writer_bool (w, !pfprof_trace_is_incomplete (t));
      pfprof_json_writer_member_string (w, "host", pfprof_trace_meta (t, "host"));
      pfprof_json_writer_member_string (w, "source", pfprof_trace_meta (t, "source"));
      pfprof_json_writer_key (w, "notes");
      pfprof_json_writer_begin_array (w);
      for (guint n = 0; t->notes != NULL && n < t->notes->len; n++)
        pfprof_json_writer_string (w, g_ptr_array_index (t->notes, n));
      pfprof_json_writer_end_array (w);
      {
        /* What `pfprof report` needs to merge this result with other
         * ranks' (pfprof-report-merge.h). */
        PfprofRankSummary r;

        pfprof_rank_summary_of_trace (a, i, &r);
        pfprof_json_writer_member_uint (w, "steady_steps", r.n_steady_steps);
        pfprof_json_writer_member_int (w, "data_wait_per_step_ns", r.data_wait_ns);
        pfprof_json_writer_member_int (w, "copy_exposed_per_step_ns", r.copy_exposed_ns);
        pfprof_json_writer_member_int (w, "idle_per_step_ns", r.idle_ns);
        pfprof_json_writer_member_uint (w, "findings", r.n_findings);
      }
      write_ledger (w, "ledger", &ts->ledger);
      member_ns_or_null (w, "predicted_step_all_fixes_ns", ts->predicted_step_ns);
      pfprof_json_writer_member_string (w, "clock", pfprof_clock_alignment_to_string ((PfprofClockAlignment) t->clock_alignment));
      pfprof_json_writer_member_int (w, "clock_offset_ns", t->clock_offset_ns);
      if (t->clock_alignment == PFPROF_CLOCK_COLLECTIVES)
        {
          pfprof_json_writer_member_uint (w, "clock_collectives", t->clock_collectives);
          pfprof_json_writer_member_int (w, "clock_collectives_ns", t->clock_collectives_ns);
          pfprof_json_writer_member_int (w, "clock_spread_ns", t->clock_spread_ns);
          pfprof_json_writer_member_double (w, "clock_drift_ppm", t->clock_drift * 1e6, 6);
        }
      pfprof_json_writer_end_object (w);
    }
  pfprof_json_writer_end_array (w);
}

/* "ranks": one object per ranked trace when two or more were given
 * together (additive to pfprof-report/1; absent otherwise). */
static void
write_ranks (PfprofJsonWriter *w, const PfprofAnalysis *a)
{
  g_autoptr (GArray) ranks = pfprof_rank_summary_get (a);

  if (ranks->len == 0)
    return;
  pfprof_json_writer_key (w, "ranks");
  pfprof_json_writer_begin_array (w);
  for (guint i = 0; i < ranks->len; i++)
    {
      const PfprofRankSummary *r = &g_array_index (ranks, PfprofRankSummary, i);

      pfprof_json_writer_begin_object (w);
      pfprof_json_writer_member_int (w, "rank", r->rank);
      if (a->n_results > 0)
        pfprof_json_writer_member_string (w, "trace", NULL); /* merged: no trace here */
      else
        pfprof_json_writer_member_int (w, "trace", r->trace_index);
      pfprof_json_writer_member_string (w, "source", r->path);
      pfprof_json_writer_member_string (w, "host", r->host);
      pfprof_json_writer_member_int (w, "pid", r->pid);
      pfprof_json_writer_member_uint (w, "steps", r->n_steady_steps);
      pfprof_json_writer_member_int (w, "step_median_ns", r->step_median_ns);
      pfprof_json_writer_member_int (w, "data_wait_per_step_ns", r->data_wait_ns);
      pfprof_json_writer_member_int (w, "copy_exposed_per_step_ns", r->copy_exposed_ns);
      pfprof_json_writer_member_int (w, "idle_per_step_ns", r->idle_ns);
      pfprof_json_writer_member_uint (w, "findings", r->n_findings);
      pfprof_json_writer_end_object (w);
    }
  pfprof_json_writer_end_array (w);
}

static void
write_summary (PfprofJsonWriter *w, const PfprofAnalysis *a)
{
  PfprofStep med = pfprof_report_median_step (a);
  g_autofree char *headline = pfprof_report_headline (a);
  guint warm = 0;

  for (guint i = 0; i < a->trace_summaries->len; i++)
    warm += g_array_index (a->trace_summaries, PfprofTraceSummary, i).n_warmup_steps;

  pfprof_json_writer_key (w, "summary");
  pfprof_json_writer_begin_object (w);
  pfprof_json_writer_key (w, "devices");
  pfprof_json_writer_begin_array (w);
  for (guint i = 0; i < a->devices->len; i++)
    {
      const PfprofDeviceSummary *d = &g_array_index (a->devices, PfprofDeviceSummary, i);
      gint64 len = d->steady_ns;

      pfprof_json_writer_begin_object (w);
      pfprof_json_writer_member_int (w, "trace", d->trace_index);
      pfprof_json_writer_member_uint (w, "device", d->device_id);
      pfprof_json_writer_member_int (w, "kernel_ns", d->kernel_ns);
      pfprof_json_writer_member_uint (w, "htod_bytes", d->htod_bytes);
      pfprof_json_writer_member_int (w, "htod_ns", d->htod_ns);
      pfprof_json_writer_member_uint (w, "htod_count", d->htod_count);
      pfprof_json_writer_member_uint (w, "htod_pageable_bytes", d->htod_pageable_bytes);
      pfprof_json_writer_member_int (w, "htod_pageable_ns", d->htod_pageable_ns);
      pfprof_json_writer_member_uint (w, "htod_pinned_bytes", d->htod_pinned_bytes);
      pfprof_json_writer_member_int (w, "htod_pinned_ns", d->htod_pinned_ns);
      pfprof_json_writer_member_uint (w, "dtoh_bytes", d->dtoh_bytes);
      pfprof_json_writer_member_int (w, "dtoh_ns", d->dtoh_ns);
      pfprof_json_writer_member_double (w, "overlap_fraction", d->overlap_fraction, 6);
      pfprof_json_writer_member_int (w, "exposed_copy_ns", d->exposed_copy_ns);
      pfprof_json_writer_member_int (w, "idle_ns", d->idle_ns);
      pfprof_json_writer_member_double (w, "idle_fraction", len > 0 ? (double) d->idle_ns / (double) len : NAN, 6);
      pfprof_json_writer_member_int (w, "sync_wait_ns", d->sync_wait_ns);
      pfprof_json_writer_member_int (w, "data_wait_ns", d->data_wait_ns);
      pfprof_json_writer_member_int (w, "idle_data_wait_ns", d->idle_data_wait_ns);
      pfprof_json_writer_member_int (w, "steady_start_ns", d->steady_start_ns);
      pfprof_json_writer_member_int (w, "steady_end_ns", d->steady_end_ns);
      pfprof_json_writer_member_int (w, "steady_ns", d->steady_ns);
      member_id (w, "compute_stream", d->compute_stream);
      pfprof_json_writer_member_int (w, "comm_ns", d->comm_ns);
      pfprof_json_writer_end_object (w);
    }
  pfprof_json_writer_end_array (w);
  pfprof_json_writer_key (w, "steps");
  pfprof_json_writer_begin_object (w);
  pfprof_json_writer_member_uint (w, "count", a->steps->len);
  pfprof_json_writer_member_uint (w, "warmup", warm);
  pfprof_json_writer_member_uint (w, "steady", a->n_steady_steps);
  pfprof_json_writer_member_int (w, "median_ns", a->step_median_ns);
  pfprof_json_writer_member_int (w, "p10_ns", a->step_p10_ns);
  pfprof_json_writer_member_int (w, "p90_ns", a->step_p90_ns);
  pfprof_json_writer_member_int (w, "host_median_ns", a->host_step_median_ns);
  pfprof_json_writer_key (w, "host_ahead");
  pfprof_json_writer_bool (w, pfprof_report_host_runs_ahead (a));
  pfprof_json_writer_key (w, "median_breakdown");
  pfprof_json_writer_begin_object (w);
  pfprof_json_writer_member_int (w, "data_wait_ns", med.data_wait_ns);
  pfprof_json_writer_member_int (w, "copy_hidden_ns", med.copy_hidden_ns);
  pfprof_json_writer_member_int (w, "copy_exposed_ns", med.copy_exposed_ns);
  pfprof_json_writer_member_int (w, "compute_ns", med.compute_ns);
  pfprof_json_writer_member_int (w, "sync_wait_ns", med.sync_wait_ns);
  pfprof_json_writer_member_int (w, "idle_ns", med.idle_ns);
  pfprof_json_writer_member_int (w, "comm_ns", med.comm_ns);
  pfprof_json_writer_end_object (w);
  pfprof_json_writer_end_object (w);
  write_ledger (w, "ledger", &a->ledger);
  pfprof_json_writer_member_double (w, "gpu_idle_fraction", pfprof_report_max_idle_fraction (a), 6);
  pfprof_json_writer_member_string (w, "headline", headline);
  pfprof_json_writer_end_object (w);
}

/* input-starved's view inside the DataLoader (pfprof-input-pipeline.h). */
static void
write_pipeline (PfprofJsonWriter *w, const PfprofFinding *f)
{
  const PfprofInputPipeline *p = f->pipeline;

  pfprof_json_writer_key (w, "input_pipeline");
  if (p == NULL)
    {
      pfprof_json_writer_null (w);
      return;
    }
  pfprof_json_writer_begin_object (w);
  pfprof_json_writer_member_uint (w, "batches", p->n_batches);
  pfprof_json_writer_member_uint (w, "workers", p->num_workers > 0 ? p->num_workers : p->n_workers);
  pfprof_json_writer_member_double (w, "cores", p->cores > 0 ? p->cores : NAN, 3);
  pfprof_json_writer_member_double (w, "worker_cores", p->worker_cores, 3);
  pfprof_json_writer_member_double (w, "cpu_per_wall", p->wall_ns > 0 ? (double) p->cpu_ns / (double) p->wall_ns : NAN,
                                    3);
  pfprof_json_writer_key (w, "saturated");
  pfprof_json_writer_bool (w, pfprof_input_pipeline_saturated (p));
  pfprof_json_writer_member_int (w, "batch_ns", pfprof_input_pipeline_batch_ns (p));
  pfprof_json_writer_member_int (w, "batch_cpu_ns", pfprof_input_pipeline_batch_cpu_ns (p));
  pfprof_json_writer_member_int (w, "queue_wait_ns", p->queue_wait_ns);
  pfprof_json_writer_member_int (w, "pin_ns", p->pin_ns);
  pfprof_json_writer_member_double (w, "collate_share",
                                    p->busy_ns > 0 ? (double) p->collate_ns / (double) p->busy_ns : 0, 4);
  pfprof_json_writer_key (w, "predicted_workers");
  if (f->pipeline_workers > 0)
    pfprof_json_writer_uint (w, f->pipeline_workers);
  else
    pfprof_json_writer_null (w);
  pfprof_json_writer_key (w, "stages");
  pfprof_json_writer_begin_array (w);
  for (guint i = 0; i < p->stages->len; i++)
    {
      const PfprofInputStage *st = &g_array_index (p->stages, PfprofInputStage, i);

      pfprof_json_writer_begin_object (w);
      pfprof_json_writer_member_string (w, "attr", st->attr);
      pfprof_json_writer_member_string (w, "function", st->function);
      pfprof_json_writer_member_string (w, "file", st->file);
      pfprof_json_writer_member_int (w, "line", st->line);
      pfprof_json_writer_member_int (w, "time_ns", st->ns);
      pfprof_json_writer_member_uint (w, "calls", st->calls);
      pfprof_json_writer_member_double (w, "share", p->busy_ns > 0 ? (double) st->ns / (double) p->busy_ns : 0, 4);
      pfprof_json_writer_end_object (w);
    }
  pfprof_json_writer_end_array (w);
  pfprof_json_writer_end_object (w);
}

/* @apart: a finding of phase_findings, per mean evaluation batch. */
static void
write_finding (PfprofJsonWriter *w, const PfprofAnalysis *a, const PfprofFinding *f, gboolean apart)
{
  pfprof_json_writer_begin_object (w);
  pfprof_json_writer_member_string (w, "rule", f->rule);
  pfprof_json_writer_member_string (w, "severity", pfprof_severity_to_string (f->severity));
  pfprof_json_writer_member_string (w, "phase", pfprof_loop_judge_to_string (f->phase));
  pfprof_json_writer_member_string (w, "title", f->title);
  pfprof_json_writer_member_string (w, "message", f->message);
  pfprof_json_writer_member_string (w, "fix", f->fix);
  pfprof_json_writer_member_uint (w, "count", f->count);
  pfprof_json_writer_member_int (w, "time_ns", f->time_ns);
  pfprof_json_writer_member_int (w, "est_savings_ns", f->est_savings_ns);
  member_ns_or_null (w, "predicted_step_ns", f->predicted_step_ns);
  member_ns_or_null (w, "saving_after_input_ns", f->after_input_ns);
  pfprof_json_writer_member_string (w, "saving_basis", f->predicted_step_ns <= 0 ? "steady_window"
                                                       : apart               ? "mean_evaluation_batch"
                                                                             : "mean_step");
  pfprof_json_writer_member_double (w, "saving_share",
                                    f->predicted_step_ns > 0
                                      ? (double) f->est_savings_ns / (double) (f->predicted_step_ns + f->est_savings_ns)
                                      : NAN,
                                    6);
  pfprof_json_writer_key (w, "material");
  pfprof_json_writer_bool (w, !f->immaterial);
  pfprof_json_writer_key (w, "copy_directions");
  pfprof_json_writer_begin_array (w);
  if (f->copy_directions & PFPROF_FINDING_HTOD)
    pfprof_json_writer_string (w, "htod");
  if (f->copy_directions & PFPROF_FINDING_DTOH)
    pfprof_json_writer_string (w, "dtoh");
  pfprof_json_writer_end_array (w);
  pfprof_json_writer_member_int (w, "first_ns", f->first_ns);
  pfprof_json_writer_member_int (w, "last_ns", f->last_ns);
  pfprof_json_writer_member_int (w, "pid", f->pid);
  member_id (w, "device", f->device_id);
  member_id (w, "stream", f->stream_id);
  write_pipeline (w, f);
  pfprof_json_writer_key (w, "sites");
  pfprof_json_writer_begin_array (w);
  for (guint i = 0; f->sites && i < f->sites->len; i++)
    {
      const PfprofFindingSite *s = &g_array_index (f->sites, PfprofFindingSite, i);

      pfprof_json_writer_begin_object (w);
      pfprof_json_writer_member_int (w, "trace", s->trace_index);
      pfprof_json_writer_member_string (w, "file", s->file);
      pfprof_json_writer_member_int (w, "line", s->line);
      pfprof_json_writer_member_string (w, "function", s->function);
      pfprof_json_writer_member_string (w, "api", s->api);
      pfprof_json_writer_member_string (w, "kind", pfprof_site_kind_name (s->kind));
      pfprof_json_writer_member_string (w, "source", s->source);
      pfprof_json_writer_key (w, "caller");
      if (s->caller_line > 0)
        {
          pfprof_json_writer_begin_object (w);
          pfprof_json_writer_member_string (w, "file", s->caller_file);
          pfprof_json_writer_member_int (w, "line", s->caller_line);
          pfprof_json_writer_member_string (w, "function", s->caller_function);
          pfprof_json_writer_end_object (w);
        }
      else
        pfprof_json_writer_null (w);
      pfprof_json_writer_member_uint (w, "calls", s->calls);
      pfprof_json_writer_member_uint (w, "count", s->count);
      pfprof_json_writer_member_int (w, "time_ns", s->time_ns);
      pfprof_json_writer_member_int (w, "per_step_ns", s->per_step_ns);
      pfprof_json_writer_key (w, "startup");
      pfprof_json_writer_bool (w, s->startup);
      pfprof_json_writer_end_object (w);
    }
  pfprof_json_writer_end_array (w);
  pfprof_json_writer_key (w, "evidence");
  pfprof_json_writer_begin_array (w);
  for (guint i = 0; f->evidence && i < f->evidence->len; i++)
    {
      const PfprofEvidence *e = &g_array_index (f->evidence, PfprofEvidence, i);
      g_autofree char *what = pfprof_evidence_describe (a, e);
      const char *shown, *raw;

      pfprof_json_writer_begin_object (w);
      pfprof_json_writer_member_int (w, "trace", e->trace_index);
      pfprof_json_writer_member_int (w, "start_ns", e->start_ns);
      pfprof_json_writer_member_int (w, "end_ns", e->end_ns);
      member_id (w, "device", e->device_id);
      member_id (w, "stream", e->stream_id);
      pfprof_json_writer_member_uint (w, "tid", e->tid);
      pfprof_json_writer_member_string (w, "event", what);
      pfprof_json_writer_member_int (w, "cost_ns", e->cost_ns);
      pfprof_json_writer_member_double (w, "share", pfprof_evidence_share (f, e), 4);
      if (pfprof_evidence_name (a, e, &shown, &raw))
        {
          pfprof_json_writer_member_string (w, "name", shown);
          pfprof_json_writer_member_string (w, "raw_name", raw);
        }
      pfprof_json_writer_end_object (w);
    }
  pfprof_json_writer_end_array (w);
  pfprof_json_writer_end_object (w);
}

void
pfprof_report_json (const PfprofAnalysis *a, const PfprofReportOptions *o, GString *out)
{
  g_return_if_fail (a != NULL);
  g_return_if_fail (o != NULL);
  g_return_if_fail (out != NULL);

  guint shown = pfprof_report_n_shown (a, o);
  PfprofJsonWriter writer, *w = &writer;

  pfprof_json_writer_init (w, out);
  pfprof_json_writer_begin_object (w);
  pfprof_json_writer_member_string (w, "format", PFPROF_REPORT_JSON_FORMAT);
  pfprof_json_writer_member_string (w, "generator", "pfprof " PFPROF_VERSION);
  write_traces (w, a);
  if (a->n_results > 0)
    pfprof_json_writer_member_uint (w, "results_merged", a->n_results);
  write_ranks (w, a);
  write_summary (w, a);
  pfprof_json_writer_key (w, "rules");
  pfprof_json_writer_begin_array (w);
  for (guint i = 0; i < a->rules_run->len; i++)
    pfprof_json_writer_string (w, g_ptr_array_index (a->rules_run, i));
  pfprof_json_writer_end_array (w);
  pfprof_json_writer_member_string (w, "gate", o->has_fail_on ? pfprof_severity_to_string (o->fail_on) : NULL);
  pfprof_json_writer_member_uint (w, "findings_total", a->findings->len);
  /* One finding a line, so a diff of two reports reads finding by finding. */
  pfprof_json_writer_key (w, "findings");
  pfprof_json_writer_begin_array (w);
  pfprof_json_writer_new_line (w);
  for (guint i = 0; i < shown; i++)
    {
      if (i > 0)
        pfprof_json_writer_new_line (w);
      write_finding (w, a, g_ptr_array_index (a->findings, i), FALSE);
    }
  pfprof_json_writer_end_array (w);
  /* Kept apart from findings: the gate, the headline and the
   * predictions are the training steps'. */
  pfprof_json_writer_key (w, "phase_findings");
  pfprof_json_writer_begin_array (w);
  for (guint i = 0; a->phase_findings != NULL && i < a->phase_findings->len; i++)
    {
      pfprof_json_writer_new_line (w);
      write_finding (w, a, g_ptr_array_index (a->phase_findings, i), TRUE);
    }
  pfprof_json_writer_end_array (w);
  pfprof_json_writer_end_object (w);
  g_string_append_c (out, '\n');
}
