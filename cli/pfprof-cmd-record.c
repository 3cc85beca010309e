/* SPDX-License-Identifier: MIT */
/* pfprof-cmd-record.c: `pfprof record [OPTIONS] -- PROGRAM [ARGS...]`.
 *
 * Runs PROGRAM directly (fork + execvp, no shell) with the collector
 * injected through CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH, and
 * the Python hook first on PYTHONPATH. Every process of PROGRAM that
 * initializes CUDA writes its own trace and a status file into a private
 * folder; afterwards the launcher lists what was written, and returns
 * PROGRAM's exit code (128+N if it died of signal N).
 */
#include "pfprof-config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pfprof-cli-program.h"
#include "pfprof-cli-report.h"
#include "pfprof-cli-template.h"
#include "pfprof-cli.h"
#include "pfprof-record.h"
#include "pfprof-temp-file.h"

static volatile sig_atomic_t child_pid; /* 0 until the program runs */

/* Forward SIGINT/SIGTERM sent to us (kill, torchrun, a job scheduler) to
 * the program. A terminal's Ctrl-C (si_code SI_KERNEL) already reached
 * the whole foreground process group: sending it again would make Python
 * raise KeyboardInterrupt twice; but a program that left our process
 * group (setsid, a new session) did not get it, so it gets it from us. */
static void
forward_signal (int sig, siginfo_t *info, void *context)
{
  int saved = errno;

  if (child_pid > 0
      && (info == NULL || info->si_code != SI_KERNEL || getpgid ((pid_t) child_pid) != getpgrp ()))
    kill ((pid_t) child_pid, sig);
  errno = saved;
}

static void
install_forwarding (void)
{
  struct sigaction sa;

  memset (&sa, 0, sizeof sa);
  sa.sa_sigaction = forward_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGHUP, &sa, NULL);
}

/* The collector next to this binary: build tree (build/cli/pfprof ->
 * build/collector/) or an install (bin/ -> lib/...). */
/* Why nothing can be traced on this machine, or "": the NVIDIA driver
 * makes /dev/nvidiactl and /proc/driver/nvidia (WSL2: /dev/dxg), also in a
 * container given the GPU. Checking files runs none of the driver's code. */
static const char *
no_driver_note (void)
{
  static const char *const marks[] = { "/dev/nvidiactl", "/proc/driver/nvidia", "/dev/dxg" };

  for (gsize i = 0; i < G_N_ELEMENTS (marks); i++)
    if (g_file_test (marks[i], G_FILE_TEST_EXISTS))
      return "";
  return "; and no NVIDIA driver or GPU was found on this machine (no /dev/nvidiactl)";
}

static char *
find_collector (void)
{
  static const char *const candidates[] = {
    "../collector/libpfprof-collector.so",
    "../lib/x86_64-linux-gnu/libpfprof-collector.so",
    "../lib64/libpfprof-collector.so",
    "../lib/libpfprof-collector.so",
    "../lib/pfprof/libpfprof-collector.so",
  };
  const char *env = g_getenv ("PFPROF_COLLECTOR");
  g_autofree char *exe = NULL;
  g_autofree char *dir = NULL;

  if (env != NULL && *env != '\0')
    return g_canonicalize_filename (env, NULL);
  exe = g_file_read_link ("/proc/self/exe", NULL);
  if (exe == NULL)
    return NULL;
  dir = g_path_get_dirname (exe);
  for (gsize i = 0; i < G_N_ELEMENTS (candidates); i++)
    {
      g_autofree char *path = g_build_filename (dir, candidates[i], NULL);
      char *canonical = g_canonicalize_filename (path, NULL);

      if (g_file_test (canonical, G_FILE_TEST_IS_REGULAR))
        return canonical;
      g_free (canonical);
    }
  return NULL;
}

/* -o without %-escapes names one file: refuse to replace it unless
 * --force, and never through a symlink. With escapes each process checks
 * its own name (the collector never clobbers without PFPROF_FORCE). The
 * folder must exist and take files, before the program runs for
 * nothing. Returns the exit code: PFPROF_EXIT_OK when it may be written. */
/* @dir as the collector will expand it, as far as it can be known before
 * the program runs: %h and %% always, %r when the launcher set a rank.
 * An escape that depends on the process (%p, %r without a rank) ends it
 * at the folder above the component that holds it. */
