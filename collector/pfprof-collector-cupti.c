/* SPDX-License-Identifier: MIT */
/* pfprof-collector-cupti.c: CUPTI subscription, activity buffers, and the
 * conversion of CUPTI records into trace records.
 *
 * Program threads only ever run the two buffer callbacks, which allocate
 * or hand over a buffer. Parsing happens on the writer thread.
 */
#include "pfprof-collector-private.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>

static CUpti_SubscriberHandle subscriber;
static _Atomic int cupti_up;            /* activity API usable */
static _Atomic uint64_t dropped_records;
static uint32_t cupti_loaded_version;

/* Kinds switched by the --delay/--duration window, by the names
 * PFPROF_KINDS uses. DEVICE and CONTEXT are enabled once and stay on: they
 * describe, they do not time. Never CUPTI_ACTIVITY_KIND_KERNEL, which
 * serializes kernels. */
static const struct
{
  const char *name;
  CUpti_ActivityKind kind;
} timed_kinds[] = {
  { "kernel", CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL },
  { "memcpy", CUPTI_ACTIVITY_KIND_MEMCPY },
  { "memset", CUPTI_ACTIVITY_KIND_MEMSET },
  { "sync", CUPTI_ACTIVITY_KIND_SYNCHRONIZATION },
  { "runtime", CUPTI_ACTIVITY_KIND_RUNTIME },
  { "driver", CUPTI_ACTIVITY_KIND_DRIVER },
  { "cuda_event", CUPTI_ACTIVITY_KIND_CUDA_EVENT },
  { "stream", CUPTI_ACTIVITY_KIND_STREAM },
  { "memory2", CUPTI_ACTIVITY_KIND_MEMORY2 },
  { "overhead", CUPTI_ACTIVITY_KIND_OVERHEAD },
};
#define N_TIMED_KINDS (sizeof timed_kinds / sizeof timed_kinds[0])
#define KIND_SYNC 3
#define KIND_RUNTIME 4
#define KIND_DRIVER 5

/* What is recorded unless PFPROF_KINDS says otherwise: what the rules,
 * the timeline and the GUI use, nothing more (measured with
 * bench/kinds-sweep.sh, see bench/RESULTS.md). Not RUNTIME and
 * DRIVER: they intercept every call, launches included; API records of
 * the calls the rules use come from callbacks instead. Not CUDA_EVENT,
 * STREAM, MEMORY2 or OVERHEAD: nothing reads their tables (on the H200,
 * kernels alone cost +19% on bench/tiny_kernels.py, every kind but
 * RUNTIME/DRIVER +40%, in the quietest round of the first sweep). Not
 * SYNCHRONIZATION: on the H200 it alone took the loop from
 * +16% to +35%, and a host-bound DDP step was +1% with kernels alone but
 * +62% with copies, memsets and syncs; the synchronizing calls' callbacks
 * write the same sync records instead (pfprof-collector-api.c).
 * tests/collector/test-default-kinds.py reads this line. */
static const char default_kinds[] = "kernel,memcpy,memset,api-callbacks";

static const CUpti_ActivityKind info_kinds[] = {
  CUPTI_ACTIVITY_KIND_DEVICE,
  CUPTI_ACTIVITY_KIND_CONTEXT,
};
static unsigned char timed_wanted[N_TIMED_KINDS];  /* asked for */
static unsigned char timed_enabled[N_TIMED_KINDS]; /* enable succeeded */
static int want_api_callbacks;                     /* "api-callbacks" asked for */
static unsigned n_api_callbacks;                   /* callback ids enabled */
static char kinds_unavailable[256];                /* for meta */
static char kinds_enabled[256];                    /* for meta */
static unsigned n_api_filtered;                    /* cbids switched off */
static int skip_launches;                          /* PFPROF_SKIP_LAUNCHES=1 */


/* Buffers given back by the writer, zeroed, for the next request: a
 * fresh 4 MiB allocation is an mmap whose pages fault in on the program
 * thread CUPTI fills it from, and its free an munmap that interrupts
 * the other cores running the process's threads (TLB shootdown). CUPTI is told the buffers it gets are
 * zero (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER), so it does not
 * clear 4 MiB on that thread itself; the writer clears them instead. */
#define BUFFER_POOL_MAX 4
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *buffer_pool[BUFFER_POOL_MAX];
static unsigned n_pool;
static int buffers_zeroed; /* CUPTI took the attribute */

