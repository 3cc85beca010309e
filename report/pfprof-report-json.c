/* pfprof-report-json.c: the "pfprof-report/1" JSON contract.
 *
 * The layout is documented key by key in docs/report-format.md and
 * checked by tests/analyzer; keys are only ever added. Written by hand
 * with pfprof_escape_json() so the CLI needs no JSON library.
 */
#include "pfprof-config.h"

#include <math.h>

#include "pfprof-call-sites.h"
#include "pfprof-clock-align.h"
#include "pfprof-format.h"
#include "pfprof-rank-summary.h"
#include "pfprof-report.h"

static void
key (GString *out, const char *k)
{
  pfprof_escape_json (out, k);
  g_string_append_c (out, ':');
}

static void
kv_int (GString *out, const char *k, gint64 v)
{
  key (out, k);
  g_string_append_printf (out, "%" G_GINT64_FORMAT ",", v);
}

static void
kv_uint (GString *out, const char *k, guint64 v)
{
  key (out, k);
  g_string_append_printf (out, "%" G_GUINT64_FORMAT ",", v);
}

/* PFPROF_NONE becomes null. */
static void
kv_id (GString *out, const char *k, guint32 v)
{
  key (out, k);
  if (v == PFPROF_NONE)
    g_string_append (out, "null,");
  else
    g_string_append_printf (out, "%u,", v);
}

static void
kv_double (GString *out, const char *k, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  key (out, k);
  if (isnan (v) || isinf (v))
    g_string_append (out, "null,");
  else
    {
      g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.6f", v));
      g_string_append_c (out, ',');
    }
}

static void
kv_str (GString *out, const char *k, const char *v)
{
  key (out, k);
  if (v == NULL)
    g_string_append (out, "null");
  else
    pfprof_escape_json (out, v);
  g_string_append_c (out, ',');
}

/* Replaces the trailing comma of the last member, if any, by @close. */
static void
close_with (GString *out, char close)
{
  if (out->len > 0 && out->str[out->len - 1] == ',')
    out->str[out->len - 1] = close;
  else
    g_string_append_c (out, close);
}

static void
write_traces (GString *out, const PfprofAnalysis *a)
{
  key (out, "traces");
  g_string_append_c (out, '[');
  for (guint i = 0; i < a->traces->len; i++)
    {
      const PfprofTrace *t = g_ptr_array_index (a->traces, i);
      const PfprofTraceSummary *ts = &g_array_index (a->trace_summaries, PfprofTraceSummary, i);

      g_string_append_c (out, '{');
      kv_int (out, "index", i);
      kv_str (out, "path", t->path ? t->path : "");
      kv_int (out, "pid", t->pid);
      kv_int (out, "rank", t->rank);
      kv_str (out, "command_line", pfprof_trace_meta (t, "command_line"));
      kv_uint (out, "events", pfprof_trace_n_events (t));
      kv_int (out, "start_ns", t->start_ns);
      kv_int (out, "end_ns", t->end_ns);
      kv_str (out, "step_source", ts->step_source);
      kv_str (out, "step_name", ts->step_name);
      kv_uint (out, "steps", ts->n_steps);
      kv_uint (out, "warmup_steps", ts->n_warmup_steps);
      kv_int (out, "step_median_ns", ts->step_median_ns);
      kv_int (out, "steady_start_ns", ts->steady_start_ns);
      kv_int (out, "steady_end_ns", ts->steady_end_ns);
      kv_uint (out, "main_tid", ts->main_tid);
      kv_uint (out, "events_out_of_range", ts->n_out_of_range);
      kv_uint (out, "sites_left_out", ts->n_bad_sites);
      /* A trace cut short: its data ends at end_ns. */
      key (out, "complete");
      g_string_append (out, pfprof_trace_is_incomplete (t) ? "false," : "true,");
      kv_str (out, "host", pfprof_trace_meta (t, "host"));
      {
        /* What `pfprof report` needs to merge this result with other
         * ranks' (pfprof-report-merge.h). */
        PfprofRankSummary r;

        pfprof_rank_summary_of_trace (a, i, &r);
        kv_uint (out, "steady_steps", r.n_steady_steps);
        kv_int (out, "data_wait_per_step_ns", r.data_wait_ns);
        kv_int (out, "copy_exposed_per_step_ns", r.copy_exposed_ns);
        kv_int (out, "idle_per_step_ns", r.idle_ns);
        kv_uint (out, "findings", r.n_findings);
      }
      kv_str (out, "clock", pfprof_clock_alignment_to_string ((PfprofClockAlignment) t->clock_alignment));
      kv_int (out, "clock_offset_ns", t->clock_offset_ns);
      if (t->clock_alignment == PFPROF_CLOCK_COLLECTIVES)
        {
          kv_uint (out, "clock_collectives", t->clock_collectives);
          kv_int (out, "clock_collectives_ns", t->clock_collectives_ns);
          kv_int (out, "clock_spread_ns", t->clock_spread_ns);
          kv_double (out, "clock_drift_ppm", t->clock_drift * 1e6);
        }
      close_with (out, '}');
      g_string_append_c (out, ',');
    }
  close_with (out, ']');
  g_string_append_c (out, ',');
}

