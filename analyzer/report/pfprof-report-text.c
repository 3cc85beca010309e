/* SPDX-License-Identifier: MIT */
/* pfprof-report-text.c: the terminal report.
 *
 * Wrapped to the terminal width; colour only when asked (the CLI asks on
 * a tty). Every untrusted string goes through pfprof_escape_terminal(),
 * so a kernel or NVTX name cannot move the cursor or change colours.
 */
#include "pfprof-call-sites.h"
#include "pfprof-clock-align.h"
#include "pfprof-format.h"
#include "pfprof-quantile.h"
#include "pfprof-rank-summary.h"
#include "pfprof-report.h"
#include "pfprof-steps.h"

#include <math.h>
#include <string.h>

#define BOLD "\033[1m"
#define RED "\033[31m"
#define YELLOW "\033[33m"
#define CYAN "\033[36m"
#define GREEN "\033[32m"
#define RESET "\033[0m"

typedef struct
{
  GString *out;
  const PfprofReportOptions *o;
  guint width;
} Text;

static void
style (Text *t, const char *code)
{
  if (t->o->color)
    g_string_append (t->out, code);
}

/* Appends one paragraph @s wrapped at the width, @indent spaces before
 * every line. */
static void
wrap_paragraph (Text *t, const char *s, guint indent)
{
  g_auto (GStrv) words = g_strsplit (s, " ", -1);
  guint avail = t->width > indent + 20 ? t->width - indent : 20;
  guint col = 0;

  for (guint w = 0; words[w]; w++)
    {
      guint len = (guint) g_utf8_strlen (words[w], -1);

      if (len == 0)
        continue;
      if (col == 0)
        g_string_append_printf (t->out, "%*s", (int) indent, "");
      else if (col + 1 + len > avail)
        {
          g_string_append_printf (t->out, "\n%*s", (int) indent, "");
          col = 0;
        }
      else
        {
          g_string_append_c (t->out, ' ');
          col++;
        }
      g_string_append (t->out, words[w]);
      col += len;
    }
  if (col > 0)
    g_string_append_c (t->out, '\n');
}

/* Appends @s (trusted or already escaped, may hold newlines) wrapped at
 * the width with @indent spaces before every line. Consecutive prose
 * lines form one paragraph; lines that start with spaces (code) are kept
 * as they are, so fixes stay copyable. */
static void
wrap (Text *t, const char *s, guint indent)
{
  g_auto (GStrv) lines = g_strsplit (s, "\n", -1);
  g_autoptr (GString) para = g_string_new (NULL);

  for (guint l = 0; lines[l]; l++)
    {
      const char *line = lines[l];

      if (line[0] != ' ' && line[0] != '\0')
        {
          if (para->len > 0)
            g_string_append_c (para, ' ');
          g_string_append (para, line);
          continue;
        }
      if (para->len > 0)
        {
          wrap_paragraph (t, para->str, indent);
          g_string_truncate (para, 0);
        }
      if (line[0] == '\0' && lines[l + 1] == NULL)
        break; /* trailing newline */
      g_string_append_printf (t->out, "%*s%s\n", line[0] ? (int) indent : 0, "", line);
    }
  if (para->len > 0)
    wrap_paragraph (t, para->str, indent);
}

/* @s is untrusted: strip controls, then wrap. */
static void
wrap_untrusted (Text *t, const char *s, guint indent)
{
  g_autoptr (GString) clean = g_string_new (NULL);

  pfprof_escape_terminal (clean, s, FALSE);
  wrap (t, clean->str, indent);
}

static const char *
severity_color (PfprofSeverity s)
{
  return s == PFPROF_SEVERITY_ERROR ? RED : s == PFPROF_SEVERITY_WARNING ? YELLOW : CYAN;
}

static char *
pct (double fraction)
{
  g_autofree char *num = NULL;

  if (isnan (fraction))
    return g_strdup ("n/a");
  num = pfprof_format_double (fraction * 100.0, 1);
  return g_strconcat (num, "%", NULL);
}

