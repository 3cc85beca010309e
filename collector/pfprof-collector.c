/* SPDX-License-Identifier: MIT */
/* pfprof-collector.c: the injection entry point, configuration, exit,
 * signals and fork.
 *
 * The CUDA driver calls InitializeInjection() at cuInit in every process
 * that initializes CUDA. Configuration comes from the environment, set by
 * `pfprof record` (see its --help for the list):
 *
 *   PFPROF_OUTPUT      trace path template; %p pid, %h host, %r rank (else p<pid>), %%
 *   PFPROF_FORCE=1     replace an existing file (templates with % only)
 *   PFPROF_STATUS_DIR  folder where each process writes PID.status
 *   PFPROF_DELAY       seconds after CUDA starts before recording
 *   PFPROF_DURATION    seconds to record (0 or unset: until exit)
 *   PFPROF_SAMPLE=ON/EVERY  record ON seconds of every EVERY (windows)
 *   PFPROF_CAPTURE=cuda-profiler-api  record from cudaProfilerStart to Stop
 *   PFPROF_CAPTURE_REPEAT=1  hidden, for benchmarks: every such range
 *   PFPROF_QUIET=1     no stderr lines
 *   PFPROF_REDACT_ARGS=1  store only the program name as command_line
 *   PFPROF_ALL_API=1   keep the API records of getters (see cupti.c)
 *   PFPROF_TRACE_LAUNCHES=1  RUNTIME and DRIVER activity: every API call
 *   PFPROF_SKIP_LAUNCHES=1   ... but not the launches
 *   PFPROF_KINDS       hidden, for benchmarks: the kinds to record instead
 *                      of the default (names in cupti.c's timed_kinds)
 */
#include "pfprof-collector-private.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

PfprofCollector pfprof_collector;

static pthread_once_t configure_once = PTHREAD_ONCE_INIT;
static _Atomic int failed_said; /* one line per process */

void
pfprof_collector_warn (const char *format, ...)
{
  char msg[1024];
  va_list ap;
  int n;

  if (pfprof_collector.quiet)
    return;
  va_start (ap, format);
  n = vsnprintf (msg, sizeof msg, format, ap);
  va_end (ap);
  if (n < 0)
    return;
  for (char *p = msg; *p; p++)
    if (*p == '\n' || *p == '\r')
      *p = ' ';
  /* One write: lines from several processes do not interleave. */
  {
    char line[1100];
    int len = snprintf (line, sizeof line, "pfprof: %s\n", msg);

    if (len > 0 && write (STDERR_FILENO, line, (size_t) (len < (int) sizeof line ? len : (int) sizeof line - 1)) < 0)
      return;
  }
}

