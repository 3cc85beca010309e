/* SPDX-License-Identifier: MIT */
/* pfprof-diff-output.c: a PfprofDiff as text, JSON ("pfprof-diff/1") or
 * Markdown. */
#include "pfprof-config.h"

#include "pfprof-diff.h"

#include <math.h>
#include <string.h>

#include "pfprof-format.h"
#include "pfprof-json-writer.h"
#include "pfprof-report.h"

/* Where a side's host runs steps ahead of the GPU, its steps are
 * measured on the GPU's side: says so, as the report's step line does,
 * with that side's host median step. */
static void
host_ahead_notes (GString *out, const PfprofDiff *d, const char *prefix)
{
  const PfprofDiffSide *sides[2] = { &d->before, &d->after };

  for (guint i = 0; i < 2; i++)
    if (pfprof_report_host_runs_ahead (sides[i]->analysis))
      {
        g_autofree char *host = pfprof_format_ns (sides[i]->analysis->host_step_median_ns);

        g_string_append_printf (out, "%s%s: the host runs ahead of the GPU (its median step took %s); "
                                "the steps are the GPU's side.\n",
                                prefix, i == 0 ? "before" : "after", host);
      }
}

#define ANSI_GREEN "\033[32m"
#define ANSI_RED "\033[31m"
#define ANSI_BOLD "\033[1m"
#define ANSI_RESET "\033[0m"

/* The breakdown rows: the median step, then its parts in the words and
 * order of `pfprof report` (pfprof_report_parts). */
#define N_ROWS (1 + PFPROF_REPORT_N_PARTS)

static const char *
row_key (guint row)
{
  return row == 0 ? "step_ns" : pfprof_report_parts[row - 1].key;
}

static const char *
row_label (guint row)
{
  return row == 0 ? "median step" : pfprof_report_parts[row - 1].label;
}

static gint64
field (const PfprofStep *s, guint row)
{
  return row == 0 ? s->end_ns : G_STRUCT_MEMBER (gint64, s, pfprof_report_parts[row - 1].offset);
}

static char *
signed_ns (gint64 ns)
{
  g_autofree char *s = pfprof_format_ns (ns);

  return ns > 0 ? g_strconcat ("+", s, NULL) : g_steal_pointer (&s);
}

/* "-27.1%", "+3.0%", or "-" when @before is 0. */
static char *
pct_change (gint64 before, gint64 after)
{
  g_autofree char *num = NULL;
  double pct;

  if (before <= 0)
    return g_strdup ("-");
  pct = ((double) after - (double) before) / (double) before * 100.0;
  num = pfprof_format_double (pct, 1);
  return g_strdup_printf ("%s%s%%", pct > 0 ? "+" : "", num);
}

static char *
fraction_pct (gboolean has, double v)
{
  g_autofree char *num = NULL;

  if (!has)
    return g_strdup ("-");
  num = pfprof_format_double (v * 100.0, 1);
  return g_strconcat (num, "%", NULL);
}

static char *
points_change (gboolean has_b, double b, gboolean has_a, double a)
{
  g_autofree char *num = NULL;
  double d;

  if (!has_b || !has_a)
    return g_strdup ("-");
  d = (a - b) * 100.0;
  num = pfprof_format_double (d, 1);
  return g_strdup_printf ("%s%s points", d > 0 ? "+" : "", num);
}

/* "pg.pfprof, rank1.pfprof" for a side (untrusted: raw paths). */
static char *
side_paths (const PfprofDiffSide *side)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < side->analysis->traces->len; i++)
    {
      const PfprofTrace *t = g_ptr_array_index (side->analysis->traces, i);

      if (i > 0)
        g_string_append (s, ", ");
      g_string_append (s, t->path ? t->path : "");
    }
  return g_string_free (s, FALSE);
}

