/* SPDX-License-Identifier: MIT */
/* pfprof-view-test.c: the pfprof-view application with a scripted
 * session, for tests/gui and bench/ (built with the tests, never
 * installed).
 *
 * It runs the very application pfprof-view runs
 * (gui/pfprof-view-application.c) and attaches to its first window
 * through the application's signals. Options (--report, --screenshot,
 * --select-finding, --select-rule, --next, --select-evidence-event,
 * --search, --search-next, --measure, --then-open, --then-screenshot,
 * --sketch-screenshot, --error-screenshot, --bench) make it, in a real window, do what a user would (open, select
 * a finding and step through its occurrences, click the occurrence's
 * event, search, measure an interval, open a corrupt file, dismiss the
 * error) and write what it shows to a report file (KEY=VALUE lines) and
 * screenshots, or time its frames, then quit. The report says, too,
 * whether the first frame came before the analysis was done ("order").
 * Without them it is the plain app. */
#include <stdio.h>
#include <string.h>

#include "pfprof-view-application.h"
#include "pfprof-view-window.h"

static char *opt_report;
static char *opt_screenshot;
static char *opt_error_screenshot;
static char *opt_then_open;
static char *opt_then_screenshot;
static char *opt_sketch_screenshot;
static int opt_select_finding = -1;
static char *opt_select_rule;
static int opt_next = 0;
static gboolean opt_bench;
static gboolean opt_select_evidence_event;
static char *opt_search;
static int opt_search_next = 0;
static char *opt_measure;
static gint64 app_start_us;

typedef struct
{
  PfprofViewWindow *window;
  GString *report;
  int stage;
  guint bench_frames;
  guint bench_tick;
  GArray *frame_us;
  GArray *frame_cpu_us;
  int screenshot_tries;
  int exit_code;
  gint64 first_frame_us;  /* when the first frame was drawn, 0 before */
  gint64 sketch_frame_us; /* when the sketch was first drawn, 0 if never */
  GString *then_order;    /* the --then-open load's events, as they came */
  char *then_sketch;      /* the page and the sketch's rows when it was drawn */
  int sketch_shot;        /* --sketch-screenshot: -1 to take, 1 taken, 0 missed */
  gint64 loaded_us;       /* when the analysis was done, 0 before */
  GString *order;         /* "sketch-frame", "first-frame", "analysed": as they came */
  char *first_summary;    /* the summary bar at the first frame */
} TestRun;

static TestRun test_run;

static void test_advance (void);

static void
report_kv (const char *key, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static void
report_kv (const char *key, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *v = NULL;

  va_start (ap, fmt);
  v = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_strdelimit (v, "\n\r", ' ');
  g_string_append_printf (test_run.report, "%s=%s\n", key, v);
}

static void
report_view (const char *prefix)
{
  PfprofTimelineWidget *tw = pfprof_view_window_get_timeline (test_run.window);
  const PfprofRenderView *v = pfprof_timeline_widget_get_view (tw);
  PfprofViewLoaded *loaded = pfprof_view_window_get_loaded (test_run.window);
  g_autofree char *k0 = g_strdup_printf ("%s_t0", prefix);
  g_autofree char *k1 = g_strdup_printf ("%s_t1", prefix);

  report_kv (k0, "%" G_GINT64_FORMAT, v->t0);
  report_kv (k1, "%" G_GINT64_FORMAT, v->t1);
  if (loaded == NULL)
    return;
  /* Rows on screen, with where they are drawn, in widget coordinates
   * offset to the window (for checking the screenshot). */
  {
    graphene_point_t p = GRAPHENE_POINT_INIT (0, 0), q;
    g_autofree char *key = g_strdup_printf ("%s_origin", prefix);

    if (!gtk_widget_compute_point (GTK_WIDGET (tw), GTK_WIDGET (test_run.window), &p, &q))
      q = p;
    report_kv (key, "%.0f %.0f %.0f %.0f %.0f", q.x, q.y, v->label_width, v->width, v->height);
  }
  g_autofree double *tops = g_new (double, loaded->timeline->rows->len + 1);

  pfprof_renderer_row_tops (loaded->timeline, v, tops);
  for (guint i = 0; i < loaded->timeline->rows->len; i++)
    {
      double y = tops[i];
      g_autofree char *key = NULL;

      if (y < v->ruler_height || y >= v->height)
        continue;
      key = g_strdup_printf ("%s_row", prefix);
      report_kv (key, "%.0f %.0f %s", y, pfprof_renderer_row_height (loaded->timeline, v, i),
                 pfprof_timeline_get_row (loaded->timeline, i)->label);
    }
}

static GtkWidget *
find_button (GtkWidget *w, const char *label)
{
  if (GTK_IS_BUTTON (w) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (w)), label) == 0)
    return w;
  for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_button (c, label);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The selected finding's call sites and fix view, and what its Copy
 * button puts on the clipboard. */
