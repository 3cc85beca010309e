/* SPDX-License-Identifier: MIT */
/* analyzer-sim.c: see analyzer-sim.h. */
#include "analyzer-sim.h"

#include <string.h>

void
sim_options_init (SimOptions *o)
{
  memset (o, 0, sizeof *o);
  o->n_steps = 30;
  o->setup = TRUE;
  o->step_nvtx = FALSE;
  o->dataloader_nvtx = TRUE;
  o->data_wait_ns = 200000;
  o->compute_ns = 4000000;
  o->copy_mode = SIM_COPY_PREFETCH;
  o->batch_bytes = 48u << 20;
  o->copy_ns = 2000000;
  o->late_gap_ns = 3000;
  o->small_bytes = 4096;
  o->small_spacing_ns = 20000;
  o->step_name = "train_step";
  o->slow_steps = 1;
  o->pid = 4242;
}

guint32
sim_intern (PfprofTrace *t, const char *s)
{
  for (guint i = 0; i < t->strings->len; i++)
    if (g_strcmp0 (g_ptr_array_index (t->strings, i), s) == 0)
      return i;
  g_ptr_array_add (t->strings, g_strdup (s));
  return t->strings->len - 1;
}

typedef struct
{
  PfprofTrace *t;
  guint32 corr;
  gboolean no_launch_records;
} Sim;

static guint32
api (Sim *s, guint32 tid, gint64 start, gint64 end, const char *name, int ret)
{
  PfprofApiRecord r = { 0 };

  r.start_ns = start;
  r.end_ns = end;
  r.tid = tid;
  r.correlation_id = ++s->corr;
  r.name_id = sim_intern (s->t, name);
  r.return_value = ret;
  r.domain = PFPROF_API_RUNTIME;
  g_array_append_val (s->t->tables[PFPROF_TABLE_API_CALLS], r);
  return r.correlation_id;
}

static void
kernel (Sim *s, guint32 stream, gint64 start, gint64 end, const char *name)
{
  PfprofKernelRecord k = { 0 };

  k.start_ns = start;
  k.end_ns = end;
  k.device_id = 0;
  k.context_id = 1;
  k.stream_id = stream;
  /* Launched a little before it runs; without launch records the
   * correlation id is still taken, as CUPTI does. */
  if (s->no_launch_records)
    k.correlation_id = ++s->corr;
  else
    k.correlation_id = api (s, SIM_MAIN_TID, start - 20000, start - 15000, "cudaLaunchKernel", 0);
  k.name_id = sim_intern (s->t, name);
  k.grid_x = k.grid_y = k.grid_z = 1;
  k.block_x = 128;
  k.block_y = k.block_z = 1;
  g_array_append_val (s->t->tables[PFPROF_TABLE_KERNELS], k);
}

static void
memcpy_rec (Sim *s, guint32 stream, gint64 start, gint64 end, guint64 bytes, guint8 kind,
            guint8 src, guint8 dst, gboolean async, gboolean host_blocked)
{
  PfprofMemcpyRecord m = { 0 };

  m.start_ns = start;
  m.end_ns = end;
  m.bytes = bytes;
  m.device_id = 0;
  m.context_id = 1;
  m.stream_id = stream;
  m.correlation_id = api (s, SIM_MAIN_TID, start - 10000, host_blocked ? end : start - 5000,
                          async ? "cudaMemcpyAsync" : "cudaMemcpy", 0);
  m.copy_kind = kind;
  m.src_kind = src;
  m.dst_kind = dst;
  m.flags = async ? PFPROF_MEMCPY_FLAG_ASYNC : 0;
  g_array_append_val (s->t->tables[PFPROF_TABLE_MEMCPYS], m);
}

static void
nvtx (Sim *s, const char *domain, const char *name, gint64 start, gint64 end)
{
  PfprofNvtxRecord r = { 0 };

  r.start_ns = start;
  r.end_ns = end;
  r.tid = SIM_MAIN_TID;
  r.domain_id = domain ? sim_intern (s->t, domain) : PFPROF_NONE;
  r.name_id = sim_intern (s->t, name);
  r.kind = PFPROF_NVTX_RANGE;
  g_array_append_val (s->t->tables[PFPROF_TABLE_NVTX], r);
}

