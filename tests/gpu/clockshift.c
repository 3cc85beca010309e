/* SPDX-License-Identifier: MIT */
/* clockshift.c: an LD_PRELOAD library that makes a process's wall clock
 * read PFPROF_TEST_CLOCK_SHIFT_NS ahead, as on a host whose NTP is off by
 * that much, and, with PFPROF_TEST_CLOCK_DRIFT_PPM, run that many
 * millionths fast from the moment the library loads. For tests/gpu/launchers.sh only: it lets one machine record
 * a rank whose host clock disagrees with the others', which the clock
 * triples cannot see and the collectives must. CLOCK_MONOTONIC and the
 * other clocks are left alone (a real host's are its own anyway).
 *
 *   gcc -shared -fPIC -O2 -o clockshift.so tests/gpu/clockshift.c -ldl
 *   LD_PRELOAD=$PWD/clockshift.so PFPROF_TEST_CLOCK_SHIFT_NS=3700000 prog
 *
 * Whether CUPTI's timestamps follow depends on how CUPTI reads the clock
 * (through libc's clock_gettime, which this replaces, or not); the
 * script checks what the traces say rather than assume it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static long long shift_ns;
static double drift;       /* per ns of real time */
static long long start_ns; /* real CLOCK_REALTIME when loaded */
static int (*real_clock_gettime) (clockid_t, struct timespec *);
static int (*real_gettimeofday) (struct timeval *, void *);

__attribute__ ((constructor)) static void
init (void)
{
  const char *s = getenv ("PFPROF_TEST_CLOCK_SHIFT_NS");

  const char *d = getenv ("PFPROF_TEST_CLOCK_DRIFT_PPM");
  struct timespec ts;

  shift_ns = s != NULL ? atoll (s) : 0;
  drift = d != NULL ? atof (d) * 1e-6 : 0;
  real_clock_gettime = (int (*) (clockid_t, struct timespec *)) dlsym (RTLD_NEXT, "clock_gettime");
  real_gettimeofday = (int (*) (struct timeval *, void *)) dlsym (RTLD_NEXT, "gettimeofday");
  if (real_clock_gettime != NULL && real_clock_gettime (CLOCK_REALTIME, &ts) == 0)
    start_ns = (long long) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The shift at real time @t (ns). */
static long long
shift_at (long long t)
{
  return shift_ns + (long long) (drift * (double) (t - start_ns));
}

static void
add (struct timespec *ts)
{
  long long t = (long long) ts->tv_sec * 1000000000LL + ts->tv_nsec;

  t += shift_at (t);

  ts->tv_sec = (time_t) (t / 1000000000LL);
  ts->tv_nsec = (long) (t % 1000000000LL);
}

int
clock_gettime (clockid_t id, struct timespec *ts)
{
  int r;

  if (real_clock_gettime == NULL)
    init ();
  r = real_clock_gettime (id, ts);
  if (r == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
    add (ts);
  return r;
}

int
gettimeofday (struct timeval *tv, void *tz)
{
  int r;

  if (real_gettimeofday == NULL)
    init ();
  r = real_gettimeofday (tv, tz);
  if (r == 0)
    {
      long long us = (long long) tv->tv_sec * 1000000LL + tv->tv_usec;

      us += shift_at (us * 1000LL) / 1000;

      tv->tv_sec = (time_t) (us / 1000000LL);
      tv->tv_usec = (long) (us % 1000000LL);
    }
  return r;
}

time_t
time (time_t *out)
{
  struct timespec ts;
  time_t t;

  clock_gettime (CLOCK_REALTIME, &ts);
  t = ts.tv_sec;
  if (out != NULL)
    *out = t;
  return t;
}
