/* SPDX-License-Identifier: MIT */
/* pfprof-collector-api.c: API records made from CUPTI callbacks.
 *
 * Why: with the RUNTIME and DRIVER activity kinds on, CUPTI intercepts
 * every runtime and driver call, kernel launches included, whatever the
 * per-cbid activity switches say (leaving launches out cut the trace
 * in half and the time not at all). The rules only look at a few calls:
 * copies, memsets, synchronizations, events, allocations and host
 * allocations. So by default the collector enables the CUPTI callback of
 * just those callback ids and makes the API records itself; launches are
 * then not intercepted at all. `pfprof record --trace-launches` turns the
 * two activity kinds back on instead.
 *
 * Program threads: the callback takes CUPTI's timestamp on entry (kept in
 * the call's correlationData) and on exit pushes one record onto the
 * queue to the writer (pfprof-collector-queue.h): chunks of
 * API_CHUNK_RECORDS records, at most API_MAX_CHUNKS at a time; when the
 * writer falls that far behind, records are dropped and counted, never
 * waited for.
 */
#include "pfprof-collector-private.h"

#include <string.h>
#include <unistd.h>

#define API_CHUNK_RECORDS 4096
#define API_MAX_CHUNKS 256 /* ~1M pending records, 56 MiB, if the writer stalls */
#define API_MAX_SPARE 4

/* Name prefixes of the calls recorded from callbacks (cuptiGetCallbackName
 * names, e.g. "cudaMemcpyAsync_v3020"). Everything model/ classifies
 * (pfprof-trace-index.c) or joins copies and memsets to, plus event records
 * and host registration. tests/collector/test-default-kinds.py reads this
 * array to filter the samples the same way: keep it one string a line. */
static const char *const api_callback_names[] = {
  "cudaEventSynchronize",
  "cudaEventQuery",
  "cudaEventRecord",
  "cudaStreamSynchronize",
  "cudaStreamWaitEvent",
  "cudaDeviceSynchronize",
  "cudaThreadSynchronize",
  "cudaMemcpy",
  "cudaMemset",
  "cudaMalloc",
  "cudaFree",
  "cudaHostAlloc",
  "cudaHostRegister",
  "cudaHostUnregister",
  "cuEventSynchronize",
  "cuEventQuery",
  "cuEventRecord",
  "cuStreamSynchronize",
  "cuStreamWaitEvent",
  "cuCtxSynchronize",
  "cuMemcpy",
  "cuMemset",
  "cuMemAlloc",
  "cuMemFree",
  "cuMemHostAlloc",
  "cuMemHostRegister",
  "cuMemHostUnregister",
  "cuMemCreate",
  "cuMemMap",
  "cuMemUnmap",
  "cuMemRelease",
};

/* Bounded by chunks alone: a record costs no allocation but its chunk's. */
PfprofCollectorQueue pfprof_collector_api_queue =
  PFPROF_COLLECTOR_QUEUE_INIT (PfprofApiPending, API_CHUNK_RECORDS, API_MAX_CHUNKS, API_MAX_SPARE);
static _Atomic unsigned n_enabled;

/* PfprofSyncType of each enabled callback id, by domain (0 runtime). */
#define SYNC_TYPE_SLOTS                                                                                         \
  ((size_t) CUPTI_RUNTIME_TRACE_CBID_SIZE > (size_t) CUPTI_DRIVER_TRACE_CBID_SIZE                                \
     ? (size_t) CUPTI_RUNTIME_TRACE_CBID_SIZE                                                                    \
     : (size_t) CUPTI_DRIVER_TRACE_CBID_SIZE)
static uint8_t sync_type_of[2][SYNC_TYPE_SLOTS];

static __thread uint32_t api_tid;
/* Runtime calls this thread is inside of: the driver calls a runtime call
 * makes (cuMemsetD8Async under cudaMemsetAsync, cuCtxSynchronize under
 * cudaDeviceSynchronize) also reach the driver-domain callback, unlike
 * the DRIVER activity records; they are not recorded, so each call the
 * program made is one record, as with the activity kinds. */
