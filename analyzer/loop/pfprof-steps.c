/* SPDX-License-Identifier: MIT */
/* pfprof-steps.c: step and warm-up detection, per-step breakdown. */
#include "pfprof-steps.h"

#include "pfprof-huge-pages.h"
#include "pfprof-lower-bound.h"

#include <math.h>
#include <string.h>

#include "pfprof-quantile.h"

const PfprofDeviceTimeline *
pfprof_steps_primary_device (const PfprofTraceIndex *ix)
{
  const PfprofDeviceTimeline *best = NULL;

  g_return_val_if_fail (ix != NULL, NULL);
  for (guint i = 0; i < ix->devices->len; i++)
    {
      const PfprofDeviceTimeline *d = &g_array_index (ix->devices, PfprofDeviceTimeline, i);

      if (best == NULL || d->n_kernels > best->n_kernels)
        best = d;
    }
  return best;
}

/* Makes room in @steps for @n more steps at once: grown step by step, the
 * array of 100k steps was copied over a few times into fresh memory. */
static void
reserve_steps (GArray *steps, guint n)
{
  pfprof_huge_array_reserve (steps, n);
}

static void
add_step (GArray *steps, guint trace_index, gint64 start, gint64 end)
{
  PfprofStep s = { 0 };

  if (end <= start)
    return;
  s.trace_index = trace_index;
  s.start_ns = start;
  s.end_ns = end;
  g_array_append_val (steps, s);
}

/* The steps' name: "ProfilerStep#15–#24" when numbered ranges run from
 * @first to @last, else @first. */
static char *
step_range_name (const char *first, const char *last)
{
  const char *a = strrchr (first, '#'), *b = strrchr (last, '#');

  if (a == NULL || b == NULL || strcmp (first, last) == 0 || a - first != b - last
      || strncmp (first, last, (size_t) (a - first)) != 0)
    return g_strdup (first);
  return g_strdup_printf ("%s\u2013%s", first, b);
}

/* 1. NVTX ranges matching the pattern. */
static gboolean
steps_from_nvtx (PfprofLoop *loop, const PfprofLoopOptions *options, GArray *out)
{
  const PfprofTraceIndex *ix = loop->ix;
  const PfprofTrace *t = ix->trace;
  const PfprofNvtxRecord *nv = pfprof_trace_nvtx (t);
  guint n = pfprof_trace_n (t, PFPROF_TABLE_NVTX);
  g_autoptr (GRegex) re = NULL;
  g_autofree gint8 *match = NULL; /* per string id: -1 unknown, 0 no, 1 yes */
  g_autoptr (GHashTable) per_tid = g_hash_table_new (g_direct_hash, g_direct_equal);
  guint32 tid = 0;
  guint best = 0;
  gint64 covered_until = G_MININT64;
  guint32 name_id = PFPROF_NONE, last_id = PFPROF_NONE;
  guint w = 0, before = out->len;
  GHashTableIter it;
  gpointer k, v;

  if (n == 0)
    return FALSE;
  re = g_regex_new (options->step_pattern,
                    G_REGEX_CASELESS | G_REGEX_DOTALL | G_REGEX_OPTIMIZE, 0, NULL);
  if (re == NULL)
    return FALSE;
  match = g_new (gint8, t->strings->len + 1);
  memset (match, -1, t->strings->len + 1);
  for (guint i = 0; i < n; i++)
    {
      guint32 id = nv[i].name_id;
      gpointer key = GUINT_TO_POINTER (nv[i].tid);

      if (nv[i].kind != PFPROF_NVTX_RANGE || id >= t->strings->len)
        continue;
      if (match[id] < 0)
        {
          /* Names are untrusted: match a valid-UTF-8 copy. */
          g_autofree char *s = g_utf8_make_valid (pfprof_trace_string (t, id), -1);

          match[id] = g_regex_match (re, s, 0, NULL) ? 1 : 0;
        }
      if (match[id])
        g_hash_table_insert (per_tid, key,
                             GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (per_tid, key)) + 1));
    }
  g_hash_table_iter_init (&it, per_tid);
  while (g_hash_table_iter_next (&it, &k, &v))
    if (GPOINTER_TO_UINT (v) > best || (GPOINTER_TO_UINT (v) == best && GPOINTER_TO_UINT (k) < tid))
      {
        best = GPOINTER_TO_UINT (v);
        tid = GPOINTER_TO_UINT (k);
      }
  /* One annotated step is one step: the program said where its step is,
   * and the recurring kernels inside it are its layers, not steps. */
  if (best < 1)
    return FALSE;
  reserve_steps (out, best);
  for (guint i = 0; i < n; i++)
    {
      guint32 id = nv[i].name_id;
      gint64 start = nv[i].start_ns;

      if (nv[i].kind != PFPROF_NVTX_RANGE || id >= t->strings->len || match[id] != 1
          || nv[i].tid != tid)
        continue;
      /* Outermost only: a "step" inside a "train_step" is part of it. */
      if (nv[i].start_ns < covered_until)
        continue;
      /* A range often covers only the compute; the DataLoader wait right
       * before it belongs to the same iteration. */
      while (w < ix->data_waits->len
             && g_array_index (ix->data_waits, PfprofInterval, w).start < nv[i].start_ns)
        {
          PfprofInterval iv = g_array_index (ix->data_waits, PfprofInterval, w);

          if (iv.start >= covered_until && iv.end <= nv[i].start_ns + 1000)
            start = MIN (start, iv.start);
          w++;
        }
      /* Steps are contiguous: a step runs until the next one starts. */
      if (out->len > before)
        {
          PfprofStep *prev = &g_array_index (out, PfprofStep, out->len - 1);

          prev->end_ns = MAX (prev->end_ns, start);
        }
      add_step (out, ix->trace_index, start, nv[i].end_ns);
      covered_until = nv[i].end_ns;
      if (name_id == PFPROF_NONE)
        name_id = id;
      last_id = id;
    }
  loop->step_source = "nvtx";
  loop->step_name = step_range_name (pfprof_trace_string (t, name_id), pfprof_trace_string (t, last_id));
  return TRUE;
}

