/* pfprof-view-window.c: the main window. */
#include "pfprof-view-window.h"

#include <math.h>

#include "pfprof-format.h"
#include "pfprof-kind-names.h"
#include "pfprof-report.h"
#include "pfprof-render-text.h"

struct _PfprofViewWindow
{
  GtkApplicationWindow parent_instance;

  GtkWidget *stack;
  GtkWidget *progress_bar;
  GtkWidget *progress_label;
  GtkWidget *no_gpu_label;
  GtkWidget *summary;
  GtkWidget *overview;
  PfprofTimelineWidget *timeline;
  GtkWidget *findings_list;
  GtkWidget *finding_box;
  GtkWidget *finding_title;
  GtkWidget *finding_message;
  GtkWidget *occurrence_label;
  GtkWidget *fix_view;
  GtkWidget *details;
  GtkWidget *error_dialog;
  GMenu *recent_menu;

  PfprofViewLoaded *loaded;
  /* Shown while its load's analysis runs (owned by that load), or NULL. */
  PfprofTimeline *early;
  guint load_serial;      /* the latest open's */
  GArray *order;          /* panel row -> index in analysis->findings */
  int finding;            /* index in analysis->findings, -1 */
  int occurrence;
  int *progress;          /* g_atomic_rc_box */
  guint progress_source;
  GCancellable *cancellable;
  cairo_surface_t *overview_cache;
  int overview_cache_w, overview_cache_h;
};

G_DEFINE_FINAL_TYPE (PfprofViewWindow, pfprof_view_window, GTK_TYPE_APPLICATION_WINDOW)

enum
{
  SIGNAL_LOADED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

#define RECENT_APP "pfprof-view"

/* ---- Findings panel -------------------------------------------------- */

static const PfprofFinding *
current_finding (PfprofViewWindow *self)
{
  if (self->loaded == NULL || self->finding < 0)
    return NULL;
  return g_ptr_array_index (self->loaded->analysis->findings, self->finding);
}

static void
show_occurrence (PfprofViewWindow *self)
{
  const PfprofFinding *f = current_finding (self);
  const PfprofEvidence *ev;
  gint64 span, mid;
  char text[64];
  int row;

  if (f == NULL || f->evidence == NULL || f->evidence->len == 0)
    {
      gtk_label_set_text (GTK_LABEL (self->occurrence_label), "No occurrence on the timeline");
      pfprof_timeline_widget_select_finding (self->timeline, self->finding, -1);
      return;
    }
  self->occurrence = CLAMP (self->occurrence, 0, (int) f->evidence->len - 1);
  ev = &g_array_index (f->evidence, PfprofEvidence, self->occurrence);
  /* Wide enough to see the occurrence with some of what surrounds it. */
  span = MAX (ev->end_ns - ev->start_ns, 1000) * 4;
  mid = ev->start_ns + (ev->end_ns - ev->start_ns) / 2;
  pfprof_timeline_widget_select_finding (self->timeline, self->finding, self->occurrence);
  pfprof_timeline_widget_set_range (self->timeline, mid - span / 2, mid + span / 2);
  row = pfprof_timeline_finding_rows (self->loaded->timeline, (guint) self->finding)[self->occurrence];
  pfprof_timeline_widget_scroll_to_row (self->timeline, row);
  g_snprintf (text, sizeof text, "Occurrence %d of %u", self->occurrence + 1, f->evidence->len);
  gtk_label_set_text (GTK_LABEL (self->occurrence_label), text);
}

static void
select_finding_index (PfprofViewWindow *self, int index)
{
  const PfprofFinding *f;

  self->finding = index;
  self->occurrence = 0;
  f = current_finding (self);
  gtk_widget_set_visible (self->finding_box, f != NULL);
  if (f == NULL)
    {
      pfprof_timeline_widget_select_finding (self->timeline, -1, -1);
      return;
    }
  /* Trace-derived text goes through set_text: never parsed as markup. */
  gtk_label_set_text (GTK_LABEL (self->finding_title), f->title ? f->title : f->rule);
  gtk_label_set_text (GTK_LABEL (self->finding_message), f->message ? f->message : "");
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->fix_view)),
                            f->fix ? f->fix : "", -1);
  show_occurrence (self);
}

static void
on_finding_row_selected (GtkListBox *box, GtkListBoxRow *row, gpointer data)
{
  PfprofViewWindow *self = data;

  if (row == NULL || self->order == NULL)
    {
      select_finding_index (self, -1);
      return;
    }
  select_finding_index (self, g_array_index (self->order, int, gtk_list_box_row_get_index (row)));
}

gboolean
pfprof_view_window_select_finding (PfprofViewWindow *self, guint n)
{
  GtkListBoxRow *row = gtk_list_box_get_row_at_index (GTK_LIST_BOX (self->findings_list), (int) n);

  if (row == NULL)
    return FALSE;
  gtk_list_box_select_row (GTK_LIST_BOX (self->findings_list), row);
  /* Focusing the row scrolls the panel to it; the keys then go back to
   * the timeline. */
  gtk_widget_grab_focus (GTK_WIDGET (row));
  gtk_widget_grab_focus (GTK_WIDGET (self->timeline));
  return TRUE;
}

gboolean
pfprof_view_window_select_rule (PfprofViewWindow *self, const char *rule)
{
  for (guint i = 0; self->loaded != NULL && self->order != NULL && i < self->order->len; i++)
    {
      const PfprofFinding *f = g_ptr_array_index (self->loaded->analysis->findings, g_array_index (self->order, int, i));

      if (g_strcmp0 (f->rule, rule) == 0)
        return pfprof_view_window_select_finding (self, i);
    }
  return FALSE;
}

void
pfprof_view_window_step_occurrence (PfprofViewWindow *self, int delta)
{
  const PfprofFinding *f = current_finding (self);

  if (f == NULL || f->evidence == NULL || f->evidence->len == 0)
    return;
  /* Wrap around, as "find next" does. */
  self->occurrence = (self->occurrence + delta + (int) f->evidence->len) % (int) f->evidence->len;
  show_occurrence (self);
}

static void
on_next (GtkButton *b, gpointer data)
{
  pfprof_view_window_step_occurrence (data, 1);
}