static void CUPTIAPI
buffer_requested (uint8_t **buffer, size_t *size, size_t *max_records)
{
  uint8_t *b = NULL;

  /* A forked child may have been forked while the writer held the lock. */
  if (!atomic_load (&pfprof_collector.child))
    {
      pthread_mutex_lock (&pool_lock);
      if (n_pool > 0)
        b = buffer_pool[--n_pool];
      pthread_mutex_unlock (&pool_lock);
    }
  /* CUPTI wants 8-byte alignment (calloc gives 16). A new allocation is
   * zero already. On failure CUPTI drops records and counts them, which
   * we report. */
  if (b == NULL)
    b = calloc (1, PFPROF_COLLECTOR_BUFFER_SIZE);
  *buffer = b;
  *size = b ? PFPROF_COLLECTOR_BUFFER_SIZE : 0;
  *max_records = 0;
}

void
pfprof_collector_cupti_buffer_free (uint8_t *buffer)
{
  if (buffer == NULL)
    return;
  if (buffers_zeroed && !atomic_load (&pfprof_collector.child))
    {
      int kept = 0;

      /* All of it: CUPTI may have written past the last complete record. */
      memset (buffer, 0, PFPROF_COLLECTOR_BUFFER_SIZE);
      pthread_mutex_lock (&pool_lock);
      if (n_pool < BUFFER_POOL_MAX)
        {
          buffer_pool[n_pool++] = buffer;
          kept = 1;
        }
      pthread_mutex_unlock (&pool_lock);
      if (kept)
        return;
    }
  free (buffer);
}

static void CUPTIAPI
buffer_completed (CUcontext ctx, uint32_t stream_id, uint8_t *buffer, size_t size, size_t valid)
{
  size_t dropped = 0;

  if (cuptiActivityGetNumDroppedRecords (ctx, stream_id, &dropped) == CUPTI_SUCCESS && dropped > 0)
    atomic_fetch_add (&dropped_records, (uint64_t) dropped);
  if (buffer == NULL)
    return;
  if (valid == 0 || atomic_load (&pfprof_collector.child))
    {
      pfprof_collector_cupti_buffer_free (buffer);
      return;
    }
  pfprof_collector_writer_push_buffer (buffer, valid);
}

/* Only the runtime and driver callbacks of pfprof-collector-api.c
 * ("api-callbacks") and of pfprof-collector-capture.c are enabled. */
static void CUPTIAPI
callback (void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
  int runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;

  if (!runtime && domain != CUPTI_CB_DOMAIN_DRIVER_API)
    return;
  /* Every recorded call passes here: the four capture calls are looked
   * for only when a capture range was asked for. */
  if (pfprof_collector.capture && pfprof_collector_capture_callback (runtime, cbid, data))
    return;
  pfprof_collector_api_callback (runtime, cbid, data);
}

static const char *
result_string (CUptiResult r)
{
  const char *s = NULL;

  if (cuptiGetResultString (r, &s) != CUPTI_SUCCESS || s == NULL)
    s = "unknown CUPTI error";
  return s;
}

static int
env_is_1 (const char *name)
{
  const char *v = getenv (name);

  return v != NULL && strcmp (v, "1") == 0;
}

/* Whether API records of @name are switched off. Launch records are what
 * links a kernel to its host call; in launch-bound programs they are most
 * of the collector's cost, hence PFPROF_SKIP_LAUNCHES. */
static int
filtered (const char *name, int all)
{
  if (skip_launches && strstr (name, "Launch") != NULL)
    return 1;
  return !all && pfprof_trace_schema_api_is_noise (name);
}

/* Per-cbid switches apply on top of the RUNTIME/DRIVER kinds, and
 * enabling a kind again clears them: called after every enable. */
static void
filter_api (void)
{
  int all = env_is_1 ("PFPROF_ALL_API");

  n_api_filtered = 0;
  if (all && !skip_launches)
    return;
  for (uint32_t cbid = 1; timed_enabled[KIND_RUNTIME] && cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE; cbid++)
    {
      const char *name = NULL;

      if (cuptiGetCallbackName (CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &name) == CUPTI_SUCCESS && name != NULL
          && filtered (name, all) && cuptiActivityEnableRuntimeApi (cbid, 0) == CUPTI_SUCCESS)
        n_api_filtered++;
    }
  for (uint32_t cbid = 1; timed_enabled[KIND_DRIVER] && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; cbid++)
    {
      const char *name = NULL;

      if (cuptiGetCallbackName (CUPTI_CB_DOMAIN_DRIVER_API, cbid, &name) == CUPTI_SUCCESS && name != NULL
          && filtered (name, all) && cuptiActivityEnableDriverApi (cbid, 0) == CUPTI_SUCCESS)
        n_api_filtered++;
    }
}

