/* SPDX-License-Identifier: MIT */
/* pfprof-run-match.c: whether traces are of one run; see
 * pfprof-run-match.h. */
#include "pfprof-run-match.h"
#include "pfprof-hash.h"

#include <string.h>

/* Clocks of different hosts may disagree by this much. */
#define HOST_CLOCK_SLACK_NS ((gint64) 60 * 1000000000)

G_DEFINE_QUARK (pfprof-run-match-error-quark, pfprof_run_match_error)

/* Meta values are untrusted text: a bad number decides nothing. */
static gboolean
meta_i64 (const PfprofTrace *t, const char *key, gint64 *out)
{
  const char *v = pfprof_trace_meta (t, key);

  return v != NULL && g_ascii_string_to_signed (v, 10, -((gint64) 1 << 62), (gint64) 1 << 62, out,
                                                NULL);
}

/* Both have @key, as different text. */
static gboolean
meta_differs (const PfprofTrace *a, const PfprofTrace *b, const char *key)
{
  const char *x = pfprof_trace_meta (a, key), *y = pfprof_trace_meta (b, key);

  return x != NULL && y != NULL && *x != '\0' && *y != '\0' && strcmp (x, y) != 0;
}

/* Both have @key, as different numbers (or the same, with @same). */
static gboolean
meta_int_is (const PfprofTrace *a, const PfprofTrace *b, const char *key, gboolean same)
{
  gint64 x, y;

  return meta_i64 (a, key, &x) && meta_i64 (b, key, &y) && (x == y) == same;
}

/* The command line without what differs between the processes of one
 * run: the `--local-rank N` torch.distributed.launch gives each rank (also
 * --local_rank, with '=' or a space), and the pipe handles in the command
 * line of a multiprocessing (torch.multiprocessing.spawn) child. */
static char *
command_of_run (const PfprofTrace *t)
{
  static GRegex *per_process;
  const char *cmd = pfprof_trace_meta (t, "command_line");

  if (cmd == NULL || *cmd == '\0')
    return NULL;
  if (g_once_init_enter (&per_process))
    g_once_init_leave (&per_process,
                       g_regex_new (" --local[-_]rank[= ][0-9]+(?= |$)|(?<=spawn_main\\()[^)]*",
                                    G_REGEX_OPTIMIZE, 0, NULL));
  return g_regex_replace_literal (per_process, cmd, -1, 0, "", 0, NULL);
}

/* The recording's wall-clock span; FALSE when the trace lacks it. */
static gboolean
span (const PfprofTrace *t, gint64 *start, gint64 *end)
{
  return meta_i64 (t, "clock_start_realtime_ns", start) && meta_i64 (t, "clock_end_realtime_ns", end)
         && *end >= *start;
}

gboolean
pfprof_run_match (const PfprofTrace *a, const PfprofTrace *b, const char **why)
{
  g_autofree char *ca = NULL;
  g_autofree char *cb = NULL;
  gint64 sa, ea, sb, eb;

  g_return_val_if_fail (a != NULL && b != NULL && why != NULL, FALSE);
  *why = NULL;
  if (meta_differs (a, b, "launcher_job_id"))
    *why = "their launcher job ids differ";
  else if (meta_int_is (a, b, "world_size", FALSE))
    *why = "their world sizes differ";
  else if (meta_int_is (a, b, "rank", TRUE))
    *why = "both are the same rank";
  else if ((ca = command_of_run (a)) != NULL && (cb = command_of_run (b)) != NULL
           && strcmp (ca, cb) != 0)
    *why = "their command lines differ";
  else if (span (a, &sa, &ea) && span (b, &sb, &eb))
    {
      gint64 slack = meta_differs (a, b, "host") ? HOST_CLOCK_SLACK_NS : 0;

      /* Spans within ±2^62: no overflow. */
      if (ea + slack < sb || eb + slack < sa)
        *why = "they were recorded at different times";
    }
  return *why == NULL;
}

static gboolean
mixed (const PfprofTrace *a, const PfprofTrace *b, const char *why, GError **error)
{
  g_set_error (error, PFPROF_RUN_MATCH_ERROR, PFPROF_RUN_MATCH_ERROR_MIXED,
               "%s and %s are not of one run (%s): report each run on its own, or compare "
               "them with pfprof diff",
               a->path ? a->path : "", b->path ? b->path : "", why);
  return FALSE;
}

gboolean
pfprof_run_match_traces (const GPtrArray *traces, GError **error)
{
  g_return_val_if_fail (traces != NULL, FALSE);

  g_autoptr (GHashTable) ranks = g_hash_table_new_full (pfprof_hash_int64, g_int64_equal, g_free, NULL);

  g_return_val_if_fail (traces != NULL, FALSE);
  /* Each against the first, and no rank twice: linear in the ranks. */
  for (guint i = 0; i < traces->len; i++)
    {
      const PfprofTrace *t = g_ptr_array_index (traces, i);
      const PfprofTrace *other;
      const char *why;
      gint64 rank;

      if (i > 0 && !pfprof_run_match (g_ptr_array_index (traces, 0), t, &why))
        return mixed (g_ptr_array_index (traces, 0), t, why, error);
      if (!meta_i64 (t, "rank", &rank))
        continue;
      if ((other = g_hash_table_lookup (ranks, &rank)) != NULL)
        return mixed (other, t, "both are the same rank", error);
      g_hash_table_insert (ranks, g_memdup2 (&rank, sizeof rank), (gpointer) t);
    }
  return TRUE;
}