static char *
known_folder (const char *dir)
{
  GString *out = g_string_new (NULL);
  gint64 rank = pfprof_cli_template_env_rank ();

  for (const char *s = dir; *s; s++)
    {
      if (*s != '%' || s[1] == '\0')
        {
          g_string_append_c (out, *s);
          continue;
        }
      s++;
      if (*s == '%')
        g_string_append_c (out, '%');
      else if (*s == 'h')
        {
          char host[256];

          if (gethostname (host, sizeof host) != 0)
            g_strlcpy (host, "host", sizeof host);
          host[sizeof host - 1] = '\0';
          g_strdelimit (host, "/", '_');
          g_string_append (out, host);
        }
      else if (*s == 'r' && rank >= 0)
        g_string_append_printf (out, "%" G_GINT64_FORMAT, rank);
      else
        {
          const char *slash = strrchr (out->str, '/');

          g_string_truncate (out, slash == NULL ? 0 : (gsize) (slash - out->str));
          if (out->len == 0)
            g_string_append (out, slash == NULL ? "." : "/");
          break;
        }
    }
  return g_string_free (out, FALSE);
}

static int
check_output (const char *path, gboolean force)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *known = known_folder (dir);
  struct stat st;

  /* With escapes, the folder as far as it is known now: a folder that is
   * not there fails every process's trace, after the program ran. */
  if (access (known, W_OK | X_OK) != 0)
    {
      pfprof_cli_error ("cannot write traces into %s: %s", known, g_strerror (errno));
      return PFPROF_EXIT_USAGE;
    }
  if (strchr (path, '%') != NULL)
    return PFPROF_EXIT_OK;
  if (lstat (path, &st) != 0)
    return PFPROF_EXIT_OK;
  if (S_ISLNK (st.st_mode))
    {
      pfprof_cli_error ("%s is a symbolic link; refusing to write a trace through it", path);
      return PFPROF_EXIT_USAGE;
    }
  if (!force)
    {
      pfprof_cli_error ("%s exists; use --force to replace it, or choose another -o", path);
      return PFPROF_EXIT_EXISTS;
    }
  if (!S_ISREG (st.st_mode))
    {
      pfprof_cli_error ("%s exists and is not a regular file", path);
      return PFPROF_EXIT_USAGE;
    }
  return PFPROF_EXIT_OK;
}

/* --force over an existing trace at @path (no %-escapes): the old file
 * is moved to a hidden name beside it while the program runs, so that
 * the first process's trace takes the name (the collector never
 * clobbers), and comes back unless a new trace was written: a typo in
 * the command, a program that never uses CUDA or a missing collector
 * lose nothing. Returns the hidden name, NULL when there is nothing to
 * move; FALSE in *@ok when it cannot be moved. */
static char *
set_old_trace_aside (const char *path, gboolean force, gboolean *ok)
{
  struct stat st;
  char *aside = NULL;
  int fd, slot = -1;

  *ok = TRUE;
  if (!force || strchr (path, '%') != NULL || lstat (path, &st) != 0)
    return NULL;
  fd = pfprof_temp_file_beside (path, 0600, &aside, &slot);
  /* The user's data: never removed by a signal. */
  pfprof_temp_file_forget (slot);
  if (fd < 0 || (close (fd), rename (path, aside)) != 0)
    {
      pfprof_cli_error ("cannot replace %s: %s", path, g_strerror (errno));
      if (aside != NULL)
        g_unlink (aside);
      g_free (aside);
      *ok = FALSE;
      return NULL;
    }
  pfprof_temp_file_remove (path);
  return aside;
}

/* After the run: drops the old trace if a new one took its name, else
 * puts it back. */
static void
put_old_trace_back (const char *path, char *aside)
{
  struct stat st;

  if (aside == NULL)
    return;
  if (lstat (path, &st) == 0)
    g_unlink (aside);
  else if (rename (aside, path) != 0)
    pfprof_cli_error ("cannot put %s back: %s; it is at %s", path, g_strerror (errno), aside);
  g_free (aside);
}

static gboolean
parse_seconds (const char *name, const char *value, double *out)
{
  char *end = NULL;
  double d;

  if (value == NULL)
    return TRUE;
  d = g_ascii_strtod (value, &end);
  if (end == value || *end != '\0' || !(d >= 0) || d > 1e9)
    {
      pfprof_cli_error ("--%s expects a number of seconds, not '%s'", name, value);
      return FALSE;
    }
  *out = d;
  return TRUE;
}

