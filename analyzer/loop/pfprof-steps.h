/* SPDX-License-Identifier: MIT */
/* pfprof-steps.h: finding training steps and warm-up in one trace.
 *
 * Steps come from, in order of preference:
 *   1. NVTX ranges whose name matches the step pattern (outermost ones,
 *      on the thread that has most of them);
 *   2. the launcher's DataLoader waits (NVTX domain "pfprof", range
 *      "DataLoader.next"): each wait begins a step;
 *   3. the periodic structure of the GPU work: the kernel name that
 *      recurs most often (three times or more, through at least half the
 *      span of the GPU work) at a regular interval marks each step's
 *      start.
 * Warm-up: the first step (allocator pools, autotuning, lazy module
 * loading) and any following steps longer than 1.5 times the median of
 * the second half, up to half the steps; or a fixed number from the
 * options. The steady window rules judge runs from the first step after
 * warm-up to the end of the last step; with no steps, from 10% into the
 * span of GPU work to its end.
 */
#pragma once

#include <glib.h>

#include "pfprof-loop.h"

G_BEGIN_DECLS

/* Appends the steps of @loop's trace to @steps (PfprofStep, time order),
 * marks phases and warm-up, and fills @loop's step fields and steady
 * window (pfprof_loop_new() calls it). */
void pfprof_steps_detect (PfprofLoop *loop, const PfprofLoopOptions *options, GArray *steps);

/* Makes @judge's steps the steady ones: marks which of @loop's steps in
 * @steps (the array pfprof_loop_new() filled) are judged, and sets the
 * loop's steady count, median and window over those after warm-up. The
 * steps, their phases, warm-up and measures stay as found, so an analysis
 * can judge another phase of the same loop and then put the first back. */
void pfprof_steps_judge (PfprofLoop *loop, PfprofLoopJudge judge, GArray *steps);

/* Fills the breakdown fields (data wait, copy, compute, sync, idle) and
 * the ledger of @step from @loop's trace. */
void pfprof_steps_breakdown (const PfprofLoop *loop, PfprofStep *step);

/* The device whose work the step breakdown measures: the one with the
 * most kernels, or NULL when the trace has no GPU work. */
const PfprofDeviceTimeline *pfprof_steps_primary_device (const PfprofTraceIndex *ix);

G_END_DECLS
