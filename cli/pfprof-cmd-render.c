/* SPDX-License-Identifier: MIT */
/* pfprof-cmd-render.c: `pfprof render TRACE... -o OUT.(png|svg|pdf)`.
 *
 * The same drawing as the GUI (render/), without a display, for CI
 * artifacts and README pictures. */
#include "pfprof-config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pfprof-analysis.h"
#include "pfprof-cli-analysis-options.h"
#include "pfprof-cli-analyze.h"
#include "pfprof-cli.h"
#include "pfprof-framing.h"
#include "pfprof-render-output.h"
#include "pfprof-render-text.h"
#include "pfprof-renderer.h"
#include "pfprof-timeline.h"

#define MAX_PIXELS 20000

/* "1.5s", "200ms", "30us", "100ns"; a bare number is milliseconds. */
static gboolean
parse_time (const char *s, gint64 *out)
{
  char *end = NULL;
  double v, mul = 1e6;

  errno = 0;
  v = g_ascii_strtod (s, &end);
  if (end == s || errno != 0 || !isfinite (v) || v < 0)
    return FALSE;
  if (*end == '\0' || strcmp (end, "ms") == 0)
    mul = 1e6;
  else if (strcmp (end, "s") == 0)
    mul = 1e9;
  else if (strcmp (end, "us") == 0 || strcmp (end, "\u00b5s") == 0)
    mul = 1e3;
  else if (strcmp (end, "ns") == 0)
    mul = 1;
  else
    return FALSE;
  if (v * mul > 9e18)
    return FALSE;
  *out = (gint64) llround (v * mul);
  return TRUE;
}

/* --rows: comma-separated "gpu", "host", "stream:N", "tid:N" or a glob
 * matched against row labels. A group is shown when a lane in it is. */
static guint8 *
rows_mask (const PfprofTimeline *tl, const char *spec, GError **error)
{
  g_auto (GStrv) words = g_strsplit (spec, ",", -1);
  guint8 *mask = g_new0 (guint8, tl->rows->len + 1);
  gboolean any = FALSE;

  for (guint i = 0; i < tl->rows->len; i++)
    {
      const PfprofTimelineRow *row = pfprof_timeline_get_row (tl, i);
      gboolean gpu = row->type == PFPROF_ROW_STREAM || row->type == PFPROF_ROW_DEVICE_SYNC;

      if (row->is_group)
        continue;
      for (guint w = 0; words[w] != NULL; w++)
        {
          const char *word = g_strstrip (words[w]);
          guint64 n;

          if (*word == '\0')
            continue;
          if ((strcmp (word, "gpu") == 0 && gpu) || (strcmp (word, "host") == 0 && !gpu)
              || (g_str_has_prefix (word, "stream:")
                  && g_ascii_string_to_unsigned (word + 7, 10, 0, G_MAXUINT32, &n, NULL)
                  && row->type == PFPROF_ROW_STREAM && row->stream_id == n)
              || (g_str_has_prefix (word, "tid:")
                  && g_ascii_string_to_unsigned (word + 4, 10, 0, G_MAXUINT32, &n, NULL) && !gpu
                  && row->tid == n)
              || g_pattern_match_simple (word, row->label))
            {
              mask[i] = 1;
              any = TRUE;
            }
        }
      /* Show the groups that enclose a shown lane. */
      if (mask[i])
        for (int p = row->parent; p >= 0; p = pfprof_timeline_get_row (tl, (guint) p)->parent)
          mask[p] = 1;
    }
  if (!any)
    {
      g_free (mask);
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--rows '%s' matches no row", spec);
      return NULL;
    }
  return mask;
}

