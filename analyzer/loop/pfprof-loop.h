/* SPDX-License-Identifier: MIT */
/* pfprof-loop.h: the training loop of one trace, built once.
 *
 * PfprofLoop is what pfprof takes the program's loop to be: its steps
 * (pfprof-steps.h says where they come from), each in a phase
 * (training or evaluation, pfprof-step.h), the warm-up, and the steady
 * window every rule judges: the training steps after warm-up (or, when
 * the options ask, the evaluation batches, or both), in one or more parts
 * when another phase or a recording pause splits them. It owns
 * the step ledger (pfprof-step-ledger.h) its steps are measured with.
 * pfprof_loop_new() builds it from a trace index and fills in the steps;
 * the analysis, its rules and the call sites read it and none re-derives
 * a step. GLib only.
 */
#pragma once

#include <glib.h>

#include "pfprof-step.h"
#include "pfprof-step-ledger.h"
#include "pfprof-trace-index.h"

G_BEGIN_DECLS

/* The default NVTX step pattern (case-insensitive regular expression). */
#define PFPROF_DEFAULT_STEP_PATTERN                                                                \
  "^(train[_ .-]?|training[_ .-]?|val[_ .-]?|profiler)?(step|iteration|iter|batch)([^[:alpha:]].*)?$"

/* Which phase's steps every figure is over. */
typedef enum
{
  PFPROF_LOOP_JUDGE_TRAINING = 0, /* the training steps (the default) */
  PFPROF_LOOP_JUDGE_EVAL,         /* the evaluation batches */
  PFPROF_LOOP_JUDGE_ALL,          /* both */
} PfprofLoopJudge;

/* "training", "evaluation", "all". */
const char *pfprof_loop_judge_to_string (PfprofLoopJudge judge);

/* Parses "training", "eval"/"evaluation" or "all" into *@judge. */
gboolean pfprof_loop_judge_from_string (const char *s, PfprofLoopJudge *judge);

/* What the loop model takes from the analysis options. */
typedef struct
{
  const char *step_pattern; /* NVTX step range names (a GRegex) */
  int warmup_steps;         /* -1: detect; else this many training steps */
  PfprofLoopJudge judge;    /* the phase whose steps are judged */
} PfprofLoopOptions;

struct _PfprofLoop
{
  const PfprofTraceIndex *ix;  /* the trace's index; not owned */
  guint trace_index;
  PfprofStepLedger *ledger;    /* owned: the timeline classified for the ledger */

  const char *step_source;     /* "nvtx", "optimizer", "dataloader", "periodic" or "none" */
  char *step_name;             /* NVTX range or kernel name used, untrusted; may be NULL */
  guint first_step;            /* index of this trace's first step in the steps array */
  guint n_steps;               /* steps of this trace, warm-up included */
  guint n_warmup_steps;
  guint n_steady_steps;        /* training steps after warm-up: the steps
                                * every per-step figure divides by */
  guint n_unrecorded_steps;    /* left out: not whole inside a recording
                                * window, or the first of one */
  gint64 steady_start;         /* the window rules judge: from the first */
  gint64 steady_end;           /* steady part's start to the last's end */
  GArray *steady_parts;        /* PfprofInterval, time order; one when the
                                * trace was recorded all through */
  gint64 step_median_ns;       /* median step length (pfprof_step_length)
                                * over this trace's steady steps, 0 if none */
  /* The phases: */
  gboolean has_training_marks; /* optimizer steps or backward passes recorded */
  guint n_training_steps;      /* steps with either (all steps without marks) */
  guint n_eval_steps;          /* loader batches with neither */
  gint64 eval_ns;              /* their host time */
  gint64 loop_start_ns;        /* first training step's start, 0 without steps */
  gint64 loop_end_ns;          /* last training step's end, 0 without steps */
  PfprofLoopJudge judge;       /* the phase whose steps are the steady ones */
};

/* Builds the loop of @ix's trace: appends its steps to @steps (PfprofStep,
 * time order within the trace), marks phases and warm-up, measures each
 * step and sets the steady window. @options may be NULL for the defaults.
 * @ix must outlive the loop. */
PfprofLoop *pfprof_loop_new (const PfprofTraceIndex *ix, const PfprofLoopOptions *options /* nullable */,
                             GArray *steps);

void pfprof_loop_free (PfprofLoop *loop /* nullable */);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PfprofLoop, pfprof_loop_free)

/* Number of steady-state (non-warm-up training) steps; 0 when no steps
 * were found. */
guint pfprof_loop_n_steady_steps (const PfprofLoop *loop);

/* The divisor that turns a steady-state total into a per-step figure:
 * the number of steady steps, or 1 when there are none (then figures are
 * totals over the steady window). */
double pfprof_loop_per_step_divisor (const PfprofLoop *loop);

/* TRUE when [@start, @end) lies in the steady window (starts inside one
 * of its parts). */
gboolean pfprof_loop_in_steady (const PfprofLoop *loop, gint64 start);

/* Makes the steady window the one part [@start, @end). */
void pfprof_loop_set_steady (PfprofLoop *loop, gint64 start, gint64 end);

/* Adds the part [@start, @end) after the last (an empty or earlier one is
 * ignored) and stretches steady_start/steady_end over it. */
void pfprof_loop_add_steady_part (PfprofLoop *loop, gint64 start, gint64 end);

/* The steady window's parts: every total "over the steady window" is the
 * sum over these. */
guint pfprof_loop_n_steady_parts (const PfprofLoop *loop);
PfprofInterval pfprof_loop_steady_part (const PfprofLoop *loop, guint i);

/* Length of the steady window (its parts' sum), and of @set inside it. */
gint64 pfprof_loop_steady_length (const PfprofLoop *loop);
gint64 pfprof_loop_steady_length_of (const PfprofLoop *loop, const PfprofIntervalSet *set);

/* The end of the steady part that holds @t, or steady_end when none does:
 * how far a gap after an event at @t may run. */
gint64 pfprof_loop_steady_end_at (const PfprofLoop *loop, gint64 t);

/* The steady window's parts as a new set (free it). */
PfprofIntervalSet *pfprof_loop_steady_set (const PfprofLoop *loop);

G_END_DECLS
