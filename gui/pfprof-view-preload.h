/* SPDX-License-Identifier: MIT */
/* pfprof-view-preload.h: the traces named on the command line, loaded
 * from the start of the process.
 *
 * Opening the display takes GTK a few hundred milliseconds (more where
 * GL is probed in software, as under Xvfb), and building and showing the
 * window more, all on the main thread; reading and laying out the traces
 * needs none of it. So the application starts their load before it opens
 * the display, and the window it then opens for them takes the load over:
 * the early timeline and the result reach it as those of a load it
 * started itself, whether they came before it took over or after. */
#pragma once

#include "pfprof-view-loader.h"

G_BEGIN_DECLS

typedef struct _PfprofViewPreload PfprofViewPreload;

/* Starts loading @paths (NULL-terminated) on a worker thread, its
 * callbacks on the calling thread's main context. */
PfprofViewPreload *pfprof_view_preload_new (const char *const *paths);

/* Whether @preload loads @files, in that order. */
gboolean pfprof_view_preload_has_files (const PfprofViewPreload *preload, GFile **files, int n_files);

/* The load's cancellable, and its progress (thousandths done, a
 * g_atomic_rc_box: take a reference to keep it). */
GCancellable *pfprof_view_preload_get_cancellable (PfprofViewPreload *preload);
int *pfprof_view_preload_get_progress (PfprofViewPreload *preload);

/* Whether the load has returned, and what it made waits for a taker. */
gboolean pfprof_view_preload_is_loaded (const PfprofViewPreload *preload);

/* Hands the load to its taker: @sketch_ready, @timeline_ready and
 * @callback as in pfprof_view_loader_load_async_full(); what came before
 * is passed on now, in order (but not a sketch when the timeline came
 * too), what comes later when it comes. Once only; @preload frees itself
 * after the callback. */
void pfprof_view_preload_take (PfprofViewPreload *preload, PfprofViewLoaderSketchFunc sketch_ready,
                               PfprofViewLoaderTimelineFunc timeline_ready, gpointer timeline_data,
                               GAsyncReadyCallback callback, gpointer user_data);

/* Nobody takes the load: cancels it; @preload frees itself (and what it
 * loaded) when the load returns, which with @wait this call waits for
 * (iterating the thread's main context), so that nothing is left
 * reading, nor a WAL trace's copy behind, when the process exits. */
void pfprof_view_preload_drop (PfprofViewPreload *preload, gboolean wait);

G_END_DECLS
