/* SPDX-License-Identifier: MIT */
/* pfprof-step-ledger.h: where every nanosecond of a step went.
 *
 * A step's ledger splits its GPU-side window (PfprofStep.gpu_start_ns to
 * gpu_end_ns, on the device with the most kernels) into buckets that sum
 * to the window's length exactly. Each instant of the window goes to the
 * first bucket, in this order, that claims it:
 *
 *   GPU busy (something ran on the device):
 *    1. copy_hidden: a host<->device copy ran beside a compute or
 *       communication kernel;
 *    2. compute: a compute kernel ran (communication kernels left out);
 *    3. comm: a communication (NCCL) kernel ran;
 *    4. copy exposed, a host<->device copy ran with no kernel beside it:
 *       from pageable memory on the compute stream, pageable on a side
 *       stream, pinned on the compute stream, pinned on a side stream
 *       (where copies of several kinds overlap, in that order);
 *    5. gpu_other: anything else the device ran (memsets, device-to-device
 *       copies);
 *   GPU idle (nothing ran), by what held up the next piece of work:
 *    6. queued: the work that ended the idle gap had been launched
 *       before the gap began (its launch call had returned, or work of the
 *       same launch, under the same correlation id, had started: a CUDA
 *       graph replay); the GPU waited on a dependency (an event of another
 *       stream, another process), not on the host (other_idle below);
 *    7. data_wait: the training loop waited for the DataLoader;
 *    8. sync, by call: the launching thread was blocked in a
 *       cudaStreamSynchronize that a blocking host-to-device copy issued
 *       (the copy's own; sync_copy), in another cudaStreamSynchronize
 *       (sync_stream), cudaDeviceSynchronize (sync_device) or
 *       cudaEventSynchronize (sync_event);
 *    9. alloc: the launching thread was in a device or page-locked
 *       allocation or free (cudaMalloc, cudaFree, cuMemMap, cudaHostAlloc,
 *       ...);
 *   10. pageable_call: the launching thread was in a run of host-to-device
 *       copy calls from pageable memory (pfprof_step_ledger_pageable_runs):
 *       inside such a call, where the driver stages the source through a
 *       pinned buffer before the copy starts, or between two calls of the
 *       run, where it released the source it had just copied;
 *   11. host_bound: none of the above, and the trace shows the launching
 *       thread: it was busy elsewhere (Python, launching kernels one by
 *       one) and had not queued the next work yet;
 *   12. other_idle: the rest (queued waits of 6, and idle time in traces
 *       with no API records to tell).
 *
 * The host's view of the same step (PfprofStep.data_wait_ns,
 * sync_wait_ns) measures the host's own window and is not part of the
 * ledger. GLib only.
 */
#pragma once

#include <glib.h>

#include "pfprof-trace-index.h"

G_BEGIN_DECLS

typedef enum
{
  PFPROF_LEDGER_COPY_HIDDEN = 0,
  PFPROF_LEDGER_COMPUTE,
  PFPROF_LEDGER_COMM,
  PFPROF_LEDGER_COPY_PAGEABLE_COMPUTE,
  PFPROF_LEDGER_COPY_PAGEABLE_SIDE,
  PFPROF_LEDGER_COPY_PINNED_COMPUTE,
  PFPROF_LEDGER_COPY_PINNED_SIDE,
  PFPROF_LEDGER_GPU_OTHER,
  PFPROF_LEDGER_DATA_WAIT,
  PFPROF_LEDGER_SYNC_COPY,
  PFPROF_LEDGER_SYNC_STREAM,
  PFPROF_LEDGER_SYNC_DEVICE,
  PFPROF_LEDGER_SYNC_EVENT,
  PFPROF_LEDGER_ALLOC,
  PFPROF_LEDGER_PAGEABLE_CALL,
  PFPROF_LEDGER_HOST_BOUND,
  PFPROF_LEDGER_OTHER_IDLE,
  PFPROF_LEDGER_N_BUCKETS
} PfprofLedgerBucket;

/* The bucket's key in the JSON report ("compute_ns", ...). */
const char *pfprof_ledger_bucket_key (PfprofLedgerBucket bucket);

/* A label for text reports, at most 33 columns ("copy exposed: pageable,
 * compute": compute or side stream). */
const char *pfprof_ledger_bucket_label (PfprofLedgerBucket bucket);

/* The classification of one trace's timeline, built once. */
typedef struct _PfprofStepLedger PfprofStepLedger;

typedef struct _PfprofLoop PfprofLoop;

/* Classifies @ix's primary device and launching thread, for @loop (whose
 * steady window pfprof_step_ledger_fill_steady() covers). @ix and @loop
 * must outlive the result. */
PfprofStepLedger *pfprof_step_ledger_new (const PfprofTraceIndex *ix, const PfprofLoop *loop);

void pfprof_step_ledger_free (PfprofStepLedger *ledger);

/* Fills @out[PFPROF_LEDGER_N_BUCKETS] for the window [@start, @end): the
 * buckets sum to @end - @start. */
void pfprof_step_ledger_fill (const PfprofStepLedger *ledger, gint64 start, gint64 end,
                              gint64 *out);

/* The same, summed over the parts of the steady window: the buckets sum
 * to pfprof_loop_steady_length(). */
void pfprof_step_ledger_fill_steady (const PfprofStepLedger *ledger, gint64 *out);

/* TRUE when API call @api_index (into the trace's api_calls) is the
 * cudaStreamSynchronize of a blocking host-to-device copy: the same thread's
 * previous call was a cudaMemcpy* whose copy went host to device on the
 * stream the sync waited for. */