/* One sentence on the median step; plain text, no untrusted content. */
static char *
verdict (const PfprofDiff *d)
{
  g_autofree char *b = pfprof_format_ns (d->before.median.end_ns);
  g_autofree char *a = pfprof_format_ns (d->after.median.end_ns);
  g_autofree char *num = NULL;
  double pct;

  if (!pfprof_diff_step_change_pct (d, &pct))
    return g_strdup ("no steps on one side, so step times cannot be compared.");
  num = pfprof_format_double (fabs (pct), 1);
  if (fabs (pct) < 0.05)
    return g_strdup_printf ("the median step is unchanged (%s).", b);
  return g_strdup_printf ("the median step is %s%% %s (%s -> %s).", num,
                          pct < 0 ? "faster" : "slower", b, a);
}

/* "+8.2% (interval +6.1% .. +10.3%)" of one statistic's change. */
static char *
change_phrase (const PfprofChange *c)
{
  g_autofree char *pct = pfprof_format_double (c->change_pct, 1);
  g_autofree char *lo = pfprof_format_double (c->low_pct, 1);
  g_autofree char *hi = pfprof_format_double (c->high_pct, 1);

  return g_strdup_printf ("%s%s%% (95%% interval %s%s%% .. %s%s%%)", c->change_pct >= 0 ? "+" : "", pct,
                          c->low_pct >= 0 ? "+" : "", lo, c->high_pct >= 0 ? "+" : "", hi);
}

/* One gate's verdict: "--fail-if-slower 5.0%: FAILED, median +8.2% (...)". */
static void
gate_part (GString *s, const PfprofDiff *d, const char *option, double limit, PfprofStatistic stat,
           gboolean failed, gboolean noise)
{
  g_autofree char *num = pfprof_format_double (limit, 1);

  if (s->len > 0)
    g_string_append (s, "; ");
  g_string_append_printf (s, "%s %s%%: %s", option, num, failed ? "FAILED" : "passed");
  if (d->has_change[stat])
    {
      g_autofree char *phrase = change_phrase (&d->change[stat]);

      g_string_append_printf (s, ", %s %s", pfprof_statistic_to_string (stat), phrase);
      if (noise)
        g_string_append (s, ", over the limit but within the noise");
    }
}

static char *
gate_line (const PfprofDiff *d, const PfprofDiffGate *gate)
{
  GString *s;

  if (gate == NULL || !gate->has_gate)
    return NULL;
  s = g_string_new (NULL);
  if (gate->has_slower)
    gate_part (s, d, "--fail-if-slower", gate->max_slower_pct, PFPROF_STATISTIC_MEDIAN,
               gate->failed_median, gate->noise_median);
  if (gate->has_p90_slower)
    gate_part (s, d, "--fail-if-p90-slower", gate->max_p90_slower_pct, PFPROF_STATISTIC_P90,
               gate->failed_p90, gate->noise_p90);
  return g_string_free (s, FALSE);
}

/* What text and Markdown both print, formatted once: they differ only in
 * the lines around the cells. */
typedef struct
{
  char *paths[2];           /* before, after (untrusted: raw paths) */
  char *rows[N_ROWS][4];    /* breakdown row: before, after, change, % */
  char *overlap[3];         /* copy/compute overlap: before, after, change */
  char *idle[3];            /* GPU idle share: before, after, change */
  char *verdict;
  char *gate;               /* NULL without a gate */
  /* Steady steps by statistic: before, after, change, interval; NULL
   * without steps on a side. */
  char *stats[PFPROF_DIFF_N_STATISTICS][4];
} Cells;

