/* SPDX-License-Identifier: MIT */
/* pfprof-report-html.h: `pfprof report --format html`, one self-contained
 * page for CI artifacts.
 *
 * The summary, the findings with their fixes, a per-step breakdown chart
 * (data wait, exposed copy, compute, sync, idle) and the timeline of a
 * representative step with the findings marked, drawn by the renderer as
 * inline SVG. No script, no stylesheet or image fetched from anywhere:
 * the file opens the same offline. The timeline comes from render/, which
 * is why report/ sits above analyzer/render/. */
#pragma once

#include <glib.h>

#include "pfprof-analysis.h"
#include "pfprof-report.h"

G_BEGIN_DECLS

/* Appends the HTML report of @analysis to @out (@options: top only). */
void pfprof_report_html (const PfprofAnalysis *analysis, const PfprofReportOptions *options, GString *out);

G_END_DECLS
