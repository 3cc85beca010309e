/* SPDX-License-Identifier: MIT */
/* test-report-merge.c: per-rank results merged, and the rows of the
 * per-rank table of a thousand ranks (suite analyzer).
 *
 * - pfprof_report_merge_buffers(): results in memory merge as files do;
 *   damaged results are refused with a message naming the result (the
 *   hostile figures found while fuzzing it among them).
 * - pfprof_rank_summary_select(): past 16 ranks the text and Markdown
 *   tables show the ranks a user looks for (the one rank-imbalance
 *   names, however many; the slowest; a few fast and typical ones) and
 *   count the rest right; --all-ranks and small runs show every rank.
 */
#include <string.h>

#include "pfprof-rank-summary.h"
#include "pfprof-report-merge.h"
#include "pfprof-report.h"

#define MS ((gint64) 1000000)

typedef struct
{
  gint64 rank, steps, step_ns, wait_ns, copy_ns;
} Rank;

/* One pfprof-report/1 result holding @n ranks, as `pfprof report
 * --format json` writes the fields the merge reads. */
static char *
result (const Rank *ranks, guint n)
{
  GString *s = g_string_new ("{\"format\": \"pfprof-report/1\", \"generator\": \"test\", \"traces\": [");

  for (guint i = 0; i < n; i++)
    g_string_append_printf (s,
                            "%s\n {\"rank\": %" G_GINT64_FORMAT ", \"host\": \"node-%03" G_GINT64_FORMAT
                            "\", \"pid\": %" G_GINT64_FORMAT ", \"steady_steps\": %" G_GINT64_FORMAT
                            ", \"step_median_ns\": %" G_GINT64_FORMAT
                            ", \"data_wait_per_step_ns\": %" G_GINT64_FORMAT
                            ", \"copy_exposed_per_step_ns\": %" G_GINT64_FORMAT
                            ", \"idle_per_step_ns\": 1000, \"findings\": 0, \"steady_start_ns\": 5, "
                            "\"steady_end_ns\": 900000000}",
                            i ? "," : "", ranks[i].rank, ranks[i].rank / 8, 10000 + ranks[i].rank,
                            ranks[i].steps, ranks[i].step_ns, ranks[i].wait_ns, ranks[i].copy_ns);
  g_string_append (s, "]}");
  return g_string_free (s, FALSE);
}

static PfprofAnalysis *
merge_one (const char *json, GError **error)
{
  const char *names[] = { "rank-x.json" };
  const char *data[] = { json };
  gsize lens[] = { strlen (json) };

  return pfprof_report_merge_buffers (names, data, lens, 1, NULL, error);
}

/* 1,000 ranks of 8 per node: step 15-15.4 ms, data wait 150-210 µs. */
static Rank *
thousand (void)
{
  Rank *r = g_new0 (Rank, 1000);

  for (guint i = 0; i < 1000; i++)
    {
      r[i].rank = i;
      r[i].steps = 39;
      r[i].step_ns = 15 * MS + (i * 7919) % 400000;
      r[i].wait_ns = 150000 + (i * 104729) % 60000;
      r[i].copy_ns = (i * 31) % 20000;
    }
  return r;
}

static guint
row_of (const PfprofRankSummarySelection *sel, const GArray *ranks, gint64 rank)
{
  for (guint i = 0; i < sel->rows->len; i++)
    {
      const PfprofRankSummaryRow *row = &g_array_index (sel->rows, PfprofRankSummaryRow, i);

      if (g_array_index (ranks, PfprofRankSummary, row->index).rank == rank)
        return i;
    }
  return G_MAXUINT;
}

