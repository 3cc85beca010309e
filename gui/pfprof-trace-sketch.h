/* SPDX-License-Identifier: MIT */
/* pfprof-trace-sketch.h: what a trace's chunk index says of it, shown
 * while the trace loads.
 *
 * A trace of format 2 stores its events in chunks of a few thousand,
 * each row of the `chunks` table saying how many records it holds and
 * the span they cover (pfprof_trace_reader_chunk_spans()). Reading those
 * rows takes milliseconds where decoding and laying out the events of a
 * big trace take seconds, so the window draws them first: per kind of
 * event the timeline draws, how many events each stretch of time holds,
 * a chunk's records spread evenly over its span. A density, never an
 * event; the timeline replaces it when the load is done. */
#pragma once

#include <glib.h>

#include "pfprof-renderer.h"
#include "pfprof-trace-schema.h"

G_BEGIN_DECLS

typedef struct
{
  PfprofTableId table;
  PfprofItemClass cls;  /* the colour its events are drawn in */
  const char *label;    /* "Kernels", "CUDA API calls"... */
  guint64 n;            /* records */
} PfprofTraceSketchRow;

typedef struct
{
  gint64 start_ns;      /* the earliest start and latest end of all chunks */
  gint64 end_ns;
  GArray *rows;         /* PfprofTraceSketchRow, in table order, n > 0 only */
  GArray *spans;        /* PfprofTraceChunkSpan of those rows' tables */
} PfprofTraceSketch;

/* The sketch of the trace at @path; NULL when there is nothing to draw
 * (a format-1 trace, no events of a kind the timeline draws, a trace
 * being written: a WAL beside it) and NULL with @error set when it is
 * not a readable trace. */
PfprofTraceSketch *pfprof_trace_sketch_new (const char *path, GError **error);

void pfprof_trace_sketch_free (PfprofTraceSketch *sketch);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PfprofTraceSketch, pfprof_trace_sketch_free)

/* Fills @bins (@n_bins of them, over [@t0, @t1)) with the records of
 * row @row in each, every chunk's records spread evenly over its span. */
void pfprof_trace_sketch_density (const PfprofTraceSketch *sketch, guint row, gint64 t0, gint64 t1,
                                  double *bins, guint n_bins);

G_END_DECLS