static void
header (Text *t, const PfprofAnalysis *a)
{
  guint warm = 0, n_eval = 0;
  g_autofree char *source = g_strdup ("none found");
  g_autofree char *headline = pfprof_report_headline (a);

  for (guint i = 0; i < a->trace_summaries->len; i++)
    {
      const PfprofTraceSummary *ts = &g_array_index (a->trace_summaries, PfprofTraceSummary, i);

      warm += ts->n_warmup_steps;
      n_eval += ts->phases.n_eval_steps;
      if (i > 0)
        continue;
      g_free (source);
      if (g_str_equal (ts->step_source, "nvtx"))
        source = g_strdup_printf ("NVTX ranges \"%s\"", ts->step_name ? ts->step_name : "");
      else if (g_str_equal (ts->step_source, "dataloader"))
        source = g_strdup ("DataLoader waits");
      else if (g_str_equal (ts->step_source, "optimizer"))
        source = g_strdup ("optimizer steps");
      else if (g_str_equal (ts->step_source, "periodic"))
        source = g_strdup ("periodic GPU work");
      else
        source = g_strdup ("none found");
    }
  {
    g_autofree char *line = NULL;

    if (n_eval > 0)
      line = g_strdup_printf ("pfprof report: %u trace%s, %u device%s, %u training steps (%u "
                              "warm-up, steps from %s) and %u evaluation batches",
                              a->traces->len, a->traces->len == 1 ? "" : "s",
                              a->devices->len, a->devices->len == 1 ? "" : "s",
                              a->steps->len - n_eval, warm, source, n_eval);
    else
      line = g_strdup_printf ("pfprof report: %u trace%s, %u device%s, %u steps (%u "
                              "warm-up, steps from %s)",
                              a->traces->len, a->traces->len == 1 ? "" : "s",
                              a->devices->len, a->devices->len == 1 ? "" : "s",
                              a->steps->len, warm, source);

    style (t, BOLD);
    wrap_untrusted (t, line, 0); /* the step name came from the program */
    style (t, RESET);
  }
  for (guint i = 0; i < a->traces->len; i++)
    {
      const PfprofTrace *tr = g_ptr_array_index (a->traces, i);
      const PfprofTraceSummary *ts = &g_array_index (a->trace_summaries, PfprofTraceSummary, i);
      g_autofree char *line = g_strdup_printf ("  [%u] %s (pid %" G_GINT64_FORMAT ")", i,
                                               tr->path ? tr->path : "(in memory)", tr->pid);
      g_autofree char *clock = NULL;

      wrap_untrusted (t, line, 0);
      clock = pfprof_clock_describe (tr);
      if (clock != NULL)
        {
          g_autofree char *note = g_strdup_printf ("      %s", clock);

          wrap_untrusted (t, note, 0);
        }
      {
        g_autofree char *cut = pfprof_report_describe_cut (tr);

        if (cut != NULL)
          {
            style (t, BOLD);
            wrap (t, cut, 6);
            style (t, RESET);
          }
      }
      if (ts->phases.has_marks)
        {
          g_autofree char *phases = pfprof_report_phases_phrase (&ts->phases, tr->end_ns - tr->start_ns);

          if (ts->eval_judged)
            {
              /* Said here too: the section is after every finding. */
              g_autofree char *judged = g_strconcat (phases, " Evaluation takes so much of the run that it "
                                                   "is judged on its own as well: its findings follow "
                                                   "the training ones.", NULL);

              wrap (t, judged, 6);
            }
          else
            wrap (t, phases, 6);
        }
      if (ts->n_out_of_range > 0)
        g_string_append_printf (t->out, "      %" G_GUINT64_FORMAT " events left out: their times "
                                "are 39 hours or more away from the rest of the trace.\n",
                                ts->n_out_of_range);
      if (ts->n_unrecorded_steps > 0)
        g_string_append_printf (t->out, "      %u steps left out: across a pause between recording windows, "
                                "or the first of a window.\n", ts->n_unrecorded_steps);
      if (ts->n_api_ids_shared > 0)
        {
          g_autofree char *shared = g_strdup_printf (
            "%u API calls carry a correlation id that another call already has: CUPTI gave "
            "them a stale one, so the kernels and copies joined to them by id may belong to "
            "other calls.", ts->n_api_ids_shared);

          wrap (t, shared, 6);
        }
      if (ts->n_bad_sites > 0)
        g_string_append_printf (t->out, "      %" G_GUINT64_FORMAT " Python call sites left out: "
                                "bad python_sites rows (a line below 1, no file name, an unknown "
                                "kind or a name over 4 KiB).\n",
                                ts->n_bad_sites);
      {
        g_autofree char *withheld = pfprof_report_sources_withheld_note (a, ts->trace_index);

        if (withheld != NULL)
          wrap (t, withheld, 6);
      }
      /* What the trace's format cannot show, and which rules it leaves
       * unable to judge (a foreign trace's importer says). */
      for (guint n = 0; tr->notes != NULL && n < tr->notes->len; n++)
        {
          g_autofree char *note = g_strdup_printf ("Note: %s",
                                                   (const char *) g_ptr_array_index (tr->notes, n));

          wrap (t, note, 6);
        }
    }
  if (headline)
    {
      g_string_append_c (t->out, '\n');
      style (t, BOLD);
      wrap (t, headline, 0);
      style (t, RESET);
    }
}

