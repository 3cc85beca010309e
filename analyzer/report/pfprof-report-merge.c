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

/* Appends the rank of trace @t (traces[@i] of result @name) to @ranks
 * unless it has none (-1); FALSE with @error set when its figures are
 * missing or out of range. */
static gboolean
add_trace (const char *name, guint i, const json_t *t, GArray *ranks, GError **error)
{
  PfprofRankSummary s = { 0 };
  gint64 rank, pid = 0, steps, med, dw, ce, idle, nf, s0, s1;

  if (!get_int (t, "rank", &rank) || rank > G_MAXINT32 || rank < -1)
    {
      g_set_error (error, PFPROF_REPORT_MERGE_ERROR, 0, "%s: traces[%u]: no valid \"rank\"", name, i);
      return FALSE;
    }
  if (rank < 0)
    return TRUE; /* not part of a distributed run */
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
  s.host = g_strdup (get_string (t, "host"));
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
  return TRUE;
}

static GArray *
ranks_new (void)
{
  GArray *ranks = g_array_new (FALSE, TRUE, sizeof (PfprofRankSummary));

  g_array_set_clear_func (ranks, rank_clear);
  return ranks;
}

/* ---- Reading a result ---------------------------------------------------
 *
 * A result is mostly findings, call sites and notes the merge does not
 * read, and a parsed document takes some 60 times its text (a 63 MB
 * result took 3.9 GB). So the result is walked here: objects and arrays
 * by this code, each string, number and literal by the JSON parser, and
 * only what the merge reads is kept: the format, and of each element of
 * traces[] its scalar figures, turned into a rank before the next
 * element is read. Everything else is checked as the parser would
 * (the same grammar, UTF-8, depth) and let go. Of a key given twice the
 * last counts, as the parser keeps it. */

/* As the JSON parser's own limit. */
#define MAX_DEPTH 2048

typedef enum
{
  KEEP_NOTHING,
  KEEP_ROOT,   /* the result: format, traces */
  KEEP_TRACES, /* traces[]: each element a rank */
  KEEP_TRACE,  /* an element: the figures add_trace reads */
  KEEP_SCALAR, /* a figure, or the format: a string, number or literal */
} Keep;

typedef struct
{
  const char *name;
  const char *data;
  gsize len;
  gsize pos;
  gboolean bad;         /* not valid JSON: at bad_at, bad_text */
  gsize bad_at;
  char bad_text[JSON_ERROR_TEXT_LENGTH];
  gboolean is_object;   /* the top-level value is an object */
  json_t *format;       /* its last "format", when a scalar */
  gboolean have_traces; /* its last "traces" is an array */
  GArray *found;        /* the ranks of that array */
  guint n_traces;
  GError *trace_error;  /* the first of its elements refused */
} Walk;

static gboolean
walk_fail (Walk *w, gsize at, const char *text)
{
  if (!w->bad)
    {
      w->bad = TRUE;
      w->bad_at = at;
      g_strlcpy (w->bad_text, text, sizeof w->bad_text);
    }
  return FALSE;
}

static void
walk_ws (Walk *w)
{
  while (w->pos < w->len
         && (w->data[w->pos] == ' ' || w->data[w->pos] == '\t' || w->data[w->pos] == '\n'
             || w->data[w->pos] == '\r'))
    w->pos++;
}

/* A string, number or literal at w->pos, parsed and moved past. */
static json_t *
walk_scalar (Walk *w)
{
  json_error_t e;
  json_t *v = json_loadb (w->data + w->pos, w->len - w->pos, JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY,
                          &e);

  if (v == NULL)
    {
      walk_fail (w, w->pos + (gsize) MAX (e.position, 0), e.text);
      return NULL;
    }
  w->pos += (gsize) e.position;
  return v;
}

/* Moves past the string, number or literal at w->pos when it is one the
 * parser surely takes (a string of printable ASCII without escapes, an
 * integer of up to 15 digits, true, false, null); FALSE to leave it to
 * the parser. Most of a result is such values: this spares a parser
 * call for each. */
static gboolean
walk_simple (Walk *w)
{
  const char *d = w->data;
  gsize i = w->pos, n = w->len;

  if (d[i] == '"')
    {
      for (i++; i < n && d[i] != '"'; i++)
        if (d[i] == '\\' || (guint8) d[i] < 0x20 || (guint8) d[i] >= 0x7f)
          return FALSE;
      if (i >= n)
        return FALSE;
      w->pos = i + 1;
      return TRUE;
    }
  if (d[i] == '-' || g_ascii_isdigit (d[i]))
    {
      gsize start = i += d[i] == '-';

      while (i < n && g_ascii_isdigit (d[i]))
        i++;
      if (i == start || i - start > 15 || (d[start] == '0' && i - start > 1))
        return FALSE;
      if (i < n && (g_ascii_isalnum (d[i]) || d[i] == '.' || d[i] == '+' || d[i] == '-'))
        return FALSE;
      w->pos = i;
      return TRUE;
    }
  for (guint k = 0; k < 3; k++)
    {
      static const char *const literals[] = { "true", "false", "null" };
      gsize l = strlen (literals[k]);

      if (n - i >= l && memcmp (d + i, literals[k], l) == 0)
        {
          if (n - i > l && g_ascii_isalnum (d[i + l]))
            return FALSE;
          w->pos = i + l;
          return TRUE;
        }
    }
  return FALSE;
}

