/* SPDX-License-Identifier: MIT */
/* pfprof-renderer.h: draws a PfprofTimeline with cairo.
 *
 * One function draws everything (ruler, rows with level-of-detail
 * aggregation, step boundaries, finding markers, the selected event and
 * its launch link, a legend) into any cairo context: an image or
 * SVG/PDF surface for `pfprof render`, the GUI widget's snapshot. The
 * caller says what to show through a PfprofRenderView.
 */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "pfprof-timeline.h"

G_BEGIN_DECLS

typedef struct
{
  gint64 t0;              /* visible time range, t0 < t1 */
  gint64 t1;
  double width;           /* size of the drawing, px */
  double height;
  double label_width;     /* left column of row labels; 0 for none */
  double ruler_height;    /* time ruler at the top; 0 for none */
  double legend_height;   /* colour key at the bottom; 0 for none */
  double scroll_y;        /* rows scrolled up by this many px */
  double row_scale;       /* row heights multiplied by this; 0 means 1 */
  gint64 origin_ns;       /* what the ruler calls 0 */
  gboolean dark;          /* colours for a dark background */
  const guint8 *row_mask; /* per timeline row, 0 = hidden; NULL = all */
  int selected_finding;   /* index into analysis->findings, or -1 */
  int selected_evidence;  /* its occurrence in focus, or -1 */
  int selected_row;       /* row of the selected event, or -1 */
  PfprofEventRef selected_event;
  int link_row;           /* row of the launching API call, or -1 */
  gint64 link_ns;         /* where on it the link starts */
  gint64 range_start;     /* a range being selected; none unless end > start */
  gint64 range_end;
  /* The selected finding's occurrence in focus when it is none of its
   * evidence (selected_evidence -1): outlined on row focus_row, -1 none. */
  int focus_row;
  gint64 focus_start;
  gint64 focus_end;
  /* Lanes left out for having no event in [t0, t1)
   * (pfprof_renderer_hide_empty_rows), said in the legend. */
  guint n_empty_hidden;
} PfprofRenderView;

/* What one draw did, for benchmarks and tests. */
typedef struct
{
  guint64 n_boxes;        /* events drawn as their own box */
  guint64 n_columns;      /* pixel columns drawn as an aggregate */
  guint64 n_events_covered; /* events those columns stand for */
  guint n_rows_drawn;
  guint n_collates;       /* collate_fn slices drawn on worker lanes */
  guint n_batch_links;    /* batch-to-step connectors drawn */
} PfprofRenderStats;

/* Fills @view with defaults showing the whole of @timeline at @width x
 * @height: labels, ruler, no selection. */
void pfprof_render_view_init (PfprofRenderView *view, const PfprofTimeline *timeline, double width,
                              double height);

/* Draws @timeline as @view says. @stats may be NULL. */
void pfprof_renderer_draw (cairo_t *cr, PfprofTimeline *timeline, const PfprofRenderView *view,
                           PfprofRenderStats *stats);

/* Height of row @row at @view's scale (group rows are shorter). */
double pfprof_renderer_row_height (const PfprofTimeline *timeline, const PfprofRenderView *view,
                                   guint row);

/* Whether row @row is drawn (its groups are expanded and the mask lets it). */
gboolean pfprof_renderer_row_shown (const PfprofTimeline *timeline, const PfprofRenderView *view,
                                    guint row);

/* Height of all shown rows, without ruler and legend. */
double pfprof_renderer_content_height (const PfprofTimeline *timeline, const PfprofRenderView *view);

/* Top of row @row in drawing coordinates (after scrolling), or a negative
 * value if it is not shown. */
double pfprof_renderer_row_y (const PfprofTimeline *timeline, const PfprofRenderView *view, guint row);

/* The top of every row at once, as pfprof_renderer_row_y() gives one:
 * @tops[i] for row i, negative when it is not shown; @tops holds
 * timeline->rows->len values. One pass over the rows, where asking
 * pfprof_renderer_row_y() of each row would be a pass per row. */
void pfprof_renderer_row_tops (const PfprofTimeline *timeline, const PfprofRenderView *view,
                               double *tops);

/* Leaves out, through @mask (one byte per timeline row, which becomes
 * @view's row_mask; rows its row_mask hides stay hidden), the lanes with
 * no event in [@view->t0, @view->t1) and the groups left with no lane;
 * the legend says how many lanes (pfprof_renderer_legend_note). For a
 * picture of one range (`pfprof render`), not a view that pans, where
 * rows would come and go. Returns the number of lanes left out. */
guint pfprof_renderer_hide_empty_rows (const PfprofTimeline *timeline, PfprofRenderView *view, guint8 *mask);

/* "N empty rows hidden" when @view leaves lanes out for being empty, else
 * NULL: the line the legend adds. New string. */
char *pfprof_renderer_legend_note (const PfprofRenderView *view);

/* The text drawn for row @row's label in the label column of @view (cut
 * with an ellipsis to fit, at the renderer's font), or NULL when none
 * fits. New string. */
char *pfprof_renderer_row_label_text (cairo_t *cr, const PfprofTimeline *timeline,
                                      const PfprofRenderView *view, guint row);

/* The row under drawing coordinate @y, or -1 (ruler, legend, below). */
int pfprof_renderer_row_at (const PfprofTimeline *timeline, const PfprofRenderView *view, double y);

/* Time at drawing x coordinate @x (x inside the time area). */
gint64 pfprof_renderer_time_at (const PfprofRenderView *view, double x);

/* Drawing x coordinate of time @t. */
double pfprof_renderer_x_of (const PfprofRenderView *view, gint64 t);

/* The fill colour of @cls, as 0..1 RGB. */
void pfprof_renderer_item_color (PfprofItemClass cls, gboolean dark, double rgb[3]);

/* The marker colour of findings of @severity. */
void pfprof_renderer_severity_color (PfprofSeverity severity, double rgb[3]);

/* Human name of @cls for legends ("HtoD pageable"). */
const char *pfprof_renderer_item_name (PfprofItemClass cls);

/* The text drawn on event @ref of @row ("volta_sgemm...", "HtoD pageable
 * 48.0 MiB", "Sync"), the trace's own string unescaped. New string. */
char *pfprof_renderer_event_label (const PfprofTimelineRow *row, PfprofEventRef ref);

G_END_DECLS
