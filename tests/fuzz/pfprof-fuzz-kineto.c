/* SPDX-License-Identifier: MIT */
/* pfprof-fuzz-kineto.c: libFuzzer harness for the torch.profiler (Kineto)
 * importer and the analysis of what it reads.
 *
 * A Kineto trace comes from the user's cluster, often from another
 * machine, and may be truncated or hand-edited. Byte 0 of the input picks
 * the container: even, the rest is the file as it is (plain JSON); odd,
 * the rest is gzip-compressed first, so the fuzzer reaches the JSON
 * behind the inflater too. Bits 1-3 of byte 0 pick a second import:
 * 0, none; n, one through a window of 64 << n bytes (the importer's own
 * is 16 MiB, larger than any input here), so that values, keys and gzip
 * members straddle its edge, with every event read by jansson
 * (PFPROF_TEST_JSON_JANSSON), not by the fast path for plain events.
 * The two imports must agree: accepted or refused alike, the same rows.
 * Checks beyond "no crash": a refusal carries a one-line message that
 * names the file; an accepted trace is sorted (what every rule's binary
 * searches assume), its times within the range the importer promises,
 * and it analyzes and reports.
 *
 * Built only with -Dfuzz=true and clang (see tests/fuzz/run-fuzz.sh).
 */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "pfprof-analysis.h"
#include "pfprof-kineto-import-private.h"
#include "pfprof-report.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static char *path;

static void
write_file (const uint8_t *data, size_t size, gboolean gz)
{
  FILE *f = fopen (path, "wb");

  if (f == NULL)
    abort ();
  if (gz)
    {
      gzFile z;

      fclose (f);
      z = gzopen (path, "wb1");
      if (z == NULL || (size > 0 && gzwrite (z, data, (unsigned) size) != (int) size))
        abort ();
      gzclose (z);
      return;
    }
  if (size > 0 && fwrite (data, 1, size, f) != size)
    abort ();
  fclose (f);
}

static void
check_sorted (const PfprofTrace *t)
{
  for (unsigned tab = 0; tab < PFPROF_TABLE_DEVICES; tab++)
    {
      GArray *a = t->tables[tab];
      gsize size = g_array_get_element_size (a);

      for (guint i = 1; i < a->len; i++)
        {
          gint64 prev = *(const gint64 *) (const void *) (a->data + (gsize) (i - 1) * size);
          gint64 cur = *(const gint64 *) (const void *) (a->data + (gsize) i * size);

          if (prev > cur || cur > ((gint64) 1 << 62) || cur < -((gint64) 1 << 62))
            abort ();
        }
    }
}

/* @a and @b have the same rows: as many in each table, at the same
 * times (the rows' padding is not compared). */
static void
check_same (const PfprofTrace *a, const PfprofTrace *b)
{
  for (unsigned tab = 0; tab < PFPROF_TABLE_DEVICES; tab++)
    {
      GArray *x = a->tables[tab], *y = b->tables[tab];
      gsize size = g_array_get_element_size (x);

      if (x->len != y->len)
        abort ();
      for (guint i = 0; i < x->len; i++)
        if (*(const gint64 *) (const void *) (x->data + (gsize) i * size)
            != *(const gint64 *) (const void *) (y->data + (gsize) i * size))
          abort ();
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) out = g_string_new (NULL);
  GPtrArray *traces;
  PfprofTrace *trace;
  PfprofAnalysis *analysis;
  PfprofRun *run;
  PfprofReportOptions ro;

  if (size < 1)
    return 0;
  pfprof_report_options_init (&ro);
  if (path == NULL)
    path = g_strdup_printf ("%s/pfprof-fuzz-kineto-%d.json", g_get_tmp_dir (), (int) getpid ());
  write_file (data + 1, size - 1, data[0] & 1);

  g_unsetenv ("PFPROF_TEST_JSON_WINDOW");
  trace = pfprof_kineto_import_load (path, NULL, NULL, &error);
  if ((data[0] >> 1) & 7)
    {
      g_autoptr (GError) small_error = NULL;
      g_autofree char *window = g_strdup_printf ("%d", 64 << ((data[0] >> 1) & 7));
      PfprofTrace *small;

      g_setenv ("PFPROF_TEST_JSON_WINDOW", window, TRUE);
      g_setenv ("PFPROF_TEST_JSON_JANSSON", "1", TRUE);
      small = pfprof_kineto_import_load (path, NULL, NULL, &small_error);
      g_unsetenv ("PFPROF_TEST_JSON_WINDOW");
      g_unsetenv ("PFPROF_TEST_JSON_JANSSON");
      if ((small == NULL) != (trace == NULL))
        abort ();
      if (small != NULL)
        {
          check_same (trace, small);
          pfprof_trace_free (small);
        }
    }
  if (trace == NULL)
    {
      if (error == NULL || error->message == NULL || strstr (error->message, path) == NULL
          || strchr (error->message, '\n') != NULL)
        abort ();
      return 0;
    }
  if (error != NULL)
    abort ();
  check_sorted (trace);
  traces = g_ptr_array_new ();
  g_ptr_array_add (traces, trace);
  run = pfprof_run_new (traces);
  analysis = pfprof_analysis_run (run, NULL);
  if (analysis == NULL)
    abort ();
  pfprof_report_text (analysis, &ro, out);
  pfprof_report_json (analysis, &ro, out);
  pfprof_analysis_free (analysis);
  pfprof_run_unref (run);
  return 0;
}
