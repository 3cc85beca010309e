/* SPDX-License-Identifier: MIT */
/* pfprof-cupti-floor.c: the "CUPTI floor", a minimal CUDA
 * injection library that enables CUPTI activity kinds and throws every
 * record away. What a program loses under it is what CUPTI itself costs
 * for those kinds; whatever pfprof costs above it is ours (writer, trace,
 * API filtering). Benchmark only: built with the collector, installed
 * nowhere.
 *
 *   CUDA_INJECTION64_PATH=.../libpfprof-cupti-floor.so \
 *   PFPROF_FLOOR_KINDS=kernel,memcpy python3 train.py
 *
 * PFPROF_FLOOR_KINDS: comma list of kernel (CONCURRENT_KERNEL), memcpy,
 * memset, sync, runtime, driver, cuda_event, stream, memory2, overhead,
 * api-callbacks, or "none"; unset or empty: the ten activity kinds, the
 * set pfprof enabled before its defaults were narrowed. api-callbacks
 * enables an empty CUPTI callback for the runtime and driver calls whose
 * names start with one of the comma-separated prefixes in
 * PFPROF_FLOOR_CALLBACKS (the collector makes API records from such
 * callbacks). PFPROF_FLOOR_FLUSH_MS (default 500, as the
 * collector's writer; 0: never): how often a thread asks CUPTI for
 * completed buffers, as the collector does, so both pay the same
 * delivery cost.
 *
 * PFPROF_CAPTURE=cuda-profiler-api (with PFPROF_CAPTURE_REPEAT=1, as the
 * collector's benchmarks set it): starts with the kinds and callbacks off
 * and switches them on at each cudaProfilerStart() and off at each
 * cudaProfilerStop(), as the collector does under `pfprof record
 * --capture-range`, so a benchmark can alternate the floor in one process
 * as it alternates pfprof.
 *
 * Prints one stderr line when it starts (which kinds CUPTI accepted) and
 * one at exit with the records counted and dropped, so a benchmark can
 * check that it really ran: the driver says nothing when an injection
 * library cannot be loaded.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>

#define FLOOR_EXPORT __attribute__ ((visibility ("default")))

/* The same size as the collector's buffers (PFPROF_COLLECTOR_BUFFER_SIZE),
 * so CUPTI completes them as often. */
#define FLOOR_BUFFER_SIZE (4u << 20)

typedef struct
{
  const char *name;
  CUpti_ActivityKind kind;
} FloorKind;

/* The ten kinds the collector enabled by default, under the names its
 * trace meta `activity_kinds` uses. */
