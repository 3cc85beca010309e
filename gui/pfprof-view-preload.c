/* SPDX-License-Identifier: MIT */
/* pfprof-view-preload.c: a load that begins before its window exists. */
#include "pfprof-view-preload.h"

struct _PfprofViewPreload
{
  char **paths;
  GCancellable *cancellable;
  int *progress;            /* g_atomic_rc_box */
  PfprofTraceSketch *sketch; /* came before the taker */
  PfprofTimeline *timeline; /* came before the taker; owned by the load */
  GAsyncResult *result;     /* came before the taker (referenced) */
  gboolean taken;
  gboolean dropped;
  PfprofViewLoaderSketchFunc sketch_ready;
  PfprofViewLoaderTimelineFunc timeline_ready;
  gpointer timeline_data;
  GAsyncReadyCallback callback;
  gpointer user_data;
  gboolean *freed;          /* set when freed, where someone waits for it */
};

static void
preload_free (PfprofViewPreload *p)
{
  if (p->freed != NULL)
    *p->freed = TRUE;
  g_strfreev (p->paths);
  g_clear_object (&p->cancellable);
  g_atomic_rc_box_release (p->progress);
  g_clear_object (&p->result);
  pfprof_trace_sketch_free (p->sketch);
  g_free (p);
}

static void
on_sketch (PfprofTraceSketch *sketch, gpointer data)
{
  PfprofViewPreload *p = data;

  if (p->taken)
    p->sketch_ready (sketch, p->timeline_data);
  else if (p->dropped)
    pfprof_trace_sketch_free (sketch);
  else
    p->sketch = sketch;
}

static void
on_timeline (PfprofTimeline *timeline, gpointer data)
{
  PfprofViewPreload *p = data;

  if (p->taken)
    p->timeline_ready (timeline, p->timeline_data);
  else
    p->timeline = timeline;
}

/* Frees what was loaded when no one takes it. */
static void
discard (GAsyncResult *result)
{
  g_autoptr (GError) error = NULL;

  pfprof_view_loaded_free (pfprof_view_loader_load_finish (result, &error));
}

static void
on_done (GObject *source, GAsyncResult *result, gpointer data)
{
  PfprofViewPreload *p = data;

  if (p->taken)
    {
      p->callback (source, result, p->user_data);
      preload_free (p);
    }
  else if (p->dropped)
    {
      discard (result);
      preload_free (p);
    }
  else
    p->result = g_object_ref (result);
}

PfprofViewPreload *
pfprof_view_preload_new (const char *const *paths)
{
  g_return_val_if_fail (paths != NULL, NULL);

  PfprofViewPreload *p = g_new0 (PfprofViewPreload, 1);

  p->paths = g_strdupv ((char **) paths);
  p->cancellable = g_cancellable_new ();
  p->progress = g_atomic_rc_box_new0 (int);
  pfprof_view_loader_load_async_full (paths, p->progress, p->cancellable, on_sketch, on_timeline, p,
                                      on_done, p);
  return p;
}

gboolean
pfprof_view_preload_has_files (const PfprofViewPreload *preload, GFile **files, int n_files)
{
  g_return_val_if_fail (preload != NULL, FALSE);
  g_return_val_if_fail (n_files == 0 || files != NULL, FALSE);

  if ((guint) n_files != g_strv_length (preload->paths))
    return FALSE;
  for (int i = 0; i < n_files; i++)
    {
      g_autofree char *path = g_file_get_path (files[i]);

      if (g_strcmp0 (path, preload->paths[i]) != 0)
        return FALSE;
    }
  return TRUE;
}

GCancellable *
pfprof_view_preload_get_cancellable (PfprofViewPreload *preload)
{
  g_return_val_if_fail (preload != NULL, NULL);

  return preload->cancellable;
}

int *
pfprof_view_preload_get_progress (PfprofViewPreload *preload)
{
  g_return_val_if_fail (preload != NULL, NULL);

  return preload->progress;
}

gboolean
pfprof_view_preload_is_loaded (const PfprofViewPreload *preload)
{
  g_return_val_if_fail (preload != NULL, FALSE);

  return preload->result != NULL;
}

void
pfprof_view_preload_take (PfprofViewPreload *preload, PfprofViewLoaderSketchFunc sketch_ready,
                          PfprofViewLoaderTimelineFunc timeline_ready, gpointer timeline_data,
                          GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (preload != NULL);
  g_return_if_fail (sketch_ready != NULL);
  g_return_if_fail (timeline_ready != NULL);
  g_return_if_fail (callback != NULL);
  g_return_if_fail (!preload->taken && !preload->dropped);

  preload->taken = TRUE;
  preload->sketch_ready = sketch_ready;
  preload->timeline_ready = timeline_ready;
  preload->timeline_data = timeline_data;
  preload->callback = callback;
  preload->user_data = user_data;
  /* A sketch that the timeline overtook is not worth a frame. */
  if (preload->sketch != NULL && preload->timeline == NULL)
    sketch_ready (g_steal_pointer (&preload->sketch), timeline_data);
  if (preload->timeline != NULL)
    timeline_ready (g_steal_pointer (&preload->timeline), timeline_data);
  if (preload->result != NULL)
    {
      callback (NULL, preload->result, user_data);
      preload_free (preload);
    }
}

void
pfprof_view_preload_drop (PfprofViewPreload *preload, gboolean wait)
{
  g_return_if_fail (preload != NULL);
  g_return_if_fail (!preload->taken && !preload->dropped);

  gboolean freed = FALSE;

  preload->dropped = TRUE;
  preload->freed = wait ? &freed : NULL;
  g_cancellable_cancel (preload->cancellable);
  if (preload->result != NULL)
    {
      discard (preload->result);
      preload_free (preload);
    }
  while (wait && !freed)
    g_main_context_iteration (NULL, TRUE);
}
