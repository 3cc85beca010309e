/* SPDX-License-Identifier: MIT */
/* pfprof-occurrence-navigator.h: which occurrence of the selected finding
 * is shown, and in what order they are stepped through.
 *
 * A finding's occurrences are every piece of evidence its rule found
 * (PfprofFinding.occurrences, which the GUI's analysis keeps:
 * pfprof_analysis_options_set_keep_occurrences), not only the costliest
 * few the reports show (PfprofFinding.evidence, the fallback for a
 * finding without them). The navigator orders them costliest first (the
 * one to look at) or in time order (to walk the run), keeps the one
 * shown when the order changes, and wraps around at either end as "find
 * next" does. Plain data, no widget: the window shows what it says. */
#pragma once

#include <glib.h>

#include "pfprof-analysis.h"

G_BEGIN_DECLS

typedef enum
{
  PFPROF_OCCURRENCE_BY_COST = 0, /* costliest first, the earlier on a tie */
  PFPROF_OCCURRENCE_BY_TIME = 1, /* by start, the costlier on a tie */
} PfprofOccurrenceOrder;

typedef struct _PfprofOccurrenceNavigator PfprofOccurrenceNavigator;

PfprofOccurrenceNavigator *pfprof_occurrence_navigator_new (void);

void pfprof_occurrence_navigator_free (PfprofOccurrenceNavigator *nav);

/* Steps through @finding's occurrences (borrowed: it must outlive the
 * navigator's use, or be replaced first), from the first in the current
 * order; NULL for none. */
void pfprof_occurrence_navigator_set_finding (PfprofOccurrenceNavigator *nav,
                                              const PfprofFinding *finding /* nullable */);

/* Reorders, keeping the occurrence shown. */
void pfprof_occurrence_navigator_set_order (PfprofOccurrenceNavigator *nav, PfprofOccurrenceOrder order);

PfprofOccurrenceOrder pfprof_occurrence_navigator_get_order (const PfprofOccurrenceNavigator *nav);

/* How many occurrences the finding has (0 without a finding). */
guint pfprof_occurrence_navigator_get_n (const PfprofOccurrenceNavigator *nav);

/* The position of the one shown in the current order, from 0; -1 when
 * there is none. */
int pfprof_occurrence_navigator_get_position (const PfprofOccurrenceNavigator *nav);

/* Moves @delta positions, wrapping around. */
void pfprof_occurrence_navigator_step (PfprofOccurrenceNavigator *nav, int delta);

/* The occurrence shown, or NULL. */
const PfprofEvidence *pfprof_occurrence_navigator_get_current (const PfprofOccurrenceNavigator *nav);

/* Its index in the finding's occurrence array (what _get_all() returns),
 * or -1. */
int pfprof_occurrence_navigator_get_index (const PfprofOccurrenceNavigator *nav);

/* Every occurrence of the finding, in the order found (the rule's), or
 * NULL: the overview strip marks them all. */
const GArray *pfprof_occurrence_navigator_get_all (const PfprofOccurrenceNavigator *nav);

/* The index into @finding's PfprofFinding.evidence of the occurrence
 * shown, when it is one of those costliest few the timeline marks, or -1. */
int pfprof_occurrence_navigator_get_evidence_index (const PfprofOccurrenceNavigator *nav);

G_END_DECLS