/* The kinds to record: PFPROF_KINDS (a comma list of timed_kinds names
 * and "api-callbacks") or default_kinds, plus RUNTIME and DRIVER with
 * PFPROF_TRACE_LAUNCHES=1. Unknown names are said and skipped. */
static void
choose_kinds (void)
{
  const char *env = getenv ("PFPROF_KINDS");
  const char *list = env != NULL && *env != '\0' ? env : default_kinds;
  const char *p = list;

  while (*p)
    {
      size_t len = strcspn (p, ",");
      const char *q = p;
      size_t n = len;
      int known = 0;

      while (n > 0 && (*q == ' ' || *q == '\t'))
        q++, n--;
      while (n > 0 && (q[n - 1] == ' ' || q[n - 1] == '\t'))
        n--;
      if (n == strlen ("api-callbacks") && strncmp (q, "api-callbacks", n) == 0)
        known = want_api_callbacks = 1;
      for (size_t i = 0; i < N_TIMED_KINDS && !known; i++)
        if (n == strlen (timed_kinds[i].name) && strncmp (q, timed_kinds[i].name, n) == 0)
          known = timed_wanted[i] = 1;
      if (!known && n > 0)
        pfprof_collector_warn ("ignoring unknown activity kind '%.*s' in PFPROF_KINDS", (int) (n > 64 ? 64 : n), q);
      p += len;
      if (*p == ',')
        p++;
    }
  if (env_is_1 ("PFPROF_TRACE_LAUNCHES"))
    timed_wanted[KIND_RUNTIME] = timed_wanted[KIND_DRIVER] = 1;
  skip_launches = env_is_1 ("PFPROF_SKIP_LAUNCHES");
}

static void
list_add (char *buf, size_t size, size_t *pos, const char *item)
{
  if (*pos < size)
    *pos += (size_t) snprintf (buf + *pos, size - *pos, "%s%s", *pos ? "," : "", item);
}

