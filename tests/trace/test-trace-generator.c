/* SPDX-License-Identifier: MIT */
/* test-trace-generator.c: the synthetic generator is deterministic, its
 * baseline is clean, and each planted pattern leaves exactly the records
 * its documentation (trace/pfprof-trace-generator.h) promises. */
#include <string.h>

#include "pfprof-trace-generator.h"
#include "trace-test-util.h"

#define STEPS 40
#define MS 1000000

typedef struct
{
  PfprofTrace *trace;
  PfprofTraceGeneratorResult result;
  unsigned plants;
} Generated;

static void
generated_free (Generated *g)
{
  pfprof_trace_free (g->trace);
  g_free (g);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Generated, generated_free)

static Generated *
generate (unsigned plants, guint32 steps, guint64 seed)
{
  g_autoptr (GError) error = NULL;
  char *dir = trace_test_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "gen.pfprof", NULL);
  Generated *g = g_new0 (Generated, 1);
  PfprofTraceGenerator gen;
  char errbuf[256];

  pfprof_trace_generator_init (&gen);
  gen.steps = steps;
  gen.seed = seed;
  gen.plants = plants;
  g_assert_cmpint (pfprof_trace_generator_write (&gen, path, 0, &g->result, errbuf, sizeof errbuf),
                   ==, PFPROF_WRITER_OK);
  g->trace = pfprof_trace_reader_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g->plants = plants;
  trace_test_tmp_dir_free (dir);
  return g;
}

/* The API record with correlation id @corr, or NULL. */
static const PfprofApiRecord *
api_for (const PfprofTrace *t, guint32 corr)
{
  const PfprofApiRecord *a = pfprof_trace_api_calls (t);

  for (guint i = 0; i < pfprof_trace_n (t, PFPROF_TABLE_API_CALLS); i++)
    if (a[i].correlation_id == corr)
      return &a[i];
  return NULL;
}

static guint
count_api (const Generated *g, const char *name, gboolean after_warmup, int ret)
{
  const PfprofApiRecord *a = pfprof_trace_api_calls (g->trace);
  guint n = 0;

  for (guint i = 0; i < pfprof_trace_n (g->trace, PFPROF_TABLE_API_CALLS); i++)
    if (strcmp (pfprof_trace_string (g->trace, a[i].name_id), name) == 0
        && (!after_warmup || a[i].start_ns >= g->result.first_step_ns)
        && (ret < 0 || a[i].return_value == ret))
      n++;
  return n;
}

/* Time of [start, end) covered by kernels on any stream (or only
 * @stream unless PFPROF_NONE). */
static gint64
kernel_overlap (const PfprofTrace *t, gint64 start, gint64 end, guint32 stream)
{
  const PfprofKernelRecord *k = pfprof_trace_kernels (t);
  g_autoptr (GArray) pieces = g_array_new (FALSE, FALSE, sizeof (gint64) * 2);
  gint64 covered = 0, cur_s = 0, cur_e = G_MININT64;

  for (guint i = 0; i < pfprof_trace_n (t, PFPROF_TABLE_KERNELS) && k[i].start_ns < end; i++)
    if (k[i].end_ns > start && (stream == PFPROF_NONE || k[i].stream_id == stream))
      {
        gint64 s = MAX (k[i].start_ns, start), e = MIN (k[i].end_ns, end);

        /* Kernels are sorted by start: merge as we go. */
        if (s > cur_e)
          {
            if (cur_e > cur_s)
              covered += cur_e - cur_s;
            cur_s = s;
            cur_e = e;
          }
        else
          cur_e = MAX (cur_e, e);
      }
  if (cur_e > cur_s)
    covered += cur_e - cur_s;
  return covered;
}