static void
on_prev (GtkButton *b, gpointer data)
{
  pfprof_view_window_step_occurrence (data, -1);
}

static void
on_copy_fix (GtkButton *b, gpointer data)
{
  PfprofViewWindow *self = data;
  const PfprofFinding *f = current_finding (self);

  if (f != NULL && f->fix != NULL)
    gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), f->fix);
}

static int
compare_order (gconstpointer a, gconstpointer b, gpointer data)
{
  GPtrArray *findings = data;
  const PfprofFinding *x = g_ptr_array_index (findings, *(const int *) a);
  const PfprofFinding *y = g_ptr_array_index (findings, *(const int *) b);

  if (x->severity != y->severity)
    return x->severity > y->severity ? -1 : 1;
  if (x->est_savings_ns != y->est_savings_ns)
    return x->est_savings_ns > y->est_savings_ns ? -1 : 1;
  return *(const int *) a - *(const int *) b;
}

static void
fill_findings (PfprofViewWindow *self)
{
  GtkWidget *child;
  GPtrArray *findings = self->loaded->analysis->findings;

  while ((child = gtk_widget_get_first_child (self->findings_list)) != NULL)
    gtk_list_box_remove (GTK_LIST_BOX (self->findings_list), child);
  g_clear_pointer (&self->order, g_array_unref);
  self->order = g_array_new (FALSE, FALSE, sizeof (int));
  for (int i = 0; findings != NULL && i < (int) findings->len; i++)
    g_array_append_val (self->order, i);
  if (findings != NULL)
    g_array_sort_with_data (self->order, compare_order, findings);
  for (guint i = 0; i < self->order->len; i++)
    {
      const PfprofFinding *f = g_ptr_array_index (findings, g_array_index (self->order, int, i));
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
      GtkWidget *title = gtk_label_new (f->title ? f->title : f->rule);
      g_autofree char *savings = pfprof_report_saving (f);
      g_autofree char *meta = g_strdup_printf ("%s \u00b7 %s \u00b7 %s \u00b7 %" G_GUINT64_FORMAT " occurrences",
                                               pfprof_severity_to_string (f->severity), f->rule, savings, f->count);
      GtkWidget *sub = gtk_label_new (meta);

      gtk_label_set_xalign (GTK_LABEL (title), 0);
      gtk_label_set_wrap (GTK_LABEL (title), TRUE);
      gtk_widget_add_css_class (title, "heading");
      gtk_label_set_xalign (GTK_LABEL (sub), 0);
      gtk_label_set_wrap (GTK_LABEL (sub), TRUE);
      gtk_widget_add_css_class (sub, "dim-label");
      gtk_widget_add_css_class (box, f->severity == PFPROF_SEVERITY_ERROR     ? "pfprof-error"
                                     : f->severity == PFPROF_SEVERITY_WARNING ? "pfprof-warning"
                                                                              : "pfprof-info");
      gtk_widget_set_margin_start (box, 8);
      gtk_widget_set_margin_end (box, 8);
      gtk_widget_set_margin_top (box, 6);
      gtk_widget_set_margin_bottom (box, 6);
      gtk_box_append (GTK_BOX (box), title);
      gtk_box_append (GTK_BOX (box), sub);
      gtk_list_box_append (GTK_LIST_BOX (self->findings_list), box);
    }
  if (self->order->len == 0)
    {
      GtkWidget *none = gtk_label_new ("No findings: the input pipeline keeps up.");

      gtk_widget_set_margin_top (none, 12);
      gtk_widget_set_margin_bottom (none, 12);
      gtk_list_box_append (GTK_LIST_BOX (self->findings_list), none);
      gtk_list_box_row_set_selectable (gtk_list_box_get_row_at_index (GTK_LIST_BOX (self->findings_list), 0), FALSE);
      g_array_set_size (self->order, 0);
    }
  self->finding = -1;
  gtk_widget_set_visible (self->finding_box, FALSE);
}

/* ---- Summary ---------------------------------------------------------- */

static int
compare_i64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

static gint64
median_of (GArray *steps, guint trace_index, gsize offset)
{
  g_autoptr (GArray) v = g_array_new (FALSE, FALSE, sizeof (gint64));

  for (guint i = 0; steps != NULL && i < steps->len; i++)
    {
      const PfprofStep *s = &g_array_index (steps, PfprofStep, i);

      if (!s->warmup && s->trace_index == trace_index)
        g_array_append_val (v, *(const gint64 *) ((const char *) s + offset));
    }
  if (v->len == 0)
    return -1;
  g_array_sort (v, compare_i64);
  return g_array_index (v, gint64, v->len / 2);
}

static void
fill_summary (PfprofViewWindow *self)
{
  const PfprofAnalysis *a = self->loaded->analysis;
  GString *s = g_string_new ("");

  for (guint i = 0; a->devices != NULL && i < a->devices->len; i++)
    {
      const PfprofDeviceSummary *d = &g_array_index (a->devices, PfprofDeviceSummary, i);
      gint64 exposed = median_of (a->steps, d->trace_index, G_STRUCT_OFFSET (PfprofStep, copy_exposed_ns));
      gint64 idle = median_of (a->steps, d->trace_index, G_STRUCT_OFFSET (PfprofStep, idle_ns));

      if (s->len > 0)
        g_string_append (s, "   |   ");
      if (a->traces->len > 1)
        g_string_append_printf (s, "Process %" G_GINT64_FORMAT " ",
                                ((PfprofTrace *) g_ptr_array_index (a->traces, d->trace_index))->pid);
      g_string_append_printf (s, "GPU %u: copy/compute overlap %.0f%%", d->device_id, d->overlap_fraction * 100);
      if (exposed >= 0)
        {
          g_autofree char *e = pfprof_format_ns (exposed);
          g_autofree char *l = pfprof_format_ns (idle);

          g_string_append_printf (s, " \u00b7 exposed copy %s/step \u00b7 idle %s/step", e, l);
        }
    }
  if (a->step_median_ns > 0)
    {
      g_autofree char *m = pfprof_format_ns (a->step_median_ns);

      g_string_append_printf (s, "%smedian step %s (%u steps)", s->len ? "   |   " : "", m,
                              a->steps ? a->steps->len : 0);
    }
  else
    g_string_append_printf (s, "%sno training steps detected", s->len ? "   |   " : "");
  gtk_label_set_text (GTK_LABEL (self->summary), s->str);
  g_string_free (s, TRUE);
}