gboolean
pfprof_cmd_record_check_sample (const char *value)
{
  char *end = NULL, *end2 = NULL;
  double on, every = 0;

  if (value == NULL)
    return TRUE;
  on = g_ascii_strtod (value, &end);
  if (end != value && *end == '/')
    every = g_ascii_strtod (end + 1, &end2);
  if (end == value || *end != '/' || end2 == end + 1 || *end2 != '\0' || !(on > 0) || !(every > on)
      || every > 1e9)
    {
      pfprof_cli_error ("--sample expects ON/EVERY, seconds with 0 < ON < EVERY (e.g. 2/10), not '%s'", value);
      return FALSE;
    }
  return TRUE;
}

/* fork + execvp. An exec failure comes back through a close-on-exec
 * pipe, so "command not found" is told apart from the program's own 127. */
static pid_t
spawn (char **command, int *exec_errno)
{
  int fds[2];
  pid_t pid;
  ssize_t n;
  int err = 0;

  *exec_errno = 0;
  if (pipe2 (fds, O_CLOEXEC) != 0)
    {
      *exec_errno = errno;
      return -1;
    }
  pid = fork ();
  if (pid < 0)
    {
      *exec_errno = errno;
      close (fds[0]);
      close (fds[1]);
      return -1;
    }
  if (pid == 0)
    {
      pfprof_cli_program_default_signals ();
      close (fds[0]);
      execvp (command[0], command);
      err = errno;
      if (write (fds[1], &err, sizeof err) < 0)
        _exit (127);
      _exit (127);
    }
  close (fds[1]);
  do
    n = read (fds[0], &err, sizeof err);
  while (n < 0 && errno == EINTR);
  close (fds[0]);
  if (n == (ssize_t) sizeof err)
    {
      *exec_errno = err;
      waitpid (pid, NULL, 0);
      return -1;
    }
  return pid;
}

