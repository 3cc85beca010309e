/* SPDX-License-Identifier: MIT */
/* pfprof-rule-input-starved.c: the GPU waits for the DataLoader.
 *
 * CUPTI cannot see Python; the launcher's hook wraps the DataLoader's
 * next() in an NVTX range (domain "pfprof", "DataLoader.next"). Time in
 * that range during which the GPU had nothing to do is time the input
 * pipeline cost. Without those ranges the rule needs other evidence of
 * input before it calls idle time input: host-to-device copies in the
 * steady state, at least one a step (the batches). With them it falls
 * back to the GPU's idle time while the launching thread was outside
 * every CUDA call (so not blocked on the GPU): the host was busy
 * elsewhere, most often producing the next batch, and the message says
 * it could not confirm. With neither, idle time is not called input:
 * the step ledger names it (host-bound, sync waits), and the report says
 * what the trace cannot show.
 *
 * With the hook's rows from inside the DataLoader (worker_events,
 * pfprof-input-pipeline.h) it also says which stages take the workers'
 * time, at their lines, and whether the workers saturate the cores the
 * process may use: then more workers cannot help and the fix says how to
 * make batches cheaper; else the saving is the step with twice the
 * workers (the batch interval they and the free cores allow, never below
 * the step without waits), and the message names the count that keeps up.
 */
#include "pfprof-rules.h"

#include "pfprof-format.h"
#include "pfprof-steps.h"

static const PfprofRuleParam params[] = {
  { "min-idle-share", 0.10, "fire when the GPU idled during DataLoader waits for at least this share of the steady state" },
  { "min-idle-share-without-nvtx", 0.5, "without DataLoader ranges: GPU idle share of the steady state needed to fire" },
  { "min-host-outside-share", 0.8, "without DataLoader ranges: share of that idle time the launching thread spent outside CUDA calls" },
};

static const char fix[] =
  "Make batches ready before the GPU needs them:\n"
  "\n"
  "    loader = DataLoader(dataset, batch_size=B,\n"
  "                        num_workers=8,   # more: up to CPU cores per GPU\n"
  "                        persistent_workers=True,  # no restart per epoch\n"
  "                        prefetch_factor=4,        # batches per worker\n"
  "                        pin_memory=True)\n"
  "\n"
  "If the workers are already busy, make each batch cheaper: decode faster\n"
  "(torchvision.io.decode_jpeg(data, device=\"cuda\"), Pillow-SIMD, DALI), store\n"
  "pre-resized data, and move augmentation to the GPU after the copy:\n"
  "\n"
  "    x = x.to(device, non_blocking=True).float().div_(255)\n"
  "    x = torchvision.transforms.v2.functional.normalize(x, mean, std)\n";

static const char fix_saturated[] =
  "The DataLoader's workers already use every CPU core the process may use:\n"
  "more workers cannot help. Make each batch cheaper:\n"
  "\n"
  "    def worker_init_fn(worker_id):\n"
  "        torch.set_num_threads(1)   # one thread per worker process\n"
  "        cv2.setNumThreads(0)       # if OpenCV decodes\n"
  "\n"
  "Decode on the GPU (torchvision.io.decode_jpeg(data, device=\"cuda\"), DALI),\n"
  "store images at the size the model takes, or cache decoded samples\n"
  "(uint8 tensors) after the first epoch; move augmentation to the GPU:\n"
  "\n"
  "    x = x.to(device, non_blocking=True).float().div_(255)\n"
  "    x = torchvision.transforms.v2.functional.normalize(x, mean, std)\n";

/* The workers more than @workers that could use the free cores, at most. */
#define MAX_PREDICTED_WORKERS 64

/* "61% in default_loader (loader, folder.py:262) and 22% in ..." for the
 * stages of @p that take 1% or more of the workers' time, at most 3. */
static char *
stage_phrase (const PfprofInputPipeline *p)
{
  GString *out = g_string_new (NULL);
  guint shown = 0;

  for (guint i = 0; i < p->stages->len && shown < 3; i++)
    {
      const PfprofInputStage *st = &g_array_index (p->stages, PfprofInputStage, i);
      double share = p->busy_ns > 0 ? 100.0 * (double) st->ns / (double) p->busy_ns : 0;
      g_autofree char *s_share = NULL;
      g_autofree char *base = NULL;

      if (share < 1.0)
        break;
      s_share = pfprof_format_double (share, 0);
      base = g_path_get_basename (*st->file ? st->file : "?");
      g_string_append_printf (out, shown == 0 ? "%s%s%% of their time in %s (%s, %s:%d)" : "%s%s%% in %s (%s, %s:%d)",
                              shown == 0 ? "" : (i + 1 == p->stages->len || shown == 2 ? " and " : ", "),
                              s_share, *st->function ? st->function : "?", st->attr, base, st->line);
      shown++;
    }
  return g_string_free (out, FALSE);
}

