/* SPDX-License-Identifier: MIT */
/* pfprof-view-window.h: the main window of pfprof-view.
 *
 * Header bar (open, recent files, fit all, menu), a summary bar, the
 * overview strip, the search bar, the timeline (opened on the steady
 * state: analyzer/render/pfprof-framing.h) with the measurement of its selection
 * under it, and a side panel with the findings (by severity, then
 * estimated savings), the selected finding's occurrences and fix, the
 * step ledger, and the details of a clicked event. Loads off the main thread;
 * a file that cannot be read gives an error dialog and leaves the window
 * as it was. */
#pragma once

#include <gtk/gtk.h>

#include "pfprof-findings-panel.h"
#include "pfprof-ledger-panel.h"
#include "pfprof-measure-bar.h"
#include "pfprof-search-bar.h"
#include "pfprof-occurrence-navigator.h"
#include "pfprof-overview.h"
#include "pfprof-selected-finding.h"
#include "pfprof-sketch-view.h"
#include "pfprof-timeline-widget.h"
#include "pfprof-view-loader.h"
#include "pfprof-view-preload.h"

G_BEGIN_DECLS

#define PFPROF_TYPE_VIEW_WINDOW (pfprof_view_window_get_type ())
G_DECLARE_FINAL_TYPE (PfprofViewWindow, pfprof_view_window, PFPROF, VIEW_WINDOW, GtkApplicationWindow)

/* Signals:
 *   "loaded" (gboolean ok): a load finished (FALSE: it failed and the
 *       error dialog is up).
 *   "followed": a trace being recorded grew, and its reload is shown
 *       (pfprof-view-follow.h). */

PfprofViewWindow *pfprof_view_window_new (GtkApplication *app);

/* Opens @files (traces of one run, shown together). */
void pfprof_view_window_open (PfprofViewWindow *self, GFile **files, int n_files);

/* As pfprof_view_window_open(), with the load @preload began (of the
 * traces whose first is @first_path): it takes it over. */
void pfprof_view_window_open_preloaded (PfprofViewWindow *self, PfprofViewPreload *preload,
                                        const char *first_path);

/* What is shown now; NULL before a successful load. */
PfprofViewLoaded *pfprof_view_window_get_loaded (PfprofViewWindow *self);

PfprofTimelineWidget *pfprof_view_window_get_timeline (PfprofViewWindow *self);

/* Selects the @n-th finding of the panel (panel order: severity, then
 * savings) and zooms to its costliest occurrence. FALSE if there is none. */
gboolean pfprof_view_window_select_finding (PfprofViewWindow *self, guint n);

/* Selects the first finding (in panel order) of rule @rule, as above. */
gboolean pfprof_view_window_select_rule (PfprofViewWindow *self, const char *rule);

/* Moves to the next (@delta 1) or previous (-1) occurrence, costliest
 * (longest) first or in time order, wrapping around. */
void pfprof_view_window_step_occurrence (PfprofViewWindow *self, int delta);

/* Steps through the occurrences in time order (@by_time) or costliest
 * first, as the "By time" toggle does, keeping the one shown. */
void pfprof_view_window_set_occurrence_order (PfprofViewWindow *self, gboolean by_time);

/* Opens @files in a new tab beside the traces shown (as
 * pfprof_view_window_open() does when nothing is shown): the tab strip in
 * the header bar switches the panels between them, each tab keeping its
 * view and selected finding. A tab whose load fails goes again. */
void pfprof_view_window_open_in_new_tab (PfprofViewWindow *self, GFile **files, int n_files);

/* Closes the tab shown, with its traces, and shows its neighbour, as
 * win.close-tab (Ctrl+W) does; FALSE for the last tab, or while a load
 * is on its way into a tab. */
gboolean pfprof_view_window_close_tab (PfprofViewWindow *self);

/* The tab strip (one page per trace set; shown from two on). Signal
 * "tab-switched": another tab's traces are shown. */
GtkNotebook *pfprof_view_window_get_tabs (PfprofViewWindow *self);

/* Whether the traces shown are being recorded and followed. */
gboolean pfprof_view_window_is_following (PfprofViewWindow *self);

/* The selected finding's occurrences and the one shown. */
PfprofOccurrenceNavigator *pfprof_view_window_get_navigator (PfprofViewWindow *self);

/* The overview strip. */
PfprofOverview *pfprof_view_window_get_overview (PfprofViewWindow *self);

/* The loading page's sketch of the trace being loaded. */
PfprofSketchView *pfprof_view_window_get_sketch_view (PfprofViewWindow *self);

/* The error dialog currently shown, or NULL. */
GtkWidget *pfprof_view_window_get_error_dialog (PfprofViewWindow *self);

/* The name of the page shown: "empty", "loading", "content", "no-gpu". */
const char *pfprof_view_window_get_page (PfprofViewWindow *self);

/* The summary bar's text. */
const char *pfprof_view_window_get_summary (PfprofViewWindow *self);

/* The recent traces menu (at most 10; a name two of them share is shown
 * with its folder). */
GMenuModel *pfprof_view_window_get_recent_menu (PfprofViewWindow *self);

/* The open dialog's filters (GtkFileFilter), the first for every format
 * pfprof reads: its own traces, Nsight Systems SQLite exports, Kineto
 * JSON (plain or gzipped). */
GListModel *pfprof_view_window_new_file_filters (void);

/* The index of the occurrence shown in the finding's occurrences
 * (pfprof_occurrence_navigator_get_all()), or -1. */
int pfprof_view_window_get_occurrence (PfprofViewWindow *self);

/* The panel of the selected finding. */
PfprofSelectedFinding *pfprof_view_window_get_selected_finding (PfprofViewWindow *self);

/* The list of findings. */
PfprofFindingsPanel *pfprof_view_window_get_findings_panel (PfprofViewWindow *self);

/* The search bar, the measurement line and the step ledger panel. */
PfprofSearchBar *pfprof_view_window_get_search_bar (PfprofViewWindow *self);
PfprofMeasureBar *pfprof_view_window_get_measure_bar (PfprofViewWindow *self);
PfprofLedgerPanel *pfprof_view_window_get_ledger_panel (PfprofViewWindow *self);

/* The details panel's text (event clicked). */
const char *pfprof_view_window_get_details (PfprofViewWindow *self);

G_END_DECLS
