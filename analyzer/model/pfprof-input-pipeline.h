/* SPDX-License-Identifier: MIT */
/* pfprof-input-pipeline.h: what the DataLoader did inside, from a trace's
 * worker_events (trace/pfprof-trace-schema.h, recorded by the hook's
 * cli/pfprof_workers.py).
 *
 * Over a time window (the steady state), the batches the workers put on
 * the queue in it: the worker time per batch, what each stage took of it
 * (the dataset's loader, each transform, collate_fn, the rest of the
 * fetch), the workers' CPU use against the cores the process may use,
 * the queue wait and the pin thread's work; and from those, whether the
 * workers saturate the CPU, and how long a batch takes to come with N
 * workers. The rules read it (input-starved); nothing here judges.
 */
#pragma once

#include <glib.h>

#include "pfprof-trace.h"

G_BEGIN_DECLS

/* One stage over the window: a python_sites row of kind 6. */
typedef struct
{
  guint32 site_id;
  const char *attr;     /* the dataset attribute: "loader", "transform", ...; untrusted */
  const char *function; /* qualified name; untrusted */
  const char *file;     /* its definition; untrusted */
  gint32 line;
  gint64 ns;            /* summed over its calls in the window's batches */
  guint64 calls;
} PfprofInputStage;

typedef struct
{
  guint n_batches;        /* batches put in the window (failed ones too) */
  guint n_workers;        /* worker processes that made them */
  guint num_workers;      /* the DataLoader's num_workers, 0 if unknown */
  double cores;           /* CPU cores the process may use (affinity, cgroup quota); 0 if unknown */
  gint64 busy_ns;         /* the workers' time on those batches: indices got to batch put */
  gint64 collate_ns;      /* of it, in collate_fn */
  gint64 stages_ns;       /* of it, in the stages (PfprofInputStage) */
  gint64 cpu_ns;          /* the workers' CPU time in the window (CPU rows) */
  gint64 wall_ns;         /* their wall time over the same stretches */
  double worker_cores;    /* CPU cores the workers kept busy: cpu_ns over the window's
                           * length per worker, summed */
  gint64 queue_wait_ns;   /* mean, per batch got: put in the worker to off the queue */
  guint n_got;            /* batches the main process got in the window */
  gint64 pin_ns;          /* mean pin-thread time per batch, 0 without pin rows */
  GArray *stages;         /* PfprofInputStage, largest ns first */
} PfprofInputPipeline;

/* What @trace's worker_events say about the window [@lo, @hi); NULL when
 * it holds no batch in it (recorded without the hook, or no workers). */
PfprofInputPipeline *pfprof_input_pipeline_new (const PfprofTrace *trace, gint64 lo, gint64 hi);

void pfprof_input_pipeline_free (PfprofInputPipeline *p);

/* Worker time per batch (busy_ns / n_batches). */
gint64 pfprof_input_pipeline_batch_ns (const PfprofInputPipeline *p);

/* CPU time per batch (cpu_ns / n_batches); the batch time when the trace
 * has no CPU rows. */
gint64 pfprof_input_pipeline_batch_cpu_ns (const PfprofInputPipeline *p);

/* Whether the workers use the CPU the process may use: their busy cores
 * plus one for the training process reach 90% of @p->cores. FALSE when
 * the cores are unknown. */
gboolean pfprof_input_pipeline_saturated (const PfprofInputPipeline *p);

/* The interval between batches @workers workers can deliver: each makes
 * one per batch time, and together they can use no more than the cores
 * left to them (all but one), each batch costing its CPU time. */
gint64 pfprof_input_pipeline_interval_ns (const PfprofInputPipeline *p, guint workers);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PfprofInputPipeline, pfprof_input_pipeline_free)

G_END_DECLS