/* Tells what inside the DataLoader costs what, and how many workers the
 * step needs; sets @f's saving to the step with the next worker count
 * when the CPU has room for them. */
static void
judge_pipeline (PfprofRuleContext *ctx, PfprofFinding *f, PfprofInputPipeline *p)
{
  gint64 mean = pfprof_rule_mean_step (ctx);
  gint64 compute = mean - f->est_savings_ns;
  guint now = p->num_workers > 0 ? p->num_workers : p->n_workers;
  g_autofree char *stages = stage_phrase (p);
  g_autofree char *s_batch = pfprof_format_ns (pfprof_input_pipeline_batch_ns (p));
  g_autofree char *s_cpu = pfprof_format_ns (pfprof_input_pipeline_batch_cpu_ns (p));
  g_autofree char *s_queue = pfprof_format_ns (p->queue_wait_ns);
  g_autofree char *s_collate = pfprof_format_double (
    p->busy_ns > 0 ? 100.0 * (double) p->collate_ns / (double) p->busy_ns : 0, 0);
  g_autofree char *s_busy = pfprof_format_double (p->worker_cores, 1);
  g_autofree char *s_cores = pfprof_format_double (p->cores, 0);
  g_autofree char *s_per = pfprof_format_double (
    p->wall_ns > 0 ? (double) p->cpu_ns / (double) p->wall_ns : 0, 2);
  g_autofree char *inside = NULL;
  g_autofree char *verdict = NULL;
  char *joined;

  inside = g_strdup_printf (
    " Inside the DataLoader, its %u worker%s spent %s%s%s%% in collate_fn; a batch took %s of worker "
    "time (%s of CPU) and waited %s in the queue.",
    now, now == 1 ? "" : "s", stages, *stages ? "; " : "of their time ", s_collate, s_batch, s_cpu, s_queue);
  if (pfprof_input_pipeline_saturated (p))
    {
      verdict = g_strdup_printf (
        " The workers kept %s of the %s CPU cores the process may use busy (CPU/wall %s per "
        "worker): the CPU is saturated, so more workers cannot help; make each batch cheaper.",
        s_busy, s_cores, s_per);
      g_free (f->fix);
      f->fix = g_strdup (fix_saturated);
    }
  else if (now > 0)
    {
      guint next = MIN (now * 2, MAX_PREDICTED_WORKERS);
      gint64 interval = pfprof_input_pipeline_interval_ns (p, next);
      gint64 predicted = MAX (compute, interval);
      guint enough = 0;
      g_autofree char *s_interval = pfprof_format_ns (interval);
      g_autofree char *s_pred = pfprof_format_ns (predicted);
      g_autofree char *s_enough = NULL;

      for (guint k = now + 1; k <= MAX_PREDICTED_WORKERS && enough == 0; k++)
        if (pfprof_input_pipeline_interval_ns (p, k) <= compute)
          enough = k;
      s_enough = enough > 0 ? g_strdup_printf (" %u workers would keep up with the GPU.", enough)
                            : g_strdup (" No worker count keeps up within the cores: make each batch cheaper too.");
      verdict = g_strdup_printf (
        " The workers kept %s of the %s CPU cores the process may use busy: with %u workers a "
        "batch would come every %s, so the step would be %s.%s",
        s_busy, p->cores > 0 ? s_cores : "?", next, s_interval, s_pred, s_enough);
      f->est_savings_ns = CLAMP (mean - predicted, 0, f->est_savings_ns);
      f->pipeline_workers = next;
    }
  joined = g_strconcat (f->message, inside, verdict ? verdict : "", NULL);
  g_free (f->message);
  f->message = joined;
  f->pipeline = p;
}

