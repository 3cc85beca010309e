/* SPDX-License-Identifier: MIT */
/* pfprof-input-pipeline.c: what the DataLoader did inside (worker_events). */
#include "pfprof-input-pipeline.h"

#include <math.h>

/* One worker's CPU rows: the last before the window (or its start), and
 * the last in it; at0, when the first was taken. */
typedef struct
{
  gint64 cpu0, wall0, cpu1, wall1;
  gint64 at0;
  gint64 next_start; /* the start of its first batch after at0 */
  gboolean in_window;
} WorkerCpu;

/* @sum + @ns, a negative @ns taken as 0, held at G_MAXINT64: a stage's
 * time is the trace's word, and a hostile row can make it anything. */
static gint64
add_ns (gint64 sum, gint64 ns)
{
  ns = MAX (ns, 0);
  return sum > G_MAXINT64 - ns ? G_MAXINT64 : sum + ns;
}

static gint
compare_stage (gconstpointer a, gconstpointer b)
{
  const PfprofInputStage *x = a, *y = b;

  if (x->ns != y->ns)
    return x->ns > y->ns ? -1 : 1;
  return x->site_id < y->site_id ? -1 : x->site_id > y->site_id;
}

static void
name_stages (const PfprofTrace *t, GArray *stages)
{
  const PfprofPythonSiteRecord *sites = pfprof_trace_python_sites (t);

  for (guint i = 0; i < stages->len; i++)
    {
      PfprofInputStage *s = &g_array_index (stages, PfprofInputStage, i);

      s->attr = s->function = s->file = "";
      for (guint k = 0; k < pfprof_trace_n (t, PFPROF_TABLE_PYTHON_SITES); k++)
        if (sites[k].site_id == s->site_id && sites[k].kind == PFPROF_SITE_WORKER_STAGE)
          {
            s->attr = pfprof_trace_string (t, sites[k].api_id);
            s->function = pfprof_trace_string (t, sites[k].function_id);
            s->file = pfprof_trace_string (t, sites[k].file_id);
            s->line = sites[k].line;
            break;
          }
    }
}