static void
sync_rec (Sim *s, guint32 corr, gint64 start, gint64 end, guint8 type, guint32 stream)
{
  PfprofSyncRecord r = { 0 };

  r.start_ns = start;
  r.end_ns = end;
  r.context_id = 1;
  r.stream_id = stream;
  r.correlation_id = corr;
  r.event_id = PFPROF_NONE;
  r.type = type;
  g_array_append_val (s->t->tables[PFPROF_TABLE_SYNCS], r);
}

/* Start-up: weights from pageable memory, allocations, autotuning. */
static gint64
setup (Sim *s, gint64 t)
{
  for (guint i = 0; i < 60; i++)
    {
      guint64 bytes = (64u << 10) << (i % 9);
      gint64 d = 20000 + (gint64) (bytes / 7); /* ~7 GB/s */

      api (s, SIM_MAIN_TID, t, t + 30000, "cudaMalloc", 0);
      t += 40000;
      memcpy_rec (s, SIM_NULL_STREAM, t, t + d, bytes, PFPROF_COPY_KIND_HTOD,
                  PFPROF_MEMORY_KIND_PAGEABLE, PFPROF_MEMORY_KIND_DEVICE, FALSE, TRUE);
      t += d + 10000;
    }
  for (guint i = 0; i < 4; i++)
    {
      api (s, SIM_PIN_TID, t, t + 500000, "cudaHostAlloc", 0);
      t += 600000;
    }
  /* Autotuning: benchmark kernels, each followed by a blocking event
   * synchronize and a device synchronize, and frees between trials. */
  for (guint i = 0; i < 100; i++)
    {
      guint32 c;

      kernel (s, SIM_COMPUTE_STREAM, t + 30000, t + 230000, "autotune_candidate");
      c = api (s, SIM_MAIN_TID, t + 25000, t + 240000, "cudaEventSynchronize", 0);
      sync_rec (s, c, t + 25000, t + 240000, PFPROF_SYNC_EVENT_SYNCHRONIZE, PFPROF_NONE);
      api (s, SIM_MAIN_TID, t + 245000, t + 260000, "cudaFree", 0);
      c = api (s, SIM_MAIN_TID, t + 260000, t + 270000, "cudaDeviceSynchronize", 0);
      sync_rec (s, c, t + 260000, t + 270000, PFPROF_SYNC_CONTEXT_SYNCHRONIZE, PFPROF_NONE);
      t += 300000;
    }
  return t + 1000000;
}