static void
judge_with_waits (PfprofRuleContext *ctx, const PfprofDeviceTimeline *dev)
{
  const PfprofTraceIndex *ix = ctx->ix;
  const PfprofLoop *loop = ctx->loop;
  g_autoptr (PfprofIntervalSet) wb = pfprof_interval_set_intersect (ix->data_wait, dev->busy);
  gint64 wait = pfprof_loop_steady_length_of (loop, ix->data_wait);
  gint64 idle_wait = wait - pfprof_loop_steady_length_of (loop, wb);
  gint64 busy = pfprof_loop_steady_length_of (loop, dev->busy);
  guint n_waits = 0;
  gint64 refill;
  PfprofFinding *f;

  if (pfprof_rule_share (ctx, idle_wait) / 100.0 < pfprof_rule_param (ctx, "min-idle-share"))
    return;
  f = pfprof_rule_finding_new (ctx);
  f->device_id = dev->device_id;
  for (guint i = 0; i < ix->data_waits->len; i++)
    {
      PfprofInterval w = g_array_index (ix->data_waits, PfprofInterval, i);
      guint k = g_array_index (ix->data_wait_nvtx, guint, i);
      const PfprofNvtxRecord *r = &pfprof_trace_nvtx (ix->trace)[k];
      PfprofEvidence e;

      if (!pfprof_loop_in_steady (loop, w.start))
        continue;
      n_waits++;
      e = pfprof_rule_evidence (ctx, PFPROF_TABLE_NVTX, k, w.start, w.end, PFPROF_NONE, PFPROF_NONE,
                                r->tid);
      pfprof_finding_add_evidence (f, &e, PFPROF_RULE_MAX_EVIDENCE);
    }
  f->count = n_waits;
  f->time_ns = idle_wait;
  /* With batches ready, the host also keeps its lead over the GPU: the idle
   * while it refilled the GPU's queue after each wait goes too. */
  refill = pfprof_step_ledger_refill_after (loop->ledger, ix->data_waits);
  f->est_savings_ns = pfprof_rule_per_step (ctx, idle_wait + refill);
  f->host_bound_ns = pfprof_rule_per_step (ctx, refill);
  f->buckets = PFPROF_LEDGER_BIT (PFPROF_LEDGER_DATA_WAIT) | PFPROF_LEDGER_BIT (PFPROF_LEDGER_HOST_BOUND);
  {
    g_autofree char *s_idle = pfprof_format_ns (pfprof_rule_per_step (ctx, idle_wait));
    g_autofree char *s_wait = pfprof_format_ns (pfprof_rule_per_step (ctx, wait));
    g_autofree char *s_share = pfprof_format_double (pfprof_rule_share (ctx, idle_wait), 1);
    g_autofree char *s_busy = pfprof_format_double (pfprof_rule_share (ctx, busy), 1);
    g_autofree char *s_step = pfprof_format_ns (loop->step_median_ns);
    g_autofree char *s_mean = pfprof_format_ns (pfprof_rule_mean_step (ctx));
    g_autofree char *s_refill = pfprof_format_ns (pfprof_rule_per_step (ctx, refill));

    f->title = g_strdup_printf ("GPU starved of input: idle %s%% of the steady state waiting for the DataLoader",
                                s_share);
    f->message = g_strdup_printf (
      "Device %u had no work queued for %s per mean step (%s%% of the steady state) while the "
      "launching thread waited in DataLoader.next(); the thread waited %s per mean step in all, "
      "over %u waits. After each wait the GPU idled %s more per mean step while the host refilled its "
      "queue launch by launch. The GPU was busy %s%% of the steady state (mean step %s, median "
      "step %s).",
      dev->device_id, s_idle, s_share, s_wait, n_waits, s_refill, s_busy, s_mean, s_step);
  }
  f->fix = g_strdup (fix);
  {
    PfprofInputPipeline *p = pfprof_input_pipeline_new (ix->trace, loop->steady_start, loop->steady_end);

    if (p != NULL)
      judge_pipeline (ctx, f, p);
  }
  pfprof_rule_emit (ctx, f);
}

/* Idle time of @dev in the steady window while the launching thread was
 * in no CUDA call. */
