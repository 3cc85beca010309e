/* SPDX-License-Identifier: MIT */
/* pfprof-collector-python.c: Python call sites from the launcher's hook.
 *
 * `pfprof record`'s Python hook (cli/pfprof_sitecustomize.py) finds this
 * library among the loaded ones (ctypes, RTLD_NOLOAD) and calls the two
 * exported functions below: one per call site of the user's code (file,
 * line, function, and its caller), one per recorded call (its thread and
 * times: a site's first PFPROF_SITE_RECORDED_CALLS and a sample of the
 * later ones, 176 at most per site). They copy their
 * arguments onto a queue under a short mutex (pfprof-collector-queue.h)
 * and return; the writer thread drains the queue at each round into
 * `python_sites` and `python_calls`, and a third, the rows the hook
 * recorded inside the DataLoader, into `worker_events`. They never block
 * longer than that mutex, never call CUPTI or SQLite, and refuse rather
 * than queue without bound.
 *
 * Why through the collector and not a file the launcher merges: the rows
 * land in the trace of the process that made the calls, through the writer
 * that already finishes the trace on exit, on os._exit (the hook calls
 * pfprof_collector_finish after flushing its counts) and on SIGTERM; a
 * forked DataLoader worker, where the collector is inert, refuses them
 * (its copies do not reach this trace anyway); nothing is left behind by a
 * worker killed at shutdown, and nothing needs matching pids to files.
 *
 * The hook times calls with time.time_ns() (CLOCK_REALTIME); they are
 * moved onto CUPTI's clock here, by the offset between the two measured
 * at the call (on Linux CUPTI's clock is CLOCK_REALTIME based, so the
 * offset is about 0).
 */
#include "pfprof-collector-private.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One queued site, call or worker event. */
typedef struct
{
  int is_site; /* 1: site; 0: call; 2: worker event */
  union
  {
    PfprofPythonSiteRecord site; /* string ids unset */
    PfprofPythonCallRecord call;
    PfprofWorkerEventRecord event;
  };
  char *strings[5]; /* api, file, function, caller file, caller function */
} PythonPending;

/* If the writer stalls; a site costs a few hundred bytes. */
#define PENDING_MAX 200000
#define PENDING_CHUNK 1024
/* Longer names are cut: a generated 10 MB function name must not travel. */
#define STRING_MAX 1024

/* Bounded by count alone (PENDING_MAX a push). */
static PfprofCollectorQueue pending = PFPROF_COLLECTOR_QUEUE_INIT (PythonPending, PENDING_CHUNK, 0, 2);

/* 0: take rows; 1: not yet (not initialized: the hook keeps them and
 * retries); -1: never in this process (a forked child, or finished). */
static int
accepting (void)
{
  int state = atomic_load (&pfprof_collector.state);

  if (atomic_load (&pfprof_collector.child) || state == PFPROF_COLLECTOR_STOPPED)
    return -1;
  return state == PFPROF_COLLECTOR_RUNNING ? 0 : 1;
}

static char *
copy_string (const char *s)
{
  size_t n;
  char *out;

  if (s == NULL)
    return NULL;
  n = strnlen (s, STRING_MAX);
  if ((out = malloc (n + 1)) != NULL)
    {
      memcpy (out, s, n);
      out[n] = '\0';
    }
  return out;
}

static void
free_strings (PythonPending *p)
{
  for (unsigned i = 0; i < sizeof p->strings / sizeof p->strings[0]; i++)
    free (p->strings[i]);
}

/* Copies @p onto the queue, or frees its strings when it is full. */
static int
enqueue (PythonPending *p)
{
  if (pfprof_collector_queue_push (&pending, p, PENDING_MAX) == 0)
    return 0;
  free_strings (p);
  return -1;
}

/* Queues one python_sites row (PfprofSiteKind @kind); the strings are
 * copied (NULL for a missing caller). Returns 0 when queued, 1 when the
 * collector is not tracing yet (call again later), -1 when this process
 * records none (a forked child, tracing over, bad arguments, queue full). */
PFPROF_EXPORT int pfprof_collector_python_site (uint32_t site_id, uint32_t kind, const char *api,
                                                const char *file, int32_t line,
                                                const char *function, const char *caller_file,
                                                int32_t caller_line, const char *caller_function,
                                                uint64_t calls);

PFPROF_EXPORT int
pfprof_collector_python_site (uint32_t site_id, uint32_t kind, const char *api, const char *file,
                              int32_t line, const char *function, const char *caller_file,
                              int32_t caller_line, const char *caller_function, uint64_t calls)
{
  PythonPending p;
  int ok = accepting ();

  if (ok != 0)
    return ok;
  if (api == NULL || file == NULL || function == NULL || kind > UINT8_MAX)
    return -1;
  memset (&p, 0, sizeof p);
  p.is_site = 1;
  p.site.site_id = site_id;
  p.site.kind = (uint8_t) kind;
  p.site.line = line;
  p.site.caller_line = caller_line;
  p.site.calls = calls;
  p.strings[0] = copy_string (api);
  p.strings[1] = copy_string (file);
  p.strings[2] = copy_string (function);
  p.strings[3] = copy_string (caller_file);
  p.strings[4] = copy_string (caller_function);
  if (!p.strings[0] || !p.strings[1] || !p.strings[2])
    {
      free_strings (&p);
      return -1;
    }
  return enqueue (&p);
}

