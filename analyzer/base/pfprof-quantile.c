/* SPDX-License-Identifier: MIT */
/* pfprof-quantile.c: see the header. */
#include "pfprof-quantile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int
compare_i64 (const void *a, const void *b)
{
  gint64 x = *(const gint64 *) a;
  gint64 y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

/* Below this many values qsort() is quicker than the passes of the
 * radix sort over its buckets. */
#define RADIX_MIN 512

/* Sorts @values by their bits with the sign flipped (the order of the
 * signed values), a byte a pass from the least significant, skipping the
 * bytes that every value shares: the lengths of 100k steps sort in two or
 * three passes over them instead of two million calls of a comparison. */
static void
radix_sort_i64 (gint64 *values, guint n)
{
  g_autofree guint64 *tmp = g_new (guint64, n);
  guint64 *from = (guint64 *) values, *to = tmp;
  g_autofree gsize *count = g_new0 (gsize, 8 * 256);
  const guint64 flip = G_GUINT64_CONSTANT (1) << 63;

  /* Every byte's histogram in one pass. */
  for (guint i = 0; i < n; i++)
    {
      guint64 k = from[i] ^ flip;

      for (guint b = 0; b < 8; b++)
        count[b * 256 + ((k >> (8 * b)) & 0xff)]++;
    }
  for (guint b = 0; b < 8; b++)
    {
      gsize *c = count + b * 256, sum = 0;
      guint shift = 8 * b;

      if (c[((from[0] ^ flip) >> shift) & 0xff] == n)
        continue; /* every value has this byte */
      for (guint d = 0; d < 256; d++)
        {
          gsize here = c[d];

          c[d] = sum;
          sum += here;
        }
      for (guint i = 0; i < n; i++)
        to[c[((from[i] ^ flip) >> shift) & 0xff]++] = from[i];
      {
        guint64 *swap = from;

        from = to;
        to = swap;
      }
    }
  if (from != (guint64 *) values)
    memcpy (values, from, (gsize) n * sizeof *values);
}

void
pfprof_quantile_sort_i64 (gint64 *values, guint n)
{
  g_return_if_fail (values != NULL || n == 0);

  if (n >= RADIX_MIN)
    radix_sort_i64 (values, n);
  else if (n > 1)
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
