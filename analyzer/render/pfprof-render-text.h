/* SPDX-License-Identifier: MIT */
/* pfprof-render-text.h: text the renderer draws: untrusted names made
 * safe to draw literally, and the time ruler's ticks. Durations and sizes
 * are base/'s (pfprof-format.h), the same the reports print, and like them
 * always use '.' as the decimal point. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A copy of @s that is valid UTF-8 with every control character replaced
 * by U+FFFD and at most @max_chars characters (an ellipsis marks a cut).
 * Trace text comes from the profiled program: it is drawn exactly as
 * written, never interpreted. Never NULL. */
char *pfprof_render_sanitize (const char *s, guint max_chars);

/* Formats a ruler tick at @ns from the origin when ticks are @step_ns
 * apart and the ruler reaches @max_ns: one unit for the whole ruler,
 * chosen by the larger of @max_ns and ten steps ("6.76050 s" deep into a
 * long trace, "3.2 ms" near its start), with as many decimals as the
 * step needs to tell ticks apart; '.' as the decimal point. */
char *pfprof_render_format_tick (gint64 ns, gint64 step_ns, gint64 max_ns);

/* The smallest "nice" step (1, 2 or 5 times a power of ten, in ns) that
 * is at least @min_ns. */
gint64 pfprof_render_nice_step (double min_ns);

G_END_DECLS
