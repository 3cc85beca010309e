/* SPDX-License-Identifier: MIT */
/* pfprof-measure.h: what a time interval of the timeline holds.
 *
 * Selecting an interval (drag on the time ruler, or Shift+drag on the
 * rows) measures it: its length, how long a GPU ran something in it (the
 * union of kernels, copies and memsets of every stream of every GPU, so
 * overlapping work counts once), the idle rest, and how many kernels and
 * copies it touches (an event counts when any part of it lies inside).
 * Markers (M) are the intervals and instants a person kept; they are
 * drawn over the timeline with the selection's length on the ruler. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "pfprof-renderer.h"
#include "pfprof-timeline.h"

G_BEGIN_DECLS

typedef struct
{
  gint64 t0, t1;         /* the interval */
  gint64 gpu_busy_ns;    /* some GPU ran work, clipped to the interval */
  gint64 copy_ns;        /* some copy ran (union), clipped */
  guint64 n_kernels;
  guint64 n_copies;
  guint64 copy_bytes;
  guint64 n_memsets;
} PfprofMeasure;

/* Measures [@t0, @t1) of @timeline into @out. */
void pfprof_measure_compute (const PfprofTimeline *timeline /* nullable */, gint64 t0, gint64 t1,
                             PfprofMeasure *out);

/* "12.3 ms selected (from +1.52 s): GPU busy 10.1 ms (82.0%), idle 2.20
 * ms; 340 kernels, 12 copies (38.5 MiB, 9.64 ms), 2 memsets", times from
 * @origin_ns. New string. */
char *pfprof_measure_describe (const PfprofMeasure *m, gint64 origin_ns);

/* A marker: an instant (t0 == t1) or an interval. */
typedef struct
{
  gint64 t0, t1;
} PfprofMarker;

/* Draws @markers (PfprofMarker) and, when @view has a range, its length
 * on the ruler, over a frame the renderer drew for @view. */
void pfprof_measure_draw (cairo_t *cr, const PfprofRenderView *view,
                          const GArray *markers /* nullable */);

G_END_DECLS
