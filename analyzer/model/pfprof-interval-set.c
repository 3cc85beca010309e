/* SPDX-License-Identifier: MIT */
/* pfprof-interval-set.c: sorted disjoint intervals with prefix sums. */
#include "pfprof-interval-set.h"

#include "pfprof-huge-pages.h"
#include "pfprof-lower-bound.h"

struct _PfprofIntervalSetBuilder
{
  GArray *items;   /* PfprofInterval, unsorted */
  gboolean sorted; /* items were added in start order (the common case):
                    * then each one that overlaps or touches the last
                    * merges into it, so a busy timeline of millions of
                    * back-to-back records holds one interval per gap */
  gint64 last_start;
};

struct _PfprofIntervalSet
{
  PfprofInterval *iv; /* sorted, disjoint, non-empty, non-adjacent */
  gint64 *cum;        /* cum[i] = total length of iv[0 .. i-1]; n + 1 entries */
  guint n;
};

PfprofIntervalSetBuilder *
pfprof_interval_set_builder_new (void)
{
  return pfprof_interval_set_builder_new_sized (0);
}

PfprofIntervalSetBuilder *
pfprof_interval_set_builder_new_sized (guint n)
{
  PfprofIntervalSetBuilder *b = g_new0 (PfprofIntervalSetBuilder, 1);

  b->items = pfprof_huge_array_sized_new (sizeof (PfprofInterval), n);
  b->sorted = TRUE;
  b->last_start = G_MININT64;
  return b;
}

void
pfprof_interval_set_builder_add (PfprofIntervalSetBuilder *b, gint64 start, gint64 end)
{
  g_return_if_fail (b != NULL);

  PfprofInterval iv = { start, end };

  if (end <= start)
    return;
  if (start < b->last_start)
    b->sorted = FALSE;
  b->last_start = start;
  if (b->sorted && b->items->len > 0)
    {
      PfprofInterval *last = &g_array_index (b->items, PfprofInterval, b->items->len - 1);

      if (start <= last->end)
        {
          last->end = MAX (last->end, end);
          return;
        }
    }
  g_array_append_val (b->items, iv);
}

static int
compare_interval (gconstpointer a, gconstpointer b)
{
  const PfprofInterval *x = a;
  const PfprofInterval *y = b;

  return (x->start > y->start) - (x->start < y->start);
}

/* Takes ownership of @iv (n sorted, disjoint, non-adjacent intervals),
 * and gives back the room after them: a builder or an operation sized
 * for its inputs reserved more than it made, and a set can live as long
 * as the analysis (room never touched costs address space only). */
static PfprofIntervalSet *
set_new_take (PfprofInterval *iv, guint n)
{
  PfprofIntervalSet *set = g_new0 (PfprofIntervalSet, 1);

  iv = g_renew (PfprofInterval, iv, n ? n : 1);
  set->iv = iv;
  set->n = n;
  set->cum = g_new (gint64, (gsize) n + 1);
  pfprof_huge_pages_advise (set->cum, sizeof (gint64) * ((gsize) n + 1));
  set->cum[0] = 0;
  for (guint i = 0; i < n; i++)
    set->cum[i + 1] = set->cum[i] + (iv[i].end - iv[i].start);
  return set;
}

PfprofIntervalSet *
pfprof_interval_set_build (PfprofIntervalSetBuilder *b)
{
  PfprofInterval *iv;
  guint n = 0;
  guint len;

  g_return_val_if_fail (b != NULL, NULL);
  len = b->items->len;
  if (!b->sorted)
    g_array_sort (b->items, compare_interval);
  iv = (PfprofInterval *) (void *) g_array_free (b->items, FALSE);
  g_free (b);
  /* Merge in place; touching intervals merge too, so n counts gaps. */
  for (guint i = 0; i < len; i++)
    {
      if (n > 0 && iv[i].start <= iv[n - 1].end)
        {
          if (iv[i].end > iv[n - 1].end)
            iv[n - 1].end = iv[i].end;
        }
      else
        iv[n++] = iv[i];
    }
  return set_new_take (iv, n);
}

/* The output array of an operation on @a and @b, with room for as many
 * intervals as it can make (never more than both hold): grown from empty,
 * the output of two large sets was copied over several times, each time
 * into memory faulted in afresh. */
static GArray *
out_new (const PfprofIntervalSet *a, const PfprofIntervalSet *b)
{
  return pfprof_huge_array_sized_new (sizeof (PfprofInterval),
                                      (guint) MIN ((guint64) a->n + b->n, G_MAXUINT / 2));
}

/* The set of the intervals in @out. */
static PfprofIntervalSet *
out_take (GArray *out)
{
  guint n = out->len;

  return set_new_take ((PfprofInterval *) (void *) g_array_free (out, FALSE), n);
}

PfprofIntervalSet *
pfprof_interval_set_new (void)
{
  return set_new_take (g_new (PfprofInterval, 1), 0);
}

void
pfprof_interval_set_free (PfprofIntervalSet *set)
{
  if (set == NULL)
    return;
  g_free (set->iv);
  g_free (set->cum);
  g_free (set);
}

guint
pfprof_interval_set_n (const PfprofIntervalSet *set)
{
  g_return_val_if_fail (set != NULL, 0);

  return set->n;
}

PfprofInterval
pfprof_interval_set_get (const PfprofIntervalSet *set, guint i)
{
  PfprofInterval none = { 0, 0 };

  g_return_val_if_fail (set != NULL, none);
  g_return_val_if_fail (i < set->n, none);
  return set->iv[i];
}

