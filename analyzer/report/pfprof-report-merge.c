/* SPDX-License-Identifier: MIT */
/* pfprof-report-merge.c: per-rank JSON results into one run's ranks. */
#include "pfprof-report-merge.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "pfprof-importer.h"
#include "pfprof-output-check.h"
#include "pfprof-rank-summary.h"
#include "pfprof-run-match.h"
#include "pfprof-report.h"
#include "pfprof-rules.h"

gboolean
pfprof_report_merge_is_result (const char *path)
{
  guint8 buf[PFPROF_IMPORTER_HEAD_SIZE];
  gsize n = pfprof_importer_read_head (path, buf);
  gboolean json = FALSE;

  /* Any JSON text is taken as meant to be a result, so that an array or
   * a file starting with a byte-order mark is told what is wrong with it
   * as a result, not called a damaged trace. A file that cannot be read,
   * a FIFO or a device reads as empty: the reader refuses those with its
   * message. */
  for (gsize i = n >= 3 && memcmp (buf, "\xef\xbb\xbf", 3) == 0 ? 3 : 0; i < n; i++)
    {
      if (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r')
        continue;
      json = buf[i] == '{' || buf[i] == '[';
      break;
    }
  /* A torch.profiler trace is JSON too, but a trace: the importers' rule. */
  return json && !pfprof_importer_is_trace_json (buf, n);
}

static int
compare_rank (gconstpointer pa, gconstpointer pb)
{
  const PfprofRankSummary *x = pa, *y = pb;

  return (x->rank > y->rank) - (x->rank < y->rank);
}

G_DEFINE_QUARK (pfprof-report-merge-error-quark, pfprof_report_merge_error)

/* Member @key of object @o as an integer written as one (1e3 is not):
 * FALSE when absent or of another type. */
static gboolean
get_int (const json_t *o, const char *key, gint64 *out)
{
  const json_t *v = json_object_get (o, key);

  if (!json_is_integer (v))
    return FALSE;
  *out = json_integer_value (v);
  return TRUE;
}

static const char *
get_string (const json_t *o, const char *key)
{
  return json_string_value (json_object_get (o, key));
}

/* Times and counts in a result are non-negative and far below 2^62;
 * anything else is a damaged or hand-made file. */
static gboolean
get_figure (const json_t *t, const char *key, gint64 *out)
{
  return get_int (t, key, out) && *out >= 0 && *out < ((gint64) 1 << 62);
}

/* The rank-imbalance rule multiplies a rank's excess per step by its
 * steps (PfprofFinding.time_ns): a per-step figure times the steps must
 * stay far from overflowing, as it does for any real run (2^61 ns is 73
 * years of steps). */
static gboolean
figure_fits_steps (gint64 per_step, gint64 steps)
{
  return steps == 0 || per_step <= ((gint64) 1 << 61) / steps;
}

/* The rows of a merged analysis own their host and path: a long-lived
 * process (the fuzzer merges millions of results) must not keep every
 * string it ever read. */
static void
rank_clear (gpointer data)
{
  PfprofRankSummary *s = data;

  g_free ((char *) s->host);
  g_free ((char *) s->path);
  g_free ((char *) s->command_line);
}

/* Appends the ranked traces of result @name (already parsed as @root). */
static gboolean
add_result (const char *name, const json_t *root, GArray *ranks, GError **error)
{
  const char *format = get_string (root, "format");
  const json_t *traces = json_object_get (root, "traces");
  guint added = 0;

  if (!json_is_object (root) || format == NULL)
    {
      g_set_error (error, PFPROF_REPORT_MERGE_ERROR, 0, "%s: JSON, but not a pfprof-report/1 result (no \"format\") nor "
                   "torch.profiler output (no \"traceEvents\")",
                   name);
      return FALSE;
    }
  if (g_strcmp0 (format, PFPROF_REPORT_JSON_FORMAT) != 0)
    {
      g_autofree char *f = g_strescape (format, NULL);

      g_set_error (error, PFPROF_REPORT_MERGE_ERROR, 0, "%s: format \"%.40s\", not " PFPROF_REPORT_JSON_FORMAT,
                   name, f);
      return FALSE;
    }
  if (!json_is_array (traces))
    {
      g_set_error (error, PFPROF_REPORT_MERGE_ERROR, 0, "%s: no traces[] array", name);
      return FALSE;
    }
  for (guint i = 0; i < json_array_size (traces); i++)
    {
      const json_t *t = json_array_get (traces, i);
      PfprofRankSummary s = { 0 };
      gint64 rank, pid = 0, steps, med, dw, ce, idle, nf, s0, s1;
      const char *host = get_string (t, "host");

      if (!get_int (t, "rank", &rank) || rank > G_MAXINT32 || rank < -1)
        {
          g_set_error (error, PFPROF_REPORT_MERGE_ERROR, 0, "%s: traces[%u]: no valid \"rank\"", name, i);
          return FALSE;
        }
      if (rank < 0)
        continue; /* not part of a distributed run */
      if (!get_figure (t, "steady_steps", &steps) || !get_figure (t, "step_median_ns", &med)
          || !get_figure (t, "data_wait_per_step_ns", &dw)
          || !get_figure (t, "copy_exposed_per_step_ns", &ce)
          || !get_figure (t, "idle_per_step_ns", &idle) || !get_figure (t, "findings", &nf)
          || !get_int (t, "steady_start_ns", &s0)
          || !get_int (t, "steady_end_ns", &s1) || steps > G_MAXUINT32
          || nf >= G_MAXUINT32)
        {
          g_set_error (error, PFPROF_REPORT_MERGE_ERROR, 0,
                       "%s: traces[%u] lacks the per-rank figures (steady_steps, "
                       "data_wait_per_step_ns, ...): written by an older pfprof? Run "
                       "'pfprof report --format json' on the trace again",
                       name, i);
          return FALSE;
        }
      if (!figure_fits_steps (med, steps) || !figure_fits_steps (dw + ce, steps)
          || !figure_fits_steps (idle, steps))
        {
          g_set_error (error, PFPROF_REPORT_MERGE_ERROR, 0,
                       "%s: traces[%u]: per-step times of %" G_GINT64_FORMAT
                       " steps add up to more than 73 years: a damaged result",
                       name, i, steps);
          return FALSE;
        }
      get_int (t, "pid", &pid);
      s.rank = rank;
      s.host = g_strdup (host);
      s.path = g_strdup (name);
      s.command_line = g_strdup (get_string (t, "command_line"));
      s.pid = pid;
      s.n_steady_steps = (guint) steps;
      s.step_median_ns = med;
      s.data_wait_ns = dw;
      s.copy_exposed_ns = ce;
      s.idle_ns = idle;
      s.n_findings = (guint) nf;
      s.steady_start_ns = s0;
      s.steady_end_ns = s1;
      g_array_append_val (ranks, s);
      added++;
    }
  if (added == 0)
    {
      g_set_error (error, PFPROF_REPORT_MERGE_ERROR, 0,
                   "%s: no trace with a rank in this result (meta rank: RANK was not set when "
                   "recording)",
                   name);
      return FALSE;
    }
  return TRUE;
}

static gboolean
size_ok (const char *name, guint64 size, GError **error)
{
  if (size <= PFPROF_REPORT_MERGE_MAX_BYTES)
    return TRUE;
  g_set_error (error, PFPROF_REPORT_MERGE_ERROR, 0, "%s: larger than %d MiB: not a report result", name,
               PFPROF_REPORT_MERGE_MAX_BYTES >> 20);
  return FALSE;
}

/* Parses result @name (@len bytes at @data) and appends its ranks. */
static gboolean
add_buffer (const char *name, const char *data, gsize len, GArray *ranks, GError **error)
{
  json_error_t e;
  json_t *root;
  gboolean ok;

  if (!size_ok (name, len, error))
    return FALSE;
  /* RFC 8259 lets a parser ignore a byte-order mark; Windows tools add one. */
  if (len >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0)
    data += 3, len -= 3;
  /* One value and nothing after it; strings valid UTF-8 without NUL. */
  root = json_loadb (data, len, JSON_DECODE_ANY, &e);
  if (root == NULL)
    {
      g_set_error (error, PFPROF_REPORT_MERGE_ERROR, 0, "%s: not valid JSON: line %d, column %d: %s",
                   name, e.line, e.column, e.text);
      return FALSE;
    }
  ok = add_result (name, root, ranks, error);
  json_decref (root);
  return ok;
}

static GArray *
ranks_new (void)
{
  GArray *ranks = g_array_new (FALSE, TRUE, sizeof (PfprofRankSummary));

  g_array_set_clear_func (ranks, rank_clear);
  return ranks;
}

static int
compare_savings (gconstpointer pa, gconstpointer pb)
{
  const PfprofFinding *x = *(PfprofFinding *const *) pa;
  const PfprofFinding *y = *(PfprofFinding *const *) pb;

  if (x->est_savings_ns != y->est_savings_ns)
    return x->est_savings_ns > y->est_savings_ns ? -1 : 1;
  return 0;
}

/* Whether the ranks are of one run, as the traces given together must be
 * (analyzer/model/pfprof-run-match.h): a result keeps each trace's rank and
 * command line, so those are what tells runs apart here. */
static gboolean
same_run (const GArray *ranks, GError **error)
{
  g_autoptr (GPtrArray) stubs = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_trace_free);

  for (guint i = 0; i < ranks->len; i++)
    {
      const PfprofRankSummary *s = &g_array_index (ranks, PfprofRankSummary, i);
      PfprofTrace *t = pfprof_trace_new ();

      t->path = g_strdup (s->path);
      g_hash_table_replace (t->meta, g_strdup ("rank"), g_strdup_printf ("%" G_GINT64_FORMAT, s->rank));
      if (s->command_line != NULL)
        g_hash_table_replace (t->meta, g_strdup ("command_line"), g_strdup (s->command_line));
      g_ptr_array_add (stubs, t);
    }
  return pfprof_run_match_traces (stubs, error);
}

