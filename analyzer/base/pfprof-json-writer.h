/* SPDX-License-Identifier: MIT */
/* pfprof-json-writer.h: JSON written as a stream of tokens.
 *
 * The report (`pfprof-report/1`), the diff and the Chrome/Perfetto export
 * all write JSON through this writer: it puts the commas and colons,
 * escapes every string through pfprof_escape_json(), and prints numbers
 * the same in every locale. It holds no document: values go straight
 * into a GString that the caller may empty between values (the Chrome
 * export hands it out in chunks), so ten million events need no more
 * memory than one chunk. The output has no white space but the line
 * breaks the caller asks for (pfprof_json_writer_new_line()).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Containers nest up to this depth; deeper is a programming error. */
#define PFPROF_JSON_WRITER_MAX_DEPTH 32

typedef struct
{
  GString *out;
  guint depth;
  gboolean after_key;     /* a key was written, its value is due */
  gboolean comma_written; /* new_line() wrote the next value's comma */
  gboolean has_member[PFPROF_JSON_WRITER_MAX_DEPTH];
} PfprofJsonWriter;

/* Starts writing at the end of @out. */
void pfprof_json_writer_init (PfprofJsonWriter *w, GString *out);

void pfprof_json_writer_begin_object (PfprofJsonWriter *w);
void pfprof_json_writer_end_object (PfprofJsonWriter *w);
void pfprof_json_writer_begin_array (PfprofJsonWriter *w);
void pfprof_json_writer_end_array (PfprofJsonWriter *w);

/* The key of the next member of the current object. */
void pfprof_json_writer_key (PfprofJsonWriter *w, const char *key);

/* A string value, escaped; NULL is written as null. */
void pfprof_json_writer_string (PfprofJsonWriter *w, const char *value /* nullable */);
void pfprof_json_writer_int (PfprofJsonWriter *w, gint64 value);
void pfprof_json_writer_uint (PfprofJsonWriter *w, guint64 value);
void pfprof_json_writer_bool (PfprofJsonWriter *w, gboolean value);
void pfprof_json_writer_null (PfprofJsonWriter *w);

/* @value with @decimals decimals ("%.*f") and '.' as the decimal point
 * whatever the locale; NaN and infinities (which JSON cannot hold) are
 * written as null. */
void pfprof_json_writer_double (PfprofJsonWriter *w, double value, int decimals);

/* The integer @value divided by 10^@decimals, exactly ("-1.500" for
 * -1500 with 3 decimals): nanoseconds as microseconds with no rounding
 * through a double. @decimals is 0 to 9. */
void pfprof_json_writer_fixed (PfprofJsonWriter *w, gint64 value, guint decimals);

/* A line break before the next value: writes the comma that value needs
 * (if any) now, then '\n', so that "[\n{...},\n{...}]" puts one element
 * per line. */
void pfprof_json_writer_new_line (PfprofJsonWriter *w);

/* Members: the key, then the value (a NULL string is written as null). */
void pfprof_json_writer_member_string (PfprofJsonWriter *w, const char *key,
                                       const char *value /* nullable */);
void pfprof_json_writer_member_int (PfprofJsonWriter *w, const char *key, gint64 value);
void pfprof_json_writer_member_uint (PfprofJsonWriter *w, const char *key, guint64 value);
void pfprof_json_writer_member_double (PfprofJsonWriter *w, const char *key, double value,
                                       int decimals);

G_END_DECLS
