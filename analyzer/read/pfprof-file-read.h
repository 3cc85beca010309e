/* SPDX-License-Identifier: MIT */
/* pfprof-file-read.h: the bytes of a regular file, read, never mapped.
 *
 * A mapped file that another process truncates kills the reader with
 * SIGBUS at the first page past the new end (torch.profiler re-exporting
 * a trace in place does that), and every thread with it: the GUI's tabs
 * too. Reading with read() turns the same event into an error. The file
 * is opened without blocking, so a FIFO or a device is refused instead
 * of waited on, and its size is taken once, from the open descriptor:
 * no more than that is read (a /proc file, which says 0, reads as empty,
 * and /proc/kmsg cannot block), and a file that is shorter or otherwise
 * different when the read ends is said to have changed.
 *
 * The same file may be read in pieces (PfprofFileRead): a reader that
 * keeps only a window of the bytes, as the torch.profiler importer does,
 * holds no more than that window, and the same checks apply.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  PFPROF_FILE_READ_NO_FOLLOW = 1 << 0, /* refuse a symbolic link as the path's last part */
} PfprofFileReadFlags;

/* The bytes of the regular file @path, NUL-terminated (the NUL not
 * counted in *@len); free with g_free(). NULL with @error set, in
 * PFPROF_TRACE_ERROR and without the path in its message: NOT_FOUND for
 * a missing file, a link with NO_FOLLOW, or anything but a regular file;
 * CORRUPT for a file of more than @max_bytes, memory that cannot be had,
 * a read error, and "the file changed while it was read". */
char *pfprof_file_read (const char *path, gsize max_bytes, PfprofFileReadFlags flags, gsize *len,
                        GError **error);

/* A regular file opened for reading in pieces, with the checks above. */
typedef struct PfprofFileRead PfprofFileRead;

/* Opens @path as pfprof_file_read() does (the same errors), for
 * pfprof_file_read_next(); free with pfprof_file_read_close(). */
PfprofFileRead *pfprof_file_read_open (const char *path, gsize max_bytes, PfprofFileReadFlags flags,
                                       GError **error);

/* The file's size when it was opened: the bytes there are to read. */
guint64 pfprof_file_read_size (const PfprofFileRead *f);

/* Reads up to @n of the next bytes into @buf: how many, 0 at the end, -1
 * with @error set (a read error, or the file changed: it is shorter than
 * when opened, or otherwise different at its end). */
gssize pfprof_file_read_next (PfprofFileRead *f, char *buf, gsize n, GError **error);

/* Closes @f, which may be NULL. */
void pfprof_file_read_close (PfprofFileRead *f);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PfprofFileRead, pfprof_file_read_close)

G_END_DECLS