/* End of the last step when only its start is known: one median period
 * later, or the end of the trace if that comes first. */
static gint64
last_step_end (PfprofLoop *loop, const gint64 *starts, guint n)
{
  const PfprofTraceIndex *ix = loop->ix;
  g_autofree gint64 *d = g_new (gint64, n);
  gint64 med;

  for (guint i = 0; i + 1 < n; i++)
    d[i] = starts[i + 1] - starts[i];
  med = pfprof_quantile_median_i64 (d, n - 1);
  return MIN (ix->trace->end_ns, starts[n - 1] + med);
}

/* With DataLoader waits ending at @wait_ends, the last step's work starts
 * when its wait ends (a loader that fetches a batch ahead runs its last
 * batch after the wait that found the loader empty, however long that
 * took) and takes what a batch took after its wait, the median of the
 * last RECENT_PERIODS (the pace where the loop ended: an evaluation pass
 * runs at its own). */
#define RECENT_PERIODS 16

static gint64
last_step_work_end (PfprofLoop *loop, const gint64 *starts, const gint64 *wait_ends, guint n)
{
  guint k = MIN (n - 1, RECENT_PERIODS);
  g_autofree gint64 *d = g_new (gint64, k);

  for (guint i = 0; i < k; i++)
    d[i] = MAX (0, starts[n - k + i] - wait_ends[n - k + i - 1]);
  return MIN (loop->ix->trace->end_ns, wait_ends[n - 1] + pfprof_quantile_median_i64 (d, k));
}

/* A step with no kernel at all (the wait that ended the loop). */
static gboolean
has_gpu_work (const PfprofTraceIndex *ix, gint64 start, gint64 end)
{
  for (guint i = 0; i < ix->devices->len; i++)
    if (pfprof_interval_set_length_in (g_array_index (ix->devices, PfprofDeviceTimeline, i).kernels,
                                       start, end) > 0)
      return TRUE;
  return FALSE;
}

/* Steps from their starts (and the ends of the DataLoader waits that
 * began them, @wait_ends, or NULL). */
static gboolean
steps_from_starts (PfprofLoop *loop, const gint64 *starts, const gint64 *wait_ends, guint n, GArray *out)
{
  const PfprofTraceIndex *ix = loop->ix;
  guint before = out->len;

  if (n < 2)
    return FALSE;
  reserve_steps (out, n);
  for (guint i = 0; i + 1 < n; i++)
    add_step (out, ix->trace_index, starts[i], starts[i + 1]);
  add_step (out, ix->trace_index, starts[n - 1],
            MAX (last_step_end (loop, starts, n),
                 wait_ends != NULL ? last_step_work_end (loop, starts, wait_ends, n) : 0));
  if (out->len > before)
    {
      PfprofStep *last = &g_array_index (out, PfprofStep, out->len - 1);

      if (!has_gpu_work (ix, last->start_ns, last->end_ns))
        g_array_set_size (out, out->len - 1);
    }
  return out->len - before >= 2;
}

/* 2. Each DataLoader wait begins a step. */
static gboolean
steps_from_dataloader (PfprofLoop *loop, GArray *out)
{
  const PfprofTraceIndex *ix = loop->ix;
  guint n = ix->data_waits->len;
  g_autofree gint64 *starts = g_new (gint64, n + 1);
  g_autofree gint64 *ends = g_new (gint64, n + 1);
  guint before = out->len;

  for (guint i = 0; i < n; i++)
    {
      starts[i] = g_array_index (ix->data_waits, PfprofInterval, i).start;
      ends[i] = g_array_index (ix->data_waits, PfprofInterval, i).end;
    }
  if (!steps_from_starts (loop, starts, ends, n, out))
    {
      g_array_set_size (out, before);
      return FALSE;
    }
  loop->step_source = "dataloader";
  loop->step_name = g_strdup (PFPROF_NVTX_DATALOADER_WAIT);
  return TRUE;
}

/* ---- The loop's phases ---------------------------------------------- */

/* Where the trace shows training: optimizer steps and backward passes,
 * as times in order. */
typedef struct
{
  GArray *optimizer; /* gint64 */
  GArray *backward;  /* gint64 */
} Evidence;

