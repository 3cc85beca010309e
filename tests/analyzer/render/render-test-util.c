/* SPDX-License-Identifier: MIT */
/* render-test-util.c: the planted trace of render-test-util.h. */
#include "render-test-util.h"

#include "pfprof-trace-writer.h"

static guint32
intern (PfprofTrace *t, const char *s)
{
  for (guint i = 0; i < t->strings->len; i++)
    if (g_strcmp0 (g_ptr_array_index (t->strings, i), s) == 0)
      return i;
  g_ptr_array_add (t->strings, g_strdup (s));
  return t->strings->len - 1;
}

static guint32 next_corr = 1;

static void
api (PfprofTrace *t, gint64 start, gint64 end, const char *name, guint32 corr)
{
  PfprofApiRecord a = { 0 };

  a.start_ns = start;
  a.end_ns = end;
  a.tid = 100;
  a.correlation_id = corr;
  a.name_id = intern (t, name);
  a.domain = PFPROF_API_RUNTIME;
  g_array_append_val (t->tables[PFPROF_TABLE_API_CALLS], a);
}

static void
copy (PfprofTrace *t, guint32 stream, gint64 start, gint64 end, int kind, int host_kind)
{
  PfprofMemcpyRecord m = { 0 };
  guint32 corr = next_corr++;

  m.start_ns = start;
  m.end_ns = end;
  m.bytes = 64u << 20;
  m.device_id = 0;
  m.context_id = 1;
  m.stream_id = stream;
  m.correlation_id = corr;
  m.copy_kind = (guint8) kind;
  m.src_kind = (guint8) (kind == PFPROF_COPY_KIND_HTOD ? host_kind : PFPROF_MEMORY_KIND_DEVICE);
  m.dst_kind = (guint8) (kind == PFPROF_COPY_KIND_HTOD ? PFPROF_MEMORY_KIND_DEVICE : host_kind);
  m.flags = PFPROF_MEMCPY_FLAG_ASYNC;
  g_array_append_val (t->tables[PFPROF_TABLE_MEMCPYS], m);
  api (t, start - 60000, start - 40000, "cudaMemcpyAsync", corr);
}

static void
kernel (PfprofTrace *t, guint32 stream, gint64 start, gint64 end, guint32 name, gboolean with_api)
{
  PfprofKernelRecord k = { 0 };

  k.start_ns = start;
  k.end_ns = end;
  k.device_id = 0;
  k.context_id = 1;
  k.stream_id = stream;
  k.name_id = name;
  k.grid_x = k.grid_y = k.grid_z = 1;
  k.block_x = 256;
  k.block_y = k.block_z = 1;
  if (with_api)
    {
      k.correlation_id = next_corr++;
      api (t, start - 30000, start - 20000, "cudaLaunchKernel", k.correlation_id);
    }
  g_array_append_val (t->tables[PFPROF_TABLE_KERNELS], k);
}

PfprofTrace *
rt_trace_new (gboolean dense, const char *kernel_name)
{
  PfprofTrace *t = pfprof_trace_new ();
  guint32 kname = intern (t, kernel_name ? kernel_name : "volta_sgemm_128x64_nn");
  guint32 dense_name = intern (t, "elementwise_kernel");
  PfprofDeviceRecord dev = { 0 };
  PfprofContextRecord ctx = { 1, 0, 7 };
  PfprofThreadRecord thr = { 100, 0 };

  next_corr = 1;
  t->path = g_strdup ("planted.pfprof");
  t->pid = 4242;
  dev.device_id = 0;
  dev.name_id = intern (t, "NVIDIA H200");
  dev.sm_count = 132;
  g_array_append_val (t->tables[PFPROF_TABLE_DEVICES], dev);
  g_array_append_val (t->tables[PFPROF_TABLE_CONTEXTS], ctx);
  thr.name_id = intern (t, "python");
  g_array_append_val (t->tables[PFPROF_TABLE_THREADS], thr);

  for (int k = 0; k < RT_STEPS; k++)
    {
      gint64 s = RT_ORIGIN + k * 10 * RT_MS;
      PfprofMemsetRecord ms = { 0 };
      PfprofSyncRecord sy = { 0 };
      PfprofNvtxRecord nv = { 0 };

      copy (t, 7, s, s + 3 * RT_MS, PFPROF_COPY_KIND_HTOD, PFPROF_MEMORY_KIND_PAGEABLE);
      for (int j = 0; j < 5; j++)
        kernel (t, 7, s + (3 + j) * RT_MS, s + (4 + j) * RT_MS, kname, TRUE);
      copy (t, 7, s + 8 * RT_MS, s + 8 * RT_MS + RT_MS / 2, PFPROF_COPY_KIND_DTOH,
            PFPROF_MEMORY_KIND_PINNED);
      copy (t, 13, s + 1 * RT_MS, s + 2 * RT_MS, PFPROF_COPY_KIND_HTOD, PFPROF_MEMORY_KIND_PINNED);
      ms.start_ns = s + 9 * RT_MS;
      ms.end_ns = s + 9 * RT_MS + RT_MS / 5;
      ms.bytes = 4096;
      ms.context_id = 1;
      ms.stream_id = 13;
      ms.memory_kind = PFPROF_MEMORY_KIND_DEVICE;
      g_array_append_val (t->tables[PFPROF_TABLE_MEMSETS], ms);
      api (t, s + 8 * RT_MS + RT_MS / 2, s + 9 * RT_MS, "cudaStreamSynchronize", next_corr);
      sy.start_ns = s + 8 * RT_MS + RT_MS / 2;
      sy.end_ns = s + 9 * RT_MS;
      sy.context_id = 1;
      sy.stream_id = 7;
      sy.correlation_id = next_corr++;
      sy.event_id = PFPROF_NONE;
      sy.type = PFPROF_SYNC_STREAM_SYNCHRONIZE;
      g_array_append_val (t->tables[PFPROF_TABLE_SYNCS], sy);
      nv.start_ns = s + 9 * RT_MS + RT_MS / 5;
      nv.end_ns = s + 9 * RT_MS + 9 * RT_MS / 10;
      nv.tid = 100;
      nv.domain_id = intern (t, PFPROF_NVTX_DOMAIN_PFPROF);
      nv.name_id = intern (t, PFPROF_NVTX_DATALOADER_WAIT);
      nv.kind = PFPROF_NVTX_RANGE;
      g_array_append_val (t->tables[PFPROF_TABLE_NVTX], nv);
    }
  if (dense)
    for (gint64 x = RT_ORIGIN; x + RT_DENSE_LEN <= RT_ORIGIN + RT_STEPS * 10 * RT_MS; x += RT_DENSE_PERIOD)
      kernel (t, 21, x, x + RT_DENSE_LEN, dense_name, FALSE);
  pfprof_trace_sort (t);
  return t;
}

