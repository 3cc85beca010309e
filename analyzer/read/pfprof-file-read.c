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

struct PfprofFileRead
{
  int fd;
  struct stat at_open;
  gsize size; /* at open */
  gsize got;  /* bytes read so far */
  gboolean paused;
};

PfprofFileRead *
pfprof_file_read_open (const char *path, gsize max_bytes, PfprofFileReadFlags flags, GError **error)
{
  PfprofFileRead *f;
  struct stat at_open;
  int fd, saved;

  g_return_val_if_fail (path != NULL, NULL);
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
  f = g_new0 (PfprofFileRead, 1);
  f->fd = fd;
  f->at_open = at_open;
  f->size = (gsize) at_open.st_size;
  return f;
}

guint64
pfprof_file_read_size (const PfprofFileRead *f)
{
  g_return_val_if_fail (f != NULL, 0);

  return f->size;
}

gssize
pfprof_file_read_next (PfprofFileRead *f, char *buf, gsize n, GError **error)
{
  struct stat at_end;
  gsize want;

  g_return_val_if_fail (f != NULL, -1);
  g_return_val_if_fail (buf != NULL || n == 0, -1);

  if (!f->paused)
    {
      f->paused = TRUE;
      test_pause ();
    }
  want = MIN (MIN (n, f->size - f->got), CHUNK_BYTES);
  while (want > 0)
    {
      ssize_t r = read (f->fd, buf, want);

      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        {
          g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT, "read failed: %s",
                       g_strerror (errno));
          return -1;
        }
      if (r == 0)
        break;
      f->got += (gsize) r;
      return r;
    }
  /* At the end, or asked for nothing: the file must be as it was. */
  if (n > 0 && (f->got < f->size || fstat (f->fd, &at_end) != 0 || !same_file (&f->at_open, &at_end)))
    {
      changed (error, &f->at_open, f->got);
      return -1;
    }
  return 0;
}

void
pfprof_file_read_close (PfprofFileRead *f)
{
  if (f == NULL)
    return;
  close (f->fd);
  g_free (f);
}

char *
pfprof_file_read (const char *path, gsize max_bytes, PfprofFileReadFlags flags, gsize *len,
                  GError **error)
{
  g_autoptr (PfprofFileRead) f = NULL;
  g_autofree char *buf = NULL;
  gsize got = 0;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (len != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  f = pfprof_file_read_open (path, max_bytes, flags, error);
  if (f == NULL)
    return NULL;
  buf = g_try_malloc (f->size + 1);
  if (buf == NULL)
    {
      g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
                   "out of memory for its %" G_GSIZE_FORMAT " bytes", f->size);
      return NULL;
    }
  for (;;)
    {
      /* One byte more than the size asks for the end and its check. */
      gssize n = pfprof_file_read_next (f, buf + got, f->size - got + 1, error);

      if (n < 0)
        return NULL;
      if (n == 0)
        break;
      got += (gsize) n;
    }
  buf[got] = '\0';
  *len = got;
  return g_steal_pointer (&buf);
}
