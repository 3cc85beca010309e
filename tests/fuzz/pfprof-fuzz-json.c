/* SPDX-License-Identifier: MIT */
/* pfprof-fuzz-json.c: libFuzzer harness for the JSON reader and the merge
 * of per-rank results (`pfprof report rank-*.json`).
 *
 * A rank-N.json comes from another host and may be damaged or hostile.
 * The input is cut at its first NUL byte into result A and, when there
 * is one, result B; without B, A is merged with a good result of 20
 * ranks (ranks 1000-1019), so the rank-imbalance rule and the shortened
 * per-rank table see the fuzzed ranks among others. Checks beyond "no
 * crash":
 *
 * - every refusal, of the parser and of the merge, carries a message,
 *   and the merge's names the result it is about (the CLI prints it as
 *   the one line of exit 2);
 * - what jansson accepts, written back as JSON and parsed again, gives
 *   the same tree (no value half-read);
 * - the merge, which walks a result instead of parsing it whole, calls
 *   it "not valid JSON" exactly when jansson refuses it;
 * - a merge that succeeds renders in every format, with and without
 *   --all-ranks, and the JSON report of it is valid JSON with a row per
 *   rank (the writers print JSON by hand; names from the input must not
 *   break it).
 *
 * Built only with -Dfuzz=true and clang (see tests/fuzz/run-fuzz.sh).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <jansson.h>

#include "pfprof-format.h"
#include "pfprof-report-merge.h"
#include "pfprof-report.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Parses @len bytes at @text as the merge does: a refusal says why; what
 * parses survives being written back and read again. */
static void
check_parse (const char *text, gsize len)
{
  json_error_t error;
  json_t *j = json_loadb (text, len, JSON_DECODE_ANY, &error);
  json_t *j2;
  char *again;

  if (j == NULL)
    {
      if (error.text[0] == '\0')
        abort ();
      return;
    }
  again = json_dumps (j, JSON_ENCODE_ANY | JSON_COMPACT);
  if (again == NULL)
    abort ();
  j2 = json_loads (again, JSON_DECODE_ANY, NULL);
  if (j2 == NULL || !json_equal (j, j2))
    abort ();
  json_decref (j2);
  json_decref (j);
  free (again);
}

/* A good result of 20 ranks, one of them slow, as `pfprof report
 * --format json` writes it (the fields the merge reads). */
static GString *
companion_new (void)
{
  GString *s = g_string_new ("{\"format\":\"" PFPROF_REPORT_JSON_FORMAT "\",\"traces\":[");

  for (guint r = 0; r < 20; r++)
    g_string_append_printf (s,
                            "%s{\"rank\":%u,\"host\":\"node-%u\",\"pid\":%u,\"steady_steps\":39,"
                            "\"step_median_ns\":%u,\"data_wait_per_step_ns\":%u,"
                            "\"copy_exposed_per_step_ns\":%u,\"idle_per_step_ns\":%u,"
                            "\"findings\":0,\"steady_start_ns\":1000,\"steady_end_ns\":600001000}",
                            r ? "," : "", 1000 + r, r / 8, 4000 + r, 15000000 + r * 1000,
                            r == 7 ? 9000000 : 150000 + r * 100, r * 10, r * 3);
  g_string_append (s, "]}");
  return s;
}

/* Merges the @n results; *@invalid (when given) tells whether the
 * merge refused them as not valid JSON. */
static void
check_merge (const char *const *names, const char *const *data, const gsize *lens, guint n,
             gboolean *invalid)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PfprofAnalysis) a = pfprof_report_merge_buffers (names, data, lens, n, NULL, &error);
  PfprofReportOptions ro;

  if (a == NULL)
    {
      gboolean named = FALSE;

      if (error == NULL || error->message[0] == '\0')
        abort ();
      /* "NAME: what is wrong", or, for results of two runs, "NAME and
       * NAME are not of one run (...)". */
      for (guint i = 0; i < n; i++)
        named |= g_str_has_prefix (error->message, names[i])
                 && (g_str_has_prefix (error->message + strlen (names[i]), ": ")
                     || g_str_has_prefix (error->message + strlen (names[i]), " and "));
      if (!named)
        abort ();
      /* Right after the name: the text of a result's own strings (a
       * format named "x: not valid JSON: y") can hold the words too. */
      if (invalid != NULL)
        *invalid = g_str_has_prefix (error->message, names[0])
                   && g_str_has_prefix (error->message + strlen (names[0]), ": not valid JSON: ");
      return;
    }
  if (invalid != NULL)
    *invalid = FALSE;
  if (error != NULL || a->ranks == NULL || a->ranks->len == 0)
    abort ();
  pfprof_report_options_init (&ro);
  for (guint f = PFPROF_REPORT_TEXT; f <= PFPROF_REPORT_JUNIT; f++)
    for (guint all = 0; all < 2; all++)
      {
        g_autoptr (GString) out = g_string_new (NULL);

        ro.format = (PfprofReportFormat) f;
        ro.all_ranks = all;
        ro.summary = all && f == PFPROF_REPORT_TEXT;
        pfprof_report_render (a, &ro, out);
        if (out->len == 0 || !g_utf8_validate (out->str, (gssize) out->len, NULL))
          abort ();
        if (f == PFPROF_REPORT_JSON)
          {
            json_t *j = json_loadb (out->str, out->len, 0, NULL);
            json_t *ranks = json_object_get (j, "ranks");

            if (j == NULL
                || g_strcmp0 (json_string_value (json_object_get (j, "format")), PFPROF_REPORT_JSON_FORMAT) != 0)
              abort ();
            if (a->ranks->len >= 2 && (!json_is_array (ranks) || json_array_size (ranks) != a->ranks->len))
              abort ();
            json_decref (j);
          }
      }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static GString *companion;
  const char *text = (const char *) data;
  const char *nul = memchr (text, '\0', size);
  gsize len_a = nul != NULL ? (gsize) (nul - text) : size;
  const char *names[2] = { "a.json", "b.json" };
  const char *bufs[2];
  gsize lens[2];

  if (companion == NULL)
    companion = companion_new ();
  check_parse (text, size); /* a NUL byte included: refused */
  bufs[0] = text;
  lens[0] = len_a;
  if (nul != NULL)
    {
      bufs[1] = nul + 1;
      lens[1] = size - len_a - 1;
      check_parse (bufs[1], lens[1]);
    }
  else
    {
      /* As the merge reads it: without a byte-order mark. */
      gsize bom = len_a >= 3 && memcmp (text, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
      json_t *j = json_loadb (text + bom, len_a - bom, JSON_DECODE_ANY, NULL);
      gboolean invalid;

      check_merge (names, bufs, lens, 1, &invalid);
      if (invalid != (j == NULL))
        abort ();
      json_decref (j);
      bufs[1] = companion->str;
      lens[1] = companion->len;
    }
  check_merge (names, bufs, lens, 2, NULL);
  return 0;
}
