/* SPDX-License-Identifier: MIT */
/* pfprof-collector-private.h: what the collector's files share.
 *
 * The collector is loaded into the profiled program twice over: by the
 * CUDA driver (CUDA_INJECTION64_PATH -> InitializeInjection) and by the
 * NVTX library (NVTX_INJECTION64_PATH -> InitializeInjectionNvtx2). Both
 * paths name the same file, so dlopen gives one instance and one state.
 *
 * Threads:
 *   - program threads run CUPTI's buffer callbacks and our NVTX callbacks;
 *     they only append to queues under short mutexes (CUPTI's buffers to
 *     the writer's list, everything else to a PfprofCollectorQueue);
 *   - the writer thread (pfprof-collector-writer.c) owns the trace file,
 *     flushes CUPTI every PFPROF_COLLECTOR_FLUSH_MS, converts records and
 *     commits one transaction per round, below the program's threads
 *     (nice +10, SCHED_BATCH);
 *   - a signal handler only sets a flag, posts a semaphore and waits
 *     (bounded) on a pipe; it never calls CUPTI or SQLite.
 *
 * Rules: never exit(), abort() or block the program for more than a
 * bounded time; on any failure print one "pfprof: ..." line and stop.
 */
#pragma once

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <cupti.h>

#include "pfprof-collector-queue.h"
#include "pfprof-trace-schema.h"
#include "pfprof-trace-writer.h"

#define PFPROF_EXPORT __attribute__ ((visibility ("default")))

/* How often the writer asks CUPTI for completed buffers and commits: a
 * SIGKILL loses at most about this much. */
#define PFPROF_COLLECTOR_FLUSH_MS 500

/* Bytes per CUPTI activity buffer. */
#define PFPROF_COLLECTOR_BUFFER_SIZE (4u << 20)

typedef enum
{
  PFPROF_COLLECTOR_IDLE = 0,    /* not initialized (or NVTX only so far) */
  PFPROF_COLLECTOR_RUNNING = 1, /* subscribed, writer thread running */
  PFPROF_COLLECTOR_STOPPED = 2, /* finished, failed, or a forked child */
} PfprofCollectorState;

/* One NVTX range or mark: open on its thread's stack or among the
 * started ranges (linked through next), then waiting for the writer. */
typedef struct _PfprofNvtxPending PfprofNvtxPending;
struct _PfprofNvtxPending
{
  PfprofNvtxPending *next;
  PfprofNvtxRecord record; /* name_id and domain_id unset */
  const char *domain;      /* domain name (lives forever), NULL = default */
  char name[];             /* the message, NUL-terminated */
};

/* One API record made from a CUPTI callback, waiting for the writer. */
typedef struct
{
  PfprofApiRecord record; /* name_id unset */
  /* For synchronizing calls when the SYNCHRONIZATION kind is off: the
   * PfprofSyncType (0: none), the context and the CUPTI stream id. */
  uint8_t sync_type;
  uint32_t context_id;
  uint32_t stream_id;
} PfprofApiPending;

/* Process-wide state. Fields written once before the writer starts are
 * plain; the rest are atomics. */
typedef struct
{
  _Atomic int state;            /* PfprofCollectorState */
  _Atomic int tracing;          /* 1 inside the --delay/--duration window,
                                 * a --sample window or a capture range */
  _Atomic int child;            /* 1 in a forked child: do nothing */
  _Atomic uint64_t records_invalid; /* zero or reversed timestamps */
  _Atomic uint64_t records_written;
  _Atomic uint64_t buffers_lost;    /* buffers that arrived after finish */
  int quiet;                    /* PFPROF_QUIET=1: no stderr lines at all */
  double delay_s;               /* PFPROF_DELAY */
  double duration_s;            /* PFPROF_DURATION, 0 = until exit */
  double sample_on_s;           /* PFPROF_SAMPLE=ON/EVERY: record ON seconds */
  double sample_every_s;        /* of every EVERY; 0 = no sampling */
  int capture;                  /* PFPROF_CAPTURE=cuda-profiler-api */
  int capture_repeat;           /* PFPROF_CAPTURE_REPEAT=1: every range */
  char output[4096];            /* expanded trace path */
  char status_path[4096];       /* launcher's status file, "" if none */
} PfprofCollector;