static __thread unsigned runtime_depth;

/* The CUPTI stream ids of the streams this thread last synchronized or
 * waited on: cuptiGetStreamIdEx is a lookup under CUPTI's lock, and a
 * loop that syncs one stream (every .item()) would pay it at each call.
 * An entry holds while streams_generation has not moved: it moves when a
 * stream is destroyed (its handle may come back for another stream). */
#define STREAM_CACHE_SLOTS 4
typedef struct
{
  CUstream stream;
  uint32_t context_uid;
  uint32_t stream_id;
  unsigned generation; /* streams_generation + 1 when filled; 0 empty */
} StreamCacheSlot;
static __thread StreamCacheSlot stream_cache[STREAM_CACHE_SLOTS];
static __thread unsigned stream_cache_next;
static _Atomic unsigned streams_generation;

int
pfprof_collector_api_wanted (const char *name)
{
  if (name == NULL)
    return 0;
  for (size_t i = 0; i < sizeof api_callback_names / sizeof api_callback_names[0]; i++)
    if (strncmp (name, api_callback_names[i], strlen (api_callback_names[i])) == 0)
      return 1;
  return 0;
}

/* The CUPTI SYNCHRONIZATION type the activity kind gives the call @name
 * (it gives cudaEventQuery, a poll, the event-synchronize type too). */
static uint8_t
sync_type (const char *name)
{
  static const struct
  {
    const char *prefix;
    uint8_t type;
  } map[] = {
    { "cudaEventSynchronize", PFPROF_SYNC_EVENT_SYNCHRONIZE },
    { "cudaEventQuery", PFPROF_SYNC_EVENT_SYNCHRONIZE },
    { "cuEventSynchronize", PFPROF_SYNC_EVENT_SYNCHRONIZE },
    { "cuEventQuery", PFPROF_SYNC_EVENT_SYNCHRONIZE },
    { "cudaStreamWaitEvent", PFPROF_SYNC_STREAM_WAIT_EVENT },
    { "cuStreamWaitEvent", PFPROF_SYNC_STREAM_WAIT_EVENT },
    { "cudaStreamSynchronize", PFPROF_SYNC_STREAM_SYNCHRONIZE },
    { "cuStreamSynchronize", PFPROF_SYNC_STREAM_SYNCHRONIZE },
    { "cudaDeviceSynchronize", PFPROF_SYNC_CONTEXT_SYNCHRONIZE },
    { "cudaThreadSynchronize", PFPROF_SYNC_CONTEXT_SYNCHRONIZE },
    { "cuCtxSynchronize", PFPROF_SYNC_CONTEXT_SYNCHRONIZE },
  };

  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (strncmp (name, map[i].prefix, strlen (map[i].prefix)) == 0)
      return map[i].type;
  return 0;
}

unsigned
pfprof_collector_api_enable (CUpti_SubscriberHandle subscriber, int runtime, int driver,
                             int sync_records)
{
  static const struct
  {
    CUpti_CallbackDomain domain;
    uint32_t size;
  } domains[] = {
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE },
  };
  unsigned n = 0;

  for (size_t d = 0; d < sizeof domains / sizeof domains[0]; d++)
    {
      if (!(d == 0 ? runtime : driver))
        continue;
      for (uint32_t cbid = 1; cbid < domains[d].size; cbid++)
        {
          const char *name = NULL;

          if (cuptiGetCallbackName (domains[d].domain, cbid, &name) == CUPTI_SUCCESS && pfprof_collector_api_wanted (name)
              && cuptiEnableCallback (1, subscriber, domains[d].domain, cbid) == CUPTI_SUCCESS)
            {
              n++;
              if (sync_records && cbid < sizeof sync_type_of[0])
                sync_type_of[d][cbid] = sync_type (name);
            }
        }
    }
  /* Not recorded: they only tell the stream-id cache that a handle may
   * be reused. */
  if (runtime || driver)
    {
      static const CUpti_CallbackId destroys[] = { CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy,
                                                   CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2 };

      for (size_t i = 0; i < sizeof destroys / sizeof destroys[0]; i++)
        cuptiEnableCallback (1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, destroys[i]);
    }
  atomic_store (&n_enabled, n);
  return n;
}