int
pfprof_collector_cupti_start (void)
{
  CUptiResult r;
  size_t pos = 0, epos = 0;
  int any = 0;

  choose_kinds ();
  /* Subscribe before anything else so that we learn at once whether
   * another tool (torch.profiler, Nsight) holds CUPTI. */
  r = cuptiSubscribe (&subscriber, (CUpti_CallbackFunc) callback, NULL);
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
    {
      pfprof_collector_fail ("another profiler already uses CUPTI in process %ld; not tracing it",
                             (long) getpid ());
      return -1;
    }
  if (r != CUPTI_SUCCESS)
    {
      pfprof_collector_fail ("cannot subscribe to CUPTI (%s); not tracing process %ld",
                             result_string (r), (long) getpid ());
      return -1;
    }
  if (cuptiGetVersion (&cupti_loaded_version) != CUPTI_SUCCESS
      || cupti_loaded_version / 10000 != CUPTI_API_VERSION / 10000
      || cupti_loaded_version < CUPTI_API_VERSION)
    {
      cuptiUnsubscribe (subscriber);
      pfprof_collector_fail ("CUPTI API version %u does not match the %u pfprof was built for; not tracing",
                             cupti_loaded_version, (unsigned) CUPTI_API_VERSION);
      return -1;
    }
  /* gettid() ids, so host rows match `top` and our NVTX records. */
  cuptiSetThreadIdType (CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  {
    uint8_t zeroed = 1;
    size_t len = sizeof zeroed;

    /* Before the callbacks are registered, so that it holds for every
     * buffer; an older CUPTI without it clears each buffer itself. */
    buffers_zeroed = cuptiActivitySetAttribute (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &len, &zeroed)
                     == CUPTI_SUCCESS;
  }
  r = cuptiActivityRegisterCallbacks (buffer_requested, buffer_completed);
  if (r != CUPTI_SUCCESS)
    {
      cuptiUnsubscribe (subscriber);
      pfprof_collector_fail ("cannot register CUPTI buffers (%s); not tracing", result_string (r));
      return -1;
    }
  atomic_store (&cupti_up, 1);
  for (size_t i = 0; i < sizeof info_kinds / sizeof info_kinds[0]; i++)
    if (cuptiActivityEnable (info_kinds[i]) != CUPTI_SUCCESS)
      pos += (size_t) snprintf (kinds_unavailable + pos, sizeof kinds_unavailable - pos, "%s%d",
                                pos ? "," : "", (int) info_kinds[i]);
  for (size_t i = 0; i < N_TIMED_KINDS; i++)
    {
      char num[16];

      if (!timed_wanted[i])
        continue;
      timed_enabled[i] = cuptiActivityEnable (timed_kinds[i].kind) == CUPTI_SUCCESS;
      if (timed_enabled[i])
        {
          any = 1;
          list_add (kinds_enabled, sizeof kinds_enabled, &epos, timed_kinds[i].name);
        }
      else
        {
          snprintf (num, sizeof num, "%d", (int) timed_kinds[i].kind);
          list_add (kinds_unavailable, sizeof kinds_unavailable, &pos, num);
        }
    }
  filter_api ();
  /* A domain (or, for sync records, the SYNCHRONIZATION kind) whose
   * activity kind is on already has every call's record. */
  if (want_api_callbacks)
    n_api_callbacks = pfprof_collector_api_enable (subscriber, !timed_enabled[KIND_RUNTIME],
                                                   !timed_enabled[KIND_DRIVER],
                                                   !timed_enabled[KIND_SYNC]);
  if (n_api_callbacks > 0)
    {
      any = 1;
      list_add (kinds_enabled, sizeof kinds_enabled, &epos, "api-callbacks");
    }
  if (!any)
    {
      pfprof_collector_cupti_stop ();
      pfprof_collector_fail ("CUPTI refused every activity kind; not tracing");
      return -1;
    }
  if (pfprof_collector.capture && pfprof_collector_capture_enable (subscriber) != 0)
    {
      pfprof_collector_cupti_stop ();
      pfprof_collector_fail ("CUPTI cannot watch cudaProfilerStart/Stop for --capture-range; not tracing");
      return -1;
    }
  /* Started paused when --delay or a capture range asks for it; the
   * writer or the capture callback switches it on later. */
  if (!atomic_load (&pfprof_collector.tracing))
    pfprof_collector_cupti_enable (0);
  return 0;
}

void
pfprof_collector_cupti_enable (int enable)
{
  if (!atomic_load (&cupti_up))
    return;
  for (size_t i = 0; i < N_TIMED_KINDS; i++)
    if (timed_enabled[i])
      {
        if (enable)
          cuptiActivityEnable (timed_kinds[i].kind);
        else
          cuptiActivityDisable (timed_kinds[i].kind);
      }
  if (enable)
    filter_api ();
}

void
pfprof_collector_cupti_flush (int forced)
{
  if (atomic_load (&cupti_up))
    cuptiActivityFlushAll (forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

void
pfprof_collector_cupti_stop (void)
{
  if (!atomic_exchange (&cupti_up, 0))
    return;
  for (size_t i = 0; i < N_TIMED_KINDS; i++)
    if (timed_enabled[i])
      cuptiActivityDisable (timed_kinds[i].kind);
  cuptiUnsubscribe (subscriber);
}

int64_t
pfprof_collector_cupti_timestamp (void)
{
  uint64_t ts;
  struct timespec t;

  if (atomic_load (&cupti_up) && cuptiGetTimestamp (&ts) == CUPTI_SUCCESS)
    return (int64_t) ts;
  /* Before CUPTI is up (an NVTX call before cuInit): CUPTI's clock on
   * Linux is CLOCK_REALTIME based; the clock triples in meta let a reader
   * check that. */
  clock_gettime (CLOCK_REALTIME, &t);
  return (int64_t) t.tv_sec * 1000000000 + t.tv_nsec;
}

uint64_t
pfprof_collector_cupti_dropped (void)
{
  return atomic_load (&dropped_records);
}

/* ---- Conversion (writer thread only) --------------------------------- */

/* cbid -> strings.id caches, one per API domain. */
typedef struct
{
  uint32_t *ids;
  uint32_t n;
} NameCache;

static NameCache api_names[2]; /* [0] driver, [1] runtime */
static PfprofTraceWriter *cache_owner;

/* Context -> device, for stream records, which carry no device. */
static struct
{
  uint32_t context_id;
  uint32_t device_id;
} ctx_devices[64];
static unsigned n_ctx_devices;

/* For meta.gpu_names / gpu_uuids, in the order CUPTI reported devices. */
static char gpu_names[1024];
static char gpu_uuids[1024];

/* Which devices this process ran work on (meta.used_gpu_uuids: a rank of
 * a multi-GPU job sees every GPU but uses one), and how many kernels,
 * copies and memsets it recorded (none: a process that only initialized
 * CUDA, such as torchrun's agent). Writer thread only. */
#define MAX_DEVICES 64
static char device_uuids[MAX_DEVICES][64];
static uint64_t used_devices;
static uint64_t gpu_records;

static void
note_gpu_work (uint32_t device_id)
{
  gpu_records++;
  if (device_id < MAX_DEVICES)
    used_devices |= UINT64_C (1) << device_id;
}

uint64_t
pfprof_collector_cupti_gpu_records (void)
{
  return gpu_records;
}

uint32_t
pfprof_collector_cupti_api_name (PfprofTraceWriter *w, int runtime, uint32_t cbid)
{
  NameCache *c = &api_names[runtime ? 1 : 0];
  const char *name = NULL;
  char fallback[32];

  if (cache_owner != w)
    {
      /* String ids belong to one writer. */
      for (int i = 0; i < 2; i++)
        {
          free (api_names[i].ids);
          api_names[i].ids = NULL;
          api_names[i].n = 0;
        }
      cache_owner = w;
    }
  if (cbid >= c->n)
    {
      uint32_t n = cbid + 256;
      uint32_t *ids = realloc (c->ids, n * sizeof *ids);

      if (ids == NULL)
        return PFPROF_NONE;
      for (uint32_t i = c->n; i < n; i++)
        ids[i] = PFPROF_NONE;
      c->ids = ids;
      c->n = n;
    }
  if (c->ids[cbid] != PFPROF_NONE)
    return c->ids[cbid];
  if (cuptiGetCallbackName (runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API, cbid, &name)
        != CUPTI_SUCCESS
      || name == NULL)
    {
      snprintf (fallback, sizeof fallback, "%s#%u", runtime ? "runtime" : "driver", cbid);
      name = fallback;
    }
  c->ids[cbid] = pfprof_trace_writer_intern (w, name);
  return c->ids[cbid];
}

/* Kernel name -> strings id, by the address of CUPTI's name: CUPTI
 * shares one name string among all the records of a kernel, so a hit
 * costs a strcmp against our copy (which catches an address reused after
 * a module was unloaded) instead of hashing a mangled name of a hundred
 * bytes or more on every kernel record. Writer thread only. */
#define KERNEL_NAME_SLOTS 1024
static struct
{
  const char *name; /* CUPTI's pointer */
  char *copy;
  uint32_t id;
} kernel_names[KERNEL_NAME_SLOTS];
static PfprofTraceWriter *kernel_names_owner;

static uint32_t
kernel_name_id (PfprofTraceWriter *w, const char *name)
{
  size_t slot = ((uintptr_t) name >> 3) % KERNEL_NAME_SLOTS;
  uint32_t id;

  if (kernel_names_owner != w)
    {
      /* String ids belong to one writer. */
      for (size_t i = 0; i < KERNEL_NAME_SLOTS; i++)
        {
          free (kernel_names[i].copy);
          kernel_names[i].copy = NULL;
          kernel_names[i].name = NULL;
        }
      kernel_names_owner = w;
    }
  if (kernel_names[slot].name == name && kernel_names[slot].copy != NULL
      && strcmp (kernel_names[slot].copy, name) == 0)
    return kernel_names[slot].id;
  id = pfprof_trace_writer_intern (w, name);
  if (id != PFPROF_NONE)
    {
      char *copy = strdup (name);

      free (kernel_names[slot].copy);
      kernel_names[slot].copy = copy;
      kernel_names[slot].name = copy ? name : NULL;
      kernel_names[slot].id = id;
    }
  return id;
}

static uint32_t
device_of_context (uint32_t context_id)
{
  for (unsigned i = 0; i < n_ctx_devices; i++)
    if (ctx_devices[i].context_id == context_id)
      return ctx_devices[i].device_id;
  return PFPROF_NONE;
}

/* start/end valid: both set and in order. */
static int
valid_span (uint64_t start, uint64_t end)
{
  if (start == 0 || end == 0 || end < start)
    {
      atomic_fetch_add (&pfprof_collector.records_invalid, 1);
      return 0;
    }
  return 1;
}

static void
append (PfprofTraceWriter *w, PfprofTableId table, const void *record)
{
  if (pfprof_trace_writer_append (w, table, record) == PFPROF_WRITER_OK)
    atomic_fetch_add (&pfprof_collector.records_written, 1);
}

static void
convert_one (PfprofTraceWriter *w, CUpti_Activity *a)
{
  switch (a->kind)
    {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *) a;
        PfprofKernelRecord r = { 0 };

        if (!valid_span (k->start, k->end))
          return;
        r.start_ns = (int64_t) k->start;
        r.end_ns = (int64_t) k->end;
        r.device_id = k->deviceId;
        r.context_id = k->contextId;
        r.stream_id = k->streamId;
        r.correlation_id = k->correlationId;
        r.name_id = k->name ? kernel_name_id (w, k->name) : pfprof_trace_writer_intern (w, "?");
        r.grid_x = k->gridX;
        r.grid_y = pfprof_trace_u16 (k->gridY);
        r.grid_z = pfprof_trace_u16 (k->gridZ);
        r.block_x = pfprof_trace_u16 (k->blockX);
        r.block_y = pfprof_trace_u16 (k->blockY);
        r.block_z = pfprof_trace_u16 (k->blockZ);
        r.shared_mem_bytes = k->staticSharedMemory + k->dynamicSharedMemory;
        r.registers = pfprof_trace_u16 (k->registersPerThread);
        note_gpu_work (r.device_id);
        append (w, PFPROF_TABLE_KERNELS, &r);
        break;
      }
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      {
        const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *) a;
        PfprofMemcpyRecord r = { 0 };

        if (!valid_span (m->start, m->end))
          return;
        r.start_ns = (int64_t) m->start;
        r.end_ns = (int64_t) m->end;
        r.bytes = m->bytes;
        r.device_id = m->deviceId;
        r.context_id = m->contextId;
        r.stream_id = m->streamId;
        r.correlation_id = m->correlationId;
        r.runtime_correlation_id = m->runtimeCorrelationId;
        r.copy_kind = m->copyKind;
        r.src_kind = m->srcKind;
        r.dst_kind = m->dstKind;
        r.flags = m->flags;
        r.channel_type = (uint8_t) m->channelType;
        note_gpu_work (r.device_id);
        append (w, PFPROF_TABLE_MEMCPYS, &r);
        break;
      }
    case CUPTI_ACTIVITY_KIND_MEMSET:
      {
        const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *) a;
        PfprofMemsetRecord r = { 0 };

        if (!valid_span (m->start, m->end))
          return;
        r.start_ns = (int64_t) m->start;
        r.end_ns = (int64_t) m->end;
        r.bytes = m->bytes;
        r.device_id = m->deviceId;
        r.context_id = m->contextId;
        r.stream_id = m->streamId;
        r.correlation_id = m->correlationId;
        r.value = m->value;
        r.memory_kind = (uint8_t) m->memoryKind;
        r.flags = (uint8_t) m->flags;
        note_gpu_work (r.device_id);
        append (w, PFPROF_TABLE_MEMSETS, &r);
        break;
      }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      {
        const CUpti_ActivitySynchronization2 *s = (const CUpti_ActivitySynchronization2 *) a;
        PfprofSyncRecord r = { 0 };

        if (!valid_span (s->start, s->end))
          return;
        r.start_ns = (int64_t) s->start;
        r.end_ns = (int64_t) s->end;
        r.context_id = s->contextId;
        /* CUPTI's "invalid" is all ones, which is PFPROF_NONE. */
        r.stream_id = s->streamId;
        r.correlation_id = s->correlationId;
        r.event_id = s->cudaEventId;
        r.event_sync_id = s->cudaEventSyncId;
        r.type = (uint8_t) s->type;
        append (w, PFPROF_TABLE_SYNCS, &r);
        break;
      }
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
      {
        const CUpti_ActivityCudaEvent2 *e = (const CUpti_ActivityCudaEvent2 *) a;
        PfprofCudaEventRecord r = { 0 };

        r.device_ts_ns = (int64_t) e->deviceTimestamp;
        r.event_sync_id = e->cudaEventSyncId;
        r.device_id = e->deviceId;
        r.context_id = e->contextId;
        r.stream_id = e->streamId;
        r.event_id = e->eventId;
        r.correlation_id = e->correlationId;
        append (w, PFPROF_TABLE_CUDA_EVENTS, &r);
        break;
      }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
      {
        const CUpti_ActivityAPI *api = (const CUpti_ActivityAPI *) a;
        int runtime = a->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
        PfprofApiRecord r = { 0 };

        if (!valid_span (api->start, api->end))
          return;
        r.start_ns = (int64_t) api->start;
        r.end_ns = (int64_t) api->end;
        r.tid = api->threadId;
        r.correlation_id = api->correlationId;
        r.cbid = api->cbid;
        r.name_id = pfprof_collector_cupti_api_name (w, runtime, api->cbid);
        r.return_value = (int32_t) api->returnValue;
        r.domain = runtime ? PFPROF_API_RUNTIME : PFPROF_API_DRIVER;
        append (w, PFPROF_TABLE_API_CALLS, &r);
        pfprof_collector_writer_note_thread (w, api->threadId);
        break;
      }
    case CUPTI_ACTIVITY_KIND_MEMORY2:
      {
        const CUpti_ActivityMemory4 *m = (const CUpti_ActivityMemory4 *) a;
        PfprofMemoryRecord r = { 0 };

        if (m->timestamp == 0)
          {
            atomic_fetch_add (&pfprof_collector.records_invalid, 1);
            return;
          }
        r.ts_ns = (int64_t) m->timestamp;
        r.address = m->address;
        r.bytes = m->bytes;
        r.device_id = m->deviceId;
        r.context_id = m->contextId;
        r.stream_id = m->streamId;
        r.correlation_id = m->correlationId;
        r.operation = (uint8_t) m->memoryOperationType;
        r.memory_kind = (uint8_t) m->memoryKind;
        r.pool_type = (uint8_t) m->memoryPoolConfig.memoryPoolType;
        append (w, PFPROF_TABLE_MEMORY, &r);
        break;
      }
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      {
        CUpti_ActivityOverhead3 *o = (CUpti_ActivityOverhead3 *) a;
        PfprofOverheadRecord r = { 0 };

        /* The header makes the client free it. */
        free (o->overheadData);
        o->overheadData = NULL;
        if (!valid_span (o->start, o->end))
          return;
        r.start_ns = (int64_t) o->start;
        r.end_ns = (int64_t) o->end;
        r.object_id = o->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD || o->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS
                        ? o->objectId.pt.threadId
                        : o->objectId.dcs.deviceId;
        r.overhead_kind = (uint32_t) o->overheadKind;
        r.object_kind = (uint8_t) o->objectKind;
        append (w, PFPROF_TABLE_OVERHEAD, &r);
        break;
      }
    case CUPTI_ACTIVITY_KIND_DEVICE:
      {
        const CUpti_ActivityDevice5 *d = (const CUpti_ActivityDevice5 *) a;
        PfprofDeviceRecord r = { 0 };
        const unsigned char *u = (const unsigned char *) d->uuid.bytes;
        char uuid[64];

        snprintf (uuid, sizeof uuid,
                  "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                  u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
                  u[14], u[15]);
        r.device_id = d->id;
        if (d->id < MAX_DEVICES)
          snprintf (device_uuids[d->id], sizeof device_uuids[d->id], "%s", uuid);
        r.name_id = pfprof_trace_writer_intern (w, d->name ? d->name : "?");
        if (strlen (gpu_names) + strlen (d->name ? d->name : "?") + 2 < sizeof gpu_names
            && strlen (gpu_uuids) + strlen (uuid) + 2 < sizeof gpu_uuids)
          {
            if (gpu_names[0])
              {
                strcat (gpu_names, ",");
                strcat (gpu_uuids, ",");
              }
            strcat (gpu_names, d->name ? d->name : "?");
            strcat (gpu_uuids, uuid);
          }
        r.uuid_id = pfprof_trace_writer_intern (w, uuid);
        r.cc_major = (int32_t) d->computeCapabilityMajor;
        r.cc_minor = (int32_t) d->computeCapabilityMinor;
        r.sm_count = (int32_t) d->numMultiprocessors;
        r.global_memory_bytes = d->globalMemorySize;
        append (w, PFPROF_TABLE_DEVICES, &r);
        break;
      }
    case CUPTI_ACTIVITY_KIND_CONTEXT:
      {
        const CUpti_ActivityContext3 *c = (const CUpti_ActivityContext3 *) a;
        PfprofContextRecord r = { 0 };

        r.context_id = c->contextId;
        r.device_id = c->deviceId;
        r.null_stream_id = c->nullStreamId;
        if (n_ctx_devices < sizeof ctx_devices / sizeof ctx_devices[0] && device_of_context (c->contextId) == PFPROF_NONE)
          {
            ctx_devices[n_ctx_devices].context_id = c->contextId;
            ctx_devices[n_ctx_devices].device_id = c->deviceId;
            n_ctx_devices++;
          }
        append (w, PFPROF_TABLE_CONTEXTS, &r);
        break;
      }
    case CUPTI_ACTIVITY_KIND_STREAM:
      {
        const CUpti_ActivityStream *s = (const CUpti_ActivityStream *) a;
        PfprofStreamRecord r = { 0 };

        r.stream_id = s->streamId;
        r.context_id = s->contextId;
        r.device_id = device_of_context (s->contextId);
        r.flags = (uint32_t) s->flag;
        r.priority = (int32_t) s->priority;
        r.correlation_id = s->correlationId;
        append (w, PFPROF_TABLE_STREAMS, &r);
        break;
      }
    default:
      break;
    }
}

