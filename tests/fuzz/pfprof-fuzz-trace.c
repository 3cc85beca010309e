/* SPDX-License-Identifier: MIT */
/* pfprof-fuzz-trace.c: libFuzzer harness over the trace reader and the
 * analyzer. Each input is written to a file and loaded as a trace; what
 * loads is analyzed; one with kernels also as two ranks on two hosts (the
 * same trace loaded twice), so the clock alignment pairs its collectives
 * and moves its times. Any crash, sanitizer report, leak or hang is a
 * bug: bad input must end in a GError, never anything else.
 *
 * Built only with -Dfuzz=true and clang (see tests/fuzz/run-fuzz.sh).
 */
#include <fcntl.h>
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pfprof-analysis.h"
#include "pfprof-importer.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static char *path;

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) traces = NULL;
  PfprofTrace *trace;
  PfprofAnalysis *analysis;
  PfprofRun *run;
  FILE *f;

  if (path == NULL)
    path = g_strdup_printf ("%s/pfprof-fuzz-%d.pfprof", g_get_tmp_dir (), (int) getpid ());
  f = fopen (path, "wb");
  if (f == NULL)
    abort ();
  if (size > 0 && fwrite (data, 1, size, f) != size)
    abort ();
  fclose (f);

  trace = pfprof_importer_load (path, NULL, NULL, &error);
  if (trace == NULL)
    {
      /* Every failure names the problem. */
      if (error == NULL || error->message == NULL || error->message[0] == '\0')
        abort ();
      return 0;
    }
  traces = g_ptr_array_new ();
  g_ptr_array_add (traces, trace);
  if (pfprof_trace_n (trace, PFPROF_TABLE_KERNELS) >= 8)
    {
      PfprofTrace *other = pfprof_importer_load (path, NULL, NULL, NULL);

      if (other != NULL)
        {
          g_hash_table_replace (trace->meta, g_strdup ("host"), g_strdup ("fuzz-host-a"));
          g_hash_table_replace (other->meta, g_strdup ("host"), g_strdup ("fuzz-host-b"));
          other->rank = trace->rank >= 0 ? trace->rank + 1 : 1;
          g_ptr_array_add (traces, other);
        }
    }
  run = pfprof_run_new (g_steal_pointer (&traces));
  analysis = pfprof_analysis_run (run, NULL);
  pfprof_analysis_free (analysis);
  pfprof_run_unref (run);
  return 0;
}
