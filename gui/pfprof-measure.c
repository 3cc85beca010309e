/* SPDX-License-Identifier: MIT */
/* pfprof-measure.c: measuring an interval, and drawing markers
 * (pfprof-measure.h). */
#include "pfprof-measure.h"

#include <math.h>
#include <string.h>

#include "pfprof-format.h"

/* One lane's events inside the interval, walked in time order. */
typedef struct
{
  const PfprofTimelineRow *row;
  guint i, end;    /* next event, one past the last */
  gint64 s, e;     /* the next event's times */
} Cursor;

static gboolean
wanted (PfprofEventRef ref, gboolean copies_only)
{
  PfprofTableId t = PFPROF_EVENT_REF_TABLE (ref);

  return copies_only ? t == PFPROF_TABLE_MEMCPYS
                     : t == PFPROF_TABLE_KERNELS || t == PFPROF_TABLE_MEMCPYS || t == PFPROF_TABLE_MEMSETS;
}

/* Moves @c to its next wanted event; FALSE when there is none. */
static gboolean
cursor_next (Cursor *c, gboolean copies_only)
{
  for (; c->i < c->end; c->i++)
    if (wanted (c->row->refs[c->i], copies_only))
      {
        pfprof_timeline_event_range (c->row->trace, c->row->refs[c->i], &c->s, &c->e);
        c->i++;
        return TRUE;
      }
  return FALSE;
}

static void
sift_down (Cursor *heap, guint n, guint k)
{
  for (;;)
    {
      guint l = 2 * k + 1, r = l + 1, m = k;
      Cursor tmp;

      if (l < n && heap[l].s < heap[m].s)
        m = l;
      if (r < n && heap[r].s < heap[m].s)
        m = r;
      if (m == k)
        return;
      tmp = heap[k];
      heap[k] = heap[m];
      heap[m] = tmp;
      k = m;
    }
}

/* The length of the union of the lanes' wanted events, clipped to
 * [@t0, @t1). Each lane is sorted and never overlaps itself, so a merge
 * of the lanes (a heap by next start) gives the union in one pass, with
 * nothing allocated per event. */
static gint64
union_length (const Cursor *lanes, guint n_lanes, gboolean copies_only, gint64 t0, gint64 t1)
{
  g_autofree Cursor *heap = g_new (Cursor, MAX (n_lanes, 1));
  guint n = 0;
  gint64 total = 0, cs = 0, ce = G_MININT64;

  for (guint k = 0; k < n_lanes; k++)
    {
      heap[n] = lanes[k];
      if (cursor_next (&heap[n], copies_only))
        n++;
    }
  for (guint k = n / 2; k-- > 0;)
    sift_down (heap, n, k);
  while (n > 0)
    {
      gint64 s = MAX (heap[0].s, t0), e = MIN (heap[0].e, t1);

      if (s > ce)
        {
          if (ce > cs)
            total += ce - cs;
          cs = s;
          ce = e;
        }
      else if (e > ce)
        ce = e;
      if (!cursor_next (&heap[0], copies_only))
        heap[0] = heap[--n];
      sift_down (heap, n, 0);
    }
  if (ce > cs)
    total += ce - cs;
  return total;
}

void
pfprof_measure_compute (const PfprofTimeline *timeline, gint64 t0, gint64 t1, PfprofMeasure *out)
{
  g_return_if_fail (out != NULL);

  g_autoptr (GArray) lanes = g_array_new (FALSE, FALSE, sizeof (Cursor));

  memset (out, 0, sizeof *out);
  out->t0 = t0;
  out->t1 = t1;
  if (timeline == NULL || t1 <= t0)
    return;
  for (guint r = 0; r < timeline->rows->len; r++)
    {
      const PfprofTimelineRow *row = pfprof_timeline_get_row (timeline, r);
      Cursor c = { row, 0, 0, 0, 0 };

      if (row->type != PFPROF_ROW_STREAM || row->is_group)
        continue;
      c.i = pfprof_timeline_row_first_after (row, t0);
      c.end = pfprof_timeline_row_lower_bound (row, c.i, t1);
      if (c.end <= c.i)
        continue;
      g_array_append_val (lanes, c);
      for (guint i = c.i; i < c.end; i++)
        {
          PfprofEventRef ref = row->refs[i];

          switch (PFPROF_EVENT_REF_TABLE (ref))
            {
            case PFPROF_TABLE_KERNELS:
              out->n_kernels++;
              break;
            case PFPROF_TABLE_MEMCPYS:
              out->n_copies++;
              out->copy_bytes += pfprof_trace_memcpys (row->trace)[PFPROF_EVENT_REF_INDEX (ref)].bytes;
              break;
            case PFPROF_TABLE_MEMSETS:
              out->n_memsets++;
              break;
            default:
              break;
            }
        }
    }
  out->gpu_busy_ns = union_length ((const Cursor *) lanes->data, lanes->len, FALSE, t0, t1);
  out->copy_ns = union_length ((const Cursor *) lanes->data, lanes->len, TRUE, t0, t1);
}