static const FloorKind floor_kinds[] = {
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
#define N_FLOOR_KINDS (sizeof floor_kinds / sizeof floor_kinds[0])

static CUpti_SubscriberHandle subscriber;
static _Atomic uint64_t n_records;
static _Atomic uint64_t n_dropped;
static _Atomic uint64_t n_buffers;
static _Atomic int stopping;
static pid_t owner_pid;
static char enabled_names[160];
static int want_callbacks;
static unsigned n_callbacks;
static pthread_t flush_thread;
static int flush_thread_up;
static unsigned flush_ms = 500;
static unsigned char kinds_on[N_FLOOR_KINDS]; /* enabled at start */
static int capture;                           /* PFPROF_CAPTURE */
static int capture_repeat;
static _Atomic int capturing;
static _Atomic unsigned n_ranges;
static pthread_mutex_t capture_lock = PTHREAD_MUTEX_INITIALIZER;
#define MAX_CALLBACKS 1024
static struct
{
  CUpti_CallbackDomain domain;
  CUpti_CallbackId cbid;
} callbacks_on[MAX_CALLBACKS];

static void CUPTIAPI
buffer_requested (uint8_t **buffer, size_t *size, size_t *max_records)
{
  *buffer = aligned_alloc (8, FLOOR_BUFFER_SIZE);
  *size = *buffer ? FLOOR_BUFFER_SIZE : 0;
  *max_records = 0;
}

/* Counting walks the records, as any consumer must; nothing else is done
 * with them. */
static void CUPTIAPI
buffer_completed (CUcontext ctx, uint32_t stream_id, uint8_t *buffer, size_t size, size_t valid)
{
  CUpti_Activity *record = NULL;
  size_t dropped = 0;
  uint64_t n = 0;

  if (cuptiActivityGetNumDroppedRecords (ctx, stream_id, &dropped) == CUPTI_SUCCESS && dropped > 0)
    atomic_fetch_add (&n_dropped, (uint64_t) dropped);
  if (buffer == NULL)
    return;
  while (valid > 0 && cuptiActivityGetNextRecord (buffer, valid, &record) == CUPTI_SUCCESS)
    n++;
  atomic_fetch_add (&n_records, n);
  atomic_fetch_add (&n_buffers, 1);
  free (buffer);
}

/* Everything enabled at start on (@on) or off. */
static void
switch_all (int on)
{
  for (size_t i = 0; i < N_FLOOR_KINDS; i++)
    if (kinds_on[i])
      {
        if (on)
          cuptiActivityEnable (floor_kinds[i].kind);
        else
          cuptiActivityDisable (floor_kinds[i].kind);
      }
  for (unsigned i = 0; i < n_callbacks && i < MAX_CALLBACKS; i++)
    cuptiEnableCallback (on ? 1 : 0, subscriber, callbacks_on[i].domain, callbacks_on[i].cbid);
}

/* A subscriber needs a callback. It does nothing but for the capture
 * range's four calls: a start switches on as it returns, a stop off as it
 * is entered (pfprof-collector-capture.c does the same). */
static void CUPTIAPI
callback (void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
  const CUpti_CallbackData *cb = data;
  int runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  int start, stop;

  if (!capture || cb == NULL || (!runtime && domain != CUPTI_CB_DOMAIN_DRIVER_API))
    return;
  start = runtime ? cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000
                  : cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart;
  stop = runtime ? cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000
                 : cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop;
  if ((start && cb->callbackSite != CUPTI_API_EXIT) || (stop && cb->callbackSite != CUPTI_API_ENTER)
      || (!start && !stop))
    return;
  pthread_mutex_lock (&capture_lock);
  if (start && !atomic_load (&capturing) && (atomic_load (&n_ranges) == 0 || capture_repeat))
    {
      atomic_fetch_add (&n_ranges, 1);
      switch_all (1);
      atomic_store (&capturing, 1);
    }
  else if (stop && atomic_load (&capturing))
    {
      atomic_store (&capturing, 0);
      switch_all (0);
    }
  pthread_mutex_unlock (&capture_lock);
}

static const char *
result_string (CUptiResult r)
{
  const char *s = NULL;

  if (cuptiGetResultString (r, &s) != CUPTI_SUCCESS || s == NULL)
    s = "unknown CUPTI error";
  return s;
}

/* Sets wanted[i] for each kind named in @list; returns the number of
 * unknown names (each reported once). */
static int
parse_kinds (const char *list, unsigned char *wanted)
{
  char buf[256];
  char *save = NULL;
  int bad = 0;

  if (list == NULL || *list == '\0')
    {
      memset (wanted, 1, N_FLOOR_KINDS);
      return 0;
    }
  memset (wanted, 0, N_FLOOR_KINDS);
  snprintf (buf, sizeof buf, "%s", list);
  for (char *tok = strtok_r (buf, ", ", &save); tok != NULL; tok = strtok_r (NULL, ", ", &save))
    {
      size_t i;

      if (strcmp (tok, "none") == 0)
        continue;
      if (strcmp (tok, "api-callbacks") == 0)
        {
          want_callbacks = 1;
          continue;
        }
      for (i = 0; i < N_FLOOR_KINDS; i++)
        if (strcmp (tok, floor_kinds[i].name) == 0)
          break;
      if (i < N_FLOOR_KINDS)
        wanted[i] = 1;
      else
        {
          fprintf (stderr, "pfprof-cupti-floor: unknown kind '%s' in PFPROF_FLOOR_KINDS, ignored\n",
                   tok);
          bad++;
        }
    }
  return bad;
}

static int
matches (const char *name, const char *prefixes)
{
  const char *p = prefixes;

  while (*p)
    {
      size_t len = strcspn (p, ",");

      if (len > 0 && strncmp (name, p, len) == 0)
        return 1;
      p += len;
      if (*p == ',')
        p++;
    }
  return 0;
}

/* The empty callback for the runtime and driver calls named in
 * PFPROF_FLOOR_CALLBACKS: what CUPTI costs to intercept them. */
static void
enable_callbacks (const char *prefixes)
{
  static const struct
  {
    CUpti_CallbackDomain domain;
    uint32_t size;
  } domains[] = {
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE },
  };

  if (prefixes == NULL || *prefixes == '\0')
    {
      fprintf (stderr, "pfprof-cupti-floor: api-callbacks without PFPROF_FLOOR_CALLBACKS: none enabled\n");
      return;
    }
  for (size_t d = 0; d < sizeof domains / sizeof domains[0]; d++)
    for (uint32_t cbid = 1; cbid < domains[d].size; cbid++)
      {
        const char *name = NULL;

        if (cuptiGetCallbackName (domains[d].domain, cbid, &name) == CUPTI_SUCCESS && name != NULL
            && matches (name, prefixes)
            && cuptiEnableCallback (1, subscriber, domains[d].domain, cbid) == CUPTI_SUCCESS)
          {
            if (n_callbacks < MAX_CALLBACKS)
              {
                callbacks_on[n_callbacks].domain = domains[d].domain;
                callbacks_on[n_callbacks].cbid = cbid;
              }
            n_callbacks++;
          }
      }
}

