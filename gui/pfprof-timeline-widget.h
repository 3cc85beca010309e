/* SPDX-License-Identifier: MIT */
/* pfprof-timeline-widget.h: the GTK widget that shows a PfprofTimeline.
 *
 * Draws through render/ (the same code as `pfprof render`) and adds the
 * navigation people know from Perfetto and Nsight Systems: Ctrl+scroll or
 * pinch zooms around the pointer, drag or scroll pans (never before the
 * trace's start), W/S zoom, A/D pan; a drag on the time ruler or
 * Shift+drag on the rows selects an interval (measured: pfprof-measure.h),
 * F (or Z) focuses the selection or the selected event, 0 fits all, M
 * marks the selection or the instant under the pointer (Shift+M removes
 * the markers), Escape or a click
 * clears the selection; a click selects an event or toggles a group;
 * hovering an event shows its name, duration and row (stream or thread)
 * in a tooltip.
 */
#pragma once

#include <gtk/gtk.h>

#include "pfprof-renderer.h"
#include "pfprof-timeline.h"

G_BEGIN_DECLS

#define PFPROF_TYPE_TIMELINE_WIDGET (pfprof_timeline_widget_get_type ())
G_DECLARE_FINAL_TYPE (PfprofTimelineWidget, pfprof_timeline_widget, PFPROF, TIMELINE_WIDGET, GtkWidget)

/* Signals:
 *   "event-selected" (int row, guint ref): a click selected event @ref of
 *       row @row (row -1: the selection was cleared).
 *   "view-changed": the visible range or scroll changed.
 *   "first-frame": the first frame with a timeline was drawn.
 *   "selection-changed": the selected interval was set or cleared.
 *   "markers-changed": a marker was added, or the markers cleared.
 *   "timeline-changed": another timeline (or none) is shown. */

GtkWidget *pfprof_timeline_widget_new (void);

/* Shows @timeline (borrowed; NULL to clear) over its whole range. */
void pfprof_timeline_widget_set_timeline (PfprofTimelineWidget *self,
                                          PfprofTimeline *timeline /* nullable */);

/* The view state: visible range, selection, scroll. Read-only. */
const PfprofRenderView *pfprof_timeline_widget_get_view (PfprofTimelineWidget *self);

/* Shows [@t0, @t1] (clamped to something sensible) and redraws. */
void pfprof_timeline_widget_set_range (PfprofTimelineWidget *self, gint64 t0, gint64 t1);

/* The timeline shown, or NULL. */
PfprofTimeline *pfprof_timeline_widget_get_timeline (PfprofTimelineWidget *self);

/* Shows the whole timeline. */
void pfprof_timeline_widget_fit_all (PfprofTimelineWidget *self);

/* Zooms by @factor (< 1 zooms in) around time @center. */
void pfprof_timeline_widget_zoom (PfprofTimelineWidget *self, double factor, gint64 center);

/* Marks finding @finding (-1 for none) and its occurrence @evidence. */
void pfprof_timeline_widget_select_finding (PfprofTimelineWidget *self, int finding, int evidence);

/* Outlines @start..@end on row @row (-1: nothing) as the selected
 * finding's occurrence in focus, for one that is none of its evidence. */
void pfprof_timeline_widget_set_focus (PfprofTimelineWidget *self, int row, gint64 start, gint64 end);

/* Selects event @ref on @row (-1 to clear), with the link from the call
 * that launched it; emits "event-selected". */
void pfprof_timeline_widget_select_event (PfprofTimelineWidget *self, int row, PfprofEventRef ref);

/* The selected interval: FALSE when there is none. */
gboolean pfprof_timeline_widget_get_selection (PfprofTimelineWidget *self,
                                               gint64 *t0 /* nullable */,
                                               gint64 *t1 /* nullable */);

/* Selects [@t0, @t1] (empty to clear); emits "selection-changed". */
void pfprof_timeline_widget_set_selection (PfprofTimelineWidget *self, gint64 t0, gint64 t1);

/* Zooms to the selected interval, else around the selected event; FALSE
 * when neither is there. */
gboolean pfprof_timeline_widget_focus (PfprofTimelineWidget *self);

/* Adds a marker over [@t0, @t1] (@t0 == @t1: an instant). Markers stay
 * until another timeline is shown. */
void pfprof_timeline_widget_add_marker (PfprofTimelineWidget *self, gint64 t0, gint64 t1);

/* Removes every marker (Shift+M). */
void pfprof_timeline_widget_clear_markers (PfprofTimelineWidget *self);

/* The markers (PfprofMarker, pfprof-measure.h), in the order they were set. */
const GArray *pfprof_timeline_widget_get_markers (PfprofTimelineWidget *self);

/* Scrolls so that @row is shown. */
void pfprof_timeline_widget_scroll_to_row (PfprofTimelineWidget *self, int row);

/* What the tooltip at widget point (@x, @y) says: "name\nduration ·
 * row", or NULL where there is no event. New string. */
char *pfprof_timeline_widget_describe_at (PfprofTimelineWidget *self, double x, double y);

/* Whether dark colours are used. */
void pfprof_timeline_widget_set_dark (PfprofTimelineWidget *self, gboolean dark);

/* Microseconds the last pfprof_renderer_draw() took (wall clock, and CPU
 * time of the drawing thread), and frames drawn. */
gint64 pfprof_timeline_widget_last_draw_us (PfprofTimelineWidget *self);
gint64 pfprof_timeline_widget_last_draw_cpu_us (PfprofTimelineWidget *self);
guint pfprof_timeline_widget_n_frames (PfprofTimelineWidget *self);

G_END_DECLS