PfprofTrace *
sim_build (const SimOptions *o)
{
  Sim s = { pfprof_trace_new (), 0, o->no_launch_records };
  gint64 t = 1000000000;
  gboolean synced = FALSE;
  guint stall_every = 0, alloc_every = 0, malloc_every = 0;
  guint stalls = 0, allocs = 0, mallocs = 0;
  guint warm = 2; /* the first steps the simulator makes slow */

  s.t->pid = o->pid;
  s.t->path = g_strdup ("sim.pfprof");
  g_hash_table_insert (s.t->meta, g_strdup ("pid"), g_strdup_printf ("%" G_GINT64_FORMAT, o->pid));
  if (o->setup)
    t = setup (&s, t);
  if (o->stall_episodes)
    stall_every = MAX (1u, (o->n_steps - warm - 1) / o->stall_episodes);
  alloc_every = o->host_allocs_every;
  if (o->mallocs_total)
    malloc_every = o->mallocs_early_only ? 1 : MAX (1u, (o->n_steps - warm - 1) / o->mallocs_total);

  for (guint i = 0; i < o->n_steps; i++)
    {
      gint64 step_start = t;
      gint64 k0, kt;
      gint64 compute = o->compute_ns * (i < o->slow_steps ? 4 : 1); /* lazy init, autotuning */
      gboolean steady = i >= warm;

      if (o->dataloader_nvtx)
        nvtx (&s, PFPROF_NVTX_DOMAIN_PFPROF, PFPROF_NVTX_DATALOADER_WAIT, t, t + o->data_wait_ns);
      t += o->data_wait_ns;
      k0 = t + 30000;
      switch (o->copy_mode)
        {
        case SIM_COPY_SERIALIZED:
          memcpy_rec (&s, SIM_COMPUTE_STREAM, k0, k0 + o->copy_ns, o->batch_bytes, PFPROF_COPY_KIND_HTOD,
                      o->pageable ? PFPROF_MEMORY_KIND_PAGEABLE : PFPROF_MEMORY_KIND_PINNED,
                      PFPROF_MEMORY_KIND_DEVICE, TRUE, o->pageable);
          if (o->blocking_copy)
            {
              /* The sync PyTorch issues after the copy; the host launches
               * the step's kernels only once it returns. */
              guint32 c = api (&s, SIM_MAIN_TID, k0 - 4000, k0 + o->copy_ns + 3000,
                               "cudaStreamSynchronize", 0);

              sync_rec (&s, c, k0 - 4000, k0 + o->copy_ns + 3000, PFPROF_SYNC_STREAM_SYNCHRONIZE,
                        SIM_COMPUTE_STREAM);
              k0 += 25000;
            }
          k0 += o->copy_ns + 5000;
          break;
        case SIM_COPY_LATE:
          {
            guint32 c;

            memcpy_rec (&s, SIM_COPY_STREAM, k0, k0 + o->copy_ns, o->batch_bytes, PFPROF_COPY_KIND_HTOD,
                        o->pageable ? PFPROF_MEMORY_KIND_PAGEABLE : PFPROF_MEMORY_KIND_PINNED,
                        PFPROF_MEMORY_KIND_DEVICE, TRUE, o->pageable);
            c = api (&s, SIM_MAIN_TID, k0 - 4000, k0 - 3000, "cudaStreamWaitEvent", 0);
            sync_rec (&s, c, k0 - 4000, k0 - 3000, PFPROF_SYNC_STREAM_WAIT_EVENT, SIM_COMPUTE_STREAM);
            k0 += o->copy_ns + o->late_gap_ns;
          }
          break;
        case SIM_COPY_PREFETCH:
          /* The next batch, copied while this step computes. */
          memcpy_rec (&s, SIM_COPY_STREAM, k0 + 100000, k0 + 100000 + o->copy_ns, o->batch_bytes,
                      PFPROF_COPY_KIND_HTOD,
                      o->pageable ? PFPROF_MEMORY_KIND_PAGEABLE : PFPROF_MEMORY_KIND_PINNED,
                      PFPROF_MEMORY_KIND_DEVICE, TRUE, o->pageable);
          break;
        case SIM_COPY_NONE:
        default:
          break;
        }
      for (guint j = 0; j < o->small_copies && !o->small_idle; j++)
        {
          gint64 st = k0 + 200000 + (gint64) j * 20000;
          memcpy_rec (&s, SIM_COPY_STREAM, st, st + 3000, o->small_bytes, PFPROF_COPY_KIND_HTOD,
                      PFPROF_MEMORY_KIND_PINNED, PFPROF_MEMORY_KIND_DEVICE, TRUE, FALSE);
        }
      if (o->small_idle && o->small_copies > 0)
        {
          /* Each call 10-5 µs before its copy; the GPU idles between the
           * copies while the host gets to the next. Interleaved, a 1 µs
           * kernel launched just before each copy but the first. */
          for (guint j = 0; j < o->small_copies; j++)
            {
              gint64 st = k0 + 20000 + (gint64) j * o->small_spacing_ns;

              if (o->small_interleaved && j > 0)
                kernel (&s, SIM_COMPUTE_STREAM, st - o->small_spacing_ns / 2, st - o->small_spacing_ns / 2 + 1000,
                        "index_select");
              memcpy_rec (&s, SIM_COMPUTE_STREAM, st, st + 3000, o->small_bytes, PFPROF_COPY_KIND_HTOD,
                          PFPROF_MEMORY_KIND_PINNED, PFPROF_MEMORY_KIND_DEVICE, TRUE, FALSE);
            }
          k0 += 20000 + (gint64) o->small_copies * o->small_spacing_ns + 20000;
        }
      kt = k0;
      for (guint j = 0; j < 8; j++)
        {
          static const char *const names[] = { "conv_fwd", "relu_fwd", "conv_fwd2", "loss_fwd",
                                               "loss_bwd", "conv_bwd", "relu_bwd", "sgd_update" };
          gint64 d = compute / 8;

          /* After a sync the GPU's queue is empty: it runs each of the
           * first kernels as soon as the host launches it. */
          if (synced && j >= 1 && j <= 4)
            kt += o->launch_gap_ns;
          if (j >= 1 && o->kernel_gap_ns > 0)
            {
              if (o->sync_between_kernels)
                {
                  gint64 x = kt + 20000;
                  guint32 c;

                  memcpy_rec (&s, SIM_COMPUTE_STREAM, x, x + 2000, 4, PFPROF_COPY_KIND_DTOH,
                              PFPROF_MEMORY_KIND_DEVICE, PFPROF_MEMORY_KIND_PINNED, TRUE, FALSE);
                  c = api (&s, SIM_MAIN_TID, x - 4000, x + 3000, "cudaStreamSynchronize", 0);
                  sync_rec (&s, c, x - 4000, x + 3000, PFPROF_SYNC_STREAM_SYNCHRONIZE, SIM_COMPUTE_STREAM);
                  kt = x;
                }
              kt += o->kernel_gap_ns;
            }
          kernel (&s, SIM_COMPUTE_STREAM, kt, kt + d, names[j]);
          kt += d;
        }
      for (guint j = 0; j < o->polls_per_step; j++)
        {
          gint64 pt = k0 + (gint64) j * 50000;
          guint32 c = api (&s, SIM_MAIN_TID, pt, pt + 2000, "cudaEventQuery",
                           o->polls_not_ready ? 600 : 0);
          sync_rec (&s, c, pt, pt + 2000, PFPROF_SYNC_EVENT_SYNCHRONIZE, PFPROF_NONE);
        }
      t = kt;
      synced = FALSE;
      if (o->sync_each_step || (o->sync_every && i % o->sync_every == 0))
        {
          synced = TRUE;
          guint32 c;

          memcpy_rec (&s, SIM_COMPUTE_STREAM, t, t + 2000, 4, PFPROF_COPY_KIND_DTOH,
                      PFPROF_MEMORY_KIND_DEVICE, PFPROF_MEMORY_KIND_PINNED, TRUE, FALSE);
          c = api (&s, SIM_MAIN_TID, t - 1500000, t + 4000, "cudaStreamSynchronize", 0);
          sync_rec (&s, c, t - 1500000, t + 4000, PFPROF_SYNC_STREAM_SYNCHRONIZE, SIM_COMPUTE_STREAM);
          t += 60000; /* the host launches again only now */
        }
      if (steady && stall_every && stalls < o->stall_episodes && (i - warm) % stall_every == 0)
        {
          /* record_stream under memory pressure: sync every event, free
           * and re-allocate, GPU idle. */
          for (guint j = 0; j < 16; j++)
            {
              guint32 c = api (&s, SIM_MAIN_TID, t, t + 20000, "cudaEventSynchronize", 0);
              sync_rec (&s, c, t, t + 20000, PFPROF_SYNC_EVENT_SYNCHRONIZE, PFPROF_NONE);
              t += 22000;
            }
          for (guint j = 0; j < 6; j++)
            {
              api (&s, SIM_MAIN_TID, t, t + 300000, "cudaFree", 0);
              t += 310000;
            }
          for (guint j = 0; j < 6; j++)
            {
              api (&s, SIM_MAIN_TID, t, t + 200000, "cudaMalloc", 0);
              t += 210000;
            }
          stalls++;
        }
      if (steady && malloc_every && mallocs < o->mallocs_total && (i - warm) % malloc_every == 0)
        {
          api (&s, SIM_MAIN_TID, t, t + 150000, "cudaMalloc", 0);
          mallocs++;
        }
      if (steady && (o->host_allocs || (alloc_every && (i - warm) % alloc_every == 0)))
        {
          guint n = o->host_allocs ? o->host_allocs : 1;

          for (guint j = 0; j < n; j++)
            api (&s, SIM_PIN_TID, step_start + 10000 + j * 100000, step_start + 90000 + j * 100000,
                 "cudaHostAlloc", 0);
          allocs += n;
        }
      t += 50000 + o->host_gap_ns;
      if (o->step_nvtx)
        nvtx (&s, NULL, o->step_name, step_start + o->data_wait_ns, t);
    }
  pfprof_trace_sort (s.t);
  return s.t;
}