extern PfprofCollector pfprof_collector;

/* pfprof-collector.c */

/* The rank, local rank and world size the launcher gave this process
 * (torchrun's RANK, LOCAL_RANK, WORLD_SIZE, else Slurm's, Open MPI's or
 * MPICH's names for them), or NULL. */
const char *pfprof_collector_rank (void);
const char *pfprof_collector_local_rank (void);
const char *pfprof_collector_world_size (void);

/* The launcher's id of this job, which every rank of one run shares and
 * another run does not: "slurm:JOB.STEP" (SLURM_JOB_ID, SLURM_STEP_ID) or
 * "torchrun:RUN_ID" (TORCHELASTIC_RUN_ID), written into @buf (@len
 * bytes); NULL when no launcher says. */
const char *pfprof_collector_job_id (char *buf, size_t len);

/* Reads the PFPROF_* environment once; both entry points call it. */
void pfprof_collector_configure (void);

/* Prints "pfprof: MESSAGE" on one line to stderr unless quiet. */
void pfprof_collector_warn (const char *format, ...) __attribute__ ((format (printf, 1, 2)));

/* Appends "KEY=VALUE\n" to the launcher's status file, if any. */
void pfprof_collector_status (const char *key, const char *format, ...)
  __attribute__ ((format (printf, 2, 3)));

/* Stops tracing for good after an error: says why once, tells the
 * launcher. Safe from any thread except a signal handler. */
void pfprof_collector_fail (const char *format, ...) __attribute__ ((format (printf, 1, 2)));

/* Expands %p (pid), %h (host name), %r (RANK or 0) and %% in @tmpl into
 * @out of @len bytes. Returns 0, or -1 when the result does not fit. */
int pfprof_collector_expand_path (const char *tmpl, char *out, size_t len);

/* Monotonic nanoseconds. */
int64_t pfprof_collector_now_monotonic (void);

/* pfprof-collector-cupti.c */

/* Subscribes, checks the version, registers buffers and enables the
 * activity kinds. Returns 0, or -1 after saying why (one line). */
int pfprof_collector_cupti_start (void);

/* Switches the timed activity kinds on or off (the --delay, --duration
 * and --sample windows, a capture range). The API callbacks stay on from
 * start to stop, and record only while tracing: switching them off while
 * another thread is inside a call leaves CUPTI believing that thread never
 * left it, and every later call of that thread, and the kernels it
 * launches, get that call's correlation id. */
void pfprof_collector_cupti_enable (int enable);

/* cuptiActivityFlushAll with @forced; never from a signal handler. */
void pfprof_collector_cupti_flush (int forced);

/* Unsubscribes and disables everything (end of recording). */
void pfprof_collector_cupti_stop (void);

/* CUPTI's timestamp, or CLOCK_REALTIME before CUPTI is up. */
int64_t pfprof_collector_cupti_timestamp (void);

/* Dropped-record count over all contexts so far. */
uint64_t pfprof_collector_cupti_dropped (void);

/* Kernels, copies and memsets recorded so far (writer thread). */
uint64_t pfprof_collector_cupti_gpu_records (void);

/* Frees a CUPTI activity buffer, or keeps it, zeroed, for CUPTI's next
 * request. Any thread but a signal handler. */
void pfprof_collector_cupti_buffer_free (uint8_t *buffer);

/* Writes every record of @buffer (@valid bytes) through @w. Runs on the
 * writer thread, inside a transaction. */
void pfprof_collector_cupti_convert (PfprofTraceWriter *w, uint8_t *buffer, size_t valid);

/* Writes versions and API filtering into the trace's meta (at start). */
void pfprof_collector_cupti_write_meta (PfprofTraceWriter *w);

/* Writes the devices seen (gpu_names, gpu_uuids) into meta (at the end,
 * once CUPTI has delivered the DEVICE records). Writer thread only. */
void pfprof_collector_cupti_write_end_meta (PfprofTraceWriter *w);

/* The strings id of API function @cbid of the runtime (@runtime) or
 * driver domain, as CUPTI names it. Writer thread only. */
uint32_t pfprof_collector_cupti_api_name (PfprofTraceWriter *w, int runtime, uint32_t cbid);

