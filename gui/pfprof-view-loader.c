/* SPDX-License-Identifier: MIT */
/* pfprof-view-loader.c: GTask that reads, analyses and lays out traces. */
#include "pfprof-view-loader.h"

#include <time.h>

#include "pfprof-analysis-options.h"
#include "pfprof-importer.h"
#include "pfprof-run-match.h"

typedef struct
{
  char **paths;
  int *progress;  /* thousandths, written atomically */
  guint n_paths;
  guint current;
  GCancellable *cancellable;
  GMainContext *context; /* the caller's */
  PfprofViewLoaderSketchFunc sketch_ready;
  PfprofViewLoaderTimelineFunc timeline_ready;
  gpointer timeline_data;
  GThread *sketcher;     /* reading the sketch beside the load, or NULL */
  gint64 sketch_us;
} LoadData;

static void
load_data_free (gpointer p)
{
  LoadData *d = p;

  g_strfreev (d->paths);
  if (d->context != NULL)
    g_main_context_unref (d->context);
  if (d->progress != NULL)
    g_atomic_rc_box_release (d->progress);
  g_free (d);
}

void
pfprof_view_loaded_free (PfprofViewLoaded *loaded)
{
  if (loaded == NULL)
    return;
  pfprof_timeline_free (loaded->timeline);
  pfprof_analysis_free (loaded->analysis);
  pfprof_run_unref (loaded->run);
  g_free (loaded);
}

static void
set_progress (LoadData *d, double fraction)
{
  if (d->progress != NULL)
    g_atomic_int_set (d->progress, (int) (CLAMP (fraction, 0, 1) * 1000));
}

/* Reading is 80 % of the bar, analysis and layout the rest. */
static gboolean
on_read_progress (double fraction, gpointer user_data)
{
  LoadData *d = user_data;

  set_progress (d, 0.8 * ((double) d->current + fraction) / (double) MAX (d->n_paths, 1));
  return !g_cancellable_is_cancelled (d->cancellable);
}

static gint64
thread_cpu_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

typedef struct
{
  PfprofViewLoaderSketchFunc sketch_func;
  PfprofViewLoaderTimelineFunc timeline_func;
  gpointer data;
  PfprofTraceSketch *sketch;
  PfprofTimeline *timeline;
} Ready;

static gboolean
call_ready (gpointer data)
{
  Ready *r = data;

  if (r->sketch_func != NULL)
    r->sketch_func (g_steal_pointer (&r->sketch), r->data);
  else
    r->timeline_func (r->timeline, r->data);
  return G_SOURCE_REMOVE;
}

static void
ready_free (gpointer data)
{
  Ready *r = data;

  pfprof_trace_sketch_free (r->sketch);
  g_free (r);
}

/* Hands @r to the main context. At a higher priority than the task's
 * result, so it is never handled after it; the sources of one priority
 * are dispatched in the order they were attached, so the sketch comes
 * before the timeline. */
static void
post (LoadData *d, Ready *r)
{
  GSource *source = g_idle_source_new ();

  r->data = d->timeline_data;
  /* A source, not g_main_context_invoke(): that would run it on this
   * thread when no one iterates the context at the moment. */
  g_source_set_priority (source, G_PRIORITY_HIGH);
  g_source_set_callback (source, call_ready, r, ready_free);
  g_source_attach (source, d->context);
  g_source_unref (source);
}

/* Reads the chunk index of a single trace and hands its sketch to the
 * main context: drawn while the events load. Nothing when there is none
 * to draw; an unreadable file is the load's to report. */
static gpointer
post_sketch (gpointer data)
{
  LoadData *d = data;
  gint64 t = g_get_monotonic_time ();
  PfprofTraceSketch *sketch = pfprof_trace_sketch_new (d->paths[0], NULL);
  Ready *r;

  if (sketch != NULL)
    {
      r = g_new0 (Ready, 1);
      r->sketch_func = d->sketch_ready;
      r->sketch = sketch;
      post (d, r);
    }
  d->sketch_us = g_get_monotonic_time () - t;
  return NULL;
}

/* The sketch is read on a thread of its own, so that the load does not
 * wait for it (tens of milliseconds on a big trace, more on a busy
 * machine); without a thread to be had, here. */
static void
start_sketch (LoadData *d)
{
  if (d->sketch_ready == NULL || d->n_paths != 1)
    return;
  d->sketcher = g_thread_try_new ("pfprof-sketch", post_sketch, d, NULL);
  if (d->sketcher == NULL)
    post_sketch (d);
}

/* Waits for the sketch: before the timeline is posted, so that it comes
 * first, and before the load returns, which frees @d. */
static void
join_sketch (LoadData *d)
{
  if (d->sketcher != NULL)
    g_thread_join (g_steal_pointer (&d->sketcher));
}

/* Hands the laid-out timeline to the main context: shown now, while the
 * analysis goes on. */
static void
post_timeline (LoadData *d, PfprofTimeline *timeline)
{
  Ready *r;

  if (d->timeline_ready == NULL)
    return;
  r = g_new0 (Ready, 1);
  r->timeline_func = d->timeline_ready;
  r->timeline = timeline;
  post (d, r);
}

/* The analysis of a run, on a thread of its own. */
typedef struct
{
  const PfprofRun *run;
  PfprofAnalysisOptions *options;
  PfprofAnalysis *analysis;
  gint64 began_us;  /* when it was handed to its thread */
  gint64 us;
  gint64 cpu_us;
} Analyse;

