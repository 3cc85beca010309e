/* SPDX-License-Identifier: MIT */
/* pfprof-collector-writer.c: the writer thread, sole owner of the trace.
 *
 * Every PFPROF_COLLECTOR_FLUSH_MS it asks CUPTI for completed buffers,
 * converts what was queued (CUPTI buffers, NVTX ranges, API records and
 * the Python hook's call sites) and commits one
 * transaction, so the file on disk is never more than about a second
 * behind. At exit or on a fatal signal it force-flushes, commits, writes
 * the closing metadata and finishes the file.
 *
 * It runs with every signal blocked, so a process-directed SIGTERM is
 * handled by a program thread, which then waits for this one.
 *
 * It runs below the program's threads (lower_priority): on a machine with
 * few cores left for the training process, a round of conversion must not
 * take a core from the thread that launches the GPU's work.
 */
#include "pfprof-collector-private.h"
#include "pfprof-config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <sys/resource.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct _Buffer Buffer;
struct _Buffer
{
  Buffer *next;
  uint8_t *data;
  size_t valid;
};

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static Buffer *queue_head, *queue_tail;

static PfprofTraceWriter *writer;  /* writer thread only, once started */
static pthread_t thread;
static sem_t wake;
static int done_pipe[2] = { -1, -1 };
static _Atomic int thread_running;
static _Atomic int stop_requested;
static _Atomic int finished;
static _Atomic int ended_by_signal; /* no forced CUPTI flush then */
static _Atomic int flush_requested; /* a capture range ended */
static int64_t start_monotonic;

/* tids already in the threads table. */
static uint32_t known_tids[4096];
static unsigned n_known_tids;

static void
clock_triple (PfprofTraceWriter *w, const char *when)
{
  struct timespec rt, mono;
  char key[64];
  int64_t cupti = pfprof_collector_cupti_timestamp ();

  clock_gettime (CLOCK_REALTIME, &rt);
  clock_gettime (CLOCK_MONOTONIC, &mono);
  snprintf (key, sizeof key, "clock_%s_cupti_ns", when);
  pfprof_trace_writer_set_meta_int (w, key, cupti);
  snprintf (key, sizeof key, "clock_%s_realtime_ns", when);
  pfprof_trace_writer_set_meta_int (w, key, (int64_t) rt.tv_sec * 1000000000 + rt.tv_nsec);
  snprintf (key, sizeof key, "clock_%s_monotonic_ns", when);
  pfprof_trace_writer_set_meta_int (w, key, (int64_t) mono.tv_sec * 1000000000 + mono.tv_nsec);
}

/* /proc/self/cmdline with arguments separated by spaces; arguments with
 * spaces or quotes are single-quoted so the line can be pasted back. */