/* ---- Event details ---------------------------------------------------- */

static void
on_event_selected (PfprofTimelineWidget *w, int row_index, guint ref, gpointer data)
{
  PfprofViewWindow *self = data;
  const PfprofTimelineRow *row;
  const PfprofTrace *t;
  GString *s;
  gint64 start, end;
  guint i = PFPROF_EVENT_REF_INDEX (ref);
  g_autofree char *dur = NULL;
  g_autofree char *at = NULL;
  gint64 call;

  if (row_index < 0 || self->loaded == NULL)
    {
      gtk_label_set_text (GTK_LABEL (self->details), "Click an event to see its details.");
      return;
    }
  row = pfprof_timeline_get_row (self->loaded->timeline, (guint) row_index);
  t = row->trace;
  pfprof_timeline_event_range (t, ref, &start, &end);
  dur = pfprof_format_ns (end - start);
  at = pfprof_format_ns (start - self->loaded->timeline->start_ns);
  s = g_string_new ("");
  switch (PFPROF_EVENT_REF_TABLE (ref))
    {
    case PFPROF_TABLE_KERNELS:
      {
        const PfprofKernelRecord *k = &pfprof_trace_kernels (t)[i];

        g_string_append_printf (s, "Kernel %s\nGPU %u, stream %u\ngrid %d\u00d7%d\u00d7%d, block %d\u00d7%d\u00d7%d, %d registers\n",
                                pfprof_trace_string (t, k->name_id), k->device_id, k->stream_id,
                                k->grid_x, k->grid_y, k->grid_z, k->block_x, k->block_y, k->block_z, k->registers);
        break;
      }
    case PFPROF_TABLE_MEMCPYS:
      {
        const PfprofMemcpyRecord *m = &pfprof_trace_memcpys (t)[i];
        g_autofree char *bytes = pfprof_format_bytes (m->bytes);

        g_string_append_printf (s, "%s copy\nGPU %u, stream %u\n%s, %.2f GB/s\nfrom %s to %s memory%s\n",
                                pfprof_renderer_item_name (pfprof_timeline_event_class (row, ref)),
                                m->device_id, m->stream_id, bytes,
                                end > start ? (double) m->bytes / (double) (end - start) : 0.0,
                                pfprof_kind_names_memory (m->src_kind), pfprof_kind_names_memory (m->dst_kind),
                                (m->flags & PFPROF_MEMCPY_FLAG_ASYNC) ? ", async" : ", synchronous");
        break;
      }
    case PFPROF_TABLE_MEMSETS:
      {
        const PfprofMemsetRecord *m = &pfprof_trace_memsets (t)[i];
        g_autofree char *bytes = pfprof_format_bytes (m->bytes);

        g_string_append_printf (s, "Memset\nGPU %u, stream %u\n%s of %s memory\n", m->device_id,
                                m->stream_id, bytes, pfprof_kind_names_memory (m->memory_kind));
        break;
      }
    case PFPROF_TABLE_SYNCS:
      {
        static const char *types[] = { "unknown", "event synchronize", "stream wait event",
                                       "stream synchronize", "context synchronize" };
        const PfprofSyncRecord *y = &pfprof_trace_syncs (t)[i];

        g_string_append_printf (s, "Synchronization: %s\n", y->type < G_N_ELEMENTS (types) ? types[y->type] : "unknown");
        if (y->stream_id != PFPROF_NONE)
          g_string_append_printf (s, "stream %u\n", y->stream_id);
        break;
      }
    case PFPROF_TABLE_API_CALLS:
      {
        const PfprofApiRecord *a = &pfprof_trace_api_calls (t)[i];

        g_string_append_printf (s, "%s\n%s API, thread %u, returned %d\n", pfprof_trace_string (t, a->name_id),
                                a->domain == PFPROF_API_DRIVER ? "Driver" : "Runtime", a->tid, a->return_value);
        break;
      }
    case PFPROF_TABLE_NVTX:
      {
        const PfprofNvtxRecord *n = &pfprof_trace_nvtx (t)[i];

        g_string_append_printf (s, "NVTX range %s\ndomain %s, thread %u, depth %u\n",
                                pfprof_trace_string (t, n->name_id),
                                n->domain_id == PFPROF_NONE ? "(default)" : pfprof_trace_string (t, n->domain_id),
                                n->tid, n->depth);
        break;
      }
    default:
      break;
    }
  g_string_append_printf (s, "start %s, duration %s", at, dur);
  call = pfprof_timeline_launching_call (self->loaded->timeline, row->trace_index, ref);
  if (call >= 0)
    {
      const PfprofApiRecord *a = &pfprof_trace_api_calls (t)[call];
      g_autofree char *cat = pfprof_format_ns (a->start_ns - self->loaded->timeline->start_ns);

      g_string_append_printf (s, "\nlaunched by %s on thread %u at %s", pfprof_trace_string (t, a->name_id),
                              a->tid, cat);
    }
  else if (PFPROF_EVENT_REF_TABLE (ref) == PFPROF_TABLE_KERNELS
           && g_strcmp0 (pfprof_trace_meta (t, "launch_records"), "0") == 0)
    /* Launches are not intercepted by default (issue 6): say so rather
     * than show nothing. */
    g_string_append (s, "\nlaunching call not recorded (record with --trace-launches)");
  /* Sanitized and set as plain text: names come from the program. */
  {
    g_autofree char *clean = g_utf8_make_valid (s->str, -1);

    gtk_label_set_text (GTK_LABEL (self->details), clean);
  }
  g_string_free (s, TRUE);
}

/* ---- Overview strip --------------------------------------------------- */