void
pfprof_collector_cupti_convert (PfprofTraceWriter *w, uint8_t *buffer, size_t valid)
{
  CUpti_Activity *record = NULL;

  while (cuptiActivityGetNextRecord (buffer, valid, &record) == CUPTI_SUCCESS)
    convert_one (w, record);
}

void
pfprof_collector_cupti_write_api (PfprofTraceWriter *w, PfprofCollectorQueueBatch *batch)
{
  const PfprofApiPending *p;

  while ((p = pfprof_collector_queue_next (batch)) != NULL)
    {
      PfprofApiRecord r = p->record;

      if (!valid_span ((uint64_t) r.start_ns, (uint64_t) r.end_ns))
        continue;
      r.name_id = pfprof_collector_cupti_api_name (w, r.domain == PFPROF_API_RUNTIME, r.cbid);
      append (w, PFPROF_TABLE_API_CALLS, &r);
      pfprof_collector_writer_note_thread (w, r.tid);
      if (p->sync_type != 0)
        {
          /* What the SYNCHRONIZATION kind would have said: the host
           * side of the call, joined to it by correlation id. */
          PfprofSyncRecord y = { 0 };

          y.start_ns = r.start_ns;
          y.end_ns = r.end_ns;
          y.context_id = p->context_id;
          y.stream_id = p->stream_id;
          y.correlation_id = r.correlation_id;
          y.event_id = PFPROF_NONE;
          y.type = p->sync_type;
          append (w, PFPROF_TABLE_SYNCS, &y);
        }
    }
}