PfprofInputPipeline *
pfprof_input_pipeline_new (const PfprofTrace *trace, gint64 lo, gint64 hi)
{
  const PfprofWorkerEventRecord *ev;
  guint n;
  g_return_val_if_fail (trace != NULL, NULL);

  g_autoptr (GHashTable) puts = NULL;    /* pid << 32 ^ batch -> put time */
  g_autoptr (GHashTable) cpu = NULL;     /* pid -> WorkerCpu */
  g_autoptr (GHashTable) stage_of = NULL; /* site id -> index in stages */
  g_autoptr (GHashTable) workers = NULL;
  PfprofInputPipeline *p;
  gint64 wait_sum = 0, pin_sum = 0;
  guint n_pins = 0;

  g_return_val_if_fail (trace != NULL, NULL);
  n = pfprof_trace_n (trace, PFPROF_TABLE_WORKER_EVENTS);
  if (n == 0 || hi <= lo)
    return NULL;
  ev = pfprof_trace_worker_events (trace);
  p = g_new0 (PfprofInputPipeline, 1);
  p->stages = g_array_new (FALSE, TRUE, sizeof (PfprofInputStage));
  puts = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  cpu = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  stage_of = g_hash_table_new (g_direct_hash, g_direct_equal);
  workers = g_hash_table_new (g_direct_hash, g_direct_equal);
  /* Rows are in start order: a batch's row comes before the main
   * process's row of getting it. */
  for (guint i = 0; i < n; i++)
    {
      const PfprofWorkerEventRecord *r = &ev[i];
      gboolean in = r->end_ns >= lo && r->end_ns < hi;

      switch (r->kind)
        {
        case PFPROF_WORKER_CLOCK:
          p->cores = MAX (p->cores, (double) r->value_a / 1000.0);
          p->num_workers = (guint) MAX ((gint64) p->num_workers, MIN (r->value_b, (gint64) G_MAXUINT16));
          break;
        case PFPROF_WORKER_BATCH:
        case PFPROF_WORKER_FAILED:
          {
            gint64 *key = g_new (gint64, 1), *put = g_new (gint64, 1);

            *key = (gint64) ((guint64) r->pid << 32 ^ (guint64) r->batch);
            *put = r->end_ns;
            g_hash_table_replace (puts, key, put);
            if (!in)
              break;
            p->n_batches++;
            p->busy_ns += r->end_ns - r->start_ns;
            if (r->value_b > r->value_a && r->value_a >= r->start_ns && r->value_b <= r->end_ns)
              p->collate_ns += r->value_b - r->value_a;
            g_hash_table_add (workers, GUINT_TO_POINTER (r->pid));
          }
          break;
        case PFPROF_WORKER_STAGE:
          {
            /* Counted with its batch, whose row came first. */
            gint64 key = (gint64) ((guint64) r->pid << 32 ^ (guint64) r->batch);
            const gint64 *put = g_hash_table_lookup (puts, &key);

            in = put != NULL ? *put >= lo && *put < hi : in;
          }
          if (in)
            {
              gpointer idx;
              PfprofInputStage *s;

              if (!g_hash_table_lookup_extended (stage_of, GUINT_TO_POINTER (r->site_id), NULL, &idx))
                {
                  PfprofInputStage zero = { 0 };

                  zero.site_id = r->site_id;
                  idx = GUINT_TO_POINTER (p->stages->len);
                  g_array_append_val (p->stages, zero);
                  g_hash_table_insert (stage_of, GUINT_TO_POINTER (r->site_id), idx);
                }
              s = &g_array_index (p->stages, PfprofInputStage, GPOINTER_TO_UINT (idx));
              s->ns = add_ns (s->ns, r->value_a);
              s->calls += (guint64) MAX (r->value_b, 0);
            }
          break;
        case PFPROF_WORKER_CPU:
          {
            WorkerCpu *w = g_hash_table_lookup (cpu, GUINT_TO_POINTER (r->pid));

            if (w == NULL)
              {
                w = g_new0 (WorkerCpu, 1);
                /* Without a row before the window: the worker's start. */
                w->at0 = r->end_ns - MAX (r->value_b, 0);
                g_hash_table_insert (cpu, GUINT_TO_POINTER (r->pid), w);
              }
            if (r->end_ns < lo)
              {
                w->cpu0 = r->value_a;
                w->wall0 = r->value_b;
                w->at0 = r->end_ns;
              }
            else if (w->next_start == 0)
              w->next_start = r->start_ns;
            else if (in)
              {
                w->cpu1 = r->value_a;
                w->wall1 = r->value_b;
                w->in_window = TRUE;
              }
          }
          break;
        case PFPROF_WORKER_GOT:
          if (in)
            {
              gint64 key = (gint64) ((guint64) r->pid << 32 ^ (guint64) r->batch);
              const gint64 *put = g_hash_table_lookup (puts, &key);

              p->n_got++;
              if (put != NULL && *put <= r->start_ns)
                wait_sum += r->start_ns - *put;
            }
          break;
        case PFPROF_WORKER_PIN:
          if (in)
            {
              pin_sum += r->end_ns - r->start_ns;
              n_pins++;
            }
          break;
        default:
          break;
        }
    }
  if (p->n_batches == 0)
    {
      pfprof_input_pipeline_free (p);
      return NULL;
    }
  p->n_workers = g_hash_table_size (workers);
  {
    GHashTableIter it;
    gpointer value;

    g_hash_table_iter_init (&it, cpu);
    while (g_hash_table_iter_next (&it, NULL, &value))
      {
        WorkerCpu *w = value;
        gint64 wall;

        if (!w->in_window || w->cpu1 < w->cpu0 || w->wall1 <= w->wall0)
          continue;
        /* The stretch may begin long before the window, with the worker
         * idle until its next batch (while the loop warmed up): that idle
         * before the window is left out of its wall time, as it holds no
         * CPU time. */
        wall = (w->wall1 - w->wall0) - CLAMP (w->next_start - w->at0, 0, MAX (0, lo - w->at0));
        if (wall <= 0)
          continue;
        p->cpu_ns += w->cpu1 - w->cpu0;
        p->wall_ns += wall;
      }
  }
  /* Cores kept busy: the CPU time over the window's length. */
  p->worker_cores = (double) p->cpu_ns / (double) (hi - lo);
  p->queue_wait_ns = p->n_got > 0 ? wait_sum / p->n_got : 0;
  p->pin_ns = n_pins > 0 ? pin_sum / n_pins : 0;
  for (guint i = 0; i < p->stages->len; i++)
    p->stages_ns = add_ns (p->stages_ns, g_array_index (p->stages, PfprofInputStage, i).ns);
  name_stages (trace, p->stages);
  g_array_sort (p->stages, compare_stage);
  return p;
}

void
pfprof_input_pipeline_free (PfprofInputPipeline *p)
{
  if (p == NULL)
    return;
  g_array_unref (p->stages);
  g_free (p);
}

gint64
pfprof_input_pipeline_batch_ns (const PfprofInputPipeline *p)
{
  g_return_val_if_fail (p != NULL, 0);
  return p->n_batches > 0 ? p->busy_ns / p->n_batches : 0;
}

gint64
pfprof_input_pipeline_batch_cpu_ns (const PfprofInputPipeline *p)
{
  g_return_val_if_fail (p != NULL, 0);
  if (p->cpu_ns <= 0 || p->n_batches == 0)
    return pfprof_input_pipeline_batch_ns (p);
  return p->cpu_ns / p->n_batches;
}

gboolean
pfprof_input_pipeline_saturated (const PfprofInputPipeline *p)
{
  g_return_val_if_fail (p != NULL, FALSE);
  return p->cores > 0 && p->cpu_ns > 0 && p->worker_cores + 1.0 >= 0.9 * p->cores;
}

gint64
pfprof_input_pipeline_interval_ns (const PfprofInputPipeline *p, guint workers)
{
  gint64 batch, by_workers, by_cores = 0;

  g_return_val_if_fail (p != NULL, 0);
  batch = pfprof_input_pipeline_batch_ns (p);
  if (workers == 0 || batch <= 0)
    return batch;
  by_workers = batch / workers;
  if (p->cores > 1.0)
    by_cores = (gint64) ceil ((double) pfprof_input_pipeline_batch_cpu_ns (p) / (p->cores - 1.0));
  return MAX (by_workers, by_cores);
}
