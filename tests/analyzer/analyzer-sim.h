/* SPDX-License-Identifier: MIT */
/* analyzer-sim.h: builds traces in memory for the analyzer tests.
 *
 * A small simulator of one training process: set-up (pageable weight
 * copies, allocations, autotuning synchronizations), then steps of
 * DataLoader wait, batch copy and kernels, with each problem plantable and
 * tunable so tests can put a rule just below and just above its
 * threshold. Times are in ns from 1e9 on.
 */
#pragma once

#include <glib.h>

#include "pfprof-analysis.h"
#include "pfprof-trace.h"

#define SIM_MAIN_TID 100
#define SIM_PIN_TID 101
#define SIM_NULL_STREAM 7
#define SIM_COMPUTE_STREAM 13
#define SIM_COPY_STREAM 14

typedef enum
{
  SIM_COPY_PREFETCH,   /* side stream, during the previous step's kernels */
  SIM_COPY_SERIALIZED, /* compute stream, before the kernels */
  SIM_COPY_LATE,       /* side stream, compute waits for it */
  SIM_COPY_NONE,
} SimCopyMode;

typedef struct
{
  guint n_steps;              /* 30 */
  gboolean setup;             /* start-up weight copies, allocations, autotune syncs (TRUE) */
  gboolean step_nvtx;         /* "train_step" ranges (FALSE: DataLoader waits only) */
  gboolean dataloader_nvtx;   /* DataLoader.next ranges (TRUE) */
  gint64 data_wait_ns;        /* 200 µs */
  gint64 compute_ns;          /* 4 ms in 8 kernels */
  SimCopyMode copy_mode;      /* PREFETCH */
  gboolean pageable;          /* batch copies from pageable memory */
  guint64 batch_bytes;        /* 48 MiB */
  gint64 copy_ns;             /* 2 ms */
  gint64 late_gap_ns;         /* LATE: first kernel this long after the copy (3 µs) */
  gboolean sync_each_step;    /* .item() at the end of every step */
  guint sync_every;           /* or every Nth step (0: never) */
  guint small_copies;         /* tiny HtoD copies per step */
  guint64 small_bytes;        /* their size (4 KiB) */
  gboolean small_idle;        /* the tiny copies come before the step's kernels, on the
                               * compute stream, the GPU idle: one call every
                               * small_spacing_ns, back to back (a dict of tensors, each
                               * .to()'d in a loop) */
  gint64 small_spacing_ns;    /* 20 µs */
  gboolean small_interleaved; /* small_idle: a kernel launched before each copy, so no two
                               * copy calls are back to back (copies scattered through a
                               * model's code, Python between them) */
  gint64 kernel_gap_ns;       /* the host spends this long in Python before launching
                               * each of the step's kernels but the first, GPU idle (0) */
  gboolean sync_between_kernels; /* kernel_gap_ns: each gap starts with a 4-byte DtoH copy
                                  * and its cudaStreamSynchronize (a library reading a
                                  * count back: int(index.max()), nonzero) */
  guint host_allocs;          /* cudaHostAlloc per step after warm-up... */
  guint host_allocs_every;    /* ...or one every Nth steady step */
  guint stall_episodes;       /* record_stream stall episodes after warm-up */
  guint polls_per_step;       /* cudaEventQuery polls per step */
  gboolean polls_not_ready;   /* they return 600 */
  guint mallocs_total;        /* cudaMalloc calls after warm-up (no frees) */
  gboolean mallocs_early_only; /* all of them in the first steady steps */
  const char *step_name;      /* NVTX step range name ("train_step") */
  guint slow_steps;           /* leading steps with 4x the compute (1: lazy init) */
  gint64 pid;                 /* 4242 */
  gint64 host_gap_ns;         /* host busy elsewhere at each step's end (Python), GPU idle */
  gint64 launch_gap_ns;       /* after a sync, the host launches the next step's first 4
                               * kernels this far apart, the GPU waiting for each (0) */
  gboolean no_launch_records; /* kernels without their cudaLaunchKernel records, as the
                               * collector records by default (launch records off) */
  gboolean blocking_copy;     /* SERIALIZED: .to(device) without non_blocking=True: the
                               * copy call, then cudaStreamSynchronize on its stream */
} SimOptions;

void sim_options_init (SimOptions *o);

/* Builds the trace (sorted). */
PfprofTrace *sim_build (const SimOptions *o);

/* A loop whose host runs ahead of the GPU: each step the host waits
 * @o->data_wait_ns for the DataLoader, issues the batch copy
 * (cudaMemcpyAsync, @o->copy_ns on the GPU, on the compute stream) and 8
 * kernels (@o->compute_ns in all), and goes on; the GPU runs them when it
 * gets to them. Every 4th step the host waits in cudaEventSynchronize
 * until the GPU has run all it was given (as the caching allocator does
 * when out of memory). Steps from the DataLoader waits (NVTX) and no set-up; honours
 * n_steps, data_wait_ns, compute_ns, copy_ns, batch_bytes and
 * no_launch_records. */
PfprofTrace *sim_build_host_ahead (const SimOptions *o);

/* The analysis, with @options (NULL for the defaults), of a run of
 * @traces (PfprofTrace*: taken over with the array). */
PfprofAnalysis *sim_analyze (GPtrArray *traces, const PfprofAnalysisOptions *options);

/* Interns @s in @t's string table. */
guint32 sim_intern (PfprofTrace *t, const char *s);

/* Appends a kernel @name on @stream of device 0, context 1, over [@start,
 * @end), with no correlation id (no launch record); sort afterwards. */
void sim_add_kernel (PfprofTrace *t, const char *name, guint32 stream, gint64 start, gint64 end);
