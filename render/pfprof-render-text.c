/* pfprof-render-text.c: safe labels and readable units. */
#include "pfprof-render-text.h"

#include <math.h>
#include <string.h>

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
pfprof_render_format_duration (gint64 ns)
{
  double v = (double) ns;
  double a = fabs (v);
  const char *unit;
  double scaled;

  if (a < 1e3)
    return g_strdup_printf ("%" G_GINT64_FORMAT " ns", ns);
  if (a < 1e6)
    scaled = v / 1e3, unit = "\u00b5s";
  else if (a < 1e9)
    scaled = v / 1e6, unit = "ms";
  else
    scaled = v / 1e9, unit = "s";
  if (fabs (scaled) >= 100)
    return g_strdup_printf ("%.0f %s", scaled, unit);
  if (fabs (scaled) >= 10)
    return g_strdup_printf ("%.1f %s", scaled, unit);
  return g_strdup_printf ("%.2f %s", scaled, unit);
}

char *
pfprof_render_format_tick (gint64 ns, gint64 step_ns, gint64 max_ns)
{
  double div;
  const char *unit;
  int decimals;
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
  decimals = CLAMP (decimals, 0, 9);
  return g_strdup_printf ("%.*f %s", decimals, (double) ns / div, unit);
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

char *
pfprof_render_format_bytes (guint64 bytes)
{
  if (bytes < 1024)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " B", bytes);
  if (bytes < 1024 * 1024)
    return g_strdup_printf ("%.1f KiB", (double) bytes / 1024.0);
  if (bytes < G_GUINT64_CONSTANT (1) << 30)
    return g_strdup_printf ("%.1f MiB", (double) bytes / (1024.0 * 1024.0));
  return g_strdup_printf ("%.2f GiB", (double) bytes / (1024.0 * 1024.0 * 1024.0));
}
