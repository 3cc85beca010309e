/* SPDX-License-Identifier: MIT */
/* pfprof-trace-generator.h: writes synthetic traces of any size.
 *
 * Tests and benchmarks need traces without a GPU: the generator simulates
 * one PyTorch training process on one GPU (device 0, context 1) and writes
 * what the collector would record, through the same writer. Plain C11 +
 * SQLite like the rest of trace/. Deterministic: the same options give a
 * byte-identical trace.
 *
 * What every trace holds (the "good" baseline):
 *
 *   Threads: main thread tid = pid (launches all GPU work), pin-memory
 *   thread tid = pid + 1. Streams: null stream 7 (legacy default), compute
 *   stream 13, copy stream 14, and streams 15, 16, ... up to `streams` in
 *   all (collective-style kernels during the backward pass). Meta: the
 *   keys the collector writes for a plain run (host, pid, rank, versions,
 *   GPU names, clock triples, drop counts; see docs/trace-format.md) plus
 *   the generator_* keys.
 *
 *   Warm-up, before the first step (everything before
 *   PfprofTraceGeneratorResult.first_step_ns): cudaStreamCreateWithPriority
 *   and cudaEventCreateWithFlags calls; 60 cudaMalloc calls with MEMORY
 *   allocation records (device); 60 synchronous cudaMemcpy copies of
 *   weights from PAGEABLE memory, 64 KiB to 32 MiB each, on the null
 *   stream; 20 benchmark kernels; 3 cudaDeviceSynchronize calls (sync type
 *   4); 4 cudaHostAlloc calls on the pin-memory thread with MEMORY
 *   allocation records (pinned); and the prefetch of batch 0. Rules must
 *   not flag any of it.
 *
 *   Each step, on the main thread:
 *     - NVTX range "DataLoader.next" (domain "pfprof", depth 0): 50-300 us.
 *     - NVTX range "train_step" (domain "pfprof", depth 0) from the end of
 *       DataLoader.next to the end of the step, with nested ranges
 *       "forward", "backward", "optimizer" (default domain, depth 1).
 *     - cudaStreamWaitEvent: compute stream waits (sync type 2) on the
 *       event recorded on the copy stream after this batch's copies; those
 *       copies ran during the previous step, so the wait costs nothing.
 *     - 12-16 forward kernels on the compute stream, each launched by
 *       cudaLaunchKernel (correlation ids join API and kernel records).
 *     - Prefetch of the next batch on the copy stream: cudaMemcpyAsync of
 *       48 MiB and 2 KiB HtoD from PINNED memory (async flag), overlapping
 *       the compute kernels, then cudaEventRecord on the copy stream (a
 *       cuda_events record whose device_ts_ns is when the copy ended).
 *     - cudaMemsetAsync of 4 MiB on the compute stream.
 *     - 16-20 backward kernels; midway, the compute stream records an
 *       event and each extra stream waits on it (sync type 2) and runs one
 *       collective kernel that ends before the backward pass does.
 *     - 4 optimizer kernels.
 *     - Every 10th step: a 4-byte DtoH copy into pinned memory on the
 *       compute stream, an event recorded after it, and one cudaEventQuery
 *       (returns 0, sync type 1) on that event after the next step's
 *       forward launches. No blocking synchronization.
 *     - Every 20th step: one CUPTI buffer-flush overhead record.
 *   The host runs ahead of the GPU by at most 2 ms (a launch blocks in
 *   cudaLaunchKernel when the queue is that far ahead), so the GPU is busy
 *   and copies are hidden behind kernels.
 *
 *   Inside the DataLoader (worker_events): two worker processes, pids
 *   pid + 100 and pid + 101, make batch N (consumed by step N) in turn, 3-4
 *   ms each, 61% in the loader (decoding), 22% in a RandomResizedCrop
 *   transform and 5% in collate_fn, CPU-bound; the pin-memory thread pins
 *   each batch for 300 us before the main process gets it. With
 *   INPUT_STARVED each worker is busy all the time and may use 2 cores
 *   between them: saturated (`worker_cores` sets the cores).
 *
 * Planted patterns (PfprofTraceGeneratorPlant), each changing every step
 * unless said otherwise; combinations are allowed:
 *
 *   PAGEABLE: the batch copies (48 MiB + 2 KiB HtoD) come from PAGEABLE
 *     memory (src_kind 1, async flag still set) at 12 GB/s, and each
 *     cudaMemcpyAsync call lasts until its copy ends (the host is blocked).
 *   SERIALIZED: the batch copies are PINNED but issued on the compute
 *     stream at the start of the step, right before the forward kernels:
 *     no kernel runs during the copy and the forward kernels wait for it.
 *     No prefetch, no copy-stream event for the batch.
 *   RECORD_STREAM: after every second backward launch, the allocator
 *     records an event on the compute stream (a block freed after
 *     record_stream()) and polls the event it recorded before with
 *     cudaEventQuery (sync type 1 record), which returns 600 (not ready)
 *     because the GPU runs 2 ms behind: 8-10 polls a step, nearly all not
 *     ready. Each step also ends with such an event. From step 4 on, every
 *     8th step (4, 12, 20, ...) ends with a burst: 16 cudaEventSynchronize
 *     calls (sync type 1) on the newest events, the first blocking until
 *     the GPU drains, then 6 cudaFree (MEMORY release, device, 64 MiB) and
 *     6 cudaMalloc (MEMORY allocation) calls of 0.2-0.5 ms each while
 *     every stream is idle.
 *   INPUT_STARVED: DataLoader.next lasts 20-35 ms, far longer than the
 *     2 ms of queued GPU work, so the GPU idles while the host waits; the
 *     workers are busy all the time, on the 2 cores they may use.
 *   LATE_PREFETCH: no look-ahead: the batch (96 MiB, pinned, ~2 ms) is
 *     copied on the copy stream in its own step, after DataLoader.next
 *     returned once the compute stream had drained; the compute stream
 *     waits on the copy stream's event (sync type 2 joined by
 *     event_sync_id to a cuda_events record on stream 14) and the first
 *     forward kernel starts 2-6 us after the copy ends, after a gap of
 *     about the copy's length. (SERIALIZED wins when both are given.)
 *   SYNC_IN_LOOP: each step ends with `.item()`: a 4-byte DtoH copy into
 *     PINNED memory on the compute stream, then cudaStreamSynchronize on
 *     the compute stream (sync type 3) that blocks until the GPU drains.
 *   SMALL_TRANSFERS: with the prefetch, 48 extra HtoD copies of 512 B to
 *     16 KiB from PINNED memory on the copy stream, each with its own
 *     cudaMemcpyAsync call.
 *   PINNED_ALLOC: each step, on the pin-memory thread, cudaHostAlloc of
 *     48 MiB (2-4 ms, MEMORY allocation, memory_kind PINNED) and
 *     cudaFreeHost of the previous step's buffer (MEMORY release, PINNED).
 *   NCCL: data-parallel gradient all-reduce (DDP): after the backward
 *     pass the compute stream records an event, the first extra stream
 *     (the copy stream when streams is 2) waits on it and runs one
 *     "ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)" kernel of 2-3 ms,
 *     records an event, and the compute stream waits on that before the
 *     optimizer kernels: the GPU communicates, and computes nothing,
 *     for 2-3 ms a step.
 *   PHASES (not in ALL: it is the loop's shape, not a problem): the
 *     program as the launcher's hook records it: no "train_step" range;
 *     each training step has a "backward" mark (domain "pfprof") where
 *     its backward pass starts and an "Optimizer.step" mark after its
 *     optimizer kernels. After half the steps (every 200 steps with
 *     --events) and after the last, a validation pass: a 20 ms pause,
 *     PFPROF_TRACE_GENERATOR_EVAL_BATCHES batches of DataLoader.next and
 *     forward kernels alone, no marks, and 20 ms more. After the loop,
 *     100 ms later, four 8 MiB DtoH copies into PAGEABLE memory (a
 *     checkpoint) on the compute stream.
 *
 * Several ranks of one run: `rank` sets meta rank, pid and the GPU UUID;
 * `host` the host name (default "synthetic-node-RANK"); `clock_offset_ns`
 * plants a clock offset: every CUPTI time (events, clock_*_cupti_ns) is
 * the REALTIME of the simulated run plus it, as on a host whose CUPTI
 * clock differs from its wall clock, and the clock triples say so.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "pfprof-trace-writer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  PFPROF_PLANT_PAGEABLE = 1 << 0,
  PFPROF_PLANT_SERIALIZED = 1 << 1,
  PFPROF_PLANT_RECORD_STREAM = 1 << 2,
  PFPROF_PLANT_INPUT_STARVED = 1 << 3,
  PFPROF_PLANT_LATE_PREFETCH = 1 << 4,
  PFPROF_PLANT_SYNC_IN_LOOP = 1 << 5,
  PFPROF_PLANT_SMALL_TRANSFERS = 1 << 6,
  PFPROF_PLANT_PINNED_ALLOC = 1 << 7,
  PFPROF_PLANT_NCCL = 1 << 8,
  PFPROF_PLANT_ALL = (1 << 9) - 1, /* the problems; PHASES is no problem */
  PFPROF_PLANT_PHASES = 1 << 9,
} PfprofTraceGeneratorPlant;