static void
draw_overview (GtkDrawingArea *area, cairo_t *cr, int w, int h, gpointer data)
{
  PfprofViewWindow *self = data;
  const PfprofRenderView *main_view;
  PfprofRenderView view;
  double x0, x1;

  if (self->loaded == NULL)
    return;
  /* The whole trace changes only with the size: draw it once. */
  if (self->overview_cache == NULL || self->overview_cache_w != w || self->overview_cache_h != h)
    {
      cairo_t *ccr;
      double content;

      g_clear_pointer (&self->overview_cache, cairo_surface_destroy);
      self->overview_cache = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
      self->overview_cache_w = w;
      self->overview_cache_h = h;
      pfprof_render_view_init (&view, self->loaded->timeline, w, h);
      view.label_width = 0;
      view.ruler_height = 0;
      view.dark = pfprof_timeline_widget_get_view (self->timeline)->dark;
      view.row_scale = 1;
      content = pfprof_renderer_content_height (self->loaded->timeline, &view);
      view.row_scale = content > 0 ? MIN (1.0, h / content) : 1;
      ccr = cairo_create (self->overview_cache);
      pfprof_renderer_draw (ccr, self->loaded->timeline, &view, NULL);
      cairo_destroy (ccr);
    }
  cairo_set_source_surface (cr, self->overview_cache, 0, 0);
  cairo_paint (cr);
  /* The part the timeline shows. */
  main_view = pfprof_timeline_widget_get_view (self->timeline);
  pfprof_render_view_init (&view, self->loaded->timeline, w, h);
  view.label_width = 0;
  x0 = pfprof_renderer_x_of (&view, main_view->t0);
  x1 = pfprof_renderer_x_of (&view, main_view->t1);
  if (x1 - x0 < 2)
    x1 = x0 + 2;
  cairo_set_source_rgba (cr, 0.2, 0.45, 0.95, 0.25);
  cairo_rectangle (cr, x0, 0, x1 - x0, h);
  cairo_fill_preserve (cr);
  cairo_set_source_rgba (cr, 0.2, 0.45, 0.95, 0.9);
  cairo_set_line_width (cr, 1.5);
  cairo_stroke (cr);
}

static void
overview_move (PfprofViewWindow *self, double x)
{
  PfprofRenderView view;
  const PfprofRenderView *main_view;
  gint64 center, half;
  int w = gtk_widget_get_width (self->overview);

  if (self->loaded == NULL || w <= 0)
    return;
  pfprof_render_view_init (&view, self->loaded->timeline, w, 10);
  view.label_width = 0;
  main_view = pfprof_timeline_widget_get_view (self->timeline);
  center = pfprof_renderer_time_at (&view, x);
  half = (main_view->t1 - main_view->t0) / 2;
  pfprof_timeline_widget_set_range (self->timeline, center - half, center + half);
}

static void
on_overview_drag_begin (GtkGestureDrag *g, double x, double y, gpointer data)
{
  overview_move (data, x);
}

static void
on_overview_drag_update (GtkGestureDrag *g, double ox, double oy, gpointer data)
{
  double sx, sy;

  gtk_gesture_drag_get_start_point (g, &sx, &sy);
  overview_move (data, sx + ox);
}

static void
on_view_changed (PfprofTimelineWidget *w, gpointer data)
{
  PfprofViewWindow *self = data;

  gtk_widget_queue_draw (self->overview);
}

/* ---- Loading ---------------------------------------------------------- */

static gboolean
on_progress_tick (gpointer data)
{
  PfprofViewWindow *self = data;

  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress_bar),
                                 g_atomic_int_get (self->progress) / 1000.0);
  return G_SOURCE_CONTINUE;
}

static void
on_error_response (GtkDialog *dialog, int response, gpointer data)
{
  PfprofViewWindow *self = data;

  if (self->error_dialog == GTK_WIDGET (dialog))
    self->error_dialog = NULL;
  gtk_window_destroy (GTK_WINDOW (dialog));
}

static void
show_error (PfprofViewWindow *self, const char *primary, const char *secondary)
{
  GtkWidget *dialog;
  g_autofree char *clean = g_utf8_make_valid (secondary, -1);

  if (self->error_dialog != NULL)
    gtk_window_destroy (GTK_WINDOW (self->error_dialog));
  dialog = gtk_message_dialog_new (GTK_WINDOW (self), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                   GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE, "%s", primary);
  /* Plain text: the message quotes a file name, which may hold markup. */
  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s", clean);
  g_signal_connect (dialog, "response", G_CALLBACK (on_error_response), self);
  self->error_dialog = dialog;
  gtk_window_present (GTK_WINDOW (dialog));
}

/* One open: its window (referenced) and which open it was. */
typedef struct
{
  PfprofViewWindow *self;
  guint serial;
} Pending;

/* The timeline is laid out and the analysis still runs: show the trace
 * now, without steps or findings, the panel saying the analysis is on. */
static void
on_timeline_ready (PfprofTimeline *timeline, gpointer data)
{
  Pending *p = data;
  PfprofViewWindow *self = p->self;
  GtkWidget *child;

  if (p->serial != self->load_serial || timeline->n_gpu_events == 0)
    return;
  pfprof_timeline_widget_set_timeline (self->timeline, NULL);
  g_clear_pointer (&self->loaded, pfprof_view_loaded_free);
  g_clear_pointer (&self->overview_cache, cairo_surface_destroy);
  while ((child = gtk_widget_get_first_child (self->findings_list)) != NULL)
    gtk_list_box_remove (GTK_LIST_BOX (self->findings_list), child);
  g_clear_pointer (&self->order, g_array_unref);
  self->finding = -1;
  gtk_widget_set_visible (self->finding_box, FALSE);
  gtk_label_set_text (GTK_LABEL (self->summary), "Analysing\u2026 (steps and findings follow)");
  self->early = timeline;
  pfprof_timeline_widget_set_timeline (self->timeline, timeline);
  on_event_selected (self->timeline, -1, 0, self);
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "content");
  gtk_widget_queue_draw (self->overview);
  gtk_widget_grab_focus (GTK_WIDGET (self->timeline));
}