void
pfprof_collector_status (const char *key, const char *format, ...)
{
  char line[4200];
  va_list ap;
  int n, fd;

  if (pfprof_collector.status_path[0] == '\0' || atomic_load (&pfprof_collector.child))
    return;
  n = snprintf (line, sizeof line, "%s=", key);
  va_start (ap, format);
  n += vsnprintf (line + n, sizeof line - (size_t) n - 1, format, ap);
  va_end (ap);
  if (n >= (int) sizeof line - 1)
    n = (int) sizeof line - 2;
  for (int i = 0; i < n; i++)
    if (line[i] == '\n')
      line[i] = ' ';
  line[n++] = '\n';
  fd = open (pfprof_collector.status_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    return;
  if (write (fd, line, (size_t) n) < 0)
    {
      /* Nothing to do: the launcher then says the process left no status. */
    }
  close (fd);
}

void
pfprof_collector_fail (const char *format, ...)
{
  char msg[1024];
  va_list ap;

  va_start (ap, format);
  vsnprintf (msg, sizeof msg, format, ap);
  va_end (ap);
  atomic_store (&pfprof_collector.state, PFPROF_COLLECTOR_STOPPED);
  atomic_store (&pfprof_collector.tracing, 0);
  if (atomic_exchange (&failed_said, 1))
    return;
  pfprof_collector_warn ("%s", msg);
  pfprof_collector_status ("error", "%s", msg);
  pfprof_collector_status ("state", "failed");
}

int64_t
pfprof_collector_now_monotonic (void)
{
  struct timespec t;

  clock_gettime (CLOCK_MONOTONIC, &t);
  return (int64_t) t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The first of @a, @b, @c, @d set and not empty, else NULL. */
static const char *
first_set (const char *a, const char *b, const char *c, const char *d)
{
  const char *v[] = { a, b, c, d };

  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    if (v[i] != NULL && *v[i] != '\0')
      return v[i];
  return NULL;
}

/* Launchers name the rank differently: torchrun (RANK), Slurm's srun,
 * Open MPI, MPICH/PMIx. Each name is spelled out here so that
 * tests/reliability/test-env-allowlist.py sees every variable read. */
const char *
pfprof_collector_rank (void)
{
  return first_set (getenv ("RANK"), getenv ("SLURM_PROCID"), getenv ("OMPI_COMM_WORLD_RANK"),
                    getenv ("PMI_RANK"));
}

const char *
pfprof_collector_local_rank (void)
{
  return first_set (getenv ("LOCAL_RANK"), getenv ("SLURM_LOCALID"),
                    getenv ("OMPI_COMM_WORLD_LOCAL_RANK"), getenv ("MPI_LOCALRANKID"));
}

const char *
pfprof_collector_world_size (void)
{
  return first_set (getenv ("WORLD_SIZE"), getenv ("SLURM_NTASKS"), getenv ("OMPI_COMM_WORLD_SIZE"),
                    getenv ("PMI_SIZE"));
}

const char *
pfprof_collector_job_id (char *buf, size_t len)
{
  const char *job = getenv ("SLURM_JOB_ID"), *step = getenv ("SLURM_STEP_ID");
  const char *elastic = getenv ("TORCHELASTIC_RUN_ID");

  if (job != NULL && *job != '\0')
    snprintf (buf, len, "slurm:%s.%s", job, step != NULL && *step != '\0' ? step : "-");
  /* torchrun without --rdzv-id (nor --standalone) names every run "none". */
  else if (elastic != NULL && *elastic != '\0' && strcmp (elastic, "none") != 0)
    snprintf (buf, len, "torchrun:%s", elastic);
  else
    return NULL;
  return buf;
}

int
pfprof_collector_expand_path (const char *tmpl, char *out, size_t len)
{
  size_t pos = 0;

  for (const char *s = tmpl; *s; s++)
    {
      char buf[256];
      const char *piece = buf;

      if (*s != '%' || s[1] == '\0')
        {
          buf[0] = *s;
          buf[1] = '\0';
        }
      else
        {
          s++;
          switch (*s)
            {
            case 'p': snprintf (buf, sizeof buf, "%ld", (long) getpid ()); break;
            case 'h':
              if (gethostname (buf, sizeof buf) != 0)
                snprintf (buf, sizeof buf, "host");
              buf[sizeof buf - 1] = '\0';
              /* A host name is one path component. */
              for (char *c = buf; *c; c++)
                if (*c == '/')
                  *c = '_';
              break;
            case 'r':
              {
                const char *rank = pfprof_collector_rank ();

                /* A process without a rank (torchrun's agent, a plain
                 * run) must not take rank 0's name: p<pid>. */
                if (rank != NULL && !strchr (rank, '/'))
                  snprintf (buf, sizeof buf, "%s", rank);
                else
                  snprintf (buf, sizeof buf, "p%ld", (long) getpid ());
                break;
              }
            case '%': snprintf (buf, sizeof buf, "%%"); break;
            default: snprintf (buf, sizeof buf, "%%%c", *s); break;
            }
        }
      for (; *piece; piece++)
        {
          if (pos + 1 >= len)
            return -1;
          out[pos++] = *piece;
        }
    }
  if (pos >= len)
    return -1;
  out[pos] = '\0';
  return 0;
}

static double
env_seconds (const char *name)
{
  const char *v = getenv (name);
  char *end = NULL;
  double d;

  if (v == NULL || *v == '\0')
    return 0;
  d = strtod (v, &end);
  if (end == v || *end != '\0' || !(d >= 0) || d > 1e9)
    {
      pfprof_collector_warn ("ignoring %s=%s (not a number of seconds)", name, v);
      return 0;
    }
  return d;
}

/* PFPROF_SAMPLE=ON/EVERY (seconds, 0 < ON < EVERY): record ON seconds of
 * every EVERY. Anything else is ignored with a warning. */
static void
env_sample (void)
{
  const char *v = getenv ("PFPROF_SAMPLE");
  char *end = NULL, *end2 = NULL;
  double on, every = 0;

  if (v == NULL || *v == '\0')
    return;
  on = strtod (v, &end);
  if (end != v && *end == '/')
    every = strtod (end + 1, &end2);
  if (end == v || *end != '/' || end2 == end + 1 || *end2 != '\0' || !(on > 0) || !(every > on)
      || every > 1e9)
    {
      pfprof_collector_warn ("ignoring PFPROF_SAMPLE=%.64s (not ON/EVERY seconds with 0 < ON < EVERY)", v);
      return;
    }
  pfprof_collector.sample_on_s = on;
  pfprof_collector.sample_every_s = every;
}

/* A forked child shares its parent's trace handle and CUPTI state; it
 * must never write through them. A child forked before the parent
 * started tracing may start its own trace when it initializes CUDA. */
static void
atfork_child (void)
{
  if (atomic_load (&pfprof_collector.state) != PFPROF_COLLECTOR_IDLE)
    {
      atomic_store (&pfprof_collector.child, 1);
      atomic_store (&pfprof_collector.tracing, 0);
    }
  else
    {
      /* Pending NVTX records are the parent's. */
      pfprof_collector_nvtx_discard ();
    }
}

static void
configure (void)
{
  const char *quiet = getenv ("PFPROF_QUIET");
  const char *capture, *repeat;

  pfprof_collector.quiet = quiet != NULL && strcmp (quiet, "1") == 0;
  pfprof_collector.delay_s = env_seconds ("PFPROF_DELAY");
  pfprof_collector.duration_s = env_seconds ("PFPROF_DURATION");
  env_sample ();
  capture = getenv ("PFPROF_CAPTURE");
  if (capture != NULL && *capture != '\0')
    {
      if (strcmp (capture, "cuda-profiler-api") == 0)
        pfprof_collector.capture = 1;
      else
        pfprof_collector_warn ("ignoring PFPROF_CAPTURE=%.64s (only cuda-profiler-api is known)", capture);
    }
  repeat = getenv ("PFPROF_CAPTURE_REPEAT");
  pfprof_collector.capture_repeat = repeat != NULL && strcmp (repeat, "1") == 0;
  /* A capture range wins over --delay/--duration (the launcher refuses both). */
  if (pfprof_collector.capture)
    pfprof_collector.delay_s = pfprof_collector.duration_s = pfprof_collector.sample_every_s = 0;
  atomic_store (&pfprof_collector.tracing, pfprof_collector.delay_s <= 0 && !pfprof_collector.capture);
  pthread_atfork (NULL, NULL, atfork_child);
}

void
pfprof_collector_configure (void)
{
  pthread_once (&configure_once, configure);
}

static void
at_exit (void)
{
  if (atomic_load (&pfprof_collector.child) || atomic_load (&pfprof_collector.state) != PFPROF_COLLECTOR_RUNNING)
    return;
  pfprof_collector_writer_stop (30000);
}

/* A process that leaves through os._exit (every multiprocessing child
 * does) runs no atexit handler, so `pfprof record`'s Python hook calls
 * this just before (cli/pfprof_sitecustomize.py): the trace is finished as
 * at exit. Nothing happens in a forked child of a traced process, when
 * not tracing, or the second time. Returns 0. */
PFPROF_EXPORT int pfprof_collector_finish (void);

PFPROF_EXPORT int
pfprof_collector_finish (void)
{
  at_exit ();
  return 0;
}

/* SIGTERM (and SIGINT) with the default disposition kill the process
 * without atexit. Finish the trace from the writer thread (bounded wait,
 * nothing but async-signal-safe calls here), then die of the same signal
 * so the parent sees the same status. */
static void
on_fatal_signal (int sig)
{
  struct sigaction dfl;
  int saved = errno;

  /* torchrun sends SIGKILL 30 s after SIGTERM; finishing a large trace
   * (indexes, WAL checkpoint) can take seconds. */
  if (!atomic_load (&pfprof_collector.child) && atomic_load (&pfprof_collector.state) == PFPROF_COLLECTOR_RUNNING
      && !pfprof_collector_writer_stop_from_signal (20000) && !pfprof_collector.quiet)
    {
      static const char msg[] = "pfprof: the trace was not finished in time after the signal; "
                                "what was committed is readable\n";

      if (write (STDERR_FILENO, msg, sizeof msg - 1) < 0)
        {
          /* Nothing more can be done in a signal handler. */
        }
    }
  memset (&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset (&dfl.sa_mask);
  sigaction (sig, &dfl, NULL);
  /* Blocked while we run; delivered with the default action on return. */
  raise (sig);
  errno = saved;
}

static void
install_signal_handler (int sig)
{
  struct sigaction old, sa;

  /* Only where nobody installed one: a program's own handler (Python's
   * SIGINT -> KeyboardInterrupt) ends in a normal exit and our atexit. A
   * handler the program installs later replaces ours, as it expects. */
  if (sigaction (sig, NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
    return;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_fatal_signal;
  sigemptyset (&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction (sig, &sa, NULL);
}

PFPROF_EXPORT int InitializeInjection (void);

PFPROF_EXPORT int
InitializeInjection (void)
{
  const char *tmpl = getenv ("PFPROF_OUTPUT");
  const char *status_dir = getenv ("PFPROF_STATUS_DIR");
  int expected = PFPROF_COLLECTOR_IDLE;

  pfprof_collector_configure ();
  if (atomic_load (&pfprof_collector.child)
      || !atomic_compare_exchange_strong (&pfprof_collector.state, &expected, PFPROF_COLLECTOR_RUNNING))
    return 1;
  if (status_dir != NULL && *status_dir == '/')
    snprintf (pfprof_collector.status_path, sizeof pfprof_collector.status_path, "%s/%ld.status",
              status_dir, (long) getpid ());
  pfprof_collector_status ("pid", "%ld", (long) getpid ());
  if (tmpl == NULL || *tmpl == '\0')
    tmpl = "pfprof-%h-%p.pfprof";
  if (pfprof_collector_expand_path (tmpl, pfprof_collector.output, sizeof pfprof_collector.output) != 0)
    {
      pfprof_collector_fail ("output path too long; not tracing process %ld", (long) getpid ());
      return 1;
    }
  /* Subscribe first: if another profiler holds CUPTI, create no file. */
  if (pfprof_collector_cupti_start () != 0)
    return 1;
  if (pfprof_collector_writer_start () != 0)
    {
      pfprof_collector_cupti_stop ();
      return 1;
    }
  /* Registered after CUPTI's own set-up, so it runs before CUPTI's
   * handlers (atexit runs in reverse order). */
  atexit (at_exit);
  install_signal_handler (SIGTERM);
  install_signal_handler (SIGINT);
  pfprof_collector_status ("trace", "%s", pfprof_collector.output);
  pfprof_collector_status ("state", "tracing");
  return 1;
}