typedef struct
{
  guint pageable_big;      /* HtoD >= 64 KiB from pageable memory */
  guint pinned_big;
  guint tiny_htod;         /* HtoD < 64 KiB */
  guint dtoh_tiny_pinned;  /* DtoH <= 8 bytes into pinned memory */
  guint big_on_compute;    /* HtoD >= 1 MiB on the compute stream */
  gint64 big_ns, big_overlap_ns;
} Copies;

static Copies
count_copies (const Generated *g, gboolean after_warmup)
{
  const PfprofMemcpyRecord *m = pfprof_trace_memcpys (g->trace);
  Copies c = { 0 };

  for (guint i = 0; i < pfprof_trace_n (g->trace, PFPROF_TABLE_MEMCPYS); i++)
    {
      if ((m[i].start_ns >= g->result.first_step_ns) != after_warmup)
        continue;
      if (m[i].copy_kind == PFPROF_COPY_KIND_DTOH && m[i].bytes <= 8
          && m[i].dst_kind == PFPROF_MEMORY_KIND_PINNED)
        c.dtoh_tiny_pinned++;
      if (m[i].copy_kind != PFPROF_COPY_KIND_HTOD)
        continue;
      if (m[i].bytes < 64 * 1024)
        c.tiny_htod++;
      else if (m[i].src_kind == PFPROF_MEMORY_KIND_PAGEABLE)
        c.pageable_big++;
      else if (m[i].src_kind == PFPROF_MEMORY_KIND_PINNED)
        c.pinned_big++;
      if (m[i].bytes >= 1024 * 1024)
        {
          if (m[i].stream_id == PFPROF_TRACE_GENERATOR_COMPUTE_STREAM)
            c.big_on_compute++;
          c.big_ns += m[i].end_ns - m[i].start_ns;
          c.big_overlap_ns += kernel_overlap (g->trace, m[i].start_ns, m[i].end_ns, PFPROF_NONE);
        }
    }
  return c;
}

static guint
count_nvtx (const Generated *g, const char *name, gint64 min_ns)
{
  const PfprofNvtxRecord *r = pfprof_trace_nvtx (g->trace);
  guint n = 0;

  for (guint i = 0; i < pfprof_trace_n (g->trace, PFPROF_TABLE_NVTX); i++)
    if (strcmp (pfprof_trace_string (g->trace, r[i].name_id), name) == 0
        && r[i].end_ns - r[i].start_ns >= min_ns)
      n++;
  return n;
}

static guint
count_memory (const Generated *g, guint8 op, guint8 kind)
{
  const PfprofMemoryRecord *m = pfprof_trace_memory (g->trace);
  guint n = 0;

  for (guint i = 0; i < pfprof_trace_n (g->trace, PFPROF_TABLE_MEMORY); i++)
    if (m[i].ts_ns >= g->result.first_step_ns && m[i].operation == op && m[i].memory_kind == kind)
      n++;
  return n;
}

/* Sync type 2 on the compute stream joined to an event on the copy
 * stream, whose next compute kernel starts within 10 us of the event
 * after a gap of at least 1 ms. */
static guint
count_late_waits (const Generated *g)
{
  const PfprofSyncRecord *s = pfprof_trace_syncs (g->trace);
  const PfprofCudaEventRecord *e = pfprof_trace_cuda_events (g->trace);
  const PfprofKernelRecord *k = pfprof_trace_kernels (g->trace);
  guint n = 0;

  for (guint i = 0; i < pfprof_trace_n (g->trace, PFPROF_TABLE_SYNCS); i++)
    {
      const PfprofCudaEventRecord *ev = NULL;
      gint64 prev_end = G_MININT64;

      if (s[i].type != PFPROF_SYNC_STREAM_WAIT_EVENT
          || s[i].stream_id != PFPROF_TRACE_GENERATOR_COMPUTE_STREAM)
        continue;
      for (guint j = 0; j < pfprof_trace_n (g->trace, PFPROF_TABLE_CUDA_EVENTS); j++)
        if (e[j].event_sync_id == s[i].event_sync_id)
          ev = &e[j];
      g_assert_nonnull (ev);
      g_assert_cmpuint (ev->event_id, ==, s[i].event_id);
      if (ev->stream_id != PFPROF_TRACE_GENERATOR_COPY_STREAM)
        continue;
      for (guint j = 0; j < pfprof_trace_n (g->trace, PFPROF_TABLE_KERNELS); j++)
        {
          if (k[j].stream_id != PFPROF_TRACE_GENERATOR_COMPUTE_STREAM)
            continue;
          if (k[j].start_ns >= ev->device_ts_ns)
            {
              if (k[j].start_ns - ev->device_ts_ns <= 10000 && k[j].start_ns - prev_end >= MS)
                n++;
              break;
            }
          prev_end = MAX (prev_end, k[j].end_ns);
        }
    }
  return n;
}

