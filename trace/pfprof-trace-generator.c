/* SPDX-License-Identifier: MIT */
/* pfprof-trace-generator.c: synthetic training-process traces.
 *
 * The simulation keeps one clock for the main thread (`h`) and, per
 * stream, the time its queue drains. Every call the main thread makes
 * advances `h`; GPU work starts when both its launch and its stream allow.
 * What each step contains, and what each planted pattern changes, is
 * documented in the header; keep the two in step.
 */
#include "pfprof-trace-generator.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define US 1000LL
#define MS 1000000LL
#define KIB 1024ULL
#define MIB (1024ULL * 1024ULL)

/* The host may run this far ahead of the compute stream before a launch
 * blocks (CUDA's launch queue is full). */
#define HOST_LEAD_NS (2 * MS)
/* From API call to the GPU starting the work, at the earliest. */
#define LAUNCH_LATENCY_NS (4 * US)
/* Copy rates in bytes per microsecond (= MB/s). */
#define PINNED_BYTES_PER_US 50000ULL
#define PAGEABLE_BYTES_PER_US 12000ULL
/* cudaErrorNotReady */
#define CUDA_ERROR_NOT_READY 600
/* CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH, CUPTI_ACTIVITY_OBJECT_THREAD */
#define OVERHEAD_BUFFER_FLUSH (1u << 16)
#define OBJECT_KIND_THREAD 2
/* CUPTI_CHANNEL_TYPE_COMPUTE, CUPTI_CHANNEL_TYPE_ASYNC_MEMCPY */
#define CHANNEL_COMPUTE 1
#define CHANNEL_ASYNC_MEMCPY 2

#define DEVICE_ID 0
#define CONTEXT_ID 1
#define N_EVENTS_POOL 64
#define MAX_STREAMS 64
#define COMMIT_EVERY 100000

/* Runtime API functions: name and CUPTI runtime callback id. */
enum
{
  API_LAUNCH_KERNEL,
  API_MEMCPY,
  API_MEMCPY_ASYNC,
  API_MEMSET_ASYNC,
  API_STREAM_SYNCHRONIZE,
  API_DEVICE_SYNCHRONIZE,
  API_EVENT_CREATE,
  API_EVENT_RECORD,
  API_EVENT_QUERY,
  API_EVENT_SYNCHRONIZE,
  API_STREAM_WAIT_EVENT,
  API_STREAM_CREATE,
  API_MALLOC,
  API_FREE,
  API_HOST_ALLOC,
  API_FREE_HOST,
  N_API
};

static const struct
{
  const char *name;
  uint32_t cbid;
} api_functions[N_API] = {
  [API_LAUNCH_KERNEL] = { "cudaLaunchKernel", 211 },
  [API_MEMCPY] = { "cudaMemcpy", 31 },
  [API_MEMCPY_ASYNC] = { "cudaMemcpyAsync", 41 },
  [API_MEMSET_ASYNC] = { "cudaMemsetAsync", 51 },
  [API_STREAM_SYNCHRONIZE] = { "cudaStreamSynchronize", 131 },
  [API_DEVICE_SYNCHRONIZE] = { "cudaDeviceSynchronize", 165 },
  [API_EVENT_CREATE] = { "cudaEventCreateWithFlags", 134 },
  [API_EVENT_RECORD] = { "cudaEventRecord", 135 },
  [API_EVENT_QUERY] = { "cudaEventQuery", 138 },
  [API_EVENT_SYNCHRONIZE] = { "cudaEventSynchronize", 137 },
  [API_STREAM_WAIT_EVENT] = { "cudaStreamWaitEvent", 147 },
  [API_STREAM_CREATE] = { "cudaStreamCreateWithPriority", 202 },
  [API_MALLOC] = { "cudaMalloc", 20 },
  [API_FREE] = { "cudaFree", 22 },
  [API_HOST_ALLOC] = { "cudaHostAlloc", 27 },
  [API_FREE_HOST] = { "cudaFreeHost", 26 },
};

typedef enum
{
  PHASE_WARMUP,
  PHASE_FORWARD,
  PHASE_BACKWARD,
  PHASE_OPTIMIZER,
  PHASE_COLLECTIVE,
  PHASE_ALLREDUCE,
  N_PHASES
} Phase;

typedef struct
{
  const char *name;
  int32_t grid_x, block_x;
  int32_t shared_mem_bytes, registers;
} KernelKind;

/* Plausible kernel names in the style of cuBLAS/cuDNN/ATen; not taken
 * from any real binary. */
