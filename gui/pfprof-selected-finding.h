/* SPDX-License-Identifier: MIT */
/* pfprof-selected-finding.h: the side panel's part for the finding
 * selected in the list: its title and message, the occurrence navigator
 * (previous / "Occurrence N of M · cost" / next over every occurrence,
 * costliest first or, with the "By time" toggle (win.occurrence-by-time),
 * in time order, through the window's win.previous-occurrence and
 * win.next-occurrence actions), the user's
 * Python lines behind it (PfprofFinding.sites) when the trace has them,
 * and its fix: code in a monospace view that scrolls rather than wraps,
 * with a Copy button. Hidden while no finding is selected. */
#pragma once

#include <gtk/gtk.h>

#include "pfprof-analysis.h"

G_BEGIN_DECLS

#define PFPROF_TYPE_SELECTED_FINDING (pfprof_selected_finding_get_type ())
G_DECLARE_FINAL_TYPE (PfprofSelectedFinding, pfprof_selected_finding, PFPROF, SELECTED_FINDING, GtkBox)

GtkWidget *pfprof_selected_finding_new (void);

/* Shows @finding (its texts are copied), or hides the panel for NULL. */
void pfprof_selected_finding_set_finding (PfprofSelectedFinding *self,
                                          const PfprofFinding *finding /* nullable */);

/* Says that occurrence @n (from 0, costliest first, or in time order
 * when @by_time) of @total is shown, and what it cost (@cost_ns) with its
 * share of the finding's time (@finding_ns), as the reports word it; @n
 * -1: the finding has none on the timeline. */
void pfprof_selected_finding_set_occurrence (PfprofSelectedFinding *self, int n, guint total,
                                             gboolean by_time, gint64 cost_ns, gint64 finding_ns);

/* The navigator's text. */
const char *pfprof_selected_finding_get_occurrence_text (PfprofSelectedFinding *self);

/* The Python call sites shown, one a line ("" for none). */
const char *pfprof_selected_finding_get_sites_text (PfprofSelectedFinding *self);

/* The fix's view. */
GtkTextView *pfprof_selected_finding_get_fix_view (PfprofSelectedFinding *self);

G_END_DECLS