static void
cells_fill (Cells *c, const PfprofDiff *d, const PfprofDiffGate *gate)
{
  c->paths[0] = side_paths (&d->before);
  c->paths[1] = side_paths (&d->after);
  for (guint r = 0; r < N_ROWS; r++)
    {
      gint64 b = field (&d->before.median, r), a = field (&d->after.median, r);

      c->rows[r][0] = pfprof_format_ns (b);
      c->rows[r][1] = pfprof_format_ns (a);
      c->rows[r][2] = signed_ns (a - b);
      c->rows[r][3] = pct_change (b, a);
    }
  c->overlap[0] = fraction_pct (d->before.has_overlap, d->before.overlap_fraction);
  c->overlap[1] = fraction_pct (d->after.has_overlap, d->after.overlap_fraction);
  c->overlap[2] = points_change (d->before.has_overlap, d->before.overlap_fraction,
                                 d->after.has_overlap, d->after.overlap_fraction);
  c->idle[0] = fraction_pct (TRUE, d->before.idle_fraction);
  c->idle[1] = fraction_pct (TRUE, d->after.idle_fraction);
  c->idle[2] = points_change (TRUE, d->before.idle_fraction, TRUE, d->after.idle_fraction);
  c->verdict = verdict (d);
  c->gate = gate_line (d, gate);
  for (guint i = 0; i < PFPROF_DIFF_N_STATISTICS; i++)
    {
      const PfprofChange *ch = &d->change[i];
      g_autofree char *lo = NULL, *hi = NULL, *num = NULL;

      if (!d->has_change[i])
        continue;
      c->stats[i][0] = pfprof_format_ns (ch->before_ns);
      c->stats[i][1] = pfprof_format_ns (ch->after_ns);
      num = pfprof_format_double (ch->change_pct, 1);
      c->stats[i][2] = g_strdup_printf ("%s%s%%", ch->change_pct >= 0 ? "+" : "", num);
      lo = pfprof_format_double (ch->low_pct, 1);
      hi = pfprof_format_double (ch->high_pct, 1);
      c->stats[i][3] = g_strdup_printf ("%s%s%% .. %s%s%%", ch->low_pct >= 0 ? "+" : "", lo,
                                        ch->high_pct >= 0 ? "+" : "", hi);
    }
}

static void
cells_clear (Cells *c)
{
  for (guint i = 0; i < 2; i++)
    g_free (c->paths[i]);
  for (guint r = 0; r < N_ROWS; r++)
    for (guint k = 0; k < 4; k++)
      g_free (c->rows[r][k]);
  for (guint i = 0; i < 3; i++)
    {
      g_free (c->overlap[i]);
      g_free (c->idle[i]);
    }
  g_free (c->verdict);
  g_free (c->gate);
  for (guint i = 0; i < PFPROF_DIFF_N_STATISTICS; i++)
    for (guint k = 0; k < 4; k++)
      g_free (c->stats[i][k]);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Cells, cells_clear)

/* Appends @s right-aligned in @width columns; printf's widths count
 * bytes, and "µs" is two bytes for one column. */
static void
pad_left (GString *out, const char *s, guint width)
{
  glong n = g_utf8_strlen (s, -1);

  for (glong i = n; i < (glong) width; i++)
    g_string_append_c (out, ' ');
  g_string_append (out, s);
}

static void
text_finding (GString *out, const PfprofDiffFinding *f, gboolean color)
{
  g_autofree char *tb = pfprof_format_ns (f->time_before_ns);
  g_autofree char *ta = pfprof_format_ns (f->time_after_ns);
  const char *on = "";

  if (color)
    on = f->status == PFPROF_DIFF_RESOLVED ? ANSI_GREEN
         : f->status == PFPROF_DIFF_NEW    ? ANSI_RED
                                           : "";
  g_string_append_printf (out, "  %s%-9s%s [%s] %s: ", on, pfprof_diff_status_to_string (f->status),
                          *on ? ANSI_RESET : "", pfprof_severity_to_string (f->severity), f->rule);
  pfprof_escape_terminal (out, f->title ? f->title : "", FALSE);
  g_string_append_printf (out,
                          "\n            %" G_GUINT64_FORMAT " -> %" G_GUINT64_FORMAT
                          " occurrences, %s -> %s affected\n",
                          f->count_before, f->count_after, tb, ta);
}