/* The analysis of the ranks read from @n_results results. */
static PfprofAnalysis *
finish (GArray *ranks_in, guint n_results, const PfprofAnalysisOptions *options, GError **error)
{
  g_autoptr (GArray) ranks = g_array_ref (ranks_in);
  PfprofAnalysis *a;

  g_array_sort (ranks, compare_rank);
  for (guint i = 1; i < ranks->len; i++)
    {
      const PfprofRankSummary *x = &g_array_index (ranks, PfprofRankSummary, i - 1);
      const PfprofRankSummary *y = &g_array_index (ranks, PfprofRankSummary, i);

      if (x->rank == y->rank)
        {
          g_set_error (error, PFPROF_REPORT_MERGE_ERROR, 0,
                       "%s: rank %" G_GINT64_FORMAT " is also in %s: results of two runs?", y->path,
                       y->rank, x->path);
          return NULL;
        }
    }
  if (!same_run (ranks, error))
    return NULL;

  {
    g_autoptr (PfprofRun) none = pfprof_run_new (g_ptr_array_new ());

    a = pfprof_analysis_run (none, options);
  }
  /* Only the rules that compare ranks run on results, as they do on the
   * traces together; each rank's own findings are in its result (and
   * counted in the table). */
  g_ptr_array_set_size (a->rules_run, 0);
  a->n_results = n_results;
  for (guint i = 0; i < ranks->len; i++)
    g_array_index (ranks, PfprofRankSummary, i).trace_index = i;
  a->ranks = g_steal_pointer (&ranks);
  {
    guint n_rules;
    const PfprofRule *const *rules = pfprof_rules_get (&n_rules);

    for (guint r = 0; r < n_rules; r++)
      if (rules[r]->scope == PFPROF_RULE_SCOPE_RUN)
        {
          if (pfprof_analysis_options_rule_enabled (options, rules[r]))
            g_ptr_array_add (a->rules_run, (gpointer) rules[r]->id);
          if (a->ranks->len >= 2)
            pfprof_rule_run (rules[r], a, options, NULL, NULL);
        }
  }
  /* Count the merged finding with the rank's own, as a report on the
   * traces together does. */
  for (guint i = 0; i < a->findings->len; i++)
    {
      const PfprofFinding *f = g_ptr_array_index (a->findings, i);

      if (f->trace_index < a->ranks->len)
        g_array_index (a->ranks, PfprofRankSummary, f->trace_index).n_findings++;
    }
  g_ptr_array_sort (a->findings, compare_savings);
  return a;
}