static gboolean walk_value (Walk *w, Keep keep, int depth, json_t **out);

/* After an element or a member: ',' (TRUE, *@more set) or @close. */
static gboolean
walk_next (Walk *w, char close, gboolean *more)
{
  walk_ws (w);
  if (w->pos < w->len && (w->data[w->pos] == ',' || w->data[w->pos] == close))
    {
      *more = w->data[w->pos++] == ',';
      return TRUE;
    }
  return walk_fail (w, w->pos, w->pos < w->len ? (close == ']' ? "']' expected" : "'}' expected")
                                              : "unexpected end of file");
}

static gboolean
walk_array (Walk *w, Keep keep, int depth)
{
  gboolean more = TRUE;
  guint i = 0;

  w->pos++;
  walk_ws (w);
  if (w->pos < w->len && w->data[w->pos] == ']')
    {
      w->pos++;
      return TRUE;
    }
  while (more)
    {
      json_t *v = NULL;

      if (!walk_value (w, keep == KEEP_TRACES ? KEEP_TRACE : KEEP_NOTHING, depth + 1, &v))
        return FALSE;
      if (keep == KEEP_TRACES && w->trace_error == NULL
          && !add_trace (w->name, i, v, w->found, &w->trace_error))
        g_array_set_size (w->found, 0);
      json_decref (v);
      i++;
      if (!walk_next (w, ']', &more))
        return FALSE;
    }
  if (keep == KEEP_TRACES)
    w->n_traces = i;
  return TRUE;
}