static void
on_loaded (GObject *source, GAsyncResult *result, gpointer data)
{
  Pending *p = data;
  PfprofViewWindow *self = p->self;
  g_autoptr (GError) error = NULL;
  PfprofViewLoaded *loaded = pfprof_view_loader_load_finish (result, &error);
  /* This load's timeline is on screen already: keep its view. */
  gboolean shown = loaded != NULL && p->serial == self->load_serial && self->early == loaded->timeline;

  g_free (p);
  g_clear_handle_id (&self->progress_source, g_source_remove);
  if (loaded == NULL && self->early != NULL)
    {
      /* Its load failed after showing the timeline (the load frees it). */
      pfprof_timeline_widget_set_timeline (self->timeline, NULL);
      self->early = NULL;
    }
  if (loaded == NULL)
    {
      gboolean cancelled = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

      /* Back to what was shown before. */
      gtk_stack_set_visible_child_name (GTK_STACK (self->stack),
                                        self->loaded == NULL ? "empty"
                                        : self->loaded->timeline->n_gpu_events == 0 ? "no-gpu"
                                                                                     : "content");
      if (!cancelled)
        show_error (self, "Cannot open the trace", error->message);
      g_signal_emit (self, signals[SIGNAL_LOADED], 0, FALSE);
      g_object_unref (self);
      return;
    }
  if (!shown)
    pfprof_timeline_widget_set_timeline (self->timeline, NULL);
  g_clear_pointer (&self->loaded, pfprof_view_loaded_free);
  g_clear_pointer (&self->overview_cache, cairo_surface_destroy);
  self->loaded = loaded;
  self->early = NULL;
  if (shown)
    gtk_widget_queue_draw (GTK_WIDGET (self->timeline));
  else
    pfprof_timeline_widget_set_timeline (self->timeline, loaded->timeline);
  fill_summary (self);
  fill_findings (self);
  on_event_selected (self->timeline, -1, 0, self);
  {
    const PfprofTrace *t = g_ptr_array_index (loaded->analysis->traces, 0);
    g_autofree char *base = g_path_get_basename (t->path ? t->path : "trace");
    g_autofree char *clean = pfprof_render_sanitize (base, 80);
    g_autofree char *title = loaded->analysis->traces->len > 1
                               ? g_strdup_printf ("%s and %u more \u2014 pfprof", clean, loaded->analysis->traces->len - 1)
                               : g_strdup_printf ("%s \u2014 pfprof", clean);

    gtk_window_set_title (GTK_WINDOW (self), title);
    for (guint i = 0; i < loaded->analysis->traces->len; i++)
      {
        const PfprofTrace *ti = g_ptr_array_index (loaded->analysis->traces, i);
        g_autofree char *uri = ti->path ? g_filename_to_uri (ti->path, NULL, NULL) : NULL;
        GtkRecentData rd = { 0 };

        if (uri == NULL)
          continue;
        rd.mime_type = (char *) "application/vnd.sqlite3";
        rd.app_name = (char *) RECENT_APP;
        rd.app_exec = (char *) RECENT_APP " %u";
        gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &rd);
      }
  }
  if (loaded->timeline->n_gpu_events == 0)
    {
      g_autofree char *msg = g_strdup_printf (
        "No GPU activity in this trace\n\n"
        "It holds %" G_GUINT64_FORMAT " host events but no kernels, copies or memsets.\n"
        "Did the program use CUDA, and did it run long enough to launch work?",
        pfprof_trace_n_events (g_ptr_array_index (loaded->analysis->traces, 0)));

      gtk_label_set_text (GTK_LABEL (self->no_gpu_label), msg);
      gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "no-gpu");
    }
  else
    gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "content");
  gtk_widget_queue_draw (self->overview);
  gtk_widget_grab_focus (GTK_WIDGET (self->timeline));
  g_signal_emit (self, signals[SIGNAL_LOADED], 0, TRUE);
  g_object_unref (self);
}

void
pfprof_view_window_open (PfprofViewWindow *self, GFile **files, int n_files)
{
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);

  for (int i = 0; i < n_files; i++)
    {
      char *path = g_file_get_path (files[i]);

      if (path == NULL)
        {
          g_autofree char *uri = g_file_get_uri (files[i]);
          g_autofree char *msg = g_strdup_printf ("%s: only local files can be opened", uri);

          show_error (self, "Cannot open the trace", msg);
          return;
        }
      g_ptr_array_add (paths, path);
    }
  if (paths->len == 0)
    return;
  g_ptr_array_add (paths, NULL);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  g_atomic_int_set (self->progress, 0);
  {
    g_autofree char *base = g_path_get_basename (g_ptr_array_index (paths, 0));
    g_autofree char *clean = pfprof_render_sanitize (base, 80);
    g_autofree char *msg = g_strdup_printf ("Loading %s\u2026", clean);

    gtk_label_set_text (GTK_LABEL (self->progress_label), msg);
  }
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress_bar), 0);
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "loading");
  g_clear_handle_id (&self->progress_source, g_source_remove);
  self->progress_source = g_timeout_add (50, on_progress_tick, self);
  {
    Pending *p = g_new (Pending, 1);

    p->self = g_object_ref (self);
    p->serial = ++self->load_serial;
    pfprof_view_loader_load_async_full ((const char *const *) paths->pdata, self->progress,
                                        self->cancellable, on_timeline_ready, p, on_loaded, p);
  }
}

/* ---- Actions ---------------------------------------------------------- */

static void
on_open_response (GtkNativeDialog *dialog, int response, gpointer data)
{
  PfprofViewWindow *self = data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      GListModel *files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (dialog));
      guint n = g_list_model_get_n_items (files);
      g_autofree GFile **arr = g_new0 (GFile *, n + 1);

      for (guint i = 0; i < n; i++)
        arr[i] = g_list_model_get_item (files, i);
      pfprof_view_window_open (self, arr, (int) n);
      for (guint i = 0; i < n; i++)
        g_object_unref (arr[i]);
      g_object_unref (files);
    }
  g_object_unref (dialog);
}

