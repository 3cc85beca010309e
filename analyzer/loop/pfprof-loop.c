/* SPDX-License-Identifier: MIT */
/* pfprof-loop.c: the training loop of one trace. */

#include "pfprof-loop.h"

#include "pfprof-lower-bound.h"
#include "pfprof-steps.h"

const char *
pfprof_loop_judge_to_string (PfprofLoopJudge judge)
{
  switch (judge)
    {
    case PFPROF_LOOP_JUDGE_EVAL: return "evaluation";
    case PFPROF_LOOP_JUDGE_ALL: return "all";
    case PFPROF_LOOP_JUDGE_TRAINING:
    default: return "training";
    }
}

gboolean
pfprof_loop_judge_from_string (const char *s, PfprofLoopJudge *judge)
{
  g_return_val_if_fail (s != NULL, FALSE);
  g_return_val_if_fail (judge != NULL, FALSE);

  if (g_str_equal (s, "training") || g_str_equal (s, "train"))
    *judge = PFPROF_LOOP_JUDGE_TRAINING;
  else if (g_str_equal (s, "eval") || g_str_equal (s, "evaluation"))
    *judge = PFPROF_LOOP_JUDGE_EVAL;
  else if (g_str_equal (s, "all"))
    *judge = PFPROF_LOOP_JUDGE_ALL;
  else
    return FALSE;
  return TRUE;
}

PfprofLoop *
pfprof_loop_new (const PfprofTraceIndex *ix, const PfprofLoopOptions *options, GArray *steps)
{
  static const PfprofLoopOptions defaults = { PFPROF_DEFAULT_STEP_PATTERN, -1, PFPROF_LOOP_JUDGE_TRAINING };
  PfprofLoop *loop;

  g_return_val_if_fail (ix != NULL, NULL);
  g_return_val_if_fail (steps != NULL, NULL);
  loop = g_new0 (PfprofLoop, 1);
  loop->ix = ix;
  loop->trace_index = ix->trace_index;
  loop->step_source = "none";
  loop->judge = options != NULL ? options->judge : PFPROF_LOOP_JUDGE_TRAINING;
  loop->steady_parts = g_array_new (FALSE, FALSE, sizeof (PfprofInterval));
  pfprof_loop_set_steady (loop, ix->trace->start_ns, ix->trace->end_ns);
  loop->ledger = pfprof_step_ledger_new (ix, loop);
  pfprof_steps_detect (loop, options != NULL ? options : &defaults, steps);
  return loop;
}

void
pfprof_loop_free (PfprofLoop *loop)
{
  if (loop == NULL)
    return;
  pfprof_step_ledger_free (loop->ledger);
  g_array_unref (loop->steady_parts);
  g_free (loop->step_name);
  g_free (loop);
}

guint
pfprof_loop_n_steady_steps (const PfprofLoop *loop)
{
  g_return_val_if_fail (loop != NULL, 0);
  return loop->n_steady_steps;
}

double
pfprof_loop_per_step_divisor (const PfprofLoop *loop)
{
  g_return_val_if_fail (loop != NULL, 1.0);
  return loop->n_steady_steps > 0 ? (double) loop->n_steady_steps : 1.0;
}

typedef struct
{
  const GArray *parts;
  gint64 t;
} PartsBefore;

static gboolean
part_starts_by (gconstpointer data, guint i)
{
  const PartsBefore *p = data;

  return g_array_index (p->parts, PfprofInterval, i).start <= p->t;
}

/* The number of steady parts that start at or before @t. */
static guint
parts_before (const PfprofLoop *loop, gint64 t)
{
  PartsBefore p = { loop->steady_parts, t };

  return pfprof_lower_bound (0, loop->steady_parts->len, part_starts_by, &p);
}

gboolean
pfprof_loop_in_steady (const PfprofLoop *loop, gint64 start)
{
  guint n;

  g_return_val_if_fail (loop != NULL, FALSE);
  n = parts_before (loop, start);
  return n > 0 && start < g_array_index (loop->steady_parts, PfprofInterval, n - 1).end;
}

gint64
pfprof_loop_steady_end_at (const PfprofLoop *loop, gint64 t)
{
  guint n;

  g_return_val_if_fail (loop != NULL, 0);
  n = parts_before (loop, t);
  if (n > 0 && t < g_array_index (loop->steady_parts, PfprofInterval, n - 1).end)
    return g_array_index (loop->steady_parts, PfprofInterval, n - 1).end;
  return loop->steady_end;
}

void
pfprof_loop_set_steady (PfprofLoop *loop, gint64 start, gint64 end)
{
  PfprofInterval part;

  g_return_if_fail (loop != NULL);
  part = (PfprofInterval) { start, end };
  g_array_set_size (loop->steady_parts, 0);
  g_array_append_val (loop->steady_parts, part);
  loop->steady_start = start;
  loop->steady_end = end;
}

void
pfprof_loop_add_steady_part (PfprofLoop *loop, gint64 start, gint64 end)
{
  PfprofInterval part;
  guint n;

  g_return_if_fail (loop != NULL);
  part = (PfprofInterval) { start, end };
  n = loop->steady_parts->len;
  if (end <= start || (n > 0 && start < g_array_index (loop->steady_parts, PfprofInterval, n - 1).end))
    return;
  if (n == 0)
    loop->steady_start = start;
  g_array_append_val (loop->steady_parts, part);
  loop->steady_end = end;
}

guint
pfprof_loop_n_steady_parts (const PfprofLoop *loop)
{
  g_return_val_if_fail (loop != NULL, 0);
  return loop->steady_parts->len;
}

PfprofInterval
pfprof_loop_steady_part (const PfprofLoop *loop, guint i)
{
  static const PfprofInterval none = { 0, 0 };

  g_return_val_if_fail (loop != NULL && i < loop->steady_parts->len, none);
  return g_array_index (loop->steady_parts, PfprofInterval, i);
}

gint64
pfprof_loop_steady_length (const PfprofLoop *loop)
{
  gint64 sum = 0;

  g_return_val_if_fail (loop != NULL, 0);
  for (guint i = 0; i < loop->steady_parts->len; i++)
    {
      PfprofInterval p = g_array_index (loop->steady_parts, PfprofInterval, i);

      sum += p.end - p.start;
    }
  return sum;
}

gint64
pfprof_loop_steady_length_of (const PfprofLoop *loop, const PfprofIntervalSet *set)
{
  gint64 sum = 0;

  g_return_val_if_fail (loop != NULL && set != NULL, 0);
  for (guint i = 0; i < loop->steady_parts->len; i++)
    {
      PfprofInterval p = g_array_index (loop->steady_parts, PfprofInterval, i);

      sum += pfprof_interval_set_length_in (set, p.start, p.end);
    }
  return sum;
}

PfprofIntervalSet *
pfprof_loop_steady_set (const PfprofLoop *loop)
{
  PfprofIntervalSetBuilder *b;

  g_return_val_if_fail (loop != NULL, NULL);
  b = pfprof_interval_set_builder_new ();
  for (guint i = 0; i < loop->steady_parts->len; i++)
    {
      PfprofInterval p = g_array_index (loop->steady_parts, PfprofInterval, i);

      pfprof_interval_set_builder_add (b, p.start, p.end);
    }
  return pfprof_interval_set_build (b);
}
