/* SPDX-License-Identifier: MIT */
/* test-lower-bound.c: the one bisection (analyzer/base/pfprof-lower-bound.h)
 * against a linear scan, on sorted arrays with runs of equal values, at
 * every key and every sub-range. */
#include "pfprof-lower-bound.h"

static void
test_against_scan (void)
{
  /* Runs of equal values, a gap, and values at both ends of the keys. */
  static const gint64 v[] = { -5, -5, 0, 1, 1, 1, 4, 9, 9, 20 };
  guint n = G_N_ELEMENTS (v);

  for (gint64 key = -7; key <= 22; key++)
    for (guint lo = 0; lo <= n; lo++)
      for (guint hi = lo; hi <= n; hi++)
        {
          guint expect = lo;

          while (expect < hi && v[expect] < key)
            expect++;
          g_assert_cmpuint (pfprof_lower_bound_i64 (v, lo, hi, key), ==, expect);
        }
}

static gboolean
index_below (gconstpointer data, guint i)
{
  return i < *(const guint *) data;
}

static void
test_large_range (void)
{
  /* Indices near G_MAXUINT, where (lo + hi) / 2 would wrap: the
   * predicate compares the index itself, so no array is needed. */
  guint lo = G_MAXUINT - 1000, hi = G_MAXUINT;

  for (guint k = 0; k <= hi - lo; k++)
    {
      guint at = lo + k;

      g_assert_cmpuint (pfprof_lower_bound (lo, hi, index_below, &at), ==, at);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lower-bound/against-scan", test_against_scan);
  g_test_add_func ("/lower-bound/large-range", test_large_range);
  return g_test_run ();
}
