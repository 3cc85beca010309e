/* SPDX-License-Identifier: MIT */
/* pfprof-render-output.c: PNG/SVG/PDF files, written through base/'s
 * safe output (whole or not at all, never through a link). */
#include "pfprof-render-output.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <math.h>
#include <string.h>

#include "pfprof-safe-output.h"

gboolean
pfprof_render_format_from_path (const char *path, PfprofRenderFormat *format)
{
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (format != NULL, FALSE);

  const char *dot = strrchr (path, '.');

  if (dot == NULL || strchr (dot, '/') != NULL)
    return FALSE;
  if (g_ascii_strcasecmp (dot, ".png") == 0)
    *format = PFPROF_RENDER_PNG;
  else if (g_ascii_strcasecmp (dot, ".svg") == 0)
    *format = PFPROF_RENDER_SVG;
  else if (g_ascii_strcasecmp (dot, ".pdf") == 0)
    *format = PFPROF_RENDER_PDF;
  else
    return FALSE;
  return TRUE;
}

/* Where cairo's bytes go: the safe output, until the first failure. */
typedef struct
{
  PfprofSafeOutput *output;
  GError *error;
} Sink;

static cairo_status_t
sink_write (void *closure, const unsigned char *data, unsigned int length)
{
  Sink *sink = closure;

  if (sink->error == NULL)
    pfprof_safe_output_append (sink->output, (const char *) data, length, &sink->error);
  return sink->error ? CAIRO_STATUS_WRITE_ERROR : CAIRO_STATUS_SUCCESS;
}

static gboolean
draw_to (PfprofTimeline *timeline, const PfprofRenderView *view, PfprofRenderFormat format,
         PfprofSafeOutput *output, const char *path, GError **error)
{
  Sink sink = { output, NULL };
  cairo_surface_t *surface;
  cairo_status_t status;
  cairo_t *cr;
  int w = (int) ceil (view->width), h = (int) ceil (view->height);

  switch (format)
    {
    case PFPROF_RENDER_SVG:
      surface = cairo_svg_surface_create_for_stream (sink_write, &sink, w, h);
      break;
    case PFPROF_RENDER_PDF:
      surface = cairo_pdf_surface_create_for_stream (sink_write, &sink, w, h);
      break;
    default:
      surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
      break;
    }
  cr = cairo_create (surface);
  pfprof_renderer_draw (cr, timeline, view, NULL);
  status = cairo_status (cr);
  cairo_destroy (cr);
  if (status == CAIRO_STATUS_SUCCESS && format == PFPROF_RENDER_PNG)
    status = cairo_surface_write_to_png_stream (surface, sink_write, &sink);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (sink.error != NULL)
    {
      g_propagate_error (error, sink.error);
      return FALSE;
    }
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: cannot draw: %s",
                   path, cairo_status_to_string (status));
      return FALSE;
    }
  return TRUE;
}

gboolean
pfprof_render_output_save (PfprofTimeline *timeline, const PfprofRenderView *view,
                           PfprofRenderFormat format, const char *path, gboolean overwrite,
                           GError **error)
{
  g_return_val_if_fail (timeline != NULL, FALSE);
  g_return_val_if_fail (view != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  PfprofSafeOutput *output = pfprof_safe_output_open (path, overwrite, error);

  if (output == NULL)
    return FALSE;
  if (!draw_to (timeline, view, format, output, path, error))
    {
      pfprof_safe_output_abort (output);
      return FALSE;
    }
  return pfprof_safe_output_commit (output, error);
}
