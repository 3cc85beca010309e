/* SPDX-License-Identifier: MIT */
/* pfprof-sketch-view.h: a trace's sketch (pfprof-trace-sketch.h) drawn
 * on the loading page: a strip per kind of event, each column shaded by
 * how many events the chunk index puts there, under a line saying that
 * this is a density and that the timeline follows. */
#pragma once

#include <gtk/gtk.h>

#include "pfprof-trace-sketch.h"

G_BEGIN_DECLS

#define PFPROF_TYPE_SKETCH_VIEW (pfprof_sketch_view_get_type ())
G_DECLARE_FINAL_TYPE (PfprofSketchView, pfprof_sketch_view, PFPROF, SKETCH_VIEW, GtkDrawingArea)

/* Signals:
 *   "first-frame": the first frame with a sketch was drawn. */

GtkWidget *pfprof_sketch_view_new (void);

/* Shows @sketch (taken; NULL clears and hides the view). */
void pfprof_sketch_view_set_sketch (PfprofSketchView *self, PfprofTraceSketch *sketch /* nullable */);

/* The sketch shown, or NULL. */
const PfprofTraceSketch *pfprof_sketch_view_get_sketch (PfprofSketchView *self);

/* Frames drawn with a sketch since the last set_sketch(). */
guint pfprof_sketch_view_n_frames (PfprofSketchView *self);

/* Whether dark colours are used. */
void pfprof_sketch_view_set_dark (PfprofSketchView *self, gboolean dark);

G_END_DECLS
