/* SPDX-License-Identifier: MIT */
/* pfprof-view-loader.h: loads traces off the main thread.
 *
 * Reading, analysing and laying out a trace of millions of events takes
 * seconds; a GTask does it on a worker thread while the window shows the
 * progress, so the app never freezes. */
#pragma once

#include <gio/gio.h>

#include "pfprof-analysis.h"
#include "pfprof-timeline.h"
#include "pfprof-trace-sketch.h"

G_BEGIN_DECLS

typedef struct
{
  PfprofRun *run;             /* the traces, shared by the timeline and the analysis */
  PfprofAnalysis *analysis;   /* of run */
  PfprofTimeline *timeline;   /* of run, with the analysis's steps and findings */
  gint64 sketch_us;           /* reading the chunk index for the sketch */
  gint64 load_us;             /* reading the files */
  gint64 analysis_us;         /* the analysis and the layout run at once */
  gint64 layout_us;
  gint64 load_cpu_us;         /* the same in CPU time of the thread that did it */
  gint64 analysis_cpu_us;     /* (the wall times count what other processes took */
  gint64 layout_cpu_us;       /* on a busy machine; the layout's helper threads and
                               * the reader's are not counted) */
  gint64 analysis_began_us;   /* g_get_monotonic_time() when the analysis was begun */
  gint64 layout_ended_us;     /* and when the layout was done */
} PfprofViewLoaded;

void pfprof_view_loaded_free (PfprofViewLoaded *loaded);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PfprofViewLoaded, pfprof_view_loaded_free)

/* Loads @paths (NULL-terminated) on a worker thread. @progress_out, an
 * int made with g_atomic_rc_box_new0() (the load holds a reference, so it
 * outlives a closed window), is set to the thousandths done; read it with
 * g_atomic_int_get(). Calls @callback on the calling thread's main context. */
void pfprof_view_loader_load_async (const char *const *paths, int *progress_out,
                                    GCancellable *cancellable, GAsyncReadyCallback callback,
                                    gpointer user_data);

/* Called on the main context as soon as the timeline is laid out (the
 * layout and the analysis begin together once the traces are read, the
 * layout on every core), so that the trace is shown without waiting for
 * the analysis: @timeline, of the run alone, has no steps and no
 * findings yet; it is the timeline the load will return (owned by it:
 * keep showing it only until the load's callback frees or takes the
 * result). */
typedef void (*PfprofViewLoaderTimelineFunc) (PfprofTimeline *timeline, gpointer user_data);

/* Called on the main context, before anything else, with the sketch of
 * a single trace (its chunk index read, none of its events: milliseconds
 * into the load), which the callee takes. Not called for several traces,
 * nor for a trace without a chunk index. */
typedef void (*PfprofViewLoaderSketchFunc) (PfprofTraceSketch *sketch, gpointer user_data);

/* As pfprof_view_loader_load_async(), and calls @sketch_ready (nullable)
 * and @timeline_ready (with @timeline_data, referenced by nothing: keep
 * it alive until @callback) before @callback, in that order, when they
 * are ready first. */
void pfprof_view_loader_load_async_full (const char *const *paths, int *progress_out /* nullable */,
                                         GCancellable *cancellable,
                                         PfprofViewLoaderSketchFunc sketch_ready,
                                         PfprofViewLoaderTimelineFunc timeline_ready,
                                         gpointer timeline_data, GAsyncReadyCallback callback,
                                         gpointer user_data);

/* The result, or NULL with @error set (one line naming the file, or the
 * load was cancelled). Gives the timeline its analysis (steps, findings): call it on the main
 * context, where the timeline is drawn. */
PfprofViewLoaded *pfprof_view_loader_load_finish (GAsyncResult *result, GError **error);

G_END_DECLS