/* Queues one python_calls row: site @site_id ran on thread @tid from
 * @start_ns to @end_ns, CLOCK_REALTIME. Same return values. */
PFPROF_EXPORT int pfprof_collector_python_call (uint32_t site_id, uint32_t tid, int64_t start_ns,
                                                int64_t end_ns);

PFPROF_EXPORT int
pfprof_collector_python_call (uint32_t site_id, uint32_t tid, int64_t start_ns, int64_t end_ns)
{
  PythonPending p;
  struct timespec rt;
  int64_t offset;
  int ok = accepting ();

  if (ok != 0)
    return ok;
  if (start_ns <= 0 || end_ns < start_ns)
    return -1;
  offset = pfprof_collector_cupti_timestamp ();
  clock_gettime (CLOCK_REALTIME, &rt);
  offset -= (int64_t) rt.tv_sec * 1000000000 + rt.tv_nsec;
  memset (&p, 0, sizeof p);
  p.call.start_ns = start_ns + offset;
  p.call.end_ns = end_ns + offset;
  p.call.tid = tid;
  p.call.site_id = site_id;
  return enqueue (&p);
}

/* Queues one worker_events row (PfprofWorkerEventKind @kind), times
 * CLOCK_REALTIME ns: @start_ns, @end_ns, and @a and @b where the kind
 * makes them times (BATCH, FAILED: collate start and end; GOT: asked),
 * 0 meaning unknown. The main process's hook hands over its workers'
 * rows and its own at exit (cli/pfprof_workers.py). Same return values;
 * 1 also while the queue is full (the hook waits and calls again). */
PFPROF_EXPORT int pfprof_collector_python_worker_event (uint32_t kind, uint32_t worker_id, uint32_t pid,
                                                        uint32_t site_id, int64_t batch, int64_t start_ns,
                                                        int64_t end_ns, int64_t a, int64_t b);

PFPROF_EXPORT int
pfprof_collector_python_worker_event (uint32_t kind, uint32_t worker_id, uint32_t pid, uint32_t site_id,
                                      int64_t batch, int64_t start_ns, int64_t end_ns, int64_t a, int64_t b)
{
  PythonPending p;
  struct timespec rt;
  int64_t offset;
  int ok = accepting ();

  if (ok != 0)
    return ok;
  if (kind < PFPROF_WORKER_CLOCK || kind > PFPROF_WORKER_PIN || worker_id > UINT16_MAX || start_ns <= 0
      || end_ns < start_ns)
    return -1;
  /* A long run's rows come all at once at exit: the hook waits for the
   * writer to drain the queue rather than lose them. */
  if (pfprof_collector_queue_full (&pending, PENDING_MAX))
    return 1;
  offset = pfprof_collector_cupti_timestamp ();
  clock_gettime (CLOCK_REALTIME, &rt);
  offset -= (int64_t) rt.tv_sec * 1000000000 + rt.tv_nsec;
  if (kind == PFPROF_WORKER_BATCH || kind == PFPROF_WORKER_FAILED)
    {
      a = a > 0 ? a + offset : 0;
      b = b > 0 ? b + offset : 0;
    }
  else if (kind == PFPROF_WORKER_GOT)
    a = a > 0 ? a + offset : 0;
  memset (&p, 0, sizeof p);
  p.is_site = 2;
  p.event.start_ns = start_ns + offset;
  p.event.end_ns = end_ns + offset;
  p.event.batch = batch;
  p.event.value_a = a;
  p.event.value_b = b;
  p.event.pid = pid;
  p.event.site_id = site_id;
  p.event.worker_id = (uint16_t) worker_id;
  p.event.kind = (uint8_t) kind;
  return enqueue (&p);
}

void
pfprof_collector_python_write (PfprofTraceWriter *w)
{
  PfprofCollectorQueueBatch batch;
  PythonPending *p;

  pfprof_collector_queue_take (&pending, &batch);
  while ((p = pfprof_collector_queue_next (&batch)) != NULL)
    {
      int status;

      if (p->is_site == 2)
        status = pfprof_trace_writer_append (w, PFPROF_TABLE_WORKER_EVENTS, &p->event);
      else if (p->is_site)
        {
          p->site.api_id = pfprof_trace_writer_intern (w, p->strings[0]);
          p->site.file_id = pfprof_trace_writer_intern (w, p->strings[1]);
          p->site.function_id = pfprof_trace_writer_intern (w, p->strings[2]);
          p->site.caller_file_id = pfprof_trace_writer_intern (w, p->strings[3]);
          p->site.caller_function_id = pfprof_trace_writer_intern (w, p->strings[4]);
          status = pfprof_trace_writer_append (w, PFPROF_TABLE_PYTHON_SITES, &p->site);
        }
      else
        {
          status = pfprof_trace_writer_append (w, PFPROF_TABLE_PYTHON_CALLS, &p->call);
          pfprof_collector_writer_note_thread (w, p->call.tid);
        }
      if (status == PFPROF_WRITER_OK)
        atomic_fetch_add (&pfprof_collector.records_written, 1);
      free_strings (p);
    }
  pfprof_collector_queue_release (&pending, &batch);
}

int
pfprof_collector_python_pending (void)
{
  return pfprof_collector_queue_pending (&pending);
}

uint64_t
pfprof_collector_python_dropped (void)
{
  return pfprof_collector_queue_dropped (&pending);
}