static void
judge_without_waits (PfprofRuleContext *ctx, const PfprofDeviceTimeline *dev)
{
  const PfprofTraceIndex *ix = ctx->ix;
  const PfprofLoop *loop = ctx->loop;
  const PfprofApiRecord *api = pfprof_trace_api_calls (ix->trace);
  guint n_api = pfprof_trace_n (ix->trace, PFPROF_TABLE_API_CALLS);
  gint64 lo = loop->steady_start, hi = loop->steady_end;
  gint64 idle, idle_in_cuda, outside;
  g_autoptr (PfprofIntervalSet) window = NULL;
  g_autoptr (PfprofIntervalSet) idle_set = NULL;
  g_autoptr (PfprofIntervalSet) host = NULL;
  g_autoptr (PfprofIntervalSet) both = NULL;
  PfprofIntervalSetBuilder *b;
  PfprofFinding *f;
  guint n_gaps = 0;

  if (ix->main_tid == 0 || hi <= lo)
    return;
  if (!pfprof_rule_has_input_copies (ctx, dev))
    return;
  window = pfprof_loop_steady_set (loop);
  idle_set = pfprof_interval_set_subtract (window, dev->busy);
  idle = pfprof_interval_set_length (idle_set);
  if (pfprof_rule_share (ctx, idle) / 100.0 < pfprof_rule_param (ctx, "min-idle-share-without-nvtx"))
    return;
  b = pfprof_interval_set_builder_new ();
  for (guint i = 0; i < n_api; i++)
    if (api[i].tid == ix->main_tid && api[i].end_ns > lo && api[i].start_ns < hi)
      pfprof_interval_set_builder_add (b, api[i].start_ns, api[i].end_ns);
  host = pfprof_interval_set_build (b);
  both = pfprof_interval_set_intersect (idle_set, host);
  idle_in_cuda = pfprof_interval_set_length (both);
  outside = idle - idle_in_cuda;
  if ((double) outside < pfprof_rule_param (ctx, "min-host-outside-share") * (double) idle)
    return;

  f = pfprof_rule_finding_new (ctx);
  f->device_id = dev->device_id;
  /* The longest idle gaps are the evidence. */
  for (guint i = 0; i < pfprof_interval_set_n (idle_set); i++)
    {
      PfprofInterval g = pfprof_interval_set_get (idle_set, i);
      PfprofEvidence e;

      if (g.end - g.start < loop->step_median_ns / 10 && loop->step_median_ns > 0)
        continue;
      n_gaps++;
      e = pfprof_rule_evidence (ctx, PFPROF_TABLE_KERNELS, G_MAXUINT, g.start, g.end, dev->device_id,
                                PFPROF_NONE, ix->main_tid);
      pfprof_finding_add_evidence (f, &e, PFPROF_RULE_MAX_EVIDENCE);
    }
  f->count = n_gaps;
  f->time_ns = outside;
  f->est_savings_ns = pfprof_rule_per_step (ctx, outside);
  f->buckets = PFPROF_LEDGER_BIT (PFPROF_LEDGER_HOST_BOUND) | PFPROF_LEDGER_BIT (PFPROF_LEDGER_OTHER_IDLE);
  {
    g_autofree char *s_idle = pfprof_format_double (pfprof_rule_share (ctx, idle), 1);
    g_autofree char *s_out = pfprof_format_ns (pfprof_rule_per_step (ctx, outside));
    g_autofree char *s_share = pfprof_format_double (pfprof_rule_share (ctx, outside), 1);

    f->title = g_strdup_printf ("GPU idle %s%% of the steady state while the host prepared work", s_idle);
    f->message = g_strdup_printf (
      "Device %u was idle %s%% of the steady state; for %s per mean step (%s%% of it) the launching "
      "thread %u was in no CUDA call, so it was busy elsewhere: most often producing the next "
      "batch. The trace has no DataLoader ranges to confirm it (record with `pfprof record` to "
      "get them).",
      dev->device_id, s_idle, s_out, s_share, ix->main_tid);
  }
  f->fix = g_strdup (fix);
  pfprof_rule_emit (ctx, f);
}

static void
run (PfprofRuleContext *ctx)
{
  const PfprofDeviceTimeline *dev = pfprof_steps_primary_device (ctx->ix);

  if (dev == NULL)
    return;
  if (ctx->ix->data_waits->len > 0)
    judge_with_waits (ctx, dev);
  else
    judge_without_waits (ctx, dev);
}

const PfprofRule pfprof_rule_input_starved = {
  "input-starved",
  PFPROF_SEVERITY_ERROR,
  "The GPU idles while the launching thread waits for the DataLoader",
  params,
  G_N_ELEMENTS (params),
  run,
  PFPROF_RULE_SCOPE_TRACE,
};
