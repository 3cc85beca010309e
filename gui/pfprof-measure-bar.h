/* SPDX-License-Identifier: MIT */
/* pfprof-measure-bar.h: the line under the timeline that says what the
 * selected interval holds (pfprof-measure.h) and how many markers are
 * set; hidden while nothing is selected and no marker is set. */
#pragma once

#include <gtk/gtk.h>

#include "pfprof-timeline-widget.h"

G_BEGIN_DECLS

#define PFPROF_TYPE_MEASURE_BAR (pfprof_measure_bar_get_type ())
G_DECLARE_FINAL_TYPE (PfprofMeasureBar, pfprof_measure_bar, PFPROF, MEASURE_BAR, GtkBox)

GtkWidget *pfprof_measure_bar_new (void);

/* Follows the selection of @timeline (borrowed; it outlives the bar's use). */
void pfprof_measure_bar_set_timeline_widget (PfprofMeasureBar *self, PfprofTimelineWidget *timeline);

/* The line shown ("" when hidden). */
const char *pfprof_measure_bar_get_text (PfprofMeasureBar *self);

G_END_DECLS
