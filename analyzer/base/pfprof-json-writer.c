/* SPDX-License-Identifier: MIT */
/* pfprof-json-writer.c: see the header. */
#include "pfprof-json-writer.h"

#include <math.h>

#include "pfprof-format.h"

void
pfprof_json_writer_init (PfprofJsonWriter *w, GString *out)
{
  g_return_if_fail (w != NULL && out != NULL);

  *w = (PfprofJsonWriter) { .out = out };
}

/* The comma before a value or a key, unless a key (or new_line) already
 * put what goes before it. */
static void
separate (PfprofJsonWriter *w)
{
  if (w->after_key)
    {
      w->after_key = FALSE;
      return;
    }
  if (w->depth > 0)
    {
      if (w->has_member[w->depth - 1] && !w->comma_written)
        g_string_append_c (w->out, ',');
      w->has_member[w->depth - 1] = TRUE;
    }
  w->comma_written = FALSE;
}

static void
open_container (PfprofJsonWriter *w, char c)
{
  g_return_if_fail (w->depth < PFPROF_JSON_WRITER_MAX_DEPTH);

  separate (w);
  g_string_append_c (w->out, c);
  w->has_member[w->depth++] = FALSE;
}

static void
close_container (PfprofJsonWriter *w, char c)
{
  g_return_if_fail (w->depth > 0 && !w->after_key);

  w->depth--;
  w->comma_written = FALSE;
  g_string_append_c (w->out, c);
}

void
pfprof_json_writer_begin_object (PfprofJsonWriter *w)
{
  g_return_if_fail (w != NULL);

  open_container (w, '{');
}

void
pfprof_json_writer_end_object (PfprofJsonWriter *w)
{
  g_return_if_fail (w != NULL);

  close_container (w, '}');
}

void
pfprof_json_writer_begin_array (PfprofJsonWriter *w)
{
  g_return_if_fail (w != NULL);

  open_container (w, '[');
}

void
pfprof_json_writer_end_array (PfprofJsonWriter *w)
{
  g_return_if_fail (w != NULL);

  close_container (w, ']');
}

void
pfprof_json_writer_key (PfprofJsonWriter *w, const char *key)
{
  g_return_if_fail (key != NULL);
  g_return_if_fail (!w->after_key);

  separate (w);
  pfprof_escape_json (w->out, key);
  g_string_append_c (w->out, ':');
  w->after_key = TRUE;
}

void
pfprof_json_writer_string (PfprofJsonWriter *w, const char *value)
{
  g_return_if_fail (w != NULL);

  separate (w);
  if (value == NULL)
    g_string_append (w->out, "null");
  else
    pfprof_escape_json (w->out, value);
}

/* Decimal digits of @v, without the allocation and parsing of printf:
 * the Chrome export writes tens of millions of numbers. */
static void
append_u64 (GString *out, guint64 v)
{
  char buf[20];
  guint n = 0;

  do
    {
      buf[sizeof buf - ++n] = (char) ('0' + v % 10);
      v /= 10;
    }
  while (v != 0);
  g_string_append_len (out, buf + sizeof buf - n, n);
}

static guint64
magnitude (gint64 v)
{
  return v < 0 ? (guint64) 0 - (guint64) v : (guint64) v;
}

void
pfprof_json_writer_int (PfprofJsonWriter *w, gint64 value)
{
  g_return_if_fail (w != NULL);

  separate (w);
  if (value < 0)
    g_string_append_c (w->out, '-');
  append_u64 (w->out, magnitude (value));
}

void
pfprof_json_writer_uint (PfprofJsonWriter *w, guint64 value)
{
  g_return_if_fail (w != NULL);

  separate (w);
  append_u64 (w->out, value);
}

void
pfprof_json_writer_bool (PfprofJsonWriter *w, gboolean value)
{
  g_return_if_fail (w != NULL);

  separate (w);
  g_string_append (w->out, value ? "true" : "false");
}

void
pfprof_json_writer_null (PfprofJsonWriter *w)
{
  g_return_if_fail (w != NULL);

  separate (w);
  g_string_append (w->out, "null");
}

void
pfprof_json_writer_double (PfprofJsonWriter *w, double value, int decimals)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  char fmt[8];

  g_return_if_fail (w != NULL);

  separate (w);
  if (!isfinite (value))
    {
      g_string_append (w->out, "null");
      return;
    }
  g_snprintf (fmt, sizeof fmt, "%%.%df", CLAMP (decimals, 0, 9));
  g_string_append (w->out, g_ascii_formatd (buf, sizeof buf, fmt, value));
}

void
pfprof_json_writer_fixed (PfprofJsonWriter *w, gint64 value, guint decimals)
{
  guint64 a, scale = 1;
  char frac[9];

  g_return_if_fail (w != NULL);
  g_return_if_fail (decimals <= 9);

  a = magnitude (value);
  for (guint i = 0; i < decimals; i++)
    scale *= 10;
  separate (w);
  if (value < 0)
    g_string_append_c (w->out, '-');
  append_u64 (w->out, a / scale);
  if (decimals == 0)
    return;
  a %= scale;
  for (guint i = decimals; i-- > 0;)
    {
      frac[i] = (char) ('0' + a % 10);
      a /= 10;
    }
  g_string_append_c (w->out, '.');
  g_string_append_len (w->out, frac, decimals);
}

void
pfprof_json_writer_new_line (PfprofJsonWriter *w)
{
  g_return_if_fail (!w->after_key);

  if (w->depth > 0 && w->has_member[w->depth - 1] && !w->comma_written)
    {
      g_string_append_c (w->out, ',');
      w->comma_written = TRUE;
    }
  g_string_append_c (w->out, '\n');
}

void
pfprof_json_writer_member_string (PfprofJsonWriter *w, const char *key, const char *value)
{
  g_return_if_fail (w != NULL);
  g_return_if_fail (key != NULL);

  pfprof_json_writer_key (w, key);
  pfprof_json_writer_string (w, value);
}

void
pfprof_json_writer_member_int (PfprofJsonWriter *w, const char *key, gint64 value)
{
  g_return_if_fail (w != NULL);
  g_return_if_fail (key != NULL);

  pfprof_json_writer_key (w, key);
  pfprof_json_writer_int (w, value);
}

void
pfprof_json_writer_member_uint (PfprofJsonWriter *w, const char *key, guint64 value)
{
  g_return_if_fail (w != NULL);
  g_return_if_fail (key != NULL);

  pfprof_json_writer_key (w, key);
  pfprof_json_writer_uint (w, value);
}

void
pfprof_json_writer_member_double (PfprofJsonWriter *w, const char *key, double value, int decimals)
{
  g_return_if_fail (w != NULL);
  g_return_if_fail (key != NULL);

  pfprof_json_writer_key (w, key);
  pfprof_json_writer_double (w, value, decimals);
}
