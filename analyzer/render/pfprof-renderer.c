/* SPDX-License-Identifier: MIT */
/* pfprof-renderer.c: timeline drawing with level of detail.
 *
 * Cost per frame is bounded by the number of pixel columns times the
 * number of shown rows, whatever the number of events: an event at least
 * MIN_BOX_PX wide is drawn as its own box (there can only be width /
 * MIN_BOX_PX of those per row), and a run of narrower events is folded into
 * the one pixel column they start in, found by a galloping search, with
 * its busy time read off the row's prefix sums. Boxes are batched by
 * colour and shade so cairo fills a few large paths instead of many small
 * ones.
 */
#include "pfprof-renderer.h"

#include <math.h>
#include <string.h>

#include "pfprof-display-name.h"
#include "pfprof-format.h"
#include "pfprof-lower-bound.h"
#include "pfprof-render-text.h"

#define MIN_BOX_PX 2.0
#define N_SHADES 4
#define GROUP_ROW_PX 22.0
#define LANE_ROW_PX 20.0
#define LABEL_MIN_PX 48.0
#define FONT_PX 11.0

typedef struct
{
  float x, y, w, h;
} Box;

typedef struct
{
  GArray *boxes[PFPROF_N_ITEMS][N_SHADES];
  GArray *hatch;         /* pageable copies: boxes that get stripes */
  GArray *labels;        /* Label */
  PfprofRenderStats *stats;
} Batch;

typedef struct
{
  float x, y, w, h;
  const PfprofTimelineRow *row;
  PfprofEventRef ref;
} Label;

static const double light_colors[PFPROF_N_ITEMS][3] = {
  [PFPROF_ITEM_KERNEL] = { 0.231, 0.510, 0.965 },        /* blue */
  [PFPROF_ITEM_HTOD_PINNED] = { 0.086, 0.639, 0.290 },   /* green */
  [PFPROF_ITEM_HTOD_PAGEABLE] = { 0.976, 0.451, 0.086 }, /* orange */
  [PFPROF_ITEM_DTOH_PINNED] = { 0.576, 0.200, 0.918 },   /* purple */
  [PFPROF_ITEM_DTOH_PAGEABLE] = { 0.859, 0.153, 0.467 }, /* pink */
  [PFPROF_ITEM_COPY_OTHER] = { 0.051, 0.580, 0.533 },    /* teal */
  [PFPROF_ITEM_MEMSET] = { 0.631, 0.384, 0.027 },        /* brown */
  [PFPROF_ITEM_SYNC] = { 0.863, 0.149, 0.149 },          /* red */
  [PFPROF_ITEM_API] = { 0.392, 0.455, 0.545 },           /* slate */
  [PFPROF_ITEM_API_SYNC] = { 0.725, 0.110, 0.110 },      /* dark red */
  [PFPROF_ITEM_NVTX] = { 0.031, 0.569, 0.698 },          /* cyan */
  [PFPROF_ITEM_DATA_WAIT] = { 0.918, 0.702, 0.031 },     /* amber */
  [PFPROF_ITEM_BATCH] = { 0.396, 0.639, 0.051 },         /* olive */
  [PFPROF_ITEM_STAGE] = { 0.518, 0.400, 0.725 },         /* lavender */
  [PFPROF_ITEM_COLLATE] = { 0.122, 0.420, 0.306 },       /* dark green */
};

static const char *const item_names[PFPROF_N_ITEMS] = {
  [PFPROF_ITEM_KERNEL] = "Kernel",
  [PFPROF_ITEM_HTOD_PINNED] = "HtoD pinned",
  [PFPROF_ITEM_HTOD_PAGEABLE] = "HtoD pageable",
  [PFPROF_ITEM_DTOH_PINNED] = "DtoH pinned",
  [PFPROF_ITEM_DTOH_PAGEABLE] = "DtoH pageable",
  [PFPROF_ITEM_COPY_OTHER] = "Other copy",
  [PFPROF_ITEM_MEMSET] = "Memset",
  [PFPROF_ITEM_SYNC] = "Sync wait",
  [PFPROF_ITEM_API] = "CUDA API",
  [PFPROF_ITEM_API_SYNC] = "Blocking API",
  [PFPROF_ITEM_NVTX] = "NVTX",
  [PFPROF_ITEM_DATA_WAIT] = "DataLoader wait",
  [PFPROF_ITEM_BATCH] = "DataLoader batch",
  [PFPROF_ITEM_STAGE] = "DataLoader stage",
  [PFPROF_ITEM_COLLATE] = "collate_fn",
};

static const double shade_alpha[N_SHADES] = { 0.35, 0.55, 0.78, 1.0 };

void
pfprof_renderer_item_color (PfprofItemClass cls, gboolean dark, double rgb[3])
{
  g_return_if_fail (rgb != NULL);

  for (int i = 0; i < 3; i++)
    {
      double c = light_colors[cls < PFPROF_N_ITEMS ? cls : 0][i];

      /* A little lighter on dark backgrounds, same hue. */
      rgb[i] = dark ? c + (1.0 - c) * 0.15 : c;
    }
}

const char *
pfprof_renderer_item_name (PfprofItemClass cls)
{
  return cls < PFPROF_N_ITEMS ? item_names[cls] : "";
}

void
pfprof_renderer_severity_color (PfprofSeverity severity, double rgb[3])
{
  g_return_if_fail (rgb != NULL);

  static const double colors[3][3] = {
    { 0.145, 0.388, 0.922 }, /* info */
    { 0.961, 0.620, 0.043 }, /* warning */
    { 0.937, 0.267, 0.267 }, /* error */
  };
  int s = severity <= PFPROF_SEVERITY_ERROR ? (int) severity : 2;

  memcpy (rgb, colors[s], sizeof colors[s]);
}

void
pfprof_render_view_init (PfprofRenderView *view, const PfprofTimeline *timeline, double width,
                         double height)
{
  g_return_if_fail (view != NULL);
  g_return_if_fail (timeline != NULL);

  memset (view, 0, sizeof *view);
  view->t0 = timeline->start_ns;
  view->t1 = timeline->end_ns > timeline->start_ns ? timeline->end_ns : timeline->start_ns + 1;
  view->width = width;
  view->height = height;
  view->label_width = MIN (200.0, width / 4);
  view->ruler_height = 34;
  view->row_scale = 1.0;
  view->origin_ns = timeline->start_ns;
  view->selected_finding = -1;
  view->selected_evidence = -1;
  view->selected_row = -1;
  view->selected_event = PFPROF_EVENT_REF_NONE;
  view->link_row = -1;
  view->focus_row = -1;
}

static double
row_scale (const PfprofRenderView *view)
{
  return view->row_scale > 0 ? view->row_scale : 1.0;
}

double
pfprof_renderer_row_height (const PfprofTimeline *timeline, const PfprofRenderView *view, guint row)
{
  g_return_val_if_fail (timeline != NULL, 0.0);
  g_return_val_if_fail (view != NULL, 0.0);

  const PfprofTimelineRow *r = pfprof_timeline_get_row (timeline, row);

  if (r == NULL)
    return 0;
  return (r->is_group ? GROUP_ROW_PX : LANE_ROW_PX) * row_scale (view);
}