static gboolean
kept_in_trace (const char *key)
{
  static const char *const keys[] = {
    "rank", "host", "pid", "command_line", "steady_steps", "step_median_ns",
    "data_wait_per_step_ns", "copy_exposed_per_step_ns", "idle_per_step_ns", "findings",
    "steady_start_ns", "steady_end_ns",
  };

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (strcmp (key, keys[i]) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
walk_object (Walk *w, Keep keep, int depth, json_t *obj)
{
  gboolean more = TRUE;

  w->pos++;
  walk_ws (w);
  if (w->pos < w->len && w->data[w->pos] == '}')
    {
      w->pos++;
      return TRUE;
    }
  while (more)
    {
      json_t *k, *v = NULL;
      const char *key;
      Keep inner = KEEP_NOTHING;
      gboolean ok;

      walk_ws (w);
      if (w->pos >= w->len || w->data[w->pos] != '"')
        return walk_fail (w, w->pos, w->pos < w->len ? "string or '}' expected" : "unexpected end of file");
      k = walk_scalar (w);
      if (k == NULL)
        return FALSE;
      key = json_string_value (k);
      walk_ws (w);
      if (w->pos >= w->len || w->data[w->pos] != ':')
        {
          json_decref (k);
          return walk_fail (w, w->pos, w->pos < w->len ? "':' expected" : "unexpected end of file");
        }
      w->pos++;
      if (keep == KEEP_ROOT && strcmp (key, "traces") == 0)
        {
          walk_ws (w);
          /* A later traces[] replaces an earlier one. */
          g_array_set_size (w->found, 0);
          g_clear_error (&w->trace_error);
          w->n_traces = 0;
          w->have_traces = w->pos < w->len && w->data[w->pos] == '[';
          inner = w->have_traces ? KEEP_TRACES : KEEP_NOTHING;
        }
      else if ((keep == KEEP_ROOT && strcmp (key, "format") == 0)
               || (keep == KEEP_TRACE && kept_in_trace (key)))
        inner = KEEP_SCALAR;
      ok = walk_value (w, inner, depth + 1, &v);
      if (ok && keep == KEEP_ROOT && strcmp (key, "format") == 0)
        {
          g_clear_pointer (&w->format, json_decref);
          w->format = g_steal_pointer (&v);
        }
      else if (ok && keep == KEEP_TRACE && kept_in_trace (key))
        {
          if (v != NULL)
            json_object_set_new (obj, key, g_steal_pointer (&v));
          else
            json_object_del (obj, key);
        }
      json_decref (k);
      json_decref (v);
      if (!ok || !walk_next (w, '}', &more))
        return FALSE;
    }
  return TRUE;
}

/* Walks the value at w->pos. An element of traces[] that is an object
 * (KEEP_TRACE) is returned in *@out as an object of its figures, a
 * scalar kept (KEEP_SCALAR, KEEP_TRACE) as itself; anything else leaves
 * *@out as it was. */
static gboolean
walk_value (Walk *w, Keep keep, int depth, json_t **out)
{
  walk_ws (w);
  if (depth >= MAX_DEPTH && w->pos < w->len && (w->data[w->pos] == '[' || w->data[w->pos] == '{'))
    return walk_fail (w, w->pos, "maximum parsing depth reached");
  if (w->pos >= w->len)
    return walk_fail (w, w->pos, "unexpected end of file");
  if (w->data[w->pos] == '[')
    return walk_array (w, keep == KEEP_TRACES ? keep : KEEP_NOTHING, depth);
  if (w->data[w->pos] == '{')
    {
      json_t *obj = keep == KEEP_TRACE ? json_object () : NULL;

      if (depth == 0)
        w->is_object = TRUE;
      if (!walk_object (w, keep == KEEP_ROOT || keep == KEEP_TRACE ? keep : KEEP_NOTHING, depth, obj))
        {
          json_decref (obj);
          return FALSE;
        }
      if (out != NULL)
        *out = obj;
      else
        json_decref (obj);
      return TRUE;
    }
  if ((keep == KEEP_NOTHING || keep == KEEP_TRACES) && walk_simple (w))
    return TRUE;
  {
    json_t *v = walk_scalar (w);

    if (v == NULL)
      return FALSE;
    if (out != NULL && (keep == KEEP_SCALAR || keep == KEEP_TRACE))
      *out = v;
    else
      json_decref (v);
    return TRUE;
  }
}

/* Appends the ranked traces of result @name (@len bytes at @data). */
static gboolean
add_result (const char *name, const char *data, gsize len, GArray *ranks, GError **error)
{
  Walk w = { .name = name, .data = data, .len = len };
  const char *format;
  gboolean ok = FALSE;

  w.found = ranks_new ();
  if (walk_value (&w, KEEP_ROOT, 0, NULL))
    {
      walk_ws (&w);
      if (w.pos < w.len)
        walk_fail (&w, w.pos, "end of file expected");
    }
  format = json_string_value (w.format);
  if (w.bad)
    {
      gsize line = 1, column = 0;

      /* Where the JSON parser would say: lines from 1, columns of
       * characters (UTF-8 sequences) from 1 up to and with the byte. */
      for (gsize i = 0; i < w.bad_at && i < len; i++)
        if (data[i] == '\n')
          line++, column = 0;
        else if (((guint8) data[i] & 0xC0) != 0x80)
          column++;
      g_set_error (error, PFPROF_REPORT_MERGE_ERROR, 0, "%s: not valid JSON: line %" G_GSIZE_FORMAT
                   ", column %" G_GSIZE_FORMAT ": %s", name, line, column + 1, w.bad_text);
    }
  else if (!w.is_object || format == NULL)
    g_set_error (error, PFPROF_REPORT_MERGE_ERROR, 0, "%s: JSON, but not a pfprof-report/1 result (no \"format\") nor "
                 "torch.profiler output (no \"traceEvents\")",
                 name);
  else if (strcmp (format, PFPROF_REPORT_JSON_FORMAT) != 0)
    {
      g_autofree char *f = g_strescape (format, NULL);

      g_set_error (error, PFPROF_REPORT_MERGE_ERROR, 0, "%s: format \"%.40s\", not " PFPROF_REPORT_JSON_FORMAT,
                   name, f);
    }
  else if (!w.have_traces)
    g_set_error (error, PFPROF_REPORT_MERGE_ERROR, 0, "%s: no traces[] array", name);
  else if (w.trace_error != NULL)
    g_propagate_error (error, g_steal_pointer (&w.trace_error));
  else if (w.found->len == 0)
    g_set_error (error, PFPROF_REPORT_MERGE_ERROR, 0,
                 "%s: no trace with a rank in this result (meta rank: RANK was not set when "
                 "recording)",
                 name);
  else
    {
      /* The rows move to @ranks: their strings with them. */
      g_array_set_clear_func (w.found, NULL);
      g_array_append_vals (ranks, w.found->data, w.found->len);
      ok = TRUE;
    }
  g_clear_error (&w.trace_error);
  g_clear_pointer (&w.format, json_decref);
  g_array_unref (w.found);
  return ok;
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

/* Reads result @name (@len bytes at @data) and appends its ranks. */
static gboolean
add_buffer (const char *name, const char *data, gsize len, GArray *ranks, GError **error)
{
  if (!size_ok (name, len, error))
    return FALSE;
  /* RFC 8259 lets a parser ignore a byte-order mark; Windows tools add one. */
  if (len >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0)
    data += 3, len -= 3;
  return add_result (name, data, len, ranks, error);
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
