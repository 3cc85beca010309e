/* SPDX-License-Identifier: MIT */
/* pfprof-report-html.c: the self-contained HTML report. */
#include "pfprof-config.h"

#include "pfprof-report-html.h"

#include <cairo-svg.h>
#include <math.h>
#include <string.h>

#include "pfprof-call-sites.h"
#include "pfprof-format.h"
#include "pfprof-renderer.h"
#include "pfprof-report.h"
#include "pfprof-timeline.h"

#define TIMELINE_WIDTH 1200
#define MAX_BARS 300

static void
esc (GString *out, const char *untrusted)
{
  pfprof_escape_xml (out, untrusted ? untrusted : "");
}

static void
dur (GString *out, gint64 ns)
{
  g_autofree char *s = pfprof_format_ns (ns);

  g_string_append (out, s);
}

static cairo_status_t
append_svg (void *closure, const unsigned char *data, unsigned int length)
{
  g_string_append_len (closure, (const char *) data, length);
  return CAIRO_STATUS_SUCCESS;
}

/* The step to draw: the one holding the costliest occurrence of the top
 * finding that lies in a step (so its marks show), else the non-warm-up step closest to the
 * median length. -1 when there are no steps. */
static int
representative_step (const PfprofAnalysis *a)
{
  int best = -1;
  gint64 best_d = G_MAXINT64;

  if (a->findings->len > 0 && a->steps != NULL)
    {
      const PfprofFinding *f = g_ptr_array_index (a->findings, 0);

      for (guint e = 0; f->evidence != NULL && e < f->evidence->len; e++)
        {
          const PfprofEvidence *ev = &g_array_index (f->evidence, PfprofEvidence, e);

          for (guint i = 0; i < a->steps->len; i++)
            {
              const PfprofStep *s = &g_array_index (a->steps, PfprofStep, i);

              if (pfprof_step_is_steady (s) && s->trace_index == ev->trace_index && ev->start_ns >= s->start_ns
                  && ev->start_ns < s->end_ns)
                return (int) i;
            }
        }
    }

  for (guint i = 0; a->steps != NULL && i < a->steps->len; i++)
    {
      const PfprofStep *s = &g_array_index (a->steps, PfprofStep, i);
      gint64 d = llabs ((s->end_ns - s->start_ns) - a->step_median_ns);

      if (pfprof_step_is_steady (s) && d < best_d)
        best = (int) i, best_d = d;
    }
  return best;
}

static void
timeline_svg (const PfprofAnalysis *a, GString *out, int *step_out)
{
  g_autoptr (PfprofTimeline) tl = pfprof_timeline_new (a, NULL, NULL);
  PfprofRenderView view;
  GString *svg = g_string_new (NULL);
  cairo_surface_t *surface;
  cairo_status_t status;
  cairo_t *cr;
  int step = representative_step (a);
  const char *start;

  pfprof_render_view_init (&view, tl, TIMELINE_WIDTH, 100);
  if (step >= 0)
    {
      const PfprofStep *s = &g_array_index (a->steps, PfprofStep, step);
      gint64 pad = MAX ((s->end_ns - s->start_ns) / 40, 1);

      view.t0 = s->start_ns - pad;
      view.t1 = s->end_ns + pad;
    }
  view.legend_height = 40;
  view.height = ceil (view.ruler_height + pfprof_renderer_content_height (tl, &view) + view.legend_height + 8);
  surface = cairo_svg_surface_create_for_stream (append_svg, svg, view.width, view.height);
  cr = cairo_create (surface);
  pfprof_renderer_draw (cr, tl, &view, NULL);
  status = cairo_status (cr);
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  /* A drawing that failed midway is a partial SVG: say so instead. */
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_string_append (out, "<p><strong>The timeline could not be drawn</strong> (");
      pfprof_escape_xml (out, cairo_status_to_string (status));
      g_string_append (out, ").</p>\n");
      g_string_free (svg, TRUE);
      *step_out = step;
      return;
    }
  /* Inline: drop the XML declaration, scale to the page's width. */
  start = strstr (svg->str, "<svg");
  if (start != NULL)
    {
      const char *rest = start + 4;

      g_string_append (out, "<svg id=\"timeline-svg\" role=\"img\" aria-label=\"Timeline\" "
                            "style=\"width:100%;height:auto\" preserveAspectRatio=\"xMinYMin meet\"");
      g_string_append (out, rest);
    }
  g_string_free (svg, TRUE);
  *step_out = step;
}

static const struct
{
  const char *name;
  const char *color;
  gsize offset;
} parts[] = {
  { "data wait", "#eab308", G_STRUCT_OFFSET (PfprofStep, data_wait_ns) },
  { "copy exposed", "#f97316", G_STRUCT_OFFSET (PfprofStep, copy_exposed_ns) },
  { "compute", "#3b82f6", G_STRUCT_OFFSET (PfprofStep, compute_ns) },
  { "sync wait", "#dc2626", G_STRUCT_OFFSET (PfprofStep, sync_wait_ns) },
  { "GPU idle", "#9ca3af", G_STRUCT_OFFSET (PfprofStep, idle_ns) },
};