gint64
pfprof_interval_set_length (const PfprofIntervalSet *set)
{
  g_return_val_if_fail (set != NULL, 0);

  return set->cum[set->n];
}

typedef struct
{
  const PfprofIntervalSet *set;
  gint64 t;
} SetAt;

static gboolean
ends_by (gconstpointer data, guint i)
{
  const SetAt *a = data;

  return a->set->iv[i].end <= a->t;
}

static gboolean
starts_before (gconstpointer data, guint i)
{
  const SetAt *a = data;

  return a->set->iv[i].start < a->t;
}

guint
pfprof_interval_set_first_after (const PfprofIntervalSet *set, gint64 t)
{
  g_return_val_if_fail (set != NULL, 0);

  SetAt a = { set, t };

  /* Ends are increasing because the intervals are disjoint and sorted. */
  return pfprof_lower_bound (0, set->n, ends_by, &a);
}

/* Index of the first interval at or after @from whose start is >= @t
 * (none before @from is). Galloping from @from: a window holds a few
 * intervals, usually, so this is a few comparisons where a search of the
 * whole set is twenty-odd over memory far apart. */
static guint
first_starting_at (const PfprofIntervalSet *set, guint from, gint64 t)
{
  SetAt a = { set, t };
  guint step = 1, lo = from, hi;

  while (lo + step < set->n && set->iv[lo + step].start < t)
    {
      lo += step;
      step *= 2;
    }
  hi = MIN (lo + step, set->n);
  return pfprof_lower_bound (lo, hi, starts_before, &a);
}

gint64
pfprof_interval_set_length_in (const PfprofIntervalSet *set, gint64 lo, gint64 hi)
{
  guint i, j;
  gint64 len;

  g_return_val_if_fail (set != NULL, 0);

  if (hi <= lo || set->n == 0)
    return 0;
  i = pfprof_interval_set_first_after (set, lo);
  /* Intervals before i end by lo < hi, so they start before hi too. */
  j = first_starting_at (set, i, hi); /* intervals [i, j) touch the window */
  if (i >= j)
    return 0;
  len = set->cum[j] - set->cum[i];
  if (set->iv[i].start < lo)
    len -= lo - set->iv[i].start;
  if (set->iv[j - 1].end > hi)
    len -= set->iv[j - 1].end - hi;
  return len;
}

gboolean
pfprof_interval_set_contains (const PfprofIntervalSet *set, gint64 t)
{
  g_return_val_if_fail (set != NULL, FALSE);

  guint i = pfprof_interval_set_first_after (set, t);

  return i < set->n && set->iv[i].start <= t;
}

PfprofIntervalSet *
pfprof_interval_set_intersect (const PfprofIntervalSet *a, const PfprofIntervalSet *b)
{
  GArray *out;
  guint i = 0, j = 0;

  g_return_val_if_fail (a != NULL, NULL);
  g_return_val_if_fail (b != NULL, NULL);
  out = out_new (a, b);
  while (i < a->n && j < b->n)
    {
      gint64 s = MAX (a->iv[i].start, b->iv[j].start);
      gint64 e = MIN (a->iv[i].end, b->iv[j].end);

      if (s < e)
        {
          PfprofInterval iv = { s, e };
          g_array_append_val (out, iv);
        }
      if (a->iv[i].end < b->iv[j].end)
        i++;
      else
        j++;
    }
  return out_take (out);
}

PfprofIntervalSet *
pfprof_interval_set_union (const PfprofIntervalSet *a, const PfprofIntervalSet *b)
{
  PfprofIntervalSetBuilder *builder;
  guint i = 0, j = 0;

  g_return_val_if_fail (a != NULL, NULL);
  g_return_val_if_fail (b != NULL, NULL);
  builder = pfprof_interval_set_builder_new_sized ((guint) MIN ((guint64) a->n + b->n, G_MAXUINT / 2));
  /* Merge the two sorted lists so the builder needs no sort. */
  while (i < a->n || j < b->n)
    {
      const PfprofInterval *iv;

      if (j >= b->n || (i < a->n && a->iv[i].start <= b->iv[j].start))
        iv = &a->iv[i++];
      else
        iv = &b->iv[j++];
      pfprof_interval_set_builder_add (builder, iv->start, iv->end);
    }
  return pfprof_interval_set_build (builder);
}

PfprofIntervalSet *
pfprof_interval_set_subtract (const PfprofIntervalSet *a, const PfprofIntervalSet *b)
{
  GArray *out;
  guint j = 0;

  g_return_val_if_fail (a != NULL, NULL);
  g_return_val_if_fail (b != NULL, NULL);
  out = out_new (a, b);
  for (guint i = 0; i < a->n; i++)
    {
      gint64 s = a->iv[i].start;
      gint64 e = a->iv[i].end;

      while (j < b->n && b->iv[j].end <= s)
        j++;
      for (guint k = j; k < b->n && b->iv[k].start < e; k++)
        {
          if (b->iv[k].start > s)
            {
              PfprofInterval iv = { s, b->iv[k].start };
              g_array_append_val (out, iv);
            }
          s = MAX (s, b->iv[k].end);
          if (s >= e)
            break;
        }
      if (s < e)
        {
          PfprofInterval iv = { s, e };
          g_array_append_val (out, iv);
        }
    }
  return out_take (out);
}