unsigned
pfprof_collector_api_n_enabled (void)
{
  return atomic_load (&n_enabled);
}

static int
recording (void)
{
  return !atomic_load (&pfprof_collector.child) && atomic_load (&pfprof_collector.tracing)
         && atomic_load (&pfprof_collector.state) == PFPROF_COLLECTOR_RUNNING;
}

static uint32_t
stream_id_of (CUcontext context, uint32_t context_uid, CUstream stream)
{
  unsigned gen = atomic_load_explicit (&streams_generation, memory_order_acquire) + 1;
  uint32_t id;
  StreamCacheSlot *slot;

  for (unsigned i = 0; i < STREAM_CACHE_SLOTS; i++)
    if (stream_cache[i].generation == gen && stream_cache[i].stream == stream
        && stream_cache[i].context_uid == context_uid)
      return stream_cache[i].stream_id;
  if (cuptiGetStreamIdEx (context, stream, 0, &id) != CUPTI_SUCCESS)
    return PFPROF_NONE;
  slot = &stream_cache[stream_cache_next++ % STREAM_CACHE_SLOTS];
  slot->stream = stream;
  slot->context_uid = context_uid;
  slot->stream_id = id;
  slot->generation = gen;
  return id;
}

static int
is_stream_destroy (int runtime, uint32_t cbid)
{
  return !runtime
         && (cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy || cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2);
}

void
pfprof_collector_api_callback (int runtime, uint32_t cbid, const CUpti_CallbackData *cb)
{
  uint64_t ts = 0;
  PfprofApiPending p;
  PfprofApiRecord *r = &p.record;

  if (cb == NULL || cb->correlationData == NULL)
    return;
  if (is_stream_destroy (runtime, cbid))
    {
      /* On exit too: a lookup between the two must not fill the cache
       * with the dying stream. */
      atomic_fetch_add_explicit (&streams_generation, 1, memory_order_release);
      return;
    }
  if (cb->callbackSite == CUPTI_API_ENTER)
    {
      /* 0 tells the exit that this call is not recorded. */
      if ((!runtime && runtime_depth > 0) || !recording () || cuptiGetTimestamp (&ts) != CUPTI_SUCCESS)
        ts = 0;
      if (runtime)
        runtime_depth++;
      *cb->correlationData = ts;
      return;
    }
  if (runtime && runtime_depth > 0)
    runtime_depth--;
  if (*cb->correlationData == 0 || !recording () || cuptiGetTimestamp (&ts) != CUPTI_SUCCESS)
    return;
  if (api_tid == 0)
    api_tid = (uint32_t) gettid ();
  memset (&p, 0, sizeof p);
  r->start_ns = (int64_t) *cb->correlationData;
  r->end_ns = (int64_t) ts;
  r->tid = api_tid;
  r->correlation_id = cb->correlationId;
  r->cbid = cbid;
  r->name_id = PFPROF_NONE; /* the writer interns the name */
  /* cudaError_t and CUresult are both C enums. */
  r->return_value = cb->functionReturnValue ? *(const int *) cb->functionReturnValue : 0;
  r->domain = runtime ? PFPROF_API_RUNTIME : PFPROF_API_DRIVER;
  p.sync_type = cbid < sizeof sync_type_of[0] ? sync_type_of[runtime ? 0 : 1][cbid] : 0;
  p.context_id = cb->contextUid;
  p.stream_id = PFPROF_NONE;
  if (p.sync_type == PFPROF_SYNC_STREAM_SYNCHRONIZE || p.sync_type == PFPROF_SYNC_STREAM_WAIT_EVENT)
    {
      /* Both take the stream first, in both domains (and _ptsz). */
      CUstream stream = cb->functionParams ? *(CUstream const *) cb->functionParams : NULL;

      p.stream_id = stream_id_of (cb->context, cb->contextUid, stream);
    }
  pfprof_collector_queue_push (&pfprof_collector_api_queue, &p, SIZE_MAX);
}
