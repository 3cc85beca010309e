/* SPDX-License-Identifier: MIT */
/* pfprof-trace-index.h: what the analyzer derives from one loaded trace
 * before any rule runs.
 *
 * - API calls joined by correlation id (kernels, copies and
 *   synchronization records point at the runtime or driver call that made
 *   them; kernels launched by libraries point at driver calls), and each
 *   API name sorted into a class (blocking event synchronize vs
 *   non-blocking event query, allocation, free, ...), with the calls of
 *   each class listed so rules need not scan every call.
 * - Per device: interval sets of compute kernels (K), communication
 *   kernels (N: NCCL collectives, which move data between GPUs and are no
 *   compute), host-to-device copies (C), C ∩ (K ∪ N), and everything the
 *   GPU does (B), plus the compute stream (the stream with the most
 *   compute-kernel time).
 * - Host side: DataLoader waits (NVTX domain "pfprof", range
 *   "DataLoader.next") and blocking synchronizing calls, as interval sets;
 *   the thread that launches most kernels.
 * The loop built on it (steps, phases, the steady window) is
 * analyzer/loop/'s PfprofLoop.
 */
#pragma once

#include <glib.h>

#include "pfprof-interval-set.h"
#include "pfprof-trace.h"

G_BEGIN_DECLS

typedef enum
{
  PFPROF_API_CLASS_OTHER = 0,
  PFPROF_API_CLASS_EVENT_SYNC,   /* cudaEventSynchronize: blocks the host */
  PFPROF_API_CLASS_EVENT_QUERY,  /* cudaEventQuery: a poll, never blocks */
  PFPROF_API_CLASS_STREAM_SYNC,  /* cudaStreamSynchronize */
  PFPROF_API_CLASS_DEVICE_SYNC,  /* cudaDeviceSynchronize, cuCtxSynchronize */
  PFPROF_API_CLASS_MEMCPY,       /* cudaMemcpy*, cuMemcpy* */
  PFPROF_API_CLASS_MALLOC,       /* cudaMalloc, cuMemAlloc */
  PFPROF_API_CLASS_FREE,         /* cudaFree, cuMemFree */
  PFPROF_API_CLASS_HOST_ALLOC,   /* cudaHostAlloc, cudaMallocHost, cudaHostRegister, cuMem* */
  PFPROF_API_CLASS_VMM_MAP,      /* cuMemCreate, cuMemMap (expandable segments) */
  PFPROF_API_CLASS_VMM_UNMAP,    /* cuMemUnmap, cuMemRelease */
  PFPROF_API_CLASS_STREAM_WAIT,  /* cudaStreamWaitEvent */
  PFPROF_N_API_CLASSES
} PfprofApiClass;

/* cudaErrorNotReady and CUDA_ERROR_NOT_READY share the value 600. */
#define PFPROF_CUDA_NOT_READY 600

/* The class of API function @name (runtime or driver; suffixes such as
 * _v2 or _ptsz are ignored). */
PfprofApiClass pfprof_api_class_for_name (const char *name);

/* TRUE when the kernel named @name is a communication kernel: NCCL's
 * (RCCL's too) device kernels, whose names start with "nccl"
 * ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)", "ncclKernel_...",
 * older "ncclAllReduceRingLLKernel_sum_f32"), also after "void " or as
 * an Itanium-mangled name ("_Z40ncclDevKernel_..."). */
gboolean pfprof_kernel_name_is_comm (const char *name /* nullable */);