/* GPU idle (no kernel on any stream) at every memory release after the
 * warm-up. */
static gboolean
releases_while_idle (const Generated *g)
{
  const PfprofMemoryRecord *m = pfprof_trace_memory (g->trace);

  for (guint i = 0; i < pfprof_trace_n (g->trace, PFPROF_TABLE_MEMORY); i++)
    if (m[i].ts_ns >= g->result.first_step_ns && m[i].operation == PFPROF_MEMORY_OP_RELEASE
        && m[i].memory_kind == PFPROF_MEMORY_KIND_DEVICE
        && kernel_overlap (g->trace, m[i].ts_ns - 1, m[i].ts_ns + 1, PFPROF_NONE) != 0)
      return FALSE;
  return TRUE;
}

/* ---- Tests ----------------------------------------------------------- */

static void
test_deterministic (void)
{
  char *dir = trace_test_tmp_dir ();
  g_autofree char *a = g_build_filename (dir, "a.pfprof", NULL);
  g_autofree char *b = g_build_filename (dir, "b.pfprof", NULL);
  g_autofree char *c = g_build_filename (dir, "c.pfprof", NULL);
  g_autofree char *da = NULL, *db = NULL, *dc = NULL;
  gsize la, lb, lc;
  PfprofTraceGenerator gen;

  pfprof_trace_generator_init (&gen);
  gen.steps = 30;
  gen.seed = 99;
  gen.plants = PFPROF_PLANT_ALL;
  g_assert_cmpint (pfprof_trace_generator_write (&gen, a, 0, NULL, NULL, 0), ==, 0);
  g_assert_cmpint (pfprof_trace_generator_write (&gen, b, 0, NULL, NULL, 0), ==, 0);
  gen.seed = 100;
  g_assert_cmpint (pfprof_trace_generator_write (&gen, c, 0, NULL, NULL, 0), ==, 0);
  g_assert_true (g_file_get_contents (a, &da, &la, NULL));
  g_assert_true (g_file_get_contents (b, &db, &lb, NULL));
  g_assert_true (g_file_get_contents (c, &dc, &lc, NULL));
  /* Byte for byte. */
  g_assert_cmpmem (da, la, db, lb);
  g_assert_false (la == lc && memcmp (da, dc, la) == 0);
  /* Refuses to overwrite, like the writer. */
  g_assert_cmpint (pfprof_trace_generator_write (&gen, a, 0, NULL, NULL, 0), ==,
                   PFPROF_WRITER_ERR_EXISTS);
  trace_test_tmp_dir_free (dir);
}

static void
test_events_target (void)
{
  char *dir = trace_test_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "e.pfprof", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (PfprofTrace) trace = NULL;
  PfprofTraceGeneratorResult result;
  PfprofTraceGenerator gen;

  pfprof_trace_generator_init (&gen);
  gen.steps = 0;
  gen.events = 30000;
  g_assert_cmpint (pfprof_trace_generator_write (&gen, path, 0, &result, NULL, 0), ==, 0);
  trace = pfprof_trace_reader_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pfprof_trace_n_events (trace), ==, result.n_events);
  /* Stops at the end of the step that reaches the target. */
  g_assert_cmpuint (result.n_events, >=, 30000 - 20);
  g_assert_cmpuint (result.n_events, <, 30000 + 200);
  g_assert_cmpuint (result.n_steps, >, 100);
  g_assert_cmpuint (count_nvtx (&(Generated) { trace, result, 0 }, "train_step", 0), ==, result.n_steps);
  g_assert_cmpstr (pfprof_trace_meta (trace, "complete"), ==, "1");
  trace_test_tmp_dir_free (dir);
}

