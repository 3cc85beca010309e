/* SPDX-License-Identifier: MIT */
/* pfprof-overview.h: the strip above the timeline that shows the whole
 * trace, small, with the part the timeline shows framed; a click or a
 * drag on it moves the timeline there. */
#pragma once

#include <gtk/gtk.h>

#include "pfprof-timeline-widget.h"

G_BEGIN_DECLS

#define PFPROF_TYPE_OVERVIEW (pfprof_overview_get_type ())
G_DECLARE_FINAL_TYPE (PfprofOverview, pfprof_overview, PFPROF, OVERVIEW, GtkDrawingArea)

GtkWidget *pfprof_overview_new (void);

/* The timeline widget it frames and moves (not referenced: it must
 * outlive the strip, as its sibling in the window does). */
void pfprof_overview_set_timeline_widget (PfprofOverview *self,
                                          PfprofTimelineWidget *timeline_widget /* nullable */);

/* Draws @timeline (borrowed; NULL draws nothing), and again after the
 * colours changed. */
void pfprof_overview_set_timeline (PfprofOverview *self, PfprofTimeline *timeline /* nullable */);

/* Marks every one of @occurrences (PfprofEvidence, borrowed; NULL for
 * none) in @severity's colour along the strip, and @current (one of them,
 * or NULL) strongest: where the selected finding strikes in the run. */
void pfprof_overview_set_occurrences (PfprofOverview *self,
                                      const GArray *occurrences /* nullable */,
                                      const PfprofEvidence *current /* nullable */,
                                      PfprofSeverity severity);

/* How many pixel columns of the strip mark an occurrence (tests). */
guint pfprof_overview_n_marked_columns (PfprofOverview *self);

G_END_DECLS