static void
report_selected_finding (PfprofViewWindow *win)
{
  PfprofSelectedFinding *sel = pfprof_view_window_get_selected_finding (win);
  GtkTextView *fix = pfprof_selected_finding_get_fix_view (sel);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (fix);
  GtkWidget *copy = find_button (GTK_WIDGET (sel), "Copy");
  GtkTextIter a, b;
  g_autofree char *text = NULL;
  GValue value = G_VALUE_INIT;
  GdkContentProvider *content;

  report_kv ("finding_sites", "%s", pfprof_selected_finding_get_sites_text (sel));
  report_kv ("fix_wraps", "%d", gtk_text_view_get_wrap_mode (fix) != GTK_WRAP_NONE);
  report_kv ("fix_monospace", "%d", gtk_text_view_get_monospace (fix));
  gtk_text_buffer_get_bounds (buffer, &a, &b);
  text = gtk_text_buffer_get_text (buffer, &a, &b, FALSE);
  if (copy != NULL)
    g_signal_emit_by_name (copy, "clicked");
  content = gdk_clipboard_get_content (gtk_widget_get_clipboard (GTK_WIDGET (win)));
  g_value_init (&value, G_TYPE_STRING);
  report_kv ("copied_fix", "%d", content != NULL && gdk_content_provider_get_value (content, &value, NULL)
                                     && g_strcmp0 (g_value_get_string (&value), text) == 0 && text[0] != '\0');
  g_value_unset (&value);
}

/* The findings list's GtkListBox, under @w. */
static GtkListBox *
find_list_box (GtkWidget *w)
{
  if (GTK_IS_LIST_BOX (w))
    return GTK_LIST_BOX (w);
  for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkListBox *found = find_list_box (c);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Each heading the findings list shows over a row: "ROW\tTEXT". */
static void
report_finding_headings (PfprofViewWindow *win)
{
  GtkListBox *list = find_list_box (GTK_WIDGET (pfprof_view_window_get_findings_panel (win)));
  GtkListBoxRow *row;

  for (int i = 0; list != NULL && (row = gtk_list_box_get_row_at_index (list, i)) != NULL; i++)
    {
      GtkWidget *header = gtk_list_box_row_get_header (row);

      if (header != NULL && GTK_IS_LABEL (header) && gtk_widget_get_visible (header))
        report_kv ("finding_heading", "%d\t%s", i, gtk_label_get_text (GTK_LABEL (header)));
    }
}

/* The finding of the row selected in the findings list, or NULL. */
static const PfprofFinding *
selected_row_finding (PfprofViewWindow *win)
{
  PfprofFindingsPanel *panel = pfprof_view_window_get_findings_panel (win);
  GtkListBox *list = find_list_box (GTK_WIDGET (panel));
  GtkListBoxRow *row = list != NULL ? gtk_list_box_get_selected_row (list) : NULL;

  if (row == NULL)
    return NULL;
  report_kv ("finding_selected_row", "%d", gtk_list_box_row_get_index (row));
  return pfprof_findings_panel_get_finding (
    panel, pfprof_findings_panel_index_at (panel, (guint) gtk_list_box_row_get_index (row)));
}

/* Steps once through every occurrence of the selected finding, as
 * presses of "next" would, back to where it started, and reports each
 * one's evidence index and cost in the order visited. */
static void
report_occurrence_walk (PfprofViewWindow *win)
{
  PfprofOccurrenceNavigator *nav = pfprof_view_window_get_navigator (win);
  const GArray *all = pfprof_occurrence_navigator_get_all (nav);
  g_autoptr (GString) index = g_string_new ("");
  g_autoptr (GString) cost = g_string_new ("");
  guint n = pfprof_occurrence_navigator_get_n (nav);

  report_kv ("occurrence_text", "%s",
             pfprof_selected_finding_get_occurrence_text (pfprof_view_window_get_selected_finding (win)));
  for (guint i = 0; i < n; i++)
    {
      int e = pfprof_view_window_get_occurrence (win);
      const PfprofEvidence *ev = &g_array_index (all, PfprofEvidence, e);

      g_string_append_printf (index, "%s%d", i ? " " : "", e);
      g_string_append_printf (cost, "%s%" G_GINT64_FORMAT, i ? " " : "", ev->end_ns - ev->start_ns);
      pfprof_view_window_step_occurrence (win, 1);
    }
  report_kv ("n_occurrences", "%u", n);
  report_kv ("occurrence_walk_index", "%s", index->str);
  report_kv ("occurrence_walk_cost", "%s", cost->str);
}

static gboolean
save_screenshot (GtkWidget *widget, const char *path)
{
  GdkPaintable *paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snap = gtk_snapshot_new ();
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  GskRenderNode *node;
  GdkTexture *texture;
  gboolean ok = FALSE;

  gdk_paintable_snapshot (paintable, snap, w, h);
  node = gtk_snapshot_free_to_node (snap);
  if (node != NULL)
    {
      GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));

      texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, (float) w, (float) h));
      ok = gdk_texture_save_to_png (texture, path);
      g_object_unref (texture);
      gsk_render_node_unref (node);
    }
  g_object_unref (paintable);
  return ok;
}