void
pfprof_diff_output_text (const PfprofDiff *d, const PfprofDiffGate *gate, gboolean color,
                         GString *out)
{
  g_return_if_fail (d != NULL);
  g_return_if_fail (out != NULL);

  g_auto (Cells) c = { 0 };

  cells_fill (&c, d, gate);

  g_string_append (out, color ? ANSI_BOLD "pfprof diff" ANSI_RESET "\n" : "pfprof diff\n");
  g_string_append (out, "  before: ");
  pfprof_escape_terminal (out, c.paths[0], FALSE);
  g_string_append_printf (out, " (%u steps, %u after warm-up, steps from %s)\n  after:  ",
                          d->before.n_steps, d->before.n_steady_steps, d->before.step_source);
  pfprof_escape_terminal (out, c.paths[1], FALSE);
  g_string_append_printf (out, " (%u steps, %u after warm-up, steps from %s)\n", d->after.n_steps,
                          d->after.n_steady_steps, d->after.step_source);
  if (strcmp (d->before.step_source, d->after.step_source) != 0)
    g_string_append (out, "  note: the two sides found their steps differently; "
                          "compare with care\n");

  g_string_append_printf (out, "\n%-22s %12s %12s %12s\n", "Median step", "before", "after",
                          "change");
  for (guint r = 0; r < N_ROWS; r++)
    {
      g_string_append_printf (out, "  %-20s", row_label (r));
      pad_left (out, c.rows[r][0], 13);
      pad_left (out, c.rows[r][1], 13);
      pad_left (out, c.rows[r][2], 13);
      pad_left (out, c.rows[r][3], 9);
      g_string_append_c (out, '\n');
    }
  g_string_append_printf (out, "  %-20s %12s %12s %21s\n", "copy/compute overlap", c.overlap[0],
                          c.overlap[1], c.overlap[2]);
  g_string_append_printf (out, "  %-20s %12s %12s %21s\n", "GPU idle share", c.idle[0], c.idle[1],
                          c.idle[2]);
  host_ahead_notes (out, d, "  note: ");
  if (d->has_change[PFPROF_STATISTIC_MEDIAN])
    {
      g_string_append_printf (out, "\n%-22s %12s %12s %12s   %s\n", "Steady steps", "before", "after",
                              "change", "95% interval (bootstrap)");
      for (guint i = 0; i < PFPROF_DIFF_N_STATISTICS; i++)
        {
          if (c.stats[i][0] == NULL)
            continue;
          g_string_append_printf (out, "  %-20s", pfprof_statistic_to_string ((PfprofStatistic) i));
          pad_left (out, c.stats[i][0], 13);
          pad_left (out, c.stats[i][1], 13);
          pad_left (out, c.stats[i][2], 13);
          g_string_append_printf (out, "   %s\n", c.stats[i][3]);
        }
    }

  g_string_append_printf (out, "\nFindings: %u resolved, %u new, %u unchanged\n",
                          pfprof_diff_count (d, PFPROF_DIFF_RESOLVED),
                          pfprof_diff_count (d, PFPROF_DIFF_NEW),
                          pfprof_diff_count (d, PFPROF_DIFF_UNCHANGED));
  for (guint i = 0; i < d->findings->len; i++)
    text_finding (out, g_ptr_array_index (d->findings, i), color);
  g_string_append_printf (out, "\nVerdict: %s\n", c.verdict);
  if (c.gate)
    g_string_append_printf (out, "Gate: %s\n", c.gate);
}

/* ---- JSON ----------------------------------------------------------- */

/* @v, or null when there is none. */
static void
member_fraction (PfprofJsonWriter *w, const char *key, double v, gboolean has)
{
  pfprof_json_writer_key (w, key);
  if (has)
    pfprof_json_writer_double (w, v, 6);
  else
    pfprof_json_writer_null (w);
}