static const char *
plural (guint64 n, const char *one, const char *many)
{
  return n == 1 ? one : many;
}

char *
pfprof_measure_describe (const PfprofMeasure *m, gint64 origin_ns)
{
  g_return_val_if_fail (m != NULL, NULL);

  gint64 len = m->t1 - m->t0;
  g_autofree char *s_len = pfprof_format_ns (len);
  g_autofree char *s_at = pfprof_format_ns (m->t0 - origin_ns);
  g_autofree char *s_busy = pfprof_format_ns (m->gpu_busy_ns);
  g_autofree char *s_idle = pfprof_format_ns (len - m->gpu_busy_ns);
  g_autofree char *s_pct = pfprof_format_double (len > 0 ? 100.0 * (double) m->gpu_busy_ns / (double) len : 0, 1);
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "%s selected (from +%s): GPU busy %s (%s%%), idle %s; %" G_GUINT64_FORMAT " %s",
                          s_len, s_at, s_busy, s_pct, s_idle, m->n_kernels, plural (m->n_kernels, "kernel", "kernels"));
  g_string_append_printf (out, ", %" G_GUINT64_FORMAT " %s", m->n_copies, plural (m->n_copies, "copy", "copies"));
  if (m->n_copies > 0)
    {
      g_autofree char *s_bytes = pfprof_format_bytes (m->copy_bytes);
      g_autofree char *s_copy = pfprof_format_ns (m->copy_ns);

      g_string_append_printf (out, " (%s, %s)", s_bytes, s_copy);
    }
  if (m->n_memsets > 0)
    g_string_append_printf (out, ", %" G_GUINT64_FORMAT " %s", m->n_memsets, plural (m->n_memsets, "memset", "memsets"));
  return g_string_free (out, FALSE);
}

/* The marker colour: amber, apart from every event class and severity. */
static void
marker_rgb (cairo_t *cr, double alpha)
{
  cairo_set_source_rgba (cr, 0.95, 0.6, 0.05, alpha);
}

void
pfprof_measure_draw (cairo_t *cr, const PfprofRenderView *view, const GArray *markers)
{
  g_return_if_fail (cr != NULL);
  g_return_if_fail (view != NULL);

  double left = view->label_width, right = view->width;
  double top = view->ruler_height, bottom = view->height - view->legend_height;

  cairo_save (cr);
  cairo_rectangle (cr, left, 0, right - left, view->height);
  cairo_clip (cr);
  for (guint i = 0; markers != NULL && i < markers->len; i++)
    {
      const PfprofMarker *mk = &g_array_index (markers, PfprofMarker, i);
      double x0 = pfprof_renderer_x_of (view, mk->t0), x1 = pfprof_renderer_x_of (view, mk->t1);

      if (x1 < left - 2 || x0 > right + 2)
        continue;
      if (mk->t1 > mk->t0 && x1 - x0 >= 2)
        {
          marker_rgb (cr, 0.15);
          cairo_rectangle (cr, x0, top, x1 - x0, bottom - top);
          cairo_fill (cr);
        }
      marker_rgb (cr, 0.9);
      cairo_set_line_width (cr, 1.5);
      for (int k = 0; k < (mk->t1 > mk->t0 ? 2 : 1); k++)
        {
          double x = floor (k == 0 ? x0 : x1) + 0.5;

          cairo_move_to (cr, x, top);
          cairo_line_to (cr, x, bottom);
          cairo_stroke (cr);
        }
      /* A flag on the ruler, so a marker is found at a glance. */
      cairo_move_to (cr, floor (x0) + 0.5, MAX (top - 10, 0));
      cairo_line_to (cr, floor (x0) + 8.5, MAX (top - 6, 4));
      cairo_line_to (cr, floor (x0) + 0.5, MAX (top - 2, 8));
      cairo_close_path (cr);
      cairo_fill (cr);
    }
  if (view->range_end > view->range_start && top > 0)
    {
      double x0 = pfprof_renderer_x_of (view, view->range_start), x1 = pfprof_renderer_x_of (view, view->range_end);
      g_autofree char *text = pfprof_format_ns (view->range_end - view->range_start);
      cairo_text_extents_t ext;
      double cx, tw;

      cairo_set_source_rgba (cr, 0.3, 0.5, 1.0, 0.35);
      cairo_rectangle (cr, x0, 0, x1 - x0, top);
      cairo_fill (cr);
      cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
      cairo_set_font_size (cr, 11);
      cairo_text_extents (cr, text, &ext);
      tw = ext.x_advance + 8;
      cx = CLAMP ((x0 + x1) / 2, left + tw / 2, right - tw / 2);
      cairo_set_source_rgba (cr, 0.15, 0.3, 0.8, 0.95);
      cairo_rectangle (cr, cx - tw / 2, top / 2 - 8, tw, 16);
      cairo_fill (cr);
      cairo_set_source_rgb (cr, 1, 1, 1);
      cairo_move_to (cr, cx - ext.x_advance / 2, top / 2 + 4);
      cairo_show_text (cr, text);
    }
  cairo_restore (cr);
}