static int
compare_i64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

static void
report_series (const char *name, GArray *f)
{
  g_autofree char *k1 = g_strdup_printf ("%s_median_ms", name);
  g_autofree char *k2 = g_strdup_printf ("%s_max_ms", name);

  if (f->len == 0)
    return;
  g_array_sort (f, compare_i64);
  report_kv (k1, "%.2f", g_array_index (f, gint64, f->len / 2) / 1000.0);
  report_kv (k2, "%.2f", g_array_index (f, gint64, f->len - 1) / 1000.0);
  g_array_set_size (f, 0);
}

/* Wall time of each draw, and its CPU time (apart from preemption on a
 * busy machine). */
static void
report_frames (const char *name)
{
  g_autofree char *cpu = g_strdup_printf ("%s_cpu", name);

  report_series (name, test_run.frame_us);
  report_series (cpu, test_run.frame_cpu_us);
}

/* Redraws the timeline frame after frame, recording each draw's time. */
static gboolean
bench_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  PfprofTimelineWidget *tw = PFPROF_TIMELINE_WIDGET (widget);
  static guint last_frames;

  if (pfprof_timeline_widget_n_frames (tw) != last_frames)
    {
      last_frames = pfprof_timeline_widget_n_frames (tw);
      if (test_run.bench_frames > 0)
        {
          gint64 us = pfprof_timeline_widget_last_draw_us (tw);
          gint64 cpu = pfprof_timeline_widget_last_draw_cpu_us (tw);

          g_array_append_val (test_run.frame_us, us);
          g_array_append_val (test_run.frame_cpu_us, cpu);
        }
      test_run.bench_frames++;
    }
  if (test_run.bench_frames > 30)
    {
      test_run.bench_tick = 0;
      g_idle_add_once ((GSourceOnceFunc) test_advance, NULL);
      return G_SOURCE_REMOVE;
    }
  /* A one-pixel pan each frame, as a user scrolling would cause. */
  {
    const PfprofRenderView *v = pfprof_timeline_widget_get_view (tw);
    gint64 d = (v->t1 - v->t0) / 1000 * ((test_run.bench_frames & 1) ? 1 : -1);

    pfprof_timeline_widget_set_range (tw, v->t0 + d, v->t1 + d);
  }
  return G_SOURCE_CONTINUE;
}

static void
start_bench (void)
{
  PfprofTimelineWidget *tw = pfprof_view_window_get_timeline (test_run.window);

  test_run.bench_frames = 0;
  test_run.bench_tick = gtk_widget_add_tick_callback (GTK_WIDGET (tw), bench_tick, NULL, NULL);
}

static void
finish (void)
{
  if (opt_report)
    {
      g_autoptr (GError) error = NULL;

      if (!g_file_set_contents (opt_report, test_run.report->str, -1, &error))
        {
          fprintf (stderr, "pfprof-view-test: %s\n", error->message);
          test_run.exit_code = 1;
        }
    }
  g_application_quit (g_application_get_default ());
}

static void
later (guint ms)
{
  g_timeout_add_once (ms, (GSourceOnceFunc) test_advance, NULL);
}