static void
test_baseline (void)
{
  g_autoptr (Generated) g = generate (0, STEPS, 1);
  const PfprofTrace *t = g->trace;
  Copies warm = count_copies (g, FALSE);
  Copies steady = count_copies (g, TRUE);

  /* Every table the collector fills has rows (windows only with --sample). */
  for (unsigned i = 0; i < PFPROF_N_TABLES; i++)
    if (i != PFPROF_TABLE_WINDOWS)
      g_assert_cmpuint (pfprof_trace_n (t, (PfprofTableId) i), >, 0);
  g_assert_cmpuint (g->result.n_steps, ==, STEPS);
  g_assert_cmpuint (pfprof_trace_n_events (t), ==, g->result.n_events);
  g_assert_cmpint (t->pid, ==, 4242);
  g_assert_cmpint (t->rank, ==, 0);
  g_assert_cmpstr (pfprof_trace_meta (t, "generator_plants"), ==, "none");
  g_assert_cmpstr (pfprof_trace_string (t, pfprof_trace_devices (t)[0].name_id), ==, "NVIDIA H200");

  /* Warm-up: model weights copied from pageable memory, device syncs. */
  g_assert_cmpuint (warm.pageable_big, >=, 50);
  g_assert_cmpuint (count_api (g, "cudaDeviceSynchronize", FALSE, -1), >=, 3);
  /* Steady state: pinned batch copies hidden behind kernels, nothing
   * pageable, no host sync, no allocation. */
  g_assert_cmpuint (steady.pageable_big, ==, 0);
  g_assert_cmpuint (steady.pinned_big, ==, STEPS);
  g_assert_cmpuint (steady.big_on_compute, ==, 0);
  g_assert_cmpint (steady.big_overlap_ns, >=, steady.big_ns * 9 / 10);
  g_assert_cmpuint (steady.tiny_htod, ==, STEPS); /* the labels, 2 KiB */
  g_assert_cmpuint (count_api (g, "cudaStreamSynchronize", TRUE, -1), ==, 0);
  g_assert_cmpuint (count_api (g, "cudaEventSynchronize", TRUE, -1), ==, 0);
  g_assert_cmpuint (count_api (g, "cudaEventQuery", TRUE, 600), ==, 0);
  g_assert_cmpuint (count_api (g, "cudaHostAlloc", FALSE, -1), ==, 4);
  g_assert_cmpuint (count_api (g, "cudaHostAlloc", TRUE, -1), ==, 0);
  g_assert_cmpuint (count_memory (g, PFPROF_MEMORY_OP_ALLOCATION, PFPROF_MEMORY_KIND_DEVICE), ==, 0);
  g_assert_cmpuint (count_memory (g, PFPROF_MEMORY_OP_RELEASE, PFPROF_MEMORY_KIND_DEVICE), ==, 0);
  g_assert_cmpuint (count_late_waits (g), ==, 0);
  g_assert_cmpuint (count_nvtx (g, "DataLoader.next", 0), ==, STEPS);
  g_assert_cmpuint (count_nvtx (g, "DataLoader.next", 1 * MS), ==, 0);
  g_assert_cmpuint (count_nvtx (g, "train_step", 0), ==, STEPS);

  /* Correlation ids join every GPU record to the call that issued it. */
  for (guint i = 0; i < pfprof_trace_n (t, PFPROF_TABLE_KERNELS); i++)
    {
      const PfprofKernelRecord *k = &pfprof_trace_kernels (t)[i];
      const PfprofApiRecord *a = api_for (t, k->correlation_id);

      g_assert_nonnull (a);
      g_assert_cmpstr (pfprof_trace_string (t, a->name_id), ==, "cudaLaunchKernel");
      g_assert_cmpint (a->start_ns, <, k->start_ns);
      g_assert_cmpint (k->end_ns, >, k->start_ns);
    }
  for (guint i = 0; i < pfprof_trace_n (t, PFPROF_TABLE_MEMCPYS); i++)
    {
      const PfprofMemcpyRecord *m = &pfprof_trace_memcpys (t)[i];

      g_assert_nonnull (api_for (t, m->correlation_id));
      g_assert_cmpuint (m->runtime_correlation_id, ==, m->correlation_id);
    }
}

