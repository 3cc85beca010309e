/* SPDX-License-Identifier: MIT */
/* pfprof-search.c: name search over a timeline (pfprof-search.h). */
#include "pfprof-search.h"

#include <stdlib.h>
#include <string.h>

#include "pfprof-display-name.h"

static gboolean
text_matches (const char *text, const char *needle)
{
  g_autofree char *folded = NULL;

  if (text == NULL || *text == '\0')
    return FALSE;
  folded = g_utf8_casefold (text, -1);
  return strstr (folded, needle) != NULL;
}

/* Per string id of @trace: 1 when its display name holds @needle. */
static guint8 *
matching_ids (const PfprofTrace *trace, const char *needle)
{
  guint n = trace->strings->len;
  guint8 *m = g_new0 (guint8, MAX (n, 1));

  for (guint id = 0; id < n; id++)
    m[id] = text_matches (pfprof_display_name (trace, id), needle);
  return m;
}

static guint32
name_id (const PfprofTrace *trace, PfprofEventRef ref)
{
  guint i = PFPROF_EVENT_REF_INDEX (ref);

  switch (PFPROF_EVENT_REF_TABLE (ref))
    {
    case PFPROF_TABLE_KERNELS:
      return pfprof_trace_kernels (trace)[i].name_id;
    case PFPROF_TABLE_API_CALLS:
      return pfprof_trace_api_calls (trace)[i].name_id;
    case PFPROF_TABLE_NVTX:
      return pfprof_trace_nvtx (trace)[i].name_id;
    default:
      return PFPROF_NONE;
    }
}

static int
compare_match (gconstpointer a, gconstpointer b)
{
  const PfprofSearchMatch *x = a, *y = b;

  if (x->start_ns != y->start_ns)
    return x->start_ns < y->start_ns ? -1 : 1;
  if (x->row != y->row)
    return x->row < y->row ? -1 : 1;
  return x->ref < y->ref ? -1 : x->ref > y->ref;
}

/* A run of matches in time order (one lane's), merged with the others. */
typedef struct
{
  guint i, end;
} Run;

static void
sift_down (const PfprofSearchMatch *m, Run *heap, guint n, guint k)
{
  for (;;)
    {
      guint l = 2 * k + 1, r = l + 1, best = k;
      Run tmp;

      if (l < n && compare_match (&m[heap[l].i], &m[heap[best].i]) < 0)
        best = l;
      if (r < n && compare_match (&m[heap[r].i], &m[heap[best].i]) < 0)
        best = r;
      if (best == k)
        return;
      tmp = heap[k];
      heap[k] = heap[best];
      heap[best] = tmp;
      k = best;
    }
}

/* @in holds runs (@runs) each in time order: the whole in time order, in
 * O(n log runs) rather than a sort's O(n log n). */
static GArray *
merge_runs (GArray *in, GArray *runs)
{
  const PfprofSearchMatch *m = (const PfprofSearchMatch *) in->data;
  GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (PfprofSearchMatch), in->len);
  Run *heap = (Run *) runs->data;
  guint n = runs->len;

  for (guint k = n / 2; k-- > 0;)
    sift_down (m, heap, n, k);
  while (n > 0)
    {
      g_array_append_val (out, m[heap[0].i]);
      if (++heap[0].i >= heap[0].end)
        heap[0] = heap[--n];
      sift_down (m, heap, n, 0);
    }
  g_array_unref (in);
  return out;
}

GArray *
pfprof_search_find (const PfprofTimeline *timeline, const char *query, gboolean *truncated)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (PfprofSearchMatch));
  g_autofree char *needle = NULL;
  g_autofree guint8 **ids = NULL;
  g_autoptr (GArray) runs = g_array_new (FALSE, FALSE, sizeof (Run));
  gboolean full = FALSE;

  if (truncated != NULL)
    *truncated = FALSE;
  if (timeline == NULL || query == NULL)
    return out;
  needle = g_utf8_casefold (query, -1);
  g_strstrip (needle);
  if (*needle == '\0')
    return out;
  ids = g_new0 (guint8 *, timeline->traces->len);
  for (guint r = 0; r < timeline->rows->len && !full; r++)
    {
      const PfprofTimelineRow *row = pfprof_timeline_get_row (timeline, r);

      if (row->is_group || row->trace == NULL)
        continue;
      if (row->type != PFPROF_ROW_STREAM && row->type != PFPROF_ROW_THREAD_API
          && row->type != PFPROF_ROW_THREAD_NVTX)
        continue;
      Run run = { out->len, 0 };

      if (ids[row->trace_index] == NULL)
        ids[row->trace_index] = matching_ids (row->trace, needle);
      for (guint i = 0; i < row->n_refs; i++)
        {
          guint32 id = name_id (row->trace, row->refs[i]);
          PfprofSearchMatch m;

          if (id >= row->trace->strings->len || !ids[row->trace_index][id])
            continue;
          if (out->len >= PFPROF_SEARCH_MAX_MATCHES)
            {
              full = TRUE;
              break;
            }
          pfprof_timeline_event_range (row->trace, row->refs[i], &m.start_ns, &m.end_ns);
          m.row = (int) r;
          m.ref = row->refs[i];
          m.finding = -1;
          g_array_append_val (out, m);
        }
      run.end = out->len;
      if (run.end > run.i)
        g_array_append_val (runs, run);
    }
  for (guint t = 0; t < timeline->traces->len; t++)
    g_free (ids[t]);
  /* Findings, by time, make one more run. */
  if (timeline->analysis != NULL && !full)
    {
      Run run = { out->len, 0 };

      for (guint i = 0; i < timeline->analysis->findings->len; i++)
        {
          const PfprofFinding *f = g_ptr_array_index (timeline->analysis->findings, i);
          PfprofSearchMatch m = { f->first_ns, f->last_ns, -1, PFPROF_EVENT_REF_NONE, (int) i };

          if (!text_matches (f->title, needle) && !text_matches (f->rule, needle))
            continue;
          if (f->evidence != NULL && f->evidence->len > 0)
            {
              const PfprofEvidence *ev = &g_array_index (f->evidence, PfprofEvidence, 0);

              m.start_ns = ev->start_ns;
              m.end_ns = ev->end_ns;
            }
          g_array_append_val (out, m);
        }
      run.end = out->len;
      if (run.end > run.i)
        {
          qsort (&g_array_index (out, PfprofSearchMatch, run.i), run.end - run.i, sizeof (PfprofSearchMatch),
                 compare_match);
          g_array_append_val (runs, run);
        }
    }
  if (runs->len > 1)
    out = merge_runs (out, runs);
  if (truncated != NULL)
    *truncated = full;
  return out;
}