/* Whether the search bar has slid in all the way: shown, and as tall as
 * it was at the last look (a revealer grows it frame by frame). */
static gboolean
search_bar_shown (PfprofViewWindow *win)
{
  static int last_height = -1;
  GtkWidget *bar = GTK_WIDGET (pfprof_view_window_get_search_bar (win));
  GtkWidget *entry = GTK_WIDGET (pfprof_search_bar_get_entry (pfprof_view_window_get_search_bar (win)));
  int h = gtk_widget_get_height (bar);
  gboolean steady = h == last_height;

  last_height = h;
  return gtk_widget_get_mapped (entry) && h > 0 && steady;
}

/* One step of the scripted session per call; each waits for frames to
 * be drawn before the next. */
static void
test_advance (void)
{
  PfprofViewWindow *win = test_run.window;
  PfprofTimelineWidget *tw = pfprof_view_window_get_timeline (win);
  PfprofViewLoaded *loaded = pfprof_view_window_get_loaded (win);

  switch (test_run.stage++)
    {
    case 0: /* first frame drawn (or the load failed) */
      report_kv ("page", "%s", pfprof_view_window_get_page (win));
      /* The timeline is drawn before the analysis is done; the session
       * goes on once both are. */
      report_kv ("first_frame_ms", "%.1f",
                 ((test_run.first_frame_us ? test_run.first_frame_us : g_get_monotonic_time ())
                  - app_start_us) / 1000.0);
      if (test_run.loaded_us != 0)
        report_kv ("analysed_ms", "%.1f", (test_run.loaded_us - app_start_us) / 1000.0);
      if (test_run.sketch_frame_us != 0)
        report_kv ("sketch_frame_ms", "%.1f", (test_run.sketch_frame_us - app_start_us) / 1000.0);
      report_kv ("order", "%s", test_run.order->str);
      if (test_run.first_summary != NULL)
        report_kv ("first_frame_summary", "%s", test_run.first_summary);
      report_kv ("error_dialog", "%d", pfprof_view_window_get_error_dialog (win) != NULL);
      {
        g_autoptr (GError) gl_error = NULL;

        /* Whether GDK set GL up when it opened the display. */
        report_kv ("gl_disabled", "%d",
                   !gdk_display_prepare_gl (gtk_widget_get_display (GTK_WIDGET (win)), &gl_error)
                     && strstr (gl_error->message, "GDK_DEBUG") != NULL);
      }
      report_kv ("help_overlay", "%d", gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (win)) != NULL);
      if (loaded != NULL)
        {
          report_kv ("n_events", "%" G_GUINT64_FORMAT, pfprof_trace_n_events (g_ptr_array_index (loaded->analysis->traces, 0)));
          report_kv ("sketch_ms", "%.1f", loaded->sketch_us / 1000.0);
          report_kv ("load_ms", "%.1f", loaded->load_us / 1000.0);
          report_kv ("analysis_ms", "%.1f", loaded->analysis_us / 1000.0);
          report_kv ("layout_ms", "%.1f", loaded->layout_us / 1000.0);
          report_kv ("load_cpu_ms", "%.1f", loaded->load_cpu_us / 1000.0);
          report_kv ("analysis_cpu_ms", "%.1f", loaded->analysis_cpu_us / 1000.0);
          report_kv ("layout_cpu_ms", "%.1f", loaded->layout_cpu_us / 1000.0);
          report_kv ("first_draw_ms", "%.2f", pfprof_timeline_widget_last_draw_us (tw) / 1000.0);
          report_kv ("n_findings", "%u", loaded->analysis->findings ? loaded->analysis->findings->len : 0);
          report_kv ("summary", "%s", pfprof_view_window_get_summary (win));
          {
            g_autofree char *rows = pfprof_findings_panel_dup_rows_text (pfprof_view_window_get_findings_panel (win));
            g_auto (GStrv) row = g_strsplit (rows, "\n", -1);

            for (guint i = 0; rows[0] != '\0' && row[i] != NULL; i++)
              report_kv ("finding_row", "%s", row[i]);
          }
          report_finding_headings (win);
        }
      report_view ("initial");
      later (100);
      break;
    case 1: /* bench: full view */
      if (opt_bench && loaded != NULL)
        {
          pfprof_timeline_widget_fit_all (tw);
          start_bench ();
          break;
        }
      test_advance ();
      break;
    case 2: /* bench: deep zoom, 20 us in the middle */
      if (opt_bench && loaded != NULL)
        {
          gint64 mid = loaded->timeline->start_ns + (loaded->timeline->end_ns - loaded->timeline->start_ns) / 2;

          report_frames ("frame_full");
          pfprof_timeline_widget_set_range (tw, mid - 10000, mid + 10000);
          start_bench ();
          break;
        }
      test_advance ();
      break;
    case 3: /* select a finding, like a click in the panel */
      if (opt_bench)
        {
          report_frames ("frame_deep");
          pfprof_timeline_widget_fit_all (tw);
        }
      if (opt_select_finding >= 0 || opt_select_rule != NULL)
        {
          gboolean ok = opt_select_rule != NULL ? pfprof_view_window_select_rule (win, opt_select_rule)
                                                : pfprof_view_window_select_finding (win, (guint) opt_select_finding);

          report_kv ("select_finding_ok", "%d", ok);
          if (ok)
            report_occurrence_walk (win);
          for (int i = 0; ok && i < opt_next; i++)
            pfprof_view_window_step_occurrence (win, 1);
          if (ok && loaded != NULL)
            {
              const PfprofRenderView *v = pfprof_timeline_widget_get_view (tw);
              const PfprofFinding *f = selected_row_finding (win);
              const PfprofEvidence *cur = pfprof_occurrence_navigator_get_current (pfprof_view_window_get_navigator (win));

              report_kv ("finding_rule", "%s", f->rule);
              report_kv ("finding_phase", "%s", pfprof_loop_judge_to_string (f->phase));
              /* The occurrence shown: its interval, the one outlined, and
               * the range in view. */
              if (cur != NULL)
                report_kv ("occurrence", "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT, cur->start_ns, cur->end_ns);
              report_kv ("focus", "%d %" G_GINT64_FORMAT " %" G_GINT64_FORMAT, v->focus_row, v->focus_start,
                         v->focus_end);
              report_kv ("view_range", "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT, v->t0, v->t1);
              if (v->selected_evidence >= 0)
                {
                  const PfprofEvidence *ev = &g_array_index (f->evidence, PfprofEvidence, v->selected_evidence);
                  int row = pfprof_timeline_finding_rows (loaded->timeline, (guint) v->selected_finding)[v->selected_evidence];

                  report_kv ("evidence", "%d %" G_GINT64_FORMAT " %" G_GINT64_FORMAT, v->selected_evidence,
                             ev->start_ns, ev->end_ns);
                  report_kv ("evidence_row", "%s", row >= 0 ? pfprof_timeline_get_row (loaded->timeline, (guint) row)->label : "");
                  if (opt_select_evidence_event && ev->table != PFPROF_TABLE_DEVICES)
                    {
                      PfprofEventRef ref = PFPROF_EVENT_REF (ev->table, ev->index);
                      int erow = pfprof_timeline_find_row (loaded->timeline, ev->trace_index, ref);

                      if (erow >= 0)
                        pfprof_timeline_widget_select_event (tw, erow, ref);
                    }
                }
            }
        }
      if (opt_search != NULL)
        {
          PfprofSearchBar *bar = pfprof_view_window_get_search_bar (win);

          /* As typed in the bar Ctrl+F opens, then Enter N times. */
          g_action_group_activate_action (G_ACTION_GROUP (win), "search", NULL);
          gtk_editable_set_text (pfprof_search_bar_get_entry (bar), opt_search);
          gint64 t = g_get_monotonic_time ();

          for (int i = 0; i < opt_search_next; i++)
            pfprof_search_bar_step (bar, 1);
          report_kv ("search_ms", "%.1f", (g_get_monotonic_time () - t) / 1000.0);
        }
      if (opt_measure != NULL)
        {
          /* FROM:TO as fractions of the visible range: a drag on the ruler. */
          const PfprofRenderView *v = pfprof_timeline_widget_get_view (tw);
          double a = 0, b = 0;

          if (sscanf (opt_measure, "%lf:%lf", &a, &b) == 2)
            {
              gint64 span = v->t1 - v->t0, t = g_get_monotonic_time ();

              pfprof_timeline_widget_set_selection (tw, v->t0 + (gint64) (a * (double) span),
                                                    v->t0 + (gint64) (b * (double) span));
              report_kv ("measure_ms", "%.1f", (g_get_monotonic_time () - t) / 1000.0);
              pfprof_timeline_widget_add_marker (tw, v->t0 + (gint64) (b * (double) span),
                                                 v->t0 + (gint64) (b * (double) span));
            }
          report_kv ("measure", "%s", pfprof_measure_bar_get_text (pfprof_view_window_get_measure_bar (win)));
        }
      {
        g_autofree char *ledger = pfprof_ledger_panel_get_text (pfprof_view_window_get_ledger_panel (win));

        if (ledger[0] != '\0')
          report_kv ("ledger", "%s", ledger);
      }
      later (300);
      break;
    case 4:
      if ((opt_select_finding >= 0 || opt_select_rule != NULL) && test_run.screenshot_tries == 0)
        {
          report_view ("selected");
          report_kv ("details", "%s", pfprof_view_window_get_details (win));
          report_kv ("link_row", "%d", pfprof_timeline_widget_get_view (tw)->link_row);
          report_selected_finding (win);
        }
      if (opt_search != NULL && !search_bar_shown (win) && test_run.screenshot_tries++ < 50)
        {
          /* The bar slides in: the picture is taken once it is in. */
          test_run.stage--;
          later (100);
          break;
        }
      if (opt_search != NULL)
        report_kv ("search_count", "%s", pfprof_search_bar_get_count (pfprof_view_window_get_search_bar (win)));
      if (opt_screenshot)
        {
          /* Where the rows are in the picture. */
          report_view ("shot");
          /* A relayout (new texts in the panel) can be pending, and then
           * the window has nothing to give: try again after a frame. */
          gboolean saved = save_screenshot (GTK_WIDGET (win), opt_screenshot);

          if (!saved && test_run.screenshot_tries++ < 50)
            {
              test_run.stage--;
              later (100);
              break;
            }
          report_kv ("screenshot", "%d", saved);
        }
      if (opt_then_open)
        {
          g_autoptr (GFile) file = g_file_new_for_commandline_arg (opt_then_open);

          /* The "loaded" handler continues at stage 5. */
          pfprof_view_window_open (win, &file, 1);
          break;
        }
      finish ();
      break;
    case 5: /* the second open finished */
      {
        GtkWidget *dialog = pfprof_view_window_get_error_dialog (win);

        report_kv ("then_order", "%s", test_run.then_order->str);
        if (test_run.then_sketch != NULL)
          report_kv ("then_sketch", "%s", test_run.then_sketch);
        if (opt_sketch_screenshot != NULL)
          report_kv ("sketch_screenshot", "%d", test_run.sketch_shot);
        report_kv ("then_page", "%s", pfprof_view_window_get_page (win));
        report_kv ("then_sketch_visible", "%d",
                   gtk_widget_get_visible (GTK_WIDGET (pfprof_view_window_get_sketch_view (win))));
        if (opt_then_screenshot)
          {
            gboolean saved = save_screenshot (GTK_WIDGET (tw), opt_then_screenshot);

            if (!saved && test_run.screenshot_tries++ < 50)
              {
                test_run.stage--;
                later (100);
                break;
              }
            report_kv ("then_screenshot", "%d", saved);
          }

        report_kv ("error_dialog_after_open", "%d", dialog != NULL && gtk_widget_get_visible (dialog));
        if (dialog != NULL)
          {
            GtkWidget *area = gtk_message_dialog_get_message_area (GTK_MESSAGE_DIALOG (dialog));

            for (GtkWidget *c = gtk_widget_get_first_child (area); c != NULL; c = gtk_widget_get_next_sibling (c))
              if (GTK_IS_LABEL (c))
                report_kv ("error_text", "%s", gtk_label_get_text (GTK_LABEL (c)));
          }
        later (300);
        break;
      }
    case 6:
      {
        GtkWidget *dialog = pfprof_view_window_get_error_dialog (win);

        if (opt_error_screenshot)
          {
            gboolean saved = save_screenshot (dialog ? dialog : GTK_WIDGET (win), opt_error_screenshot);

            if (!saved && test_run.screenshot_tries++ < 50)
              {
                test_run.stage--;
                later (100);
                break;
              }
            report_kv ("error_screenshot", "%d", saved);
          }
        /* Dismiss it as a user would; the window must carry on. */
        if (dialog != NULL)
          gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CLOSE);
        report_kv ("frames_before", "%u", pfprof_timeline_widget_n_frames (tw));
        pfprof_timeline_widget_zoom (tw, 0.5, pfprof_timeline_widget_get_view (tw)->t0);
        later (300);
        break;
      }
    case 7:
      report_kv ("frames_after", "%u", pfprof_timeline_widget_n_frames (tw));
      report_kv ("page_after", "%s", pfprof_view_window_get_page (win));
      report_kv ("error_dialog_left", "%d", pfprof_view_window_get_error_dialog (win) != NULL);
      report_kv ("alive", "1");
      finish ();
      break;
    default:
      break;
    }
}