static void
devices (Text *t, const PfprofAnalysis *a)
{
  g_string_append (t->out, "\nSteady state per device (after warm-up):\n");
  for (guint i = 0; i < a->devices->len; i++)
    {
      const PfprofDeviceSummary *d = &g_array_index (a->devices, PfprofDeviceSummary, i);
      gint64 len = d->steady_ns;
      g_autofree char *s_len = pfprof_format_ns (len);
      g_autofree char *s_k = pfprof_report_figure_share (d->kernel_ns, len);
      g_autofree char *s_idle = pfprof_report_figure_share (d->idle_ns, len);
      g_autofree char *s_hb = pfprof_format_bytes (d->htod_bytes);
      g_autofree char *s_hn = pfprof_format_ns (d->htod_ns);
      g_autofree char *s_pg = pfprof_format_bytes (d->htod_pageable_bytes);
      g_autofree char *s_pgbw = pfprof_format_bandwidth (d->htod_pageable_bytes, d->htod_pageable_ns);
      g_autofree char *s_pn = pfprof_format_bytes (d->htod_pinned_bytes);
      g_autofree char *s_pnbw = pfprof_format_bandwidth (d->htod_pinned_bytes, d->htod_pinned_ns);
      g_autofree char *s_dh = pfprof_format_bytes (d->dtoh_bytes);
      g_autofree char *s_ov = pct (d->overlap_fraction);
      g_autofree char *s_ex = pfprof_format_ns (d->exposed_copy_ns);
      g_autofree char *s_sy = pfprof_format_ns (d->sync_wait_ns);
      g_autofree char *s_dw = pfprof_format_ns (d->data_wait_ns);
      g_autoptr (GString) line = g_string_new (NULL);

      g_string_append_printf (
        line,
        "trace %u, device %u, %s window: kernel busy %s, GPU idle %s; HtoD %s in %s "
        "(%" G_GUINT64_FORMAT " copies; pageable %s at %s, pinned %s at %s), DtoH %s; "
        "copy/compute overlap %s, copy exposed %s; sync wait (host blocked in syncs) %s, data "
        "wait (for the DataLoader) %s.",
        d->trace_index, d->device_id, s_len, s_k, s_idle, s_hb, s_hn,
        d->htod_count, s_pg, s_pgbw, s_pn, s_pnbw, s_dh, s_ov, s_ex, s_sy, s_dw);
      if (d->comm_ns > 0)
        {
          /* NCCL kernels are communication: not in "kernels" above, and
           * a copy beside one counts as hidden. */
          g_autofree char *s_cm = pfprof_format_ns (d->comm_ns);
          g_autofree char *s_cmp = pct (len > 0 ? (double) d->comm_ns / (double) len : NAN);

          g_string_append_printf (line,
                                  " Communication (NCCL kernels, not counted as compute) %s (%s).",
                                  s_cm, s_cmp);
        }
      wrap (t, line->str, 2);
    }
  if (a->devices->len == 0)
    g_string_append (t->out, "  no GPU work in the trace.\n");
}