static gint64
part_of (const PfprofStep *s, guint p)
{
  return *(const gint64 *) ((const char *) s + parts[p].offset);
}

/* Stacked bars, one per steady step (sampled past MAX_BARS). */
static void
steps_chart (const PfprofAnalysis *a, GString *out)
{
  g_autoptr (GArray) idx = g_array_new (FALSE, FALSE, sizeof (guint));
  gint64 max_total = 1;
  guint every = 1, n;
  double w = 1000, h = 220, bar;

  for (guint i = 0; a->steps != NULL && i < a->steps->len; i++)
    if (pfprof_step_is_steady (&g_array_index (a->steps, PfprofStep, i)))
      g_array_append_val (idx, i);
  if (idx->len == 0)
    {
      g_string_append (out, "<p>No training steps were detected.</p>\n");
      return;
    }
  every = (idx->len + MAX_BARS - 1) / MAX_BARS;
  n = (idx->len + every - 1) / every;
  for (guint k = 0; k < idx->len; k += every)
    {
      const PfprofStep *s = &g_array_index (a->steps, PfprofStep, g_array_index (idx, guint, k));
      gint64 total = 0;

      for (guint p = 0; p < G_N_ELEMENTS (parts); p++)
        total += part_of (s, p);
      max_total = MAX (max_total, total);
    }
  bar = w / n;
  g_string_append_printf (out, "<svg id=\"steps-svg\" viewBox=\"0 0 %.0f %.0f\" style=\"width:100%%;height:auto\" "
                               "role=\"img\" aria-label=\"Per-step breakdown\">\n", w, h + 20);
  for (guint k = 0, col = 0; k < idx->len; k += every, col++)
    {
      const PfprofStep *s = &g_array_index (a->steps, PfprofStep, g_array_index (idx, guint, k));
      double y = h;

      for (guint p = 0; p < G_N_ELEMENTS (parts); p++)
        {
          double ph = (double) part_of (s, p) / (double) max_total * h;

          if (ph <= 0)
            continue;
          y -= ph;
          g_string_append_printf (out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>",
                                  col * bar, y, MAX (bar - (bar > 3 ? 1 : 0), 0.5), ph, parts[p].color);
        }
      g_string_append_c (out, '\n');
    }
  g_string_append_printf (out, "<text x=\"0\" y=\"%.0f\" font-size=\"12\" fill=\"#555\">", h + 16);
  g_string_append_printf (out, "%u steady steps%s; tallest bar ", idx->len,
                          every > 1 ? " (sampled)" : "");
  dur (out, max_total);
  g_string_append (out, "</text>\n</svg>\n<p class=\"legend\">");
  for (guint p = 0; p < G_N_ELEMENTS (parts); p++)
    g_string_append_printf (out, "<span><i style=\"background:%s\"></i>%s</span> ", parts[p].color, parts[p].name);
  g_string_append (out, "</p>\n");
}

/* One finding; @apart: one of phase_findings, tagged with its phase and
 * saving per mean evaluation batch. */
static void
finding (GString *out, const PfprofAnalysis *a, const PfprofFinding *f, gboolean apart)
{
  const char *sev = pfprof_severity_to_string (f->severity);
  g_autofree char *saving = apart ? pfprof_report_phase_saving (a, f) : pfprof_report_saving (f);

  g_string_append_printf (out, "<div class=\"finding %s\" data-rule=\"", sev);
  esc (out, f->rule);
  if (apart)
    g_string_append_printf (out, "\" data-phase=\"%s\">\n<p><span class=\"phase\">[%s]</span> ",
                            pfprof_loop_judge_to_string (f->phase), pfprof_loop_judge_to_string (f->phase));
  else
    g_string_append (out, "\">\n<p>");
  g_string_append_printf (out, "<span class=\"sev\">%s</span> <code>", sev);
  esc (out, f->rule);
  g_string_append (out, "</code> ");
  esc (out, saving);
  g_string_append_printf (out, ", %" G_GUINT64_FORMAT " occurrences</p>\n<h3>", f->count);
  esc (out, f->title);
  g_string_append (out, "</h3>\n<p>");
  esc (out, f->message);
  g_string_append (out, "</p>\n");
  if (f->sites != NULL && f->sites->len > 0)
    {
      g_string_append (out, "<p><strong>Where in the Python code</strong></p>\n<ul class=\"sites\">\n");
      for (guint s = 0; s < f->sites->len; s++)
        {
          g_autofree char *what = pfprof_call_site_summary (&g_array_index (f->sites, PfprofFindingSite, s));

          g_string_append (out, "<li><code>");
          esc (out, what);
          g_string_append (out, "</code></li>\n");
        }
      g_string_append (out, "</ul>\n");
    }
  g_string_append (out, "<p><strong>Fix</strong></p>\n<pre>");
  esc (out, f->fix);
  g_string_append (out, "</pre>\n</div>\n");
}

