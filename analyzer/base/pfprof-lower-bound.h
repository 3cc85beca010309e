/* SPDX-License-Identifier: MIT */
/* pfprof-lower-bound.h: the first index of a sorted range at which a
 * predicate stops holding.
 *
 * Every search over time- or id-sorted records (the first step starting
 * at or after t, the first interval ending after t, the step a
 * correlation id falls under) is this one bisection over a different
 * array; callers say what "before" means for their records. It is inline
 * so that a caller's predicate, defined in the same file, is inlined
 * into the loop: the timeline calls it once per drawn row and frame.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* TRUE when element @i of @data lies before the sought place. Over the
 * searched range it must hold for a prefix and fail for the rest. */
typedef gboolean (*PfprofLowerBoundBefore) (gconstpointer data, guint i);

/* The first index in [@lo, @hi) for which @before fails, or @hi when it
 * holds throughout. */
static inline guint
pfprof_lower_bound (guint lo, guint hi, PfprofLowerBoundBefore before, gconstpointer data)
{
  while (lo < hi)
    {
      /* lo + (hi - lo) / 2 cannot overflow where (lo + hi) / 2 could. */
      guint mid = lo + (hi - lo) / 2;

      if (before (data, mid))
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

typedef struct
{
  const gint64 *values;
  gint64 key;
} PfprofLowerBoundI64;

static inline gboolean
pfprof_lower_bound_i64_below (gconstpointer data, guint i)
{
  const PfprofLowerBoundI64 *a = data;

  return a->values[i] < a->key;
}

/* The first index in [@lo, @hi) of ascending @values whose value is @key
 * or more, or @hi. */
static inline guint
pfprof_lower_bound_i64 (const gint64 *values, guint lo, guint hi, gint64 key)
{
  PfprofLowerBoundI64 a = { values, key };

  return pfprof_lower_bound (lo, hi, pfprof_lower_bound_i64_below, &a);
}

G_END_DECLS
