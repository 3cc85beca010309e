/* SPDX-License-Identifier: MIT */
/* pfprof-file-read.c: the bytes of a regular file, read, never mapped
 * (pfprof-file-read.h). */
#include "pfprof-file-read.h"
#include "pfprof-output-check.h"
#include "pfprof-trace-reader.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes per read() call. */
#define CHUNK_BYTES ((gsize) 4 << 20)

static gboolean
same_file (const struct stat *a, const struct stat *b)
{
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size
         && a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static void
changed (GError **error, const struct stat *at_open, gsize got)
{
  g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
               "the file changed while it was read (%" G_GINT64_FORMAT " bytes when opened, %"
               G_GSIZE_FORMAT " read); read it again once it is written",
               (gint64) at_open->st_size, got);
}

/* For tests: with PFPROF_TEST_READ_PAUSE naming a FIFO, waits for a byte
 * from it between the open and the read, where a test changes the file
 * as another process may; deterministic where a race would not be. */
static void
test_pause (void)
{
  const char *fifo = g_getenv ("PFPROF_TEST_READ_PAUSE");
  int fd;
  char c;

  if (fifo == NULL || *fifo == '\0' || (fd = open (fifo, O_RDONLY | O_CLOEXEC)) < 0)
    return;
  while (read (fd, &c, 1) < 0 && errno == EINTR)
    ;
  close (fd);
}

char *
pfprof_file_read (const char *path, gsize max_bytes, PfprofFileReadFlags flags, gsize *len,
                  GError **error)
{
  struct stat at_open, at_end;
  g_autofree char *buf = NULL;
  gsize size, got = 0;
  int fd, saved;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (len != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY
                     | ((flags & PFPROF_FILE_READ_NO_FOLLOW) ? O_NOFOLLOW : 0));
  if (fd < 0)
    {
      saved = errno;
      g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_NOT_FOUND, "%s",
                   saved == ELOOP ? "a symbolic link" : g_strerror (saved));
      return NULL;
    }
  if (fstat (fd, &at_open) != 0 || !S_ISREG (at_open.st_mode))
    {
      close (fd);
      g_set_error_literal (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_NOT_FOUND, "not a regular file");
      return NULL;
    }
  /* Whatever its format, a file read is an input: no output replaces it. */
  pfprof_output_check_add_input (path);
  if ((guint64) at_open.st_size > max_bytes)
    {
      close (fd);
      g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
                   "file too large (%" G_GINT64_FORMAT " bytes; at most %" G_GSIZE_FORMAT " are read)",
                   (gint64) at_open.st_size, max_bytes);
      return NULL;
    }
  size = (gsize) at_open.st_size;
  buf = g_try_malloc (size + 1);
  if (buf == NULL)
    {
      close (fd);
      g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
                   "out of memory for its %" G_GSIZE_FORMAT " bytes", size);
      return NULL;
    }
  test_pause ();
  while (got < size)
    {
      ssize_t n = read (fd, buf + got, MIN (size - got, CHUNK_BYTES));

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          saved = errno;
          close (fd);
          g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT, "read failed: %s",
                       g_strerror (saved));
          return NULL;
        }
      if (n == 0)
        break;
      got += (gsize) n;
    }
  if (got < size || fstat (fd, &at_end) != 0 || !same_file (&at_open, &at_end))
    {
      close (fd);
      changed (error, &at_open, got);
      return NULL;
    }
  close (fd);
  buf[size] = '\0';
  *len = size;
  return g_steal_pointer (&buf);
}
