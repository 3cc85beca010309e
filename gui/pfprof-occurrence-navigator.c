/* SPDX-License-Identifier: MIT */
/* pfprof-occurrence-navigator.c: the order of a finding's occurrences and
 * the one shown. */
#include "pfprof-occurrence-navigator.h"

struct _PfprofOccurrenceNavigator
{
  const PfprofFinding *finding;
  const GArray *all;            /* PfprofEvidence: the finding's occurrences or evidence */
  GArray *order;                /* guint indices into all, in the current order */
  PfprofOccurrenceOrder by;
  guint position;
};

PfprofOccurrenceNavigator *
pfprof_occurrence_navigator_new (void)
{
  PfprofOccurrenceNavigator *nav = g_new0 (PfprofOccurrenceNavigator, 1);

  nav->order = g_array_new (FALSE, FALSE, sizeof (guint));
  return nav;
}

void
pfprof_occurrence_navigator_free (PfprofOccurrenceNavigator *nav)
{
  if (nav == NULL)
    return;
  g_array_unref (nav->order);
  g_free (nav);
}

static int
compare (gconstpointer a, gconstpointer b, gpointer data)
{
  const PfprofOccurrenceNavigator *nav = data;
  guint ia = *(const guint *) a, ib = *(const guint *) b;
  const PfprofEvidence *x = &g_array_index (nav->all, PfprofEvidence, ia);
  const PfprofEvidence *y = &g_array_index (nav->all, PfprofEvidence, ib);

  if (nav->by == PFPROF_OCCURRENCE_BY_TIME && x->start_ns != y->start_ns)
    return x->start_ns < y->start_ns ? -1 : 1;
  /* The same tie-break as the analysis's evidence: costlier, then earlier. */
  if (x->cost_ns != y->cost_ns)
    return x->cost_ns > y->cost_ns ? -1 : 1;
  if (x->start_ns != y->start_ns)
    return x->start_ns < y->start_ns ? -1 : 1;
  return ia < ib ? -1 : ia > ib;
}

static void
sort (PfprofOccurrenceNavigator *nav)
{
  g_array_set_size (nav->order, 0);
  if (nav->all == NULL)
    return;
  for (guint i = 0; i < nav->all->len; i++)
    g_array_append_val (nav->order, i);
  g_array_sort_with_data (nav->order, compare, nav);
}

void
pfprof_occurrence_navigator_set_finding (PfprofOccurrenceNavigator *nav, const PfprofFinding *finding)
{
  g_return_if_fail (nav != NULL);

  nav->finding = finding;
  nav->all = finding == NULL ? NULL : finding->occurrences != NULL ? finding->occurrences : finding->evidence;
  nav->position = 0;
  sort (nav);
}

void
pfprof_occurrence_navigator_set_order (PfprofOccurrenceNavigator *nav, PfprofOccurrenceOrder order)
{
  int index;

  g_return_if_fail (nav != NULL);

  if (nav->by == order)
    return;
  index = pfprof_occurrence_navigator_get_index (nav);
  nav->by = order;
  sort (nav);
  nav->position = 0;
  for (guint i = 0; index >= 0 && i < nav->order->len; i++)
    if (g_array_index (nav->order, guint, i) == (guint) index)
      nav->position = i;
}

PfprofOccurrenceOrder
pfprof_occurrence_navigator_get_order (const PfprofOccurrenceNavigator *nav)
{
  g_return_val_if_fail (nav != NULL, PFPROF_OCCURRENCE_BY_COST);

  return nav->by;
}

guint
pfprof_occurrence_navigator_get_n (const PfprofOccurrenceNavigator *nav)
{
  g_return_val_if_fail (nav != NULL, 0);

  return nav->order->len;
}

int
pfprof_occurrence_navigator_get_position (const PfprofOccurrenceNavigator *nav)
{
  g_return_val_if_fail (nav != NULL, -1);

  return nav->order->len > 0 ? (int) nav->position : -1;
}

void
pfprof_occurrence_navigator_step (PfprofOccurrenceNavigator *nav, int delta)
{
  gint64 n;

  g_return_if_fail (nav != NULL);

  n = nav->order->len;
  if (n == 0)
    return;
  nav->position = (guint) ((((gint64) nav->position + delta) % n + n) % n);
}

int
pfprof_occurrence_navigator_get_index (const PfprofOccurrenceNavigator *nav)
{
  g_return_val_if_fail (nav != NULL, -1);

  if (nav->order->len == 0)
    return -1;
  return (int) g_array_index (nav->order, guint, nav->position);
}

const PfprofEvidence *
pfprof_occurrence_navigator_get_current (const PfprofOccurrenceNavigator *nav)
{
  g_return_val_if_fail (nav != NULL, NULL);

  int index = pfprof_occurrence_navigator_get_index (nav);

  return index < 0 ? NULL : &g_array_index (nav->all, PfprofEvidence, index);
}

const GArray *
pfprof_occurrence_navigator_get_all (const PfprofOccurrenceNavigator *nav)
{
  g_return_val_if_fail (nav != NULL, NULL);

  return nav->all;
}

int
pfprof_occurrence_navigator_get_evidence_index (const PfprofOccurrenceNavigator *nav)
{
  g_return_val_if_fail (nav != NULL, -1);

  const PfprofEvidence *cur = pfprof_occurrence_navigator_get_current (nav);
  const GArray *ev;

  if (cur == NULL)
    return -1;
  ev = nav->finding->evidence;
  if (nav->all == ev)
    return pfprof_occurrence_navigator_get_index (nav);
  /* The evidence is a copy of a few of the occurrences. */
  for (guint i = 0; ev != NULL && i < ev->len; i++)
    {
      const PfprofEvidence *e = &g_array_index (ev, PfprofEvidence, i);

      if (e->start_ns == cur->start_ns && e->end_ns == cur->end_ns && e->table == cur->table
          && e->index == cur->index && e->trace_index == cur->trace_index)
        return (int) i;
    }
  return -1;
}