void
pfprof_collector_cupti_write_end_meta (PfprofTraceWriter *w)
{
  char used[1024] = "";

  if (gpu_names[0])
    {
      pfprof_trace_writer_set_meta (w, "gpu_names", gpu_names);
      pfprof_trace_writer_set_meta (w, "gpu_uuids", gpu_uuids);
    }
  for (unsigned i = 0; i < MAX_DEVICES; i++)
    if ((used_devices >> i & 1) && device_uuids[i][0]
        && strlen (used) + strlen (device_uuids[i]) + 2 < sizeof used)
      {
        if (used[0])
          strcat (used, ",");
        strcat (used, device_uuids[i]);
      }
  if (used[0])
    pfprof_trace_writer_set_meta (w, "used_gpu_uuids", used);
  pfprof_trace_writer_set_meta_int (w, "gpu_records", (int64_t) gpu_records);
}

void
pfprof_collector_cupti_write_meta (PfprofTraceWriter *w)
{
  /* libcuda is loaded (it loaded us), but not necessarily globally. */
  void *cuda = dlopen ("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  void *sym = cuda ? dlsym (cuda, "cuDriverGetVersion") : NULL;
  int (*driver_get_version) (int *) = NULL;
  int driver_api = 0;
  char line[256];
  FILE *f;

  /* POSIX guarantees data and function pointers convert; ISO C does not. */
  memcpy (&driver_get_version, &sym, sizeof sym);
  pfprof_trace_writer_set_meta_int (w, "cupti_version", cupti_loaded_version);
  pfprof_trace_writer_set_meta_int (w, "cupti_build_version", CUPTI_API_VERSION);
  if (driver_get_version != NULL && driver_get_version (&driver_api) == 0)
    pfprof_trace_writer_set_meta_int (w, "cuda_driver_version", driver_api);
  if (cuda != NULL)
    dlclose (cuda);
  /* "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04
   * Release Build ...": the first word shaped like N.N. */
  if ((f = fopen ("/proc/driver/nvidia/version", "re")) != NULL)
    {
      if (fgets (line, sizeof line, f) != NULL)
        {
          char *save = NULL;

          for (char *tok = strtok_r (line, " \t\n", &save); tok; tok = strtok_r (NULL, " \t\n", &save))
            if (tok[0] >= '0' && tok[0] <= '9' && strchr (tok, '.') != NULL)
              {
                pfprof_trace_writer_set_meta (w, "nvidia_driver_version", tok);
                break;
              }
        }
      fclose (f);
    }
  pfprof_trace_writer_set_meta (w, "activity_kinds", kinds_enabled);
  pfprof_trace_writer_set_meta (w, "activity_kinds_unavailable", kinds_unavailable);
  pfprof_trace_writer_set_meta_int (w, "api_callbacks_filtered", n_api_filtered);
  pfprof_trace_writer_set_meta_int (w, "api_callbacks_enabled", n_api_callbacks);
  /* Kernels join their launching call only through RUNTIME/DRIVER records. */
  pfprof_trace_writer_set_meta (w, "launch_records",
                                (timed_enabled[KIND_RUNTIME] || timed_enabled[KIND_DRIVER]) && !skip_launches ? "1"
                                                                                                              : "0");
}