PfprofAnalysis *
pfprof_report_merge (const char *const *paths, guint n_paths, const PfprofAnalysisOptions *options,
                     GError **error)
{
  g_return_val_if_fail (n_paths == 0 || paths != NULL, NULL);

  g_autoptr (GArray) ranks = ranks_new ();

  for (guint i = 0; i < n_paths; i++)
    {
      g_autofree char *data = NULL;
      gsize len = 0;
      g_autoptr (GError) e = NULL;
      GStatBuf st;

      if (g_stat (paths[i], &st) != 0 || !S_ISREG (st.st_mode))
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s: no such file, or not a regular file",
                       paths[i]);
          return NULL;
        }
      /* Before reading it: a huge file is refused without loading it. */
      if (!size_ok (paths[i], (guint64) st.st_size, error))
        return NULL;
      pfprof_output_check_add_input (paths[i]);
      if (!g_file_get_contents (paths[i], &data, &len, &e))
        {
          g_set_error (error, e->domain, e->code, "%s: %s", paths[i], e->message);
          return NULL;
        }
      /* One file's tree at a time: a thousand results need not all be
       * in memory at once. */
      if (!add_buffer (paths[i], data, len, ranks, error))
        return NULL;
    }
  return finish (ranks, n_paths, options, error);
}

PfprofAnalysis *
pfprof_report_merge_buffers (const char *const *names, const char *const *data, const gsize *lens,
                             guint n, const PfprofAnalysisOptions *options, GError **error)
{
  g_return_val_if_fail (n == 0 || names != NULL, NULL);
  g_return_val_if_fail (n == 0 || data != NULL, NULL);
  g_return_val_if_fail (n == 0 || lens != NULL, NULL);

  g_autoptr (GArray) ranks = ranks_new ();

  for (guint i = 0; i < n; i++)
    if (!add_buffer (names[i], data[i], lens[i], ranks, error))
      return NULL;
  return finish (ranks, n, options, error);
}