gboolean
pfprof_renderer_row_shown (const PfprofTimeline *timeline, const PfprofRenderView *view, guint row)
{
  g_return_val_if_fail (timeline != NULL, FALSE);
  g_return_val_if_fail (view != NULL, FALSE);

  if (view->row_mask != NULL && !view->row_mask[row])
    return FALSE;
  return pfprof_timeline_row_visible (timeline, row);
}

double
pfprof_renderer_content_height (const PfprofTimeline *timeline, const PfprofRenderView *view)
{
  double h = 0;

  g_return_val_if_fail (timeline != NULL, 0.0);
  g_return_val_if_fail (view != NULL, 0.0);

  for (guint i = 0; i < timeline->rows->len; i++)
    if (pfprof_renderer_row_shown (timeline, view, i))
      h += pfprof_renderer_row_height (timeline, view, i);
  return h;
}

double
pfprof_renderer_row_y (const PfprofTimeline *timeline, const PfprofRenderView *view, guint row)
{
  g_return_val_if_fail (timeline != NULL, -1.0);
  g_return_val_if_fail (view != NULL, -1.0);

  double y = view->ruler_height - view->scroll_y;

  if (row >= timeline->rows->len || !pfprof_renderer_row_shown (timeline, view, row))
    return -1;
  for (guint i = 0; i < row; i++)
    if (pfprof_renderer_row_shown (timeline, view, i))
      y += pfprof_renderer_row_height (timeline, view, i);
  return y;
}

void
pfprof_renderer_row_tops (const PfprofTimeline *timeline, const PfprofRenderView *view, double *tops)
{
  g_return_if_fail (timeline != NULL);
  g_return_if_fail (view != NULL);
  g_return_if_fail (tops != NULL);

  double y = view->ruler_height - view->scroll_y;

  g_return_if_fail (timeline != NULL && view != NULL && tops != NULL);
  for (guint i = 0; i < timeline->rows->len; i++)
    {
      tops[i] = -1;
      if (!pfprof_renderer_row_shown (timeline, view, i))
        continue;
      tops[i] = y;
      y += pfprof_renderer_row_height (timeline, view, i);
    }
}

int
pfprof_renderer_row_at (const PfprofTimeline *timeline, const PfprofRenderView *view, double y)
{
  g_return_val_if_fail (timeline != NULL, -1);
  g_return_val_if_fail (view != NULL, -1);

  double top = view->ruler_height - view->scroll_y;

  if (y < view->ruler_height || y >= view->height - view->legend_height)
    return -1;
  for (guint i = 0; i < timeline->rows->len; i++)
    {
      double h;

      if (!pfprof_renderer_row_shown (timeline, view, i))
        continue;
      h = pfprof_renderer_row_height (timeline, view, i);
      if (y >= top && y < top + h)
        return (int) i;
      top += h;
    }
  return -1;
}

static double
ns_per_px (const PfprofRenderView *view)
{
  double w = view->width - view->label_width;

  return (double) (view->t1 - view->t0) / (w > 1 ? w : 1);
}

gint64
pfprof_renderer_time_at (const PfprofRenderView *view, double x)
{
  g_return_val_if_fail (view != NULL, 0);

  return view->t0 + (gint64) llround ((x - view->label_width) * ns_per_px (view));
}

double
pfprof_renderer_x_of (const PfprofRenderView *view, gint64 t)
{
  g_return_val_if_fail (view != NULL, 0.0);

  return view->label_width + (double) (t - view->t0) / ns_per_px (view);
}

static void
add_box (Batch *b, PfprofItemClass cls, int shade, double x, double y, double w, double h)
{
  Box box = { (float) x, (float) y, (float) w, (float) h };
  GArray *a = b->boxes[cls][shade];

  if (a == NULL)
    a = b->boxes[cls][shade] = g_array_new (FALSE, FALSE, sizeof (Box));
  /* Neighbouring columns of one shade become one box: fewer, larger
   * rectangles for cairo. */
  if (a->len > 0)
    {
      Box *last = &g_array_index (a, Box, a->len - 1);

      if (last->y == box.y && last->h == box.h && fabsf (last->x + last->w - box.x) < 0.01f)
        {
          last->w = box.x + box.w - last->x;
          return;
        }
    }
  g_array_append_val (a, box);
}

static int
shade_of (double frac)
{
  return frac < 0.1 ? 0 : frac < 0.4 ? 1 : frac < 0.8 ? 2 : 3;
}

/* Zoomed out past the lane's finest summary bucket: read the buckets,
 * a few per pixel column, instead of the events. */
static void
draw_lane_lod (Batch *b, const PfprofTimelineRow *row, const PfprofRenderView *view, double y, double h)
{
  const PfprofTimelineLod *lod = row->lod;
  double npp = ns_per_px (view);
  double x_left = view->label_width;
  guint level = 0;
  gint64 w;
  gint64 first, last;
  double col = -1;
  gint64 busy = 0, best = -1, n_buckets = 0;
  int best_cls = 0;

  while (level + 1 < lod->n_levels && (double) lod->width_ns[level + 1] <= npp)
    level++;
  w = lod->width_ns[level];
  first = MAX (0, (view->t0 - lod->start_ns) / w);
  last = MIN ((gint64) lod->n[level] - 1, (view->t1 - lod->start_ns) / w);
  b->stats->n_rows_drawn++;
  for (gint64 k = first; k <= last + 1; k++)
    {
      double c = -2;

      if (k <= last)
        {
          gint64 bs = lod->start_ns + k * w;

          /* A bucket belongs to the column its middle falls in. */
          c = floor (x_left + ((double) (bs - view->t0) + (double) w / 2) / npp);
        }
      if (c != col && col >= x_left && col < view->width && busy > 0)
        {
          /* Busy fraction of the time the column's buckets span (3 to 5
           * buckets, so not exactly one pixel's worth). */
          add_box (b, (PfprofItemClass) best_cls, shade_of ((double) busy / (double) (n_buckets * w)), col, y, 1, h);
          b->stats->n_columns++;
        }
      if (k > last)
        break;
      if (c != col)
        {
          col = c;
          busy = 0;
          best = -1;
          n_buckets = 0;
        }
      busy += lod->busy[level][k];
      n_buckets++;
      if (lod->busy[level][k] > best)
        best = lod->busy[level][k], best_cls = lod->cls[level][k];
    }
}

/* The class that takes most of the time among a few events spread over
 * [i, j): a column's colour without touching every event in it. */
static PfprofItemClass
dominant_class (const PfprofTimelineRow *row, guint i, guint j)
{
  gint64 weight[PFPROF_N_ITEMS] = { 0 };
  guint n = j - i;
  guint samples = n < 7 ? n : 7;
  PfprofItemClass best = PFPROF_ITEM_KERNEL;

  for (guint s = 0; s < samples; s++)
    {
      guint k = i + (guint) (((guint64) n * s) / samples);
      gint64 a, e;
      PfprofItemClass c = pfprof_timeline_event_class (row, row->refs[k]);

      pfprof_timeline_event_range (row->trace, row->refs[k], &a, &e);
      weight[c] += (e - a) + 1;
    }
  for (int c = 0; c < PFPROF_N_ITEMS; c++)
    if (weight[c] > weight[best])
      best = (PfprofItemClass) c;
  return best;
}