static void
test_merge_buffers (void)
{
  Rank r[2] = { { 0, 39, 15 * MS, 150000, 0 }, { 1, 39, 24 * MS, 9 * MS, 0 } };
  g_autofree char *a = result (&r[0], 1);
  g_autofree char *b = result (&r[1], 1);
  const char *names[] = { "rank-0.json", "rank-1.json" };
  const char *data[] = { a, b };
  gsize lens[] = { strlen (a), strlen (b) };
  g_autoptr (GError) error = NULL;
  g_autoptr (PfprofAnalysis) an = pfprof_report_merge_buffers (names, data, lens, 2, NULL, &error);
  const PfprofRankSummary *slow;
  const PfprofFinding *f;

  g_assert_no_error (error);
  g_assert_nonnull (an);
  g_assert_cmpuint (an->n_results, ==, 2);
  g_assert_cmpuint (an->ranks->len, ==, 2);
  slow = &g_array_index (an->ranks, PfprofRankSummary, 1);
  g_assert_cmpint (slow->rank, ==, 1);
  g_assert_cmpstr (slow->host, ==, "node-000");
  g_assert_cmpstr (slow->path, ==, "rank-1.json");
  g_assert_cmpuint (an->findings->len, ==, 1);
  f = g_ptr_array_index (an->findings, 0);
  g_assert_cmpstr (f->rule, ==, "rank-imbalance");
  g_assert_cmpint (f->est_savings_ns, ==, 9 * MS - 150000);
  g_assert_nonnull (strstr (f->message, "rank-1.json"));
  /* Not NUL-terminated buffers: only @len bytes are read. */
  {
    g_autofree char *padded = g_strconcat (a, "garbage", NULL);
    const char *d2[] = { padded, b };
    g_autoptr (PfprofAnalysis) an2 = pfprof_report_merge_buffers (names, d2, lens, 2, NULL, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (an2->ranks->len, ==, 2);
  }
}

static void
test_merge_refused (void)
{
  static const char *const bad[] = {
    "",
    "{\"format\": \"pfprof-report/1\", \"traces\": [",
    "{\"format\": \"pfprof-report/1\"}",
    "{\"format\": \"pfprof-diff/1\", \"traces\": []}",
    "[1, 2]",
    "{\"format\": \"pfprof-report/1\", \"traces\": [{\"rank\": 0}]}",
    "{\"format\": \"pfprof-report/1\", \"traces\": [{\"rank\": -1}]}",
    "{\"format\": \"pfprof-report/1\", \"traces\": [{\"rank\": 1e3}]}",
    "{\"format\": \"pfprof-report/1\", \"traces\": [{\"rank\": 4294967296}]}",
  };
  /* Per-step figures below 2^62 that, times the steps, overflowed the
   * rank-imbalance rule's total (PfprofFinding.time_ns = excess x steps:
   * signed overflow, which UBSan stops at). A real run's per-step times
   * x steps stay below 2^61 ns (73 years). */
  Rank overflow[3] = {
    { 0, 39, 15 * MS, 150000, 0 },
    { 1, 4000000000, 15 * MS, (gint64) 1 << 40, 0 },
    { 2, 39, 15 * MS, 150000, 0 },
  };
  Rank steps_overflow[2] = { { 0, 39, 15 * MS, 150000, 0 }, { 1, 3, (gint64) 1 << 61, 0, 0 } };
  Rank dup[2] = { { 4, 39, 15 * MS, 150000, 0 }, { 4, 39, 15 * MS, 150000, 0 } };
  g_autofree char *j_overflow = result (overflow, 3);
  g_autofree char *j_steps = result (steps_overflow, 2);
  g_autofree char *j_dup = result (dup, 2);
  const char *const generated[] = { j_overflow, j_steps, j_dup };

  for (guint i = 0; i < G_N_ELEMENTS (bad) + G_N_ELEMENTS (generated); i++)
    {
      const char *json = i < G_N_ELEMENTS (bad) ? bad[i] : generated[i - G_N_ELEMENTS (bad)];
      g_autoptr (GError) error = NULL;
      g_autoptr (PfprofAnalysis) an = merge_one (json, &error);

      g_assert_null (an);
      g_assert_nonnull (error);
      g_assert_true (g_str_has_prefix (error->message, "rank-x.json: "));
    }
  /* The same ranks with figures in range merge, and the slow one is found. */
  overflow[1].steps = 39;
  overflow[1].wait_ns = 9 * MS;
  {
    g_autofree char *ok = result (overflow, 3);
    g_autoptr (GError) error = NULL;
    g_autoptr (PfprofAnalysis) an = merge_one (ok, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (an->findings->len, ==, 1);
  }
}

/* A result is walked for its figures, not parsed whole: what it does not
 * read is still checked as JSON, and of a key given twice the last
 * counts, as a JSON parser keeps it. */
static void
test_merge_walked (void)
{
  Rank two[2] = { { 0, 39, 15 * MS, 150000, 0 }, { 1, 39, 15 * MS, 9 * MS, 0 } };
  g_autofree char *good = result (two, 2);
  g_autofree char *body = g_strndup (good, strlen (good) - 1);
  g_autoptr (GString) deep = g_string_new (body);
  g_autofree char *bad_member = g_strconcat (body, ", \"extra\": [{\"a\": 01}]}", NULL);
  g_autofree char *bad_utf8 = g_strconcat (body, ", \"extra\": [\"\xff\"]}", NULL);
  g_autofree char *later_traces = g_strconcat (body, ", \"traces\": []}", NULL);
  g_autofree char *later_format = g_strconcat (body, ", \"format\": {\"x\": 1}}", NULL);
  g_autofree char *trailing = g_strconcat (good, " {}", NULL);
  const char *const invalid[] = { bad_member, bad_utf8, trailing };

  for (guint i = 0; i < G_N_ELEMENTS (invalid); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (PfprofAnalysis) an = merge_one (invalid[i], &error);

      g_assert_null (an);
      g_assert_true (g_str_has_prefix (error->message, "rank-x.json: not valid JSON: line "));
    }
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (PfprofAnalysis) an = merge_one (later_traces, &error);

    g_assert_null (an);
    g_assert_nonnull (strstr (error->message, "no trace with a rank"));
  }
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (PfprofAnalysis) an = merge_one (later_format, &error);

    g_assert_null (an);
    g_assert_nonnull (strstr (error->message, "not a pfprof-report/1 result"));
  }
  /* 2,048 levels are read, as jansson reads them; one more is refused. */
  for (guint depth = 2047; depth <= 2048; depth++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (PfprofAnalysis) an = NULL;

      g_string_assign (deep, body);
      g_string_append (deep, ", \"extra\": ");
      for (guint i = 0; i < depth; i++)
        g_string_append_c (deep, '[');
      for (guint i = 0; i < depth; i++)
        g_string_append_c (deep, ']');
      g_string_append_c (deep, '}');
      an = merge_one (deep->str, &error);
      if (depth == 2047)
        {
          g_assert_no_error (error);
          g_assert_cmpuint (an->ranks->len, ==, 2);
        }
      else
        {
          g_assert_null (an);
          g_assert_nonnull (strstr (error->message, "maximum parsing depth reached"));
        }
    }
}

