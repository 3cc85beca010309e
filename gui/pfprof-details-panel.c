/* SPDX-License-Identifier: MIT */
/* pfprof-details-panel.c: the details of the clicked event. */
#include "pfprof-details-panel.h"

#include <math.h>
#include <string.h>

#include "pfprof-display-name.h"
#include "pfprof-format.h"
#include "pfprof-kind-names.h"
#include "pfprof-renderer.h"

struct _PfprofDetailsPanel
{
  GtkBox parent_instance;

  GtkLabel *label;
};

G_DEFINE_FINAL_TYPE (PfprofDetailsPanel, pfprof_details_panel, GTK_TYPE_BOX)

/* The symbol as recorded, under the name shown, when they differ. */
static void
append_raw_name (GString *s, const PfprofTrace *t, guint32 name_id)
{
  const char *raw = pfprof_trace_string (t, name_id);

  if (strcmp (raw, pfprof_display_name (t, name_id)) != 0)
    g_string_append_printf (s, "raw name %s\n", raw);
}

static void
pfprof_details_panel_class_init (PfprofDetailsPanelClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/pfprof/View/pfprof-details-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, PfprofDetailsPanel, label);
}

static void
pfprof_details_panel_init (PfprofDetailsPanel *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
pfprof_details_panel_new (void)
{
  return g_object_new (PFPROF_TYPE_DETAILS_PANEL, NULL);
}

/* @ns from the start of the trace in seconds, with as many decimals as
 * tell apart two points @resolution_ns apart: at a zoom where a pixel is
 * 40 µs, "15.20548 s", not "15.2 s". */
static char *
format_time (gint64 ns, gint64 resolution_ns)
{
  int decimals = (int) ceil (9 - log10 ((double) MAX (resolution_ns, 1)));
  g_autofree char *s = pfprof_format_double ((double) ns / 1e9, CLAMP (decimals, 1, 9));

  return g_strdup_printf ("%s s", s);
}

void
pfprof_details_panel_show_event (PfprofDetailsPanel *self, PfprofTimeline *timeline, int row_index, guint ref,
                                 gint64 resolution_ns)
{
  const PfprofTimelineRow *row;
  const PfprofTrace *t;
  GString *s;
  gint64 start, end;
  g_return_if_fail (PFPROF_IS_DETAILS_PANEL (self));

  guint i = PFPROF_EVENT_REF_INDEX (ref);
  g_autofree char *dur = NULL;
  g_autofree char *at = NULL;
  gint64 call;

  g_return_if_fail (PFPROF_IS_DETAILS_PANEL (self));

  if (row_index < 0 || timeline == NULL)
    {
      gtk_label_set_text (self->label, "Click an event to see its details.");
      return;
    }
  row = pfprof_timeline_get_row (timeline, (guint) row_index);
  t = row->trace;
  pfprof_timeline_event_range (t, ref, &start, &end);
  dur = pfprof_format_ns (end - start);
  at = format_time (start - timeline->start_ns, resolution_ns);
  s = g_string_new ("");
  switch (PFPROF_EVENT_REF_TABLE (ref))
    {
    case PFPROF_TABLE_KERNELS:
      {
        const PfprofKernelRecord *k = &pfprof_trace_kernels (t)[i];

        g_string_append_printf (s, "Kernel %s\nGPU %u, stream %u\ngrid %d\u00d7%d\u00d7%d, block %d\u00d7%d\u00d7%d, %d registers\n",
                                pfprof_display_name (t, k->name_id), k->device_id, k->stream_id,
                                k->grid_x, k->grid_y, k->grid_z, k->block_x, k->block_y, k->block_z, k->registers);
        append_raw_name (s, t, k->name_id);
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

        g_string_append_printf (s, "%s\n%s API, thread %u, returned %d\n", pfprof_display_name (t, a->name_id),
                                a->domain == PFPROF_API_DRIVER ? "Driver" : "Runtime", a->tid, a->return_value);
        append_raw_name (s, t, a->name_id);
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
    case PFPROF_TABLE_WORKER_EVENTS:
      {
        const PfprofWorkerEventRecord *r = &pfprof_trace_worker_events (t)[i];
        g_autofree char *label = pfprof_renderer_event_label (row, ref);

        if (r->kind == PFPROF_WORKER_STAGE)
          {
            g_autofree char *sum = pfprof_format_ns (r->value_a);

            g_string_append_printf (s, "DataLoader stage %s\nbatch %" G_GINT64_FORMAT ", worker %u (pid %u): %s over %"
                                    G_GINT64_FORMAT " calls, first call to last:\n",
                                    label, r->batch, r->worker_id, r->pid, sum, r->value_b);
          }
        else if (r->kind == PFPROF_WORKER_GOT)
          g_string_append_printf (s, "DataLoader %s\ngot by the training loop: off the queue to handed out\n", label);
        else if (r->kind == PFPROF_WORKER_PIN)
          {
            g_autofree char *cpu = pfprof_format_ns (r->value_a);

            g_string_append_printf (s, "DataLoader pin-memory thread, %s\nthread CPU %s\n", label, cpu);
          }
        else
          {
            g_autofree char *collate = pfprof_format_ns (r->value_b > r->value_a ? r->value_b - r->value_a : 0);

            g_string_append_printf (s, "DataLoader %s\nworker %u (pid %u), %u samples, collate_fn %s\n", label,
                                    r->worker_id, r->pid, r->site_id, collate);
          }
        break;
      }
    default:
      break;
    }
  g_string_append_printf (s, "start %s, duration %s", at, dur);
  call = pfprof_timeline_launching_call (timeline, row->trace_index, ref);
  if (call >= 0)
    {
      const PfprofApiRecord *a = &pfprof_trace_api_calls (t)[call];
      g_autofree char *cat = format_time (a->start_ns - timeline->start_ns, resolution_ns);

      g_string_append_printf (s, "\nlaunched by %s on thread %u at %s", pfprof_display_name (t, a->name_id),
                              a->tid, cat);
    }
  else if (PFPROF_EVENT_REF_TABLE (ref) == PFPROF_TABLE_KERNELS
           && g_strcmp0 (pfprof_trace_meta (t, "launch_records"), "0") == 0)
    /* Launches are not intercepted by default: say so rather than show
     * nothing. */
    g_string_append (s, "\nlaunching call not recorded (record with --trace-launches)");
  /* Sanitized and set as plain text: names come from the program. */
  {
    g_autofree char *clean = g_utf8_make_valid (s->str, -1);

    gtk_label_set_text (self->label, clean);
  }
  g_string_free (s, TRUE);
}

const char *
pfprof_details_panel_get_text (PfprofDetailsPanel *self)
{
  g_return_val_if_fail (PFPROF_IS_DETAILS_PANEL (self), NULL);

  return gtk_label_get_text (self->label);
}