typedef struct
{
  guint32 device_id;
  guint32 compute_stream;      /* stream with the most compute-kernel time */
  guint64 n_kernels;           /* compute kernels (communication ones not counted) */
  gint64 kernel_sum_ns;        /* sum of compute-kernel durations (not the union) */
  PfprofIntervalSet *kernels;  /* K: compute kernels, communication kernels left out */
  PfprofIntervalSet *htod;     /* C: host-to-device copies, all sizes */
  PfprofIntervalSet *htod_kernels; /* C ∩ (K ∪ N): copy hidden behind compute or
                                    * communication (the step waits for both) */
  PfprofIntervalSet *busy;     /* B: kernels of both kinds, copies and memsets */
  /* Communication kernels, apart from compute: */
  PfprofIntervalSet *comm;     /* N: communication (NCCL) kernels */
  PfprofIntervalSet *kernels_comm; /* K ∪ N: what can hide a copy */
  guint64 n_comm_kernels;
  GArray *records[3];          /* guint: its kernels, copies and memsets, by index
                                * in their tables (pfprof_device_timeline_records);
                                * the kernels' NULL where the device has them all */
  guint n_records[3];          /* their numbers */
} PfprofDeviceTimeline;

/* The indices of @dev's records in @table (PFPROF_TABLE_KERNELS,
 * PFPROF_TABLE_MEMCPYS or PFPROF_TABLE_MEMSETS), ascending, and their
 * number in *@n: what a pass over one device's work reads, so that a
 * pass per device costs the device's records, not the trace's. NULL for
 * the kernels of the only device of a trace, which are all of the
 * table's, in order: read a list with pfprof_device_record_at(), so that
 * a trace of one GPU (the common case) holds no list of millions of
 * indices 0, 1, 2, ... */
const guint *pfprof_device_timeline_records (const PfprofDeviceTimeline *dev, PfprofTableId table,
                                             guint *n);

/* Entry @j of a list from pfprof_device_timeline_records(): the index of
 * the record in its table. */
static inline guint
pfprof_device_record_at (const guint *list /* nullable */, guint j)
{
  return list != NULL ? list[j] : j;
}

typedef struct
{
  const PfprofTrace *trace;    /* not owned; read only */
  guint trace_index;           /* in PfprofAnalysis.traces */

  guint32 *api_by_corr;        /* correlation id -> api_calls index, or NULL */
  guint32 api_by_corr_len;
  GHashTable *api_by_corr_sparse; /* used instead when ids are sparse */
  guint n_api_ids_shared;      /* API records whose correlation id an earlier
                                * record of the same domain has */
  guint8 *class_of_name;       /* strings id -> PfprofApiClass */
  GArray *api_of_class[PFPROF_N_API_CLASSES]; /* guint api indices, time order */
  gboolean has_api;            /* the trace holds API records at all */

  GArray *devices;             /* PfprofDeviceTimeline */
  GHashTable *device_at;       /* device id -> its index in devices */
  guint32 main_tid;            /* the training loop's thread: DataLoader waits', else
                                * the one that launched most kernels; 0 if unknown */

  GArray *data_waits;          /* PfprofInterval, DataLoader.next ranges, time order */
  GArray *data_wait_nvtx;      /* guint, their indices in the NVTX table */
  PfprofIntervalSet *data_wait;  /* their union */
  PfprofIntervalSet *sync_wait;  /* blocking synchronizing calls, all threads */
  PfprofIntervalSet *windows;  /* the recording windows (windows table),
                                * NULL when recorded all through */
} PfprofTraceIndex;

/* Builds the index of @trace (sorted). */
PfprofTraceIndex *pfprof_trace_index_new (const PfprofTrace *trace, guint trace_index);

void pfprof_trace_index_free (PfprofTraceIndex *ix);

/* The API record with correlation id @corr, or NULL. */
const PfprofApiRecord *pfprof_trace_index_api (const PfprofTraceIndex *ix, guint32 corr);

/* The class of @api. */
PfprofApiClass pfprof_trace_index_api_class (const PfprofTraceIndex *ix,
                                             const PfprofApiRecord *api /* nullable */);

/* TRUE when copy @m moves data from or to pageable host memory: a
 * host-to-device copy from it, a device-to-host copy into it. The call
 * that makes it holds the host for as long as the copy runs. */
gboolean pfprof_memcpy_is_pageable (const PfprofMemcpyRecord *m);

/* The timeline of device @device_id, or NULL. */
const PfprofDeviceTimeline *pfprof_trace_index_device (const PfprofTraceIndex *ix, guint32 device_id);

G_END_DECLS