/* "ranks": one object per ranked trace when two or more were given
 * together (additive to pfprof-report/1; absent otherwise). */
static void
write_ranks (GString *out, const PfprofAnalysis *a)
{
  g_autoptr (GArray) ranks = pfprof_rank_summary_get (a);

  if (ranks->len == 0)
    return;
  key (out, "ranks");
  g_string_append_c (out, '[');
  for (guint i = 0; i < ranks->len; i++)
    {
      const PfprofRankSummary *r = &g_array_index (ranks, PfprofRankSummary, i);

      g_string_append_c (out, '{');
      kv_int (out, "rank", r->rank);
      if (a->n_results > 0)
        kv_str (out, "trace", NULL); /* merged: no trace here */
      else
        kv_int (out, "trace", r->trace_index);
      kv_str (out, "source", r->path);
      kv_str (out, "host", r->host);
      kv_int (out, "pid", r->pid);
      kv_uint (out, "steps", r->n_steady_steps);
      kv_int (out, "step_median_ns", r->step_median_ns);
      kv_int (out, "data_wait_per_step_ns", r->data_wait_ns);
      kv_int (out, "copy_exposed_per_step_ns", r->copy_exposed_ns);
      kv_int (out, "idle_per_step_ns", r->idle_ns);
      kv_uint (out, "findings", r->n_findings);
      close_with (out, '}');
      g_string_append_c (out, ',');
    }
  close_with (out, ']');
  g_string_append_c (out, ',');
}

static void
write_summary (GString *out, const PfprofAnalysis *a)
{
  PfprofStep med = pfprof_report_median_step (a);
  g_autofree char *headline = pfprof_report_headline (a);
  guint warm = 0;

  for (guint i = 0; i < a->trace_summaries->len; i++)
    warm += g_array_index (a->trace_summaries, PfprofTraceSummary, i).n_warmup_steps;

  key (out, "summary");
  g_string_append_c (out, '{');
  key (out, "devices");
  g_string_append_c (out, '[');
  for (guint i = 0; i < a->devices->len; i++)
    {
      const PfprofDeviceSummary *d = &g_array_index (a->devices, PfprofDeviceSummary, i);
      gint64 len = d->steady_end_ns - d->steady_start_ns;

      g_string_append_c (out, '{');
      kv_int (out, "trace", d->trace_index);
      kv_uint (out, "device", d->device_id);
      kv_int (out, "kernel_ns", d->kernel_ns);
      kv_uint (out, "htod_bytes", d->htod_bytes);
      kv_int (out, "htod_ns", d->htod_ns);
      kv_uint (out, "htod_count", d->htod_count);
      kv_uint (out, "htod_pageable_bytes", d->htod_pageable_bytes);
      kv_int (out, "htod_pageable_ns", d->htod_pageable_ns);
      kv_uint (out, "htod_pinned_bytes", d->htod_pinned_bytes);
      kv_int (out, "htod_pinned_ns", d->htod_pinned_ns);
      kv_uint (out, "dtoh_bytes", d->dtoh_bytes);
      kv_int (out, "dtoh_ns", d->dtoh_ns);
      kv_double (out, "overlap_fraction", d->overlap_fraction);
      kv_int (out, "exposed_copy_ns", d->exposed_copy_ns);
      kv_int (out, "idle_ns", d->idle_ns);
      kv_double (out, "idle_fraction", len > 0 ? (double) d->idle_ns / (double) len : NAN);
      kv_int (out, "sync_wait_ns", d->sync_wait_ns);
      kv_int (out, "data_wait_ns", d->data_wait_ns);
      kv_int (out, "idle_data_wait_ns", d->idle_data_wait_ns);
      kv_int (out, "steady_start_ns", d->steady_start_ns);
      kv_int (out, "steady_end_ns", d->steady_end_ns);
      kv_id (out, "compute_stream", d->compute_stream);
      kv_int (out, "comm_ns", d->comm_ns);
      close_with (out, '}');
      g_string_append_c (out, ',');
    }
  close_with (out, ']');
  g_string_append_c (out, ',');
  key (out, "steps");
  g_string_append_c (out, '{');
  kv_uint (out, "count", a->steps->len);
  kv_uint (out, "warmup", warm);
  kv_uint (out, "steady", a->n_steady_steps);
  kv_int (out, "median_ns", a->step_median_ns);
  kv_int (out, "p10_ns", a->step_p10_ns);
  kv_int (out, "p90_ns", a->step_p90_ns);
  key (out, "median_breakdown");
  g_string_append_c (out, '{');
  kv_int (out, "data_wait_ns", med.data_wait_ns);
  kv_int (out, "copy_hidden_ns", med.copy_hidden_ns);
  kv_int (out, "copy_exposed_ns", med.copy_exposed_ns);
  kv_int (out, "compute_ns", med.compute_ns);
  kv_int (out, "sync_wait_ns", med.sync_wait_ns);
  kv_int (out, "idle_ns", med.idle_ns);
  kv_int (out, "comm_ns", med.comm_ns);
  close_with (out, '}');
  close_with (out, '}');
  g_string_append_c (out, ',');
  kv_double (out, "gpu_idle_fraction", pfprof_report_max_idle_fraction (a));
  kv_str (out, "headline", headline);
  close_with (out, '}');
  g_string_append_c (out, ',');
}