static void
test_plant_pageable (void)
{
  g_autoptr (Generated) g = generate (PFPROF_PLANT_PAGEABLE, STEPS, 1);
  Copies steady = count_copies (g, TRUE);
  const PfprofMemcpyRecord *m = pfprof_trace_memcpys (g->trace);

  g_assert_cmpuint (steady.pageable_big, ==, STEPS);
  g_assert_cmpuint (steady.pinned_big, ==, 0);
  /* The host is blocked in cudaMemcpyAsync for the whole copy. */
  for (guint i = 0; i < pfprof_trace_n (g->trace, PFPROF_TABLE_MEMCPYS); i++)
    if (m[i].src_kind == PFPROF_MEMORY_KIND_PAGEABLE && m[i].start_ns >= g->result.first_step_ns)
      {
        const PfprofApiRecord *a = api_for (g->trace, m[i].correlation_id);

        g_assert_cmpstr (pfprof_trace_string (g->trace, a->name_id), ==, "cudaMemcpyAsync");
        g_assert_true (m[i].flags & PFPROF_MEMCPY_FLAG_ASYNC);
        g_assert_cmpint (a->end_ns, >=, m[i].end_ns);
      }
}

static void
test_plant_serialized (void)
{
  g_autoptr (Generated) g = generate (PFPROF_PLANT_SERIALIZED, STEPS, 1);
  Copies steady = count_copies (g, TRUE);

  g_assert_cmpuint (steady.big_on_compute, ==, STEPS);
  g_assert_cmpuint (steady.pinned_big, ==, STEPS);
  g_assert_cmpint (steady.big_ns, >, 0);
  g_assert_cmpint (steady.big_overlap_ns, ==, 0);
}

static void
test_plant_record_stream (void)
{
  g_autoptr (Generated) g = generate (PFPROF_PLANT_RECORD_STREAM, STEPS, 1);
  /* Bursts at steps 4, 12, 20, 28, 36. */
  guint bursts = (STEPS - 4 + 7) / 8;

  g_assert_cmpuint (count_api (g, "cudaEventQuery", TRUE, 600), >=, 7 * STEPS);
  g_assert_cmpuint (count_api (g, "cudaEventSynchronize", TRUE, -1), ==, 16 * bursts);
  g_assert_cmpuint (count_memory (g, PFPROF_MEMORY_OP_RELEASE, PFPROF_MEMORY_KIND_DEVICE), ==, 6 * bursts);
  g_assert_cmpuint (count_memory (g, PFPROF_MEMORY_OP_ALLOCATION, PFPROF_MEMORY_KIND_DEVICE), ==, 6 * bursts);
  g_assert_true (releases_while_idle (g));
  /* Every event sync has its sync record, joined to a recorded event. */
  {
    const PfprofSyncRecord *s = pfprof_trace_syncs (g->trace);
    guint n = 0;

    for (guint i = 0; i < pfprof_trace_n (g->trace, PFPROF_TABLE_SYNCS); i++)
      if (s[i].type == PFPROF_SYNC_EVENT_SYNCHRONIZE)
        {
          const PfprofApiRecord *a = api_for (g->trace, s[i].correlation_id);

          g_assert_nonnull (a);
          g_assert_cmpint (a->start_ns, ==, s[i].start_ns);
          if (strcmp (pfprof_trace_string (g->trace, a->name_id), "cudaEventSynchronize") == 0)
            n++;
        }
    g_assert_cmpuint (n, ==, 16 * bursts);
  }
}