/* Each evaluation phase judged on its own, after the findings. */
static void
eval_phases (GString *out, const PfprofAnalysis *a)
{
  for (guint i = 0; a->trace_summaries != NULL && i < a->trace_summaries->len; i++)
    {
      const PfprofTraceSummary *ts = &g_array_index (a->trace_summaries, PfprofTraceSummary, i);
      g_autofree char *heading = NULL, *basis = NULL;
      g_autoptr (GPtrArray) findings = NULL;

      if (!ts->eval_judged)
        continue;
      heading = pfprof_report_eval_phase_heading (a, ts);
      basis = pfprof_report_eval_phase_basis (ts);
      findings = pfprof_report_phase_findings (a, ts->trace_index);
      g_string_append (out, "<h2>");
      esc (out, heading);
      g_string_append (out, "</h2>\n<p>");
      esc (out, basis);
      g_string_append (out, "</p>\n<div class=\"phase-findings\">\n");
      for (guint j = 0; j < findings->len; j++)
        finding (out, a, g_ptr_array_index (findings, j), TRUE);
      g_string_append (out, "</div>\n");
    }
}

void
pfprof_report_html (const PfprofAnalysis *a, const PfprofReportOptions *o, GString *out)
{
  g_autofree char *headline = pfprof_report_headline (a);
  guint shown = pfprof_report_n_shown (a, o);
  PfprofStep m = pfprof_report_median_step (a);
  int step = -1;

  g_string_append (out,
                   "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                   "<title>pfprof report</title>\n<style>\n"
                   "body{font-family:system-ui,sans-serif;margin:24px auto;max-width:1280px;padding:0 16px;color:#1a1a1f}\n"
                   "h1{font-size:24px} h2{font-size:19px;margin-top:28px}\n"
                   "table{border-collapse:collapse} td,th{padding:4px 10px;border-bottom:1px solid #ddd;text-align:left}\n"
                   ".finding{border-left:5px solid #999;padding:6px 14px;margin:14px 0;background:#fafafa}\n"
                   ".error{border-color:#ef4444} .warning{border-color:#f59e0b} .info{border-color:#2563eb}\n"
                   ".sev{font-weight:600;text-transform:uppercase;font-size:12px}\n"
                   "pre{background:#f0f1f4;padding:10px;overflow-x:auto}\n"
                   ".legend span{margin-right:14px;font-size:13px} .legend i{display:inline-block;width:11px;height:11px;margin-right:4px}\n"
                   "</style>\n</head>\n<body>\n<h1>pfprof report</h1>\n");
  if (headline)
    {
      g_string_append (out, "<p id=\"headline\"><strong>");
      esc (out, headline);
      g_string_append (out, "</strong></p>\n");
    }

  {
    g_autoptr (GPtrArray) notes = pfprof_report_incomplete_notes (a);

    for (guint i = 0; i < notes->len; i++)
      {
        g_string_append (out, "<p class=\"incomplete\"><strong>");
        esc (out, g_ptr_array_index (notes, i));
        g_string_append (out, "</strong></p>\n");
      }
  }
  {
    g_autofree char *withheld = pfprof_report_sources_withheld_note (a, G_MAXUINT);

    if (withheld != NULL)
      {
        g_string_append (out, "<p class=\"note\">");
        esc (out, withheld);
        g_string_append (out, "</p>\n");
      }
  }
  /* Summary. */
  g_string_append (out, "<h2>Summary</h2>\n<table id=\"summary\">\n<tr><th>Trace</th><th>Device</th>"
                        "<th>" PFPROF_REPORT_KERNEL_BUSY "</th><th>" PFPROF_REPORT_GPU_IDLE "</th><th>HtoD</th>"
                        "<th>" PFPROF_REPORT_OVERLAP "</th><th>" PFPROF_REPORT_COPY_EXPOSED "</th>"
                        "<th>" PFPROF_REPORT_DATA_WAIT "</th><th>" PFPROF_REPORT_SYNC_WAIT "</th></tr>\n");
  for (guint i = 0; a->devices != NULL && i < a->devices->len; i++)
    {
      const PfprofDeviceSummary *d = &g_array_index (a->devices, PfprofDeviceSummary, i);
      const PfprofTrace *t = g_ptr_array_index (a->traces, d->trace_index);
      gint64 len = d->steady_ns;
      g_autofree char *base = g_path_get_basename (t->path ? t->path : "-");
      g_autofree char *overlap = isnan (d->overlap_fraction) ? g_strdup ("n/a")
                                                             : pfprof_format_double (d->overlap_fraction * 100, 1);
      g_autofree char *busy = pfprof_report_figure_share (d->kernel_ns, len);
      g_autofree char *idle = pfprof_report_figure_share (d->idle_ns, len);
      g_autofree char *bytes = pfprof_format_bytes (d->htod_bytes);

      g_string_append (out, "<tr><td>");
      esc (out, base);
      g_string_append_printf (out, "</td><td>GPU %u</td><td>%s</td><td>%s</td><td>%s</td><td>%s%s</td><td>",
                              d->device_id, busy, idle, bytes, overlap, isnan (d->overlap_fraction) ? "" : "%");
      dur (out, d->exposed_copy_ns);
      g_string_append (out, "</td><td>");
      dur (out, d->data_wait_ns);
      g_string_append (out, "</td><td>");
      dur (out, d->sync_wait_ns);
      g_string_append (out, "</td></tr>\n");
    }
  g_string_append (out, "</table>\n");
  if (a->n_steady_steps > 0)
    {
      g_autofree char *s_steps = pfprof_report_steps_phrase (a);
      g_autofree char *s_parts = pfprof_report_parts_phrase (&m);
      g_autofree char *ahead = pfprof_report_host_ahead_phrase (a);

      g_string_append_printf (out, "<p>%s. " PFPROF_REPORT_MEDIAN_PARTS ": %s.%s%s</p>\n", s_steps, s_parts,
                              ahead ? " " : "", ahead ? ahead : "");
    }

  if (a->ledger.n_steps > 0 && a->ledger.mean_step_ns > 0)
    {
      const PfprofLedgerSummary *l = &a->ledger;
      g_autofree char *rate = pfprof_format_double (1e9 / (double) l->mean_step_ns, 1);

      g_string_append_printf (out, "<h2>Step ledger</h2>\n<p>GPU side of %u steady steps: <strong>%s "
                                   "steps/s</strong>, mean step ",
                              l->n_steps, rate);
      dur (out, l->mean_step_ns);
      g_string_append (out, ", median step ");
      dur (out, l->median_step_ns);
      g_string_append (out, ". Savings below are per mean step.</p>\n<table id=\"ledger\">\n"
                            "<tr><th>Bucket</th><th>Mean</th><th>Share</th><th>Median step</th></tr>\n");
      for (guint b = 0; b < PFPROF_LEDGER_N_BUCKETS; b++)
        {
          g_autofree char *share = NULL;

          if (l->mean_ns[b] < 1000 && l->median_ns[b] < 1000)
            continue;
          share = pfprof_format_double (100.0 * (double) l->mean_ns[b] / (double) l->mean_step_ns, 1);
          g_string_append_printf (out, "<tr><td>%s</td><td>", pfprof_ledger_bucket_label ((PfprofLedgerBucket) b));
          dur (out, l->mean_ns[b]);
          g_string_append_printf (out, "</td><td>%s%%</td><td>", share);
          dur (out, l->median_ns[b]);
          g_string_append (out, "</td></tr>\n");
        }
      g_string_append (out, "</table>\n");
    }

  /* Findings. */
  g_string_append (out, "<h2>Findings</h2>\n<div id=\"findings\">\n");
  if (a->findings->len == 0)
    g_string_append (out, "<p>No input-pipeline problem found: no rule fired on the steady state.</p>\n");
  for (guint i = 0; i < shown; i++)
    finding (out, a, g_ptr_array_index (a->findings, i), FALSE);
  if (shown < a->findings->len)
    g_string_append_printf (out, "<p>%u more not shown (--top).</p>\n", a->findings->len - shown);
  g_string_append (out, "</div>\n");
  eval_phases (out, a);

  g_string_append (out, "<h2>Per-step breakdown</h2>\n");
  steps_chart (a, out);

  g_string_append (out, "<h2 id=\"timeline-title\">Timeline</h2>\n<div id=\"timeline\">\n");
  {
    GString *svg = g_string_new (NULL);

    timeline_svg (a, svg, &step);
    if (step >= 0)
      {
        const PfprofStep *s = &g_array_index (a->steps, PfprofStep, step);

        g_string_append_printf (out, "<p>Step %d (", step);
        dur (out, s->end_ns - s->start_ns);
        g_string_append (out, "), with the findings marked: a flag and an underline on each row they affect.</p>\n");
      }
    else
      g_string_append (out, "<p>The whole trace, with the findings marked.</p>\n");
    g_string_append_len (out, svg->str, (gssize) svg->len);
    g_string_free (svg, TRUE);
  }
  g_string_append (out, "</div>\n<p style=\"color:#777;font-size:12px\">Made by pfprof " PFPROF_VERSION ".</p>\n</body>\n</html>\n");
}