static void *
flush_main (void *data)
{
  struct timespec ts = { (time_t) (flush_ms / 1000), (long) (flush_ms % 1000) * 1000000L };

  while (!atomic_load (&stopping))
    {
      nanosleep (&ts, NULL);
      if (!atomic_load (&stopping))
        cuptiActivityFlushAll (0);
    }
  return NULL;
}

static void
at_exit (void)
{
  if (getpid () != owner_pid)
    return;
  atomic_store (&stopping, 1);
  if (flush_thread_up)
    pthread_join (flush_thread, NULL);
  cuptiActivityFlushAll (CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  fprintf (stderr,
           "pfprof-cupti-floor: pid %ld: %llu records in %llu buffers discarded, "
           "%llu dropped, kinds %s (%u capture ranges)\n",
           (long) owner_pid, (unsigned long long) atomic_load (&n_records),
           (unsigned long long) atomic_load (&n_buffers),
           (unsigned long long) atomic_load (&n_dropped), enabled_names, atomic_load (&n_ranges));
}

FLOOR_EXPORT int InitializeInjection (void);

FLOOR_EXPORT int
InitializeInjection (void)
{
  static _Atomic int started;
  unsigned char wanted[N_FLOOR_KINDS];
  const char *v;
  size_t pos = 0;
  CUptiResult r;

  if (atomic_exchange (&started, 1))
    return 1;
  owner_pid = getpid ();
  parse_kinds (getenv ("PFPROF_FLOOR_KINDS"), wanted);
  v = getenv ("PFPROF_FLOOR_FLUSH_MS");
  if (v != NULL && *v != '\0')
    flush_ms = (unsigned) strtoul (v, NULL, 10);
  r = cuptiSubscribe (&subscriber, (CUpti_CallbackFunc) callback, NULL);
  if (r != CUPTI_SUCCESS)
    {
      fprintf (stderr, "pfprof-cupti-floor: cannot subscribe to CUPTI (%s)\n", result_string (r));
      return 1;
    }
  r = cuptiActivityRegisterCallbacks (buffer_requested, buffer_completed);
  if (r != CUPTI_SUCCESS)
    {
      fprintf (stderr, "pfprof-cupti-floor: cannot register buffers (%s)\n", result_string (r));
      cuptiUnsubscribe (subscriber);
      return 1;
    }
  enabled_names[0] = '\0';
  for (size_t i = 0; i < N_FLOOR_KINDS; i++)
    {
      if (!wanted[i])
        continue;
      r = cuptiActivityEnable (floor_kinds[i].kind);
      if (r != CUPTI_SUCCESS)
        fprintf (stderr, "pfprof-cupti-floor: CUPTI refused kind %s (%s)\n", floor_kinds[i].name,
                 result_string (r));
      else
        {
          kinds_on[i] = 1;
          if (pos < sizeof enabled_names)
            pos += (size_t) snprintf (enabled_names + pos, sizeof enabled_names - pos, "%s%s",
                                      pos ? "," : "", floor_kinds[i].name);
        }
    }
  if (want_callbacks)
    {
      enable_callbacks (getenv ("PFPROF_FLOOR_CALLBACKS"));
      if (pos < sizeof enabled_names)
        pos += (size_t) snprintf (enabled_names + pos, sizeof enabled_names - pos,
                                  "%sapi-callbacks(%u)", pos ? "," : "", n_callbacks);
    }
  if (pos == 0)
    snprintf (enabled_names, sizeof enabled_names, "none");
  v = getenv ("PFPROF_CAPTURE");
  capture = v != NULL && strcmp (v, "cuda-profiler-api") == 0;
  v = getenv ("PFPROF_CAPTURE_REPEAT");
  capture_repeat = v != NULL && strcmp (v, "1") == 0;
  if (capture)
    {
      switch_all (0);
      cuptiEnableCallback (1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000);
      cuptiEnableCallback (1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000);
      cuptiEnableCallback (1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
      cuptiEnableCallback (1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
    }
  if (flush_ms > 0)
    flush_thread_up = pthread_create (&flush_thread, NULL, flush_main, NULL) == 0;
  /* Registered after CUPTI's own set-up, so it runs before CUPTI's exit
   * handlers (atexit runs in reverse order), as in the collector. */
  atexit (at_exit);
  fprintf (stderr, "pfprof-cupti-floor: pid %ld: started, kinds %s, flush every %u ms%s\n",
           (long) owner_pid, enabled_names, flush_ms, capture ? ", paused until cudaProfilerStart()" : "");
  return 1;
}
