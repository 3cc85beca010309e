/* SPDX-License-Identifier: MIT */
/* pfprof-importer.c: the importer table; see pfprof-importer.h. */
#include "pfprof-importer.h"
#include "pfprof-kineto-import-private.h"
#include "pfprof-nsys-import-private.h"
#include "pfprof-trace-schema.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#define SQLITE_MAGIC "SQLite format 3"

/* SQLite keeps the application id big-endian at byte 68 of its header. */
static guint32
sqlite_application_id (const guint8 *head, gsize len)
{
  if (len < 72 || memcmp (head, SQLITE_MAGIC, sizeof SQLITE_MAGIC) != 0)
    return 0;
  return ((guint32) head[68] << 24) | ((guint32) head[69] << 16) | ((guint32) head[70] << 8)
         | head[71];
}

/* Any other SQLite database in rollback mode: the nsys importer checks
 * its tables and refuses one that is not an export with the reader's own
 * message. A pfprof trace whose writer stopped before its first checkpoint
 * is in WAL mode (header bytes 18 and 19 are 2) and may not have its
 * application id in the file yet: it stays with the native reader. */
static gboolean
nsys_sniff (const guint8 *head, gsize len)
{
  return len >= 100 && memcmp (head, SQLITE_MAGIC, sizeof SQLITE_MAGIC) == 0
         && head[18] != 2 && head[19] != 2
         && sqlite_application_id (head, len) != PFPROF_TRACE_APPLICATION_ID;
}

static gboolean
native_sniff (const guint8 *head, gsize len)
{
  return TRUE;
}

static const PfprofImporter importers[] = {
  { "nsys", "Nsight Systems SQLite export (nsys export --type sqlite)", nsys_sniff,
    pfprof_nsys_import_load },
  { "kineto", "torch.profiler (Kineto) Chrome-trace JSON, plain or gzip (*.pt.trace.json.gz)",
    pfprof_kineto_import_sniff, pfprof_kineto_import_load },
  /* Last: takes every file the others refuse, and says what is wrong. */
  { "pfprof", "pfprof trace (.pfprof, format 1 and 2)", native_sniff,
    pfprof_trace_reader_load },
};

const PfprofImporter *
pfprof_importer_table (guint *n_importers)
{
  g_return_val_if_fail (n_importers != NULL, NULL);
  *n_importers = G_N_ELEMENTS (importers);
  return importers;
}

gsize
pfprof_importer_read_head (const char *path, guint8 head[PFPROF_IMPORTER_HEAD_SIZE])
{
  gsize len = 0;
  int fd;

  g_return_val_if_fail (path != NULL, 0);
  g_return_val_if_fail (head != NULL, 0);

  /* O_NONBLOCK: a FIFO or a device must not block the sniff; the reader
   * refuses anything but a regular file. */
  fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd >= 0)
    {
      struct stat st;

      if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode))
        while (len < PFPROF_IMPORTER_HEAD_SIZE)
          {
            ssize_t n = read (fd, head + len, PFPROF_IMPORTER_HEAD_SIZE - len);

            if (n < 0 && errno == EINTR)
              continue;
            if (n <= 0)
              break;
            len += (gsize) n;
          }
      close (fd);
    }
  return len;
}

const PfprofImporter *
pfprof_importer_for_file (const char *path)
{
  guint8 head[PFPROF_IMPORTER_HEAD_SIZE];
  gsize len;

  g_return_val_if_fail (path != NULL, NULL);

  len = pfprof_importer_read_head (path, head);
  for (guint i = 0; i + 1 < G_N_ELEMENTS (importers); i++)
    if (len > 0 && importers[i].sniff (head, len))
      return &importers[i];
  return &importers[G_N_ELEMENTS (importers) - 1];
}

PfprofTrace *
pfprof_importer_load (const char *path, PfprofTraceProgressFunc progress, gpointer user_data,
                      GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return pfprof_importer_for_file (path)->load (path, progress, user_data, error);
}

gboolean
pfprof_importer_is_trace_json (const guint8 *head, gsize len)
{
  g_return_val_if_fail (head != NULL || len == 0, FALSE);
  return pfprof_kineto_import_is_kineto (head, len);
}