static void
test_plant_input_starved (void)
{
  g_autoptr (Generated) g = generate (PFPROF_PLANT_INPUT_STARVED, STEPS, 1);
  const PfprofNvtxRecord *r = pfprof_trace_nvtx (g->trace);

  g_assert_cmpuint (count_nvtx (g, "DataLoader.next", 20 * MS), ==, STEPS);
  /* The GPU is busy for at most the 2 ms of queued work of each wait. */
  for (guint i = 0; i < pfprof_trace_n (g->trace, PFPROF_TABLE_NVTX); i++)
    if (strcmp (pfprof_trace_string (g->trace, r[i].name_id), "DataLoader.next") == 0)
      g_assert_cmpint (kernel_overlap (g->trace, r[i].start_ns, r[i].end_ns, PFPROF_NONE), <=, 3 * MS);
}

static void
test_plant_late_prefetch (void)
{
  g_autoptr (Generated) g = generate (PFPROF_PLANT_LATE_PREFETCH, STEPS, 1);

  g_assert_cmpuint (count_late_waits (g), ==, STEPS);
  g_assert_cmpuint (count_copies (g, TRUE).big_on_compute, ==, 0);
}

static void
test_plant_sync_in_loop (void)
{
  g_autoptr (Generated) g = generate (PFPROF_PLANT_SYNC_IN_LOOP, STEPS, 1);
  const PfprofSyncRecord *s = pfprof_trace_syncs (g->trace);
  guint n = 0;

  g_assert_cmpuint (count_api (g, "cudaStreamSynchronize", TRUE, -1), ==, STEPS);
  g_assert_cmpuint (count_copies (g, TRUE).dtoh_tiny_pinned, ==, STEPS);
  for (guint i = 0; i < pfprof_trace_n (g->trace, PFPROF_TABLE_SYNCS); i++)
    if (s[i].type == PFPROF_SYNC_STREAM_SYNCHRONIZE)
      {
        g_assert_cmpuint (s[i].stream_id, ==, PFPROF_TRACE_GENERATOR_COMPUTE_STREAM);
        n++;
      }
  g_assert_cmpuint (n, ==, STEPS);
}

static void
test_plant_small_transfers (void)
{
  g_autoptr (Generated) g = generate (PFPROF_PLANT_SMALL_TRANSFERS, STEPS, 1);

  g_assert_cmpuint (count_copies (g, TRUE).tiny_htod, ==, STEPS * 49);
  g_assert_cmpuint (count_api (g, "cudaMemcpyAsync", TRUE, -1), >=, STEPS * 50);
}

static void
test_plant_pinned_alloc (void)
{
  g_autoptr (Generated) g = generate (PFPROF_PLANT_PINNED_ALLOC, STEPS, 1);
  const PfprofApiRecord *a = pfprof_trace_api_calls (g->trace);

  g_assert_cmpuint (count_api (g, "cudaHostAlloc", TRUE, -1), ==, STEPS);
  g_assert_cmpuint (count_api (g, "cudaFreeHost", TRUE, -1), ==, STEPS - 1);
  g_assert_cmpuint (count_memory (g, PFPROF_MEMORY_OP_ALLOCATION, PFPROF_MEMORY_KIND_PINNED), ==, STEPS);
  g_assert_cmpuint (count_memory (g, PFPROF_MEMORY_OP_RELEASE, PFPROF_MEMORY_KIND_PINNED), ==, STEPS - 1);
  /* On the pin-memory thread, not the main one. */
  for (guint i = 0; i < pfprof_trace_n (g->trace, PFPROF_TABLE_API_CALLS); i++)
    if (strcmp (pfprof_trace_string (g->trace, a[i].name_id), "cudaHostAlloc") == 0)
      g_assert_cmpuint (a[i].tid, ==, 4243);
}