/* A worker's batch's collate_fn, [*@start, *@end) inside the batch, as
 * the hook recorded it in value_a and value_b; FALSE when @ref is no
 * such batch or the times are missing. */
static gboolean
collate_range (const PfprofTrace *trace, PfprofEventRef ref, gint64 *start, gint64 *end)
{
  const PfprofWorkerEventRecord *r;

  if (PFPROF_EVENT_REF_TABLE (ref) != PFPROF_TABLE_WORKER_EVENTS)
    return FALSE;
  r = &pfprof_trace_worker_events (trace)[PFPROF_EVENT_REF_INDEX (ref)];
  if ((r->kind != PFPROF_WORKER_BATCH && r->kind != PFPROF_WORKER_FAILED) || r->pid == 0
      || !(r->value_b > r->value_a && r->value_a >= r->start_ns && r->value_b <= r->end_ns))
    return FALSE;
  *start = r->value_a;
  *end = r->value_b;
  return TRUE;
}

static void
draw_lane (Batch *b, const PfprofTimelineRow *row, const PfprofRenderView *view, double y, double h)
{
  double npp = ns_per_px (view);
  double x_left = view->label_width;
  double x_right = view->width;
  guint i, n = row->n_refs;

  if (n == 0)
    return;
  if (row->lod != NULL && npp >= (double) row->lod->width_ns[0])
    {
      draw_lane_lod (b, row, view, y, h);
      return;
    }
  b->stats->n_rows_drawn++;
  i = pfprof_timeline_row_first_after (row, view->t0);
  while (i < n)
    {
      gint64 s, e;
      double x0, x1;

      pfprof_timeline_event_range (row->trace, row->refs[i], &s, &e);
      if (s >= view->t1)
        break;
      x0 = x_left + (double) (s - view->t0) / npp;
      x1 = x_left + (double) (e - view->t0) / npp;
      if (x1 - x0 >= MIN_BOX_PX)
        {
          PfprofItemClass cls = pfprof_timeline_event_class (row, row->refs[i]);
          double cx0 = MAX (x0, x_left), cx1 = MIN (x1, x_right), label_x1 = cx1;
          gint64 cs, ce;

          /* A one-pixel gap tells back-to-back events apart. */
          add_box (b, cls, N_SHADES - 1, cx0, y, cx1 - cx0 - (cx1 - cx0 >= 4 ? 1 : 0), h);
          /* A worker's batch ends in its collate_fn: a slice of its own
           * over the batch's end, the batch's label left of it. */
          if (cls == PFPROF_ITEM_BATCH && collate_range (row->trace, row->refs[i], &cs, &ce))
            {
              double kx0 = MAX (x_left + (double) (cs - view->t0) / npp, cx0);
              double kx1 = MIN (x_left + (double) (ce - view->t0) / npp, cx1);

              if (kx1 - kx0 >= 1)
                {
                  add_box (b, PFPROF_ITEM_COLLATE, N_SHADES - 1, kx0, y, kx1 - kx0, h);
                  label_x1 = kx0;
                  b->stats->n_collates++;
                }
            }
          if (cls == PFPROF_ITEM_HTOD_PAGEABLE || cls == PFPROF_ITEM_DTOH_PAGEABLE)
            {
              Box box = { (float) cx0, (float) y, (float) (cx1 - cx0), (float) h };

              g_array_append_val (b->hatch, box);
            }
          if (label_x1 - cx0 >= LABEL_MIN_PX)
            {
              Label l = { (float) cx0, (float) y, (float) (label_x1 - cx0), (float) h, row, row->refs[i] };

              g_array_append_val (b->labels, l);
            }
          b->stats->n_boxes++;
          i++;
        }
      else
        {
          /* Fold everything that starts in this pixel column. */
          double col = floor (x0);
          gint64 col_end = view->t0 + (gint64) ceil ((col + 1 - x_left) * npp);
          guint j = pfprof_timeline_row_lower_bound (row, i + 1, col_end);
          gint64 busy, last_s, last_e;
          double frac;
          int shade;

          if (j <= i)
            j = i + 1;
          /* The last event of the run may reach past the column (lanes do
           * not overlap, so only the last can): draw it as a box next. */
          pfprof_timeline_event_range (row->trace, row->refs[j - 1], &last_s, &last_e);
          if (j - 1 > i && (double) (last_e - last_s) / npp >= MIN_BOX_PX)
            j--;
          busy = row->prefix[j] - row->prefix[i];
          frac = (double) busy / npp;
          shade = shade_of (frac);
          if (col + 1 > x_left && col < x_right)
            {
              double cx0 = MAX (col, x_left);

              add_box (b, dominant_class (row, i, j), shade, cx0, y, MIN (col + 1, x_right) - cx0, h);
            }
          b->stats->n_columns++;
          b->stats->n_events_covered += j - i;
          i = j;
        }
    }
}

static void
set_rgb (cairo_t *cr, const double rgb[3], double alpha)
{
  cairo_set_source_rgba (cr, rgb[0], rgb[1], rgb[2], alpha);
}

static void
flush_boxes (cairo_t *cr, Batch *b, gboolean dark)
{
  for (int c = 0; c < PFPROF_N_ITEMS; c++)
    for (int s = 0; s < N_SHADES; s++)
      {
        GArray *a = b->boxes[c][s];
        double rgb[3];

        if (a == NULL || a->len == 0)
          continue;
        pfprof_renderer_item_color ((PfprofItemClass) c, dark, rgb);
        set_rgb (cr, rgb, shade_alpha[s]);
        for (guint k = 0; k < a->len; k++)
          {
            const Box *box = &g_array_index (a, Box, k);

            cairo_rectangle (cr, box->x, box->y, box->w, box->h);
          }
        cairo_fill (cr);
        g_array_set_size (a, 0);
      }
  /* Pageable copies: light diagonal stripes over the fill, so they read
   * differently from pinned ones even to colour-blind eyes. */
  if (b->hatch->len > 0)
    {
      cairo_save (cr);
      cairo_set_source_rgba (cr, 1, 1, 1, 0.45);
      cairo_set_line_width (cr, 1.5);
      for (guint k = 0; k < b->hatch->len; k++)
        {
          const Box *box = &g_array_index (b->hatch, Box, k);

          if (box->w < 6)
            continue;
          cairo_save (cr);
          cairo_rectangle (cr, box->x, box->y, box->w, box->h);
          cairo_clip (cr);
          for (double x = box->x - box->h; x < box->x + box->w; x += 6)
            {
              cairo_move_to (cr, x, box->y + box->h);
              cairo_line_to (cr, x + box->h, box->y);
            }
          cairo_stroke (cr);
          cairo_restore (cr);
        }
      g_array_set_size (b->hatch, 0);
      cairo_restore (cr);
    }
}

/* @raw as it fits in @max_w px at @cr's font, cut with an ellipsis, or
 * NULL when not even one character does. The text is sanitized first:
 * trace strings are drawn, never interpreted. */