static void
action_open (GSimpleAction *action, GVariant *param, gpointer data)
{
  PfprofViewWindow *self = data;
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new ("Open Trace", GTK_WINDOW (self),
                                                              GTK_FILE_CHOOSER_ACTION_OPEN, "_Open", "_Cancel");
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, "pfprof traces");
  gtk_file_filter_add_pattern (filter, "*.pfprof");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  g_object_unref (filter);
  filter = gtk_file_filter_new ();
  gtk_file_filter_set_name (filter, "All files");
  gtk_file_filter_add_pattern (filter, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  g_object_unref (filter);
  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (dialog), TRUE);
  g_signal_connect (dialog, "response", G_CALLBACK (on_open_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
action_open_recent (GSimpleAction *action, GVariant *param, gpointer data)
{
  g_autoptr (GFile) file = g_file_new_for_uri (g_variant_get_string (param, NULL));

  pfprof_view_window_open (data, &file, 1);
}

static void
action_fit (GSimpleAction *action, GVariant *param, gpointer data)
{
  PfprofViewWindow *self = data;

  pfprof_timeline_widget_fit_all (self->timeline);
}

static void
action_zoom (GSimpleAction *action, GVariant *param, gpointer data)
{
  PfprofViewWindow *self = data;
  const PfprofRenderView *v = pfprof_timeline_widget_get_view (self->timeline);
  gboolean in = g_str_equal (g_action_get_name (G_ACTION (action)), "zoom-in");

  pfprof_timeline_widget_zoom (self->timeline, in ? 0.5 : 2.0, v->t0 + (v->t1 - v->t0) / 2);
}

static void
action_occurrence (GSimpleAction *action, GVariant *param, gpointer data)
{
  pfprof_view_window_step_occurrence (data, g_str_equal (g_action_get_name (G_ACTION (action)), "next-occurrence") ? 1 : -1);
}

static void
rebuild_recent (PfprofViewWindow *self)
{
  GList *items = gtk_recent_manager_get_items (gtk_recent_manager_get_default ());
  int n = 0;

  g_menu_remove_all (self->recent_menu);
  for (GList *l = items; l != NULL && n < 10; l = l->next)
    {
      GtkRecentInfo *info = l->data;
      g_autofree char *label = NULL;
      g_autoptr (GMenuItem) item = NULL;

      if (!gtk_recent_info_has_application (info, RECENT_APP) || !gtk_recent_info_exists (info))
        continue;
      label = pfprof_render_sanitize (gtk_recent_info_get_display_name (info), 60);
      item = g_menu_item_new (label, NULL);
      g_menu_item_set_action_and_target_value (item, "win.open-recent",
                                               g_variant_new_string (gtk_recent_info_get_uri (info)));
      g_menu_append_item (self->recent_menu, item);
      n++;
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
  if (n == 0)
    g_menu_append (self->recent_menu, "No recent traces", "win.none");
}

static void
on_recent_changed (GtkRecentManager *m, gpointer data)
{
  rebuild_recent (data);
}

static gboolean
on_drop (GtkDropTarget *target, const GValue *value, double x, double y, gpointer data)
{
  PfprofViewWindow *self = data;
  GSList *list;
  g_autofree GFile **arr = NULL;
  int n = 0;

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  list = gdk_file_list_get_files (g_value_get_boxed (value));
  arr = g_new0 (GFile *, g_slist_length (list) + 1);
  for (GSList *l = list; l != NULL; l = l->next)
    arr[n++] = l->data;
  g_slist_free (list);
  if (n == 0)
    return FALSE;
  pfprof_view_window_open (self, arr, n);
  return TRUE;
}

static void
update_dark (PfprofViewWindow *self)
{
  GtkSettings *settings = gtk_widget_get_settings (GTK_WIDGET (self));
  gboolean prefer_dark = FALSE;
  g_autofree char *theme = NULL;

  g_object_get (settings, "gtk-application-prefer-dark-theme", &prefer_dark, "gtk-theme-name", &theme, NULL);
  if (theme != NULL && (g_str_has_suffix (theme, "-dark") || g_str_has_suffix (theme, ":dark")))
    prefer_dark = TRUE;
  {
    const char *env = g_getenv ("GTK_THEME");

    if (env != NULL && g_str_has_suffix (env, ":dark"))
      prefer_dark = TRUE;
  }
  pfprof_timeline_widget_set_dark (self->timeline, prefer_dark);
  g_clear_pointer (&self->overview_cache, cairo_surface_destroy);
  gtk_widget_queue_draw (self->overview);
}

static void
on_settings_changed (GObject *o, GParamSpec *p, gpointer data)
{
  update_dark (data);
}

/* ---- Construction ----------------------------------------------------- */

static GtkWidget *
centered_label (const char *text, const char *css)
{
  GtkWidget *l = gtk_label_new (text);

  gtk_label_set_justify (GTK_LABEL (l), GTK_JUSTIFY_CENTER);
  gtk_label_set_wrap (GTK_LABEL (l), TRUE);
  gtk_widget_set_valign (l, GTK_ALIGN_CENTER);
  gtk_widget_set_halign (l, GTK_ALIGN_CENTER);
  if (css)
    gtk_widget_add_css_class (l, css);
  return l;
}

static GtkWidget *
build_sidebar (PfprofViewWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *scroll, *nav, *b, *fixbox, *heading;

  heading = gtk_label_new ("Findings");
  gtk_widget_add_css_class (heading, "title-4");
  gtk_label_set_xalign (GTK_LABEL (heading), 0);
  gtk_widget_set_margin_start (heading, 8);
  gtk_widget_set_margin_top (heading, 6);
  gtk_box_append (GTK_BOX (box), heading);

  self->findings_list = gtk_list_box_new ();
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (self->findings_list), GTK_SELECTION_SINGLE);
  g_signal_connect (self->findings_list, "row-selected", G_CALLBACK (on_finding_row_selected), self);
  scroll = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroll), self->findings_list);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroll), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_vexpand (scroll, TRUE);
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scroll), 160);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroll), TRUE);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scroll), 320);
  gtk_box_append (GTK_BOX (box), scroll);

  self->finding_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_widget_set_margin_start (self->finding_box, 8);
  gtk_widget_set_margin_end (self->finding_box, 8);
  self->finding_title = gtk_label_new ("");
  gtk_widget_add_css_class (self->finding_title, "heading");
  gtk_label_set_wrap (GTK_LABEL (self->finding_title), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->finding_title), 0);
  self->finding_message = gtk_label_new ("");
  gtk_label_set_wrap (GTK_LABEL (self->finding_message), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->finding_message), 0);
  gtk_label_set_selectable (GTK_LABEL (self->finding_message), TRUE);
  gtk_box_append (GTK_BOX (self->finding_box), self->finding_title);
  gtk_box_append (GTK_BOX (self->finding_box), self->finding_message);

  nav = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  b = gtk_button_new_from_icon_name ("go-previous-symbolic");
  gtk_widget_set_tooltip_text (b, "Previous occurrence (Ctrl+[)");
  g_signal_connect (b, "clicked", G_CALLBACK (on_prev), self);
  gtk_box_append (GTK_BOX (nav), b);
  self->occurrence_label = gtk_label_new ("");
  gtk_widget_set_hexpand (self->occurrence_label, TRUE);
  gtk_box_append (GTK_BOX (nav), self->occurrence_label);
  b = gtk_button_new_from_icon_name ("go-next-symbolic");
  gtk_widget_set_tooltip_text (b, "Next occurrence (Ctrl+])");
  g_signal_connect (b, "clicked", G_CALLBACK (on_next), self);
  gtk_box_append (GTK_BOX (nav), b);
  gtk_box_append (GTK_BOX (self->finding_box), nav);

  fixbox = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  heading = gtk_label_new ("Fix");
  gtk_widget_add_css_class (heading, "heading");
  gtk_widget_set_hexpand (heading, TRUE);
  gtk_label_set_xalign (GTK_LABEL (heading), 0);
  gtk_box_append (GTK_BOX (fixbox), heading);
  b = gtk_button_new_with_label ("Copy");
  gtk_widget_set_tooltip_text (b, "Copy the fix to the clipboard");
  g_signal_connect (b, "clicked", G_CALLBACK (on_copy_fix), self);
  gtk_box_append (GTK_BOX (fixbox), b);
  gtk_box_append (GTK_BOX (self->finding_box), fixbox);
  self->fix_view = gtk_text_view_new ();
  gtk_text_view_set_editable (GTK_TEXT_VIEW (self->fix_view), FALSE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (self->fix_view), TRUE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (self->fix_view), GTK_WRAP_WORD_CHAR);
  scroll = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroll), self->fix_view);
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scroll), 90);
  gtk_box_append (GTK_BOX (self->finding_box), scroll);
  gtk_widget_set_visible (self->finding_box, FALSE);
  gtk_box_append (GTK_BOX (box), self->finding_box);

  heading = gtk_label_new ("Details");
  gtk_widget_add_css_class (heading, "heading");
  gtk_label_set_xalign (GTK_LABEL (heading), 0);
  gtk_widget_set_margin_start (heading, 8);
  gtk_box_append (GTK_BOX (box), heading);
  self->details = gtk_label_new ("Click an event to see its details.");
  gtk_label_set_wrap (GTK_LABEL (self->details), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (self->details), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (GTK_LABEL (self->details), 0);
  gtk_label_set_selectable (GTK_LABEL (self->details), TRUE);
  gtk_widget_set_margin_start (self->details, 8);
  gtk_widget_set_margin_end (self->details, 8);
  gtk_widget_set_margin_bottom (self->details, 8);
  gtk_box_append (GTK_BOX (box), self->details);
  gtk_widget_set_size_request (box, 300, -1);
  return box;
}

