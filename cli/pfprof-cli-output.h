/* pfprof-cli-output.h: writing a command's output file whole or not at all.
 *
 * `pfprof export` and `pfprof diff` write text they built in memory. The
 * bytes go to a fresh temporary file in the destination's folder (created
 * with O_EXCL, so it never opens an existing file or follows a link),
 * which then takes the destination's name. A symbolic link or anything
 * but a regular file at the destination is refused, never followed; an
 * existing regular file is replaced only with @overwrite. Same rules as
 * `pfprof render` (render/pfprof-render-output.h).
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Writes @len bytes of @data to @path as described above. FALSE with
 * @error set (G_IO_ERROR_EXISTS, G_IO_ERROR_NOT_REGULAR_FILE, or the
 * errno's code) and nothing left behind on failure. */
gboolean pfprof_cli_output_write (const char *path, const char *data, gsize len,
                                  gboolean overwrite, GError **error);

G_END_DECLS