static char *
fit_text (cairo_t *cr, const char *raw, double max_w)
{
  g_autofree char *text = pfprof_render_sanitize (raw, 160);
  cairo_text_extents_t ext;
  glong n;

  if (max_w <= 8)
    return NULL;
  cairo_text_extents (cr, text, &ext);
  n = g_utf8_strlen (text, -1);
  while (ext.x_advance > max_w && n > 1)
    {
      /* Cut proportionally, then append an ellipsis. */
      glong keep = MAX (1, (glong) ((double) n * max_w / ext.x_advance) - 2);
      g_autofree char *cut = g_utf8_substring (text, 0, keep);

      g_free (text);
      text = g_strconcat (cut, "\u2026", NULL);
      n = keep + 1;
      cairo_text_extents (cr, text, &ext);
      if (keep == 1)
        break;
    }
  if (ext.x_advance > max_w)
    return NULL;
  return g_steal_pointer (&text);
}

/* Draws @raw left-aligned in a box, cut with an ellipsis to @max_w. */
static void
draw_text_fit (cairo_t *cr, const char *raw, double x, double baseline, double max_w)
{
  g_autofree char *text = fit_text (cr, raw, max_w);

  if (text == NULL)
    return;
  cairo_move_to (cr, x, baseline);
  cairo_show_text (cr, text);
}

/* Where row @row's label starts in the label column: after its nesting,
 * a group's expander or a lane's swatch. */
static double
label_indent (const PfprofTimelineRow *row)
{
  return 6 + row->depth * 12 + (row->is_group ? 12 : 10);
}

char *
pfprof_renderer_row_label_text (cairo_t *cr, const PfprofTimeline *timeline, const PfprofRenderView *view,
                                guint row)
{
  const PfprofTimelineRow *r;
  char *text;

  g_return_val_if_fail (cr != NULL && timeline != NULL && view != NULL, NULL);
  g_return_val_if_fail (row < timeline->rows->len, NULL);
  r = pfprof_timeline_get_row (timeline, row);
  cairo_save (cr);
  cairo_set_font_size (cr, FONT_PX);
  cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                          r->is_group ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  text = fit_text (cr, r->label, view->label_width - label_indent (r) - 4);
  cairo_restore (cr);
  return text;
}

guint
pfprof_renderer_hide_empty_rows (const PfprofTimeline *timeline, PfprofRenderView *view, guint8 *mask)
{
  guint hidden = 0;

  g_return_val_if_fail (timeline != NULL && view != NULL && mask != NULL, 0);
  for (guint i = 0; i < timeline->rows->len; i++)
    mask[i] = view->row_mask == NULL || view->row_mask[i];
  /* Lanes first; then a group stays only with a lane left in it (a
   * group's lanes come after it, so walk up from each lane kept). */
  for (guint i = 0; i < timeline->rows->len; i++)
    {
      const PfprofTimelineRow *row = pfprof_timeline_get_row (timeline, i);
      guint k;

      if (row->is_group || !mask[i])
        continue;
      k = pfprof_timeline_row_first_after (row, view->t0);
      if (k < row->n_refs)
        {
          gint64 start, end;

          pfprof_timeline_event_range (row->trace, row->refs[k], &start, &end);
          if (start < view->t1)
            continue;
        }
      mask[i] = 0;
      hidden++;
    }
  {
    g_autofree guint8 *keep = g_new0 (guint8, timeline->rows->len);

    for (guint i = 0; i < timeline->rows->len; i++)
      {
        const PfprofTimelineRow *row = pfprof_timeline_get_row (timeline, i);

        if (row->is_group || !mask[i])
          continue;
        keep[i] = 1;
        for (int p = row->parent; p >= 0; p = pfprof_timeline_get_row (timeline, (guint) p)->parent)
          keep[p] = 1;
      }
    for (guint i = 0; i < timeline->rows->len; i++)
      if (pfprof_timeline_get_row (timeline, i)->is_group)
        mask[i] = mask[i] && keep[i];
  }
  view->row_mask = mask;
  view->n_empty_hidden = hidden;
  return hidden;
}

char *
pfprof_renderer_legend_note (const PfprofRenderView *view)
{
  g_return_val_if_fail (view != NULL, NULL);
  if (view->n_empty_hidden == 0)
    return NULL;
  return g_strdup_printf ("%u empty row%s hidden", view->n_empty_hidden, view->n_empty_hidden == 1 ? "" : "s");
}

char *
pfprof_renderer_event_label (const PfprofTimelineRow *row, PfprofEventRef ref)
{
  g_return_val_if_fail (row != NULL, NULL);

  const PfprofTrace *trace = row->trace;
  guint i = PFPROF_EVENT_REF_INDEX (ref);

  switch (PFPROF_EVENT_REF_TABLE (ref))
    {
    case PFPROF_TABLE_KERNELS:
      return g_strdup (pfprof_display_name (trace, pfprof_trace_kernels (trace)[i].name_id));
    case PFPROF_TABLE_MEMCPYS:
      {
        const PfprofMemcpyRecord *m = &pfprof_trace_memcpys (trace)[i];
        g_autofree char *bytes = pfprof_format_bytes (m->bytes);

        return g_strdup_printf ("%s %s", pfprof_renderer_item_name (pfprof_timeline_event_class (row, ref)),
                                bytes);
      }
    case PFPROF_TABLE_MEMSETS:
      return g_strdup ("Memset");
    case PFPROF_TABLE_SYNCS:
      return g_strdup ("Sync");
    case PFPROF_TABLE_API_CALLS:
      return g_strdup (pfprof_display_name (trace, pfprof_trace_api_calls (trace)[i].name_id));
    case PFPROF_TABLE_NVTX:
      return g_strdup (pfprof_trace_string (trace, pfprof_trace_nvtx (trace)[i].name_id));
    case PFPROF_TABLE_WORKER_EVENTS:
      {
        const PfprofWorkerEventRecord *r = &pfprof_trace_worker_events (trace)[i];

        switch (r->kind)
          {
          case PFPROF_WORKER_STAGE:
            for (guint k = 0; k < pfprof_trace_n (trace, PFPROF_TABLE_PYTHON_SITES); k++)
              if (pfprof_trace_python_sites (trace)[k].site_id == r->site_id)
                {
                  const char *name = pfprof_trace_string (trace, pfprof_trace_python_sites (trace)[k].function_id);
                  const char *dot = strrchr (name, '.');

                  return g_strdup (dot ? dot + 1 : name);
                }
            return g_strdup ("stage");
          case PFPROF_WORKER_GOT:
            return g_strdup_printf ("batch %" G_GINT64_FORMAT " (worker %u)", r->batch, r->worker_id);
          case PFPROF_WORKER_FAILED:
            return g_strdup_printf ("batch %" G_GINT64_FORMAT " (raised)", r->batch);
          default:
            return g_strdup_printf ("batch %" G_GINT64_FORMAT, r->batch);
          }
      }
    default:
      return g_strdup ("");
    }
}