static void
command_line (char *out, size_t len)
{
  char buf[8192];
  const char *redact = getenv ("PFPROF_REDACT_ARGS");
  ssize_t n = 0;
  size_t pos = 0;
  int fd = open ("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

  out[0] = '\0';
  if (fd >= 0)
    {
      n = read (fd, buf, sizeof buf - 1);
      close (fd);
    }
  if (n <= 0)
    return;
  buf[n] = '\0';
  for (ssize_t i = 0; i < n && pos + 4 < len;)
    {
      const char *arg = buf + i;
      size_t alen = strlen (arg);
      int quote = alen == 0 || strpbrk (arg, " \t'\"\\$") != NULL;

      if (pos)
        out[pos++] = ' ';
      if (quote)
        out[pos++] = '\'';
      for (const char *c = arg; *c && pos + 6 < len; c++)
        {
          if (*c == '\'')
            {
              memcpy (out + pos, "'\\''", 4);
              pos += 4;
            }
          else
            out[pos++] = *c;
        }
      if (quote)
        out[pos++] = '\'';
      i += (ssize_t) alen + 1;
      if (redact && strcmp (redact, "1") == 0)
        {
          snprintf (out + pos, len - pos, " [arguments redacted]");
          return;
        }
    }
  out[pos < len ? pos : len - 1] = '\0';
}

static void
env_meta (PfprofTraceWriter *w, const char *key, const char *value)
{
  if (value != NULL && *value != '\0')
    pfprof_trace_writer_set_meta (w, key, value);
}

static int
write_start_meta (PfprofTraceWriter *w)
{
  char buf[8192];

  pfprof_trace_writer_set_meta (w, "pfprof_version", PFPROF_VERSION);
  if (gethostname (buf, 256) == 0)
    {
      buf[255] = '\0';
      pfprof_trace_writer_set_meta (w, "host", buf);
    }
  pfprof_trace_writer_set_meta_int (w, "pid", getpid ());
  command_line (buf, sizeof buf);
  pfprof_trace_writer_set_meta (w, "command_line", buf);
  env_meta (w, "rank", pfprof_collector_rank ());
  env_meta (w, "local_rank", pfprof_collector_local_rank ());
  env_meta (w, "world_size", pfprof_collector_world_size ());
  env_meta (w, "launcher_job_id", pfprof_collector_job_id (buf, sizeof buf));
  env_meta (w, "cuda_visible_devices", getenv ("CUDA_VISIBLE_DEVICES"));
  if (pfprof_collector.delay_s > 0)
    {
      snprintf (buf, sizeof buf, "%g", pfprof_collector.delay_s);
      pfprof_trace_writer_set_meta (w, "record_delay_s", buf);
    }
  if (pfprof_collector.duration_s > 0)
    {
      snprintf (buf, sizeof buf, "%g", pfprof_collector.duration_s);
      pfprof_trace_writer_set_meta (w, "record_duration_s", buf);
    }
  if (pfprof_collector.sample_every_s > 0)
    {
      snprintf (buf, sizeof buf, "%g/%g", pfprof_collector.sample_on_s, pfprof_collector.sample_every_s);
      pfprof_trace_writer_set_meta (w, "record_sample", buf);
    }
  if (pfprof_collector.capture)
    pfprof_trace_writer_set_meta (w, "capture_range", "cuda-profiler-api");
  pfprof_collector_cupti_write_meta (w);
  clock_triple (w, "start");
  return pfprof_trace_writer_commit (w);
}

static void
write_end_meta (PfprofTraceWriter *w)
{
  clock_triple (w, "end");
  pfprof_collector_cupti_write_end_meta (w);
  pfprof_trace_writer_set_meta_int (w, "dropped_records", (int64_t) pfprof_collector_cupti_dropped ());
  pfprof_trace_writer_set_meta_int (w, "records_invalid", (int64_t) atomic_load (&pfprof_collector.records_invalid));
  pfprof_trace_writer_set_meta_int (w, "nvtx_dropped",
                                    (int64_t) pfprof_collector_queue_dropped (&pfprof_collector_nvtx_queue));
  pfprof_trace_writer_set_meta_int (w, "api_callback_dropped",
                                    (int64_t) pfprof_collector_queue_dropped (&pfprof_collector_api_queue));
  pfprof_trace_writer_set_meta_int (w, "python_sites_dropped", (int64_t) pfprof_collector_python_dropped ());
  pfprof_trace_writer_set_meta_int (w, "records_written", (int64_t) atomic_load (&pfprof_collector.records_written));
  pfprof_trace_writer_set_meta (w, "ended_by", atomic_load (&ended_by_signal) ? "signal" : "exit");
  if (pfprof_collector.capture)
    pfprof_trace_writer_set_meta_int (w, "capture_ranges", (int64_t) pfprof_collector_capture_ranges ());
}

void
pfprof_collector_writer_note_thread (PfprofTraceWriter *w, uint32_t tid)
{
  PfprofThreadRecord r;
  char path[64], name[64] = "";
  ssize_t n = 0;
  int fd;

  for (unsigned i = 0; i < n_known_tids; i++)
    if (known_tids[i] == tid)
      return;
  if (n_known_tids == sizeof known_tids / sizeof known_tids[0])
    return;
  known_tids[n_known_tids++] = tid;
  snprintf (path, sizeof path, "/proc/self/task/%u/comm", tid);
  if ((fd = open (path, O_RDONLY | O_CLOEXEC)) >= 0)
    {
      n = read (fd, name, sizeof name - 1);
      close (fd);
    }
  if (n < 0)
    n = 0;
  name[n] = '\0';
  if (n > 0 && name[n - 1] == '\n')
    name[n - 1] = '\0';
  r.tid = tid;
  r.name_id = pfprof_trace_writer_intern (w, name[0] ? name : "?");
  if (pfprof_trace_writer_append (w, PFPROF_TABLE_THREADS, &r) == PFPROF_WRITER_OK)
    atomic_fetch_add (&pfprof_collector.records_written, 1);
}

void
pfprof_collector_writer_push_buffer (uint8_t *data, size_t valid)
{
  Buffer *b;

  if (atomic_load (&finished) || atomic_load (&pfprof_collector.state) == PFPROF_COLLECTOR_STOPPED
      || (b = malloc (sizeof *b)) == NULL)
    {
      atomic_fetch_add (&pfprof_collector.buffers_lost, 1);
      pfprof_collector_cupti_buffer_free (data);
      return;
    }
  b->next = NULL;
  b->data = data;
  b->valid = valid;
  pthread_mutex_lock (&queue_lock);
  if (queue_tail)
    queue_tail->next = b;
  else
    queue_head = b;
  queue_tail = b;
  pthread_mutex_unlock (&queue_lock);
}

void
pfprof_collector_writer_wake (void)
{
  if (atomic_load (&thread_running))
    sem_post (&wake);
}

void
pfprof_collector_writer_request_flush (void)
{
  atomic_store (&flush_requested, 1);
  pfprof_collector_writer_wake ();
}

static void
free_queue (Buffer *b)
{
  while (b != NULL)
    {
      Buffer *next = b->next;

      pfprof_collector_cupti_buffer_free (b->data);
      free (b);
      b = next;
    }
}

/* One transaction: everything queued so far. Returns 0, or -1 when the
 * trace cannot be written (then tracing has stopped). */
static int
write_round (void)
{
  Buffer *b;
  PfprofCollectorQueueBatch a, n;
  PfprofNvtxPending **slot;
  size_t n_api, n_nvtx;
  int status;

  pthread_mutex_lock (&queue_lock);
  b = queue_head;
  queue_head = queue_tail = NULL;
  pthread_mutex_unlock (&queue_lock);
  n_nvtx = pfprof_collector_queue_take (&pfprof_collector_nvtx_queue, &n);
  n_api = pfprof_collector_queue_take (&pfprof_collector_api_queue, &a);
  if (b == NULL && n_nvtx == 0 && n_api == 0 && !pfprof_collector_python_pending ())
    return 0;

  status = pfprof_trace_writer_begin (writer);
  for (Buffer *i = b; i != NULL && status == PFPROF_WRITER_OK; i = i->next)
    pfprof_collector_cupti_convert (writer, i->data, i->valid);
  free_queue (b);
  if (status == PFPROF_WRITER_OK)
    pfprof_collector_cupti_write_api (writer, &a);
  pfprof_collector_queue_release (&pfprof_collector_api_queue, &a);
  while ((slot = pfprof_collector_queue_next (&n)) != NULL)
    {
      PfprofNvtxPending *p = *slot;

      if (status == PFPROF_WRITER_OK)
        {
          p->record.domain_id = p->domain ? pfprof_trace_writer_intern (writer, p->domain) : PFPROF_NONE;
          p->record.name_id = pfprof_trace_writer_intern (writer, p->name);
          if (p->record.start_ns <= 0 || p->record.end_ns < p->record.start_ns)
            atomic_fetch_add (&pfprof_collector.records_invalid, 1);
          else if (pfprof_trace_writer_append (writer, PFPROF_TABLE_NVTX, &p->record) == PFPROF_WRITER_OK)
            atomic_fetch_add (&pfprof_collector.records_written, 1);
          pfprof_collector_writer_note_thread (writer, p->record.tid);
        }
      free (p);
    }
  pfprof_collector_queue_release (&pfprof_collector_nvtx_queue, &n);
  if (status == PFPROF_WRITER_OK)
    pfprof_collector_python_write (writer);
  if (status == PFPROF_WRITER_OK)
    status = pfprof_trace_writer_commit (writer);
  if (status != PFPROF_WRITER_OK)
    {
      pfprof_collector_fail ("cannot write %s (%s); tracing stopped, the program goes on",
                             pfprof_collector.output, pfprof_trace_writer_errmsg (writer));
      return -1;
    }
  return 0;
}

/* The --sample window open since window_start_ns (CUPTI clock), if any:
 * each closed window becomes a row of the windows table, which tells the
 * analysis the pauses between windows from idle time. */
static int window_open;
static int64_t window_start_ns;

static void
close_window (void)
{
  PfprofWindowRecord r;

  if (!window_open)
    return;
  window_open = 0;
  r.start_ns = window_start_ns;
  r.end_ns = pfprof_collector_cupti_timestamp ();
  if (r.end_ns > r.start_ns && pfprof_trace_writer_append (writer, PFPROF_TABLE_WINDOWS, &r) == PFPROF_WRITER_OK)
    atomic_fetch_add (&pfprof_collector.records_written, 1);
}

/* Whether the --delay/--duration/--sample window is open at @elapsed
 * seconds since start; *@next_s: when that next changes (or -1). */
static int
window_wanted (double elapsed, double *next_s)
{
  double delay = pfprof_collector.delay_s, end = HUGE_VAL, on = pfprof_collector.sample_on_s;
  double every = pfprof_collector.sample_every_s, phase, cycle;

  if (pfprof_collector.duration_s > 0)
    end = delay + pfprof_collector.duration_s;
  *next_s = -1;
  if (elapsed < delay)
    {
      *next_s = delay;
      return 0;
    }
  if (elapsed >= end)
    return 0;
  if (every <= 0)
    {
      if (end < HUGE_VAL)
        *next_s = end;
      return 1;
    }
  cycle = floor ((elapsed - delay) / every);
  phase = elapsed - delay - cycle * every;
  *next_s = delay + cycle * every + (phase < on ? on : every);
  if (end < *next_s)
    *next_s = end;
  return phase < on;
}

/* Switches recording to what the window wants now; returns the monotonic
 * time of the next switch, or -1. */
static int64_t
update_window (void)
{
  int64_t now = pfprof_collector_now_monotonic ();
  double next_s;
  int want = window_wanted ((double) (now - start_monotonic) / 1e9, &next_s);

  if (want != atomic_load (&pfprof_collector.tracing))
    {
      if (!want)
        close_window ();
      atomic_store (&pfprof_collector.tracing, want);
      pfprof_collector_cupti_enable (want);
      if (!want && pfprof_collector.sample_every_s > 0)
        atomic_store (&flush_requested, 1);
    }
  if (want && !window_open && pfprof_collector.sample_every_s > 0)
    {
      window_open = 1;
      window_start_ns = pfprof_collector_cupti_timestamp ();
    }
  return next_s < 0 ? -1 : start_monotonic + (int64_t) (next_s * 1e9);
}

static void
signal_done (void)
{
  char c = 1;

  atomic_store (&finished, 1);
  if (done_pipe[1] >= 0 && write (done_pipe[1], &c, 1) < 0)
    {
      /* Waiters time out instead. */
    }
}

/* This thread alone (Linux keeps nice and policy per thread): nice +10
 * (PFPROF_WRITER_NICE, hidden, for benchmarks: 0 leaves it as the
 * program's threads) and SCHED_BATCH, so that its wake-ups do not preempt
 * a training thread. It still gets about a tenth of a busy core, which
 * keeps up with hundreds of thousands of records a second, and all of an
 * idle one; not SCHED_IDLE, whose share is so small that a writer holding
 * CUPTI's flush lock could hold up the program. Lowering is always
 * allowed; failures leave the thread as it was. Called after the first
 * flush, so that threads CUPTI starts from its flush do not inherit it. */
static void
lower_priority (void)
{
  const char *env = getenv ("PFPROF_WRITER_NICE");
  struct sched_param param = { 0 };
  long nice = 10;
  pid_t tid = gettid ();
  int now;

  if (env != NULL && *env != '\0')
    {
      char *end = NULL;

      nice = strtol (env, &end, 10);
      if (end == env || *end != '\0' || nice < 0 || nice > 19)
        nice = 10;
    }
  if (nice == 0)
    return;
  sched_setscheduler (0, SCHED_BATCH, &param);
  errno = 0;
  now = getpriority (PRIO_PROCESS, (id_t) tid);
  if (errno == 0 && now + nice <= 19)
    setpriority (PRIO_PROCESS, (id_t) tid, (int) (now + nice));
  else if (errno == 0 && now < 19)
    setpriority (PRIO_PROCESS, (id_t) tid, 19);
}

static void *
writer_thread (void *data)
{
  int lowered = 0;
  int64_t last_flush = pfprof_collector_now_monotonic ();
  int ok = 1;

  int windowed = pfprof_collector.delay_s > 0 || pfprof_collector.duration_s > 0
                 || pfprof_collector.sample_every_s > 0;
  int64_t next_switch = windowed ? update_window () : -1;

  for (;;)
    {
      struct timespec deadline;
      int64_t wait_ns = (int64_t) PFPROF_COLLECTOR_FLUSH_MS * 1000000;
      int stop;

      /* Waking for a window's switch keeps a --sample window within a
       * millisecond or so of its length. */
      if (next_switch >= 0)
        {
          int64_t until = next_switch - pfprof_collector_now_monotonic ();

          if (until < wait_ns)
            wait_ns = until > 0 ? until : 0;
        }
      clock_gettime (CLOCK_REALTIME, &deadline);
      deadline.tv_sec += wait_ns / 1000000000L;
      deadline.tv_nsec += (long) (wait_ns % 1000000000L);
      deadline.tv_sec += deadline.tv_nsec / 1000000000L;
      deadline.tv_nsec %= 1000000000L;
      while (sem_timedwait (&wake, &deadline) != 0 && errno == EINTR)
        ;
      while (sem_trywait (&wake) == 0)
        ;
      stop = atomic_load (&stop_requested);
      if (!stop && windowed)
        next_switch = update_window ();
      if (atomic_exchange (&flush_requested, 0) || stop
          || pfprof_collector_now_monotonic () - last_flush >= (int64_t) PFPROF_COLLECTOR_FLUSH_MS * 1000000)
        {
          /* Buffers come back through buffer_completed, on this thread.
           * After a fatal signal the interrupted thread may hold CUPTI's
           * or the driver's locks: take only what is already complete. */
          pfprof_collector_cupti_flush (stop && !atomic_load (&ended_by_signal));
          last_flush = pfprof_collector_now_monotonic ();
          if (!lowered)
            {
              lower_priority ();
              lowered = 1;
            }
        }
      if (write_round () != 0)
        {
          ok = 0;
          break;
        }
      if (stop)
        break;
    }

  if (ok)
    {
      int status;
      uint64_t records;

      close_window ();
      records = pfprof_trace_writer_n_records (writer);
      write_end_meta (writer);
      status = pfprof_trace_writer_finish (writer);
      writer = NULL;
      atomic_store (&pfprof_collector.state, PFPROF_COLLECTOR_STOPPED);
      if (status != PFPROF_WRITER_OK)
        pfprof_collector_fail ("cannot finish %s (%s)", pfprof_collector.output,
                               pfprof_trace_writer_status_string (status));
      else
        {
          const char *keep = getenv ("PFPROF_KEEP_EMPTY");

          /* A process that initialized CUDA but ran nothing on the GPU
           * (torchrun's agent, a tool that only queries devices) would
           * leave an empty trace beside the ranks' ones. */
          if (pfprof_collector_cupti_gpu_records () == 0 && pfprof_collector.delay_s <= 0 && !pfprof_collector.capture
              && !(keep && strcmp (keep, "1") == 0) && unlink (pfprof_collector.output) == 0)
            pfprof_collector_status ("state", "empty");
          else
            {
              pfprof_collector_status ("records", "%llu", (unsigned long long) records);
              if (pfprof_collector.capture)
                pfprof_collector_status ("capture_ranges", "%u", pfprof_collector_capture_ranges ());
              pfprof_collector_status ("dropped", "%llu", (unsigned long long) pfprof_collector_cupti_dropped ());
              pfprof_collector_status ("invalid", "%llu",
                                       (unsigned long long) atomic_load (&pfprof_collector.records_invalid));
              pfprof_collector_status ("state", "complete");
            }
        }
    }
  else
    {
      /* What was committed stays readable. */
      pfprof_trace_writer_close (writer);
      writer = NULL;
      pfprof_collector_cupti_stop ();
    }
  pthread_mutex_lock (&queue_lock);
  free_queue (queue_head);
  queue_head = queue_tail = NULL;
  pthread_mutex_unlock (&queue_lock);
  signal_done ();
  return NULL;
}

/* "dir/name.pfprof" -> "dir/name.TAG.pfprof" */
static int
tagged_variant (const char *path, long tag, char *out, size_t len)
{
  const char *slash = strrchr (path, '/');
  const char *dot = strrchr (path, '.');
  int n;

  if (dot == NULL || (slash != NULL && dot < slash) || dot == (slash ? slash + 1 : path))
    n = snprintf (out, len, "%s.%ld", path, tag);
  else
    n = snprintf (out, len, "%.*s.%ld%s", (int) (dot - path), path, tag, dot);
  return n > 0 && (size_t) n < len ? 0 : -1;
}

int
pfprof_collector_writer_start (void)
{
  const char *tmpl = getenv ("PFPROF_OUTPUT");
  const char *force = getenv ("PFPROF_FORCE");
  unsigned flags = 0;
  sigset_t all, old;
  int status;

  if (force && strcmp (force, "1") == 0 && tmpl && strchr (tmpl, '%'))
    flags |= PFPROF_WRITER_OVERWRITE;
  status = pfprof_trace_writer_open (pfprof_collector.output, flags, &writer);
  if (status == PFPROF_WRITER_ERR_EXISTS)
    {
      /* Another process of the same command, an earlier run, or this
       * very pid before an exec() has the name: never clobber. Add our
       * pid when the name has none, else a sequence number. */
      char alt[sizeof pfprof_collector.output];
      char base[sizeof alt];
      int has_pid = tmpl != NULL && strstr (tmpl, "%p") != NULL;

      if (has_pid)
        memcpy (base, pfprof_collector.output, sizeof base);
      else if (tagged_variant (pfprof_collector.output, (long) getpid (), base, sizeof base) != 0)
        base[0] = '\0';
      for (long seq = has_pid ? 2 : 1; seq <= 99 && base[0] && status == PFPROF_WRITER_ERR_EXISTS; seq++)
        {
          /* name.PID.pfprof first, then name[.PID].2.pfprof, ... */
          if (seq == 1)
            memcpy (alt, base, sizeof alt);
          else if (tagged_variant (base, seq, alt, sizeof alt) != 0)
            break;
          status = pfprof_trace_writer_open (alt, 0, &writer);
          if (status == PFPROF_WRITER_OK)
            memcpy (pfprof_collector.output, alt, sizeof alt);
        }
    }
  if (status != PFPROF_WRITER_OK)
    {
      pfprof_collector_fail ("cannot create trace %s (%s); not tracing process %ld", pfprof_collector.output,
                             pfprof_trace_writer_status_string (status), (long) getpid ());
      return -1;
    }
  if (write_start_meta (writer) != PFPROF_WRITER_OK)
    {
      pfprof_collector_fail ("cannot write trace %s (%s); not tracing", pfprof_collector.output,
                             pfprof_trace_writer_errmsg (writer));
      pfprof_trace_writer_close (writer);
      writer = NULL;
      unlink (pfprof_collector.output);
      return -1;
    }
  start_monotonic = pfprof_collector_now_monotonic ();
  if (sem_init (&wake, 0, 0) != 0 || pipe2 (done_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
    {
      pfprof_collector_fail ("cannot start the writer thread; not tracing");
      pfprof_trace_writer_close (writer);
      writer = NULL;
      return -1;
    }
  sigfillset (&all);
  pthread_sigmask (SIG_SETMASK, &all, &old);
  status = pthread_create (&thread, NULL, writer_thread, NULL);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  if (status != 0)
    {
      pfprof_collector_fail ("cannot start the writer thread; not tracing");
      pfprof_trace_writer_close (writer);
      writer = NULL;
      return -1;
    }
  atomic_store (&thread_running, 1);
  return 0;
}

/* Waits until the writer says it is done, at most @timeout_ms. Only
 * async-signal-safe calls. Returns 1 when done. */
static int
wait_done (int timeout_ms)
{
  struct pollfd pfd = { .fd = done_pipe[0], .events = POLLIN };

  while (!atomic_load (&finished))
    {
      int r = poll (&pfd, 1, timeout_ms);

      if (r == 0)
        return 0;
      if (r < 0 && errno != EINTR)
        return 0;
      if (r > 0)
        break;
    }
  return 1;
}

void
pfprof_collector_writer_stop (int timeout_ms)
{
  if (!atomic_load (&thread_running))
    return;
  atomic_store (&stop_requested, 1);
  sem_post (&wake);
  if (wait_done (timeout_ms))
    {
      if (atomic_exchange (&thread_running, 0))
        pthread_join (thread, NULL);
    }
  else
    pfprof_collector_warn ("the trace writer did not finish in %d ms; %s may be incomplete", timeout_ms,
                           pfprof_collector.output);
}

int
pfprof_collector_writer_stop_from_signal (int timeout_ms)
{
  if (!atomic_load (&thread_running))
    return 1;
  atomic_store (&ended_by_signal, 1);
  atomic_store (&stop_requested, 1);
  sem_post (&wake);
  return wait_done (timeout_ms);
}