/* NVTX range that spans one training step (domain "pfprof"). */
#define PFPROF_TRACE_GENERATOR_STEP_RANGE "train_step"
/* PHASES: the batches of each validation pass. */
#define PFPROF_TRACE_GENERATOR_EVAL_BATCHES 10

/* The Python call site (python_sites) of the batch copy of every step:
 * `Tensor.cuda` called at this file and line in `train_one_epoch`. */
#define PFPROF_TRACE_GENERATOR_SITE_FILE "train.py"
#define PFPROF_TRACE_GENERATOR_SITE_LINE 57
/* ...and of moving the model to the GPU before the first step (the same
 * entry point, copies of the same kind): `model.cuda()` in `build_model`
 * of the same file, a start-up site no finding should name. */
#define PFPROF_TRACE_GENERATOR_MODEL_SITE_LINE 31

/* The DataLoader's stages (worker_events, python_sites kind 6): the
 * ImageFolder loader at this line of torchvision's folder.py, and a
 * RandomResizedCrop transform built at this line of the site file. The
 * workers may use this many cores (2 with INPUT_STARVED). */
#define PFPROF_TRACE_GENERATOR_LOADER_FILE "/usr/lib/python3/dist-packages/torchvision/datasets/folder.py"
#define PFPROF_TRACE_GENERATOR_LOADER_LINE 262
#define PFPROF_TRACE_GENERATOR_TRANSFORM_LINE 44
#define PFPROF_TRACE_GENERATOR_WORKER_CORES 16

