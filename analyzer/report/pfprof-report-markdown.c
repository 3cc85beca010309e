/* SPDX-License-Identifier: MIT */
/* pfprof-report-markdown.c: a report for a pull-request comment.
 *
 * GitHub renders both Markdown and HTML in comments, so untrusted text is
 * escaped for both (pfprof_escape_markdown) and kept on one line; fix
 * texts are ours and go into fenced code blocks.
 */
#include "pfprof-call-sites.h"
#include "pfprof-format.h"
#include "pfprof-rank-summary.h"
#include "pfprof-report.h"

#include <math.h>

static void
md (GString *out, const char *untrusted)
{
  pfprof_escape_markdown (out, untrusted);
}

static void
cell_pct (GString *out, double f)
{
  g_autofree char *s = NULL;

  if (isnan (f))
    {
      g_string_append (out, "n/a");
      return;
    }
  s = pfprof_format_double (f * 100.0, 1);
  g_string_append_printf (out, "%s%%", s);
}

/* The per-rank table of several ranks (traces or merged results): the
 * same rows as the text table (pfprof_rank_summary_select). */
static void
ranks_table (GString *out, const PfprofAnalysis *a, const PfprofReportOptions *o)
{
  g_autoptr (GArray) ranks = pfprof_rank_summary_get (a);
  g_autoptr (PfprofRankSummarySelection) sel = NULL;
  g_autofree char *hidden = NULL;

  if (ranks->len == 0)
    return;
  sel = pfprof_rank_summary_select (a, ranks, o->all_ranks);
  /* The words of the text report's table. */
  if (sel->n_hidden > 0)
    g_string_append_printf (out, "\nPer rank (steady state; per step = mean over its steps), %u of %u ranks:\n",
                            sel->rows->len, ranks->len);
  else
    g_string_append (out, "\nPer rank (steady state; per step = mean over its steps):\n");
  g_string_append (out, "\n| Rank | Host | Pid | Steps | Median step | " PFPROF_REPORT_DATA_WAIT " | " PFPROF_REPORT_COPY_EXPOSED
                        " | " PFPROF_REPORT_GPU_IDLE " | Findings |");
  g_string_append (out, sel->n_hidden > 0 ? " Shown as |\n" : "\n");
  g_string_append (out, sel->n_hidden > 0 ? "|---|---|---|---|---|---|---|---|---|---|\n"
                                          : "|---|---|---|---|---|---|---|---|---|\n");
  for (guint i = 0; i < sel->rows->len; i++)
    {
      const PfprofRankSummaryRow *row = &g_array_index (sel->rows, PfprofRankSummaryRow, i);
      const PfprofRankSummary *r = &g_array_index (ranks, PfprofRankSummary, row->index);
      g_autofree char *s_med = pfprof_format_ns (r->step_median_ns);
      g_autofree char *s_dw = pfprof_format_ns (r->data_wait_ns);
      g_autofree char *s_ce = pfprof_format_ns (r->copy_exposed_ns);
      g_autofree char *s_id = pfprof_format_ns (r->idle_ns);

      g_string_append_printf (out, "| %" G_GINT64_FORMAT " | ", r->rank);
      md (out, r->host != NULL ? r->host : "-");
      g_string_append_printf (out, " | %" G_GINT64_FORMAT " | %u | %s | %s | %s | %s | %u |", r->pid,
                              r->n_steady_steps, s_med, s_dw, s_ce, s_id, r->n_findings);
      if (sel->n_hidden > 0)
        {
          g_autofree char *why = pfprof_rank_summary_shown_describe (row->shown);

          g_string_append_printf (out, " %s |", why);
        }
      g_string_append_c (out, '\n');
    }
  hidden = pfprof_rank_summary_selection_describe_hidden (sel);
  if (hidden != NULL)
    g_string_append_printf (out, "\n_... %s._\n", hidden);
}

/* One finding; @apart: one of phase_findings, tagged with its phase and
 * saving per mean evaluation batch. */