/* The first load's events, in the order they came. */
static void
note_event (const char *what)
{
  g_string_append_printf (test_run.order, "%s%s", test_run.order->len ? " " : "", what);
}

/* Saves the window while it shows the sketch (a snapshot cannot be
 * taken inside the frame that drew it, nor while a relayout is pending:
 * tried again until one is, or the sketch is gone). */
static gboolean
take_sketch_screenshot (gpointer data)
{
  GtkWidget *sv = GTK_WIDGET (pfprof_view_window_get_sketch_view (test_run.window));

  if (!gtk_widget_get_mapped (sv))
    {
      test_run.sketch_shot = 0;
      return G_SOURCE_REMOVE;
    }
  if (!save_screenshot (GTK_WIDGET (test_run.window), opt_sketch_screenshot))
    return G_SOURCE_CONTINUE;
  test_run.sketch_shot = 1;
  return G_SOURCE_REMOVE;
}

/* The sketch drawn: for the first load, when; for the --then-open one
 * (the window shown already), what the user sees then. */
static void
on_test_sketch_frame (PfprofSketchView *sv, gpointer data)
{
  const PfprofTraceSketch *sk = pfprof_sketch_view_get_sketch (sv);
  GString *what;

  if (test_run.stage == 5)
    {
      g_string_append (test_run.then_order, test_run.then_order->len ? " sketch-frame" : "sketch-frame");
      what = g_string_new (pfprof_view_window_get_page (test_run.window));
      for (guint i = 0; i < sk->rows->len; i++)
        g_string_append_printf (what, ", %s", g_array_index (sk->rows, PfprofTraceSketchRow, i).label);
      g_free (test_run.then_sketch);
      test_run.then_sketch = g_string_free (what, FALSE);
      if (opt_sketch_screenshot != NULL && test_run.sketch_shot == -1)
        {
          test_run.sketch_shot = 0;
          g_timeout_add (10, take_sketch_screenshot, NULL);
        }
      return;
    }
  if (test_run.stage != 0 || test_run.sketch_frame_us != 0)
    return;
  test_run.sketch_frame_us = g_get_monotonic_time ();
  note_event ("sketch-frame");
}

