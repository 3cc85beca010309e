/* SPDX-License-Identifier: MIT */
/* pfprof-interval-set.h: a set of disjoint time intervals with O(log n)
 * length queries over any window.
 *
 * The analyzer's overlap figures are all lengths of unions and
 * intersections of event intervals: |C ∩ K| for copies C and kernels K,
 * |W \ B| for DataLoader waits W while the GPU is not busy (B), and so on.
 * An interval set stores the union of its input as sorted, disjoint,
 * half-open [start, end) intervals plus prefix sums of their lengths, so
 * "how much of this set lies in [lo, hi)" is two binary searches, which
 * the per-step breakdown asks once per step and set.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  gint64 start;
  gint64 end;
} PfprofInterval;

typedef struct _PfprofIntervalSet PfprofIntervalSet;

/* A builder collects intervals in any order; pfprof_interval_set_build()
 * sorts and merges them. */
typedef struct _PfprofIntervalSetBuilder PfprofIntervalSetBuilder;

PfprofIntervalSetBuilder *pfprof_interval_set_builder_new (void);

/* The same, with room for @n intervals before it grows: for a builder
 * whose inputs are counted (or bounded) first, so that millions of them
 * are neither copied as the room doubles nor faulted in small pages. */
PfprofIntervalSetBuilder *pfprof_interval_set_builder_new_sized (guint n);

/* Adds [@start, @end); empty or reversed intervals are ignored. */
void pfprof_interval_set_builder_add (PfprofIntervalSetBuilder *builder, gint64 start, gint64 end);

/* Consumes @builder and returns the union of what was added. */
PfprofIntervalSet *pfprof_interval_set_build (PfprofIntervalSetBuilder *builder);

/* An empty set. */
PfprofIntervalSet *pfprof_interval_set_new (void);

void pfprof_interval_set_free (PfprofIntervalSet *set);

/* Number of disjoint intervals after merging. */
guint pfprof_interval_set_n (const PfprofIntervalSet *set);

/* The @i-th interval, in time order. */
PfprofInterval pfprof_interval_set_get (const PfprofIntervalSet *set, guint i);

/* Total length. */
gint64 pfprof_interval_set_length (const PfprofIntervalSet *set);

/* Length of the part of @set inside [@lo, @hi). */
gint64 pfprof_interval_set_length_in (const PfprofIntervalSet *set, gint64 lo, gint64 hi);

/* TRUE when @t lies inside one of the intervals. */
gboolean pfprof_interval_set_contains (const PfprofIntervalSet *set, gint64 t);

/* Index of the first interval whose end is after @t, or n when none. */
guint pfprof_interval_set_first_after (const PfprofIntervalSet *set, gint64 t);

/* A ∩ B. */
PfprofIntervalSet *pfprof_interval_set_intersect (const PfprofIntervalSet *a,
                                                  const PfprofIntervalSet *b);

/* A ∪ B. */
PfprofIntervalSet *pfprof_interval_set_union (const PfprofIntervalSet *a,
                                              const PfprofIntervalSet *b);

/* A \ B. */
PfprofIntervalSet *pfprof_interval_set_subtract (const PfprofIntervalSet *a,
                                                 const PfprofIntervalSet *b);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PfprofIntervalSet, pfprof_interval_set_free)

G_END_DECLS