static void
pfprof_view_window_dispose (GObject *object)
{
  PfprofViewWindow *self = PFPROF_VIEW_WINDOW (object);

  if (self->cancellable)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->progress_source, g_source_remove);
  g_signal_handlers_disconnect_matched (gtk_recent_manager_get_default (), G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, self);
  if (self->timeline != NULL)
    pfprof_timeline_widget_set_timeline (self->timeline, NULL);
  G_OBJECT_CLASS (pfprof_view_window_parent_class)->dispose (object);
}

static void
pfprof_view_window_finalize (GObject *object)
{
  PfprofViewWindow *self = PFPROF_VIEW_WINDOW (object);

  g_clear_pointer (&self->loaded, pfprof_view_loaded_free);
  g_clear_pointer (&self->order, g_array_unref);
  g_clear_pointer (&self->overview_cache, cairo_surface_destroy);
  g_clear_object (&self->recent_menu);
  g_atomic_rc_box_release (self->progress);
  G_OBJECT_CLASS (pfprof_view_window_parent_class)->finalize (object);
}

static void
pfprof_view_window_class_init (PfprofViewWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = pfprof_view_window_dispose;
  object_class->finalize = pfprof_view_window_finalize;
  signals[SIGNAL_LOADED] = g_signal_new ("loaded", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                         NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);
}

static const GActionEntry win_actions[] = {
  { "open", action_open, NULL, NULL, NULL, { 0 } },
  { "open-recent", action_open_recent, "s", NULL, NULL, { 0 } },
  { "fit-all", action_fit, NULL, NULL, NULL, { 0 } },
  { "zoom-in", action_zoom, NULL, NULL, NULL, { 0 } },
  { "zoom-out", action_zoom, NULL, NULL, NULL, { 0 } },
  { "next-occurrence", action_occurrence, NULL, NULL, NULL, { 0 } },
  { "previous-occurrence", action_occurrence, NULL, NULL, NULL, { 0 } },
};