static void
on_test_first_frame (PfprofTimelineWidget *tw, gpointer data)
{
  if (test_run.stage == 5)
    g_string_append (test_run.then_order, test_run.then_order->len ? " first-frame" : "first-frame");
  if (test_run.stage != 0 || test_run.first_frame_us != 0)
    return;
  test_run.first_frame_us = g_get_monotonic_time ();
  note_event ("first-frame");
  test_run.first_summary = g_strdup (pfprof_view_window_get_summary (test_run.window));
  if (pfprof_view_window_get_loaded (test_run.window) != NULL)
    g_idle_add_once ((GSourceOnceFunc) test_advance, NULL);
}

static void
on_test_loaded (PfprofViewWindow *win, gboolean ok, gpointer data)
{
  /* The first load: wait for its first frame, unless nothing will be
   * drawn (load failed, no GPU page). */
  if (test_run.stage == 0)
    {
      if (test_run.loaded_us == 0)
        {
          test_run.loaded_us = g_get_monotonic_time ();
          note_event (ok ? "analysed" : "failed");
        }
      if (!ok || g_strcmp0 (pfprof_view_window_get_page (win), "content") != 0)
        later (400);
      else if (test_run.first_frame_us != 0)
        later (100); /* drawn before the analysis was done: once more with it */
    }
  else if (test_run.stage == 5)
    {
      g_string_append (test_run.then_order, test_run.then_order->len ? " loaded" : "loaded");
      later (300);
    }
}