/* Median over steady steps of the GPU's side of each step. */
static void
steps (Text *t, const PfprofAnalysis *a)
{
  PfprofStep m = pfprof_report_median_step (a);
  g_autofree char *s_steps = pfprof_report_steps_phrase (a);
  g_autofree char *s_parts = pfprof_report_parts_phrase (&m);
  g_autoptr (GString) line = NULL;

  if (a->n_steady_steps == 0 && a->steps->len > 0 && a->trace_summaries->len > 0
      && g_array_index (a->trace_summaries, PfprofTraceSummary, 0).phases.judge == PFPROF_LOOP_JUDGE_EVAL)
    {
      g_string_append_c (t->out, '\n');
      wrap (t, "Steps: no evaluation batch to judge (--phase eval): every step found has a backward "
               "pass or an optimizer step, or the trace records neither, so all are training steps. "
               "The figures above are over an empty window.", 0);
      return;
    }
  if (a->n_steady_steps == 0)
    {
      g_string_append_c (t->out, '\n');
      wrap (t, "Steps: none found (no step NVTX ranges, no DataLoader waits, no kernel recurring at a "
               "regular interval). The device figures above hold: they cover the GPU work after its "
               "first tenth; savings are totals over that window, not per step, and there is no step "
               "ledger or predicted step.", 0);
      return;
    }
  line = g_string_new (NULL);
  g_string_append_printf (line, "%s. " PFPROF_REPORT_MEDIAN_PARTS ": %s.", s_steps, s_parts);
  if (m.comm_ns > 0)
    {
      g_autofree char *s_cm = pfprof_format_ns (m.comm_ns);

      g_string_append_printf (line, " Communication (NCCL) %s in the median step, beside the above.", s_cm);
    }
  {
    /* When the host runs steps ahead of the GPU its steps say little of
     * the GPU's; the breakdown above is measured on the GPU's side. */
    g_autofree char *ahead = pfprof_report_host_ahead_phrase (a);

    if (ahead != NULL)
      g_string_append_printf (line, " %s", ahead);
  }
  g_string_append_c (t->out, '\n');
  wrap (t, line->str, 0);
}

static void cell (GString *out, const char *s, guint width, gboolean left);

/* The step ledger of the steady steps: steps/s first, then every bucket
 * that holds time, on the mean and on the median basis. */
