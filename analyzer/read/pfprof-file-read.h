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

G_END_DECLS
