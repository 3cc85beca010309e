/* SPDX-License-Identifier: MIT */
/* collector-load-test.c: loading and initializing the collector on a
 * machine without a GPU is harmless.
 *
 * The CUDA driver would call InitializeInjection at cuInit; here nothing
 * can be subscribed (no driver), so the collector must return 1, print at
 * most one "pfprof: " line, create no trace file, and leave the process
 * running normally (atexit included).
 *
 * Usage: collector-load-test LIBPFPROF-COLLECTOR.SO SCRATCH-DIR
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  char output[4096];
  void *handle, *sym;
  int (*init) (void);
  int rc;

  if (argc != 3)
    {
      fprintf (stderr, "usage: %s LIBRARY DIR\n", argv[0]);
      return 2;
    }
  snprintf (output, sizeof output, "%s/load-test-%%p.pfprof", argv[2]);
  setenv ("PFPROF_OUTPUT", output, 1);
  handle = dlopen (argv[1], RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL)
    {
      fprintf (stderr, "FAIL: dlopen: %s\n", dlerror ());
      return 1;
    }
  sym = dlsym (handle, "InitializeInjection");
  if (sym == NULL)
    {
      fprintf (stderr, "FAIL: no InitializeInjection\n");
      return 1;
    }
  /* The internal writer must not be reachable from outside. */
  if (dlsym (handle, "pfprof_trace_writer_open") != NULL || dlsym (handle, "sqlite3_open_v2") != NULL)
    {
      fprintf (stderr, "FAIL: internal symbols are exported\n");
      return 1;
    }
  memcpy (&init, &sym, sizeof sym);
  rc = init ();
  if (rc != 1)
    {
      fprintf (stderr, "FAIL: InitializeInjection returned %d, want 1\n", rc);
      return 1;
    }
  /* A second call (several CUDA instances) is harmless too. */
  if (init () != 1)
    return 1;
  snprintf (output, sizeof output, "%s/load-test-%ld.pfprof", argv[2], (long) getpid ());
  if (access (output, F_OK) == 0)
    {
      fprintf (stderr, "FAIL: %s was created although nothing was traced\n", output);
      return 1;
    }
  printf ("ok: initialized without a GPU, no trace left behind\n");
  return 0;
}