static const KernelKind kernels_warmup[] = {
  { "cudnn_benchmark_conv2d_fprop_probe", 264, 256, 49152, 96 },
  { "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>",
    1024, 128, 0, 16 },
};
static const KernelKind kernels_forward[] = {
  { "sm90_xmma_fprop_implicit_gemm_f16f16_f16f32_tilesize128x128x64_nhwc", 528, 256, 98304, 168 },
  { "void cudnn::bn_fw_tr_1C11_kernel_NCHW<__half, float, 512, true, 1>", 256, 512, 8192, 40 },
  { "void at::native::vectorized_elementwise_kernel<4, at::native::relu_kernel>",
    2048, 128, 0, 18 },
  { "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1",
    132, 384, 213248, 168 },
  { "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps>>",
    512, 512, 16, 32 },
  { "void at::native::cross_entropy_forward_kernel<float>", 256, 256, 4096, 30 },
};
static const KernelKind kernels_backward[] = {
  { "sm90_xmma_dgrad_implicit_gemm_f16f16_f16f32_tilesize128x128x64_nhwc", 528, 256, 98304, 168 },
  { "sm90_xmma_wgrad_implicit_gemm_f16f16_f16f32_tilesize64x128x64_nhwc", 264, 256, 65536, 128 },
  { "void cudnn::bn_bw_1C11_kernel_new<__half, float, float2, 512, true, 1>", 256, 512, 8192, 48 },
  { "void at::native::vectorized_elementwise_kernel<4, at::native::threshold_backward>",
    2048, 128, 0, 20 },
  { "sm90_xmma_gemm_f16f16_f16f32_f32_nt_n_tilesize128x128x64_warpgroupsize1x1x1",
    132, 256, 147456, 154 },
};
static const KernelKind kernels_optimizer[] = {
  { "void at::native::multi_tensor_apply_kernel<TensorListMetadata<4>, "
    "FusedAdamMathFunctor<float>>",
    320, 512, 0, 64 },
  { "void at::native::multi_tensor_apply_kernel<TensorListMetadata<1>, ZeroFunctor<float>>",
    160, 512, 0, 24 },
};
static const KernelKind kernels_collective[] = {
  { "ncclDevKernel_AllReduce_Sum_f16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 8, 640, 0, 96 },
};

static const KernelKind kernels_allreduce[] = {
  { "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 32, 640, 0, 96 },
};

static const struct
{
  const KernelKind *kinds;
  unsigned n;
  int64_t min_ns, max_ns;
} phases[N_PHASES] = {
  [PHASE_WARMUP] = { kernels_warmup, 2, 50 * US, 2 * MS },
  [PHASE_FORWARD] = { kernels_forward, 6, 150 * US, 600 * US },
  [PHASE_BACKWARD] = { kernels_backward, 5, 200 * US, 800 * US },
  [PHASE_OPTIMIZER] = { kernels_optimizer, 2, 100 * US, 200 * US },
  [PHASE_COLLECTIVE] = { kernels_collective, 1, 150 * US, 400 * US },
  [PHASE_ALLREDUCE] = { kernels_allreduce, 1, 2 * MS, 3 * MS },
};

typedef struct
{
  uint32_t event_id;
  uint64_t event_sync_id;
  int64_t device_ts_ns; /* when the GPU reaches it */
} Event;

typedef struct
{
  const PfprofTraceGenerator *opt;
  PfprofTraceWriter *w;
  int status;
  uint64_t rng;
  uint64_t since_commit;

  int64_t h;                          /* main thread's clock */
  int64_t stream_free[MAX_STREAMS];   /* 0 = compute, 1 = copy, 2.. extra */
  int64_t null_free;                  /* the null stream */
  uint32_t n_streams;
  uint32_t corr;                      /* last correlation id used */
  uint64_t event_sync_id;
  uint32_t next_event;                /* round robin over the event pool */
  uint64_t device_addr;
  uint64_t host_addr;
  uint32_t pid, tid_main, tid_pin;

  uint32_t api_name[N_API];
  uint32_t kernel_name[N_PHASES][8];
  uint32_t domain_pfprof;
  uint32_t str_dataloader, str_step, str_forward, str_backward, str_optimizer, str_epoch;
  uint32_t str_optimizer_step;
  int eval; /* the batch being made is an evaluation batch (PHASES) */

  Event batch_ready;                  /* copy-stream event of the next batch */
  int have_batch_ready;
  Event freed[16];                    /* RECORD_STREAM: allocator's events, */
  uint32_t n_freed;                   /* newest at (n_freed - 1) % 16 */
  Event loss_event;                   /* baseline logging event to poll */
  int have_loss_event;
  uint64_t pinned_buffer;             /* PINNED_ALLOC: previous buffer */
  int64_t end_ns;
  int64_t last_api_end;               /* host end of the last copy's API call */
  uint64_t batch_site_calls;          /* calls of the Python site of the batch copy */
  uint64_t model_site_calls;          /* calls of the site of model.cuda() */
  uint64_t worker_rng;                /* the DataLoader workers' own random stream */
  int64_t worker_free[2];             /* when each worker finished its last batch */
  int64_t worker_cpu[2];              /* its CPU ns since it started recording */
  int64_t worker_start;               /* when the workers started recording */
} Gen;

/* ---- Small helpers --------------------------------------------------- */

/* splitmix64: tiny, good enough, and the same everywhere. */
static uint64_t
next_random (Gen *g)
{
  uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static int64_t
rand_range (Gen *g, int64_t lo, int64_t hi)
{
  if (hi <= lo)
    return lo;
  return lo + (int64_t) (next_random (g) % (uint64_t) (hi - lo + 1));
}

static int64_t
max64 (int64_t a, int64_t b)
{
  return a > b ? a : b;
}

static int
planted (const Gen *g, unsigned plant)
{
  return (g->opt->plants & plant) != 0;
}

/* Where batches come from: pinned memory unless PAGEABLE is planted. */
static uint8_t
batch_src_kind (const Gen *g)
{
  if (planted (g, PFPROF_PLANT_PAGEABLE))
    return PFPROF_MEMORY_KIND_PAGEABLE;
  return PFPROF_MEMORY_KIND_PINNED;
}

static void
note_end (Gen *g, int64_t t)
{
  if (t > g->end_ns)
    g->end_ns = t;
}

static void
emit (Gen *g, PfprofTableId table, const void *record)
{
  if (g->status != PFPROF_WRITER_OK)
    return;
  g->status = pfprof_trace_writer_append (g->w, table, record);
  /* Commit in batches, as the collector does about once a second. */
  if (g->status == PFPROF_WRITER_OK && ++g->since_commit >= COMMIT_EVERY)
    {
      g->since_commit = 0;
      g->status = pfprof_trace_writer_commit (g->w);
      if (g->status == PFPROF_WRITER_OK)
        g->status = pfprof_trace_writer_begin (g->w);
    }
}

static uint32_t
stream_id (uint32_t index)
{
  return PFPROF_TRACE_GENERATOR_COMPUTE_STREAM + index;
}

/* A host gap between two Python-level operations. */
static void
host_gap (Gen *g)
{
  g->h += rand_range (g, 8 * US, 30 * US);
}

static uint64_t
copy_ns (uint64_t bytes, uint64_t bytes_per_us)
{
  return 1500 + bytes * 1000 / bytes_per_us;
}

/* ---- Records --------------------------------------------------------- */

/* Writes an API record for @fn on @tid and returns its correlation id. */
static uint32_t
api (Gen *g, int fn, uint32_t tid, int64_t start, int64_t end, int32_t ret)
{
  PfprofApiRecord r = { 0 };

  r.start_ns = start;
  r.end_ns = end;
  r.tid = tid;
  r.correlation_id = ++g->corr;
  r.cbid = api_functions[fn].cbid;
  r.name_id = g->api_name[fn];
  r.return_value = ret;
  r.domain = PFPROF_API_RUNTIME;
  emit (g, PFPROF_TABLE_API_CALLS, &r);
  note_end (g, end);
  return r.correlation_id;
}

/* A main-thread API call of a few microseconds; advances the host. */
static uint32_t
api_quick (Gen *g, int fn, int32_t ret, int64_t *start_out, int64_t *end_out)
{
  int64_t start = g->h;
  int64_t end = start + rand_range (g, 2 * US, 6 * US);
  uint32_t corr = api (g, fn, g->tid_main, start, end, ret);

  if (start_out)
    *start_out = start;
  if (end_out)
    *end_out = end;
  g->h = end;
  host_gap (g);
  return corr;
}

static void
nvtx (Gen *g, uint32_t domain, uint32_t name, int64_t start, int64_t end, uint16_t depth,
      uint8_t kind)
{
  PfprofNvtxRecord r = { 0 };

  r.start_ns = start;
  r.end_ns = end;
  r.tid = g->tid_main;
  r.domain_id = domain;
  r.name_id = name;
  r.depth = depth;
  r.kind = kind;
  r.color = domain == g->domain_pfprof ? 0xff76b900u : 0;
  emit (g, PFPROF_TABLE_NVTX, &r);
}

/* Launches a kernel of @phase on stream index @s. */
static void
launch (Gen *g, uint32_t s, Phase phase)
{
  const KernelKind *kind;
  PfprofKernelRecord k = { 0 };
  unsigned which = (unsigned) (next_random (g) % phases[phase].n);
  int64_t api_start = g->h;
  int64_t api_end = api_start + rand_range (g, 3 * US, 7 * US);
  int64_t start = max64 (api_start + LAUNCH_LATENCY_NS, g->stream_free[s]);
  int64_t dur = rand_range (g, phases[phase].min_ns, phases[phase].max_ns);

  kind = &phases[phase].kinds[which];
  /* Launch queue full: the call returns once the GPU has caught up. */
  if (s == 0 && start - HOST_LEAD_NS > api_end)
    api_end = start - HOST_LEAD_NS;
  k.correlation_id = api (g, API_LAUNCH_KERNEL, g->tid_main, api_start, api_end, 0);
  k.start_ns = start;
  k.end_ns = start + dur;
  k.device_id = DEVICE_ID;
  k.context_id = CONTEXT_ID;
  k.stream_id = stream_id (s);
  k.name_id = g->kernel_name[phase][which];
  k.grid_x = kind->grid_x;
  k.grid_y = 1;
  k.grid_z = 1;
  k.block_x = kind->block_x;
  k.block_y = 1;
  k.block_z = 1;
  k.shared_mem_bytes = kind->shared_mem_bytes;
  k.registers = kind->registers;
  emit (g, PFPROF_TABLE_KERNELS, &k);
  g->stream_free[s] = k.end_ns;
  note_end (g, k.end_ns);
  g->h = api_end;
  host_gap (g);
}

/* Copies @bytes on stream index @s (or the null stream when @s < 0).
 * Synchronous and pageable copies block the host until the copy ends.
 * Returns the end of the copy. */
static int64_t
copy (Gen *g, int s, uint8_t copy_kind, uint8_t src_kind, uint8_t dst_kind, uint64_t bytes,
      int async)
{
  PfprofMemcpyRecord m = { 0 };
  int64_t *free_at = s < 0 ? &g->null_free : &g->stream_free[s];
  int pageable = src_kind == PFPROF_MEMORY_KIND_PAGEABLE || dst_kind == PFPROF_MEMORY_KIND_PAGEABLE;
  int64_t api_start = g->h;
  int64_t api_end;

  m.start_ns = max64 (api_start + LAUNCH_LATENCY_NS, *free_at);
  m.end_ns = m.start_ns
             + (int64_t) copy_ns (bytes, pageable ? PAGEABLE_BYTES_PER_US : PINNED_BYTES_PER_US);
  api_end = pageable || !async ? m.end_ns + rand_range (g, 3 * US, 8 * US)
                               : api_start + rand_range (g, 4 * US, 9 * US);
  m.correlation_id
    = api (g, async ? API_MEMCPY_ASYNC : API_MEMCPY, g->tid_main, api_start, api_end, 0);
  m.runtime_correlation_id = m.correlation_id;
  g->last_api_end = api_end;
  m.bytes = bytes;
  m.device_id = DEVICE_ID;
  m.context_id = CONTEXT_ID;
  m.stream_id = s < 0 ? PFPROF_TRACE_GENERATOR_NULL_STREAM : stream_id ((uint32_t) s);
  m.copy_kind = copy_kind;
  m.src_kind = src_kind;
  m.dst_kind = dst_kind;
  m.flags = async ? PFPROF_MEMCPY_FLAG_ASYNC : 0;
  m.channel_type = CHANNEL_ASYNC_MEMCPY;
  emit (g, PFPROF_TABLE_MEMCPYS, &m);
  *free_at = m.end_ns;
  note_end (g, m.end_ns);
  g->h = api_end;
  host_gap (g);
  return m.end_ns;
}

static void
memset_async (Gen *g, uint32_t s, uint64_t bytes)
{
  PfprofMemsetRecord m = { 0 };
  int64_t api_start = g->h;
  int64_t api_end = api_start + rand_range (g, 3 * US, 6 * US);

  m.correlation_id = api (g, API_MEMSET_ASYNC, g->tid_main, api_start, api_end, 0);
  m.start_ns = max64 (api_start + LAUNCH_LATENCY_NS, g->stream_free[s]);
  m.end_ns = m.start_ns + 2 * US + (int64_t) (bytes / 1000000); /* ~1 TB/s */
  m.bytes = bytes;
  m.device_id = DEVICE_ID;
  m.context_id = CONTEXT_ID;
  m.stream_id = stream_id (s);
  m.value = 0;
  m.memory_kind = PFPROF_MEMORY_KIND_DEVICE;
  m.flags = PFPROF_MEMCPY_FLAG_ASYNC;
  emit (g, PFPROF_TABLE_MEMSETS, &m);
  g->stream_free[s] = m.end_ns;
  note_end (g, m.end_ns);
  g->h = api_end;
  host_gap (g);
}

/* cudaEventRecord on stream index @s. */
static Event
event_record (Gen *g, uint32_t s)
{
  PfprofCudaEventRecord e = { 0 };
  Event ev;
  int64_t start;
  uint32_t corr = api_quick (g, API_EVENT_RECORD, 0, &start, NULL);

  ev.event_id = 1 + g->next_event++ % N_EVENTS_POOL;
  ev.event_sync_id = ++g->event_sync_id;
  ev.device_ts_ns = max64 (start + LAUNCH_LATENCY_NS, g->stream_free[s]);
  e.device_ts_ns = ev.device_ts_ns;
  e.event_sync_id = ev.event_sync_id;
  e.device_id = DEVICE_ID;
  e.context_id = CONTEXT_ID;
  e.stream_id = stream_id (s);
  e.event_id = ev.event_id;
  e.correlation_id = corr;
  emit (g, PFPROF_TABLE_CUDA_EVENTS, &e);
  return ev;
}

static void
sync_record (Gen *g, uint8_t type, int64_t start, int64_t end, uint32_t stream, uint32_t corr,
             const Event *ev)
{
  PfprofSyncRecord r = { 0 };

  r.start_ns = start;
  r.end_ns = end;
  r.context_id = CONTEXT_ID;
  r.stream_id = stream;
  r.correlation_id = corr;
  r.event_id = ev ? ev->event_id : PFPROF_NONE;
  r.event_sync_id = ev ? ev->event_sync_id : 0;
  r.type = type;
  emit (g, PFPROF_TABLE_SYNCS, &r);
}

/* cudaStreamWaitEvent: stream index @s waits on @ev. */
static void
stream_wait (Gen *g, uint32_t s, const Event *ev)
{
  int64_t start, end;
  uint32_t corr = api_quick (g, API_STREAM_WAIT_EVENT, 0, &start, &end);

  sync_record (g, PFPROF_SYNC_STREAM_WAIT_EVENT, start, end, stream_id (s), corr, ev);
  g->stream_free[s] = max64 (g->stream_free[s], ev->device_ts_ns + rand_range (g, 2 * US, 6 * US));
}

/* cudaEventQuery: never blocks; 600 while the GPU has not reached @ev. */
static void
event_query (Gen *g, const Event *ev)
{
  int32_t ret = ev->device_ts_ns > g->h ? CUDA_ERROR_NOT_READY : 0;
  int64_t start, end;
  uint32_t corr = api_quick (g, API_EVENT_QUERY, ret, &start, &end);

  sync_record (g, PFPROF_SYNC_EVENT_SYNCHRONIZE, start, end, PFPROF_NONE, corr, ev);
}

/* A blocking call of @fn on the main thread that returns at @until at
 * the earliest. Returns its correlation id; [*start, *end] its span. */
static uint32_t
blocking_call (Gen *g, int fn, int64_t until, int64_t *start, int64_t *end)
{
  uint32_t corr;

  *start = g->h;
  *end = max64 (g->h + rand_range (g, 2 * US, 5 * US), until + rand_range (g, 2 * US, 6 * US));
  corr = api (g, fn, g->tid_main, *start, *end, 0);
  g->h = *end;
  host_gap (g);
  return corr;
}

static void
event_synchronize (Gen *g, const Event *ev)
{
  int64_t start, end;
  uint32_t corr = blocking_call (g, API_EVENT_SYNCHRONIZE, ev->device_ts_ns, &start, &end);

  sync_record (g, PFPROF_SYNC_EVENT_SYNCHRONIZE, start, end, PFPROF_NONE, corr, ev);
}

static void
stream_synchronize (Gen *g, uint32_t s)
{
  int64_t start, end;
  uint32_t corr = blocking_call (g, API_STREAM_SYNCHRONIZE, g->stream_free[s], &start, &end);

  sync_record (g, PFPROF_SYNC_STREAM_SYNCHRONIZE, start, end, stream_id (s), corr, NULL);
}

static void
device_synchronize (Gen *g)
{
  int64_t until = g->null_free;
  int64_t start, end;
  uint32_t corr;

  for (uint32_t s = 0; s < g->n_streams; s++)
    until = max64 (until, g->stream_free[s]);
  corr = blocking_call (g, API_DEVICE_SYNCHRONIZE, until, &start, &end);
  sync_record (g, PFPROF_SYNC_CONTEXT_SYNCHRONIZE, start, end, PFPROF_NONE, corr, NULL);
}

/* cudaMalloc/cudaFree/cudaHostAlloc/cudaFreeHost with its MEMORY record;
 * runs on @tid from @start for @dur (the main thread's clock advances
 * only when @tid is the main thread). */
static void
memory_call (Gen *g, int fn, uint32_t tid, int64_t start, int64_t dur, uint64_t address,
             uint64_t bytes)
{
  PfprofMemoryRecord m = { 0 };

  m.correlation_id = api (g, fn, tid, start, start + dur, 0);
  m.ts_ns = start + dur / 2;
  m.address = address;
  m.bytes = bytes;
  m.device_id = DEVICE_ID;
  m.context_id = CONTEXT_ID;
  m.stream_id = PFPROF_NONE;
  m.operation = fn == API_MALLOC || fn == API_HOST_ALLOC ? PFPROF_MEMORY_OP_ALLOCATION
                                                          : PFPROF_MEMORY_OP_RELEASE;
  m.memory_kind = fn == API_MALLOC || fn == API_FREE ? PFPROF_MEMORY_KIND_DEVICE
                                                      : PFPROF_MEMORY_KIND_PINNED;
  emit (g, PFPROF_TABLE_MEMORY, &m);
  if (tid == g->tid_main)
    {
      g->h = start + dur;
      host_gap (g);
    }
}

static uint64_t
device_alloc (Gen *g, uint64_t bytes)
{
  uint64_t addr = g->device_addr;

  g->device_addr += (bytes + 2 * MIB - 1) & ~(2 * MIB - 1);
  memory_call (g, API_MALLOC, g->tid_main, g->h, rand_range (g, 50 * US, 300 * US), addr, bytes);
  return addr;
}

static uint64_t
pinned_alloc (Gen *g, int64_t start, uint64_t bytes, int64_t min_ns, int64_t max_ns)
{
  uint64_t addr = g->host_addr;

  g->host_addr += (bytes + 4 * KIB - 1) & ~(4 * KIB - 1);
  memory_call (g, API_HOST_ALLOC, g->tid_pin, start, rand_range (g, min_ns, max_ns), addr, bytes);
  return addr;
}

/* ---- Phases of the run ----------------------------------------------- */

static void
write_meta (Gen *g)
{
  const PfprofTraceGenerator *o = g->opt;
  char buf[256];
  char plants[256];

  pfprof_trace_generator_format_plants (o->plants, plants, sizeof plants);
#define META(k, v)                                                                                 \
  if (g->status == PFPROF_WRITER_OK)                                                               \
  g->status = pfprof_trace_writer_set_meta (g->w, k, v)
#define META_INT(k, v)                                                                             \
  if (g->status == PFPROF_WRITER_OK)                                                               \
  g->status = pfprof_trace_writer_set_meta_int (g->w, k, v)
  if (o->pfprof_version != NULL)
    META ("pfprof_version", o->pfprof_version);
  snprintf (buf, sizeof buf, "synthetic-node-%" PRId32, o->rank);
  META ("host", o->host != NULL ? o->host : buf);
  META_INT ("pid", g->pid);
  /* One command for every seed, as the ranks of one run (which differ a
   * little, as seeds do) share theirs; the seed is generator_seed. */
  META ("command_line", "python train.py --synthetic");
  META_INT ("rank", o->rank);
  META_INT ("local_rank", o->rank);
  if (o->world_size > 0)
    META_INT ("world_size", o->world_size);
  META ("gpu_names", "NVIDIA H200");
  snprintf (buf, sizeof buf, "GPU-%08" PRIx64 "-0000-4000-8000-%012" PRIx64,
            o->seed & 0xffffffffu, (uint64_t) o->rank);
  META ("gpu_uuids", buf);
  META ("cuda_driver_version", "13000");
  META ("nvidia_driver_version", "580.95.05");
  META ("cupti_version", "130001");
  META ("cupti_build_version", "130001");
  META ("activity_kinds_unavailable", "");
  META ("launch_records", "1");
  META_INT ("dropped_records", 0);
  META_INT ("records_invalid", 0);
  META_INT ("nvtx_dropped", 0);
  META ("generator", "pfprof-trace-generator");
  META_INT ("generator_seed", (int64_t) o->seed);
  META ("generator_plants", plants);
#undef META
#undef META_INT
}

static void
write_objects (Gen *g, const char *uuid)
{
  PfprofDeviceRecord d = { 0 };
  PfprofContextRecord c = { 0 };
  PfprofThreadRecord t = { 0 };

  d.device_id = DEVICE_ID;
  d.name_id = pfprof_trace_writer_intern (g->w, "NVIDIA H200");
  d.uuid_id = pfprof_trace_writer_intern (g->w, uuid);
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.global_memory_bytes = 150754820096ull;
  emit (g, PFPROF_TABLE_DEVICES, &d);
  c.context_id = CONTEXT_ID;
  c.device_id = DEVICE_ID;
  c.null_stream_id = PFPROF_TRACE_GENERATOR_NULL_STREAM;
  emit (g, PFPROF_TABLE_CONTEXTS, &c);
  t.tid = g->tid_main;
  t.name_id = pfprof_trace_writer_intern (g->w, "python3");
  emit (g, PFPROF_TABLE_THREADS, &t);
  t.tid = g->tid_pin;
  t.name_id = pfprof_trace_writer_intern (g->w, "pt_pin_memory");
  emit (g, PFPROF_TABLE_THREADS, &t);
}

static void
intern_names (Gen *g)
{
  for (int i = 0; i < N_API; i++)
    g->api_name[i] = pfprof_trace_writer_intern (g->w, api_functions[i].name);
  for (int p = 0; p < N_PHASES; p++)
    for (unsigned i = 0; i < phases[p].n; i++)
      g->kernel_name[p][i] = pfprof_trace_writer_intern (g->w, phases[p].kinds[i].name);
  g->domain_pfprof = pfprof_trace_writer_intern (g->w, PFPROF_NVTX_DOMAIN_PFPROF);
  g->str_dataloader = pfprof_trace_writer_intern (g->w, PFPROF_NVTX_DATALOADER_WAIT);
  g->str_step = pfprof_trace_writer_intern (g->w, PFPROF_TRACE_GENERATOR_STEP_RANGE);
  g->str_forward = pfprof_trace_writer_intern (g->w, "forward");
  g->str_backward = pfprof_trace_writer_intern (g->w, "backward");
  g->str_optimizer = pfprof_trace_writer_intern (g->w, "optimizer");
  g->str_epoch = pfprof_trace_writer_intern (g->w, "epoch_progress");
  g->str_optimizer_step = pfprof_trace_writer_intern (g->w, PFPROF_NVTX_OPTIMIZER_STEP);
}

/* The user's lines behind the batch copy and behind moving the model to
 * the GPU (both `Tensor.cuda`, both pageable host-to-device copies), as
 * the launcher's Python hook records them: a python_calls row around each
 * of a site's first PFPROF_SITE_RECORDED_CALLS calls and, standing for
 * the hook's sample of the later ones, every eighth after; the
 * python_sites rows come at the end. */
#define BATCH_SITE_ID 1
#define MODEL_SITE_ID 2
static void
site_call (Gen *g, uint32_t site_id, uint64_t *calls, int64_t start, int64_t end)
{
  PfprofPythonCallRecord c = { 0 };

  ++*calls;
  if (*calls > PFPROF_SITE_RECORDED_CALLS && *calls % 8 != 0)
    return;
  c.start_ns = start;
  c.end_ns = end;
  c.tid = g->tid_main;
  c.site_id = site_id;
  emit (g, PFPROF_TABLE_PYTHON_CALLS, &c);
}

static void
write_site (Gen *g, uint32_t site_id, int32_t line, const char *function, uint64_t calls)
{
  PfprofPythonSiteRecord r = { 0 };

  r.site_id = site_id;
  r.kind = PFPROF_SITE_COPY;
  r.api_id = pfprof_trace_writer_intern (g->w, "Tensor.cuda");
  r.file_id = pfprof_trace_writer_intern (g->w, PFPROF_TRACE_GENERATOR_SITE_FILE);
  r.line = line;
  r.function_id = pfprof_trace_writer_intern (g->w, function);
  r.caller_file_id = r.file_id;
  r.caller_line = 120;
  r.caller_function_id = pfprof_trace_writer_intern (g->w, "main");
  r.calls = calls;
  emit (g, PFPROF_TABLE_PYTHON_SITES, &r);
}

/* The DataLoader's two workers, as the hook records them inside the
 * DataLoader (worker_events): batch N, consumed by step N, is made by
 * worker N % 2 from the end of that worker's previous batch (or, when the
 * pipeline keeps up, from as late as lets it arrive in time): the loader
 * (decoding) takes 61% of it and the transform 22%, then collate_fn 5%.
 * The workers are CPU-bound (CPU = wall while busy); they may use
 * PFPROF_TRACE_GENERATOR_WORKER_CORES cores, 2 with INPUT_STARVED
 * (both busy: saturated). The pin-memory thread pins each batch (300 us)
 * before the main process gets it. Their own random stream, so the rest
 * of the trace is the same as without them. */
#define LOADER_SITE_ID (1u << 30)
#define TRANSFORM_SITE_ID ((1u << 30) + 1)
static int64_t
worker_rand (Gen *g, int64_t lo, int64_t hi)
{
  uint64_t z = (g->worker_rng += 0x9e3779b97f4a7c15ull);

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return hi <= lo ? lo : lo + (int64_t) (z % (uint64_t) (hi - lo + 1));
}

static uint32_t
worker_pid (const Gen *g, unsigned w)
{
  return g->pid + 100 + w;
}

static void
worker_event (Gen *g, uint8_t kind, unsigned w, uint32_t pid, uint32_t site_id, int64_t batch, int64_t start,
              int64_t end, int64_t a, int64_t b)
{
  PfprofWorkerEventRecord r = { 0 };

  r.kind = kind;
  r.worker_id = (uint16_t) w;
  r.pid = pid;
  r.site_id = site_id;
  r.batch = batch;
  r.start_ns = start;
  r.end_ns = end;
  r.value_a = a;
  r.value_b = b;
  emit (g, PFPROF_TABLE_WORKER_EVENTS, &r);
}

static void
worker_clocks (Gen *g, int64_t t)
{
  int64_t cores = g->opt->worker_cores > 0                      ? g->opt->worker_cores
                  : planted (g, PFPROF_PLANT_INPUT_STARVED) ? 2
                                                             : PFPROF_TRACE_GENERATOR_WORKER_CORES;

  g->worker_start = t;
  g->worker_free[0] = g->worker_free[1] = t;
  worker_event (g, PFPROF_WORKER_CLOCK, 0, g->pid, 0, 0, t, t, cores * 1000, 0);
  for (unsigned w = 0; w < 2; w++)
    worker_event (g, PFPROF_WORKER_CLOCK, w, worker_pid (g, w), 0, 0, t, t, cores * 1000, 2);
}

/* Batch @n, handed to the program at @got after it asked at @asked. */
static void
worker_batch (Gen *g, uint32_t n, int64_t asked, int64_t got)
{
  unsigned w = n % 2;
  uint32_t pid = worker_pid (g, w);
  int64_t arrived = got - worker_rand (g, 10 * US, 40 * US);
  int64_t pin_end = arrived - worker_rand (g, 5 * US, 20 * US);
  int64_t pin_start = pin_end - 300 * US;
  int64_t put = pin_start - worker_rand (g, 20 * US, 60 * US);
  int64_t len = planted (g, PFPROF_PLANT_INPUT_STARVED) ? put - g->worker_free[w] : worker_rand (g, 3 * MS, 4 * MS);
  int64_t start = put - len, loader, transform, collate;

  if (start < g->worker_free[w])
    {
      /* The worker was still busy: the batch comes later. */
      start = g->worker_free[w];
      put = start + len;
    }
  loader = len * 61 / 100;
  transform = len * 22 / 100;
  collate = len * 5 / 100;
  worker_event (g, PFPROF_WORKER_BATCH, w, pid, 32, n, start, put, put - collate - 10 * US, put - 10 * US);
  worker_event (g, PFPROF_WORKER_STAGE, w, pid, LOADER_SITE_ID, n, start, start + loader + transform, loader, 32);
  worker_event (g, PFPROF_WORKER_STAGE, w, pid, TRANSFORM_SITE_ID, n, start + loader / 32,
                start + loader + transform, transform, 32);
  g->worker_cpu[w] += len;
  worker_event (g, PFPROF_WORKER_CPU, w, pid, 0, n, start, put, g->worker_cpu[w], put - g->worker_start);
  g->worker_free[w] = put;
  worker_event (g, PFPROF_WORKER_PIN, 0, 0, 0, n, pin_start, pin_end, 280 * US, g->tid_pin);
  worker_event (g, PFPROF_WORKER_GOT, w, pid, n, n, max64 (arrived, pin_end), max64 (got, arrived), asked, 1);
}

static void
write_stage_site (Gen *g, uint32_t site_id, const char *attr, const char *function, const char *file,
                  int32_t line)
{
  PfprofPythonSiteRecord r = { 0 };

  r.site_id = site_id;
  r.kind = PFPROF_SITE_WORKER_STAGE;
  r.api_id = pfprof_trace_writer_intern (g->w, attr);
  r.file_id = pfprof_trace_writer_intern (g->w, file);
  r.line = line;
  r.function_id = pfprof_trace_writer_intern (g->w, function);
  r.caller_file_id = PFPROF_NONE;
  r.caller_function_id = PFPROF_NONE;
  emit (g, PFPROF_TABLE_PYTHON_SITES, &r);
}

/* Copies the batch of the next step on the copy stream and records the
 * event the compute stream will wait on. */
static void
prefetch (Gen *g, uint64_t bytes)
{
  uint8_t src = batch_src_kind (g);
  int64_t site_start = g->h;

  copy (g, 1, PFPROF_COPY_KIND_HTOD, src, PFPROF_MEMORY_KIND_DEVICE, bytes, 1);
  site_call (g, BATCH_SITE_ID, &g->batch_site_calls, site_start, g->last_api_end);
  copy (g, 1, PFPROF_COPY_KIND_HTOD, src, PFPROF_MEMORY_KIND_DEVICE, 2 * KIB, 1);
  if (planted (g, PFPROF_PLANT_SMALL_TRANSFERS))
    for (int i = 0; i < 48; i++)
      copy (g, 1, PFPROF_COPY_KIND_HTOD, PFPROF_MEMORY_KIND_PINNED, PFPROF_MEMORY_KIND_DEVICE,
            (uint64_t) rand_range (g, 512, 16 * (int64_t) KIB), 1);
  g->batch_ready = event_record (g, 1);
  g->have_batch_ready = 1;
}

static void
warmup (Gen *g)
{
  int64_t start, end;

  /* Streams and events. */
  for (uint32_t s = 0; s < g->n_streams; s++)
    {
      PfprofStreamRecord r = { 0 };

      r.correlation_id = api_quick (g, API_STREAM_CREATE, 0, &start, &end);
      r.stream_id = stream_id (s);
      r.context_id = CONTEXT_ID;
      r.device_id = DEVICE_ID;
      r.flags = 1; /* cudaStreamNonBlocking, as PyTorch's stream pool */
      r.priority = s == 1 ? -1 : 0;
      emit (g, PFPROF_TABLE_STREAMS, &r);
    }
  {
    PfprofStreamRecord r = { 0 };

    r.stream_id = PFPROF_TRACE_GENERATOR_NULL_STREAM;
    r.context_id = CONTEXT_ID;
    r.device_id = DEVICE_ID;
    emit (g, PFPROF_TABLE_STREAMS, &r);
  }
  for (int i = 0; i < N_EVENTS_POOL; i++)
    api_quick (g, API_EVENT_CREATE, 0, NULL, NULL);

  /* model.cuda(): allocate and copy the weights from pageable memory
   * with synchronous copies on the null stream; the first (an embedding
   * table) as large as a batch, so copies of the batch's kind come from
   * a start-up site too. */
  for (int i = 0; i < 60; i++)
    {
      uint64_t bytes = (uint64_t) rand_range (g, 64 * (int64_t) KIB, 32 * (int64_t) MIB);
      int64_t site_start = g->h;

      if (i == 0)
        bytes = 48 * MIB;

      device_alloc (g, bytes);
      copy (g, -1, PFPROF_COPY_KIND_HTOD, PFPROF_MEMORY_KIND_PAGEABLE, PFPROF_MEMORY_KIND_DEVICE,
            bytes, 0);
      site_call (g, MODEL_SITE_ID, &g->model_site_calls, site_start, g->last_api_end);
    }
  device_synchronize (g);

  /* The DataLoader's pinned buffers. */
  for (int i = 0; i < 4; i++)
    pinned_alloc (g, g->h + i * 3 * MS, 48 * MIB, 1 * MS, 3 * MS);

  /* cuDNN benchmark and the first allocations of activations. */
  for (int i = 0; i < 20; i++)
    launch (g, 0, PHASE_WARMUP);
  device_synchronize (g);
  for (int i = 0; i < 8; i++)
    device_alloc (g, 64 * MIB);
  device_synchronize (g);

  if (!planted (g, PFPROF_PLANT_SERIALIZED) && !planted (g, PFPROF_PLANT_LATE_PREFETCH))
    prefetch (g, 48 * MIB);
  /* Model and optimizer setup in Python: all warm-up GPU work is done
   * before the first step starts. */
  g->h = max64 (g->h, g->stream_free[1]) + rand_range (g, 1 * MS, 5 * MS);
}

/* The allocator under memory pressure: wait for every outstanding event,
 * give cached blocks back and allocate again. The GPU has nothing to do
 * meanwhile. */
static void
record_stream_burst (Gen *g)
{
  /* Newest first: the first call waits for the GPU to drain. */
  for (uint32_t i = 0; i < 16 && i < g->n_freed; i++)
    event_synchronize (g, &g->freed[(g->n_freed - 1 - i) % 16]);
  for (int i = 0; i < 6; i++)
    memory_call (g, API_FREE, g->tid_main, g->h, rand_range (g, 200 * US, 500 * US),
                 g->device_addr - (uint64_t) (i + 1) * 64 * MIB, 64 * MIB);
  for (int i = 0; i < 6; i++)
    {
      uint64_t addr = g->device_addr;

      g->device_addr += 64 * MIB;
      memory_call (g, API_MALLOC, g->tid_main, g->h, rand_range (g, 200 * US, 500 * US), addr,
                   64 * MIB);
    }
}

static void
step (Gen *g, uint32_t n)
{
  int64_t step_start = g->h;
  int64_t dl_end, phase_start;
  int n_forward = (int) rand_range (g, 12, 16);
  int n_backward = (int) rand_range (g, 16, 20);
  int collective_at = n_backward / 2;

  /* The DataLoader hands over the next batch. */
  if (planted (g, PFPROF_PLANT_INPUT_STARVED))
    dl_end = g->h + rand_range (g, 20 * MS, 35 * MS);
  else
    dl_end = g->h + rand_range (g, 50 * US, 300 * US);
  if (planted (g, PFPROF_PLANT_LATE_PREFETCH))
    dl_end = max64 (dl_end, g->stream_free[0]);
  nvtx (g, g->domain_pfprof, g->str_dataloader, step_start, dl_end, 0, PFPROF_NVTX_RANGE);
  worker_batch (g, n, step_start, dl_end);
  g->h = dl_end;
  host_gap (g);

  if (planted (g, PFPROF_PLANT_PINNED_ALLOC))
    {
      /* The pin-memory thread pins a fresh buffer for every batch. */
      int64_t t = step_start + 100 * US;
      uint64_t addr = pinned_alloc (g, t, 48 * MIB, 2 * MS, 4 * MS);

      if (g->pinned_buffer != 0)
        memory_call (g, API_FREE_HOST, g->tid_pin, t + 5 * MS, rand_range (g, 300 * US, 800 * US),
                     g->pinned_buffer, 48 * MIB);
      g->pinned_buffer = addr;
    }

  /* This step's batch. */
  if (planted (g, PFPROF_PLANT_SERIALIZED))
    {
      uint8_t src = batch_src_kind (g);

      copy (g, 0, PFPROF_COPY_KIND_HTOD, src, PFPROF_MEMORY_KIND_DEVICE, 48 * MIB, 1);
      copy (g, 0, PFPROF_COPY_KIND_HTOD, src, PFPROF_MEMORY_KIND_DEVICE, 2 * KIB, 1);
    }
  else if (planted (g, PFPROF_PLANT_LATE_PREFETCH))
    {
      prefetch (g, 96 * MIB);
      stream_wait (g, 0, &g->batch_ready);
    }
  else if (g->have_batch_ready)
    stream_wait (g, 0, &g->batch_ready);
  g->have_batch_ready = 0;

  phase_start = g->h;
  for (int i = 0; i < n_forward; i++)
    launch (g, 0, PHASE_FORWARD);
  nvtx (g, PFPROF_NONE, g->str_forward, phase_start, g->h, 1, PFPROF_NVTX_RANGE);
  if (g->eval)
    {
      /* Evaluation: the forward pass alone, no step range, no marks. */
      if (g->have_batch_ready == 0 && !planted (g, PFPROF_PLANT_SERIALIZED)
          && !planted (g, PFPROF_PLANT_LATE_PREFETCH))
        prefetch (g, 48 * MIB);
      note_end (g, g->h);
      return;
    }

  /* By now the GPU has long passed last step's logging event. */
  if (g->have_loss_event)
    {
      event_query (g, &g->loss_event);
      g->have_loss_event = 0;
    }

  /* Look-ahead: the next batch's copies run beside this step's kernels. */
  if (!planted (g, PFPROF_PLANT_SERIALIZED) && !planted (g, PFPROF_PLANT_LATE_PREFETCH))
    prefetch (g, 48 * MIB);
  else if (planted (g, PFPROF_PLANT_SMALL_TRANSFERS))
    {
      for (int i = 0; i < 48; i++)
        copy (g, 1, PFPROF_COPY_KIND_HTOD, PFPROF_MEMORY_KIND_PINNED, PFPROF_MEMORY_KIND_DEVICE,
              (uint64_t) rand_range (g, 512, 16 * (int64_t) KIB), 1);
    }

  memset_async (g, 0, 4 * MIB);

  phase_start = g->h;
  if (planted (g, PFPROF_PLANT_PHASES))
    nvtx (g, g->domain_pfprof, g->str_backward, g->h, g->h, 0, PFPROF_NVTX_MARK);
  for (int i = 0; i < n_backward; i++)
    {
      if (i == collective_at && g->n_streams > 2)
        {
          Event grads = event_record (g, 0);

          for (uint32_t s = 2; s < g->n_streams; s++)
            {
              stream_wait (g, s, &grads);
              launch (g, s, PHASE_COLLECTIVE);
            }
        }
      launch (g, 0, PHASE_BACKWARD);
      if (planted (g, PFPROF_PLANT_RECORD_STREAM) && i % 2 == 1)
        {
          /* A block freed after record_stream(): the allocator records an
           * event and polls the one before. */
          if (g->n_freed > 0)
            event_query (g, &g->freed[(g->n_freed - 1) % 16]);
          g->freed[g->n_freed++ % 16] = event_record (g, 0);
        }
    }
  if (planted (g, PFPROF_PLANT_NCCL))
    {
      /* DDP's gradient all-reduce; the optimizer needs its result. */
      uint32_t s = g->n_streams > 2 ? 2 : 1;
      Event grads = event_record (g, 0);
      Event reduced;

      stream_wait (g, s, &grads);
      launch (g, s, PHASE_ALLREDUCE);
      reduced = event_record (g, s);
      stream_wait (g, 0, &reduced);
    }
  nvtx (g, PFPROF_NONE, g->str_backward, phase_start, g->h, 1, PFPROF_NVTX_RANGE);

  phase_start = g->h;
  for (int i = 0; i < 4; i++)
    launch (g, 0, PHASE_OPTIMIZER);
  nvtx (g, PFPROF_NONE, g->str_optimizer, phase_start, g->h, 1, PFPROF_NVTX_RANGE);
  if (planted (g, PFPROF_PLANT_PHASES))
    {
      nvtx (g, g->domain_pfprof, g->str_optimizer_step, g->h, g->h, 0, PFPROF_NVTX_MARK);
      host_gap (g);
    }

  if (planted (g, PFPROF_PLANT_SYNC_IN_LOOP))
    {
      /* loss.item() */
      copy (g, 0, PFPROF_COPY_KIND_DTOH, PFPROF_MEMORY_KIND_DEVICE, PFPROF_MEMORY_KIND_PINNED, 4,
            1);
      stream_synchronize (g, 0);
    }
  else if (n % 10 == 0)
    {
      /* Logging without a sync: copy the loss, poll it next step. */
      copy (g, 0, PFPROF_COPY_KIND_DTOH, PFPROF_MEMORY_KIND_DEVICE, PFPROF_MEMORY_KIND_PINNED, 4,
            1);
      g->loss_event = event_record (g, 0);
      g->have_loss_event = 1;
    }

  if (planted (g, PFPROF_PLANT_RECORD_STREAM))
    {
      /* The batch was record_stream()ed: freeing it records an event. */
      g->freed[g->n_freed++ % 16] = event_record (g, 0);
      if (n >= 4 && n % 8 == 4)
        record_stream_burst (g);
    }

  if (n % 20 == 0)
    {
      PfprofOverheadRecord o = { 0 };

      o.start_ns = step_start + rand_range (g, 0, 2 * MS);
      o.end_ns = o.start_ns + rand_range (g, 50 * US, 200 * US);
      o.object_id = g->pid + 2; /* the collector's own thread */
      o.overhead_kind = OVERHEAD_BUFFER_FLUSH;
      o.object_kind = OBJECT_KIND_THREAD;
      emit (g, PFPROF_TABLE_OVERHEAD, &o);
    }
  if (n % 50 == 0)
    nvtx (g, PFPROF_NONE, g->str_epoch, g->h, g->h, 0, PFPROF_NVTX_MARK);

  /* With PHASES the program is recorded as the hook sees it: marks, and
   * no step range of its own. */
  if (!planted (g, PFPROF_PLANT_PHASES))
    nvtx (g, g->domain_pfprof, g->str_step, dl_end, g->h, 0, PFPROF_NVTX_RANGE);
  note_end (g, g->h);
}

/* PHASES: a validation pass of PFPROF_TRACE_GENERATOR_EVAL_BATCHES
 * batches, after a 20 ms pause (the epoch's end: the loader is
 * re-created). */
static void
evaluate (Gen *g)
{
  g->h += 20 * MS;
  g->eval = 1;
  for (uint32_t i = 0; i < PFPROF_TRACE_GENERATOR_EVAL_BATCHES && g->status == PFPROF_WRITER_OK; i++)
    step (g, i + 1);
  g->eval = 0;
  g->h += 20 * MS;
}

/* ---- Public API ------------------------------------------------------ */

/* Never leave half a trace behind. */
static void
remove_trace (const char *path)
{
  char side[4096];

  unlink (path);
  snprintf (side, sizeof side, "%s-wal", path);
  unlink (side);
  snprintf (side, sizeof side, "%s-shm", path);
  unlink (side);
}

void
pfprof_trace_generator_init (PfprofTraceGenerator *gen)
{
  memset (gen, 0, sizeof *gen);
  gen->steps = 200;
  gen->streams = 4;
  gen->seed = 1;
  gen->world_size = 1;
}

static const char *const plant_names[] = {
  "pageable", "serialized", "record-stream", "input-starved",
  "late-prefetch", "sync-in-loop", "small-transfers", "pinned-alloc",
  "nccl", "phases",
};

const char *
pfprof_trace_generator_plant_name (unsigned plant)
{
  for (unsigned i = 0; i < sizeof plant_names / sizeof plant_names[0]; i++)
    if (plant == 1u << i)
      return plant_names[i];
  return NULL;
}

int
pfprof_trace_generator_parse_plants (const char *list, unsigned *plants)
{
  unsigned result = 0;
  const char *p = list;

  if (list == NULL || plants == NULL)
    return -1;
  while (*p)
    {
      const char *comma = strchr (p, ',');
      size_t len = comma ? (size_t) (comma - p) : strlen (p);
      int found = 0;

      if (len == 3 && strncmp (p, "all", 3) == 0)
        result |= PFPROF_PLANT_ALL, found = 1;
      else if (len == 4 && strncmp (p, "none", 4) == 0)
        found = 1;
      for (unsigned i = 0; !found && i < sizeof plant_names / sizeof plant_names[0]; i++)
        if (strlen (plant_names[i]) == len && strncmp (p, plant_names[i], len) == 0)
          result |= 1u << i, found = 1;
      if (!found)
        return -1;
      p += len;
      if (*p == ',')
        {
          p++;
          if (*p == '\0')
            return -1;
        }
    }
  *plants = result;
  return 0;
}

void
pfprof_trace_generator_format_plants (unsigned plants, char *buf, size_t len)
{
  size_t pos = 0;

  if (len == 0)
    return;
  buf[0] = '\0';
  if (plants == 0)
    {
      snprintf (buf, len, "none");
      return;
    }
  for (unsigned i = 0; i < sizeof plant_names / sizeof plant_names[0]; i++)
    if (plants & (1u << i))
      {
        int n = snprintf (buf + pos, len - pos, "%s%s", pos ? "," : "", plant_names[i]);

        if (n < 0 || (size_t) n >= len - pos)
          return;
        pos += (size_t) n;
      }
}

int
pfprof_trace_generator_write (const PfprofTraceGenerator *gen, const char *path,
                              unsigned writer_flags, PfprofTraceGeneratorResult *result,
                              char *errbuf, size_t errlen)
{
  Gen g;
  char uuid[64];
  /* Timestamps in CUPTI's clock, which is CLOCK_REALTIME on Linux:
   * 2026-01-01T00:00:00Z, plus a per-seed offset. */
  const int64_t clock_base = 1767225600LL * 1000000000LL;
  const int64_t monotonic_base = 86400LL * 1000000000LL;
  int64_t start_cupti; /* clock_start_cupti_ns: CUPTI time at monotonic_base */
  uint32_t n;
  int status;

  if (errbuf != NULL && errlen > 0)
    errbuf[0] = '\0';
  if (gen == NULL || path == NULL || gen->streams < 2 || gen->streams > MAX_STREAMS
      || (gen->plants & ~(unsigned) (PFPROF_PLANT_ALL | PFPROF_PLANT_PHASES)) != 0
      || gen->clock_offset_ns > 1000000000000000LL || gen->clock_offset_ns < -1000000000000000LL)
    {
      if (errbuf != NULL)
        snprintf (errbuf, errlen, "invalid generator options");
      return PFPROF_WRITER_ERR_ARG;
    }
  memset (&g, 0, sizeof g);
  g.opt = gen;
  g.rng = gen->seed;
  g.n_streams = gen->streams;
  g.pid = 4242u + (uint32_t) gen->rank;
  g.tid_main = g.pid;
  g.tid_pin = g.pid + 1;
  g.device_addr = 0x7f2a00000000ull;
  g.host_addr = 0x7f1c00000000ull;
  start_cupti = clock_base + (int64_t) (gen->seed % 1000) * MS + gen->clock_offset_ns;
  g.h = start_cupti + 50 * MS;
  for (uint32_t s = 0; s < MAX_STREAMS; s++)
    g.stream_free[s] = g.h;
  g.null_free = g.h;

  status = pfprof_trace_writer_open (path, writer_flags, &g.w);
  if (status != PFPROF_WRITER_OK)
    {
      if (errbuf != NULL)
        snprintf (errbuf, errlen, "%s", pfprof_trace_writer_status_string (status));
      return status;
    }
  g.status = pfprof_trace_writer_begin (g.w);
  write_meta (&g);
  if (g.status == PFPROF_WRITER_OK)
    g.status = pfprof_trace_writer_set_meta_int (g.w, "clock_start_cupti_ns", start_cupti);
  if (g.status == PFPROF_WRITER_OK)
    g.status = pfprof_trace_writer_set_meta_int (g.w, "clock_start_realtime_ns",
                                                 start_cupti - gen->clock_offset_ns);
  if (g.status == PFPROF_WRITER_OK)
    g.status = pfprof_trace_writer_set_meta_int (g.w, "clock_start_monotonic_ns", monotonic_base);
  intern_names (&g);
  snprintf (uuid, sizeof uuid, "GPU-%08" PRIx64 "-0000-4000-8000-%012" PRIx64,
            gen->seed & 0xffffffffu, (uint64_t) gen->rank);
  write_objects (&g, uuid);

  g.worker_rng = gen->seed ^ 0x5eed0f00du;
  worker_clocks (&g, g.h);
  warmup (&g);
  if (result != NULL)
    memset (result, 0, sizeof *result);
  if (result != NULL)
    result->first_step_ns = g.h;
  if (g.status == PFPROF_WRITER_OK)
    g.status = pfprof_trace_writer_set_meta_int (g.w, "generator_first_step_ns", g.h);
  for (n = 0; g.status == PFPROF_WRITER_OK; n++)
    {
      if (gen->steps > 0 ? n >= gen->steps
                         : (n > 0 && pfprof_trace_writer_n_records (g.w) >= gen->events))
        break;
      if (planted (&g, PFPROF_PLANT_PHASES) && n > 0
          && (gen->steps > 0 ? n == gen->steps / 2 : n % 200 == 0))
        evaluate (&g);
      step (&g, n);
    }
  if (planted (&g, PFPROF_PLANT_PHASES))
    {
      evaluate (&g);
      /* After the loop: the checkpoint copied to the host, long after. */
      g.h += 100 * MS;
      for (int i = 0; i < 4; i++)
        copy (&g, 0, PFPROF_COPY_KIND_DTOH, PFPROF_MEMORY_KIND_DEVICE, PFPROF_MEMORY_KIND_PAGEABLE,
              8 * MIB, 0);
    }
  /* Training done: the script waits for the GPU before exiting. */
  device_synchronize (&g);
  write_site (&g, BATCH_SITE_ID, PFPROF_TRACE_GENERATOR_SITE_LINE, "train_one_epoch", g.batch_site_calls);
  write_site (&g, MODEL_SITE_ID, PFPROF_TRACE_GENERATOR_MODEL_SITE_LINE, "build_model", g.model_site_calls);
  write_stage_site (&g, LOADER_SITE_ID, "loader", "torchvision.datasets.folder.default_loader",
                    PFPROF_TRACE_GENERATOR_LOADER_FILE, PFPROF_TRACE_GENERATOR_LOADER_LINE);
  write_stage_site (&g, TRANSFORM_SITE_ID, "transform", "torchvision.transforms.transforms.RandomResizedCrop",
                    PFPROF_TRACE_GENERATOR_SITE_FILE, PFPROF_TRACE_GENERATOR_TRANSFORM_LINE);
  if (g.status == PFPROF_WRITER_OK)
    g.status = pfprof_trace_writer_set_meta_int (g.w, "generator_steps", n);
  if (g.status == PFPROF_WRITER_OK)
    g.status = pfprof_trace_writer_set_meta_int (g.w, "records_written",
                                                 (int64_t) pfprof_trace_writer_n_records (g.w));
  if (g.status == PFPROF_WRITER_OK)
    g.status = pfprof_trace_writer_set_meta_int (g.w, "clock_end_cupti_ns", g.end_ns);
  if (g.status == PFPROF_WRITER_OK)
    g.status = pfprof_trace_writer_set_meta_int (g.w, "clock_end_realtime_ns",
                                                 g.end_ns - gen->clock_offset_ns);
  if (g.status == PFPROF_WRITER_OK)
    g.status = pfprof_trace_writer_set_meta_int (
      g.w, "clock_end_monotonic_ns",
      monotonic_base + (g.end_ns - start_cupti));

  if (result != NULL)
    {
      result->n_steps = n;
      /* Everything but the devices, contexts, streams, threads and
       * the four python_sites rows. */
      result->n_events = pfprof_trace_writer_n_records (g.w) - 4 - g.n_streams - 1 - 4;
      result->end_ns = g.end_ns;
    }
  if (g.status != PFPROF_WRITER_OK)
    {
      if (errbuf != NULL)
        snprintf (errbuf, errlen, "%s", pfprof_trace_writer_errmsg (g.w));
      pfprof_trace_writer_close (g.w);
      remove_trace (path);
      return g.status;
    }
  status = pfprof_trace_writer_finish (g.w);
  if (status != PFPROF_WRITER_OK)
    {
      if (errbuf != NULL)
        snprintf (errbuf, errlen, "%s", pfprof_trace_writer_status_string (status));
      remove_trace (path);
    }
  return status;
}
