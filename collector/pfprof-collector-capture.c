/* SPDX-License-Identifier: MIT */
/* pfprof-collector-capture.c: the capture range, recording between the
 * program's cudaProfilerStart() and cudaProfilerStop().
 *
 * `pfprof record --capture-range=cuda-profiler-api` (PFPROF_CAPTURE)
 * starts the collector paused: no timed activity kind and no API callback
 * is on, so the program runs as if untraced but for the four callbacks
 * enabled here (the runtime's and the driver's ProfilerStart/Stop, rare
 * calls). torch.cuda.profiler.start()/stop(), and the ranges users already
 * mark for Nsight Systems, call them.
 *
 * A start switches everything on as it returns, a stop switches it off as
 * it is entered, so the range holds what the program did between the two
 * calls. cudaProfilerStart calls cuProfilerStart: both callbacks come, and
 * the second finds the state already switched. Only the first range is
 * recorded, as Nsight's default (a trace of one range is what the analysis
 * reads as a run: two ranges' gap would look like an idle GPU);
 * PFPROF_CAPTURE_REPEAT=1 (hidden, for benchmarks that alternate recording
 * and pausing in one process) records every range.
 *
 * The switch runs on the calling program thread, under a mutex that only
 * the four calls take; it calls CUPTI's enable functions, which CUPTI
 * allows from a callback. At the stop of a range that lasted at least a
 * fifth of the writer's flush period the writer is asked to flush, so the
 * range's records are written while the program pauses recording, not
 * during whatever it records next; shorter ranges (a benchmark switching
 * at every step) wait for the periodic flush, which would otherwise run
 * at every step.
 */
#include "pfprof-collector-private.h"

#include <pthread.h>

static pthread_mutex_t capture_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic unsigned n_ranges;
static int64_t range_start_ns; /* monotonic; under capture_lock */

/* The four calls, a start and a stop in each domain. */
static const struct
{
  CUpti_CallbackDomain domain;
  CUpti_CallbackId cbid;
  int start;
} calls[] = {
  { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000, 1 },
  { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000, 0 },
  { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart, 1 },
  { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop, 0 },
};

/* The shortest range whose stop asks the writer to flush (above). */
#define FLUSH_AFTER_NS ((int64_t) PFPROF_COLLECTOR_FLUSH_MS * 1000000 / 5)

int
pfprof_collector_capture_enable (CUpti_SubscriberHandle subscriber)
{
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
    if (cuptiEnableCallback (1, subscriber, calls[i].domain, calls[i].cbid) != CUPTI_SUCCESS)
      return -1;
  return 0;
}

int
pfprof_collector_capture_callback (int runtime, uint32_t cbid, const CUpti_CallbackData *cb)
{
  CUpti_CallbackDomain domain = runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
  size_t i = 0;
  int start;

  while (i < sizeof calls / sizeof calls[0] && (calls[i].domain != domain || calls[i].cbid != cbid))
    i++;
  if (i == sizeof calls / sizeof calls[0])
    return 0;
  start = calls[i].start;
  /* A start acts as it returns, a stop as it is entered. */
  if (cb == NULL || cb->callbackSite != (start ? CUPTI_API_EXIT : CUPTI_API_ENTER)
      || atomic_load (&pfprof_collector.child) || atomic_load (&pfprof_collector.state) != PFPROF_COLLECTOR_RUNNING)
    return 1;
  pthread_mutex_lock (&capture_lock);
  if (start && !atomic_load (&pfprof_collector.tracing)
      && (atomic_load (&n_ranges) == 0 || pfprof_collector.capture_repeat))
    {
      atomic_fetch_add (&n_ranges, 1);
      /* Kinds first, then the flag the callbacks read: a call already
       * inside when the flag flips has no entry time and is not recorded. */
      pfprof_collector_cupti_enable (1);
      atomic_store (&pfprof_collector.tracing, 1);
      range_start_ns = pfprof_collector_now_monotonic ();
    }
  else if (!start && atomic_load (&pfprof_collector.tracing))
    {
      atomic_store (&pfprof_collector.tracing, 0);
      pfprof_collector_cupti_enable (0);
      if (pfprof_collector_now_monotonic () - range_start_ns >= FLUSH_AFTER_NS)
        pfprof_collector_writer_request_flush ();
    }
  pthread_mutex_unlock (&capture_lock);
  return 1;
}

unsigned
pfprof_collector_capture_ranges (void)
{
  return atomic_load (&n_ranges);
}
