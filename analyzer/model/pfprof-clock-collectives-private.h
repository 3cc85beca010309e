/* SPDX-License-Identifier: MIT */
/* pfprof-clock-collectives-private.h: how far apart two hosts' clocks are,
 * measured on the collectives their ranks ran together.
 *
 * The clock triples (pfprof-clock-align.h) put every host on its wall
 * clock; hosts' wall clocks agree only as well as NTP or PTP keeps them
 * (NTP: a millisecond or so, which is the length of a whole copy or
 * all-reduce). The trace itself holds a finer reference: a symmetric
 * collective (all-reduce, all-gather, reduce-scatter) cannot finish on
 * any rank before the last rank's data has arrived, so each rank's kernel
 * of one collective ends within a network hop of the others'. Pairing
 * the n-th such NCCL kernel of one rank with the n-th of another gives
 * one measurement of their clock difference per collective; the median
 * of many is the offset, and a line through them the drift.
 *
 * Broadcast, reduce, send/recv and the "Generic" kernels are left out:
 * their root or sender may finish long before the others, so their ends
 * say nothing about the clocks.
 *
 * Measured on two H200 ranks of one host (where the true offset is 0):
 * 128 all-reduces, median end difference 7.4 us (one run) and 5.7 us
 * (another), half of them within 3.5-4.1 us of it. That is the precision
 * to expect on NVLink; across a network it is about one network hop.
 *
 * Private to model/: only the clock alignment (pfprof-clock-align.c) and
 * its tests use it; everything else reads the result from PfprofRun.
 */
#pragma once

#include <glib.h>

#include "pfprof-trace.h"

G_BEGIN_DECLS

typedef struct
{
  guint n_matched;   /* collectives paired by order and name */
  guint n_used;      /* those the fit used (the others were outliers) */
  gint64 pivot_ns;   /* a time in the reference's clock (mean of the used ends) */
  gint64 offset_ns;  /* other's clock minus reference's, at pivot_ns */
  double drift;      /* change of that difference per ns (1e-6 = 1 ppm); 0
                      * unless a drift showed above the jitter */
  gint64 spread_ns;  /* median |residual| of the used pairs after the fit */
} PfprofClockFit;

/* The minimum of paired collectives for a fit: fewer cannot tell an
 * outlier from the offset. */
#define PFPROF_CLOCK_FIT_MIN_PAIRS 8

/* TRUE when @name is a kernel of a symmetric collective of NCCL (or
 * RCCL): an all-reduce, all-gather or reduce-scatter, whatever NCCL's
 * naming generation ("ncclDevKernel_AllReduce_Sum_f32_RING_LL",
 * "ncclKernel_AllGather_RING_LL_Sum_int8_t",
 * "ncclAllReduceRingLLKernel_sum_f32", Itanium-mangled or after "void ").
 * FALSE for NULL. */
gboolean pfprof_kernel_name_is_symmetric_collective (const char *name);

/* Measures the clock of @other against @reference (two traces of one run,
 * usually on two hosts) from their symmetric collective kernels. The
 * kernels are paired in order of start, allowing for a few missing at
 * either end (a recording that started later or ended earlier): of the
 * pairings whose names agree for 90% or more, the one whose end
 * differences agree best wins. FALSE, leaving *@fit zeroed, when either
 * trace has fewer than PFPROF_CLOCK_FIT_MIN_PAIRS such kernels, when no
 * pairing's names agree, or when the end differences scatter by more
 * than a millisecond (then these are not the same collectives). */
gboolean pfprof_clock_collectives_fit (const PfprofTrace *reference, const PfprofTrace *other,
                                       PfprofClockFit *fit);

/* The correction of @fit at time @t (in @other's clock, already moved by
 * the triples): subtract it from @t to put @t in the reference's clock. */
gint64 pfprof_clock_fit_at (const PfprofClockFit *fit, gint64 t);

G_END_DECLS
