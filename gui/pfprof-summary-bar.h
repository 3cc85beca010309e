/* SPDX-License-Identifier: MIT */
/* pfprof-summary-bar.h: the line above the timeline that sums the run
 * up: per GPU its copy/compute overlap and the median exposed copy and
 * idle time per step, then the median step; or what is going on while
 * the analysis runs. */
#pragma once

#include <gtk/gtk.h>

#include "pfprof-analysis.h"

G_BEGIN_DECLS

#define PFPROF_TYPE_SUMMARY_BAR (pfprof_summary_bar_get_type ())
G_DECLARE_FINAL_TYPE (PfprofSummaryBar, pfprof_summary_bar, PFPROF, SUMMARY_BAR, GtkBox)

GtkWidget *pfprof_summary_bar_new (void);

/* Sums up @analysis (only read here). */
void pfprof_summary_bar_set_analysis (PfprofSummaryBar *self, const PfprofAnalysis *analysis);

/* Shows @text instead. */
void pfprof_summary_bar_set_text (PfprofSummaryBar *self, const char *text);

const char *pfprof_summary_bar_get_text (PfprofSummaryBar *self);

G_END_DECLS