PfprofTrace *
sim_build_host_ahead (const SimOptions *o)
{
  Sim s = { pfprof_trace_new (), 0, o->no_launch_records };
  g_autofree gint64 *gpu_end = g_new0 (gint64, o->n_steps);
  gint64 h = 1000000000; /* host time */
  gint64 g = h;          /* when the GPU is free */

  s.t->pid = o->pid;
  s.t->path = g_strdup ("sim-host-ahead.pfprof");
  g_hash_table_insert (s.t->meta, g_strdup ("pid"), g_strdup_printf ("%" G_GINT64_FORMAT, o->pid));
  for (guint i = 0; i < o->n_steps; i++)
    {
      gint64 kt;

      /* Every 4th step the allocator, out of memory, waits for the GPU to
       * finish everything queued before it reuses the batches. */
      if (i >= 1 && i % 4 == 0 && gpu_end[i - 1] > h)
        {
          guint32 c = api (&s, SIM_MAIN_TID, h, gpu_end[i - 1] + 5000, "cudaEventSynchronize", 0);

          sync_rec (&s, c, h, gpu_end[i - 1] + 5000, PFPROF_SYNC_EVENT_SYNCHRONIZE, PFPROF_NONE);
          h = gpu_end[i - 1] + 10000;
        }
      nvtx (&s, PFPROF_NVTX_DOMAIN_PFPROF, PFPROF_NVTX_DATALOADER_WAIT, h, h + o->data_wait_ns);
      h += o->data_wait_ns;
      /* The copy's API call is recorded whatever the launch setting. */
      {
        PfprofMemcpyRecord m = { 0 };

        m.start_ns = MAX (g, h + 15000);
        m.end_ns = m.start_ns + o->copy_ns;
        m.bytes = o->batch_bytes;
        m.context_id = 1;
        m.stream_id = SIM_COMPUTE_STREAM;
        m.correlation_id = api (&s, SIM_MAIN_TID, h, h + 10000, "cudaMemcpyAsync", 0);
        m.copy_kind = PFPROF_COPY_KIND_HTOD;
        m.src_kind = PFPROF_MEMORY_KIND_PINNED;
        m.dst_kind = PFPROF_MEMORY_KIND_DEVICE;
        m.flags = PFPROF_MEMCPY_FLAG_ASYNC;
        g_array_append_val (s.t->tables[PFPROF_TABLE_MEMCPYS], m);
        kt = m.end_ns + 2000;
        h += 10000;
      }
      for (guint j = 0; j < 8; j++)
        {
          PfprofKernelRecord k = { 0 };

          h += 10000;
          k.start_ns = MAX (kt, h + 5000);
          k.end_ns = k.start_ns + o->compute_ns / 8;
          k.context_id = 1;
          k.stream_id = SIM_COMPUTE_STREAM;
          if (s.no_launch_records)
            k.correlation_id = ++s.corr;
          else
            k.correlation_id = api (&s, SIM_MAIN_TID, h - 8000, h, "cudaLaunchKernel", 0);
          k.name_id = sim_intern (s.t, j == 0 ? "conv_fwd" : j == 7 ? "sgd_update" : "layer");
          k.grid_x = k.grid_y = k.grid_z = 1;
          k.block_x = 128;
          k.block_y = k.block_z = 1;
          g_array_append_val (s.t->tables[PFPROF_TABLE_KERNELS], k);
          kt = k.end_ns + 2000;
        }
      g = kt;
      gpu_end[i] = kt;
      h += 20000;
    }
  pfprof_trace_sort (s.t);
  return s.t;
}

void
sim_add_kernel (PfprofTrace *t, const char *name, guint32 stream, gint64 start, gint64 end)
{
  PfprofKernelRecord k = { 0 };

  k.start_ns = start;
  k.end_ns = end;
  k.stream_id = stream;
  k.context_id = 1;
  k.correlation_id = PFPROF_NONE;
  k.name_id = sim_intern (t, name);
  g_array_append_val (t->tables[PFPROF_TABLE_KERNELS], k);
}

PfprofAnalysis *
sim_analyze (GPtrArray *traces, const PfprofAnalysisOptions *options)
{
  g_autoptr (PfprofRun) run = pfprof_run_new (traces);

  return pfprof_analysis_run (run, options);
}
