/* SPDX-License-Identifier: MIT */
/* pfprof-render-text.c: safe labels and ruler ticks. */
#include "pfprof-render-text.h"

#include <math.h>
#include <string.h>

#include "pfprof-format.h"

char *
pfprof_render_sanitize (const char *s, guint max_chars)
{
  g_autofree char *valid = NULL;
  GString *out;
  guint n = 0;

  if (s == NULL)
    return g_strdup ("");
  valid = g_utf8_make_valid (s, -1);
  out = g_string_sized_new (strlen (valid));
  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (n == max_chars)
        {
          g_string_append (out, "\u2026");
          break;
        }
      /* Control and format characters could reorder or hide what is
       * drawn (bidi overrides, newlines), and Pango refuses the whole
       * string for a noncharacter (U+FDD0..U+FDEF, U+xFFFE, U+xFFFF),
       * valid UTF-8 though they are: show a replacement instead. */
      if (g_unichar_iscntrl (c) || g_unichar_type (c) == G_UNICODE_FORMAT
          || g_unichar_type (c) == G_UNICODE_LINE_SEPARATOR
          || g_unichar_type (c) == G_UNICODE_PARAGRAPH_SEPARATOR
          || (c >= 0xFDD0 && c <= 0xFDEF) || (c & 0xFFFE) == 0xFFFE)
        c = 0xFFFD;
      g_string_append_unichar (out, c);
      n++;
    }
  return g_string_free (out, FALSE);
}

char *
pfprof_render_format_tick (gint64 ns, gint64 step_ns, gint64 max_ns)
{
  double div;
  const char *unit;
  int decimals;
  g_autofree char *num = NULL;
  gint64 scale = MAX (step_ns * 10, ABS (max_ns));

  if (scale >= 1000000000)
    div = 1e9, unit = "s";
  else if (scale >= 1000000)
    div = 1e6, unit = "ms";
  else if (scale >= 1000)
    div = 1e3, unit = "\u00b5s";
  else
    div = 1, unit = "ns";
  decimals = (int) ceil (-log10 ((double) step_ns / div) - 1e-9);
  num = pfprof_format_double ((double) ns / div, decimals);
  return g_strconcat (num, " ", unit, NULL);
}

gint64
pfprof_render_nice_step (double min_ns)
{
  gint64 p = 1;

  if (min_ns <= 1)
    return 1;
  while ((double) p * 10 <= min_ns && p < G_MAXINT64 / 100)
    p *= 10;
  if ((double) p >= min_ns)
    return p;
  if ((double) (2 * p) >= min_ns)
    return 2 * p;
  if ((double) (5 * p) >= min_ns)
    return 5 * p;
  return 10 * p;
}