const PfprofCliHelp pfprof_cmd_render_help = {
  "render",
  "Draw the timeline of a trace to PNG, SVG or PDF",
  "TRACE... -o OUT.png|svg|pdf",
  "Draws the timeline of traces, with the findings marked, to an image: the\n"
  "same drawing as pfprof view, without a display, for CI artifacts and\n"
  "reports. Rows are process, GPU and stream, then host threads, then what\n"
  "pfprof record saw inside the DataLoader (the batches the loop got, labelled\n"
  "with batch and worker and ending as the step gets them, the pin-memory\n"
  "thread, and a lane per worker with its batches, their stages and\n"
  "collate_fn; zoomed in to where batches are 12 px apart, a line links each\n"
  "batch to where the loop got it); steps are numbered on the ruler from 0\n"
  "(--step-pattern, --phase and --config choose how steps are found and\n"
  "which are judged, as in report).\n"
  "The format is the extension of -o. A host thread's rows read \"Thread TID\n"
  "CUDA API\" or \"Thread TID NVTX\", a further lane's number, then the\n"
  "thread's name. Rows with nothing in the range shown are left out, and the\n"
  "legend says how many (\"5 empty rows hidden\").\n"
  "\n"
  "The image shows the steady state (from the end of the warm-up steps to\n"
  "the last step, where the findings are judged), not the start-up before\n"
  "it; --whole-run shows everything from the first event to the last, as\n"
  "does a trace with no steps. --step, --from and --to choose a range of\n"
  "their own.\n",
  "  0  the image was written\n"
  "  2  usage error, unreadable trace, unwritable output\n"
  "  3  -o FILE exists and --force was not given\n",
  NULL,
  "  OUT.png, OUT.svg, OUT.pdf  the image written\n",
  "  # The steady state\n"
  "  pfprof render run.pfprof -o run.png\n"
  "  # The whole run, start-up included\n"
  "  pfprof render run.pfprof --whole-run -o run.png\n"
  "  # Step 12, dark, as SVG\n"
  "  pfprof render run.pfprof --step 12 --dark -o step12.svg\n"
  "  # Only the GPU rows, from 1.5 s to 1.8 s\n"
  "  pfprof render run.pfprof --rows gpu --from 1.5s --to 1.8s -o zoom.png\n",
  "pfprof(1), pfprof-view(1), pfprof-report(1)",
};