static void
draw_labels (cairo_t *cr, Batch *b)
{
  cairo_set_font_size (cr, FONT_PX);
  cairo_set_source_rgb (cr, 1, 1, 1);
  for (guint k = 0; k < b->labels->len; k++)
    {
      const Label *l = &g_array_index (b->labels, Label, k);
      g_autofree char *text = pfprof_renderer_event_label (l->row, l->ref);

      if (l->h < FONT_PX)
        continue;
      cairo_save (cr);
      cairo_rectangle (cr, l->x, l->y, l->w, l->h);
      cairo_clip (cr);
      draw_text_fit (cr, text, l->x + 3, l->y + l->h / 2 + FONT_PX * 0.35, l->w - 6);
      cairo_restore (cr);
    }
  g_array_set_size (b->labels, 0);
}

static void
draw_ruler (cairo_t *cr, PfprofTimeline *tl, const PfprofRenderView *view, const double fg[3],
            double rows_bottom)
{
  double npp = ns_per_px (view);
  gint64 step = pfprof_render_nice_step (npp * 90);
  gint64 first;
  double h = view->ruler_height;

  if (h <= 0)
    return;
  /* Ticks at multiples of step from the origin. */
  first = view->t0 - view->origin_ns;
  first = (first >= 0 ? (first + step - 1) / step : first / step) * step;
  cairo_set_font_size (cr, FONT_PX);
  cairo_set_line_width (cr, 1);
  for (gint64 t = first; view->origin_ns + t <= view->t1; t += step)
    {
      double x = floor (pfprof_renderer_x_of (view, view->origin_ns + t)) + 0.5;
      g_autofree char *label = pfprof_render_format_tick (t, step, view->t1 - view->origin_ns);

      set_rgb (cr, fg, 0.12);
      cairo_move_to (cr, x, h);
      cairo_line_to (cr, x, rows_bottom);
      cairo_stroke (cr);
      set_rgb (cr, fg, 0.7);
      cairo_move_to (cr, x, 2);
      cairo_line_to (cr, x, 16);
      cairo_stroke (cr);
      cairo_move_to (cr, x + 3, 13);
      cairo_show_text (cr, label);
      if (step <= 0)
        break;
    }
  set_rgb (cr, fg, 0.4);
  cairo_move_to (cr, view->label_width, h - 0.5);
  cairo_line_to (cr, view->width, h - 0.5);
  cairo_stroke (cr);
}

typedef struct
{
  GArray *steps;
  gint64 t;
} StepsAt;

static gboolean
step_starts_before (gconstpointer data, guint i)
{
  const StepsAt *a = data;

  return g_array_index (a->steps, PfprofStep, i).start_ns < a->t;
}

/* First step starting at or after @t (steps are in time order). */
static guint
step_lower_bound (GArray *steps, guint from, gint64 t)
{
  StepsAt a = { steps, t };

  return pfprof_lower_bound (from, steps->len, step_starts_before, &a);
}

static void
draw_steps (cairo_t *cr, PfprofTimeline *tl, const PfprofRenderView *view, const double fg[3],
            double rows_bottom)
{
  GArray *steps = tl->analysis != NULL ? tl->analysis->steps : NULL;
  double last_label_x;
  double npp = ns_per_px (view);
  guint i;

  if (steps == NULL || steps->len == 0)
    return;
  cairo_save (cr);
  cairo_set_line_width (cr, 1);
  cairo_set_font_size (cr, FONT_PX - 1);
  /* Lines only while steps are at least 6 px apart on average (denser
   * they would grey the picture out), and then at least 4 px apart: jump
   * ahead by binary search rather than visit each step. */
  i = step_lower_bound (steps, 0, view->t0);
  if ((double) (step_lower_bound (steps, i, view->t1) - i) * 6 > view->width - view->label_width)
    i = steps->len;
  for (; i < steps->len;)
    {
      const PfprofStep *s = &g_array_index (steps, PfprofStep, i);
      double x;

      if (s->start_ns > view->t1)
        break;
      x = floor (pfprof_renderer_x_of (view, s->start_ns));
      /* Pixel-aligned boxes, not (dashed) strokes: cairo fills those
       * fast, and a run can have thousands of steps in view. */
      if (x >= view->label_width)
        cairo_rectangle (cr, x, view->ruler_height, 1, rows_bottom - view->ruler_height);
      i = step_lower_bound (steps, i + 1, s->start_ns + (gint64) (4 * npp));
    }
  set_rgb (cr, fg, 0.3);
  cairo_fill (cr);
  /* Labels, at least 60 px apart. */
  if (view->ruler_height > 0)
    {
      set_rgb (cr, fg, 0.85);
      last_label_x = -1e9;
      for (i = step_lower_bound (steps, 0, view->t0); i < steps->len;)
        {
          const PfprofStep *s = &g_array_index (steps, PfprofStep, i);
          double x;
          char label[32];

          if (s->start_ns > view->t1)
            break;
          x = floor (pfprof_renderer_x_of (view, s->start_ns)) + 0.5;
          if (x >= view->label_width && x - last_label_x > 60)
            {
              g_snprintf (label, sizeof label, "step %u", i);
              cairo_move_to (cr, x + 3, view->ruler_height - 1.5);
              cairo_show_text (cr, label);
              last_label_x = x;
            }
          i = step_lower_bound (steps, i + 1, s->start_ns + (gint64) (60 * npp));
        }
    }
  cairo_restore (cr);
}

/* Where the occurrence @start..@end on row @r is drawn: FALSE when it is
 * out of view. At least 3 px wide, so that the shortest stays visible. */
static gboolean
occurrence_box (PfprofTimeline *tl, const PfprofRenderView *view, const double *row_top, int r, gint64 start,
                gint64 end, double *x0, double *x1, double *y, double *h)
{
  if (r < 0 || (guint) r >= tl->rows->len || row_top[r] < 0 || end < view->t0 || start > view->t1)
    return FALSE;
  *x0 = MAX (pfprof_renderer_x_of (view, start), view->label_width);
  *x1 = MIN (pfprof_renderer_x_of (view, end), view->width);
  if (*x1 - *x0 < 3)
    *x1 = *x0 + 3;
  *y = row_top[r];
  *h = pfprof_renderer_row_height (tl, view, (guint) r);
  return TRUE;
}

/* An occurrence of the selected finding: shaded and outlined, more so
 * for the one in @focus. */
static void
outline_occurrence (cairo_t *cr, const double rgb[3], double x0, double x1, double y, double h, gboolean focus)
{
  set_rgb (cr, rgb, focus ? 0.35 : 0.18);
  cairo_rectangle (cr, x0, y, x1 - x0, h);
  cairo_fill (cr);
  set_rgb (cr, rgb, 1);
  cairo_set_line_width (cr, focus ? 3 : 2);
  cairo_rectangle (cr, x0 + 1, y + 1, MAX (x1 - x0 - 2, 1), h - 2);
  cairo_stroke (cr);
}