PfprofAnalysis *
rt_analysis_new (PfprofTrace *trace)
{
  PfprofAnalysis *a = g_new0 (PfprofAnalysis, 1);
  PfprofFinding *f = g_new0 (PfprofFinding, 1);
  PfprofDeviceSummary d = { 0 };
  GPtrArray *traces = g_ptr_array_new ();

  g_ptr_array_add (traces, trace);
  a->run = pfprof_run_new (traces);
  a->traces = pfprof_run_get_traces (a->run);
  a->steps = g_array_new (FALSE, TRUE, sizeof (PfprofStep));
  a->devices = g_array_new (FALSE, TRUE, sizeof (PfprofDeviceSummary));
  a->findings = g_ptr_array_new ();
  for (int k = 0; k < RT_STEPS; k++)
    {
      PfprofStep s = { 0 };

      s.start_ns = RT_ORIGIN + k * 10 * RT_MS;
      s.end_ns = s.start_ns + 10 * RT_MS;
      s.copy_exposed_ns = 3 * RT_MS;
      s.compute_ns = 5 * RT_MS;
      s.idle_ns = RT_MS;
      s.warmup = k == 0;
      g_array_append_val (a->steps, s);
    }
  a->step_median_ns = 10 * RT_MS;
  d.device_id = 0;
  d.overlap_fraction = 0.25;
  d.exposed_copy_ns = 30 * RT_MS;
  g_array_append_val (a->devices, d);

  f->rule = "pageable-htod";
  f->severity = PFPROF_SEVERITY_WARNING;
  f->title = g_strdup ("Host-to-device copies from pageable memory");
  f->message = g_strdup ("10 copies of 64 MiB from pageable memory took 30 ms");
  f->fix = g_strdup ("DataLoader(..., pin_memory=True)");
  f->device_id = 0;
  f->stream_id = 7;
  f->pid = 4242;
  f->evidence = g_array_new (FALSE, TRUE, sizeof (PfprofEvidence));
  for (guint i = 0; i < pfprof_trace_n (trace, PFPROF_TABLE_MEMCPYS); i++)
    {
      const PfprofMemcpyRecord *m = &pfprof_trace_memcpys (trace)[i];
      PfprofEvidence ev = { 0 };

      if (m->src_kind != PFPROF_MEMORY_KIND_PAGEABLE)
        continue;
      ev.start_ns = m->start_ns;
      ev.end_ns = m->end_ns;
      ev.device_id = 0;
      ev.stream_id = 7;
      ev.table = PFPROF_TABLE_MEMCPYS;
      ev.index = i;
      g_array_append_val (f->evidence, ev);
    }
  f->count = f->evidence->len;
  f->time_ns = 30 * RT_MS;
  f->est_savings_ns = 2 * RT_MS;
  f->first_ns = RT_ORIGIN;
  f->last_ns = RT_ORIGIN + 93 * RT_MS;
  g_ptr_array_add (a->findings, f);
  return a;
}

void
rt_analysis_free (PfprofAnalysis *a)
{
  for (guint i = 0; i < a->findings->len; i++)
    {
      PfprofFinding *f = g_ptr_array_index (a->findings, i);

      g_free (f->title);
      g_free (f->message);
      g_free (f->fix);
      g_array_unref (f->evidence);
      g_free (f);
    }
  g_ptr_array_unref (a->findings);
  pfprof_run_unref (a->run);
  g_array_unref (a->steps);
  g_array_unref (a->devices);
  g_free (a);
}

gboolean
rt_trace_write (const PfprofTrace *trace, const char *path)
{
  PfprofTraceWriter *w = NULL;

  if (pfprof_trace_writer_open (path, PFPROF_WRITER_OVERWRITE, &w) != PFPROF_WRITER_OK)
    return FALSE;
  pfprof_trace_writer_set_meta_int (w, "pid", trace->pid);
  pfprof_trace_writer_begin (w);
  /* Interned in id order, so ids in the file equal ours. */
  for (guint i = 0; i < trace->strings->len; i++)
    pfprof_trace_writer_intern (w, g_ptr_array_index (trace->strings, i));
  for (unsigned tb = 0; tb < PFPROF_N_TABLES; tb++)
    {
      GArray *a = trace->tables[tb];

      for (guint i = 0; i < a->len; i++)
        if (pfprof_trace_writer_append (w, (PfprofTableId) tb,
                                        a->data + (gsize) i * g_array_get_element_size (a))
            != PFPROF_WRITER_OK)
          {
            pfprof_trace_writer_close (w);
            return FALSE;
          }
    }
  return pfprof_trace_writer_finish (w) == PFPROF_WRITER_OK;
}
