/* SPDX-License-Identifier: MIT */
/* pfprof-view-follow.h: follows traces that are still being recorded.
 *
 * The collector commits a batch about every half second; the file is a
 * readable trace after each commit (trace/pfprof-trace-writer.h). While
 * a trace the window shows is unfinished (meta complete = 0), the
 * follower looks at its files (the database and its -wal) twice a second
 * and, when they changed, loads the traces again with PfprofViewLoader
 * (off the main thread) and hands the new load to the window, which
 * swaps it in keeping the view. The reader copies an unfinished trace
 * before reading it and takes no lock on the original
 * (analyzer/read/pfprof-trace-reader.c), so the recording never waits for the
 * window. A reload starts at most once per twice the time the last one
 * took (and once a second at least), so a big trace does not keep a
 * core of the training machine busy. Once a load says the traces are
 * complete (the recording ended) the follower stops. */
#pragma once

#include <gio/gio.h>

#include "pfprof-view-loader.h"

G_BEGIN_DECLS

typedef struct _PfprofViewFollow PfprofViewFollow;

/* Called on the main context with each new load (the callee takes it). */
typedef void (*PfprofViewFollowFunc) (PfprofViewLoaded *loaded, gpointer user_data);

/* Follows @paths (NULL-terminated, copied) from now on; @func gets each
 * reload. */
PfprofViewFollow *pfprof_view_follow_new (const char *const *paths, PfprofViewFollowFunc func,
                                          gpointer user_data);

/* Stops (a reload in flight is cancelled and dropped). */
void pfprof_view_follow_free (PfprofViewFollow *follow);

/* Reloads done so far. */
guint pfprof_view_follow_n_reloads (const PfprofViewFollow *follow);

/* Whether @loaded holds a trace that is still being written. */
gboolean pfprof_view_follow_is_live (const PfprofViewLoaded *loaded);

G_END_DECLS