static void
ledger (Text *t, const PfprofAnalysis *a)
{
  const PfprofLedgerSummary *l = &a->ledger;
  g_autofree char *s_rate = NULL;
  g_autofree char *s_mean = NULL;
  g_autofree char *s_med = NULL;

  if (l->n_steps == 0 || l->mean_step_ns <= 0)
    return;
  s_rate = pfprof_format_double (1e9 / (double) l->mean_step_ns, 1);
  s_mean = pfprof_format_ns (l->mean_step_ns);
  s_med = pfprof_format_ns (l->median_step_ns);
  {
    g_autofree char *line = g_strdup_printf ("Step ledger (GPU side of %u steady steps): %s steps/s; "
                                             "mean step %s, median step %s. Each instant counts once, "
                                             "in the first bucket that claims it:",
                                             l->n_steps, s_rate, s_mean, s_med);

    g_string_append_c (t->out, '\n');
    wrap (t, line, 0);
  }
  g_string_append (t->out, " ");
  cell (t->out, "", 33, TRUE);
  cell (t->out, "mean", 8, FALSE);
  cell (t->out, "share", 6, FALSE);
  cell (t->out, "median", 8, FALSE);
  g_string_append_c (t->out, '\n');
  for (guint b = 0; b < PFPROF_LEDGER_N_BUCKETS; b++)
    {
      g_autofree char *v_mean = NULL, *v_share = NULL, *v_med = NULL;

      if (l->mean_ns[b] < 1000 && l->median_ns[b] < 1000)
        continue; /* under a microsecond on both bases */
      v_mean = pfprof_format_ns (l->mean_ns[b]);
      v_share = pct ((double) l->mean_ns[b] / (double) l->mean_step_ns);
      v_med = pfprof_format_ns (l->median_ns[b]);
      g_string_append (t->out, " ");
      cell (t->out, pfprof_ledger_bucket_label ((PfprofLedgerBucket) b), 33, TRUE);
      cell (t->out, v_mean, 8, FALSE);
      cell (t->out, v_share, 6, FALSE);
      cell (t->out, v_med, 8, FALSE);
      g_string_append_c (t->out, '\n');
    }
  wrap (t, "(\"compute\", \"side\": the copy ran on the compute stream or another one; \"median\": "
           "the ledger of the step of median length.)", 0);
  if (a->trace_summaries->len == 1)
    {
      const PfprofTraceSummary *ts = &g_array_index (a->trace_summaries, PfprofTraceSummary, 0);

      if (ts->predicted_step_ns > 0 && ts->predicted_step_ns < l->mean_step_ns)
        {
          g_autofree char *s_all = pfprof_format_ns (ts->predicted_step_ns);
          g_autofree char *s_pct = pfprof_format_double (
            100.0 * (double) (l->mean_step_ns - ts->predicted_step_ns) / (double) l->mean_step_ns, 1);
          g_autofree char *line = g_strdup_printf (
            "With every fix below: ~%s per mean step (\u2212%s%%), savings that draw on the same bucket "
            "counted once. Savings and predictions are per mean step (an epoch's time is the mean).",
            s_all, s_pct);

          wrap (t, line, 0);
        }
      else
        wrap (t, "Savings and predictions are per mean step (an epoch's time is the mean).", 0);
    }
}

/* Appends @s right-aligned (or left with @left) in @width columns:
 * counted in characters, not bytes ("µs"). */
static void
cell (GString *out, const char *s, guint width, gboolean left)
{
  glong n = g_utf8_strlen (s, -1);

  g_string_append_c (out, ' ');
  if (left)
    g_string_append (out, s);
  for (glong i = n; i < (glong) width; i++)
    g_string_append_c (out, ' ');
  if (!left)
    g_string_append (out, s);
}

/* The per-rank table, when two or more ranked traces were given: every
 * rank, or past PFPROF_RANK_SUMMARY_TABLE_MAX the ones that matter, each
 * saying why, and one line for the rest. */