/* What the user checks in a 1,000-rank table: the slow rank is there,
 * the table is short, the line counts and describes the rest. */
static void
test_select_thousand (void)
{
  g_autofree Rank *r = thousand ();
  g_autofree char *json = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (PfprofAnalysis) an = NULL;
  g_autoptr (GArray) ranks = NULL;
  g_autoptr (PfprofRankSummarySelection) sel = NULL;
  g_autoptr (PfprofRankSummarySelection) all = NULL;
  g_autofree gint64 *hidden_steps = g_new (gint64, 1000);
  g_autofree char *line = NULL;
  g_autofree char *expect = NULL;
  gint64 lo = G_MAXINT64, hi = 0, wlo = G_MAXINT64, whi = 0, med;
  guint n_hidden = 0, k;

  r[613].wait_ns = 8 * MS;     /* the slow input pipeline */
  r[77].step_ns = 31 * MS;     /* the slowest step, its input as the others' */
  r[5].steps = r[6].steps = 0; /* ranks that never got past warm-up */
  r[5].step_ns = r[6].step_ns = r[5].wait_ns = r[6].wait_ns = r[5].copy_ns = r[6].copy_ns = 0;
  json = result (r, 1000);
  an = merge_one (json, &error);
  g_assert_no_error (error);
  ranks = pfprof_rank_summary_get (an);
  g_assert_cmpuint (ranks->len, ==, 1000);
  g_assert_cmpuint (an->findings->len, ==, 1);

  sel = pfprof_rank_summary_select (an, ranks, FALSE);
  g_assert_cmpuint (sel->rows->len, <=, PFPROF_RANK_SUMMARY_TABLE_MAX);
  g_assert_cmpuint (sel->rows->len + sel->n_hidden, ==, 1000);
  k = row_of (sel, ranks, 613);
  g_assert_cmpuint (k, !=, G_MAXUINT);
  g_assert_true (g_array_index (sel->rows, PfprofRankSummaryRow, k).shown
                 & PFPROF_RANK_SUMMARY_SHOWN_IMBALANCE);
  g_assert_true (g_array_index (sel->rows, PfprofRankSummaryRow, k).shown
                 & PFPROF_RANK_SUMMARY_SHOWN_SLOW_INPUT);
  k = row_of (sel, ranks, 77);
  g_assert_cmpuint (k, !=, G_MAXUINT);
  g_assert_true (g_array_index (sel->rows, PfprofRankSummaryRow, k).shown
                 & PFPROF_RANK_SUMMARY_SHOWN_SLOW_STEP);
  g_assert_cmpuint (row_of (sel, ranks, 5), !=, G_MAXUINT);
  g_assert_cmpuint (row_of (sel, ranks, 6), !=, G_MAXUINT);
  /* Rows stay in rank order, each once. */
  for (guint i = 1; i < sel->rows->len; i++)
    g_assert_cmpuint (g_array_index (sel->rows, PfprofRankSummaryRow, i - 1).index, <,
                      g_array_index (sel->rows, PfprofRankSummaryRow, i).index);

  /* The summary line's figures, from the hidden ranks themselves. */
  for (guint i = 0; i < 1000; i++)
    {
      if (row_of (sel, ranks, i) != G_MAXUINT)
        continue;
      g_assert_cmpint (r[i].steps, >, 0);
      hidden_steps[n_hidden++] = r[i].step_ns;
      lo = MIN (lo, r[i].step_ns);
      hi = MAX (hi, r[i].step_ns);
      wlo = MIN (wlo, r[i].wait_ns);
      whi = MAX (whi, r[i].wait_ns);
    }
  g_assert_cmpuint (sel->n_hidden, ==, n_hidden);
  g_assert_cmpuint (sel->n_hidden_no_steps, ==, 0);
  g_assert_cmpint (sel->hidden_step_min_ns, ==, lo);
  g_assert_cmpint (sel->hidden_step_max_ns, ==, hi);
  g_assert_cmpint (sel->hidden_data_wait_min_ns, ==, wlo);
  g_assert_cmpint (sel->hidden_data_wait_max_ns, ==, whi);
  {
    /* Median by counting: the value with as many below as above. */
    g_autoptr (GArray) v = g_array_sized_new (FALSE, FALSE, sizeof (gint64), n_hidden);

    for (guint i = 0; i < n_hidden; i++)
      {
        guint pos = v->len;

        while (pos > 0 && g_array_index (v, gint64, pos - 1) > hidden_steps[i])
          pos--;
        g_array_insert_val (v, pos, hidden_steps[i]);
      }
    med = n_hidden % 2 ? g_array_index (v, gint64, n_hidden / 2)
                       : g_array_index (v, gint64, n_hidden / 2 - 1)
                           + (g_array_index (v, gint64, n_hidden / 2)
                              - g_array_index (v, gint64, n_hidden / 2 - 1)) / 2;
  }
  g_assert_cmpint (sel->hidden_step_median_ns, ==, med);
  line = pfprof_rank_summary_selection_describe_hidden (sel);
  expect = g_strdup_printf ("%u more ranks: median step ", n_hidden);
  g_assert_true (g_str_has_prefix (line, expect));
  g_assert_nonnull (strstr (line, "--all-ranks"));

  all = pfprof_rank_summary_select (an, ranks, TRUE);
  g_assert_cmpuint (all->rows->len, ==, 1000);
  g_assert_cmpuint (all->n_hidden, ==, 0);
  g_assert_null (pfprof_rank_summary_selection_describe_hidden (all));
}