static void
json_side (PfprofJsonWriter *w, const PfprofDiffSide *s)
{
  pfprof_json_writer_begin_object (w);
  pfprof_json_writer_key (w, "traces");
  pfprof_json_writer_begin_array (w);
  for (guint i = 0; i < s->analysis->traces->len; i++)
    {
      const PfprofTrace *t = g_ptr_array_index (s->analysis->traces, i);

      pfprof_json_writer_string (w, t->path ? t->path : "");
    }
  pfprof_json_writer_end_array (w);
  pfprof_json_writer_member_uint (w, "steps", s->n_steps);
  pfprof_json_writer_member_uint (w, "steady_steps", s->n_steady_steps);
  pfprof_json_writer_member_string (w, "step_source", s->step_source ? s->step_source : "");
  pfprof_json_writer_key (w, "median");
  pfprof_json_writer_begin_object (w);
  for (guint r = 0; r < N_ROWS; r++)
    pfprof_json_writer_member_int (w, row_key (r), field (&s->median, r));
  pfprof_json_writer_end_object (w);
  pfprof_json_writer_member_int (w, "host_median_ns", s->analysis->host_step_median_ns);
  pfprof_json_writer_key (w, "host_ahead");
  pfprof_json_writer_bool (w, pfprof_report_host_runs_ahead (s->analysis));
  member_fraction (w, "overlap_fraction", s->overlap_fraction, s->has_overlap);
  member_fraction (w, "gpu_idle_fraction", s->idle_fraction, TRUE);
  pfprof_json_writer_key (w, "findings");
  pfprof_json_writer_begin_array (w);
  for (guint i = 0; i < s->analysis->findings->len; i++)
    {
      const PfprofFinding *f = g_ptr_array_index (s->analysis->findings, i);

      pfprof_json_writer_string (w, f->rule ? f->rule : "");
    }
  pfprof_json_writer_end_array (w);
  pfprof_json_writer_end_object (w);
}

