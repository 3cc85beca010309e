/* pfprof-view-loader.c: GTask that reads, analyses and lays out traces. */
#include "pfprof-view-loader.h"

#include "pfprof-trace-reader.h"

typedef struct
{
  char **paths;
  int *progress;  /* thousandths, written atomically */
  guint n_paths;
  guint current;
  GCancellable *cancellable;
} LoadData;

static void
load_data_free (gpointer p)
{
  LoadData *d = p;

  g_strfreev (d->paths);
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

/* The timeline layout only reads the traces, as the analysis does: it
 * runs on a thread of its own meanwhile (the machines we aim at have two
 * cores), over a bare analysis holding just the traces. */
typedef struct
{
  PfprofAnalysis bare;
  PfprofTimeline *timeline;
  gint64 us;
} Layout;

static gpointer
layout_thread (gpointer data)
{
  Layout *l = data;
  gint64 t = g_get_monotonic_time ();

  l->timeline = pfprof_timeline_new (&l->bare, NULL, NULL);
  l->us = g_get_monotonic_time () - t;
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
  Layout layout = { { 0 }, NULL, 0 };
  GThread *layout_worker;

  d->cancellable = cancellable;
  for (d->current = 0; d->current < d->n_paths; d->current++)
    {
      PfprofTrace *trace = pfprof_trace_reader_load (d->paths[d->current], on_read_progress, d, &error);

      if (trace == NULL)
        {
          g_free (loaded);
          g_task_return_error (task, error);
          return;
        }
      g_ptr_array_add (traces, trace);
    }
  loaded->load_us = g_get_monotonic_time () - t;
  set_progress (d, 0.85);
  /* The same trace pointers, in the same order, without owning them. */
  layout.bare.traces = g_ptr_array_new ();
  for (guint i = 0; i < traces->len; i++)
    g_ptr_array_add (layout.bare.traces, g_ptr_array_index (traces, i));
  layout_worker = g_thread_new ("pfprof-layout", layout_thread, &layout);
  t = g_get_monotonic_time ();
  loaded->analysis = pfprof_analysis_run (g_steal_pointer (&traces), NULL, &error);
  loaded->analysis_us = g_get_monotonic_time () - t;
  /* Joined whatever the outcome: it reads the traces. */
  g_thread_join (layout_worker);
  loaded->layout_us = layout.us;
  if (loaded->analysis == NULL)
    {
      pfprof_timeline_free (layout.timeline);
      g_ptr_array_unref (layout.bare.traces);
      g_free (loaded);
      g_task_return_error (task, error);
      return;
    }
  loaded->timeline = layout.timeline;
  if (!pfprof_timeline_set_analysis (loaded->timeline, loaded->analysis))
    g_error ("pfprof-view: the analysis reordered the traces");
  g_ptr_array_unref (layout.bare.traces);
  set_progress (d, 1.0);
  g_task_return_pointer (task, loaded, (GDestroyNotify) pfprof_view_loaded_free);
}

void
pfprof_view_loader_load_async (const char *const *paths, int *progress_out,
                               GCancellable *cancellable, GAsyncReadyCallback callback,
                               gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  LoadData *d = g_new0 (LoadData, 1);

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
  return g_task_propagate_pointer (G_TASK (result), error);
}
