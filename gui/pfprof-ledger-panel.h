/* SPDX-License-Identifier: MIT */
/* pfprof-ledger-panel.h: the step ledger in the side panel.
 *
 * Where the steady steps' GPU time went (analyzer/diagnose/pfprof-step-ledger.h):
 * steps/s, the mean and the median step, then each bucket with its mean,
 * its share of the mean step and its value in the step of median length,
 * in the words and figures of `pfprof report` (the bucket labels of the
 * ledger, base/'s formatter, the same rows left out). With no finding
 * selected it ends with what every fix together predicts; with one, the
 * buckets its saving comes out of are marked and it ends with what that
 * fix alone predicts. Hidden when the analysis found no steps. */
#pragma once

#include <gtk/gtk.h>

#include "pfprof-analysis.h"

G_BEGIN_DECLS

#define PFPROF_TYPE_LEDGER_PANEL (pfprof_ledger_panel_get_type ())
G_DECLARE_FINAL_TYPE (PfprofLedgerPanel, pfprof_ledger_panel, PFPROF, LEDGER_PANEL, GtkBox)

GtkWidget *pfprof_ledger_panel_new (void);

/* Shows the ledger of @analysis (borrowed; NULL hides the panel). */
void pfprof_ledger_panel_set_analysis (PfprofLedgerPanel *self,
                                       const PfprofAnalysis *analysis /* nullable */);

/* Marks the buckets of @finding (NULL: the summary again). */
void pfprof_ledger_panel_set_finding (PfprofLedgerPanel *self, const PfprofFinding *finding);

/* What the panel shows, one line per row, cells separated by tabs:
 * the headline, the bucket rows ("compute\t27.3 ms\t73.2%\t27.8 ms",
 * with "\t*" after a bucket of the selected finding), the note. New
 * string; "" when hidden. */
char *pfprof_ledger_panel_get_text (PfprofLedgerPanel *self);

G_END_DECLS
