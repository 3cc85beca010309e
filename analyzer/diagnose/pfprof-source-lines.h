/* SPDX-License-Identifier: MIT */
/* pfprof-source-lines.h: the text of the Python lines a trace names.
 *
 * A call site names a file and a line, and the reports and the GUI show
 * that line's text. The file name comes from the trace, and traces are
 * shared (CI artifacts, bug reports), so reading it is a decision about
 * trust: a trace may name /etc/shadow, /proc/self/environ or
 * /proc/kmsg (which blocks). Every source line pfprof shows is read
 * here, under one policy:
 *
 * - never a file under /proc, /sys or /dev, nor anything but a regular
 *   file (opened without blocking, the last path part not a link), at
 *   most 4 MiB and 100,000 lines a file and 64 MiB over one analysis;
 * - PFPROF_SOURCE_LINES_AUTO (the default): only Python files (.py)
 *   under the folder pfprof runs in (its working directory, not "/"),
 *   the folder its user chose; nothing the trace says widens it, as a
 *   trace could name any folder. A file it leaves unread is counted, so
 *   the reports can say once why its text is missing;
 * - ALWAYS: any regular file the trace names, within the bounds above;
 * - NEVER: none.
 *
 * Relative names are taken from the folder pfprof runs in, as the
 * launcher's hook writes absolute ones.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  PFPROF_SOURCE_LINES_AUTO,
  PFPROF_SOURCE_LINES_ALWAYS,
  PFPROF_SOURCE_LINES_NEVER,
} PfprofSourceLinesPolicy;

typedef struct _PfprofSourceLines PfprofSourceLines;

/* "auto", "always" or "never" into *@policy; FALSE for anything else. */
gboolean pfprof_source_lines_policy_from_string (const char *s /* nullable */,
                                                 PfprofSourceLinesPolicy *policy);

/* A cache of the files read under @policy, with the folder pfprof runs
 * in taken now. */
PfprofSourceLines *pfprof_source_lines_new (PfprofSourceLinesPolicy policy);

void pfprof_source_lines_free (PfprofSourceLines *sources);

/* The lines of @path (a NULL-terminated vector owned by @sources), or
 * NULL when the file is missing, unreadable, too large, or not to be
 * read under the policy. Each file is looked at once. */
char **pfprof_source_lines_get (PfprofSourceLines *sources, const char *path /* nullable */);

/* Whether @path is there but PFPROF_SOURCE_LINES_AUTO leaves it unread. */
gboolean pfprof_source_lines_withheld (PfprofSourceLines *sources, const char *path /* nullable */);

/* Files that are there but that PFPROF_SOURCE_LINES_AUTO left unread. */
guint pfprof_source_lines_n_withheld (const PfprofSourceLines *sources);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PfprofSourceLines, pfprof_source_lines_free)

G_END_DECLS