static void
ranks_table (Text *t, const PfprofAnalysis *a)
{
  static const char *const head[] = { "rank", "host", "pid", "steps", "med. step", "data wait",
                                       "exp. copy", "GPU idle", "findings", "shown as" };
  static const guint width[] = { 4, 14, 7, 5, 9, 9, 9, 9, 8, 0 };
  g_autoptr (GArray) ranks = pfprof_rank_summary_get (a);
  g_autoptr (PfprofRankSummarySelection) sel = NULL;
  g_autofree char *hidden = NULL;
  guint n_cols;

  if (ranks->len == 0)
    return;
  sel = pfprof_rank_summary_select (a, ranks, t->o->all_ranks);
  /* The last column only when rows were picked. */
  n_cols = sel->n_hidden > 0 ? G_N_ELEMENTS (head) : G_N_ELEMENTS (head) - 1;
  if (sel->n_hidden > 0)
    g_string_append_printf (t->out, "\nPer rank (steady state; per step = mean over its steps), %u of "
                                    "%u ranks:\n ",
                            sel->rows->len, ranks->len);
  else
    g_string_append (t->out, "\nPer rank (steady state; per step = mean over its steps):\n ");
  for (guint c = 0; c < n_cols; c++)
    cell (t->out, head[c], width[c], c == 1 || c == 9);
  g_string_append_c (t->out, '\n');
  for (guint i = 0; i < sel->rows->len; i++)
    {
      const PfprofRankSummaryRow *row = &g_array_index (sel->rows, PfprofRankSummaryRow, i);
      const PfprofRankSummary *r = &g_array_index (ranks, PfprofRankSummary, row->index);
      g_autoptr (GString) host = g_string_new (NULL);
      char *v[10];

      pfprof_escape_terminal (host, r->host != NULL ? r->host : "-", FALSE);
      v[0] = g_strdup_printf ("%" G_GINT64_FORMAT, r->rank);
      v[1] = g_strdup (host->str);
      v[2] = g_strdup_printf ("%" G_GINT64_FORMAT, r->pid);
      v[3] = g_strdup_printf ("%u", r->n_steady_steps);
      v[4] = pfprof_format_ns (r->step_median_ns);
      v[5] = pfprof_format_ns (r->data_wait_ns);
      v[6] = pfprof_format_ns (r->copy_exposed_ns);
      v[7] = pfprof_format_ns (r->idle_ns);
      v[8] = g_strdup_printf ("%u", r->n_findings);
      v[9] = pfprof_rank_summary_shown_describe (row->shown);
      g_string_append_c (t->out, ' ');
      for (guint c = 0; c < G_N_ELEMENTS (v); c++)
        {
          if (c < n_cols)
            cell (t->out, v[c], width[c], c == 1 || c == 9);
          g_free (v[c]);
        }
      g_string_append_c (t->out, '\n');
    }
  hidden = pfprof_rank_summary_selection_describe_hidden (sel);
  if (hidden != NULL)
    {
      /* One line, like the rows: wrapping would part numbers from units. */
      g_string_append_printf (t->out, "  ... %s.\n", hidden);
    }
}

/* A finding of PfprofAnalysis.phase_findings is tagged with its phase and
 * states its saving per evaluation batch (@apart). */
