/* SPDX-License-Identifier: MIT */
/* pfprof-format.h: numbers for people (durations, sizes, bandwidth) and
 * the escaping every output format needs for untrusted text.
 *
 * Kernel names, NVTX range names, file paths and metadata come from the
 * profiled program: they may hold quotes, markup, control characters and
 * terminal escape sequences. Every report format passes them through one
 * of the escapers below. Numbers are printed with '.' as the decimal
 * separator whatever the locale, so reports read the same everywhere.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* "850 ns", "12.3 µs", "4.56 ms", "1.23 s". Returns a new string. */
char *pfprof_format_ns (gint64 ns);

/* "512 B", "64.0 KiB", "38.5 MB"-style in binary units. New string. */
char *pfprof_format_bytes (guint64 bytes);

/* "7.4 GB/s" for @bytes moved in @ns; "-" when @ns is 0. New string. */
char *pfprof_format_bandwidth (guint64 bytes, gint64 ns);

/* "%.*f" in the C locale. New string. */
char *pfprof_format_double (double value, int decimals);

/* Appends @s as a JSON string literal (with the quotes); invalid UTF-8 is
 * replaced by U+FFFD, control characters become \uXXXX. */
void pfprof_escape_json (GString *out, const char *s /* nullable */);

/* Appends @s escaped for XML text and attribute values; characters that
 * XML 1.0 forbids (most controls) are dropped, invalid UTF-8 and bidi
 * controls (U+202E, ...) replaced by U+FFFD. */
void pfprof_escape_xml (GString *out, const char *s /* nullable */);

/* Appends @s so that Markdown (GitHub flavour, which also renders HTML)
 * shows it literally on one line: markup characters are backslash-escaped,
 * '<', '>' and '&' become entities, controls and newlines become spaces,
 * bidi controls U+FFFD. */
void pfprof_escape_markdown (GString *out, const char *s /* nullable */);

/* Appends @s for a terminal: escape sequences and other control
 * characters (C0, DEL, C1) are dropped; '\n' and '\t' are kept when
 * @keep_newlines, else become spaces; invalid UTF-8 and bidi controls
 * (which would reorder the line) are replaced by U+FFFD. */
void pfprof_escape_terminal (GString *out, const char *s /* nullable */, gboolean keep_newlines);

/* Appends @s as one CSV field (RFC 4180): always quoted, '"' doubled,
 * newlines kept (a quoted field may hold them), other controls dropped,
 * invalid UTF-8 replaced. A field that would start with = + - @ gets a
 * leading ' so a spreadsheet never runs it as a formula. */
void pfprof_escape_csv (GString *out, const char *s /* nullable */);

G_END_DECLS