static void
write_finding (GString *out, const PfprofAnalysis *a, const PfprofFinding *f)
{
  g_string_append_c (out, '{');
  kv_str (out, "rule", f->rule);
  kv_str (out, "severity", pfprof_severity_to_string (f->severity));
  kv_str (out, "title", f->title);
  kv_str (out, "message", f->message);
  kv_str (out, "fix", f->fix);
  kv_uint (out, "count", f->count);
  kv_int (out, "time_ns", f->time_ns);
  kv_int (out, "est_savings_ns", f->est_savings_ns);
  kv_int (out, "first_ns", f->first_ns);
  kv_int (out, "last_ns", f->last_ns);
  kv_int (out, "pid", f->pid);
  kv_id (out, "device", f->device_id);
  kv_id (out, "stream", f->stream_id);
  key (out, "sites");
  g_string_append_c (out, '[');
  for (guint i = 0; f->sites && i < f->sites->len; i++)
    {
      const PfprofFindingSite *s = &g_array_index (f->sites, PfprofFindingSite, i);

      g_string_append_c (out, '{');
      kv_int (out, "trace", s->trace_index);
      kv_str (out, "file", s->file);
      kv_int (out, "line", s->line);
      kv_str (out, "function", s->function);
      kv_str (out, "api", s->api);
      kv_str (out, "kind", pfprof_site_kind_name (s->kind));
      key (out, "source");
      if (s->source != NULL)
        {
          pfprof_escape_json (out, s->source);
          g_string_append_c (out, ',');
        }
      else
        g_string_append (out, "null,");
      key (out, "caller");
      if (s->caller_line > 0)
        {
          g_string_append_c (out, '{');
          kv_str (out, "file", s->caller_file);
          kv_int (out, "line", s->caller_line);
          kv_str (out, "function", s->caller_function);
          close_with (out, '}');
          g_string_append_c (out, ',');
        }
      else
        g_string_append (out, "null,");
      kv_uint (out, "calls", s->calls);
      kv_uint (out, "count", s->count);
      kv_int (out, "time_ns", s->time_ns);
      kv_int (out, "per_step_ns", s->per_step_ns);
      close_with (out, '}');
      g_string_append_c (out, ',');
    }
  close_with (out, ']');
  g_string_append_c (out, ',');
  key (out, "evidence");
  g_string_append_c (out, '[');
  for (guint i = 0; f->evidence && i < f->evidence->len; i++)
    {
      const PfprofEvidence *e = &g_array_index (f->evidence, PfprofEvidence, i);
      g_autofree char *what = pfprof_evidence_describe (a, e);

      g_string_append_c (out, '{');
      kv_int (out, "trace", e->trace_index);
      kv_int (out, "start_ns", e->start_ns);
      kv_int (out, "end_ns", e->end_ns);
      kv_id (out, "device", e->device_id);
      kv_id (out, "stream", e->stream_id);
      kv_uint (out, "tid", e->tid);
      kv_str (out, "event", what);
      close_with (out, '}');
      g_string_append_c (out, ',');
    }
  close_with (out, ']');
  close_with (out, '}');
}

void
pfprof_report_json (const PfprofAnalysis *a, const PfprofReportOptions *o, GString *out)
{
  guint shown = pfprof_report_n_shown (a, o);

  g_string_append_c (out, '{');
  kv_str (out, "format", PFPROF_REPORT_JSON_FORMAT);
  kv_str (out, "generator", "pfprof " PFPROF_VERSION);
  write_traces (out, a);
  if (a->n_results > 0)
    kv_uint (out, "results_merged", a->n_results);
  write_ranks (out, a);
  write_summary (out, a);
  key (out, "rules");
  g_string_append_c (out, '[');
  for (guint i = 0; i < a->rules_run->len; i++)
    {
      pfprof_escape_json (out, g_ptr_array_index (a->rules_run, i));
      g_string_append_c (out, ',');
    }
  close_with (out, ']');
  g_string_append_c (out, ',');
  kv_str (out, "gate", o->has_fail_on ? pfprof_severity_to_string (o->fail_on) : NULL);
  kv_uint (out, "findings_total", a->findings->len);
  key (out, "findings");
  g_string_append (out, "[\n");
  for (guint i = 0; i < shown; i++)
    {
      write_finding (out, a, g_ptr_array_index (a->findings, i));
      if (i + 1 < shown)
        g_string_append (out, ",\n");
    }
  g_string_append (out, "]}\n");
}