static void
finding (Text *t, const PfprofAnalysis *a, const PfprofFinding *f, guint n, gboolean apart)
{
  g_autofree char *s_save = apart ? pfprof_report_phase_saving (a, f) : pfprof_report_saving (f);
  const PfprofTrace *tr = NULL;
  gint64 t0 = 0;
  g_autofree char *s_first = NULL, *s_last = NULL;

  if (f->evidence && f->evidence->len > 0)
    {
      guint ti = g_array_index (f->evidence, PfprofEvidence, 0).trace_index;

      if (ti < a->traces->len)
        tr = g_ptr_array_index (a->traces, ti);
    }
  else if (f->trace_index < a->traces->len)
    tr = g_ptr_array_index (a->traces, f->trace_index); /* cross-trace findings carry no evidence */
  t0 = tr ? tr->start_ns : 0;
  s_first = pfprof_format_ns (f->first_ns - t0);
  s_last = pfprof_format_ns (f->last_ns - t0);

  g_string_append_c (t->out, '\n');
  style (t, BOLD);
  style (t, severity_color (f->severity));
  g_string_append_printf (t->out, "%u. %s%s%s[%s] %s", n, apart ? "[" : "",
                          apart ? pfprof_loop_judge_to_string (f->phase) : "", apart ? "] " : "",
                          pfprof_severity_to_string (f->severity), f->rule);
  style (t, RESET);
  g_string_append_c (t->out, '\n');
  {
    /* Its own line: "fix → ~X per mean step" is the figure to read first. */
    g_autofree char *line = g_strdup_printf ("%c%s.", g_ascii_toupper (s_save[0]), s_save + 1);

    wrap (t, line, 3);
  }
  style (t, BOLD);
  wrap_untrusted (t, f->title, 3);
  style (t, RESET);
  if (t->o->summary)
    return;
  wrap_untrusted (t, f->message, 3);
  if (tr != NULL) /* a merged result's finding has no trace to time it from */
    {
      g_autoptr (GString) w = g_string_new (NULL);

      g_string_append_printf (w, "Seen %" G_GUINT64_FORMAT " times from +%s to +%s (from trace start), "
                              "pid %" G_GINT64_FORMAT, f->count, s_first, s_last, f->pid);
      if (f->device_id != PFPROF_NONE)
        g_string_append_printf (w, ", device %u", f->device_id);
      if (f->stream_id != PFPROF_NONE)
        g_string_append_printf (w, ", stream %u", f->stream_id);
      g_string_append_c (w, '.');
      wrap (t, w->str, 3);
    }
  if (f->evidence && f->evidence->len > 0)
    g_string_append_printf (t->out, "   %s:\n", PFPROF_EVIDENCE_HEADING);
  for (guint i = 0; f->evidence && i < f->evidence->len && i < 3; i++)
    {
      const PfprofEvidence *e = &g_array_index (f->evidence, PfprofEvidence, i);
      g_autofree char *what = pfprof_evidence_describe (a, e);
      g_autofree char *share = pfprof_evidence_format_share (f, e);
      g_autofree char *at = pfprof_format_ns (e->start_ns - t0);
      g_autofree char *line = share ? g_strdup_printf ("- at +%s: %s (%s)", at, what, share)
                                    : g_strdup_printf ("- at +%s: %s", at, what);

      wrap_untrusted (t, line, 5);
    }
  if (f->sites != NULL && f->sites->len > 0)
    {
      g_string_append (t->out, "   Where in the Python code:\n");
      for (guint i = 0; i < f->sites->len; i++)
        {
          g_autofree char *what = pfprof_call_site_summary (&g_array_index (f->sites, PfprofFindingSite, i));
          g_autofree char *line = g_strconcat ("- ", what, NULL);

          wrap_untrusted (t, line, 5);
        }
    }
  g_string_append (t->out, "   Fix:\n");
  wrap (t, f->fix, 5);
}

/* Each evaluation phase judged on its own: its heading, what its figures
 * are over, and its findings, after the training ones. */
static void
eval_phases (Text *t, const PfprofAnalysis *a)
{
  for (guint i = 0; a->trace_summaries != NULL && i < a->trace_summaries->len; i++)
    {
      const PfprofTraceSummary *ts = &g_array_index (a->trace_summaries, PfprofTraceSummary, i);
      g_autofree char *heading = NULL, *basis = NULL;
      g_autoptr (GString) folded = g_string_new (NULL);
      g_autoptr (GPtrArray) findings = NULL;
      guint k = 0;

      if (!ts->eval_judged)
        continue;
      heading = pfprof_report_eval_phase_heading (a, ts);
      basis = pfprof_report_eval_phase_basis (ts);
      findings = pfprof_report_phase_findings (a, ts->trace_index);
      g_string_append_c (t->out, '\n');
      style (t, BOLD);
      wrap (t, heading, 0);
      style (t, RESET);
      if (!t->o->summary)
        wrap (t, basis, 0);
      for (guint j = 0; j < findings->len; j++)
        {
          const PfprofFinding *f = g_ptr_array_index (findings, j);

          if (!f->immaterial)
            finding (t, a, f, ++k, TRUE);
          else
            {
              g_autofree char *s_save = pfprof_format_ns (f->est_savings_ns);

              g_string_append_printf (folded, "%s%s (%s)", folded->len ? ", " : "", f->rule, s_save);
            }
        }
      if (folded->len > 0)
        {
          g_autofree char *line = g_strdup_printf (
            "\nAlso seen in the evaluation phase, each saving under the materiality threshold "
            "(min-saving-share) of the batch, so info: %s.", folded->str);

          wrap (t, line, 0);
        }
    }
}