const PfprofCliHelp pfprof_cmd_record_help = {
  "record",
  "Run a program with the collector injected and report",
  "-- PROGRAM [ARGS...]",
  "Runs PROGRAM with the pfprof collector injected (no change to its code) and\n"
  "writes one trace per process that initializes CUDA, then prints the\n"
  "findings (pfprof report --summary). SIGINT and SIGTERM sent to pfprof are\n"
  "passed on to PROGRAM. `pfprof PROGRAM ARGS...` does the same when PROGRAM\n"
  "is on PATH and not a pfprof command.\n"
  "\n"
  "What is recorded: kernels, copies, memsets, synchronizations, NVTX ranges,\n"
  "and the host calls the rules use (copies, memsets, synchronizations, event\n"
  "records and queries, allocations, host allocations). Other host calls,\n"
  "kernel launches included, are not intercepted, which costs less in\n"
  "programs that launch many small kernels; a kernel then shows no link to\n"
  "the call that launched it. --trace-launches also records the other host\n"
  "calls (CUPTI's RUNTIME and DRIVER activity; getters left out), and so\n"
  "those links, at a higher cost. (--skip-launches, which used to leave\n"
  "launches out, is still accepted: it is the default now.)\n"
  "\n"
  "-o PATH may contain %p (process id), %h (host name), %r (the rank: $RANK,\n"
  "$SLURM_PROCID, $OMPI_COMM_WORLD_RANK or $PMI_RANK; p<pid> in a process\n"
  "without one, such as torchrun's agent) and %%. A name that exists is never\n"
  "overwritten (unless --force): without %p, a second process that initializes\n"
  "CUDA writes NAME.PID.pfprof; with %p (a program that exec()s keeps its pid)\n"
  "NAME.2.pfprof. A process that ran nothing on the GPU leaves no trace\n"
  "(PFPROF_KEEP_EMPTY=1 keeps it). When one trace is kept, it has the name\n"
  "asked for (a NAME without escapes that nothing holds); when several are,\n"
  "the last line before the report lists them.\n"
  "\n"
  "Without an NVIDIA driver (no /dev/nvidiactl) nothing can be traced:\n"
  "pfprof says so when it cannot run the collector (exit 2, the program\n"
  "not run) or when the program ran and no process was traced (the\n"
  "program's exit code).\n"
  "\n"
  "--capture-range=cuda-profiler-api records only what runs between the\n"
  "program's cudaProfilerStart() and cudaProfilerStop() calls (in PyTorch\n"
  "torch.cuda.profiler.start() and .stop(), or the range a program already\n"
  "marks for Nsight Systems); only the first such range. Outside it the\n"
  "collector records nothing: the CUPTI activity kinds that time work are\n"
  "off, and its API callbacks return at once.\n"
  "It cannot be combined with --delay, --duration or --sample.\n"
  "\n"
  "--sample ON/EVERY records ON seconds of every EVERY (--sample 2/10: the\n"
  "first 2 s, then 10 s to 12 s, ...), from the start or after --delay, and\n"
  "has every timed activity kind off in between (its API callbacks return at\n"
  "once), so the program pays the recording's cost for ON/EVERY of its run:\n"
  "on the H200, --sample 1/4 cost host-bound training steps 0.2% to 2.5% over\n"
  "the whole run, where recording all of it costs what CUPTI itself costs\n"
  "(4% to 6%; bench/RESULTS.md). The trace holds each window's start and\n"
  "end; the analysis takes only the steps that ran whole inside a window\n"
  "(the first of each is left out: the GPU may still run work launched in\n"
  "the pause), so its figures are per recorded step, and the pauses count as\n"
  "neither idle nor busy time. Make ON several steps long.\n"
  "\n"
  "--view opens the timeline app (pfprof view) on the first trace as soon as\n"
  "the collector has committed its first events, and the window follows the\n"
  "trace as it grows (new events and findings every commit, about twice a\n"
  "second); it reads a copy and never holds the recording up, and stays open\n"
  "when PROGRAM ends.\n"
  "\n"
  "The variables below are set by pfprof record for PROGRAM; they can be set\n"
  "by hand to use the collector without the launcher.\n",
  "  N  PROGRAM's exit code (128+N if it died of signal N)\n"
  "  2  usage error, or no collector\n"
  "  3  -o PATH (without %-escapes) exists and --force was not given\n"
  "  126  PROGRAM is not executable\n"
  "  127  PROGRAM was not found\n",
  "  CUDA_INJECTION64_PATH  the collector library (the CUDA driver loads it)\n"
  "  NVTX_INJECTION64_PATH  the same library (NVTX ranges, e.g. torch.cuda.nvtx)\n"
  "  PFPROF_OUTPUT  trace path template (as -o)\n"
  "  PFPROF_FORCE=1  replace existing files (as --force)\n"
  "  PFPROF_DELAY, PFPROF_DURATION  seconds (as --delay, --duration)\n"
  "  PFPROF_SAMPLE=ON/EVERY  as --sample\n"
  "  PFPROF_CAPTURE=cuda-profiler-api  as --capture-range\n"
  "  PFPROF_QUIET=1  the collector prints nothing\n"
  "  PFPROF_REDACT_ARGS=1  store only the program name (as --redact-args)\n"
  "  PFPROF_STATUS_DIR  where each process reports what it wrote\n"
  "  PFPROF_PYTHON_HOOKS=0  the Python hook does nothing (as --no-python-hooks)\n"
  "  PFPROF_WORKER_HOOKS=0  nothing is recorded inside the DataLoader (as --no-worker-hooks)\n"
  "  PFPROF_TRACE_LAUNCHES=1  as --trace-launches\n"
  "  PFPROF_KEEP_EMPTY=1  keep the trace of a process that ran nothing on the GPU\n"
  "  PFPROF_ALL_API=1  with --trace-launches, also record getter API calls\n"
  "     (cudaGetDevice, ...), which no rule uses and which slow PyTorch down\n"
  "  PFPROF_COLLECTOR  read by pfprof record itself: the path of\n"
  "     libpfprof-collector.so (default: next to pfprof)\n",
  "  pfprof-%h-%p.pfprof  the default trace name, in the current folder\n"
  "  libpfprof-collector.so  the collector, next to pfprof or in its lib folder\n",
  "  # Record one epoch and print the findings\n"
  "  pfprof record -o run-%p.pfprof -- python train.py --epochs 1\n"
  "  # The same, shorter\n"
  "  pfprof python train.py --epochs 1\n"
  "  # Watch the timeline and the findings while it trains\n"
  "  pfprof record --view -- python train.py\n"
  "  # A long run at a fifth of the recording's cost: 2 s of every 10\n"
  "  pfprof record --sample 2/10 -- python train.py\n"
  "  # Only the steps between torch.cuda.profiler.start() and .stop()\n"
  "  pfprof record --capture-range=cuda-profiler-api -- python train.py\n"
  "  # Every rank of a torchrun job, one trace each\n"
  "  pfprof record -o rank%r.pfprof -- torchrun --nproc-per-node 2 train.py\n",
  "pfprof(1), pfprof-report(1), pfprof-view(1), nsys(1)",
};