gboolean pfprof_step_ledger_is_copy_sync (const PfprofStepLedger *ledger /* nullable */,
                                          guint api_index);

/* How many such syncs the steady window holds. */
guint pfprof_step_ledger_n_copy_syncs (const PfprofStepLedger *ledger /* nullable */);

/* Two host-to-device copy calls from pageable memory on the launching
 * thread this close, with nothing between them, are one run. */
#define PFPROF_LEDGER_PAGEABLE_RUN_GAP_NS (10 * G_GINT64_CONSTANT (1000000))

/* The runs of the launching thread's host-to-device copy calls from
 * pageable memory, each from its first call's start to its last call's
 * end, over the whole trace. Calls are one run when the next follows
 * within PFPROF_LEDGER_PAGEABLE_RUN_GAP_NS with nothing between them: no
 * other call of the thread, no work launched, no DataLoader wait. A call
 * alone is a run too. Between two such calls the host released the source
 * it had copied (a batch from the DataLoader's workers lives in shared
 * memory, whose pages the main thread unmaps; pinned, the pin thread
 * does), so the GPU's idle there is the pageable copies', as it is inside
 * them. NULL when @ledger is NULL: @ledger may be NULL. */
const PfprofIntervalSet *pfprof_step_ledger_pageable_runs (const PfprofStepLedger *ledger);

/* The instants of bucket @bucket over the whole trace (NULL for
 * other_idle, which is what the others leave, and when @ledger is NULL:
 * @ledger may be NULL). */
const PfprofIntervalSet *pfprof_step_ledger_bucket_set (const PfprofStepLedger *ledger,
                                                        PfprofLedgerBucket bucket);

/* The three below count what starts in the steady window, each of its
 * parts apart (pfprof_trace_index_steady_part): a wait's refill ends
 * with the part it is in.
 *
 * Host-bound idle that follows each of @waits (PfprofInterval,
 * time order, disjoint): from a wait's end until the next wait starts, at
 * most the wait's length. A wait (DataLoader, blocking copy, sync) empties
 * the GPU's queue; the GPU then idles while the host refills it launch by
 * launch, until the host is ahead again by the lead the wait took away.
 * Removing the wait removes that idle too. */
gint64 pfprof_step_ledger_refill_after (const PfprofStepLedger *ledger /* nullable */,
                                        const GArray *waits);

/* The same for bursts of calls: @calls (PfprofInterval, time order) within
 * @gap of each other, and never across one of the @n_bounds times
 * (@bounds, ascending: step starts), form one burst; returns the host-bound
 * idle inside the bursts plus the refill after each. The host issuing many
 * short calls with Python between them holds the GPU up the whole time. */
gint64 pfprof_step_ledger_burst_idle (const PfprofStepLedger *ledger /* nullable */,
                                      const GArray *calls, gint64 gap,
                                      const gint64 *bounds, guint n_bounds);

/* Host-bound idle while a thread issued @calls (guint indices into the
 * trace's api_calls, time order, one thread) one after the other. Each call
 * covers its own span, and, when the next call of @calls follows it within
 * @max_gap with nothing else in between (no other API call of the thread,
 * no kernel, copy or memset whose correlation id falls between the two
 * calls'; never across one of the @n_bounds times, @bounds ascending: step
 * starts), the time up to the next call too: the host dispatching the next
 * one (in Python, for each tensor's .to()). Work the thread did between
 * calls that are not back to back is not counted. Back-to-back calls hold
 * the host like a wait: the host-bound idle after a step's last run of
 * them, until the next run, is added, at most the total length of that
 * step's runs (the refill, as in refill_after). *@n_chained (may be
 * NULL) gets how many calls were followed back to back. */
gint64 pfprof_step_ledger_call_run_idle (const PfprofStepLedger *ledger /* nullable */,
                                         const GArray *calls, gint64 max_gap,
                                         const gint64 *bounds, guint n_bounds, guint *n_chained);

/* The sum of the buckets whose bits (1 << PfprofLedgerBucket) are in
 * @buckets, from @values. */
gint64 pfprof_ledger_sum (const gint64 *values, guint32 buckets);

#define PFPROF_LEDGER_BIT(b) (1u << (b))
#define PFPROF_LEDGER_IDLE_HOST_BITS                                                               \
  (PFPROF_LEDGER_BIT (PFPROF_LEDGER_DATA_WAIT) | PFPROF_LEDGER_BIT (PFPROF_LEDGER_SYNC_STREAM)     \
   | PFPROF_LEDGER_BIT (PFPROF_LEDGER_SYNC_DEVICE) | PFPROF_LEDGER_BIT (PFPROF_LEDGER_HOST_BOUND))

/* Ledgers over several steps. */
typedef struct
{
  guint n_steps;                          /* steady steps summarized */
  gint64 mean_step_ns;                    /* mean GPU-side step */
  gint64 mean_ns[PFPROF_LEDGER_N_BUCKETS];   /* mean of each bucket: they sum to
                                               * mean_step_ns, up to rounding put
                                               * into other_idle */
  gint64 median_step_ns;                  /* the GPU-side step of median length */
  gint64 median_ns[PFPROF_LEDGER_N_BUCKETS]; /* that step's own ledger: sums to
                                               * median_step_ns */
} PfprofLedgerSummary;

/* Summarizes the steady steps (PfprofStep, with their ledgers) of trace
 * @trace_index in @steps, or of every trace when @trace_index is
 * G_MAXUINT. */
void pfprof_ledger_summarize (const GArray *steps, guint trace_index, PfprofLedgerSummary *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PfprofStepLedger, pfprof_step_ledger_free)

G_END_DECLS
