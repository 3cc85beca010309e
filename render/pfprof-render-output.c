/* pfprof-render-output.c: PNG/SVG/PDF files, written atomically. */
#include "pfprof-render-output.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pfprof-output-check.h"
#include "pfprof-temp-file.h"

gboolean
pfprof_render_format_from_path (const char *path, PfprofRenderFormat *format)
{
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

typedef struct
{
  int fd;
  int err; /* first errno, 0 if none */
} Sink;

static cairo_status_t
sink_write (void *closure, const unsigned char *data, unsigned int length)
{
  Sink *sink = closure;

  while (length > 0 && sink->err == 0)
    {
      ssize_t n = write (sink->fd, data, length);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          sink->err = n < 0 ? errno : EIO;
          break;
        }
      data += n;
      length -= (unsigned int) n;
    }
  return sink->err ? CAIRO_STATUS_WRITE_ERROR : CAIRO_STATUS_SUCCESS;
}

static gboolean
draw_to_fd (PfprofTimeline *timeline, const PfprofRenderView *view, PfprofRenderFormat format,
            int fd, GError **error)
{
  Sink sink = { fd, 0 };
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
  if (sink.err != 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (sink.err), "cannot write: %s",
                   g_strerror (sink.err));
      return FALSE;
    }
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot draw: %s",
                   cairo_status_to_string (status));
      return FALSE;
    }
  if (fsync (fd) != 0 && errno != EINVAL)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "cannot write: %s",
                   g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

/* Draws into @fd (the temporary file @tmp) and gives it @path's name;
 * on failure @tmp is removed. */
static gboolean
write_and_place (PfprofTimeline *timeline, const PfprofRenderView *view, PfprofRenderFormat format,
                 int fd, const char *tmp, const char *path, gboolean overwrite, GError **error)
{
  if (!draw_to_fd (timeline, view, format, fd, error))
    {
      close (fd);
      unlink (tmp);
      g_prefix_error (error, "%s: ", path);
      return FALSE;
    }
  if (close (fd) != 0)
    {
      int e = errno;

      unlink (tmp);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (e), "%s: cannot write: %s", path,
                   g_strerror (e));
      return FALSE;
    }
  if (!pfprof_output_check_place (tmp, path, overwrite, error))
    {
      unlink (tmp);
      return FALSE;
    }
  return TRUE;
}

gboolean
pfprof_render_output_save (PfprofTimeline *timeline, const PfprofRenderView *view,
                           PfprofRenderFormat format, const char *path, gboolean overwrite,
                           GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *tmp = NULL;
  int fd, slot = -1;
  gboolean ok;

  if (!pfprof_output_check (path, overwrite, error))
    return FALSE;
  /* O_EXCL (g_mkstemp) never opens an existing file or follows a link. */
  fd = pfprof_temp_file_beside (path, 0644, &tmp, &slot);
  if (fd < 0)
    {
      int e = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (e), "cannot create a file in %s: %s",
                   dir, g_strerror (e));
      return FALSE;
    }
  ok = write_and_place (timeline, view, format, fd, tmp, path, overwrite, error);
  pfprof_temp_file_forget (slot);
  return ok;
}
