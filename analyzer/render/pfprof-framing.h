/* SPDX-License-Identifier: MIT */
/* pfprof-framing.h: the range a timeline opens on.
 *
 * A run's start-up (imports, cudaMalloc, the first compiles, the
 * DataLoader's workers starting) often takes most of its length, and the
 * steady steps the findings are about then fill a sliver of a whole-run
 * view. `pfprof render` and pfprof-view both open on the steady state: the
 * steady windows the analysis judged (PfprofTraceSummary.steady_start_ns
 * to steady_end_ns, from the end of the warm-up steps), over every trace
 * with steady steps. */
#pragma once

#include <glib.h>

#include "pfprof-analysis.h"

G_BEGIN_DECLS

/* The union of @analysis's steady windows, with a margin of 1% of its
 * span either side, in *@t0 and *@t1. FALSE (and the outputs left as they
 * are) when no trace has steady steps: then the whole run is the view. */
gboolean pfprof_framing_steady (const PfprofAnalysis *analysis, gint64 *t0, gint64 *t1);

G_END_DECLS
