/* SPDX-License-Identifier: MIT */
/* pfprof-format.c: human-readable numbers and escapers. */
#include "pfprof-format.h"

#include <string.h>

char *
pfprof_format_double (double value, int decimals)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  char fmt[8];

  g_snprintf (fmt, sizeof fmt, "%%.%df", CLAMP (decimals, 0, 9));
  return g_strdup (g_ascii_formatd (buf, sizeof buf, fmt, value));
}

char *
pfprof_format_ns (gint64 ns)
{
  double v = (double) ns;
  double a = v < 0 ? -v : v;
  g_autofree char *num = NULL;

  if (a < 1e3)
    return g_strdup_printf ("%" G_GINT64_FORMAT " ns", ns);
  if (a < 1e6)
    {
      num = pfprof_format_double (v / 1e3, a < 1e4 ? 2 : 1);
      return g_strconcat (num, " µs", NULL);
    }
  if (a < 1e9)
    {
      num = pfprof_format_double (v / 1e6, a < 1e7 ? 2 : 1);
      return g_strconcat (num, " ms", NULL);
    }
  num = pfprof_format_double (v / 1e9, 2);
  return g_strconcat (num, " s", NULL);
}

char *
pfprof_format_bytes (guint64 bytes)
{
  static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
  double v = (double) bytes;
  g_autofree char *num = NULL;
  guint u = 0;

  if (bytes < 1024)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " B", bytes);
  v /= 1024.0;
  while (v >= 1024.0 && u + 1 < G_N_ELEMENTS (units))
    {
      v /= 1024.0;
      u++;
    }
  num = pfprof_format_double (v, v < 10 ? 2 : 1);
  return g_strconcat (num, " ", units[u], NULL);
}

char *
pfprof_format_bandwidth (guint64 bytes, gint64 ns)
{
  g_autofree char *num = NULL;
  double gbps;

  if (ns <= 0)
    return g_strdup ("-");
  gbps = (double) bytes / (double) ns; /* bytes per ns = GB/s */
  if (gbps >= 1.0)
    {
      num = pfprof_format_double (gbps, 1);
      return g_strconcat (num, " GB/s", NULL);
    }
  num = pfprof_format_double (gbps * 1000.0, 1);
  return g_strconcat (num, " MB/s", NULL);
}

/* Calls @fn for every character of @s, decoding UTF-8 and turning each
 * invalid byte into U+FFFD, so escapers never see broken sequences. */
typedef void (*CharFunc) (GString *out, gunichar c, gpointer data);

static void
for_each_char (GString *out, const char *s, CharFunc fn, gpointer data)
{
  const char *p = s ? s : "";
  const char *end = p + strlen (p);

  while (p < end)
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          fn (out, 0xFFFD, data);
          p++;
          continue;
        }
      fn (out, c, data);
      p = g_utf8_next_char (p);
    }
}

static gboolean
is_control (gunichar c)
{
  return c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0);
}

/* Bidirectional controls (U+202A..U+202E, U+2066..U+2069, the marks)
 * reorder the rest of a line where it is shown: a terminal, a rendered
 * Markdown or HTML page. Those escapers show U+FFFD instead. */
