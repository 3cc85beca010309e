/* SPDX-License-Identifier: MIT */
/* pfprof-step.h: one step of the training loop, and the phase it is in.
 *
 * A step has two sides: the host's interval (start_ns to end_ns: from the
 * step's mark on the launching thread to the next one's) and the GPU's
 * (gpu_start_ns to gpu_end_ns: from the first work the step launched to
 * the first work the next step launched). When the host runs ahead of
 * the GPU the two differ; every per-step figure pfprof shows is over the
 * GPU side (pfprof_step_length), the side the copy, compute and idle
 * figures and the ledger measure. GLib only.
 */
#pragma once

#include <glib.h>

#include "pfprof-step-ledger.h"

G_BEGIN_DECLS

/* What a step belongs to. A trace that shows no training evidence
 * (no optimizer step, no backward pass recorded) has training steps only,
 * as before such evidence was recorded. */
typedef enum
{
  PFPROF_PHASE_TRAINING = 0, /* a backward pass or an optimizer step in it */
  PFPROF_PHASE_EVAL = 1,     /* loader batches with neither */
} PfprofPhase;

/* "training", "evaluation". */
const char *pfprof_phase_to_string (PfprofPhase phase);

/* One step of one trace: a training step, or a batch of evaluation. */
typedef struct
{
  guint trace_index;
  gint64 start_ns;
  gint64 end_ns;
  gint64 data_wait_ns;    /* host waited for the DataLoader */
  gint64 copy_hidden_ns;  /* HtoD copy overlapped by kernels */
  gint64 copy_exposed_ns; /* HtoD copy with no kernel beside it */
  gint64 compute_ns;      /* kernel busy time */
  gint64 sync_wait_ns;    /* host blocked in synchronizing calls */
  gint64 idle_ns;         /* GPU neither computing nor copying */
  gboolean warmup;        /* detected as warm-up, excluded from medians */
  /* The GPU's side of the step, which the copy, compute and idle figures
   * cover: from the first GPU work the step launched to the first work the
   * next step launched (the host may run steps ahead of the GPU). Equal to
   * start_ns/end_ns when steps come from the GPU work itself. */
  gint64 gpu_start_ns;
  gint64 gpu_end_ns;
  gint64 comm_ns;         /* communication (NCCL) kernel busy time, not in compute_ns */
  /* The ledger of the GPU-side window (pfprof-step-ledger.h): buckets that
   * sum to gpu_end_ns - gpu_start_ns. */
  gint64 ledger_ns[PFPROF_LEDGER_N_BUCKETS];
  PfprofPhase phase;
  gboolean unjudged;      /* in a phase the analysis does not judge (by
                           * default evaluation: pfprof-loop.h) */
} PfprofStep;

/* TRUE for the steps every per-step figure is over: the judged phase's
 * steps after warm-up (by default the training steps). */
static inline gboolean
pfprof_step_is_steady (const PfprofStep *s)
{
  return !s->warmup && !s->unjudged;
}

/* TRUE when the step has a GPU side (steps measured before one was
 * found have only the host's). */
static inline gboolean
pfprof_step_has_gpu_side (const PfprofStep *s)
{
  return s->gpu_end_ns > s->gpu_start_ns || s->gpu_start_ns != 0;
}

/* The step's length as every per-step figure counts it: its GPU side,
 * which its parts (copy, compute, idle, the ledger) add up to; the host
 * side when it has no GPU side. */
static inline gint64
pfprof_step_length (const PfprofStep *s)
{
  return pfprof_step_has_gpu_side (s) ? s->gpu_end_ns - s->gpu_start_ns : s->end_ns - s->start_ns;
}

/* Where that length starts. */
static inline gint64
pfprof_step_start (const PfprofStep *s)
{
  return pfprof_step_has_gpu_side (s) ? s->gpu_start_ns : s->start_ns;
}

/* The median of @n step lengths, sorting @lengths: the length of the step
 * of median length, the shorter of the middle two for an even count (the
 * nearest-rank median, as the p10 and p90 beside it), so that the median
 * step is a step whose ledger can be shown. 0 when @n is 0. */
gint64 pfprof_step_median (gint64 *lengths, guint n);

G_END_DECLS