void
pfprof_diff_output_json (const PfprofDiff *d, const PfprofDiffGate *gate, GString *out)
{
  g_return_if_fail (d != NULL);
  g_return_if_fail (out != NULL);

  guint n_resolved = pfprof_diff_count (d, PFPROF_DIFF_RESOLVED);
  guint n_new = pfprof_diff_count (d, PFPROF_DIFF_NEW);
  guint n_unchanged = pfprof_diff_count (d, PFPROF_DIFF_UNCHANGED);
  double pct = 0;
  gboolean has_pct = pfprof_diff_step_change_pct (d, &pct);
  PfprofJsonWriter writer, *w = &writer;

  pfprof_json_writer_init (w, out);
  pfprof_json_writer_begin_object (w);
  pfprof_json_writer_member_string (w, "format", PFPROF_DIFF_JSON_FORMAT);
  pfprof_json_writer_member_string (w, "generator", "pfprof " PFPROF_VERSION);
  pfprof_json_writer_key (w, "before");
  json_side (w, &d->before);
  pfprof_json_writer_key (w, "after");
  json_side (w, &d->after);
  pfprof_json_writer_key (w, "delta");
  pfprof_json_writer_begin_object (w);
  for (guint r = 0; r < N_ROWS; r++)
    pfprof_json_writer_member_int (w, row_key (r),
                                   field (&d->after.median, r) - field (&d->before.median, r));
  member_fraction (w, "step_change_pct", pct, has_pct);
  member_fraction (w, "overlap_fraction", d->after.overlap_fraction - d->before.overlap_fraction,
                   d->before.has_overlap && d->after.has_overlap);
  member_fraction (w, "gpu_idle_fraction", d->after.idle_fraction - d->before.idle_fraction, TRUE);
  pfprof_json_writer_end_object (w);
  /* The steady steps as distributions; null without steps on a side. */
  pfprof_json_writer_key (w, "steps");
  if (!d->has_change[PFPROF_STATISTIC_MEDIAN])
    pfprof_json_writer_null (w);
  else
    {
      pfprof_json_writer_begin_object (w);
      pfprof_json_writer_member_string (w, "interval", "95% percentile bootstrap");
      for (guint i = 0; i < PFPROF_DIFF_N_STATISTICS; i++)
        {
          const PfprofChange *ch = &d->change[i];

          pfprof_json_writer_key (w, pfprof_statistic_to_string ((PfprofStatistic) i));
          pfprof_json_writer_begin_object (w);
          pfprof_json_writer_member_int (w, "before_ns", ch->before_ns);
          pfprof_json_writer_member_int (w, "after_ns", ch->after_ns);
          member_fraction (w, "change_pct", ch->change_pct, TRUE);
          member_fraction (w, "low_pct", ch->low_pct, TRUE);
          member_fraction (w, "high_pct", ch->high_pct, TRUE);
          pfprof_json_writer_member_uint (w, "rounds", ch->rounds);
          pfprof_json_writer_end_object (w);
        }
      pfprof_json_writer_end_object (w);
    }
  /* One finding a line. */
  pfprof_json_writer_key (w, "findings");
  pfprof_json_writer_begin_array (w);
  for (guint i = 0; i < d->findings->len; i++)
    {
      const PfprofDiffFinding *f = g_ptr_array_index (d->findings, i);

      pfprof_json_writer_new_line (w);
      pfprof_json_writer_begin_object (w);
      pfprof_json_writer_member_string (w, "rule", f->rule ? f->rule : "");
      pfprof_json_writer_member_string (w, "status", pfprof_diff_status_to_string (f->status));
      pfprof_json_writer_member_string (w, "severity", pfprof_severity_to_string (f->severity));
      pfprof_json_writer_member_string (w, "title", f->title ? f->title : "");
      pfprof_json_writer_member_uint (w, "count_before", f->count_before);
      pfprof_json_writer_member_uint (w, "count_after", f->count_after);
      pfprof_json_writer_member_int (w, "time_before_ns", f->time_before_ns);
      pfprof_json_writer_member_int (w, "time_after_ns", f->time_after_ns);
      pfprof_json_writer_member_int (w, "est_savings_before_ns", f->savings_before_ns);
      pfprof_json_writer_member_int (w, "est_savings_after_ns", f->savings_after_ns);
      pfprof_json_writer_end_object (w);
    }
  pfprof_json_writer_end_array (w);
  pfprof_json_writer_key (w, "summary");
  pfprof_json_writer_begin_object (w);
  pfprof_json_writer_member_uint (w, "resolved", n_resolved);
  pfprof_json_writer_member_uint (w, "new", n_new);
  pfprof_json_writer_member_uint (w, "unchanged", n_unchanged);
  pfprof_json_writer_end_object (w);
  pfprof_json_writer_key (w, "gate");
  if (gate == NULL || !gate->has_gate)
    pfprof_json_writer_null (w);
  else
    {
      pfprof_json_writer_begin_object (w);
      member_fraction (w, "fail_if_slower_pct", gate->max_slower_pct, gate->has_slower);
      member_fraction (w, "fail_if_p90_slower_pct", gate->max_p90_slower_pct, gate->has_p90_slower);
      pfprof_json_writer_key (w, "failed");
      pfprof_json_writer_bool (w, gate->failed);
      pfprof_json_writer_key (w, "failed_median");
      pfprof_json_writer_bool (w, gate->failed_median);
      pfprof_json_writer_key (w, "failed_p90");
      pfprof_json_writer_bool (w, gate->failed_p90);
      pfprof_json_writer_key (w, "within_noise");
      pfprof_json_writer_bool (w, gate->noise_median || gate->noise_p90);
      pfprof_json_writer_end_object (w);
    }
  pfprof_json_writer_end_object (w);
  g_string_append_c (out, '\n');
}

/* ---- Markdown ------------------------------------------------------- */

