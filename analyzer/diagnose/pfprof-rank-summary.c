/* SPDX-License-Identifier: MIT */
/* pfprof-rank-summary.c: per-rank steady-state figures of a multi-rank run. */
#include "pfprof-rank-summary.h"

#include "pfprof-rules.h"
#include "pfprof-format.h"
#include "pfprof-quantile.h"
#include "pfprof-steps.h"

static int
compare_rank (gconstpointer pa, gconstpointer pb)
{
  const PfprofRankSummary *x = pa, *y = pb;

  if (x->rank != y->rank)
    return (x->rank > y->rank) - (x->rank < y->rank);
  return (x->trace_index > y->trace_index) - (x->trace_index < y->trace_index);
}

gint64
pfprof_rank_summary_input_ns (const PfprofRankSummary *s)
{
  g_return_val_if_fail (s != NULL, 0);

  return s->data_wait_ns + s->copy_exposed_ns;
}

void
pfprof_rank_summary_of_trace (const PfprofAnalysis *a, guint i, PfprofRankSummary *out)
{
  const PfprofTrace *t;
  PfprofRankSummary s = { 0 };
  g_autofree gint64 *len = NULL;
  gint64 dw = 0, ce = 0, idle = 0;
  guint n = 0;

  g_return_if_fail (a != NULL);
  g_return_if_fail (i < a->traces->len);
  g_return_if_fail (out != NULL);
  t = g_ptr_array_index (a->traces, i);
  len = g_new (gint64, a->steps->len + 1);
  for (guint k = 0; k < a->steps->len; k++)
    {
      const PfprofStep *st = &g_array_index (a->steps, PfprofStep, k);

      if (st->trace_index != i || !pfprof_step_is_steady (st))
        continue;
      if (n == 0 || st->start_ns < s.steady_start_ns)
        s.steady_start_ns = st->start_ns;
      s.steady_end_ns = MAX (s.steady_end_ns, st->end_ns);
      len[n++] = pfprof_step_length (st);
      dw += st->data_wait_ns;
      ce += st->copy_exposed_ns;
      idle += st->idle_ns;
    }
  s.trace_index = i;
  s.rank = t->rank;
  s.host = pfprof_trace_meta (t, "host");
  s.command_line = pfprof_trace_meta (t, "command_line");
  s.path = t->path;
  s.pid = t->pid;
  s.n_steady_steps = n;
  s.step_median_ns = pfprof_step_median (len, n);
  s.data_wait_ns = n > 0 ? dw / n : 0;
  s.copy_exposed_ns = n > 0 ? ce / n : 0;
  s.idle_ns = n > 0 ? idle / n : 0;
  for (guint k = 0; k < a->findings->len; k++)
    if (((const PfprofFinding *) g_ptr_array_index (a->findings, k))->trace_index == i)
      s.n_findings++;
  *out = s;
}

GArray *
pfprof_rank_summary_get (const PfprofAnalysis *a)
{
  g_return_val_if_fail (a != NULL, NULL);
  if (a->ranks != NULL)
    return g_array_ref (a->ranks);
  return pfprof_rank_summary_collect (a);
}

GArray *
pfprof_rank_summary_collect (const PfprofAnalysis *a)
{
  GArray *out;
  guint n_ranked = 0;

  g_return_val_if_fail (a != NULL, NULL);
  out = g_array_new (FALSE, TRUE, sizeof (PfprofRankSummary));
  for (guint i = 0; i < a->traces->len; i++)
    if (((const PfprofTrace *) g_ptr_array_index (a->traces, i))->rank >= 0)
      n_ranked++;
  if (n_ranked < 2)
    return out;

  for (guint i = 0; i < a->traces->len; i++)
    {
      PfprofRankSummary s;

      if (((const PfprofTrace *) g_ptr_array_index (a->traces, i))->rank < 0)
        continue;
      pfprof_rank_summary_of_trace (a, i, &s);
      g_array_append_val (out, s);
    }
  g_array_sort (out, compare_rank);
  /* Two traces of one rank are two runs (or a restart), not one run's
   * ranks: comparing them as ranks would mislead. */
  for (guint i = 1; i < out->len; i++)
    if (g_array_index (out, PfprofRankSummary, i).rank == g_array_index (out, PfprofRankSummary, i - 1).rank)
      {
        g_array_set_size (out, 0);
        break;
      }
  return out;
}

