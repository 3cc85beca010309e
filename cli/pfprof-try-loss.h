/* SPDX-License-Identifier: MIT */
/* pfprof-try-loss.h: whether a fix `pfprof try` measures changed the loss
 * the program prints.
 *
 * The losses are read from each run's output: on each line, the first
 * number after the word "loss" (any case, not after a letter or digit,
 * followed by a blank, a quote, ':' or '='; so "loss 0.5", "Loss: 0.5",
 * "train_loss=0.5" and "'loss': 0.5" count, "lossy 3", "loss_scale 3"
 * and "loss-free 3" do not), optionally after "tensor(". A loss the line
 * names, before the word, as one of a phase other than training (a word
 * test, val, valid, validation, eval, evaluation, dev or their verbs:
 * "Test: [10/196] Loss 6.9", "val_loss=0.4", "'eval_loss': 0.3") is left
 * out, and so is the rest of its line. The runs are compared value by value up to
 * the fewest values any run printed, over two windows: all of them (the
 * trajectory) and the last quarter (where it ends). In each window every
 * run gets the mean of its values; the unmodified runs' means span a
 * range, whose width is the noise. A run with the fix whose mean lies
 * outside that range widened by the noise (at least
 * PFPROF_TRY_LOSS_FLOOR of the unmodified mean) changed the loss, as does
 * one whose losses became NaN or infinite where no unmodified run's did,
 * or one that printed none where every unmodified run printed some.
 * Two unmodified runs with losses are needed for the noise; with fewer,
 * only NaNs and missing losses are judged. When the unmodified runs'
 * means, in either window, lie more than PFPROF_TRY_LOSS_SPREAD_MAX of
 * their middle apart, the loss cannot be judged: only NaNs and missing
 * losses are.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The least tolerance, as a share of the unmodified runs' mean loss:
 * a fix that only reorders floating-point sums or reseeds the workers'
 * random augmentations moves the mean by less. */
#define PFPROF_TRY_LOSS_FLOOR 0.02

/* The widest spread of the unmodified runs' means, as a share of their
 * middle, that the loss is judged by: a program whose runs without any
 * change end 20% apart prints losses that are not the same quantity run
 * to run (a sum over a varying number of batches, an unseeded sample),
 * and a range that holds them holds a real change too. */
#define PFPROF_TRY_LOSS_SPREAD_MAX 0.2

typedef enum
{
  PFPROF_TRY_LOSS_NONE,      /* no run printed a loss */
  PFPROF_TRY_LOSS_UNKNOWN,   /* losses, but too few unmodified runs to judge */
  PFPROF_TRY_LOSS_SAME,      /* within the noise */
  PFPROF_TRY_LOSS_CHANGED,   /* beyond it */
  PFPROF_TRY_LOSS_UNJUDGED,  /* the unmodified runs alone spread too widely */
} PfprofTryLossVerdict;

typedef struct
{
  double lo, hi; /* the unmodified runs' means: their range */
  double b_lo, b_hi; /* the runs with the fix: their range */
  double tolerance;  /* how far outside [lo, hi] a mean may lie */
} PfprofTryLossWindow;

typedef struct
{
  PfprofTryLossVerdict verdict;
  char *why;                  /* one line: what was compared, or why not */
  guint a_runs, b_runs;       /* runs whose output was read */
  guint values;               /* values compared per run */
  PfprofTryLossWindow all;    /* every compared value */
  PfprofTryLossWindow end;    /* the last quarter of them */
} PfprofTryLoss;

/* The loss values in @text, in order (doubles). */
GArray *pfprof_try_loss_parse (const char *text);

/* Compares the losses of the unmodified runs @a and of the runs with the
 * fix @b (GArray of double each, from pfprof_try_loss_parse) into @out;
 * clear it with pfprof_try_loss_clear(). */
void pfprof_try_loss_compare (GPtrArray *a, GPtrArray *b, PfprofTryLoss *out);

void pfprof_try_loss_clear (PfprofTryLoss *loss);

/* "same", "changed", "not compared", "cannot judge" or "none". */
const char *pfprof_try_loss_verdict_name (PfprofTryLossVerdict verdict);

G_END_DECLS
