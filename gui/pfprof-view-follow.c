/* SPDX-License-Identifier: MIT */
/* pfprof-view-follow.c: reloads unfinished traces as they grow. */
#include "pfprof-view-follow.h"

#include <sys/stat.h>

#define POLL_MS 500
#define MIN_INTERVAL_US G_USEC_PER_SEC

struct _PfprofViewFollow
{
  char **paths;
  PfprofViewFollowFunc func;
  gpointer user_data;
  guint source;
  char *seen;             /* the files' sizes and times at the last reload */
  GCancellable *cancellable; /* of the reload in flight, or NULL */
  gint64 started_us;      /* when the last reload started */
  gint64 took_us;         /* how long it took */
  guint n_reloads;
  gboolean done;          /* the traces were complete: nothing more comes */
};

/* Sizes and modification times of every file of the traces: the
 * database and its -wal, which the collector's commits grow. */
static char *
signature (PfprofViewFollow *f)
{
  GString *s = g_string_new ("");

  for (guint i = 0; f->paths[i] != NULL; i++)
    for (int wal = 0; wal < 2; wal++)
      {
        g_autofree char *path = wal ? g_strconcat (f->paths[i], "-wal", NULL) : g_strdup (f->paths[i]);
        struct stat st;

        if (stat (path, &st) != 0)
          g_string_append (s, "-;");
        else
          g_string_append_printf (s, "%lld.%lld.%ld;", (long long) st.st_size, (long long) st.st_mtim.tv_sec,
                                  (long) st.st_mtim.tv_nsec);
      }
  return g_string_free (s, FALSE);
}

gboolean
pfprof_view_follow_is_live (const PfprofViewLoaded *loaded)
{
  GPtrArray *traces;

  g_return_val_if_fail (loaded != NULL, FALSE);

  traces = pfprof_run_get_traces (loaded->run);
  for (guint i = 0; i < traces->len; i++)
    if (pfprof_trace_is_incomplete (g_ptr_array_index (traces, i)))
      return TRUE;
  return FALSE;
}

typedef struct
{
  PfprofViewFollow *follow; /* NULL once the follower is gone */
} Reload;

static void
on_reloaded (GObject *source, GAsyncResult *result, gpointer data)
{
  Reload *r = data;
  PfprofViewFollow *f = r->follow;
  g_autoptr (GError) error = NULL;
  PfprofViewLoaded *loaded = pfprof_view_loader_load_finish (result, &error);

  g_free (r);
  if (f == NULL)
    {
      /* The window went away meanwhile. */
      pfprof_view_loaded_free (loaded);
      return;
    }
  g_clear_object (&f->cancellable);
  f->took_us = g_get_monotonic_time () - f->started_us;
  /* A half-written batch the reader refused: the next commit brings the
   * rest, and the next poll tries again. */
  if (loaded == NULL)
    {
      g_clear_pointer (&f->seen, g_free);
      return;
    }
  f->n_reloads++;
  if (!pfprof_view_follow_is_live (loaded))
    f->done = TRUE;
  f->func (loaded, f->user_data);
}

static Reload *pending_reload (PfprofViewFollow *f);

static gboolean
on_poll (gpointer data)
{
  PfprofViewFollow *f = data;
  g_autofree char *now = NULL;
  gint64 wait = MAX (MIN_INTERVAL_US, 2 * f->took_us);

  if (f->done)
    {
      f->source = 0;
      return G_SOURCE_REMOVE;
    }
  if (f->cancellable != NULL || g_get_monotonic_time () - f->started_us < wait)
    return G_SOURCE_CONTINUE;
  now = signature (f);
  if (g_strcmp0 (now, f->seen) == 0)
    return G_SOURCE_CONTINUE;
  g_free (f->seen);
  f->seen = g_steal_pointer (&now);
  f->started_us = g_get_monotonic_time ();
  f->cancellable = g_cancellable_new ();
  pfprof_view_loader_load_async ((const char *const *) f->paths, NULL, f->cancellable, on_reloaded,
                                 pending_reload (f));
  return G_SOURCE_CONTINUE;
}

/* The reload in flight keeps a pointer back, cleared when the follower
 * is freed first. */
static Reload *
pending_reload (PfprofViewFollow *f)
{
  Reload *r = g_new (Reload, 1);

  r->follow = f;
  g_object_set_data_full (G_OBJECT (f->cancellable), "pfprof-reload", r, NULL);
  return r;
}

PfprofViewFollow *
pfprof_view_follow_new (const char *const *paths, PfprofViewFollowFunc func, gpointer user_data)
{
  PfprofViewFollow *f;

  g_return_val_if_fail (paths != NULL && func != NULL, NULL);

  f = g_new0 (PfprofViewFollow, 1);
  f->paths = g_strdupv ((char **) paths);
  f->func = func;
  f->user_data = user_data;
  /* What was just loaded counts as seen; the first reload comes with the
   * next change. */
  f->seen = signature (f);
  f->started_us = g_get_monotonic_time ();
  f->source = g_timeout_add (POLL_MS, on_poll, f);
  return f;
}

void
pfprof_view_follow_free (PfprofViewFollow *f)
{
  if (f == NULL)
    return;
  g_clear_handle_id (&f->source, g_source_remove);
  if (f->cancellable != NULL)
    {
      Reload *r = g_object_get_data (G_OBJECT (f->cancellable), "pfprof-reload");

      if (r != NULL)
        r->follow = NULL;
      g_cancellable_cancel (f->cancellable);
      g_clear_object (&f->cancellable);
    }
  g_strfreev (f->paths);
  g_free (f->seen);
  g_free (f);
}

guint
pfprof_view_follow_n_reloads (const PfprofViewFollow *f)
{
  g_return_val_if_fail (f != NULL, 0);

  return f->n_reloads;
}
