/* SPDX-License-Identifier: MIT */
/* pfprof-findings-panel.h: the side panel's list of findings, in the
 * reports' order (largest estimated saving first), each with its
 * severity, rule, saving per mean step and number of occurrences; then
 * those of an evaluation phase judged on its own
 * (PfprofAnalysis.phase_findings), under the reports' heading, each
 * tagged "[evaluation]" with its saving per evaluation batch; "No
 * findings" when the analysis has none. A finding's index is its index
 * in analysis->findings, or past those, findings->len plus its index in
 * analysis->phase_findings. */
#pragma once

#include <gtk/gtk.h>

#include "pfprof-analysis.h"

G_BEGIN_DECLS

#define PFPROF_TYPE_FINDINGS_PANEL (pfprof_findings_panel_get_type ())
G_DECLARE_FINAL_TYPE (PfprofFindingsPanel, pfprof_findings_panel, PFPROF, FINDINGS_PANEL, GtkBox)

/* Signals:
 *   "finding-selected" (int index): the row of finding @index (in
 *       analysis->findings) was selected; -1: none is. */

GtkWidget *pfprof_findings_panel_new (void);

/* Lists the findings of @analysis (borrowed: it must outlive the panel's
 * use of it, or be replaced first); NULL empties the list. */
void pfprof_findings_panel_set_analysis (PfprofFindingsPanel *self,
                                         const PfprofAnalysis *analysis /* nullable */);

/* Selects the @n-th row (panel order) and scrolls to it. FALSE if there
 * is none. */
gboolean pfprof_findings_panel_select (PfprofFindingsPanel *self, guint n);

/* The finding of index @index, or NULL. */
const PfprofFinding *pfprof_findings_panel_get_finding (PfprofFindingsPanel *self, int index);

/* Whether finding @index is one of analysis->phase_findings: the
 * timeline marks only the training findings' evidence. */
gboolean pfprof_findings_panel_is_phase_finding (PfprofFindingsPanel *self, int index);

/* The index of the finding of row @n (panel order), or -1. */
int pfprof_findings_panel_index_at (PfprofFindingsPanel *self, guint n);

/* The row (panel order) of finding @index, or -1. */
int pfprof_findings_panel_row_of (PfprofFindingsPanel *self, int index);

/* Each row's line under its title (severity · rule · saving ·
 * occurrences), in panel order, one a line; "" without findings. */
char *pfprof_findings_panel_dup_rows_text (PfprofFindingsPanel *self);

/* The row (panel order) of the first finding of rule @rule, or -1. */
int pfprof_findings_panel_find_rule (PfprofFindingsPanel *self, const char *rule);

G_END_DECLS