void
pfprof_report_text (const PfprofAnalysis *a, const PfprofReportOptions *o, GString *out)
{
  g_return_if_fail (a != NULL);
  g_return_if_fail (o != NULL);
  g_return_if_fail (out != NULL);

  Text t = { out, o, o->width ? o->width : 80 };
  guint shown = pfprof_report_n_shown (a, o);

  if (a->n_results > 0)
    {
      /* Merged from per-rank results: no traces, no devices, no steps
       * here; each rank's own report has those. */
      g_autofree char *line = g_strdup_printf (
        "pfprof report: %u pfprof-report/1 result%s merged, %u rank%s. Each rank's devices, steps "
        "and findings are in its own result; here the ranks are compared.",
        a->n_results, a->n_results == 1 ? "" : "s", a->ranks ? a->ranks->len : 0,
        a->ranks && a->ranks->len == 1 ? "" : "s");

      style (&t, BOLD);
      wrap (&t, line, 0);
      style (&t, RESET);
    }
  else
    {
      header (&t, a);
      if (!o->summary)
        devices (&t, a);
      steps (&t, a);
      if (!o->summary)
        ledger (&t, a);
    }
  ranks_table (&t, a);
  if (a->findings->len == 0)
    {
      g_string_append_c (out, '\n');
      style (&t, GREEN);
      wrap (&t, a->n_results > 0 ? "No rank's input pipeline is markedly slower than the others'."
                                  : "No input-pipeline problem found: no rule fired on the steady state.",
            0);
      style (&t, RESET);
      if (o->summary)
        devices (&t, a);
      return;
    }
  {
    guint material = pfprof_report_n_material (a, a->findings->len);
    guint k = 0;
    g_autoptr (GString) folded = g_string_new (NULL);

    if (material > 0)
      g_string_append_printf (out, "\n%u finding%s, by estimated time saved per mean step:\n", material,
                              material == 1 ? "" : "s");
    for (guint i = 0; i < shown; i++)
      {
        const PfprofFinding *f = g_ptr_array_index (a->findings, i);

        if (!f->immaterial)
          finding (&t, a, f, ++k, FALSE);
        else
          {
            g_autofree char *s_save = pfprof_format_ns (f->est_savings_ns);
            g_autofree char *s_after = f->after_input_ns > 0 ? pfprof_format_ns (f->after_input_ns) : NULL;

            if (s_after != NULL)
              g_string_append_printf (folded, "%s%s (%s alone, %s once input keeps up)", folded->len ? ", " : "",
                                      f->rule, s_save, s_after);
            else
              g_string_append_printf (folded, "%s%s (%s)", folded->len ? ", " : "", f->rule, s_save);
          }
      }
    if (folded->len > 0)
      {
        g_autofree char *line = g_strdup_printf (
          "\nAlso seen, each saving under the materiality threshold (min-saving-share) of the step, "
          "so info: %s.", folded->str);

        wrap (&t, line, 0);
      }
  }
  if (shown < a->findings->len)
    g_string_append_printf (out, "\n(%u more; run 'pfprof report' without --top to see them)\n",
                            a->findings->len - shown);
  eval_phases (&t, a);
  if (o->summary)
    {
      /* Name the real files, so the line can be copied as it is. */
      g_autoptr (GString) cmd = g_string_new ("Run 'pfprof report");

      for (guint i = 0; i < a->traces->len; i++)
        {
          const PfprofTrace *tr = g_ptr_array_index (a->traces, i);

          g_string_append_printf (cmd, " %s", tr->path ? tr->path : "TRACE");
        }
      g_string_append (cmd, "' for the evidence and the fixes.");
      g_string_append_c (out, '\n');
      wrap_untrusted (&t, cmd->str, 0);
    }
}