static int run (char **command, const char *template, gboolean force, gboolean quiet, gboolean no_hooks,
                gboolean redact, gboolean no_report, gboolean skip_launches, gboolean trace_launches,
                const char *delay, const char *duration, const char *sample, const char *capture,
                gboolean view);

int
pfprof_cmd_record (int argc, char **argv)
{
  g_autofree char *output = NULL;
  g_autofree char *delay = NULL;
  g_autofree char *duration = NULL;
  g_autofree char *sample = NULL;
  g_autofree char *capture = NULL;
  gboolean force = FALSE, quiet = FALSE, no_hooks = FALSE, redact = FALSE, no_report = FALSE, help = FALSE;
  gboolean skip_launches = FALSE, trace_launches = FALSE, view = FALSE, no_worker_hooks = FALSE;
  g_return_val_if_fail (argv != NULL, PFPROF_EXIT_USAGE);

  GOptionEntry entries[] = {
    { "help", 'h', 0, G_OPTION_ARG_NONE, &help, "Show this help", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Trace path (%p %h %r expand)", "PATH" },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force, "Replace an existing trace file", NULL },
    { "delay", 0, 0, G_OPTION_ARG_STRING, &delay, "Start recording S seconds after CUDA starts", "S" },
    { "duration", 0, 0, G_OPTION_ARG_STRING, &duration, "Record for S seconds only", "S" },
    { "sample", 0, 0, G_OPTION_ARG_STRING, &sample, "Record ON seconds of every EVERY", "ON/EVERY" },
    { "capture-range", 0, 0, G_OPTION_ARG_STRING, &capture,
      "Record only from the program's cudaProfilerStart() to cudaProfilerStop()", "cuda-profiler-api" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "Print nothing but errors", NULL },
    { "no-python-hooks", 0, 0, G_OPTION_ARG_NONE, &no_hooks, "Do not install the Python hook (DataLoader NVTX ranges, call sites)",
      NULL },
    { "no-worker-hooks", 0, 0, G_OPTION_ARG_NONE, &no_worker_hooks,
      "Record nothing inside the DataLoader (its workers' batches and stages, the pin thread)", NULL },
    { "redact-args", 0, 0, G_OPTION_ARG_NONE, &redact, "Do not store PROGRAM's arguments in the trace", NULL },
    { "no-report", 0, 0, G_OPTION_ARG_NONE, &no_report, "Do not print the findings at the end", NULL },
    { "view", 0, 0, G_OPTION_ARG_NONE, &view, "Open the timeline app on the trace while it is recorded", NULL },
    { "trace-launches", 0, 0, G_OPTION_ARG_NONE, &trace_launches,
      "Also record every host API call, kernel launches included, so each kernel links to its launching "
      "call (more overhead in launch-bound programs)", NULL },
    /* The default since launches are no longer intercepted; kept so
     * existing command lines still work. */
    { "skip-launches", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &skip_launches, NULL, NULL },
    { NULL },
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *template = NULL;
  char *aside;
  gboolean aside_ok;
  char **command = NULL;
  double delay_s = 0, duration_s = 0;
  int code;

  context = pfprof_cli_help_context_new (&pfprof_cmd_record_help);
  g_option_context_add_main_entries (context, entries, NULL);
  code = pfprof_cli_program_parse (context, &help, argc, argv, "pfprof record [OPTIONS] -- PROGRAM [ARGS...]",
                                   &command);
  if (code >= 0)
    return code;
  if (!parse_seconds ("delay", delay, &delay_s) || !parse_seconds ("duration", duration, &duration_s)
      || !pfprof_cmd_record_check_sample (sample))
    return PFPROF_EXIT_USAGE;
  if (capture != NULL && strcmp (capture, "cuda-profiler-api") != 0)
    {
      pfprof_cli_error ("unknown --capture-range '%s'; the one known is cuda-profiler-api", capture);
      return PFPROF_EXIT_USAGE;
    }
  if (capture != NULL && (delay != NULL || duration != NULL || sample != NULL))
    {
      pfprof_cli_error ("--capture-range cannot be combined with --delay, --duration or --sample; choose one");
      return PFPROF_EXIT_USAGE;
    }
  if (trace_launches && skip_launches)
    {
      pfprof_cli_error ("--trace-launches and --skip-launches contradict each other; choose one");
      return PFPROF_EXIT_USAGE;
    }
  if (output != NULL && *output == '\0')
    {
      pfprof_cli_error ("-o needs a path");
      return PFPROF_EXIT_USAGE;
    }

  template = g_canonicalize_filename (output ? output : "pfprof-%h-%p.pfprof", NULL);
  if ((code = check_output (template, force)) != PFPROF_EXIT_OK)
    return code;
  aside = set_old_trace_aside (template, force, &aside_ok);
  if (!aside_ok)
    return PFPROF_EXIT_USAGE;
  if (no_worker_hooks)
    g_setenv ("PFPROF_WORKER_HOOKS", "0", TRUE);
  code = run (command, template, force, quiet, no_hooks, redact, no_report, skip_launches, trace_launches,
              delay, duration, sample, capture, view);
  put_old_trace_back (template, aside);
  return code;
}

/* For --view: the first trace a process of the program writes, once it
 * holds a commit (the file or its -wal has data, and has had it for a
 * poll: the collector commits twice a second). NULL before. */
static char *
view_candidate (const char *status_dir, gint64 *since_us)
{
  g_autoptr (GPtrArray) statuses = pfprof_record_status_read_dir (status_dir);

  for (guint i = 0; i < statuses->len; i++)
    {
      PfprofRecordStatus *s = g_ptr_array_index (statuses, i);
      g_autofree char *wal = NULL;
      struct stat st, wst;

      if (s->trace == NULL || g_str_equal (s->state, "failed"))
        continue;
      wal = g_strconcat (s->trace, "-wal", NULL);
      if ((stat (s->trace, &st) != 0 || st.st_size == 0) && (stat (wal, &wst) != 0 || wst.st_size == 0))
        continue;
      if (*since_us == 0)
        *since_us = g_get_monotonic_time ();
      if (g_str_equal (s->state, "tracing") && g_get_monotonic_time () - *since_us < G_USEC_PER_SEC)
        return NULL;
      return g_strdup (s->trace);
    }
  return NULL;
}

/* Whether @s left a trace behind: not one that failed or was removed
 * for holding no GPU work. */
static gboolean
status_kept (const PfprofRecordStatus *s)
{
  return s->trace != NULL && !g_str_equal (s->state, "failed") && !g_str_equal (s->state, "empty");
}

/* -o NAME without escapes asks for one file. A process that takes NAME
 * first and then runs nothing on the GPU (a launcher, a tool that only
 * queries devices) has its empty trace removed, so the one that kept a
 * trace wrote NAME.PID.pfprof: that trace takes NAME, since nothing else
 * holds it. link() and unlink(), not rename(), so that a file created at
 * NAME meanwhile is never replaced. Returns how many traces were kept. */
static guint
keep_asked_name (GPtrArray *statuses, const char *template)
{
  PfprofRecordStatus *only = NULL;
  guint kept = 0;

  for (guint i = 0; i < statuses->len; i++)
    {
      PfprofRecordStatus *s = g_ptr_array_index (statuses, i);

      if (status_kept (s))
        kept++, only = s;
    }
  if (kept != 1 || strchr (template, '%') != NULL || g_str_equal (only->trace, template)
      || !g_str_equal (only->state, "complete"))
    return kept;
  if (link (only->trace, template) == 0)
    {
      g_unlink (only->trace);
      g_free (only->trace);
      only->trace = g_strdup (template);
    }
  return kept;
}

/* Runs @command traced and prints the summary; its exit code. */
static int
run (char **command, const char *template, gboolean force, gboolean quiet, gboolean no_hooks, gboolean redact,
     gboolean no_report, gboolean skip_launches, gboolean trace_launches, const char *delay,
     const char *duration, const char *sample, const char *capture, gboolean view)
{
  gboolean view_pending = view;
  gint64 view_since = 0;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) statuses = NULL;
  g_autofree char *collector = NULL;
  g_autofree char *tmpdir = NULL;
  g_autofree char *hook_dir = NULL;
  int exec_errno = 0, status = 0, code;
  guint kept;
  pid_t pid;


  collector = find_collector ();
  if (collector == NULL)
    {
      pfprof_cli_error ("cannot find libpfprof-collector.so next to pfprof; set PFPROF_COLLECTOR to its path%s",
                        no_driver_note ());
      return PFPROF_EXIT_USAGE;
    }
  /* The CUDA driver skips an injection it cannot load without a word
   * (shared/GPU.md); try it here so the user hears why. RTLD_LAZY runs no
   * code of ours: the library has no constructors. */
  {
    void *handle = dlopen (collector, RTLD_LAZY | RTLD_LOCAL);

    if (handle == NULL)
      {
        const char *why = dlerror ();

        pfprof_cli_error ("the collector %s cannot be loaded (%s); the program would run untraced%s", collector,
                          why ? why : "unknown error", no_driver_note ());
        return PFPROF_EXIT_USAGE;
      }
    dlclose (handle);
  }

  tmpdir = g_dir_make_tmp ("pfprof-XXXXXX", &error);
  if (tmpdir == NULL)
    {
      pfprof_cli_error ("cannot create a temporary folder: %s", error->message);
      return PFPROF_EXIT_USAGE;
    }

  if (g_getenv ("CUDA_INJECTION64_PATH") != NULL && !quiet)
    pfprof_cli_error ("CUDA_INJECTION64_PATH was set (%s); pfprof replaces it for this run",
                      g_getenv ("CUDA_INJECTION64_PATH"));
  g_setenv ("CUDA_INJECTION64_PATH", collector, TRUE);
  g_setenv ("NVTX_INJECTION64_PATH", collector, TRUE);
  g_setenv ("PFPROF_OUTPUT", template, TRUE);
  g_setenv ("PFPROF_STATUS_DIR", tmpdir, TRUE);
  if (force)
    g_setenv ("PFPROF_FORCE", "1", TRUE);
  if (quiet)
    g_setenv ("PFPROF_QUIET", "1", TRUE);
  if (redact)
    g_setenv ("PFPROF_REDACT_ARGS", "1", TRUE);
  if (skip_launches)
    g_setenv ("PFPROF_SKIP_LAUNCHES", "1", TRUE);
  if (trace_launches)
    g_setenv ("PFPROF_TRACE_LAUNCHES", "1", TRUE);
  if (delay != NULL)
    g_setenv ("PFPROF_DELAY", delay, TRUE);
  if (duration != NULL)
    g_setenv ("PFPROF_DURATION", duration, TRUE);
  if (sample != NULL)
    g_setenv ("PFPROF_SAMPLE", sample, TRUE);
  if (capture != NULL)
    g_setenv ("PFPROF_CAPTURE", capture, TRUE);
  if (!no_hooks)
    {
      g_autofree char *hook = NULL;
      g_autoptr (GBytes) text = g_resources_lookup_data (PFPROF_RECORD_HOOK_RESOURCE, 0, NULL);
      const char *pythonpath = g_getenv ("PYTHONPATH");
      gsize len = 0;
      const char *data = text ? g_bytes_get_data (text, &len) : NULL;

      hook_dir = g_build_filename (tmpdir, "python", NULL);
      g_autoptr (GBytes) workers_text = g_resources_lookup_data (PFPROF_RECORD_WORKERS_RESOURCE, 0, NULL);
      g_autofree char *workers = NULL;
      gsize workers_len = 0;
      const char *workers_data = workers_text ? g_bytes_get_data (workers_text, &workers_len) : NULL;

      hook = g_build_filename (hook_dir, "sitecustomize.py", NULL);
      /* Imported by the hook at start-up, before it takes its folder off
       * sys.path: spawned DataLoader workers find it there too. */
      workers = g_build_filename (hook_dir, "pfprof_workers.py", NULL);
      if (data == NULL || workers_data == NULL || g_mkdir (hook_dir, 0700) != 0
          || !g_file_set_contents (hook, data, (gssize) len, &error)
          || !g_file_set_contents (workers, workers_data, (gssize) workers_len, &error))
        {
          pfprof_cli_error ("cannot write the Python hook: %s", error ? error->message : g_strerror (errno));
          pfprof_cli_program_remove_tree (tmpdir);
          return PFPROF_EXIT_USAGE;
        }
      g_setenv ("PFPROF_HOOK_DIR", hook_dir, TRUE);
      g_setenv ("PFPROF_PYTHON_HOOKS", "1", TRUE);
      if (pythonpath != NULL && *pythonpath != '\0')
        {
          g_autofree char *joined = g_strconcat (hook_dir, ":", pythonpath, NULL);

          g_setenv ("PYTHONPATH", joined, TRUE);
        }
      else
        g_setenv ("PYTHONPATH", hook_dir, TRUE);
    }
  else
    g_setenv ("PFPROF_PYTHON_HOOKS", "0", TRUE);

  install_forwarding ();
  pid = spawn (command, &exec_errno);
  if (pid < 0)
    {
      pfprof_cli_error ("cannot run '%s': %s", command[0], g_strerror (exec_errno));
      pfprof_cli_program_remove_tree (tmpdir);
      return exec_errno == ENOENT ? 127 : 126;
    }
  child_pid = pid;
  for (;;)
    {
      pid_t r = waitpid (pid, &status, view_pending ? WNOHANG : 0);

      if (r == pid)
        break;
      if (r < 0 && errno != EINTR)
        {
          status = 0;
          break;
        }
      if (r == 0)
        {
          /* Still running: open the window on its trace once it has one. */
          g_autofree char *trace = view_candidate (tmpdir, &view_since);

          if (trace != NULL)
            {
              pfprof_cli_view_start (trace);
              view_pending = FALSE;
            }
          else
            g_usleep (G_USEC_PER_SEC / 5);
        }
    }
  child_pid = 0;
  /* Too short to be watched: the window shows the finished trace. */
  if (view_pending)
    {
      g_autofree char *trace = view_candidate (tmpdir, &view_since);

      if (trace != NULL)
        pfprof_cli_view_start (trace);
    }
  if (WIFSIGNALED (status))
    code = 128 + WTERMSIG (status);
  else
    code = WEXITSTATUS (status);

  statuses = pfprof_record_status_read_dir (tmpdir);
  pfprof_cli_program_remove_tree (tmpdir);
  kept = keep_asked_name (statuses, template);
  if (statuses->len == 0)
    {
      if (!quiet)
        {
          const char *note = no_driver_note ();

          if (*note != '\0')
            pfprof_cli_error ("no CUDA process was traced: no NVIDIA driver or GPU was found on this machine "
                              "(no /dev/nvidiactl)");
          else
            pfprof_cli_error ("no CUDA process was traced (the program never initialized CUDA)");
        }
      return code;
    }
  if (!quiet)
    {
      guint readable = pfprof_record_summary_print (statuses);

      /* Several processes ran GPU work: one name cannot hold them all. */
      if (kept > 1)
        {
          g_autoptr (GString) list = g_string_new (NULL);

          for (guint i = 0; i < statuses->len; i++)
            {
              PfprofRecordStatus *s = g_ptr_array_index (statuses, i);

              if (status_kept (s))
                g_string_append_printf (list, " %s", s->trace);
            }
          pfprof_cli_error ("%u traces, one per process that ran GPU work:%s", kept, list->str);
        }
      if (readable > 0 && !no_report)
        {
          g_autoptr (GPtrArray) traces = g_ptr_array_new_with_free_func (g_free);
          g_auto (PfprofCliReport) report = { 0 };

          /* The headline and the findings; the evidence and the fixes
           * are one `pfprof report` away, named on the last line. */
          pfprof_cli_report_init (&report);
          report.report.summary = TRUE;
          for (guint i = 0; i < statuses->len; i++)
            {
              PfprofRecordStatus *s = g_ptr_array_index (statuses, i);

              if (status_kept (s))
                g_ptr_array_add (traces, g_strdup (s->trace));
            }
          g_ptr_array_add (traces, NULL);
          fflush (stdout);
          /* The report's exit code (findings) is not the program's. */
          pfprof_cli_report_run (&report, (char **) traces->pdata);
        }
    }
  return code;
}
