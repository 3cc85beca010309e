/* SPDX-License-Identifier: MIT */
/* pfprof-safe-output.h: writing an output file whole or not at all.
 *
 * Every file a command writes (`pfprof report -o`, `export`, `diff`,
 * `render`, `import`) goes through here. The bytes go to a fresh
 * temporary file in the destination's folder (created with O_EXCL, so it
 * never opens an existing file or follows a link), which is flushed to
 * disk and then takes the destination's name: a reader sees the old file
 * or the complete new one, never a part. A symbolic link or anything but
 * a regular file at the destination is refused, never followed (checked
 * first and again just before the rename); an existing regular file is
 * replaced only with @overwrite, and without it link() gives the name, so
 * a file made meanwhile is never replaced either.
 *
 * The destination is checked by trace/'s pfprof-output-check, which also
 * refuses a file the command read (the readers in trace/ note their
 * inputs there, so it cannot live here, above them); the temporary name
 * comes from trace/'s pfprof-temp-file, so a signal removes it.
 *
 * The file is created with mode 0666 less the umask, as a shell
 * redirection (`pfprof report > FILE`) or any other tool would make it:
 * the user's umask, not pfprof, decides who may read or change it.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _PfprofSafeOutput PfprofSafeOutput;

/* Checks @path and creates the temporary file beside it; NULL with
 * @error set (G_FILE_ERROR_EXIST, G_FILE_ERROR_INVAL, or the
 * errno's code). */
PfprofSafeOutput *pfprof_safe_output_open (const char *path, gboolean overwrite, GError **error);

/* Appends @len bytes of @data. FALSE with @error set when writing fails;
 * the caller then calls pfprof_safe_output_abort(). */
gboolean pfprof_safe_output_append (PfprofSafeOutput *output, const char *data, gsize len,
                                   GError **error);

/* Flushes the temporary file to disk, gives it the destination's name
 * and frees @output. FALSE with @error set (and nothing left behind) on
 * failure. */
gboolean pfprof_safe_output_commit (PfprofSafeOutput *output, GError **error);

/* Removes the temporary file and frees @output; NULL is allowed. */
void pfprof_safe_output_abort (PfprofSafeOutput *output /* nullable */);

/* The checks pfprof_safe_output_open() makes on @path, for a command
 * that wants to refuse a bad destination before its long work. */
gboolean pfprof_safe_output_check (const char *path, gboolean overwrite, GError **error);

/* Gives the finished file @tmp (in @path's folder) the name @path as
 * commit does, for a writer that makes its own file under a name from
 * pfprof_temp_file_beside() (the trace writer's SQLite database): rename()
 * over an existing file with @overwrite (checked again first), else
 * link() + unlink() so an existing file is never replaced. On failure
 * @tmp is left for the caller to remove. */
gboolean pfprof_safe_output_place (const char *tmp, const char *path, gboolean overwrite,
                                   GError **error);

/* open + append + commit of one buffer. */
gboolean pfprof_safe_output_write (const char *path, const char *data, gsize len,
                                  gboolean overwrite, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PfprofSafeOutput, pfprof_safe_output_abort)

G_END_DECLS
