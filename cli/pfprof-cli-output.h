/* pfprof-cli-output.h: writing a command's output file whole or not at all.
 *
 * `pfprof export`, `diff` and friends write text they produce in pieces.
 * The bytes go to a fresh temporary file in the destination's folder
 * (created with O_EXCL, so it never opens an existing file or follows a
 * link), which then takes the destination's name. A symbolic link or
 * anything but a regular file at the destination is refused, never
 * followed; an existing regular file is replaced only with @overwrite.
 * Same rules as `pfprof render` (render/pfprof-render-output.h).
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _PfprofCliOutput PfprofCliOutput;

/* Checks @path and creates the temporary file beside it; NULL with
 * @error set (pfprof-output-check.h's codes, or the
 * errno's code). */
PfprofCliOutput *pfprof_cli_output_open (const char *path, gboolean overwrite, GError **error);

/* Appends @len bytes of @data. FALSE with @error set when writing fails;
 * the caller then calls pfprof_cli_output_abort(). */
gboolean pfprof_cli_output_append (PfprofCliOutput *output, const char *data, gsize len,
                                   GError **error);

/* Gives the temporary file the destination's name and frees @output.
 * FALSE with @error set (and nothing left behind) on failure. */
gboolean pfprof_cli_output_commit (PfprofCliOutput *output, GError **error);

/* Removes the temporary file and frees @output; NULL is allowed. */
void pfprof_cli_output_abort (PfprofCliOutput *output);

/* The checks pfprof_cli_output_open() makes on @path, for a command whose
 * writer makes its own temporary file (pfprof import). */
gboolean pfprof_cli_output_check (const char *path, gboolean overwrite, GError **error);

/* Gives the finished file @tmp (in @path's folder) the name @path as
 * commit does: rename() over an existing file with @overwrite, else
 * link() + unlink() so an existing file is never replaced. On failure
 * @tmp is left for the caller to remove. */
gboolean pfprof_cli_output_place (const char *tmp, const char *path, gboolean overwrite,
                                  GError **error);

/* open + append + commit of one buffer. */
gboolean pfprof_cli_output_write (const char *path, const char *data, gsize len,
                                  gboolean overwrite, GError **error);

G_END_DECLS