static gpointer
analyse (gpointer data)
{
  Analyse *a = data;
  gint64 t = g_get_monotonic_time ();
  gint64 c = thread_cpu_us ();

  a->analysis = pfprof_analysis_run (a->run, a->options);
  a->us = g_get_monotonic_time () - t;
  a->cpu_us = thread_cpu_us () - c;
  return NULL;
}

static void
load_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  LoadData *d = task_data;
  g_autoptr (GPtrArray) traces = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_trace_free);
  PfprofViewLoaded *loaded = g_new0 (PfprofViewLoaded, 1);
  GError *error = NULL;
  gint64 t = g_get_monotonic_time ();
  gint64 c = thread_cpu_us ();

  d->cancellable = cancellable;
  start_sketch (d);
  for (d->current = 0; d->current < d->n_paths; d->current++)
    {
      PfprofTrace *trace = pfprof_importer_load (d->paths[d->current], on_read_progress, d, &error);

      if (trace == NULL)
        {
          g_free (loaded);
          join_sketch (d);
          g_task_return_error (task, error);
          return;
        }
      g_ptr_array_add (traces, trace);
    }
  /* As the commands: traces of different runs are not one timeline. */
  if (!pfprof_run_match_traces (traces, &error))
    {
      g_free (loaded);
      join_sketch (d);
      g_task_return_error (task, error);
      return;
    }
  loaded->load_us = g_get_monotonic_time () - t;
  loaded->load_cpu_us = thread_cpu_us () - c;
  set_progress (d, 0.85);
  /* Aligned and trimmed here, once; from now on it is only read. */
  loaded->run = pfprof_run_new (g_steal_pointer (&traces));
  {
    g_autoptr (PfprofAnalysisOptions) options = pfprof_analysis_options_new ();
    PfprofSourceLinesPolicy policy;
    Analyse a = { loaded->run, options, NULL, 0, 0, 0 };
    GThread *thread;

    /* The occurrence navigator steps through all of them. */
    pfprof_analysis_options_set_keep_occurrences (options, TRUE);
    /* As `pfprof report` reads it; a value it would refuse leaves the
     * default, which reads the least. */
    if (pfprof_source_lines_policy_from_string (g_getenv ("PFPROF_SOURCE_LINES"), &policy))
      pfprof_analysis_options_set_source_lines (options, policy);
    /* The analysis needs the run alone: it begins now, on a thread of
     * its own, while this one lays the timeline out (on every core: the
     * layout spreads its passes over the lanes) and shows it. Both only
     * read the run. The findings come sooner by the layout's time; the
     * timeline a little later, the two sharing the cores, but the
     * sketch is on screen meanwhile. Without a thread to be had, one
     * after the other. */
    a.began_us = g_get_monotonic_time ();
    thread = g_thread_try_new ("pfprof-analysis", analyse, &a, NULL);
    t = g_get_monotonic_time ();
    c = thread_cpu_us ();
    loaded->timeline = pfprof_timeline_new_for_run (loaded->run, NULL, NULL);
    loaded->layout_ended_us = g_get_monotonic_time ();
    loaded->layout_us = loaded->layout_ended_us - t;
    loaded->layout_cpu_us = thread_cpu_us () - c;
    join_sketch (d);
    loaded->sketch_us = d->sketch_us;
    post_timeline (d, loaded->timeline);
    if (thread != NULL)
      g_thread_join (thread);
    else
      {
        a.began_us = g_get_monotonic_time ();
        analyse (&a);
      }
    loaded->analysis = a.analysis;
    loaded->analysis_began_us = a.began_us;
    loaded->analysis_us = a.us;
    loaded->analysis_cpu_us = a.cpu_us;
  }
  set_progress (d, 1.0);
  g_task_return_pointer (task, loaded, (GDestroyNotify) pfprof_view_loaded_free);
}

void
pfprof_view_loader_load_async (const char *const *paths, int *progress_out,
                               GCancellable *cancellable, GAsyncReadyCallback callback,
                               gpointer user_data)
{
  pfprof_view_loader_load_async_full (paths, progress_out, cancellable, NULL, NULL, NULL, callback,
                                      user_data);
}

void
pfprof_view_loader_load_async_full (const char *const *paths, int *progress_out,
                                    GCancellable *cancellable,
                                    PfprofViewLoaderSketchFunc sketch_ready,
                                    PfprofViewLoaderTimelineFunc timeline_ready,
                                    gpointer timeline_data, GAsyncReadyCallback callback,
                                    gpointer user_data)
{
  g_return_if_fail (paths != NULL);

  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  LoadData *d = g_new0 (LoadData, 1);

  d->context = g_main_context_ref_thread_default ();
  d->sketch_ready = sketch_ready;
  d->timeline_ready = timeline_ready;
  d->timeline_data = timeline_data;
  d->paths = g_strdupv ((char **) paths);
  d->n_paths = g_strv_length (d->paths);
  d->progress = progress_out ? g_atomic_rc_box_acquire (progress_out) : NULL;
  g_task_set_task_data (task, d, load_data_free);
  g_task_set_return_on_cancel (task, FALSE);
  g_task_run_in_thread (task, load_thread);
}

PfprofViewLoaded *
pfprof_view_loader_load_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (result != NULL, NULL);

  PfprofViewLoaded *loaded = g_task_propagate_pointer (G_TASK (result), error);

  /* Here, not on the worker: the timeline may be on screen already. */
  if (loaded != NULL && !pfprof_timeline_set_analysis (loaded->timeline, loaded->analysis))
    g_error ("pfprof-view: the analysis reordered the traces");
  return loaded;
}
