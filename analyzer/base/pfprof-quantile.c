/* SPDX-License-Identifier: MIT */
/* pfprof-quantile.c: see the header. */
#include "pfprof-quantile.h"

#include <math.h>
#include <stdlib.h>

static int
compare_i64 (const void *a, const void *b)
{
  gint64 x = *(const gint64 *) a;
  gint64 y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

void
pfprof_quantile_sort_i64 (gint64 *values, guint n)
{
  g_return_if_fail (values != NULL || n == 0);

  if (n > 1)
    qsort (values, n, sizeof (gint64), compare_i64);
}

gint64
pfprof_quantile_median_sorted_i64 (const gint64 *values, guint n)
{
  g_return_val_if_fail (values != NULL || n == 0, 0);

  if (n == 0)
    return 0;
  if (n % 2)
    return values[n / 2];
  /* lo + (hi - lo) / 2 cannot overflow where (lo + hi) / 2 could. */
  return values[n / 2 - 1] + (values[n / 2] - values[n / 2 - 1]) / 2;
}

gint64
pfprof_quantile_median_i64 (gint64 *values, guint n)
{
  g_return_val_if_fail (n == 0 || values != NULL, 0);

  pfprof_quantile_sort_i64 (values, n);
  return pfprof_quantile_median_sorted_i64 (values, n);
}

gint64
pfprof_quantile_sorted_i64 (const gint64 *values, guint n, double q)
{
  guint i;

  g_return_val_if_fail (values != NULL || n == 0, 0);

  if (n == 0)
    return 0;
  i = (guint) ceil (q * n);
  i = i == 0 ? 0 : i - 1;
  return values[MIN (i, n - 1)];
}