static gboolean
on_watchdog (gpointer data)
{
  fprintf (stderr, "pfprof-view-test: timed out at stage %d\n", test_run.stage);
  report_kv ("timeout_stage", "%d", test_run.stage);
  test_run.exit_code = 3;
  finish ();
  return G_SOURCE_REMOVE;
}

static const GOptionEntry entries[] = {
  { "report", 0, 0, G_OPTION_ARG_FILENAME, &opt_report, "Write what is shown to FILE and quit", "FILE" },
  { "screenshot", 0, 0, G_OPTION_ARG_FILENAME, &opt_screenshot, "Save the window as PNG", "FILE" },
  { "select-finding", 0, 0, G_OPTION_ARG_INT, &opt_select_finding, "Select the N-th finding", "N" },
  { "select-rule", 0, 0, G_OPTION_ARG_STRING, &opt_select_rule, "Select the first finding of RULE", "RULE" },
  { "next", 0, 0, G_OPTION_ARG_INT, &opt_next, "Then go N occurrences further", "N" },
  { "select-evidence-event", 0, 0, G_OPTION_ARG_NONE, &opt_select_evidence_event, "Click the occurrence's event", NULL },
  { "then-open", 0, 0, G_OPTION_ARG_FILENAME, &opt_then_open, "Then open FILE", "FILE" },
  { "then-screenshot", 0, 0, G_OPTION_ARG_FILENAME, &opt_then_screenshot, "Save the timeline once FILE is open as PNG", "FILE" },
  { "sketch-screenshot", 0, 0, G_OPTION_ARG_FILENAME, &opt_sketch_screenshot, "Save the window while it sketches FILE as PNG", "FILE" },
  { "error-screenshot", 0, 0, G_OPTION_ARG_FILENAME, &opt_error_screenshot, "Save the error dialog as PNG", "FILE" },
  { "bench", 0, 0, G_OPTION_ARG_NONE, &opt_bench, "Measure frame times", NULL },
  { "search", 0, 0, G_OPTION_ARG_STRING, &opt_search, "Search for TEXT", "TEXT" },
  { "search-next", 0, 0, G_OPTION_ARG_INT, &opt_search_next, "Then go to the N-th match", "N" },
  { "measure", 0, 0, G_OPTION_ARG_STRING, &opt_measure, "Select FROM:TO (fractions of the view) and mark TO", "FROM:TO" },
  { NULL },
};