/* How many rows each reason adds (see the header). */
#define N_SLOW_INPUT 5
#define N_SLOW_STEP 5
#define N_FAST_STEP 2
#define N_NO_STEPS 3

typedef struct
{
  const GArray *ranks;
  gboolean by_input; /* else by median step */
} Order;

static gint64
order_value (const Order *o, guint i)
{
  const PfprofRankSummary *s = &g_array_index (o->ranks, PfprofRankSummary, i);

  return o->by_input ? pfprof_rank_summary_input_ns (s) : s->step_median_ns;
}

/* Highest value first; ties by position (rank), so the pick is stable. */
static int
compare_desc (gconstpointer pa, gconstpointer pb, gpointer data)
{
  guint x = *(const guint *) pa, y = *(const guint *) pb;
  gint64 vx = order_value (data, x), vy = order_value (data, y);

  if (vx != vy)
    return vx > vy ? -1 : 1;
  return (x > y) - (x < y);
}

/* Flags the first @n of the @n_with ranks with steps, ordered by @o
 * (descending; from the end when @lowest). */
static void
flag_extremes (guint *flags, guint *with_steps, guint n_with, Order *o, gboolean lowest, guint n,
               guint flag)
{
  g_qsort_with_data (with_steps, (gint) n_with, sizeof (guint), compare_desc, o);
  for (guint k = 0; k < n && k < n_with; k++)
    flags[with_steps[lowest ? n_with - 1 - k : k]] |= flag;
}

PfprofRankSummarySelection *
pfprof_rank_summary_select (const PfprofAnalysis *a, const GArray *ranks, gboolean all)
{
  PfprofRankSummarySelection *sel;
  g_autofree guint *flags = NULL;
  g_autofree guint *with_steps = NULL;
  g_autofree gint64 *steps = NULL;
  guint n_with = 0, n_steps = 0, n_no_steps = 0;
  g_return_val_if_fail (a != NULL, NULL);
  g_return_val_if_fail (ranks != NULL, NULL);

  Order o = { ranks, FALSE };

  g_return_val_if_fail (a != NULL, NULL);
  g_return_val_if_fail (ranks != NULL, NULL);
  sel = g_new0 (PfprofRankSummarySelection, 1);
  sel->rows = g_array_new (FALSE, FALSE, sizeof (PfprofRankSummaryRow));
  if (all || ranks->len <= PFPROF_RANK_SUMMARY_TABLE_MAX)
    {
      for (guint i = 0; i < ranks->len; i++)
        {
          PfprofRankSummaryRow row = { i, 0 };

          g_array_append_val (sel->rows, row);
        }
      return sel;
    }

  flags = g_new0 (guint, ranks->len);
  with_steps = g_new (guint, ranks->len);
  for (guint i = 0; i < ranks->len; i++)
    {
      const PfprofRankSummary *s = &g_array_index (ranks, PfprofRankSummary, i);

      if (s->n_steady_steps > 0)
        with_steps[n_with++] = i;
      else if (n_no_steps++ < N_NO_STEPS)
        flags[i] |= PFPROF_RANK_SUMMARY_SHOWN_NO_STEPS;
    }
  /* Findings point at a trace (traces given together) or at a merged
   * row (PfprofRankSummary.trace_index says which either way). */
  for (guint k = 0; k < a->findings->len; k++)
    {
      const PfprofFinding *f = g_ptr_array_index (a->findings, k);

      if (g_strcmp0 (f->rule, pfprof_rule_rank_imbalance.id) != 0)
        continue;
      for (guint i = 0; i < ranks->len; i++)
        if (g_array_index (ranks, PfprofRankSummary, i).trace_index == f->trace_index)
          flags[i] |= PFPROF_RANK_SUMMARY_SHOWN_IMBALANCE;
    }
  o.by_input = TRUE;
  flag_extremes (flags, with_steps, n_with, &o, FALSE, N_SLOW_INPUT, PFPROF_RANK_SUMMARY_SHOWN_SLOW_INPUT);
  o.by_input = FALSE;
  flag_extremes (flags, with_steps, n_with, &o, FALSE, N_SLOW_STEP, PFPROF_RANK_SUMMARY_SHOWN_SLOW_STEP);
  flag_extremes (flags, with_steps, n_with, &o, TRUE, N_FAST_STEP, PFPROF_RANK_SUMMARY_SHOWN_FAST_STEP);
  /* with_steps is by descending median step now: its middle is typical. */
  if (n_with > 0)
    flags[with_steps[n_with / 2]] |= PFPROF_RANK_SUMMARY_SHOWN_TYPICAL;

  steps = g_new (gint64, ranks->len);
  for (guint i = 0; i < ranks->len; i++)
    {
      const PfprofRankSummary *s = &g_array_index (ranks, PfprofRankSummary, i);
      PfprofRankSummaryRow row = { i, flags[i] };

      if (flags[i] != 0)
        {
          g_array_append_val (sel->rows, row);
          continue;
        }
      sel->n_hidden++;
      if (s->n_steady_steps == 0)
        {
          sel->n_hidden_no_steps++;
          continue;
        }
      if (n_steps == 0 || s->step_median_ns < sel->hidden_step_min_ns)
        sel->hidden_step_min_ns = s->step_median_ns;
      if (n_steps == 0 || s->step_median_ns > sel->hidden_step_max_ns)
        sel->hidden_step_max_ns = s->step_median_ns;
      if (n_steps == 0 || s->data_wait_ns < sel->hidden_data_wait_min_ns)
        sel->hidden_data_wait_min_ns = s->data_wait_ns;
      if (n_steps == 0 || s->data_wait_ns > sel->hidden_data_wait_max_ns)
        sel->hidden_data_wait_max_ns = s->data_wait_ns;
      steps[n_steps++] = s->step_median_ns;
    }
  sel->hidden_step_median_ns = pfprof_quantile_median_i64 (steps, n_steps);
  return sel;
}

