/* SPDX-License-Identifier: MIT */
/* pfprof-run.h: the traces of one run, on one time axis, read-only.
 *
 * A run is what `pfprof report a.pfprof b.pfprof` is given: one trace per
 * profiled process (one per rank of a distributed job, or a single one).
 * pfprof_run_new() takes the loaded traces over and prepares them once:
 *
 *   1. clock alignment (pfprof-clock-align.h): the traces of several hosts
 *      are moved onto the reference host's clock, and PfprofTrace.clock_*
 *      say by how much;
 *   2. out-of-range events set aside: events whose times lie ~39 hours or
 *      more from the rest of their trace, or beyond ±2^62 ns, are removed
 *      and counted (pfprof_run_n_out_of_range()), so that no difference or
 *      sum of the times that remain can overflow.
 *
 * After that nothing changes the traces: the analysis, the timeline, the
 * exports and the GUI all read the same records, from as many threads as
 * they like, and share one run by reference.
 *
 * Alignment moves the records themselves, once, rather than leaving them
 * as recorded and adding an offset wherever a time is read: every reader
 * above (the index, the rules, the timeline, the exports) reads times
 * straight out of the record arrays and binary-searches them, a
 * collectives fit with a drift is not one constant per trace, and an
 * offset applied on read would have to be remembered at each of those
 * places. The offset each trace was moved by stays readable
 * (pfprof_run_clock_offset()), so the recorded time of an event is its
 * time minus that offset (exactly, unless the collectives measured a
 * drift). GLib only.
 */
#pragma once

#include <glib.h>

#include "pfprof-clock-align.h"
#include "pfprof-trace.h"

G_BEGIN_DECLS

typedef struct _PfprofRun PfprofRun;

/* A run of @traces (PfprofTrace*, in the order given; may be empty), which
 * it takes over with the array, aligned and trimmed as above. Never fails:
 * a trace that cannot be aligned is used as recorded
 * (PFPROF_CLOCK_UNALIGNED). Free with pfprof_run_unref(). */
PfprofRun *pfprof_run_new (GPtrArray *traces);

PfprofRun *pfprof_run_ref (PfprofRun *run);
void pfprof_run_unref (PfprofRun *run);

/* The traces, in the order given: a borrowed array, valid as long as the
 * run; neither it nor the traces may be changed. */
GPtrArray *pfprof_run_get_traces (const PfprofRun *run);

guint pfprof_run_n_traces (const PfprofRun *run);

/* Trace @index (< pfprof_run_n_traces()); borrowed. */
const PfprofTrace *pfprof_run_get_trace (const PfprofRun *run, guint index);

/* What was added to every time of trace @index to align it (0 when its
 * times are used as recorded), and how it was aligned. */
gint64 pfprof_run_clock_offset (const PfprofRun *run, guint index);
PfprofClockAlignment pfprof_run_clock_alignment (const PfprofRun *run, guint index);

/* How many traces of a run over several hosts could not be aligned. */
guint pfprof_run_n_unaligned (const PfprofRun *run);

/* Events of trace @index set aside as out of range. */
guint64 pfprof_run_n_out_of_range (const PfprofRun *run, guint index);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PfprofRun, pfprof_run_unref)

G_END_DECLS