int
pfprof_cmd_render (int argc, char **argv)
{
  g_autofree char *output = NULL;
  g_autofree char *from = NULL;
  g_autofree char *to = NULL;
  g_autofree char *rows = NULL;
  g_return_val_if_fail (argv != NULL, PFPROF_EXIT_USAGE);

  g_auto (GStrv) inputs = NULL;
  gint step = G_MININT; /* not given */
  gint width = 1600;
  gint height = 0;
  gboolean force = FALSE;
  gboolean dark = FALSE;
  g_auto (PfprofCliAnalysisOptions) analysis_opts = { 0 };
  g_autoptr (PfprofAnalysisOptions) options = NULL;
  gboolean whole_run = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Image to write (.png, .svg or .pdf)", "FILE" },
    { "from", 0, 0, G_OPTION_ARG_STRING, &from, "Start, from the trace start (e.g. 1.5s, 200ms, 30us; bare = ms)", "TIME" },
    { "to", 0, 0, G_OPTION_ARG_STRING, &to, "End, from the trace start", "TIME" },
    { "step", 0, 0, G_OPTION_ARG_INT, &step, "Show detected step N (as numbered on the ruler, from 0)", "N" },
    { "width", 0, 0, G_OPTION_ARG_INT, &width, "Width in pixels (default 1600)", "PX" },
    { "height", 0, 0, G_OPTION_ARG_INT, &height, "Height in pixels (default: fit the rows)", "PX" },
    { "rows", 0, 0, G_OPTION_ARG_STRING, &rows, "Rows to include: gpu, host, stream:N, tid:N or a label glob, comma-separated", "LIST" },
    { "whole-run", 0, 0, G_OPTION_ARG_NONE, &whole_run, "Show the whole run, start-up included (default: the steady state)", NULL },
    { "dark", 0, 0, G_OPTION_ARG_NONE, &dark, "Dark colours", NULL },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force, "Replace FILE if it exists", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &inputs, NULL, NULL },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = pfprof_cli_help_context_new (&pfprof_cmd_render_help);
  g_autoptr (GError) error = NULL;
  g_autoptr (PfprofAnalysis) analysis = NULL;
  g_autoptr (PfprofTimeline) tl = NULL;
  g_autofree guint8 *mask = NULL;
  PfprofRenderFormat format;
  PfprofRenderView view;
  gint64 t_from = -1, t_to = -1;
  double content;

  g_option_context_add_main_entries (ctx, entries, NULL);
  pfprof_cli_analysis_options_add (&analysis_opts, ctx);
  g_option_context_set_help_enabled (ctx, TRUE);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      pfprof_cli_error ("render: %s", error->message);
      return PFPROF_EXIT_USAGE;
    }
  if (inputs == NULL || inputs[0] == NULL)
    {
      pfprof_cli_error ("render: no trace given; usage: pfprof render TRACE... -o OUT.png|svg|pdf");
      return PFPROF_EXIT_USAGE;
    }
  if (output == NULL)
    {
      pfprof_cli_error ("render: no output given (-o OUT.png|svg|pdf)");
      return PFPROF_EXIT_USAGE;
    }
  if (!pfprof_render_format_from_path (output, &format))
    {
      pfprof_cli_error ("render: cannot tell the format of '%s': name it .png, .svg or .pdf", output);
      return PFPROF_EXIT_USAGE;
    }
  if (width < 200 || width > MAX_PIXELS || (height != 0 && (height < 100 || height > MAX_PIXELS)))
    {
      pfprof_cli_error ("render: --width must be 200..%d and --height 100..%d", MAX_PIXELS, MAX_PIXELS);
      return PFPROF_EXIT_USAGE;
    }
  if ((from && !parse_time (from, &t_from)) || (to && !parse_time (to, &t_to)))
    {
      pfprof_cli_error ("render: bad time '%s' (examples: 1.5s, 200ms, 30us, 100ns)",
                        from && !parse_time (from, &t_from) ? from : to);
      return PFPROF_EXIT_USAGE;
    }
  if (step != G_MININT && step < 0)
    {
      pfprof_cli_error ("render: --step %d: steps are numbered from 0", step);
      return PFPROF_EXIT_USAGE;
    }
  if (step >= 0 && (from || to))
    {
      pfprof_cli_error ("render: --step cannot be combined with --from/--to");
      return PFPROF_EXIT_USAGE;
    }
  if (from && to && t_to <= t_from)
    {
      pfprof_cli_error ("render: --to must be after --from");
      return PFPROF_EXIT_USAGE;
    }

  if ((options = pfprof_cli_analysis_options_build (&analysis_opts, "render")) == NULL)
    return PFPROF_EXIT_USAGE;
  analysis = pfprof_cli_analyze ((const char *const *) inputs, g_strv_length (inputs), options, FALSE);
  if (analysis == NULL)
    return PFPROF_EXIT_USAGE;
  tl = pfprof_timeline_new (analysis, NULL, NULL);
  pfprof_render_view_init (&view, tl, width, 400);
  view.dark = dark;
  /* The colour key wraps on narrow images. */
  view.legend_height = width >= 1500 ? 22 : width >= 800 ? 40 : 76;
  if (step < 0 && !from && !to && !whole_run)
    pfprof_framing_steady (analysis, &view.t0, &view.t1);
  if (step >= 0)
    {
      const PfprofStep *s;
      gint64 pad;

      if (analysis->steps == NULL || (guint) step >= analysis->steps->len)
        {
          pfprof_cli_error ("render: --step %d: the trace has %u detected steps", step,
                            analysis->steps ? analysis->steps->len : 0);
          return PFPROF_EXIT_USAGE;
        }
      s = &g_array_index (analysis->steps, PfprofStep, step);
      pad = MAX ((s->end_ns - s->start_ns) / 40, 1);
      view.t0 = s->start_ns - pad;
      view.t1 = s->end_ns + pad;
    }
  if (from)
    view.t0 = tl->start_ns + t_from;
  if (to)
    view.t1 = tl->start_ns + t_to;
  if (view.t1 <= view.t0)
    {
      pfprof_cli_error ("render: the range is empty (the trace lasts %.3f ms)",
                        (double) (tl->end_ns - tl->start_ns) / 1e6);
      return PFPROF_EXIT_USAGE;
    }
  /* A range that misses the trace draws an empty image: say so. */
  if ((from || to) && (view.t0 >= tl->end_ns || view.t1 <= tl->start_ns))
    {
      pfprof_cli_error ("render: --from/--to lie outside the trace, which lasts %.3f ms",
                        (double) (tl->end_ns - tl->start_ns) / 1e6);
      return PFPROF_EXIT_USAGE;
    }
  if (rows != NULL)
    {
      mask = rows_mask (tl, rows, &error);
      if (mask == NULL)
        {
          pfprof_cli_error ("render: %s", error->message);
          return PFPROF_EXIT_USAGE;
        }
      view.row_mask = mask;
    }
  /* A picture of one range: rows with nothing in it only take space;
   * the legend says how many were left out, on a line of its own. */
  {
    guint8 *busy = g_new0 (guint8, tl->rows->len + 1);

    if (pfprof_renderer_hide_empty_rows (tl, &view, busy) > 0)
      view.legend_height += 16;
    g_free (mask);
    mask = busy;
  }
  content = pfprof_renderer_content_height (tl, &view);
  view.height = height ? height : MIN (MAX_PIXELS, MAX (160.0, ceil (view.ruler_height + content + view.legend_height + 34)));
  if (!pfprof_render_output_save (tl, &view, format, output, force, &error))
    {
      pfprof_cli_error ("render: %s", error->message);
      return pfprof_cli_output_exit_code (error);
    }
  return PFPROF_EXIT_OK;
}