static void
evidence_clear (Evidence *ev)
{
  g_clear_pointer (&ev->optimizer, g_array_unref);
  g_clear_pointer (&ev->backward, g_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Evidence, evidence_clear)

enum { EV_UNKNOWN = -1, EV_NONE = 0, EV_OPTIMIZER = 1, EV_BACKWARD = 2, EV_PFPROF_DOMAIN = 3 };

static int
compare_i64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

/* The hook's marks (domain "pfprof": "Optimizer.step", "backward") and
 * torch.profiler's "Optimizer.step#SGD.step" ranges. */
static void
evidence_collect (const PfprofTraceIndex *ix, Evidence *ev)
{
  const PfprofTrace *t = ix->trace;
  const PfprofNvtxRecord *nv = pfprof_trace_nvtx (t);
  guint n = pfprof_trace_n (t, PFPROF_TABLE_NVTX);
  g_autofree gint8 *cls = g_new (gint8, t->strings->len + 1);

  ev->optimizer = g_array_new (FALSE, FALSE, sizeof (gint64));
  ev->backward = g_array_new (FALSE, FALSE, sizeof (gint64));
  memset (cls, EV_UNKNOWN, t->strings->len + 1);
  for (guint i = 0; i < n; i++)
    {
      guint32 id = nv[i].name_id, dom = nv[i].domain_id;
      int c;

      if (id >= t->strings->len)
        continue;
      if (cls[id] == EV_UNKNOWN)
        {
          const char *name = pfprof_trace_string (t, id);

          cls[id] = g_str_has_prefix (name, PFPROF_NVTX_OPTIMIZER_STEP "#") ? EV_OPTIMIZER
                    : strcmp (name, PFPROF_NVTX_OPTIMIZER_STEP) == 0          ? EV_OPTIMIZER
                    : strcmp (name, PFPROF_NVTX_BACKWARD) == 0                ? EV_BACKWARD
                    : strcmp (name, PFPROF_NVTX_DOMAIN_PFPROF) == 0           ? EV_PFPROF_DOMAIN
                                                                              : EV_NONE;
        }
      c = cls[id];
      if (c != EV_OPTIMIZER && c != EV_BACKWARD)
        continue;
      /* The hook's own names count in its domain only; the profiler's
       * "Optimizer.step#..." in any. */
      if (!g_str_has_prefix (pfprof_trace_string (t, id), PFPROF_NVTX_OPTIMIZER_STEP "#"))
        {
          if (dom >= t->strings->len)
            continue;
          if (cls[dom] == EV_UNKNOWN)
            cls[dom] = strcmp (pfprof_trace_string (t, dom), PFPROF_NVTX_DOMAIN_PFPROF) == 0
                         ? EV_PFPROF_DOMAIN : EV_NONE;
          if (cls[dom] != EV_PFPROF_DOMAIN)
            continue;
        }
      g_array_append_val (c == EV_OPTIMIZER ? ev->optimizer : ev->backward, nv[i].start_ns);
    }
  g_array_sort (ev->optimizer, compare_i64);
  g_array_sort (ev->backward, compare_i64);
}

/* A time in a sorted array of times. */
/* How many of @times (sorted) lie in [@a, @b). */
static guint
count_in (const GArray *times, gint64 a, gint64 b)
{
  const gint64 *v = (const gint64 *) (void *) times->data;
  guint first = pfprof_lower_bound_i64 (v, 0, times->len, a);

  return pfprof_lower_bound_i64 (v, first, times->len, b) - first;
}

/* Sets each step's phase: training when it holds an optimizer step or a
 * backward pass. */
static void
assign_phases (PfprofLoop *loop, const Evidence *ev, GArray *steps, guint first)
{
  loop->has_training_marks = ev->optimizer->len + ev->backward->len > 0;
  if (!loop->has_training_marks)
    return;
  for (guint i = first; i < steps->len; i++)
    {
      PfprofStep *s = &g_array_index (steps, PfprofStep, i);

      s->phase = count_in (ev->optimizer, s->start_ns, s->end_ns)
                       + count_in (ev->backward, s->start_ns, s->end_ns) > 0
                   ? PFPROF_PHASE_TRAINING : PFPROF_PHASE_EVAL;
    }
}

/* The first training mark (optimizer step or backward pass) at or after
 * @a, or G_MAXINT64. */
static gint64
first_mark_from (const Evidence *ev, gint64 a)
{
  gint64 t = G_MAXINT64;
  const GArray *lists[] = { ev->optimizer, ev->backward };

  for (guint k = 0; k < G_N_ELEMENTS (lists); k++)
    {
      const gint64 *v = (const gint64 *) (void *) lists[k]->data;
      guint i = pfprof_lower_bound_i64 (v, 0, lists[k]->len, a);

      if (i < lists[k]->len)
        t = MIN (t, v[i]);
    }
  return t;
}

/* An annotated step whose training batch comes after two or more
 * DataLoader waits holds batches without a backward pass or an optimizer
 * step before it: a whole evaluation pass when the program marks its
 * steps after each optimizer step (torch.profiler's prof.step() put
 * where the optimizer steps, and validation between two of them). Each
 * wait before the training batch begins a batch of its own, judged by its
 * marks as any loader batch is; the step keeps its training batch. */
static void
split_annotated (PfprofLoop *loop, const Evidence *ev, GArray *steps, guint first)
{
  const GArray *waits = loop->ix->data_waits;
  g_autoptr (GArray) out = NULL;

  if (strcmp (loop->step_source, "nvtx") != 0 || waits->len < 2
      || ev->optimizer->len + ev->backward->len == 0)
    return;
  out = g_array_new (FALSE, FALSE, sizeof (PfprofStep));
  for (guint i = first; i < steps->len; i++)
    {
      PfprofStep s = g_array_index (steps, PfprofStep, i);
      gint64 mark = first_mark_from (ev, s.start_ns), at = s.start_ns;
      guint w = 0, k;

      /* The first wait inside the step, then those before its first mark. */
      while (w < waits->len && g_array_index (waits, PfprofInterval, w).start <= s.start_ns)
        w++;
      for (k = w; k < waits->len && g_array_index (waits, PfprofInterval, k).start < MIN (mark, s.end_ns); k++)
        ;
      if (mark >= s.end_ns || k - w < 2)
        {
          g_array_append_val (out, s);
          continue;
        }
      for (guint j = w; j < k; j++)
        {
          gint64 next = g_array_index (waits, PfprofInterval, j).start;

          add_step (out, s.trace_index, at, next);
          at = next;
        }
      s.start_ns = at;
      g_array_append_val (out, s);
    }
  g_array_set_size (steps, first);
  g_array_append_vals (steps, out->data, out->len);
}

static gboolean gpu_windows (PfprofLoop *loop, GArray *steps, guint first, guint n, gint64 *kernel_ns,
                             guint *htod);

/* A loader batch with neither a backward pass nor an optimizer step, and
 * next to no kernel time of its own, is a fetch rather than a batch: a
 * prefetcher's priming fetch before its loop starts (apex's and timm's
 * prefetchers, accelerate's loader, which fetches one batch ahead),
 * micro-batches fetched together ahead of the step that uses them
 * (Hugging Face's Trainer fetches all of an optimizer step's micro-batches
 * first), or the wait that found an evaluation loader empty and the
 * evaluation's last host work after it. A run of them joins the batch
 * that follows and takes its phase; between an evaluation batch and a
 * training one (or the end) it is that evaluation's tail and joins it, up
 * to the first fetch that copies a batch to the GPU (a prefetcher priming
 * the training loop); after the last training step with nothing after it,
 * it is after the loop and no step. "Next to no kernel time": under 1/PFPROF_FETCH_SHARE
 * of the kernel time a training batch takes per backward pass, where an
 * evaluation batch's forward pass takes about a third. Returns the loader
 * batches that joined training steps. */
#define PFPROF_FETCH_SHARE 20

static guint
join_fetches (PfprofLoop *loop, const Evidence *ev, GArray *steps, guint first)
{
  const PfprofDeviceTimeline *dev = pfprof_steps_primary_device (loop->ix);
  guint n = steps->len - first, n_ref = 0, keep = first, joined_training = 0;
  gboolean any_eval = FALSE, windows_only;
  g_autofree gint64 *kernel_ns = NULL;
  g_autofree gint64 *per_backward = NULL;
  g_autofree guint *htod = NULL;
  gint64 ref;

  if (!loop->has_training_marks || n < 2 || dev == NULL
      || (strcmp (loop->step_source, "dataloader") != 0 && strcmp (loop->step_source, "nvtx") != 0))
    return 0;
  for (guint i = first; i < steps->len && !any_eval; i++)
    any_eval = g_array_index (steps, PfprofStep, i).phase == PFPROF_PHASE_EVAL;
  if (!any_eval)
    return 0;
  kernel_ns = g_new0 (gint64, n);
  per_backward = g_new (gint64, n);
  /* The kernel time each batch launched (a host running ahead launches a
   * batch's work long before the GPU runs it, and a side stream's copies
   * start the next batch's GPU side early); where launches cannot be told
   * apart, the kernel time in its window. */
  htod = g_new0 (guint, n);
  windows_only = !gpu_windows (loop, steps, first, n, kernel_ns, htod);
  for (guint i = 0; i < n; i++)
    {
      const PfprofStep *s = &g_array_index (steps, PfprofStep, first + i);

      if (windows_only)
        kernel_ns[i] = pfprof_interval_set_length_in (dev->kernels, s->start_ns, s->end_ns);
      if (s->phase == PFPROF_PHASE_TRAINING)
        per_backward[n_ref++] = kernel_ns[i] / MAX (1, (gint64) count_in (ev->backward, s->start_ns, s->end_ns));
    }
  ref = n_ref > 0 ? pfprof_quantile_median_i64 (per_backward, n_ref) : 0;
  if (ref <= 0)
    return 0;
#define IS_FETCH(i)                                                                       \
  (g_array_index (steps, PfprofStep, first + (i)).phase == PFPROF_PHASE_EVAL               \
   && kernel_ns[i] * PFPROF_FETCH_SHARE < ref)
  for (guint i = 0; i < n;)
    {
      guint j = i;
      PfprofStep *prev = keep > first ? &g_array_index (steps, PfprofStep, keep - 1) : NULL;

      while (j < n && IS_FETCH (j))
        j++;
      if (j == i)
        {
          g_array_index (steps, PfprofStep, keep++) = g_array_index (steps, PfprofStep, first + i);
          i++;
          continue;
        }
      if (prev != NULL && prev->phase == PFPROF_PHASE_EVAL
          && (j == n || g_array_index (steps, PfprofStep, first + j).phase == PFPROF_PHASE_TRAINING))
        {
          /* The evaluation's tail, up to a fetch that copies a batch in:
           * a prefetcher priming the training loop, which joins it. */
          guint tail = i;

          while (tail < j && (windows_only || htod[tail] == 0))
            tail++;
          if (tail > i)
            prev->end_ns = g_array_index (steps, PfprofStep, first + tail - 1).end_ns;
          if (tail < j && j < n)
            {
              PfprofStep s = g_array_index (steps, PfprofStep, first + j);

              s.start_ns = g_array_index (steps, PfprofStep, first + tail).start_ns;
              joined_training += j - tail;
              g_array_index (steps, PfprofStep, keep++) = s;
              j++;
            }
        }
      else if (j < n)
        {
          PfprofStep s = g_array_index (steps, PfprofStep, first + j);

          s.start_ns = g_array_index (steps, PfprofStep, first + i).start_ns;
          if (s.phase == PFPROF_PHASE_TRAINING)
            joined_training += j - i;
          g_array_index (steps, PfprofStep, keep++) = s;
          j++;
        }
      i = j;
    }
#undef IS_FETCH
  g_array_set_size (steps, keep);
  return joined_training;
}

/* With gradient accumulation (training batches without an optimizer step
 * of their own, or fetched ahead of it: @joined) one optimizer step is
 * one step: joins each optimizer step's batches. */
static void
group_accumulation (PfprofLoop *loop, const Evidence *ev, GArray *steps, guint first, guint joined)
{
  guint n = steps->len - first, keep = first, n_opt = 0, n_train = joined;
  gint64 group_start = -1;
  g_autofree gboolean *has_opt = NULL;
  gboolean annotated;

  if (!loop->has_training_marks)
    return;
  /* Whether each step holds an optimizer step, from this one pass: the
   * grouping below reads it again. */
  has_opt = g_new0 (gboolean, n + 1);
  for (guint i = first; i < steps->len; i++)
    {
      const PfprofStep *s = &g_array_index (steps, PfprofStep, i);

      has_opt[i - first] = count_in (ev->optimizer, s->start_ns, s->end_ns) > 0;
      n_opt += has_opt[i - first];
      n_train += s->phase == PFPROF_PHASE_TRAINING;
    }
  /* Steps from loader batches or annotated ones (prof.step() called per
   * micro-batch): one optimizer step is one step, when the batches
   * accumulate (at least 1.5 a step on average). An optimizer step
   * skipped now and then is no accumulation: GradScaler skips the step
   * of a batch whose gradients overflowed, and that batch is still a step
   * of its own. */
  annotated = strcmp (loop->step_source, "nvtx") == 0;
  if ((strcmp (loop->step_source, "dataloader") != 0 && !annotated) || n_opt < 2
      || (double) n_train < 1.5 * (double) n_opt)
    return;
  for (guint i = first; i < first + n; i++)
    {
      PfprofStep s = g_array_index (steps, PfprofStep, i);

      if (s.phase == PFPROF_PHASE_EVAL)
        {
          if (group_start >= 0)
            {
              /* Micro-batches left without their optimizer step. */
              PfprofStep *g = &g_array_index (steps, PfprofStep, keep - 1);

              g->start_ns = group_start;
              group_start = -1;
            }
          g_array_index (steps, PfprofStep, keep++) = s;
          continue;
        }
      if (group_start < 0)
        {
          group_start = s.start_ns;
          g_array_index (steps, PfprofStep, keep++) = s;
        }
      else
        g_array_index (steps, PfprofStep, keep - 1).end_ns = s.end_ns;
      if (has_opt[i - first])
        {
          g_array_index (steps, PfprofStep, keep - 1).start_ns = group_start;
          group_start = -1;
        }
    }
  /* Annotated steps recorded in a window (torch.profiler's schedule) may
   * end inside an accumulation: micro-batches with no optimizer step yet
   * are no whole step. */
  if (annotated && group_start >= 0)
    keep--;
  g_array_set_size (steps, keep);
  loop->step_source = "optimizer";
  g_free (loop->step_name);
  loop->step_name = g_strdup (PFPROF_NVTX_OPTIMIZER_STEP);
}

/* Without loader batches or annotated steps: each optimizer step ends one. */
static gboolean
steps_from_optimizer (PfprofLoop *loop, const Evidence *ev, GArray *out)
{
  guint before = out->len;

  if (ev->optimizer->len < 2
      || !steps_from_starts (loop, (const gint64 *) ev->optimizer->data, NULL, ev->optimizer->len, out))
    {
      g_array_set_size (out, before);
      return FALSE;
    }
  loop->step_source = "optimizer";
  loop->step_name = g_strdup (PFPROF_NVTX_OPTIMIZER_STEP);
  return TRUE;
}

typedef struct
{
  guint count;
  gint64 first;
  gint64 last;
  double sum;  /* of inter-arrival times */
  double sum2;
} Recurrence;

/* 3. The kernel that recurs most often at a regular interval. */
static gboolean
steps_from_period (PfprofLoop *loop, GArray *out)
{
  const PfprofTraceIndex *ix = loop->ix;
  const PfprofTrace *t = ix->trace;
  const PfprofKernelRecord *k = pfprof_trace_kernels (t);
  guint nk = pfprof_trace_n (t, PFPROF_TABLE_KERNELS);
  const PfprofDeviceTimeline *dev = pfprof_steps_primary_device (ix);
  guint ns = t->strings->len + 1;
  g_autofree Recurrence *r = NULL;
  guint32 best = PFPROF_NONE;
  g_autoptr (GArray) starts = NULL;
  guint before = out->len;
  gint64 span_lo, span_hi;
  const guint *ki;
  guint nki;

  if (dev == NULL || nk < 8 || pfprof_interval_set_n (dev->kernels) == 0)
    return FALSE;
  r = g_new0 (Recurrence, ns);
  ki = pfprof_device_timeline_records (dev, PFPROF_TABLE_KERNELS, &nki);
  for (guint j = 0; j < nki; j++)
    {
      guint i = pfprof_device_record_at (ki, j);
      Recurrence *x;

      if (k[i].device_id != dev->device_id || k[i].name_id >= ns - 1)
        continue;
      x = &r[k[i].name_id];
      if (x->count == 0)
        x->first = k[i].start_ns;
      else
        {
          double d = (double) (k[i].start_ns - x->last);

          x->sum += d;
          x->sum2 += d * d;
        }
      x->last = k[i].start_ns;
      x->count++;
    }
  span_lo = pfprof_interval_set_get (dev->kernels, 0).start;
  span_hi = pfprof_interval_set_get (dev->kernels, pfprof_interval_set_n (dev->kernels) - 1).end;
  for (guint32 id = 0; id < ns - 1; id++)
    {
      Recurrence *x = &r[id];
      double mean, var;

      /* Step markers recur through the run, not only in a burst of
       * autotuning trials at start-up; three are enough for a short
       * recording of a few iterations. */
      if (x->count < 3 || (double) (x->last - x->first) < 0.5 * (double) (span_hi - span_lo))
        continue;
      mean = x->sum / (x->count - 1);
      var = x->sum2 / (x->count - 1) - mean * mean;
      /* Regular: the interval varies by at most a quarter of its mean. */
      if (mean <= 0 || sqrt (MAX (var, 0.0)) > 0.25 * mean)
        continue;
      if (best == PFPROF_NONE || x->count > r[best].count
          || (x->count == r[best].count && x->first < r[best].first))
        best = id;
    }
  if (best == PFPROF_NONE)
    return FALSE;
  starts = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (guint j = 0; j < nki; j++)
    if (k[pfprof_device_record_at (ki, j)].name_id == best)
      g_array_append_val (starts, k[pfprof_device_record_at (ki, j)].start_ns);
  if (!steps_from_starts (loop, (gint64 *) (void *) starts->data, NULL, starts->len, out))
    {
      g_array_set_size (out, before);
      return FALSE;
    }
  loop->step_source = "periodic";
  loop->step_name = g_strdup (pfprof_trace_string (t, best));
  return TRUE;
}

/* Largest correlation id among the API calls of @api (time order) that
 * began before @t, or 0; *@k walks forward over @api, *@max is the
 * largest id of the calls before *@k. */
static guint32
corr_before (const PfprofApiRecord *api, guint na, guint *k, guint32 *max, gint64 t)
{
  for (; *k < na && api[*k].start_ns < t; (*k)++)
    *max = MAX (*max, api[*k].correlation_id);
  return *max;
}

typedef struct
{
  const guint32 *bound; /* per step: last id issued before it began; then
                         * the last id issued before the last step ended */
  guint n;              /* steps */
  gint64 *first;        /* per step: earliest start of the work it launched */
  gint64 *last;         /* per step: latest end of the work it launched */
  guint hint;           /* where the last record went: records in time order
                         * mostly go where the one before them went */
} Launched;

/* Files one kernel, copy or memset under the step that launched it: the
 * last step whose bound is below its id (bounds never decrease). Work
 * launched before the first step or after the last is left out. */
typedef struct
{
  const Launched *l;
  guint32 corr;
} LaunchedAt;

static gboolean
bound_below (gconstpointer data, guint i)
{
  const LaunchedAt *a = data;

  return a->l->bound[i] < a->corr;
}

/* Returns the step's index + 1, or 0 when no step launched it. */
static inline guint
launched_add (Launched *l, guint32 corr, gint64 start, gint64 end)
{
  LaunchedAt a = { l, corr };
  guint lo = l->hint;

  /* The first bound not below @corr: the hint's, or searched for. */
  if (!((lo == 0 || l->bound[lo - 1] < corr) && (lo > l->n || l->bound[lo] >= corr)))
    l->hint = lo = pfprof_lower_bound (0, l->n + 1, bound_below, &a);

  if (lo == 0 || lo > l->n)
    return 0;
  l->first[lo - 1] = MIN (l->first[lo - 1], start);
  l->last[lo - 1] = MAX (l->last[lo - 1], end);
  return lo;
}

/* The GPU's side of host-side steps (NVTX or DataLoader): a step's GPU work
 * is what it launched, which runs later when the host runs ahead. CUPTI
 * gives every API call a correlation id in the order the calls begin, and
 * each kernel, copy and memset the id of the call that launched it, so the
 * work a step launched is the work whose id is above the last id issued
 * before the step began and not above the next step's. That needs no launch
 * records: the copies', syncs' and allocations' API records, kept by
 * default, bound the ids of each step. The window runs from the first work
 * of the step or any later one to the same for the next step (with no later
 * work, to the end of its own). Traces whose ids do not follow the calls'
 * order (imports, generated traces) keep the host windows. */
static gboolean
gpu_windows (PfprofLoop *loop, GArray *steps, guint first, guint n, gint64 *kernel_ns, guint *htod)
{
  const PfprofTraceIndex *ix = loop->ix;
  const PfprofTrace *t = ix->trace;
  const PfprofApiRecord *api = pfprof_trace_api_calls (t);
  guint na = pfprof_trace_n (t, PFPROF_TABLE_API_CALLS);
  const PfprofKernelRecord *kr = pfprof_trace_kernels (t);
  const PfprofMemcpyRecord *mr = pfprof_trace_memcpys (t);
  const PfprofMemsetRecord *sr = pfprof_trace_memsets (t);
  g_autofree guint32 *bound = NULL;
  g_autofree gint64 *first_start = NULL;
  g_autofree gint64 *last_end = NULL;
  Launched l;
  guint rising = 0, k = 0;
  guint32 max_before = 0;
  gint64 later = G_MAXINT64;

  for (guint i = 0; i < n; i++)
    {
      PfprofStep *s = &g_array_index (steps, PfprofStep, first + i);

      s->gpu_start_ns = s->start_ns;
      s->gpu_end_ns = s->end_ns;
    }
  if (n == 0 || na < 2 || g_strcmp0 (loop->step_source, "periodic") == 0)
    return FALSE;
  for (guint i = 0; i + 1 < na; i++)
    rising += api[i + 1].correlation_id > api[i].correlation_id;
  if ((double) rising < 0.9 * (double) (na - 1))
    return FALSE;
  bound = g_new (guint32, n + 1);
  first_start = g_new (gint64, n);
  last_end = g_new (gint64, n);
  for (guint i = 0; i < n; i++)
    {
      bound[i] = corr_before (api, na, &k, &max_before, g_array_index (steps, PfprofStep, first + i).start_ns);
      first_start[i] = G_MAXINT64;
      last_end[i] = G_MININT64;
    }
  bound[n] = corr_before (api, na, &k, &max_before, g_array_index (steps, PfprofStep, first + n - 1).end_ns);
  l.bound = bound;
  l.n = n;
  l.first = first_start;
  l.last = last_end;
  l.hint = 0;
  for (guint i = 0; i < pfprof_trace_n (t, PFPROF_TABLE_KERNELS); i++)
    {
      guint at = launched_add (&l, kr[i].correlation_id, kr[i].start_ns, kr[i].end_ns);

      if (at > 0 && kernel_ns != NULL)
        kernel_ns[at - 1] += kr[i].end_ns - kr[i].start_ns;
    }
  for (guint i = 0; i < pfprof_trace_n (t, PFPROF_TABLE_MEMCPYS); i++)
    {
      guint at = launched_add (&l, mr[i].correlation_id, mr[i].start_ns, mr[i].end_ns);

      if (at > 0 && htod != NULL && mr[i].copy_kind == PFPROF_COPY_KIND_HTOD)
        htod[at - 1]++;
    }
  for (guint i = 0; i < pfprof_trace_n (t, PFPROF_TABLE_MEMSETS); i++)
    (void) launched_add (&l, sr[i].correlation_id, sr[i].start_ns, sr[i].end_ns);

  /* Step i's GPU side starts with the earliest work it or a later step
   * launched (streams may run later work first). */
  for (guint i = n; i-- > 0;)
    {
      PfprofStep *s = &g_array_index (steps, PfprofStep, first + i);
      gint64 next = later;

      later = MIN (later, first_start[i]);
      if (later == G_MAXINT64)
        {
          /* It launched nothing, nor did any later step. */
          s->gpu_start_ns = s->gpu_end_ns = s->end_ns;
          continue;
        }
      s->gpu_start_ns = later;
      s->gpu_end_ns = MAX (later, next != G_MAXINT64 ? next : last_end[i]);
      /* Where the phase changes (the last training step before a
       * validation pass), the gap to the next step's work is the next
       * phase's start-up (its loader's workers, cuDNN autotuning), not
       * this step's: it ends with the last work it launched. */
      if (i + 1 < n && last_end[i] != G_MININT64
          && g_array_index (steps, PfprofStep, first + i + 1).phase != s->phase)
        s->gpu_end_ns = MAX (later, MIN (s->gpu_end_ns, MAX (last_end[i], s->end_ns)));
    }
  return TRUE;
}

/* The warm-up steps among @n steps of host lengths @len: the leading
 * steps longer than 1.5 times the median of the second half. */
static guint
detect_warmup (const gint64 *len, guint n, int fixed)
{
  g_autofree gint64 *d = NULL;
  gint64 med;
  guint w;

  if (fixed >= 0)
    return MIN ((guint) fixed, n);
  if (n < 3)
    return 0;
  d = g_memdup2 (len + n / 2, (gsize) (n - n / 2) * sizeof *d);
  med = pfprof_quantile_median_i64 (d, n - n / 2);
  w = 1;
  while (w < n / 2)
    {
      if ((double) len[w] <= 1.5 * (double) med)
        break;
      w++;
    }
  return w;
}

/* In a trace recorded in windows: keeps the steps that ran whole inside
 * one, host and GPU side, but the first of each (the GPU may still have been running work
 * launched in the pause before, which the trace does not hold, so that
 * step's waits are not its own). A step that spans a pause is two halves
 * of different steps with the pause between. */
static void
keep_recorded_steps (PfprofLoop *loop, GArray *steps, guint first)
{
  const PfprofTraceIndex *ix = loop->ix;
  guint keep = first, last_window = G_MAXUINT;

  for (guint i = first; i < steps->len; i++)
    {
      PfprofStep s = g_array_index (steps, PfprofStep, i);
      guint w = pfprof_interval_set_first_after (ix->windows, s.start_ns);
      PfprofInterval win;
      gboolean first_here;

      if (w >= pfprof_interval_set_n (ix->windows))
        continue;
      win = pfprof_interval_set_get (ix->windows, w);
      /* Its GPU side too: work that ran after the window closed may be
       * missing from the trace. */
      if (s.start_ns < win.start || s.end_ns > win.end || s.gpu_start_ns < win.start || s.gpu_end_ns > win.end)
        continue;
      first_here = w != last_window;
      last_window = w;
      if (first_here)
        continue;
      g_array_index (steps, PfprofStep, keep++) = s;
    }
  loop->n_unrecorded_steps = steps->len - keep;
  g_array_set_size (steps, keep);
}

/* Sets the steady window: [@lo, @hi); in a trace recorded in windows, its
 * parts instead: with steady steps (@from to @to), one per window from
 * its first to its last; without, the windows' stretches inside it. */
static void
set_steady (PfprofLoop *loop, GArray *steps, guint from, guint to, gint64 lo, gint64 hi)
{
  const PfprofTraceIndex *ix = loop->ix;
  if (ix->windows == NULL)
    {
      pfprof_loop_set_steady (loop, lo, hi);
      return;
    }
  g_array_set_size (loop->steady_parts, 0);
  for (guint w = 0; from >= to && w < pfprof_interval_set_n (ix->windows); w++)
    {
      PfprofInterval win = pfprof_interval_set_get (ix->windows, w);

      pfprof_loop_add_steady_part (loop, MAX (win.start, lo), MIN (win.end, hi));
    }
  for (guint i = from; i < to;)
    {
      const PfprofStep *s = &g_array_index (steps, PfprofStep, i);
      guint w = pfprof_interval_set_first_after (ix->windows, s->start_ns);
      gint64 end = s->end_ns;

      for (i++; i < to; i++)
        {
          const PfprofStep *t = &g_array_index (steps, PfprofStep, i);

          if (pfprof_interval_set_first_after (ix->windows, t->start_ns) != w)
            break;
          end = MAX (end, t->end_ns);
        }
      pfprof_loop_add_steady_part (loop, s->start_ns, end);
    }
  if (loop->steady_parts->len == 0)
    pfprof_loop_set_steady (loop, lo, lo);
}

/* Warm-up over the training steps alone: evaluation batches interleaved
 * with them are no part of the training loop's pace. */
static guint
detect_training_warmup (GArray *steps, guint first, guint n, int fixed)
{
  g_autofree gint64 *len = g_new (gint64, n + 1);
  guint n_train = 0;

  /* Their lengths alone: a copy of the steps themselves was a few
   * hundred bytes a step. */
  for (guint i = first; i < first + n; i++)
    {
      const PfprofStep *s = &g_array_index (steps, PfprofStep, i);

      if (s->phase == PFPROF_PHASE_TRAINING)
        len[n_train++] = s->end_ns - s->start_ns;
    }
  return detect_warmup (len, n_train, fixed);
}

/* The steady window when steps of a phase not judged lie between steady
 * steps: one part per run of steady steps, so that what the rules judge
 * over the window is the judged phase alone. */
static void
set_steady_parts (PfprofLoop *loop, GArray *steps, guint first, guint n)
{
  g_array_set_size (loop->steady_parts, 0);
  for (guint i = first; i < first + n;)
    {
      const PfprofStep *s = &g_array_index (steps, PfprofStep, i);
      gint64 end;

      if (!pfprof_step_is_steady (s))
        {
          i++;
          continue;
        }
      end = s->end_ns;
      for (i++; i < first + n && pfprof_step_is_steady (&g_array_index (steps, PfprofStep, i)); i++)
        end = MAX (end, g_array_index (steps, PfprofStep, i).end_ns);
      pfprof_loop_add_steady_part (loop, s->start_ns, end);
    }
}

/* Marks which steps are judged and, over those after warm-up, sets the
 * loop's steady count, median and window. */
void
pfprof_steps_judge (PfprofLoop *loop, PfprofLoopJudge judge, GArray *steps)
{
  const PfprofTraceIndex *ix;
  guint first, n, n_steady = 0, first_steady = G_MAXUINT, last_steady = 0;
  gboolean others_between = FALSE;

  g_return_if_fail (loop != NULL);
  g_return_if_fail (steps != NULL);
  ix = loop->ix;
  first = loop->first_step;
  n = loop->n_steps;
  loop->judge = judge;
  for (guint i = 0; i < n; i++)
    {
      PfprofStep *s = &g_array_index (steps, PfprofStep, first + i);

      s->unjudged = s->phase == PFPROF_PHASE_TRAINING ? judge == PFPROF_LOOP_JUDGE_EVAL
                                                      : judge == PFPROF_LOOP_JUDGE_TRAINING;
      if (pfprof_step_is_steady (s))
        {
          if (first_steady == G_MAXUINT)
            first_steady = i;
          last_steady = i;
          n_steady++;
        }
    }
  loop->n_steady_steps = n_steady;
  loop->step_median_ns = 0;
  /* Steps of another phase between two steady steps split the window
   * (evaluation inside the training loop; training between the
   * evaluations of --phase eval); after the last one they are after the
   * loop, which ends with that step. */
  for (guint i = first_steady; n_steady > 0 && i <= last_steady; i++)
    if (g_array_index (steps, PfprofStep, first + i).unjudged)
      others_between = TRUE;

  if (n_steady > 0)
    {
      g_autofree gint64 *d = g_new (gint64, n_steady);
      gint64 lo = g_array_index (steps, PfprofStep, first + first_steady).start_ns, hi = lo;
      guint k = 0;

      for (guint i = first_steady; i <= last_steady; i++)
        {
          PfprofStep *s = &g_array_index (steps, PfprofStep, first + i);

          if (!pfprof_step_is_steady (s))
            continue;
          hi = MAX (hi, s->end_ns);
          d[k++] = pfprof_step_length (s);
        }
      loop->step_median_ns = pfprof_step_median (d, k);
      if (others_between && ix->windows == NULL)
        set_steady_parts (loop, steps, first, n);
      else
        set_steady (loop, steps, first + first_steady, first + last_steady + 1, lo, hi);
    }
  else if (judge == PFPROF_LOOP_JUDGE_EVAL)
    /* No evaluation to judge: an empty window, nothing in it. */
    pfprof_loop_set_steady (loop, ix->trace->start_ns, ix->trace->start_ns);
  else
    {
      /* No steps: skip the first tenth of the GPU work, where set-up
       * (weight copies, autotuning) happens. */
      const PfprofDeviceTimeline *dev = pfprof_steps_primary_device (ix);
      gint64 lo = ix->trace->start_ns, hi = ix->trace->end_ns;

      if (dev != NULL && pfprof_interval_set_n (dev->busy) > 0)
        {
          lo = pfprof_interval_set_get (dev->busy, 0).start;
          hi = pfprof_interval_set_get (dev->busy, pfprof_interval_set_n (dev->busy) - 1).end;
        }
      set_steady (loop, steps, 0, 0, lo + (hi - lo) / 10, hi);
    }
}

void
pfprof_steps_detect (PfprofLoop *loop, const PfprofLoopOptions *options, GArray *steps)
{
  const PfprofTraceIndex *ix = loop->ix;
  g_auto (Evidence) ev = { 0 };
  guint first, n;

  g_return_if_fail (ix != NULL);
  g_return_if_fail (steps != NULL);
  first = steps->len;
  evidence_collect (ix, &ev);
  if (!steps_from_nvtx (loop, options, steps) && !steps_from_dataloader (loop, steps)
      && !steps_from_optimizer (loop, &ev, steps) && !steps_from_period (loop, steps))
    loop->step_source = "none";
  split_annotated (loop, &ev, steps, first);
  assign_phases (loop, &ev, steps, first);
  group_accumulation (loop, &ev, steps, first, join_fetches (loop, &ev, steps, first));
  /* The GPU side of each step reaches to the next step's work: found over
   * every step before a trace recorded in windows loses those across its
   * pauses. */
  (void) gpu_windows (loop, steps, first, steps->len - first, NULL, NULL);
  if (ix->windows != NULL)
    keep_recorded_steps (loop, steps, first);
  n = steps->len - first;
  loop->first_step = first;
  loop->n_steps = n;
  loop->n_warmup_steps = detect_training_warmup (steps, first, n,
                                               options->warmup_steps);
  for (guint i = 0, seen = 0; i < n; i++)
    {
      PfprofStep *s = &g_array_index (steps, PfprofStep, first + i);

      if (s->phase != PFPROF_PHASE_TRAINING)
        {
          loop->n_eval_steps++;
          loop->eval_ns += s->end_ns - s->start_ns;
        }
      else
        {
          if (loop->n_training_steps++ == 0)
            loop->loop_start_ns = s->start_ns;
          /* The loop ends when the GPU finished the last training step,
           * which a host running ahead left long before; but never
           * inside the batch that follows it (validation's). */
          loop->loop_end_ns
            = MAX (loop->loop_end_ns,
                   MAX (s->end_ns, MIN (s->gpu_end_ns, i + 1 < n ? (s + 1)->start_ns : G_MAXINT64)));
          s->warmup = seen++ < loop->n_warmup_steps;
        }
    }
  pfprof_steps_judge (loop, options->judge, steps);
  for (guint i = 0; i < n; i++)
    pfprof_steps_breakdown (loop, &g_array_index (steps, PfprofStep, first + i));
}

void
pfprof_steps_breakdown (const PfprofLoop *loop, PfprofStep *s)
{
  const PfprofTraceIndex *ix;
  const PfprofDeviceTimeline *dev;
  gint64 a, b;

  g_return_if_fail (loop != NULL);
  g_return_if_fail (s != NULL);
  ix = loop->ix;
  dev = pfprof_steps_primary_device (ix);
  a = s->start_ns;
  b = s->end_ns;
  /* The host's waits in the host's window, the GPU's figures in the GPU's. */
  s->data_wait_ns = pfprof_interval_set_length_in (ix->data_wait, a, b);
  s->sync_wait_ns = pfprof_interval_set_length_in (ix->sync_wait, a, b);
  if (pfprof_step_has_gpu_side (s))
    {
      a = s->gpu_start_ns;
      b = s->gpu_end_ns;
    }
  if (dev == NULL)
    {
      s->idle_ns = b - a;
      if (loop->ledger != NULL)
        pfprof_step_ledger_fill (loop->ledger, a, b, s->ledger_ns);
      return;
    }
  s->compute_ns = pfprof_interval_set_length_in (dev->kernels, a, b);
  s->comm_ns = pfprof_interval_set_length_in (dev->comm, a, b);
  s->copy_hidden_ns = pfprof_interval_set_length_in (dev->htod_kernels, a, b);
  s->copy_exposed_ns = pfprof_interval_set_length_in (dev->htod, a, b) - s->copy_hidden_ns;
  s->idle_ns = (b - a) - pfprof_interval_set_length_in (dev->busy, a, b);
  if (loop->ledger != NULL)
    pfprof_step_ledger_fill (loop->ledger, a, b, s->ledger_ns);
}
