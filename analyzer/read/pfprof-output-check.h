/* SPDX-License-Identifier: MIT */
/* pfprof-output-check.h: where an output file may go.
 *
 * Every file a command writes goes through analyzer/base/pfprof-safe-output,
 * which asks here first. A symbolic link is never
 * followed, anything but a regular file is refused, an existing file
 * only replaced when asked, and never a file the process read:
 * `pfprof report -o run.pfprof --force run.pfprof` would replace the
 * trace with its own report. The readers note every file they load
 * (device and inode, so a second name or a hard link is the same file).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Notes @path (following links) as read; nothing when it cannot be
 * stat()ed. Thread-safe. */
void pfprof_output_check_add_input (const char *path);

/* Whether @path may receive an output: TRUE when nothing is there, or a
 * regular file that is not an input and @overwrite. Else FALSE with
 * @error set: G_FILE_ERROR_INVAL (a link, a folder, a FIFO..., or an
 * input of the command) or G_FILE_ERROR_EXIST (a file: "use --force"). */
gboolean pfprof_output_check (const char *path, gboolean overwrite, GError **error);

/* Gives the finished file @tmp (in @path's folder) the name @path:
 * rename() over an existing file with @overwrite (after checking again),
 * else link() + unlink() so an existing file is never replaced. On
 * failure @tmp is left for the caller to remove. */
gboolean pfprof_output_check_place (const char *tmp, const char *path, gboolean overwrite,
                                    GError **error);

G_END_DECLS