static void
draw_findings (cairo_t *cr, PfprofTimeline *tl, const PfprofRenderView *view, double *row_top,
               double rows_top, double rows_bottom)
{
  GPtrArray *findings = tl->analysis != NULL ? tl->analysis->findings : NULL;

  if (findings == NULL)
    return;
  cairo_save (cr);
  cairo_rectangle (cr, view->label_width, rows_top, view->width - view->label_width, rows_bottom - rows_top);
  cairo_clip (cr);
  /* Least severe first, so the worst is drawn on top. */
  for (int pass = 0; pass < 2; pass++)
    for (guint f = 0; f < findings->len; f++)
      {
        const PfprofFinding *finding = g_ptr_array_index (findings, f);
        const int *rows = pfprof_timeline_finding_rows (tl, f);
        gboolean selected = (int) f == view->selected_finding;
        double rgb[3];
        double last_x = -1e9;
        double x0, x1, y, h;
        int last_row = -1;

        /* Pass 0: every finding; pass 1: the selected one again, on top. */
        if (pass == 1 && !selected)
          continue;
        if (finding->evidence == NULL || rows == NULL)
          continue;
        pfprof_renderer_severity_color (finding->severity, rgb);
        for (guint e = 0; e < finding->evidence->len; e++)
          {
            const PfprofEvidence *ev = &g_array_index (finding->evidence, PfprofEvidence, e);
            int r = rows[e];

            if (!occurrence_box (tl, view, row_top, r, ev->start_ns, ev->end_ns, &x0, &x1, &y, &h))
              continue;
            if (pass == 1)
              {
                /* The selected finding: its evidence outlined and shaded. */
                outline_occurrence (cr, rgb, x0, x1, y, h, (int) e == view->selected_evidence);
                continue;
              }
            /* An underline of the affected range at the row's bottom... */
            set_rgb (cr, rgb, 0.95);
            cairo_rectangle (cr, x0, y + h - 3, x1 - x0, 3);
            cairo_fill (cr);
            /* ...and a flag at its start, at most one per 8 px. */
            if (r == last_row && x0 - last_x < 8)
              continue;
            last_row = r;
            last_x = x0;
            cairo_move_to (cr, x0, y);
            cairo_line_to (cr, x0 + 7, y);
            cairo_line_to (cr, x0, y + 7);
            cairo_close_path (cr);
            cairo_fill_preserve (cr);
            cairo_set_source_rgba (cr, 0, 0, 0, 0.6);
            cairo_set_line_width (cr, 0.75);
            cairo_stroke (cr);
          }
        /* The occurrence in focus when it is none of the evidence. */
        if (pass == 1 && occurrence_box (tl, view, row_top, view->focus_row, view->focus_start,
                                         view->focus_end, &x0, &x1, &y, &h))
          outline_occurrence (cr, rgb, x0, x1, y, h, TRUE);
      }
  cairo_restore (cr);
}

/* Shade over the row of a trace recorded in windows (`pfprof record
 * --sample`) where nothing was recorded: before its first window,
 * between windows and after the last, so a pause does not read as idle
 * time. */
#define PAUSE_ALPHA 0.13

static gboolean
has_pauses (const PfprofTrace *trace)
{
  return trace != NULL && pfprof_trace_n (trace, PFPROF_TABLE_WINDOWS) > 0;
}

static void
draw_pauses (cairo_t *cr, const PfprofTrace *trace, const PfprofRenderView *view, double y, double h,
             const double fg[3])
{
  const PfprofWindowRecord *w = pfprof_trace_windows (trace);
  guint n = pfprof_trace_n (trace, PFPROF_TABLE_WINDOWS);
  gint64 from = G_MININT64;

  set_rgb (cr, fg, PAUSE_ALPHA);
  for (guint i = 0; i <= n; i++)
    {
      gint64 to = i < n ? w[i].start_ns : G_MAXINT64;
      gint64 a = MAX (from, view->t0), b = MIN (to, view->t1);

      if (a < b)
        {
          double x0 = MAX (view->label_width, pfprof_renderer_x_of (view, a));
          double x1 = MIN (view->width, pfprof_renderer_x_of (view, b));

          if (x1 > x0)
            cairo_rectangle (cr, x0, y, x1 - x0, h);
        }
      if (i < n)
        from = MAX (from, w[i].end_ns);
      if (from >= view->t1)
        break;
    }
  cairo_fill (cr);
}

static void
draw_legend (cairo_t *cr, const PfprofTimeline *tl, const PfprofRenderView *view, const double fg[3])
{
  double x = 8, y = view->height - view->legend_height;
  double sev[3];
  gboolean pauses = FALSE;

  if (view->legend_height <= 0)
    return;
  cairo_set_font_size (cr, FONT_PX);
  for (int c = 0; c < PFPROF_N_ITEMS; c++)
    {
      double rgb[3];
      cairo_text_extents_t ext;

      pfprof_renderer_item_color ((PfprofItemClass) c, view->dark, rgb);
      cairo_text_extents (cr, item_names[c], &ext);
      if (x + 16 + ext.x_advance > view->width)
        {
          x = 8;
          y += 16;
        }
      set_rgb (cr, rgb, 1);
      cairo_rectangle (cr, x, y + 5, 10, 10);
      cairo_fill (cr);
      set_rgb (cr, fg, 0.9);
      cairo_move_to (cr, x + 14, y + 14);
      cairo_show_text (cr, item_names[c]);
      x += 14 + ext.x_advance + 14;
    }
  pfprof_renderer_severity_color (PFPROF_SEVERITY_ERROR, sev);
  set_rgb (cr, sev, 1);
  cairo_move_to (cr, x, y + 5);
  cairo_line_to (cr, x + 9, y + 5);
  cairo_line_to (cr, x, y + 14);
  cairo_close_path (cr);
  cairo_fill (cr);
  set_rgb (cr, fg, 0.9);
  cairo_move_to (cr, x + 14, y + 14);
  cairo_show_text (cr, "Finding");
  for (guint i = 0; i < tl->traces->len && !pauses; i++)
    pauses = has_pauses (g_ptr_array_index (tl->traces, i));
  if (pauses)
    {
      cairo_text_extents_t ext;

      cairo_text_extents (cr, "Finding", &ext);
      x += 14 + ext.x_advance + 14;
      set_rgb (cr, fg, PAUSE_ALPHA);
      cairo_rectangle (cr, x, y + 5, 10, 10);
      cairo_fill (cr);
      set_rgb (cr, fg, 0.9);
      cairo_move_to (cr, x + 14, y + 14);
      cairo_show_text (cr, "Not recorded (--sample pause)");
    }
  /* On the legend's last line, where the rows left out would have been. */
  {
    g_autofree char *note = pfprof_renderer_legend_note (view);

    if (note != NULL)
      {
        set_rgb (cr, fg, 0.9);
        cairo_move_to (cr, 8, view->height - 6);
        cairo_show_text (cr, note);
      }
  }
}

/* Batches in view at least this far apart on average, px, for their
 * links to be drawn: denser, the lines would hide the lanes. */
#define BATCH_LINK_MIN_PX 12.0

/* The "Batches got" event of worker @pid's batch @batch, searched for
 * from where the batch was put: the loop gets batches in order, so it
 * comes within a few of the batches got after that. NULL if none. */