static void
finding (GString *out, const PfprofAnalysis *a, const PfprofFinding *f, gboolean apart)
{
  g_autofree char *s_save = apart ? pfprof_report_phase_saving (a, f) : pfprof_report_saving (f);

  g_string_append_printf (out, "\n### %s%s%s%s `%s`: ", apart ? "[" : "",
                          apart ? pfprof_loop_judge_to_string (f->phase) : "", apart ? "] " : "",
                          f->severity == PFPROF_SEVERITY_ERROR     ? "Error"
                          : f->severity == PFPROF_SEVERITY_WARNING ? "Warning"
                                                                   : "Info",
                          f->rule);
  md (out, f->title);
  g_string_append_printf (out, "\n\nEstimated: **%s**%s. ", s_save,
                          f->immaterial ? " (under the materiality threshold: info)" : "");
  md (out, f->message);
  if (f->sites != NULL && f->sites->len > 0)
    {
      g_string_append (out, "\n\nWhere in the Python code:\n\n");
      for (guint s = 0; s < f->sites->len; s++)
        {
          g_autofree char *what = pfprof_call_site_summary (&g_array_index (f->sites, PfprofFindingSite, s));

          g_string_append (out, "- ");
          md (out, what);
          g_string_append_c (out, '\n');
        }
    }
  g_string_append_printf (out, "\n\n<details><summary>%s</summary>\n\n", PFPROF_EVIDENCE_HEADING);
  for (guint e = 0; f->evidence && e < f->evidence->len; e++)
    {
      const PfprofEvidence *ev = &g_array_index (f->evidence, PfprofEvidence, e);
      g_autofree char *what = pfprof_evidence_describe (a, ev);
      g_autofree char *share = pfprof_evidence_format_share (f, ev);

      g_string_append (out, "- ");
      md (out, what);
      if (share != NULL)
        g_string_append_printf (out, " (%s)", share);
      g_string_append_c (out, '\n');
    }
  g_string_append_printf (out, "\n%" G_GUINT64_FORMAT " occurrences in all.\n\n</details>\n\n"
                               "<details><summary>Fix</summary>\n\n```\n%s```\n\n</details>\n",
                          f->count, f->fix);
}

