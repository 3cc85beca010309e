/* SPDX-License-Identifier: MIT */
/* pfprof-render-output.h: a timeline drawn to a PNG, SVG or PDF file.
 *
 * The file appears whole or not at all, through base/'s safe output
 * (pfprof-safe-output.h): a temporary file in the same folder, flushed
 * and renamed into place. An existing file is replaced only when asked,
 * and a symbolic link at the destination is never followed nor replaced.
 */
#pragma once

#include <gio/gio.h>

#include "pfprof-renderer.h"

G_BEGIN_DECLS

typedef enum
{
  PFPROF_RENDER_PNG,
  PFPROF_RENDER_SVG,
  PFPROF_RENDER_PDF,
} PfprofRenderFormat;

/* The format named by @path's extension (.png, .svg, .pdf, any case);
 * FALSE if none of them. */
gboolean pfprof_render_format_from_path (const char *path, PfprofRenderFormat *format);

/* Draws @timeline as @view says into @path in @format. Without
 * @overwrite an existing @path is an error (G_FILE_ERROR_EXIST); a symlink
 * or anything but a regular file at @path is always one. On failure
 * nothing is left behind. */
gboolean pfprof_render_output_save (PfprofTimeline *timeline, const PfprofRenderView *view,
                                    PfprofRenderFormat format, const char *path,
                                    gboolean overwrite, GError **error);

G_END_DECLS