static const PfprofWorkerEventRecord *
got_of_batch (const PfprofTimelineRow *got, gint64 put_ns, guint32 pid, gint64 batch, gint64 *end_out)
{
  guint j = pfprof_timeline_row_first_after (got, put_ns);

  for (guint k = 0; j < got->n_refs && k < 64; j++, k++)
    {
      const PfprofWorkerEventRecord *g = &pfprof_trace_worker_events (got->trace)[PFPROF_EVENT_REF_INDEX (got->refs[j])];

      if (g->kind == PFPROF_WORKER_GOT && g->pid == pid && g->batch == batch)
        {
          pfprof_timeline_event_range (got->trace, got->refs[j], NULL, end_out);
          return g;
        }
    }
  return NULL;
}

/* A thin line from each worker's batch (its end, on the worker's lane) to
 * the end of its box on "Batches got": where the training loop got it,
 * inside the step that consumed it. Only while batches are sparse
 * enough in view (BATCH_LINK_MIN_PX) not to clutter the lanes. */
static void
draw_batch_links (cairo_t *cr, PfprofTimeline *tl, const PfprofRenderView *view, const double *row_top,
                  const double fg[3], PfprofRenderStats *stats)
{
  guint64 n_in_view = 0;

  for (guint i = 0; i < tl->rows->len; i++)
    {
      const PfprofTimelineRow *row = pfprof_timeline_get_row (tl, i);

      if (row_top[i] >= 0 && row->type == PFPROF_ROW_WORKER && row->stream_id == PFPROF_TIMELINE_WORKER_BATCHES)
        n_in_view += pfprof_timeline_row_first_after (row, view->t1) - pfprof_timeline_row_first_after (row, view->t0);
    }
  if (n_in_view == 0 || (double) n_in_view * BATCH_LINK_MIN_PX > view->width - view->label_width)
    return;
  cairo_save (cr);
  cairo_set_line_width (cr, 1);
  set_rgb (cr, fg, 0.55);
  for (guint i = 0; i < tl->rows->len; i++)
    {
      const PfprofTimelineRow *row = pfprof_timeline_get_row (tl, i);
      const PfprofTimelineRow *got = NULL;
      guint got_i = 0, end;

      if (row_top[i] < 0 || row->type != PFPROF_ROW_WORKER || row->stream_id != PFPROF_TIMELINE_WORKER_BATCHES)
        continue;
      for (guint g = 0; g < tl->rows->len && got == NULL; g++)
        {
          const PfprofTimelineRow *r = pfprof_timeline_get_row (tl, g);

          if (r->type == PFPROF_ROW_WORKER && r->stream_id == PFPROF_TIMELINE_WORKER_GOT
              && r->trace_index == row->trace_index)
            got = r, got_i = g;
        }
      if (got == NULL || row_top[got_i] < 0)
        continue;
      end = pfprof_timeline_row_first_after (row, view->t1);
      for (guint k = pfprof_timeline_row_first_after (row, view->t0); k < end; k++)
        {
          const PfprofWorkerEventRecord *r = &pfprof_trace_worker_events (row->trace)[PFPROF_EVENT_REF_INDEX (row->refs[k])];
          gint64 got_end;
          double ya, yb, xa, xb;

          if (r->kind != PFPROF_WORKER_BATCH || r->pid == 0
              || got_of_batch (got, r->end_ns, r->pid, r->batch, &got_end) == NULL)
            continue;
          xa = pfprof_renderer_x_of (view, r->end_ns);
          xb = pfprof_renderer_x_of (view, got_end);
          ya = row_top[i] + pfprof_renderer_row_height (tl, view, i) / 2;
          yb = row_top[got_i] + pfprof_renderer_row_height (tl, view, got_i) / 2;
          cairo_move_to (cr, xa, ya);
          cairo_line_to (cr, xb, yb);
          cairo_stroke (cr);
          cairo_arc (cr, xb, yb, 2, 0, 2 * G_PI);
          cairo_fill (cr);
          stats->n_batch_links++;
        }
    }
  cairo_restore (cr);
}