/* Stream ids the generator uses. */
#define PFPROF_TRACE_GENERATOR_NULL_STREAM 7
#define PFPROF_TRACE_GENERATOR_COMPUTE_STREAM 13
#define PFPROF_TRACE_GENERATOR_COPY_STREAM 14

typedef struct
{
  uint64_t events;            /* stop after the first step that reaches this many
                                 records (all event tables); used when steps == 0 */
  uint32_t steps;             /* training steps; 0 = as many as `events` needs */
  uint32_t streams;           /* GPU streams with work besides the null stream,
                                 2..64: compute, copy, then extra streams */
  uint64_t seed;              /* varies durations, sizes and ids */
  unsigned plants;            /* PfprofTraceGeneratorPlant bits */
  int32_t rank;               /* meta rank; pid is 4242 + rank */
  int32_t world_size;         /* meta world_size; 0 = not written (unknown) */
  const char *pfprof_version; /* meta pfprof_version, NULL = not written */
  const char *host;           /* meta host, NULL = "synthetic-node-RANK" */
  int64_t clock_offset_ns;    /* CUPTI clock minus REALTIME, added to every event time */
  uint32_t worker_cores;      /* CPU cores the DataLoader's workers may use; 0: 16, or 2
                                 with INPUT_STARVED (saturated) */
} PfprofTraceGenerator;

typedef struct
{
  uint64_t n_events;     /* records in event tables */
  uint32_t n_steps;
  int64_t first_step_ns; /* start of step 0's DataLoader.next: warm-up is before */
  int64_t end_ns;        /* latest host or GPU time */
} PfprofTraceGeneratorResult;

/* Fills @gen with the defaults: 200 steps, 4 streams, seed 1, no plants,
 * rank 0 of 1. */
void pfprof_trace_generator_init (PfprofTraceGenerator *gen);

/* Writes the trace described by @gen to @path (PfprofTraceWriterFlags in
 * @writer_flags) and finishes it. Returns a PfprofTraceWriterStatus;
 * on failure @errbuf (may be NULL) holds a message and no file is left
 * at @path when the writer could not be opened. @result may be NULL. */
int pfprof_trace_generator_write (const PfprofTraceGenerator *gen, const char *path,
                                  unsigned writer_flags, PfprofTraceGeneratorResult *result,
                                  char *errbuf, size_t errlen);

/* The name of one plant bit ("pageable", "serialized", "record-stream",
 * "input-starved", "late-prefetch", "sync-in-loop", "small-transfers",
 * "pinned-alloc", "nccl"), or NULL. */
const char *pfprof_trace_generator_plant_name (unsigned plant);

/* Parses a comma-separated list of plant names, "all" or "none" into
 * *@plants. Returns 0, or -1 naming nothing (the caller reports @list). */
int pfprof_trace_generator_parse_plants (const char *list, unsigned *plants);

/* Writes the names of @plants, comma-separated ("none" when 0), into @buf. */
void pfprof_trace_generator_format_plants (unsigned plants, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