static gboolean
requested (void)
{
  return opt_report || opt_screenshot || opt_then_open || opt_bench || opt_select_finding >= 0 || opt_select_rule
         || opt_search || opt_measure;
}

/* Scripts the session on the first window; later ones are left alone. */
static void
on_window_added (GtkApplication *app, GtkWindow *window, gpointer data)
{
  if (!requested () || test_run.window != NULL || !PFPROF_IS_VIEW_WINDOW (window))
    return;
  test_run.window = PFPROF_VIEW_WINDOW (window);
  test_run.report = g_string_new ("");
  test_run.order = g_string_new ("");
  test_run.then_order = g_string_new ("");
  test_run.sketch_shot = -1;
  test_run.frame_us = g_array_new (FALSE, FALSE, sizeof (gint64));
  test_run.frame_cpu_us = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_signal_connect (pfprof_view_window_get_timeline (test_run.window), "first-frame",
                    G_CALLBACK (on_test_first_frame), NULL);
  g_signal_connect (pfprof_view_window_get_sketch_view (test_run.window), "first-frame",
                    G_CALLBACK (on_test_sketch_frame), NULL);
  g_signal_connect (window, "loaded", G_CALLBACK (on_test_loaded), NULL);
  g_timeout_add_seconds (120, on_watchdog, NULL);
}

/* The app started with nothing to open: report the empty window. */
static void
on_activate (GApplication *app, gpointer data)
{
  if (requested ())
    later (500);
}

int
main (int argc, char **argv)
{
  gint64 start_us = g_get_monotonic_time ();
  g_autoptr (GtkApplication) app = pfprof_view_application_new ();
  int status;

  /* The first-frame times count from here. */
  app_start_us = start_us;
  g_application_add_main_option_entries (G_APPLICATION (app), entries);
  g_signal_connect (app, "window-added", G_CALLBACK (on_window_added), NULL);
  g_signal_connect_after (app, "activate", G_CALLBACK (on_activate), NULL);
  status = g_application_run (G_APPLICATION (app), argc, argv);
  if (test_run.report)
    {
      g_string_free (test_run.report, TRUE);
      g_string_free (test_run.order, TRUE);
      g_string_free (test_run.then_order, TRUE);
      g_free (test_run.then_sketch);
      g_free (test_run.first_summary);
      g_array_unref (test_run.frame_us);
      g_array_unref (test_run.frame_cpu_us);
    }
  return status != 0 ? status : test_run.exit_code;
}