void
pfprof_diff_output_markdown (const PfprofDiff *d, const PfprofDiffGate *gate, GString *out)
{
  g_return_if_fail (d != NULL);
  g_return_if_fail (out != NULL);

  g_auto (Cells) c = { 0 };

  cells_fill (&c, d, gate);

  g_string_append (out, "## pfprof diff\n\n- **Before:** ");
  pfprof_escape_markdown (out, c.paths[0]);
  g_string_append_printf (out, " (%u steps, %u after warm-up)\n- **After:** ", d->before.n_steps,
                          d->before.n_steady_steps);
  pfprof_escape_markdown (out, c.paths[1]);
  g_string_append_printf (out, " (%u steps, %u after warm-up)\n\n", d->after.n_steps, d->after.n_steady_steps);
  g_string_append (out, "| | before | after | change | % |\n|---|---:|---:|---:|---:|\n");
  for (guint r = 0; r < N_ROWS; r++)
    g_string_append_printf (out, "| %s | %s | %s | %s | %s |\n", row_label (r), c.rows[r][0],
                            c.rows[r][1], c.rows[r][2], c.rows[r][3]);
  g_string_append_printf (out, "| copy/compute overlap | %s | %s | %s | |\n", c.overlap[0],
                          c.overlap[1], c.overlap[2]);
  g_string_append_printf (out, "| GPU idle share | %s | %s | %s | |\n\n", c.idle[0], c.idle[1],
                          c.idle[2]);
  {
    gsize len = out->len;

    /* A list, and a blank line before the next table. */
    host_ahead_notes (out, d, "- ");
    if (out->len > len)
      g_string_append_c (out, '\n');
  }
  if (d->has_change[PFPROF_STATISTIC_MEDIAN])
    {
      g_string_append (out, "| steady steps | before | after | change | 95% interval (bootstrap) |\n"
                            "|---|---:|---:|---:|---:|\n");
      for (guint i = 0; i < PFPROF_DIFF_N_STATISTICS; i++)
        if (c.stats[i][0] != NULL)
          g_string_append_printf (out, "| %s | %s | %s | %s | %s |\n",
                                  pfprof_statistic_to_string ((PfprofStatistic) i), c.stats[i][0],
                                  c.stats[i][1], c.stats[i][2], c.stats[i][3]);
      g_string_append_c (out, '\n');
    }
  g_string_append_printf (out, "**Findings:** %u resolved, %u new, %u unchanged\n\n",
                          pfprof_diff_count (d, PFPROF_DIFF_RESOLVED),
                          pfprof_diff_count (d, PFPROF_DIFF_NEW),
                          pfprof_diff_count (d, PFPROF_DIFF_UNCHANGED));
  if (d->findings->len > 0)
    {
      g_string_append (out, "| status | rule | severity | before | after | finding |\n"
                            "|---|---|---|---:|---:|---|\n");
      for (guint i = 0; i < d->findings->len; i++)
        {
          const PfprofDiffFinding *f = g_ptr_array_index (d->findings, i);
          g_autofree char *tb = pfprof_format_ns (f->time_before_ns);
          g_autofree char *ta = pfprof_format_ns (f->time_after_ns);

          g_string_append_printf (out,
                                  "| %s | `%s` | %s | %" G_GUINT64_FORMAT " (%s) | "
                                  "%" G_GUINT64_FORMAT " (%s) | ",
                                  pfprof_diff_status_to_string (f->status), f->rule,
                                  pfprof_severity_to_string (f->severity), f->count_before, tb,
                                  f->count_after, ta);
          pfprof_escape_markdown (out, f->title ? f->title : "");
          g_string_append (out, " |\n");
        }
      g_string_append_c (out, '\n');
    }
  g_string_append_printf (out, "**Verdict:** %s\n", c.verdict);
  if (c.gate)
    g_string_append_printf (out, "\n**Gate:** %s\n", c.gate);
}
