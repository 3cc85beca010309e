/* SPDX-License-Identifier: MIT */
/* pfprof-clock-align.h: several traces on one time axis.
 *
 * Every event time of a trace is in the CUPTI clock of its process. The
 * processes of one host share that clock (on Linux CUPTI's timestamps
 * follow CLOCK_REALTIME), so their traces line up as they are. Traces
 * of several hosts do not: each host's clock has its own error, and
 * CUPTI's clock need not be the wall clock. The collector stores a clock
 * triple when recording starts (meta clock_start_cupti_ns,
 * clock_start_realtime_ns, clock_start_monotonic_ns, read back to back),
 * which gives each trace the offset from its CUPTI clock to its host's
 * wall clock (REALTIME - CUPTI). Aligning moves every trace of another
 * host onto the wall clock, expressed in the reference host's CUPTI
 * clock (the host of rank 0, or of the lowest rank given; without
 * ranks, of the first trace that has a triple):
 *
 *   t' = t + (REALTIME - CUPTI)[its host] - (REALTIME - CUPTI)[reference host]
 *
 * One offset per host, from that host's first trace with a triple, so
 * traces of one host keep exactly the clock they share. The result is as
 * good as the hosts' wall clocks agree (NTP: about a millisecond,
 * often better on a LAN; PTP: about a microsecond) plus the few
 * microseconds between the triple's reads. (On Linux CUPTI's clock is the
 * wall clock, so the triples of one process cannot see its host's wall
 * clock drift; the end triple only checks that.)
 *
 * Then the collectives refine it: where the ranks of another host ran
 * all-reduces (all-gathers, reduce-scatters) with the reference host's,
 * the ends of those kernels measure that host's remaining error, and its
 * drift over the run, to microseconds (pfprof-clock-collectives-private.h). A
 * trace without a usable triple is aligned that way alone when it can
 * be.
 */
#pragma once

#include <glib.h>

#include "pfprof-trace.h"

G_BEGIN_DECLS

typedef enum
{
  PFPROF_CLOCK_SHARED = 0,   /* one host (or one trace): times used as recorded */
  PFPROF_CLOCK_ALIGNED = 1,  /* shifted by PfprofTrace.clock_offset_ns (may be 0) */
  PFPROF_CLOCK_UNALIGNED = 2, /* several hosts, but this trace has no usable
                               * clock triple or host name, nor collectives
                               * to measure it by: used as recorded */
  PFPROF_CLOCK_COLLECTIVES = 3 /* moved by the triples (if any) and then by
                                * the collectives it shares with the
                                * reference host (PfprofTrace.clock_*) */
} PfprofClockAlignment;

/* "shared", "aligned", "unaligned", "collectives". */
const char *pfprof_clock_alignment_to_string (PfprofClockAlignment alignment);

/* Reads the start triple of @trace: *@offset_ns = clock_start_realtime_ns
 * - clock_start_cupti_ns. FALSE when a key is missing, not an integer,
 * or the offset is beyond ±2^52 ns (~52 days: no real clock is that far
 * off; a hostile value must not push times out of range). */
gboolean pfprof_clock_wall_offset (const PfprofTrace *trace, gint64 *offset_ns);

/* Aligns @traces (PfprofTrace*) when their meta "host" names two or more
 * hosts: moves every event time of each trace as described above, sets
 * clock_offset_ns, clock_alignment and, when the collectives refined it,
 * the other clock_* fields of PfprofTrace, and re-sorts nothing (a
 * shift, or a drift far below 1, keeps every table's order). With one
 * host, or fewer than two traces, leaves the times alone
 * (PFPROF_CLOCK_SHARED). Returns the number of traces that could not be
 * aligned. pfprof_run_new() calls it once, when the run is made; called
 * again on traces it moved, it would move them again. */
guint pfprof_clock_align (GPtrArray *traces /* nullable */);

/* One sentence on how @trace was moved, for reports ("host h: times
 * moved +1.00 ms onto the reference host's clock (clock triples)", with the
 * collectives' part, precision and drift when they refined it; "not
 * aligned ..." when it could not be), or NULL when it was not moved. The
 * host name is untrusted text: escape the result for the output format.
 * Free with g_free. */
char *pfprof_clock_describe (const PfprofTrace *trace);

G_END_DECLS
