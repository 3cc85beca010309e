/* SPDX-License-Identifier: MIT */
/* pfprof-details-panel.h: the side panel's "Details": what the event
 * clicked on the timeline is (name, GPU and stream, sizes, the call that
 * launched it), or a hint to click one. Names come from the traced
 * program, so they are shown as plain text, never markup. */
#pragma once

#include <gtk/gtk.h>

#include "pfprof-timeline.h"

G_BEGIN_DECLS

#define PFPROF_TYPE_DETAILS_PANEL (pfprof_details_panel_get_type ())
G_DECLARE_FINAL_TYPE (PfprofDetailsPanel, pfprof_details_panel, PFPROF, DETAILS_PANEL, GtkBox)

GtkWidget *pfprof_details_panel_new (void);

/* Shows event @ref of row @row_index of @timeline (borrowed, only read
 * here), its times to the precision of @resolution_ns (what a pixel of
 * the timeline spans at its zoom); @row_index -1 or @timeline NULL shows
 * the hint. */
void pfprof_details_panel_show_event (PfprofDetailsPanel *self,
                                      PfprofTimeline *timeline /* nullable */, int row_index,
                                      guint ref,
                                      gint64 resolution_ns);

/* The text shown. */
const char *pfprof_details_panel_get_text (PfprofDetailsPanel *self);

G_END_DECLS