/* A slow node (8 ranks) on each of 5 hosts: rank-imbalance names 40
 * ranks, and all 40 are in the table even past 16 rows. */
static void
test_select_every_named_rank (void)
{
  g_autofree Rank *r = thousand ();
  g_autofree char *json = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (PfprofAnalysis) an = NULL;
  g_autoptr (GArray) ranks = NULL;
  g_autoptr (PfprofRankSummarySelection) sel = NULL;
  guint n_named = 0;

  for (guint node = 10; node < 60; node += 10)
    for (guint i = node * 8; i < node * 8 + 8; i++)
      r[i].wait_ns = 5 * MS + i * 1000;
  json = result (r, 1000);
  an = merge_one (json, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (an->findings->len, ==, 40);
  ranks = pfprof_rank_summary_get (an);
  sel = pfprof_rank_summary_select (an, ranks, FALSE);
  for (guint node = 10; node < 60; node += 10)
    for (guint i = node * 8; i < node * 8 + 8; i++)
      {
        guint k = row_of (sel, ranks, i);

        g_assert_cmpuint (k, !=, G_MAXUINT);
        g_assert_true (g_array_index (sel->rows, PfprofRankSummaryRow, k).shown
                       & PFPROF_RANK_SUMMARY_SHOWN_IMBALANCE);
      }
  for (guint i = 0; i < sel->rows->len; i++)
    if (g_array_index (sel->rows, PfprofRankSummaryRow, i).shown & PFPROF_RANK_SUMMARY_SHOWN_IMBALANCE)
      n_named++;
  g_assert_cmpuint (n_named, ==, 40);
  /* Besides them: the longest and shortest steps and a typical rank. */
  g_assert_cmpuint (sel->rows->len, <=, 40 + 5 + 2 + 1);
  g_assert_cmpuint (sel->rows->len + sel->n_hidden, ==, 1000);
}

/* Up to 16 ranks every row is shown, with no reason; at 17 the table
 * is cut. The text and Markdown reports agree with the selection. */
static void
test_select_threshold (void)
{
  g_autofree Rank *r = thousand ();

  for (guint n = 15; n <= 17; n++)
    {
      g_autofree char *json = result (r, n);
      g_autoptr (GError) error = NULL;
      g_autoptr (PfprofAnalysis) an = merge_one (json, &error);
      g_autoptr (GArray) ranks = pfprof_rank_summary_get (an);
      g_autoptr (PfprofRankSummarySelection) sel = pfprof_rank_summary_select (an, ranks, FALSE);
      g_autoptr (GString) text = g_string_new (NULL);
      g_autoptr (GString) md = g_string_new (NULL);
      PfprofReportOptions ro;

      g_assert_no_error (error);
      pfprof_report_options_init (&ro);
      pfprof_report_render (an, &ro, text);
      ro.format = PFPROF_REPORT_MARKDOWN;
      pfprof_report_render (an, &ro, md);
      if (n <= PFPROF_RANK_SUMMARY_TABLE_MAX)
        {
          g_assert_cmpuint (sel->rows->len, ==, n);
          g_assert_cmpuint (sel->n_hidden, ==, 0);
          for (guint i = 0; i < n; i++)
            g_assert_cmpuint (g_array_index (sel->rows, PfprofRankSummaryRow, i).shown, ==, 0);
          g_assert_null (strstr (text->str, "more rank"));
          g_assert_null (strstr (md->str, "Shown as"));
        }
      else
        {
          g_autofree char *more = g_strdup_printf ("  ... %u more rank", sel->n_hidden);
          g_autofree char *of = g_strdup_printf ("%u of %u ranks", sel->rows->len, n);

          g_assert_cmpuint (sel->rows->len, <, n);
          g_assert_cmpuint (sel->n_hidden, ==, n - sel->rows->len);
          g_assert_nonnull (strstr (text->str, more));
          g_assert_nonnull (strstr (text->str, of));
          g_assert_nonnull (strstr (md->str, of));
          g_assert_nonnull (strstr (md->str, "| Shown as |"));
        }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/report-merge/buffers", test_merge_buffers);
  g_test_add_func ("/report-merge/refused", test_merge_refused);
  g_test_add_func ("/report-merge/walked", test_merge_walked);
  g_test_add_func ("/report-merge/select/thousand", test_select_thousand);
  g_test_add_func ("/report-merge/select/every-named-rank", test_select_every_named_rank);
  g_test_add_func ("/report-merge/select/threshold", test_select_threshold);
  return g_test_run ();
}