/* Each plant is planted only when asked: the baseline checks above hold
 * for the others. */
static void
test_plants_independent (void)
{
  g_autoptr (Generated) g = generate (PFPROF_PLANT_ALL & ~PFPROF_PLANT_PAGEABLE & ~PFPROF_PLANT_PINNED_ALLOC,
                                      STEPS, 3);

  g_assert_cmpuint (count_copies (g, TRUE).pageable_big, ==, 0);
  g_assert_cmpuint (count_api (g, "cudaHostAlloc", TRUE, -1), ==, 0);
  g_assert_cmpuint (count_nvtx (g, "DataLoader.next", 20 * MS), ==, STEPS);
  g_assert_cmpuint (count_api (g, "cudaStreamSynchronize", TRUE, -1), ==, STEPS);
}

static void
test_plant_names (void)
{
  unsigned plants = 0;
  char buf[256];

  g_assert_cmpint (pfprof_trace_generator_parse_plants ("pageable,sync-in-loop", &plants), ==, 0);
  g_assert_cmpuint (plants, ==, PFPROF_PLANT_PAGEABLE | PFPROF_PLANT_SYNC_IN_LOOP);
  g_assert_cmpint (pfprof_trace_generator_parse_plants ("all", &plants), ==, 0);
  g_assert_cmpuint (plants, ==, PFPROF_PLANT_ALL);
  g_assert_cmpint (pfprof_trace_generator_parse_plants ("none", &plants), ==, 0);
  g_assert_cmpuint (plants, ==, 0);
  g_assert_cmpint (pfprof_trace_generator_parse_plants ("pageable,", &plants), ==, -1);
  g_assert_cmpint (pfprof_trace_generator_parse_plants ("page", &plants), ==, -1);
  g_assert_cmpint (pfprof_trace_generator_parse_plants ("pageable,,serialized", &plants), ==, -1);
  for (unsigned bit = 1; bit & PFPROF_PLANT_ALL; bit <<= 1)
    {
      const char *name = pfprof_trace_generator_plant_name (bit);

      g_assert_nonnull (name);
      g_assert_cmpint (pfprof_trace_generator_parse_plants (name, &plants), ==, 0);
      g_assert_cmpuint (plants, ==, bit);
    }
  g_assert_null (pfprof_trace_generator_plant_name (1u << 20));
  pfprof_trace_generator_format_plants (PFPROF_PLANT_SERIALIZED | PFPROF_PLANT_PINNED_ALLOC, buf, sizeof buf);
  g_assert_cmpstr (buf, ==, "serialized,pinned-alloc");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/generator/deterministic", test_deterministic);
  g_test_add_func ("/generator/events-target", test_events_target);
  g_test_add_func ("/generator/baseline", test_baseline);
  g_test_add_func ("/generator/plant/pageable", test_plant_pageable);
  g_test_add_func ("/generator/plant/serialized", test_plant_serialized);
  g_test_add_func ("/generator/plant/record-stream", test_plant_record_stream);
  g_test_add_func ("/generator/plant/input-starved", test_plant_input_starved);
  g_test_add_func ("/generator/plant/late-prefetch", test_plant_late_prefetch);
  g_test_add_func ("/generator/plant/sync-in-loop", test_plant_sync_in_loop);
  g_test_add_func ("/generator/plant/small-transfers", test_plant_small_transfers);
  g_test_add_func ("/generator/plant/pinned-alloc", test_plant_pinned_alloc);
  g_test_add_func ("/generator/plant/independent", test_plants_independent);
  g_test_add_func ("/generator/plant-names", test_plant_names);
  return g_test_run ();
}