void
pfprof_renderer_draw (cairo_t *cr, PfprofTimeline *tl, const PfprofRenderView *view,
                      PfprofRenderStats *stats)
{
  g_return_if_fail (cr != NULL);
  g_return_if_fail (tl != NULL);
  g_return_if_fail (view != NULL);

  PfprofRenderStats local_stats = { 0 };
  Batch b = { 0 };
  double bg[3], fg[3], alt[3];
  double rows_top = view->ruler_height;
  double rows_bottom = view->height - view->legend_height;
  g_autofree double *row_top = g_new (double, tl->rows->len + 1);

  if (stats == NULL)
    stats = &local_stats;
  memset (stats, 0, sizeof *stats);
  b.stats = stats;
  b.hatch = g_array_new (FALSE, FALSE, sizeof (Box));
  b.labels = g_array_new (FALSE, FALSE, sizeof (Label));

  if (view->dark)
    {
      bg[0] = 0.118, bg[1] = 0.118, bg[2] = 0.133;
      fg[0] = fg[1] = fg[2] = 0.92;
      alt[0] = 0.16, alt[1] = 0.16, alt[2] = 0.18;
    }
  else
    {
      bg[0] = bg[1] = bg[2] = 1.0;
      fg[0] = 0.1, fg[1] = 0.1, fg[2] = 0.12;
      alt[0] = 0.955, alt[1] = 0.96, alt[2] = 0.97;
    }

  cairo_save (cr);
  cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  set_rgb (cr, bg, 1);
  cairo_rectangle (cr, 0, 0, view->width, view->height);
  cairo_fill (cr);

  /* Row positions once; rows off screen are skipped. */
  pfprof_renderer_row_tops (tl, view, row_top);
  for (guint i = 0; i < tl->rows->len; i++)
    if (row_top[i] >= 0
        && (row_top[i] + pfprof_renderer_row_height (tl, view, i) <= rows_top || row_top[i] >= rows_bottom))
      row_top[i] = -1;

  cairo_save (cr);
  cairo_rectangle (cr, 0, rows_top, view->width, MAX (0, rows_bottom - rows_top));
  cairo_clip (cr);
  /* Row backgrounds: groups banded, lanes alternate faintly. */
  for (guint i = 0; i < tl->rows->len; i++)
    {
      const PfprofTimelineRow *row = pfprof_timeline_get_row (tl, i);
      double h = pfprof_renderer_row_height (tl, view, i);

      if (row_top[i] < 0)
        continue;
      if (row->is_group)
        set_rgb (cr, fg, 0.08);
      else
        set_rgb (cr, (i & 1) ? alt : bg, 1);
      cairo_rectangle (cr, 0, row_top[i], view->width, h);
      cairo_fill (cr);
      if (!row->is_group && has_pauses (row->trace))
        draw_pauses (cr, row->trace, view, row_top[i], h, fg);
    }

  /* Events. */
  cairo_save (cr);
  cairo_rectangle (cr, view->label_width, rows_top, view->width - view->label_width,
                   MAX (0, rows_bottom - rows_top));
  cairo_clip (cr);
  for (guint i = 0; i < tl->rows->len; i++)
    {
      const PfprofTimelineRow *row = pfprof_timeline_get_row (tl, i);
      double h = pfprof_renderer_row_height (tl, view, i);

      if (row_top[i] < 0 || row->is_group)
        continue;
      draw_lane (&b, row, view, row_top[i] + 2, h - 4);
    }
  flush_boxes (cr, &b, view->dark);
  draw_labels (cr, &b);
  draw_batch_links (cr, tl, view, row_top, fg, stats);
  cairo_restore (cr);

  draw_steps (cr, tl, view, fg, rows_bottom);
  draw_findings (cr, tl, view, row_top, rows_top, rows_bottom);

  /* The selected event and the link from the call that launched it. */
  if (view->selected_row >= 0 && (guint) view->selected_row < tl->rows->len
      && view->selected_event != PFPROF_EVENT_REF_NONE)
    {
      const PfprofTimelineRow *row = pfprof_timeline_get_row (tl, (guint) view->selected_row);
      double ry = pfprof_renderer_row_y (tl, view, (guint) view->selected_row);
      gint64 s, e;

      if (ry >= 0 && row->trace != NULL)
        {
          double x0, x1, rh = pfprof_renderer_row_height (tl, view, (guint) view->selected_row);

          pfprof_timeline_event_range (row->trace, view->selected_event, &s, &e);
          x0 = pfprof_renderer_x_of (view, s);
          x1 = MAX (pfprof_renderer_x_of (view, e), x0 + 2);
          cairo_set_line_width (cr, 2);
          set_rgb (cr, fg, 1);
          cairo_rectangle (cr, x0 - 1, ry + 1, x1 - x0 + 2, rh - 2);
          cairo_stroke (cr);
          if (view->link_row >= 0)
            {
              double ly = pfprof_renderer_row_y (tl, view, (guint) view->link_row);

              if (ly >= 0)
                {
                  double lx = pfprof_renderer_x_of (view, view->link_ns);
                  double lh = pfprof_renderer_row_height (tl, view, (guint) view->link_row);
                  double ya = ly + lh / 2, yb = ry + rh / 2;

                  /* A curve from the call to the work it launched. */
                  cairo_move_to (cr, lx, ya);
                  cairo_curve_to (cr, lx + 30, ya, x0 - 30, yb, x0, yb);
                  cairo_set_source_rgba (cr, 0.9, 0.1, 0.5, 0.9);
                  cairo_stroke (cr);
                  cairo_arc (cr, lx, ya, 3, 0, 2 * G_PI);
                  cairo_fill (cr);
                }
            }
        }
    }

  /* A range being selected for zoom. */
  if (view->range_end > view->range_start)
    {
      double x0 = pfprof_renderer_x_of (view, view->range_start);
      double x1 = pfprof_renderer_x_of (view, view->range_end);

      cairo_set_source_rgba (cr, 0.3, 0.5, 1.0, 0.2);
      cairo_rectangle (cr, x0, rows_top, x1 - x0, rows_bottom - rows_top);
      cairo_fill (cr);
    }

  /* Labels last, over everything, so they stay readable when panning. */
  if (view->label_width > 0)
    {
      double rgb[3];

      set_rgb (cr, bg, 1);
      cairo_rectangle (cr, 0, rows_top, view->label_width, rows_bottom - rows_top);
      cairo_fill (cr);
      cairo_set_font_size (cr, FONT_PX);
      for (guint i = 0; i < tl->rows->len; i++)
        {
          const PfprofTimelineRow *row = pfprof_timeline_get_row (tl, i);
          double h = pfprof_renderer_row_height (tl, view, i);
          double indent = 6 + row->depth * 12;

          if (row_top[i] < 0)
            continue;
          if (row->is_group)
            {
              set_rgb (cr, fg, 0.08);
              cairo_rectangle (cr, 0, row_top[i], view->label_width, h);
              cairo_fill (cr);
              /* Expander: a triangle pointing right when collapsed. */
              set_rgb (cr, fg, 0.7);
              if (row->expanded)
                {
                  cairo_move_to (cr, indent, row_top[i] + h / 2 - 3);
                  cairo_line_to (cr, indent + 8, row_top[i] + h / 2 - 3);
                  cairo_line_to (cr, indent + 4, row_top[i] + h / 2 + 3);
                }
              else
                {
                  cairo_move_to (cr, indent + 1, row_top[i] + h / 2 - 4);
                  cairo_line_to (cr, indent + 7, row_top[i] + h / 2);
                  cairo_line_to (cr, indent + 1, row_top[i] + h / 2 + 4);
                }
              cairo_close_path (cr);
              cairo_fill (cr);
              indent += 12;
              cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
            }
          else
            {
              /* A swatch of what the lane mostly holds. */
              PfprofItemClass cls = row->type == PFPROF_ROW_STREAM ? PFPROF_ITEM_KERNEL
                                    : row->type == PFPROF_ROW_DEVICE_SYNC ? PFPROF_ITEM_SYNC
                                    : row->type == PFPROF_ROW_THREAD_API  ? PFPROF_ITEM_API
                                                                          : PFPROF_ITEM_NVTX;

              pfprof_renderer_item_color (cls, view->dark, rgb);
              set_rgb (cr, rgb, 1);
              cairo_rectangle (cr, indent, row_top[i] + h / 2 - 3, 6, 6);
              cairo_fill (cr);
              indent += 10;
            }
          set_rgb (cr, fg, 0.95);
          draw_text_fit (cr, row->label, label_indent (row), row_top[i] + h / 2 + FONT_PX * 0.35,
                         view->label_width - label_indent (row) - 4);
          cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
        }
      set_rgb (cr, fg, 0.3);
      cairo_set_line_width (cr, 1);
      cairo_move_to (cr, view->label_width - 0.5, rows_top);
      cairo_line_to (cr, view->label_width - 0.5, rows_bottom);
      cairo_stroke (cr);
    }
  cairo_restore (cr);

  /* Ruler band (not clipped to the rows). */
  if (view->ruler_height > 0)
    {
      set_rgb (cr, bg, 1);
      cairo_rectangle (cr, 0, 0, view->width, view->ruler_height);
      cairo_fill (cr);
      draw_ruler (cr, tl, view, fg, rows_bottom);
      draw_steps (cr, tl, view, fg, view->ruler_height);
    }
  if (tl->n_gpu_events == 0)
    {
      /* Say so rather than leave an empty picture. */
      const char *msg = "No GPU activity in this trace";
      cairo_text_extents_t ext;

      cairo_set_font_size (cr, FONT_PX * 1.5);
      cairo_text_extents (cr, msg, &ext);
      set_rgb (cr, fg, 0.6);
      cairo_move_to (cr, view->label_width + (view->width - view->label_width - ext.x_advance) / 2,
                     (rows_top + rows_bottom) / 2);
      cairo_show_text (cr, msg);
    }
  if (view->legend_height > 0)
    {
      set_rgb (cr, bg, 1);
      cairo_rectangle (cr, 0, rows_bottom, view->width, view->legend_height);
      cairo_fill (cr);
      draw_legend (cr, tl, view, fg);
    }
  cairo_restore (cr);

  for (int c = 0; c < PFPROF_N_ITEMS; c++)
    for (int s = 0; s < N_SHADES; s++)
      if (b.boxes[c][s])
        g_array_unref (b.boxes[c][s]);
  g_array_unref (b.hatch);
  g_array_unref (b.labels);
}
