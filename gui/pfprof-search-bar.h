/* SPDX-License-Identifier: MIT */
/* pfprof-search-bar.h: search over the names on the timeline
 * (pfprof-search.h), as Perfetto's omnibox and Nsight Systems' Find do.
 *
 * Ctrl+F anywhere in the window, or `/` on the timeline, opens it; typing
 * searches; Enter or F3 goes to the next match, Shift+Enter or Shift+F3
 * to the previous one (wrapping around), Escape closes it. The match is
 * selected on the timeline, its row scrolled into view and the view moved
 * (and zoomed in, when the event would be a sliver) to show it; the count
 * says "3 of 148". A finding that matches is handed to whoever shows
 * findings ("finding-activated"). */
#pragma once

#include <gtk/gtk.h>

#include "pfprof-timeline-widget.h"

G_BEGIN_DECLS

#define PFPROF_TYPE_SEARCH_BAR (pfprof_search_bar_get_type ())
G_DECLARE_FINAL_TYPE (PfprofSearchBar, pfprof_search_bar, PFPROF, SEARCH_BAR, GtkBox)

/* Signals:
 *   "finding-activated" (int index): the current match is finding @index
 *       (in analysis->findings). */

GtkWidget *pfprof_search_bar_new (void);

/* Searches what @timeline shows (borrowed; it outlives the bar's use). */
void pfprof_search_bar_set_timeline_widget (PfprofSearchBar *self, PfprofTimelineWidget *timeline);

/* Opens the bar and puts the keyboard focus in its entry. */
void pfprof_search_bar_open (PfprofSearchBar *self);

gboolean pfprof_search_bar_is_open (PfprofSearchBar *self);

/* Searches again, when the bar is open, if what the timeline shows
 * changed: its analysis arrived (findings to match). */
void pfprof_search_bar_update (PfprofSearchBar *self);

/* Goes to the next (@delta 1) or previous (-1) match. */
void pfprof_search_bar_step (PfprofSearchBar *self, int delta);

/* The entry, and the count shown ("3 of 148", "No matches", ""). */
GtkEditable *pfprof_search_bar_get_entry (PfprofSearchBar *self);
const char *pfprof_search_bar_get_count (PfprofSearchBar *self);

G_END_DECLS