/* Converts the API records of @batch (PfprofApiPending, name ids unset)
 * and writes them through @w. Writer thread only, inside a transaction. */
void pfprof_collector_cupti_write_api (PfprofTraceWriter *w, PfprofCollectorQueueBatch *batch);

/* pfprof-collector-api.c */

/* Whether the API function @name (cuptiGetCallbackName's spelling) is one
 * the rules use, and so recorded from callbacks. */
int pfprof_collector_api_wanted (const char *name);

/* Enables @subscriber's callback for every wanted function of the runtime
 * (@runtime) and driver (@driver) domains. With @sync_records (when the
 * SYNCHRONIZATION kind is off: on the H200 that kind alone cost +17 points
 * on a launch-bound loop and most of a DDP step's overhead,
 * bench/RESULTS.md) synchronizing calls also yield sync records.
 * Returns how many callbacks were enabled. */
unsigned pfprof_collector_api_enable (CUpti_SubscriberHandle subscriber, int runtime, int driver,
                                      int sync_records);

/* Callback ids enabled by the last pfprof_collector_api_enable(). */
unsigned pfprof_collector_api_n_enabled (void);

/* The subscriber's handler for the runtime and driver domains: times the
 * call on entry, queues a record on exit. Program threads; never blocks
 * longer than a short mutex. */
void pfprof_collector_api_callback (int runtime, uint32_t cbid, const CUpti_CallbackData *cb);

/* The callbacks' records (PfprofApiPending) waiting for the writer; its
 * drops (the writer fell behind) are the trace's api_callback_dropped. */
extern PfprofCollectorQueue pfprof_collector_api_queue;

/* pfprof-collector-capture.c */

/* Enables @subscriber's callbacks of cudaProfilerStart/Stop and
 * cuProfilerStart/Stop. Returns 0, or -1 when CUPTI refused one. */
int pfprof_collector_capture_enable (CUpti_SubscriberHandle subscriber);

/* Whether @cbid of the runtime (@runtime) or driver domain is one of the
 * four; if so, starts or stops the capture range as the call says. Only
 * called with a capture range asked for (pfprof_collector.capture). */
int pfprof_collector_capture_callback (int runtime, uint32_t cbid, const CUpti_CallbackData *cb);

/* Capture ranges recorded so far. */
unsigned pfprof_collector_capture_ranges (void);

/* pfprof-collector-nvtx.c */

/* NVTX records waiting for the writer: PfprofNvtxPending pointers,
 * which whoever takes them frees with free(); its drops (queue full) are
 * the trace's nvtx_dropped. */
extern PfprofCollectorQueue pfprof_collector_nvtx_queue;

/* Frees every queued NVTX record (a forked child's copy of the parent's). */
void pfprof_collector_nvtx_discard (void);

/* pfprof-collector-python.c */

/* Writes the queued Python call sites and calls through @w. Writer
 * thread only, inside a transaction. */
void pfprof_collector_python_write (PfprofTraceWriter *w);

/* Whether sites or calls are queued. */
int pfprof_collector_python_pending (void);

/* Sites and calls refused because the queue was full. */
uint64_t pfprof_collector_python_dropped (void);

/* pfprof-collector-writer.c */

/* Opens the trace and starts the writer thread. Returns 0 or -1. */
int pfprof_collector_writer_start (void);

/* Adds a threads row the first time @tid is seen (name from /proc).
 * Writer thread only. */
void pfprof_collector_writer_note_thread (PfprofTraceWriter *w, uint32_t tid);

/* Hands a completed CUPTI buffer to the writer (takes ownership). */
void pfprof_collector_writer_push_buffer (uint8_t *buffer, size_t valid);

/* Wakes the writer early (new NVTX records, a signal). Async-signal-safe. */
void pfprof_collector_writer_wake (void);

/* Wakes the writer and has it flush CUPTI now (a capture range ended). */
void pfprof_collector_writer_request_flush (void);

/* Forced flush, final commit, finish, join. Waits at most @timeout_ms. */
void pfprof_collector_writer_stop (int timeout_ms);

/* Called in a signal handler: asks the writer to finish the trace and
 * waits at most @timeout_ms for it. Returns 1 when it finished.
 * Async-signal-safe. */
int pfprof_collector_writer_stop_from_signal (int timeout_ms);