static gboolean
is_bidi_control (gunichar c)
{
  return (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0x200E || c == 0x200F
         || c == 0x061C;
}

static void
json_char (GString *out, gunichar c, gpointer data)
{
  switch (c)
    {
    case '"': g_string_append (out, "\\\""); return;
    case '\\': g_string_append (out, "\\\\"); return;
    case '\n': g_string_append (out, "\\n"); return;
    case '\r': g_string_append (out, "\\r"); return;
    case '\t': g_string_append (out, "\\t"); return;
    default: break;
    }
  /* U+2028/2029 are valid JSON but break JavaScript consumers. */
  if (is_control (c) || c == 0x2028 || c == 0x2029)
    g_string_append_printf (out, "\\u%04x", (unsigned) c);
  else
    g_string_append_unichar (out, c);
}

void
pfprof_escape_json (GString *out, const char *s)
{
  g_return_if_fail (out != NULL);

  const char *str = s ? s : "", *p = str;

  /* Most names and every key are printable ASCII with nothing to escape:
   * copied whole, as the loop below would write them. */
  while (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\')
    p++;
  if (*p == '\0')
    {
      g_string_append_c (out, '"');
      g_string_append_len (out, str, p - str);
      g_string_append_c (out, '"');
      return;
    }
  g_string_append_c (out, '"');
  for_each_char (out, s, json_char, NULL);
  g_string_append_c (out, '"');
}

static void
xml_char (GString *out, gunichar c, gpointer data)
{
  switch (c)
    {
    case '<': g_string_append (out, "&lt;"); return;
    case '>': g_string_append (out, "&gt;"); return;
    case '&': g_string_append (out, "&amp;"); return;
    case '"': g_string_append (out, "&quot;"); return;
    case '\'': g_string_append (out, "&apos;"); return;
    case '\n': g_string_append (out, "&#10;"); return;
    case '\t': g_string_append (out, "&#9;"); return;
    default: break;
    }
  if (is_control (c) || c == 0xFFFE || c == 0xFFFF)
    return;
  if (is_bidi_control (c))
    c = 0xFFFD;
  g_string_append_unichar (out, c);
}

void
pfprof_escape_xml (GString *out, const char *s)
{
  g_return_if_fail (out != NULL);

  for_each_char (out, s, xml_char, NULL);
}

static void
markdown_char (GString *out, gunichar c, gpointer data)
{
  switch (c)
    {
    case '<': g_string_append (out, "&lt;"); return;
    case '>': g_string_append (out, "&gt;"); return;
    case '&': g_string_append (out, "&amp;"); return;
    default: break;
    }
  if (is_control (c))
    {
      g_string_append_c (out, ' ');
      return;
    }
  if (is_bidi_control (c))
    c = 0xFFFD;
  /* Inline markup only: text never starts a line (a prefix precedes it),
   * so list, heading and numbering markers are harmless. */
  if (c < 0x80 && strchr ("\\`*_[]|~!", (int) c) != NULL)
    g_string_append_c (out, '\\');
  g_string_append_unichar (out, c);
}

void
pfprof_escape_markdown (GString *out, const char *s)
{
  g_return_if_fail (out != NULL);

  for_each_char (out, s, markdown_char, NULL);
}

static void
terminal_char (GString *out, gunichar c, gpointer data)
{
  gboolean keep_newlines = GPOINTER_TO_INT (data);

  if ((c == '\n' || c == '\t') && keep_newlines)
    {
      g_string_append_unichar (out, c);
      return;
    }
  if (c == '\t' || c == '\n')
    {
      g_string_append_c (out, ' ');
      return;
    }
  /* ESC and the other controls go; what follows an ESC stays as plain
   * printable text, which cannot act on the terminal without the ESC. */
  if (is_control (c))
    return;
  if (is_bidi_control (c))
    c = 0xFFFD;
  g_string_append_unichar (out, c);
}

void
pfprof_escape_terminal (GString *out, const char *s, gboolean keep_newlines)
{
  g_return_if_fail (out != NULL);

  for_each_char (out, s, terminal_char, GINT_TO_POINTER (keep_newlines));
}

static void
csv_char (GString *out, gunichar c, gpointer data)
{
  if (c == '"')
    g_string_append (out, "\"\"");
  else if (c == '\n' || !is_control (c))
    g_string_append_unichar (out, is_bidi_control (c) ? 0xFFFD : c);
}

void
pfprof_escape_csv (GString *out, const char *s)
{
  gsize at;

  g_return_if_fail (out != NULL);

  g_string_append_c (out, '"');
  at = out->len;
  for_each_char (out, s, csv_char, NULL);
  /* A spreadsheet runs a field that starts with a formula sign: judged on
   * the first character kept, as the dropped controls are gone. */
  if (out->len > at && strchr ("=+-@", out->str[at]) != NULL)
    g_string_insert_c (out, (gssize) at, '\'');
  g_string_append_c (out, '"');
}
