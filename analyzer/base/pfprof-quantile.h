/* SPDX-License-Identifier: MIT */
/* pfprof-quantile.h: medians and quantiles of integer samples.
 *
 * Step lengths, per-rank costs and clock offsets are nanosecond integers;
 * every median pfprof reports is computed here, so two places that show
 * "the median step" agree to the nanosecond.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Sorts @n values ascending, in place. */
void pfprof_quantile_sort_i64 (gint64 *values, guint n);

/* Median of @n sorted values: the middle one, or for an even @n the mean
 * of the two middle ones rounded toward the lower; 0 when @n is 0. */
gint64 pfprof_quantile_median_sorted_i64 (const gint64 *values, guint n);

/* Median of @n values, which it sorts in place; 0 when @n is 0. */
gint64 pfprof_quantile_median_i64 (gint64 *values, guint n);

/* The @q quantile (0..1, nearest rank: the smallest value with at least
 * @q of the values at or below it) of @n sorted values; 0 when @n is 0. */
gint64 pfprof_quantile_sorted_i64 (const gint64 *values, guint n, double q);

G_END_DECLS
