/* SPDX-License-Identifier: MIT */
/* pfprof-report-csv.c: the per-step table and the findings as CSV.
 *
 * One table per file, for scripts and spreadsheets (as `nsys stats
 * --format csv` gives one report per file): `--format csv` the steps,
 * `--format csv-findings` the findings. A header row names the columns
 * (docs/report-format.md); times are integer nanoseconds, as in the JSON.
 */
#include "pfprof-config.h"

#include "pfprof-format.h"
#include "pfprof-report.h"

static void
field_int (GString *out, gint64 v)
{
  g_string_append_printf (out, ",%" G_GINT64_FORMAT, v);
}

void
pfprof_report_csv (const PfprofAnalysis *a, const PfprofReportOptions *o, GString *out)
{
  g_return_if_fail (a != NULL);
  g_return_if_fail (o != NULL);
  g_return_if_fail (out != NULL);

  g_autofree guint *numbers = g_new0 (guint, a->traces->len + 1);

  (void) o;
  g_string_append (out, "trace,rank,step,warmup,start_ns,duration_ns,data_wait_ns,copy_exposed_ns,"
                        "copy_hidden_ns,compute_ns,comm_ns,sync_wait_ns,idle_ns,phase,host_start_ns,"
                        "host_duration_ns\r\n");
  for (guint i = 0; i < a->steps->len; i++)
    {
      const PfprofStep *s = &g_array_index (a->steps, PfprofStep, i);
      const PfprofTrace *t = s->trace_index < a->traces->len ? g_ptr_array_index (a->traces, s->trace_index)
                                                             : NULL;

      g_string_append_printf (out, "%u,", s->trace_index);
      if (t != NULL && t->rank >= 0)
        g_string_append_printf (out, "%" G_GINT64_FORMAT, t->rank);
      /* Numbered per trace from 0, warm-up included, as on the timeline. */
      g_string_append_printf (out, ",%u,%d", numbers[MIN (s->trace_index, a->traces->len)]++, s->warmup ? 1 : 0);
      /* The GPU side, which the parts after it add up to (the host's
       * waits aside); the host's side at the end of the row. */
      field_int (out, pfprof_step_start (s));
      field_int (out, pfprof_step_length (s));
      field_int (out, s->data_wait_ns);
      field_int (out, s->copy_exposed_ns);
      field_int (out, s->copy_hidden_ns);
      field_int (out, s->compute_ns);
      field_int (out, s->comm_ns);
      field_int (out, s->sync_wait_ns);
      field_int (out, s->idle_ns);
      /* Evaluation batches are rows too, but no per-step figure is over
       * them: the steady steps are warmup 0 and phase training. */
      g_string_append_printf (out, ",%s", pfprof_phase_to_string (s->phase));
      field_int (out, s->start_ns);
      field_int (out, s->end_ns - s->start_ns);
      g_string_append (out, "\r\n");
    }
}

static void
finding_row (GString *out, const PfprofFinding *f)
{
  pfprof_escape_csv (out, f->rule);
  g_string_append_c (out, ',');
  pfprof_escape_csv (out, pfprof_severity_to_string (f->severity));
  g_string_append_c (out, ',');
  pfprof_escape_csv (out, f->title);
  g_string_append_printf (out, ",%" G_GUINT64_FORMAT, f->count);
  field_int (out, f->time_ns);
  field_int (out, f->est_savings_ns);
  field_int (out, f->first_ns);
  field_int (out, f->last_ns);
  g_string_append_printf (out, ",%u", f->trace_index);
  field_int (out, f->pid);
  g_string_append_c (out, ',');
  if (f->device_id != PFPROF_NONE)
    g_string_append_printf (out, "%u", f->device_id);
  g_string_append_c (out, ',');
  if (f->stream_id != PFPROF_NONE)
    g_string_append_printf (out, "%u", f->stream_id);
  g_string_append_c (out, ',');
  pfprof_escape_csv (out, f->message);
  g_string_append_c (out, ',');
  pfprof_escape_csv (out, f->fix);
  g_string_append_printf (out, ",%s\r\n", pfprof_loop_judge_to_string (f->phase));
}

void
pfprof_report_csv_findings (const PfprofAnalysis *a, const PfprofReportOptions *o, GString *out)
{
  g_return_if_fail (a != NULL);
  g_return_if_fail (o != NULL);
  g_return_if_fail (out != NULL);

  guint shown = pfprof_report_n_shown (a, o);

  g_string_append (out, "rule,severity,title,count,time_ns,est_savings_ns,first_ns,last_ns,trace,pid,"
                        "device,stream,message,fix,phase\r\n");
  for (guint i = 0; i < shown; i++)
    finding_row (out, g_ptr_array_index (a->findings, i));
  /* An evaluation phase judged on its own: its findings after, their
   * savings per mean evaluation batch (phase "evaluation"). */
  for (guint i = 0; a->phase_findings != NULL && i < a->phase_findings->len; i++)
    finding_row (out, g_ptr_array_index (a->phase_findings, i));
}