void
pfprof_report_markdown (const PfprofAnalysis *a, const PfprofReportOptions *o, GString *out)
{
  g_return_if_fail (a != NULL);
  g_return_if_fail (o != NULL);
  g_return_if_fail (out != NULL);

  g_autofree char *headline = pfprof_report_headline (a);
  guint shown = pfprof_report_n_shown (a, o);
  PfprofStep m = pfprof_report_median_step (a);

  g_string_append (out, "## pfprof report\n\n");
  {
    g_autoptr (GPtrArray) notes = pfprof_report_incomplete_notes (a);

    for (guint i = 0; i < notes->len; i++)
      {
        g_string_append (out, "> ");
        md (out, g_ptr_array_index (notes, i));
        g_string_append (out, "\n\n");
      }
  }
  {
    g_autofree char *withheld = pfprof_report_sources_withheld_note (a, G_MAXUINT);

    if (withheld != NULL)
      {
        g_string_append (out, "> ");
        md (out, withheld);
        g_string_append (out, "\n\n");
      }
  }
  if (headline)
    g_string_append_printf (out, "**%s**\n\n", headline);
  if (a->findings->len == 0)
    g_string_append (out, "No input-pipeline problem found: no rule fired on the steady state.\n\n");
  else
    g_string_append_printf (out, "%u finding%s, by estimated time saved per mean step.\n\n",
                            a->findings->len, a->findings->len == 1 ? "" : "s");

  /* Merged per-rank results have no devices of their own. */
  if (a->n_results == 0)
    g_string_append (out, "| Trace | Device | " PFPROF_REPORT_KERNEL_BUSY " | " PFPROF_REPORT_GPU_IDLE " | HtoD | "
                          PFPROF_REPORT_OVERLAP " | " PFPROF_REPORT_COPY_EXPOSED " | " PFPROF_REPORT_DATA_WAIT
                          " | " PFPROF_REPORT_SYNC_WAIT " |\n"
                          "|---|---|---|---|---|---|---|---|---|\n");
  for (guint i = 0; i < a->devices->len; i++)
    {
      const PfprofDeviceSummary *d = &g_array_index (a->devices, PfprofDeviceSummary, i);
      const PfprofTrace *t = g_ptr_array_index (a->traces, d->trace_index);
      gint64 len = d->steady_ns;
      g_autofree char *s_busy = pfprof_report_figure_share (d->kernel_ns, len);
      g_autofree char *s_idle = pfprof_report_figure_share (d->idle_ns, len);
      g_autofree char *s_hb = pfprof_format_bytes (d->htod_bytes);
      g_autofree char *s_ex = pfprof_format_ns (d->exposed_copy_ns);
      g_autofree char *s_dw = pfprof_format_ns (d->data_wait_ns);
      g_autofree char *s_sw = pfprof_format_ns (d->sync_wait_ns);
      g_autofree char *base = g_path_get_basename (t->path ? t->path : "-");

      g_string_append (out, "| ");
      md (out, base);
      g_string_append_printf (out, " | %u | %s | %s | %s | ", d->device_id, s_busy, s_idle, s_hb);
      cell_pct (out, d->overlap_fraction);
      g_string_append_printf (out, " | %s | %s | %s |\n", s_ex, s_dw, s_sw);
    }
  if (a->n_steady_steps > 0)
    {
      g_autofree char *s_steps = pfprof_report_steps_phrase (a);
      g_autofree char *s_parts = pfprof_report_parts_phrase (&m);
      g_autofree char *ahead = pfprof_report_host_ahead_phrase (a);

      g_string_append_printf (out, "\n%s. " PFPROF_REPORT_MEDIAN_PARTS ": %s.%s%s\n", s_steps, s_parts,
                              ahead ? " " : "", ahead ? ahead : "");
    }

  if (a->ledger.n_steps > 0 && a->ledger.mean_step_ns > 0)
    {
      const PfprofLedgerSummary *l = &a->ledger;
      g_autofree char *s_rate = pfprof_format_double (1e9 / (double) l->mean_step_ns, 1);
      g_autofree char *s_mean = pfprof_format_ns (l->mean_step_ns);
      g_autofree char *s_med = pfprof_format_ns (l->median_step_ns);

      g_string_append_printf (out, "\nStep ledger, GPU side of %u steady steps: **%s steps/s**, mean "
                                   "step %s, median step %s. Savings below are per mean step.\n\n"
                                   "| Bucket | Mean | Share | Median step |\n|---|---|---|---|\n",
                              l->n_steps, s_rate, s_mean, s_med);
      for (guint b = 0; b < PFPROF_LEDGER_N_BUCKETS; b++)
        {
          g_autofree char *v_mean = NULL, *v_med = NULL;

          if (l->mean_ns[b] < 1000 && l->median_ns[b] < 1000)
            continue;
          v_mean = pfprof_format_ns (l->mean_ns[b]);
          v_med = pfprof_format_ns (l->median_ns[b]);
          g_string_append_printf (out, "| %s | %s | ", pfprof_ledger_bucket_label ((PfprofLedgerBucket) b),
                                  v_mean);
          cell_pct (out, (double) l->mean_ns[b] / (double) l->mean_step_ns);
          g_string_append_printf (out, " | %s |\n", v_med);
        }
    }

  for (guint i = 0; i < a->traces->len; i++)
    {
      const PfprofTrace *t = g_ptr_array_index (a->traces, i);

      for (guint n = 0; t->notes != NULL && n < t->notes->len; n++)
        {
          g_string_append (out, n == 0 && i == 0 ? "\n> **Note:** " : "> **Note:** ");
          md (out, g_ptr_array_index (t->notes, n));
          g_string_append (out, "\n>\n");
        }
    }

  ranks_table (out, a, o);

  for (guint i = 0; i < shown; i++)
    finding (out, a, g_ptr_array_index (a->findings, i), FALSE);
  if (shown < a->findings->len)
    g_string_append_printf (out, "\n%u more findings not shown.\n", a->findings->len - shown);
  for (guint i = 0; a->trace_summaries != NULL && i < a->trace_summaries->len; i++)
    {
      const PfprofTraceSummary *ts = &g_array_index (a->trace_summaries, PfprofTraceSummary, i);
      g_autofree char *heading = NULL, *basis = NULL;
      g_autoptr (GPtrArray) findings = NULL;

      if (!ts->eval_judged)
        continue;
      heading = pfprof_report_eval_phase_heading (a, ts);
      basis = pfprof_report_eval_phase_basis (ts);
      findings = pfprof_report_phase_findings (a, ts->trace_index);
      g_string_append (out, "\n## ");
      md (out, heading);
      g_string_append (out, "\n\n");
      md (out, basis);
      g_string_append_c (out, '\n');
      for (guint j = 0; j < findings->len; j++)
        finding (out, a, g_ptr_array_index (findings, j), TRUE);
    }
}