static void
pfprof_view_window_init (PfprofViewWindow *self)
{
  GtkWidget *header, *button, *content, *paned, *vbox, *loading, *empty;
  GMenu *menu;
  GtkDropTarget *drop;
  GtkGesture *g;
  GtkCssProvider *css;

  self->finding = -1;
  self->progress = g_atomic_rc_box_new0 (int);
  gtk_window_set_title (GTK_WINDOW (self), "pfprof");
  gtk_window_set_default_size (GTK_WINDOW (self), 1400, 820);
  g_action_map_add_action_entries (G_ACTION_MAP (self), win_actions, G_N_ELEMENTS (win_actions), self);

  css = gtk_css_provider_new ();
  gtk_css_provider_load_from_data (css,
                                   ".pfprof-error { border-left: 4px solid #ef4444; padding-left: 6px; }"
                                   ".pfprof-warning { border-left: 4px solid #f59e0b; padding-left: 6px; }"
                                   ".pfprof-info { border-left: 4px solid #2563eb; padding-left: 6px; }"
                                   ".pfprof-summary { padding: 4px 8px; }",
                                   -1);
  gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  g_object_unref (css);

  header = gtk_header_bar_new ();
  button = gtk_button_new_with_mnemonic ("_Open");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.open");
  gtk_widget_set_tooltip_text (button, "Open a trace (Ctrl+O)");
  gtk_header_bar_pack_start (GTK_HEADER_BAR (header), button);
  self->recent_menu = g_menu_new ();
  button = gtk_menu_button_new ();
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (button), "document-open-recent-symbolic");
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (button), G_MENU_MODEL (self->recent_menu));
  gtk_widget_set_tooltip_text (button, "Recent traces");
  gtk_header_bar_pack_start (GTK_HEADER_BAR (header), button);
  rebuild_recent (self);
  g_signal_connect (gtk_recent_manager_get_default (), "changed", G_CALLBACK (on_recent_changed), self);

  menu = g_menu_new ();
  g_menu_append (menu, "Fit All", "win.fit-all");
  g_menu_append (menu, "Keyboard Shortcuts", "win.show-help-overlay");
  g_menu_append (menu, "Quit", "app.quit");
  button = gtk_menu_button_new ();
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (button), "open-menu-symbolic");
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (button), G_MENU_MODEL (menu));
  g_object_unref (menu);
  gtk_header_bar_pack_end (GTK_HEADER_BAR (header), button);
  button = gtk_button_new_from_icon_name ("zoom-fit-best-symbolic");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.fit-all");
  gtk_widget_set_tooltip_text (button, "Fit all (F)");
  gtk_header_bar_pack_end (GTK_HEADER_BAR (header), button);
  gtk_window_set_titlebar (GTK_WINDOW (self), header);

  self->stack = gtk_stack_new ();
  empty = centered_label ("Open a trace with Ctrl+O, or drop one here.\n\nRecord one with: pfprof -- python train.py", "dim-label");
  gtk_stack_add_named (GTK_STACK (self->stack), empty, "empty");

  loading = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_widget_set_valign (loading, GTK_ALIGN_CENTER);
  gtk_widget_set_halign (loading, GTK_ALIGN_CENTER);
  self->progress_label = gtk_label_new ("Loading\u2026");
  self->progress_bar = gtk_progress_bar_new ();
  gtk_widget_set_size_request (self->progress_bar, 360, -1);
  gtk_box_append (GTK_BOX (loading), self->progress_label);
  gtk_box_append (GTK_BOX (loading), self->progress_bar);
  gtk_stack_add_named (GTK_STACK (self->stack), loading, "loading");

  self->no_gpu_label = centered_label ("No GPU activity in this trace", NULL);
  gtk_stack_add_named (GTK_STACK (self->stack), self->no_gpu_label, "no-gpu");

  content = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  self->summary = gtk_label_new ("");
  gtk_label_set_xalign (GTK_LABEL (self->summary), 0);
  gtk_label_set_ellipsize (GTK_LABEL (self->summary), PANGO_ELLIPSIZE_END);
  gtk_label_set_selectable (GTK_LABEL (self->summary), TRUE);
  gtk_widget_add_css_class (self->summary, "pfprof-summary");
  gtk_box_append (GTK_BOX (content), self->summary);
  self->overview = gtk_drawing_area_new ();
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self->overview), 48);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->overview), draw_overview, self, NULL);
  gtk_widget_set_tooltip_text (self->overview, "Overview of the whole trace: click or drag to move");
  g = gtk_gesture_drag_new ();
  g_signal_connect (g, "drag-begin", G_CALLBACK (on_overview_drag_begin), self);
  g_signal_connect (g, "drag-update", G_CALLBACK (on_overview_drag_update), self);
  gtk_widget_add_controller (self->overview, GTK_EVENT_CONTROLLER (g));
  gtk_box_append (GTK_BOX (content), self->overview);
  gtk_box_append (GTK_BOX (content), gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));

  paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  vbox = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  self->timeline = PFPROF_TIMELINE_WIDGET (pfprof_timeline_widget_new ());
  g_signal_connect (self->timeline, "event-selected", G_CALLBACK (on_event_selected), self);
  g_signal_connect (self->timeline, "view-changed", G_CALLBACK (on_view_changed), self);
  gtk_box_append (GTK_BOX (vbox), GTK_WIDGET (self->timeline));
  gtk_paned_set_start_child (GTK_PANED (paned), vbox);
  gtk_paned_set_resize_start_child (GTK_PANED (paned), TRUE);
  {
    /* Scrolled, so the wrapped texts of the panel never force the
     * window taller than the screen. */
    GtkWidget *side = gtk_scrolled_window_new ();

    gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (side), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (side), build_sidebar (self));
    gtk_paned_set_end_child (GTK_PANED (paned), side);
  }
  gtk_paned_set_resize_end_child (GTK_PANED (paned), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (paned), FALSE);
  gtk_widget_set_vexpand (paned, TRUE);
  gtk_box_append (GTK_BOX (content), paned);
  gtk_stack_add_named (GTK_STACK (self->stack), content, "content");
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "empty");
  gtk_window_set_child (GTK_WINDOW (self), self->stack);

  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  g_signal_connect_object (gtk_widget_get_settings (GTK_WIDGET (self)), "notify::gtk-application-prefer-dark-theme",
                           G_CALLBACK (on_settings_changed), self, 0);
  g_signal_connect_object (gtk_widget_get_settings (GTK_WIDGET (self)), "notify::gtk-theme-name",
                           G_CALLBACK (on_settings_changed), self, 0);
  update_dark (self);
}

PfprofViewWindow *
pfprof_view_window_new (GtkApplication *app)
{
  return g_object_new (PFPROF_TYPE_VIEW_WINDOW, "application", app, NULL);
}

PfprofViewLoaded *
pfprof_view_window_get_loaded (PfprofViewWindow *self)
{
  return self->loaded;
}

PfprofTimelineWidget *
pfprof_view_window_get_timeline (PfprofViewWindow *self)
{
  return self->timeline;
}

GtkWidget *
pfprof_view_window_get_error_dialog (PfprofViewWindow *self)
{
  return self->error_dialog;
}

const char *
pfprof_view_window_get_page (PfprofViewWindow *self)
{
  return gtk_stack_get_visible_child_name (GTK_STACK (self->stack));
}

const char *
pfprof_view_window_get_summary (PfprofViewWindow *self)
{
  return gtk_label_get_text (GTK_LABEL (self->summary));
}

const char *
pfprof_view_window_get_details (PfprofViewWindow *self)
{
  return gtk_label_get_text (GTK_LABEL (self->details));
}
