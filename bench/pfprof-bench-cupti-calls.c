/* SPDX-License-Identifier: MIT */
/* pfprof-bench-cupti-calls.c: what the steps of the collector's API
 * callback cost, one by one, on the GPU machine (no perf there): CUPTI's
 * timestamp, the CUPTI stream id of a stream, the clock, an uncontended
 * mutex, and a driver call with and without an enabled CUPTI callback.
 * Prints ns per call, the least of 5 rounds of @N calls each.
 *
 *   pfprof-bench-cupti-calls [N]      (default 1000000)
 *
 * Benchmark only: built with the collector, installed nowhere; see
 * RESULTS.md.
 */
#include <cuda.h>
#include <cupti.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

static void CUPTIAPI
empty_callback (void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
}

#define ROUNDS 5
#define TIME(label, n, body)                                                                                     \
  do                                                                                                             \
    {                                                                                                            \
      double best = 1e30;                                                                                        \
      for (int r_ = 0; r_ < ROUNDS; r_++)                                                                        \
        {                                                                                                        \
          double t0_ = now_ns ();                                                                                \
          for (long i_ = 0; i_ < (n); i_++)                                                                      \
            {                                                                                                    \
              body;                                                                                              \
            }                                                                                                    \
          double dt_ = (now_ns () - t0_) / (double) (n);                                                         \
          if (dt_ < best)                                                                                        \
            best = dt_;                                                                                          \
        }                                                                                                        \
      printf ("%-44s %8.1f ns a call\n", label, best);                                                           \
    }                                                                                                            \
  while (0)

int
main (int argc, char **argv)
{
  long n = argc > 1 ? strtol (argv[1], NULL, 10) : 1000000;
  CUdevice dev;
  CUcontext ctx;
  CUstream stream;
  CUevent event;
  CUpti_SubscriberHandle sub;
  uint64_t ts = 0;
  uint32_t id = 0;
  struct timespec rt;
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  volatile uint64_t sink = 0;

  if (n < 1 || cuInit (0) != CUDA_SUCCESS || cuDeviceGet (&dev, 0) != CUDA_SUCCESS
      || cuDevicePrimaryCtxRetain (&ctx, dev) != CUDA_SUCCESS || cuCtxSetCurrent (ctx) != CUDA_SUCCESS
      || cuStreamCreate (&stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS
      || cuEventCreate (&event, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
    {
      fprintf (stderr, "pfprof-bench-cupti-calls: no CUDA device\n");
      return 1;
    }
  cuEventRecord (event, stream);
  cuStreamSynchronize (stream);
  TIME ("cuEventQuery, no CUPTI subscriber", n, sink += cuEventQuery (event));
  if (cuptiSubscribe (&sub, (CUpti_CallbackFunc) empty_callback, NULL) != CUPTI_SUCCESS)
    {
      fprintf (stderr, "pfprof-bench-cupti-calls: cannot subscribe to CUPTI\n");
      return 1;
    }
  TIME ("cuEventQuery, subscribed, its callback off", n, sink += cuEventQuery (event));
  cuptiEnableCallback (1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuEventQuery);
  TIME ("cuEventQuery, an empty callback on", n, sink += cuEventQuery (event));
  TIME ("cuptiGetTimestamp", n, (cuptiGetTimestamp (&ts), sink += ts));
  TIME ("cuptiGetStreamIdEx", n, (cuptiGetStreamIdEx (ctx, stream, 0, &id), sink += id));
  TIME ("clock_gettime (CLOCK_REALTIME)", n, (clock_gettime (CLOCK_REALTIME, &rt), sink += (uint64_t) rt.tv_nsec));
  TIME ("pthread_mutex_lock + unlock", n, (pthread_mutex_lock (&lock), pthread_mutex_unlock (&lock)));
  cuptiUnsubscribe (sub);
  return sink == 42 ? 2 : 0;
}