void
pfprof_rank_summary_selection_free (PfprofRankSummarySelection *sel)
{
  if (sel == NULL)
    return;
  g_array_unref (sel->rows);
  g_free (sel);
}

char *
pfprof_rank_summary_shown_describe (guint shown)
{
  static const struct
  {
    guint flag;
    const char *words;
  } reasons[] = {
    { PFPROF_RANK_SUMMARY_SHOWN_IMBALANCE, "rank-imbalance" },
    { PFPROF_RANK_SUMMARY_SHOWN_SLOW_INPUT, "slowest input" },
    { PFPROF_RANK_SUMMARY_SHOWN_SLOW_STEP, "slowest step" },
    { PFPROF_RANK_SUMMARY_SHOWN_FAST_STEP, "fastest step" },
    { PFPROF_RANK_SUMMARY_SHOWN_TYPICAL, "typical" },
    { PFPROF_RANK_SUMMARY_SHOWN_NO_STEPS, "no steady steps" },
  };
  g_autoptr (GString) out = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (reasons); i++)
    if (shown & reasons[i].flag)
      {
        if (out->len > 0)
          g_string_append (out, ", ");
        g_string_append (out, reasons[i].words);
      }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

char *
pfprof_rank_summary_selection_describe_hidden (const PfprofRankSummarySelection *sel)
{
  g_return_val_if_fail (sel != NULL, NULL);

  g_autoptr (GString) out = NULL;
  guint n_steps = sel->n_hidden - sel->n_hidden_no_steps;

  if (sel->n_hidden == 0)
    return NULL;
  out = g_string_new (NULL);
  g_string_append_printf (out, "%u more rank%s", sel->n_hidden, sel->n_hidden == 1 ? "" : "s");
  if (n_steps > 0)
    {
      g_autofree char *med = pfprof_format_ns (sel->hidden_step_median_ns);
      g_autofree char *lo = pfprof_format_ns (sel->hidden_step_min_ns);
      g_autofree char *hi = pfprof_format_ns (sel->hidden_step_max_ns);
      g_autofree char *dlo = pfprof_format_ns (sel->hidden_data_wait_min_ns);
      g_autofree char *dhi = pfprof_format_ns (sel->hidden_data_wait_max_ns);

      g_string_append_printf (out, ": median step %s (%s to %s), data wait %s to %s per step", med,
                              lo, hi, dlo, dhi);
    }
  if (sel->n_hidden_no_steps > 0)
    g_string_append_printf (out, "%s%u without steady steps", n_steps > 0 ? "; " : ": ",
                            sel->n_hidden_no_steps);
  g_string_append (out, "; --all-ranks shows every rank");
  return g_string_free (g_steal_pointer (&out), FALSE);
}
