/* SPDX-License-Identifier: MIT */
/* pfprof-trace-reader.c: loads a trace file into a PfprofTrace.
 *
 * The file is never modified and nothing is created beside it. A finished
 * trace is in rollback-journal mode and is opened with `immutable=1`, which
 * makes SQLite take no locks and create no -wal or -shm file. A trace whose
 * writer was killed is still in WAL mode, and its committed batches may
 * live only in the -wal file; SQLite cannot read those without a writable
 * -shm beside the database, so the reader copies the database and its -wal
 * into a private temporary folder and reads the copy. The same goes for a
 * file with a hot -journal beside it (a transaction was interrupted): the
 * copy is rolled back, the original left as it is. Only a -wal that holds
 * a frame, or a journal with its magic, makes a copy: anything less SQLite
 * ignores too. The copy is registered with pfprof-temp-file, so a signal
 * removes it.
 *
 * Format 2 (trace/pfprof-trace-chunk.h) keeps the event tables as column
 * chunks in the table `chunks`: a first pass over the chunks' small
 * columns (no blob is read) checks them and sizes every event array
 * exactly; the second decodes each blob straight into its place in the
 * array. Format 1 files, and the object tables of both formats, are read
 * as rows.
 *
 * Row columns are selected by name from the schema description, and chunk
 * columns skipped by their byte length, so a file of another minor
 * version (extra columns, or missing newer ones) still reads. Every value
 * is checked against the struct field it goes into; anything that does
 * not fit, a NULL, a negative duration, a chunk whose lengths do not add
 * up, or an SQLite corruption error ends the load with one
 * PFPROF_TRACE_ERROR_CORRUPT line naming the file, the table and the row
 * or chunk.
 */
#include "pfprof-trace-reader.h"
#include "pfprof-trace-chunk.h"
#include "pfprof-huge-pages.h"
#include "pfprof-output-check.h"
#include "pfprof-sqlite-guard.h"
#include "pfprof-temp-file.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

G_DEFINE_QUARK (pfprof-trace-error-quark, pfprof_trace_error)

/* Progress is reported (and cancellation checked) this often. */
#define PROGRESS_ROWS 65536

/* Sparse string ids are allowed, but a bogus huge id must not make us
 * allocate gigabytes. */
#define MAX_STRING_ID_SLACK 65536

#define SQLITE_MAGIC "SQLite format 3"
#define HEADER_SIZE 100

typedef struct
{
  const char *path;          /* as given, for messages */
  sqlite3 *db;
  char *tmp_dir;             /* private copy of a WAL-mode trace, or NULL */
  int tmp_slots[2];          /* its pfprof-temp-file registrations: folder, copy */
  int file_major;
  int file_minor;
  guint64 rows_total;        /* estimate, for progress */
  guint64 rows_estimate[PFPROF_N_TABLES];
  guint64 file_bytes;        /* database (+ WAL) size, bounds the estimates */
  guint64 rows_done;
  PfprofTraceProgressFunc progress;
  gpointer user_data;
  GArray *chunks;            /* format 2: Chunk, in id order */
  char *open_name;           /* what r->db was opened with, for a second */
  int open_flags;            /* connection in another thread */
  PfprofSqliteGuard guard;   /* bounds the work on r->db */
} Reader;

/* One row of the `chunks` table, from the first pass. */
typedef struct
{
  gint64 id;
  int table;                 /* PfprofTableId, -1: a table of a newer minor, skipped */
  guint64 n;
  guint64 offset;            /* index of its first record in the table's array */
} Chunk;

static guint32
be32 (const guchar *p)
{
  return ((guint32) p[0] << 24) | ((guint32) p[1] << 16) | ((guint32) p[2] << 8) | p[3];
}

/* Sets a CORRUPT error about @path quoting @db's message, made valid
 * UTF-8 on one line: a corrupt file's schema text, quoted in it, may hold
 * any bytes, and the message goes to a terminal or a JSON/JUnit report.
 * @db is the connection that failed (the reader's or a decoding
 * thread's), NULL if none could be opened. */
static void
sqlite_error (GError **error, const char *path, sqlite3 *db, const char *what)
{
  /* The only interrupter is pfprof_sqlite_guard_bound(). */
  g_autofree char *m = g_utf8_make_valid (db == NULL ? "cannot open"
                                          : sqlite3_errcode (db) == SQLITE_INTERRUPT
                                            ? PFPROF_SQLITE_GUARD_MESSAGE
                                            : sqlite3_errmsg (db), -1);

  for (char *p = m; *p != '\0'; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f)
      *p = ' ';
  g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
               "%s: corrupt or truncated trace (%s: %s)", path, what, m);
}

static void
set_sqlite_error (Reader *r, GError **error, const char *what)
{
  sqlite_error (error, r->path, r->db, what);
}

/* Copies @src to @dst (which must not exist). */
static gboolean
copy_file (const char *src, const char *dst)
{
  char buf[1 << 16];
  gboolean ok = FALSE;
  int in = open (src, O_RDONLY | O_CLOEXEC);
  int out = -1;

  if (in < 0)
    return FALSE;
  out = open (dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (out < 0)
    goto done;
  for (;;)
    {
      ssize_t n = read (in, buf, sizeof buf);
      ssize_t off = 0;

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        goto done;
      if (n == 0)
        break;
      while (off < n)
        {
          ssize_t m = write (out, buf + off, (size_t) (n - off));

          if (m < 0 && errno == EINTR)
            continue;
          if (m <= 0)
            goto done;
          off += m;
        }
    }
  ok = TRUE;
done:
  if (out >= 0 && close (out) != 0)
    ok = FALSE;
  close (in);
  return ok;
}

static void
remove_tmp_dir (Reader *r)
{
  static const char *const suffixes[] = { "", "-wal", "-shm", "-journal" };

  if (r->tmp_dir == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    {
      g_autofree char *p = g_strconcat (r->tmp_dir, "/trace.pfprof", suffixes[i], NULL);

      g_unlink (p);
    }
  g_rmdir (r->tmp_dir);
  pfprof_temp_file_forget (r->tmp_slots[1]);
  pfprof_temp_file_forget (r->tmp_slots[0]);
  g_clear_pointer (&r->tmp_dir, g_free);
}

/* A file: URI for @path, so that `immutable=1` can be passed; every byte
 * that is not plainly safe is percent-encoded. */
static char *
file_uri (const char *path, const char *query)
{
  GString *s = g_string_new ("file:");

  for (const guchar *p = (const guchar *) path; *p; p++)
    {
      if (g_ascii_isalnum (*p) || strchr ("/-_.~", *p) != NULL)
        g_string_append_c (s, (char) *p);
      else
        g_string_append_printf (s, "%%%02X", *p);
    }
  g_string_append_printf (s, "?%s", query);
  return g_string_free (s, FALSE);
}

/* Reads up to @len bytes from the start of @path into @buf: how many, or
 * -1 with errno set when it cannot be opened. */
static ssize_t
read_prefix (const char *path, guchar *buf, gsize len)
{
  ssize_t n = 0;
  int fd = open (path, O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return -1;
  while (n < (ssize_t) len)
    {
      ssize_t m = read (fd, buf + n, len - (gsize) n);

      if (m < 0 && errno == EINTR)
        continue;
      if (m <= 0)
        break;
      n += m;
    }
  close (fd);
  return n;
}

/* Whether the -wal (@wal) or -journal at @path, of @size bytes, can hold
 * data SQLite would use: a WAL holds a frame (its 32-byte header, then
 * 24 bytes and a page) after a valid header; a hot journal starts with
 * the journal magic. Anything less is ignored by SQLite too, so it must
 * not make the reader copy the database (a stray 1-byte -wal beside a
 * 2 GB trace). */
static gboolean
side_file_holds_data (const char *path, goffset size, gboolean wal)
{
  static const guchar journal_magic[8] = { 0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7 };
  guchar h[32];
  ssize_t n;

  if (size < (wal ? 32 + 24 + 512 : 28))
    return FALSE;
  if ((n = read_prefix (path, h, sizeof h)) < 0)
    return TRUE; /* cannot tell: let SQLite decide on a copy */
  if (n < (ssize_t) sizeof h)
    return FALSE;
  if (!wal)
    return memcmp (h, journal_magic, sizeof journal_magic) == 0;
  {
    guint32 magic = be32 (h), page_size = be32 (h + 8);

    if (magic != 0x377f0682 && magic != 0x377f0683)
      return FALSE;
    if (page_size == 1)
      page_size = 65536;
    return page_size >= 512 && (guint64) size >= 32 + 24 + (guint64) page_size;
  }
}

/* Checks the file itself before SQLite sees it, and opens it. */
static gboolean
open_file (Reader *r, GError **error)
{
  g_autofree char *wal_path = g_strconcat (r->path, "-wal", NULL);
  g_autofree char *journal_path = g_strconcat (r->path, "-journal", NULL);
  guchar header[HEADER_SIZE];
  struct stat st, wal_st, journal_st;
  gboolean have_wal;
  gboolean have_journal;
  ssize_t n = 0;
  int rc;

  if (stat (r->path, &st) != 0)
    {
      g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_NOT_FOUND, "%s: %s", r->path,
                   g_strerror (errno));
      return FALSE;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_NOT_FOUND,
                   "%s: not a regular file", r->path);
      return FALSE;
    }
  have_wal = stat (wal_path, &wal_st) == 0 && S_ISREG (wal_st.st_mode)
             && side_file_holds_data (wal_path, wal_st.st_size, TRUE);
  r->file_bytes = (guint64) st.st_size + (have_wal ? (guint64) wal_st.st_size : 0);
  /* A hot rollback journal: a transaction on the file was interrupted and
   * must be rolled back before the file is consistent. */
  have_journal = stat (journal_path, &journal_st) == 0 && S_ISREG (journal_st.st_mode)
                 && side_file_holds_data (journal_path, journal_st.st_size, FALSE);
  if (st.st_size == 0 && !have_wal)
    {
      g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_EMPTY,
                   "%s: empty file (0 bytes), not a trace", r->path);
      return FALSE;
    }

  memset (header, 0, sizeof header);
  if (st.st_size > 0)
    {
      n = read_prefix (r->path, header, HEADER_SIZE);
      if (n < 0)
        {
          g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_NOT_FOUND, "%s: %s", r->path,
                       g_strerror (errno));
          return FALSE;
        }
      if (n < (ssize_t) sizeof SQLITE_MAGIC
          || memcmp (header, SQLITE_MAGIC, sizeof SQLITE_MAGIC) != 0)
        {
          g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_NOT_A_TRACE,
                       "%s: not a pfprof trace (not an SQLite database)", r->path);
          return FALSE;
        }
      if (n < HEADER_SIZE)
        {
          g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
                       "%s: truncated trace (%zd bytes, shorter than the SQLite header)", r->path,
                       n);
          return FALSE;
        }
    }

  /* A WAL-mode file (header bytes 18 and 19 = 2) without a WAL that
   * holds a frame reads as it is: immutable=1 ignores the WAL, and there
   * is nothing in it. */
  if (!have_wal && !have_journal && st.st_size > 0)
    {
      guint32 page_size = ((guint32) header[16] << 8) | header[17];
      guint32 n_pages = be32 (header + 28);
      g_autofree char *uri = NULL;

      if (page_size == 1)
        page_size = 65536;
      /* The in-header page count is valid when the change counter matches
       * the version-valid-for number; a file shorter than it was cut. */
      if (n_pages > 0 && be32 (header + 24) == be32 (header + 92)
          && (guint64) st.st_size < (guint64) n_pages * page_size)
        {
          g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
                       "%s: truncated trace (%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " bytes)",
                       r->path, (guint64) st.st_size, (guint64) n_pages * page_size);
          return FALSE;
        }
      /* Symlinks are followed: reading through one is harmless, and
       * people link traces into place. */
      uri = file_uri (r->path, "immutable=1");
      /* NOMUTEX: one thread uses the connection; skips a lock per call. */
      r->open_flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX;
      r->open_name = g_strdup (uri);
      rc = sqlite3_open_v2 (uri, &r->db, r->open_flags, NULL);
    }
  else
    {
      g_autoptr (GError) tmp_error = NULL;
      g_autofree char *copy = NULL;
      g_autofree char *copy_wal = NULL;
      g_autofree char *copy_journal = NULL;

      r->tmp_dir = pfprof_temp_file_dir_new ("pfprof-read-XXXXXX", &r->tmp_slots[0], &tmp_error);
      if (r->tmp_dir == NULL)
        {
          g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
                       "%s: cannot read an unfinished trace: %s", r->path,
                       tmp_error->message);
          return FALSE;
        }
      copy = g_strconcat (r->tmp_dir, "/trace.pfprof", NULL);
      /* Before the copy is made; the handler removes files before
       * folders. */
      r->tmp_slots[1] = pfprof_temp_file_register (copy);
      copy_wal = g_strconcat (copy, "-wal", NULL);
      copy_journal = g_strconcat (copy, "-journal", NULL);
      /* Database first: a concurrent checkpoint only moves pages from the
       * WAL into the database, so WAL-after-database sees them in one of
       * the two. */
      if (!copy_file (r->path, copy) || (have_wal && !copy_file (wal_path, copy_wal))
          || (have_journal && !copy_file (journal_path, copy_journal)))
        {
          g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
                       "%s: cannot copy an unfinished trace to %s: %s", r->path,
                       r->tmp_dir, g_strerror (errno));
          return FALSE;
        }
      r->open_flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX;
      r->open_name = g_strdup (copy);
      rc = sqlite3_open_v2 (copy, &r->db, r->open_flags, NULL);
    }
  if (rc != SQLITE_OK)
    {
      set_sqlite_error (r, error, "open");
      return FALSE;
    }
  pfprof_sqlite_guard_bound (r->db, r->file_bytes, &r->guard);
  return TRUE;
}

/* Runs @sql, which yields one integer, into *@out. */
static gboolean
query_int (Reader *r, const char *sql, gint64 *out, GError **error)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  if (sqlite3_prepare_v2 (r->db, sql, -1, &stmt, NULL) != SQLITE_OK)
    {
      set_sqlite_error (r, error, sql);
      return FALSE;
    }
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    *out = sqlite3_column_int64 (stmt, 0);
  else if (rc == SQLITE_DONE)
    *out = 0;
  else
    set_sqlite_error (r, error, sql);
  sqlite3_finalize (stmt);
  return rc == SQLITE_ROW || rc == SQLITE_DONE;
}

/* Whether @table exists, and fills @names with its column names; a view,
 * a virtual table or generated columns are refused
 * (pfprof-sqlite-guard.h). */
static gboolean
table_columns (Reader *r, const char *table, GHashTable *names, GError **error)
{
  g_autofree char *problem = NULL;
  int rc = pfprof_sqlite_guard_table_columns (r->db, table, names, &problem);

  if (problem != NULL)
    {
      g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT, "%s: corrupt trace: %s",
                   r->path, problem);
      return FALSE;
    }
  if (rc != SQLITE_OK)
    {
      set_sqlite_error (r, error, "table_info");
      return FALSE;
    }
  return TRUE;
}

/* Whether @bytes can be had now: a size read from a file must end in an
 * error, not in GLib's abort on a failed allocation. */
static gboolean
can_allocate (Reader *r, guint64 bytes, const char *what, GError **error)
{
  gpointer p = bytes < G_MAXSIZE / 2 ? g_try_malloc ((gsize) bytes) : NULL;

  if (p == NULL && bytes > 0)
    {
      g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
                   "%s: %s needs %" G_GUINT64_FORMAT " MB, more than can be had", r->path, what,
                   bytes >> 20);
      return FALSE;
    }
  g_free (p);
  return TRUE;
}

static gboolean
check_identity (Reader *r, GError **error)
{
  g_autoptr (GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gint64 app_id = 0;

  if (!query_int (r, "PRAGMA application_id", &app_id, error))
    return FALSE;
  if (!table_columns (r, "meta", names, error))
    return FALSE;
  if (app_id != PFPROF_TRACE_APPLICATION_ID || !g_hash_table_contains (names, "key")
      || !g_hash_table_contains (names, "value"))
    {
      g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_NOT_A_TRACE,
                   "%s: not a pfprof trace (an SQLite database of another application)", r->path);
      return FALSE;
    }
  return TRUE;
}

static gboolean
load_meta (Reader *r, PfprofTrace *trace, GError **error)
{
  sqlite3_stmt *stmt = NULL;
  const char *version;
  const char *v;
  char *end = NULL;
  guint64 major, minor;
  int rc;

  if (sqlite3_prepare_v2 (r->db, "SELECT key, value FROM meta", -1, &stmt, NULL) != SQLITE_OK)
    {
      set_sqlite_error (r, error, "meta");
      return FALSE;
    }
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      const char *key = (const char *) sqlite3_column_text (stmt, 0);
      const char *value = (const char *) sqlite3_column_text (stmt, 1);

      if (key == NULL)
        {
          sqlite3_finalize (stmt);
          g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
                       "%s: corrupt trace: table meta has a NULL key", r->path);
          return FALSE;
        }
      g_hash_table_replace (trace->meta, g_strdup (key), g_strdup (value ? value : ""));
    }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    {
      set_sqlite_error (r, error, "meta");
      return FALSE;
    }

  version = g_hash_table_lookup (trace->meta, "format_version");
  if (version == NULL)
    {
      g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
                   "%s: corrupt trace: no format_version in table meta", r->path);
      return FALSE;
    }
  major = g_ascii_strtoull (version, &end, 10);
  minor = 0;
  if (end != version && *end == '.')
    {
      const char *m = end + 1;

      minor = g_ascii_strtoull (m, &end, 10);
      if (end == m)
        end = (char *) version;
    }
  if (end == version || *end != '\0' || major > G_MAXINT || minor > G_MAXINT)
    {
      g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
                   "%s: corrupt trace: format_version '%s' is not MAJOR.MINOR", r->path, version);
      return FALSE;
    }
  r->file_major = (int) major;
  r->file_minor = (int) minor;
  if (r->file_major > PFPROF_TRACE_FORMAT_MAJOR)
    {
      g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_NEWER,
                   "%s: trace format %s is newer than this pfprof reads (%d.x); update pfprof",
                   r->path, version, PFPROF_TRACE_FORMAT_MAJOR);
      return FALSE;
    }
  if (r->file_major < 1)
    {
      g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
                   "%s: corrupt trace: format_version '%s' does not exist", r->path, version);
      return FALSE;
    }

  if ((v = g_hash_table_lookup (trace->meta, "pid")) != NULL)
    {
      gint64 pid;

      if (g_ascii_string_to_signed (v, 10, 0, G_MAXINT64, &pid, NULL))
        trace->pid = pid;
    }
  if ((v = g_hash_table_lookup (trace->meta, "rank")) != NULL)
    {
      gint64 rank;

      if (g_ascii_string_to_signed (v, 10, 0, G_MAXINT64, &rank, NULL))
        trace->rank = rank;
    }
  /* A trace of a capture range holds the range, not the run: said with
   * the trace, as importers say what their traces cannot show. */
  if ((v = g_hash_table_lookup (trace->meta, "capture_range")) != NULL)
    {
      const char *n = g_hash_table_lookup (trace->meta, "capture_ranges");
      guint64 ranges = 1;

      if (n != NULL && !g_ascii_string_to_unsigned (n, 10, 0, G_MAXUINT32, &ranges, NULL))
        ranges = 1;
      if (ranges == 0)
        pfprof_trace_add_note (trace, "recorded with --capture-range, but the program never called "
                                      "cudaProfilerStart(): nothing of the run is in this trace.");
      else if (ranges == 1)
        pfprof_trace_add_note (trace, "recorded with --capture-range: only what ran between the "
                                      "program's cudaProfilerStart() and cudaProfilerStop() is in this trace.");
      else
        pfprof_trace_add_note (trace, "%" G_GUINT64_FORMAT " cudaProfilerStart()..Stop() ranges recorded "
                                      "(PFPROF_CAPTURE_REPEAT=1): the pauses between them show as time "
                                      "without GPU work.", ranges);
    }
  return TRUE;
}

/* The notes of a trace imported from another tool's format (meta "notes",
 * one a line), after those this reader derives itself: a trace exported
 * again stores those too, and each is said once. An importer writes a
 * handful; a file that holds more is read for its first 64. */
static void
restore_notes (PfprofTrace *trace)
{
  const char *stored = g_hash_table_lookup (trace->meta, "notes");
  g_auto (GStrv) lines = NULL;

  if (stored == NULL)
    return;
  lines = g_strsplit (stored, "\n", -1);
  for (guint i = 0; lines[i] != NULL && i < 64; i++)
    {
      /* The reports print notes as they are: the file is nobody's word,
       * so a note is valid UTF-8 with no control characters. */
      g_autofree char *note = g_utf8_make_valid (lines[i], MIN (strlen (lines[i]), 4096));
      gboolean known = note[0] == '\0';

      for (char *c = note; *c != '\0'; c++)
        if ((guchar) *c < 0x20 || *c == 0x7f)
          *c = '?';
      for (guint j = 0; !known && j < trace->notes->len; j++)
        known = strcmp (g_ptr_array_index (trace->notes, j), note) == 0;
      if (!known)
        g_ptr_array_add (trace->notes, g_steal_pointer (&note));
    }
}

static gboolean
report_progress (Reader *r, GError **error)
{
  double fraction;

  if (r->progress == NULL)
    return TRUE;
  fraction = r->rows_total ? (double) r->rows_done / (double) r->rows_total : 0.0;
  if (!r->progress (MIN (fraction, 1.0), r->user_data))
    {
      g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CANCELLED,
                   "%s: loading cancelled", r->path);
      return FALSE;
    }
  return TRUE;
}

static gboolean
load_strings (Reader *r, PfprofTrace *trace, GError **error)
{
  g_autoptr (GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sqlite3_stmt *stmt = NULL;
  gint64 count = 0, max_id = -1;
  int rc;

  if (!table_columns (r, "strings", names, error))
    return FALSE;
  if (sqlite3_prepare_v2 (r->db, "SELECT count(*), max(id) FROM strings", -1, &stmt, NULL)
      != SQLITE_OK)
    {
      set_sqlite_error (r, error, "strings");
      return FALSE;
    }
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    {
      count = sqlite3_column_int64 (stmt, 0);
      max_id = sqlite3_column_type (stmt, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64 (stmt, 1);
    }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_ROW)
    {
      set_sqlite_error (r, error, "strings");
      return FALSE;
    }
  if (max_id >= (gint64) PFPROF_NONE || max_id >= count * 16 + MAX_STRING_ID_SLACK)
    {
      g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
                   "%s: corrupt trace: table strings: id %" G_GINT64_FORMAT
                   " is out of range for %" G_GINT64_FORMAT " strings",
                   r->path, max_id, count);
      return FALSE;
    }
  if (!can_allocate (r, (guint64) (max_id + 1) * sizeof (gpointer), "table strings", error))
    return FALSE;
  g_ptr_array_set_size (trace->strings, (guint) (max_id + 1));

  if (sqlite3_prepare_v2 (r->db, "SELECT id, value FROM strings", -1, &stmt, NULL) != SQLITE_OK)
    {
      set_sqlite_error (r, error, "strings");
      return FALSE;
    }
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      gint64 id = sqlite3_column_int64 (stmt, 0);
      const char *value = (const char *) sqlite3_column_text (stmt, 1);

      /* INTEGER PRIMARY KEY: id is the rowid, never NULL; but a foreign
       * schema may have let a NULL value or a negative id in. */
      if (value == NULL || id < 0 || id > max_id)
        {
          g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
                       "%s: corrupt trace: table strings row %" G_GINT64_FORMAT ": %s", r->path,
                       id, value == NULL ? "value is NULL" : "id out of range");
          sqlite3_finalize (stmt);
          return FALSE;
        }
      g_free (g_ptr_array_index (trace->strings, (guint) id));
      g_ptr_array_index (trace->strings, (guint) id) = g_strdup (value);
    }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    {
      set_sqlite_error (r, error, "strings");
      return FALSE;
    }
  return TRUE;
}

/* Whether the file is of an older minor version than the reader knows,
 * so that columns and tables may be missing. Format 1 files compare with
 * the last 1.x. */
static gboolean
older_minor (const Reader *r)
{
  if (r->file_major == PFPROF_TRACE_FORMAT_MAJOR)
    return r->file_minor < PFPROF_TRACE_FORMAT_MINOR;
  if (r->file_major == PFPROF_TRACE_ROWS_FORMAT_MAJOR)
    return r->file_minor < PFPROF_TRACE_ROWS_FORMAT_MINOR;
  return FALSE;
}

/* Whether the file is of a newer minor version, which may add tables and
 * columns this reader skips. */
static gboolean
newer_minor (const Reader *r)
{
  return r->file_major == PFPROF_TRACE_FORMAT_MAJOR && r->file_minor > PFPROF_TRACE_FORMAT_MINOR;
}

/* Builds "SELECT rowid, c1, c2, ... FROM t"; a column the file lacks reads
 * as 0 (allowed only for files of an older minor version). */
static char *
select_sql (Reader *r, const PfprofTraceTable *table, GHashTable *names, GError **error)
{
  GString *sql = g_string_new ("SELECT rowid");

  for (unsigned c = 0; c < table->n_columns; c++)
    {
      const char *name = table->columns[c].name;

      if (g_hash_table_contains (names, name))
        g_string_append_printf (sql, ", \"%s\"", name);
      else if (older_minor (r))
        g_string_append (sql, ", 0");
      else
        {
          g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
                       "%s: corrupt trace: table %s has no column %s", r->path, table->name, name);
          g_string_free (sql, TRUE);
          return NULL;
        }
    }
  g_string_append_printf (sql, " FROM \"%s\"", table->name);
  return g_string_free (sql, FALSE);
}

static gboolean
row_error (Reader *r, GError **error, const PfprofTraceTable *table, gint64 rowid,
           const char *column, const char *problem)
{
  g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
               "%s: corrupt trace: table %s row %" G_GINT64_FORMAT ": %s %s", r->path, table->name,
               rowid, column, problem);
  return FALSE;
}

/* Reads one row of @stmt into @record. */
static gboolean
read_row (Reader *r, sqlite3_stmt *stmt, const PfprofTraceTable *table, void *record,
          GError **error)
{
  gint64 rowid = sqlite3_column_int64 (stmt, 0);
  gint64 start = 0;

  for (unsigned c = 0; c < table->n_columns; c++)
    {
      const PfprofTraceColumn *col = &table->columns[c];
      int type = sqlite3_column_type (stmt, (int) c + 1);
      gint64 v;

      if (type != SQLITE_INTEGER)
        return row_error (r, error, table, rowid, col->name,
                          type == SQLITE_NULL ? "is NULL" : "is not an integer");
      v = sqlite3_column_int64 (stmt, (int) c + 1);
      if (c == 0)
        start = v;
      if (col->kind == PFPROF_COLUMN_DURATION)
        {
          g_autofree char *msg = NULL;

          if (v < 0)
            {
              msg = g_strdup_printf ("is negative (%" G_GINT64_FORMAT ")", v);
              return row_error (r, error, table, rowid, col->name, msg);
            }
          if (start > G_MAXINT64 - v)
            return row_error (r, error, table, rowid, col->name, "overflows the end time");
          v += start;
        }
      if (pfprof_trace_column_set (col, record, v) != 0)
        {
          g_autofree char *msg
            = g_strdup_printf ("value %" G_GINT64_FORMAT " does not fit its %u-byte %s field", v,
                               col->width, col->is_signed ? "signed" : "unsigned");

          return row_error (r, error, table, rowid, col->name, msg);
        }
    }
  return TRUE;
}

static gboolean
load_table (Reader *r, PfprofTrace *trace, PfprofTableId id, GError **error)
{
  const PfprofTraceTable *table = pfprof_trace_schema_table (id);
  g_autoptr (GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *sql = NULL;
  GArray *array = trace->tables[id];
  sqlite3_stmt *stmt = NULL;
  guint64 reserve;
  int rc;

  if (!table_columns (r, table->name, names, error))
    return FALSE;
  if (g_hash_table_size (names) == 0)
    {
      if (older_minor (r))
        return TRUE;
      g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
                   "%s: corrupt trace: no table %s", r->path, table->name);
      return FALSE;
    }
  if ((sql = select_sql (r, table, names, error)) == NULL)
    return FALSE;
  if (sqlite3_prepare_v2 (r->db, sql, -1, &stmt, NULL) != SQLITE_OK)
    {
      set_sqlite_error (r, error, table->name);
      return FALSE;
    }
  /* Allocate once for the expected rows. A row takes at least a byte per
   * column on disk, which bounds what a damaged max(rowid) can make us
   * reserve. */
  reserve = MIN (r->rows_estimate[id], r->file_bytes / (table->n_columns + 1));
  if (reserve > 0 && reserve < G_MAXUINT / 2)
    {
      g_array_set_size (array, (guint) reserve);
      g_array_set_size (array, 0);
    }
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      void *record;

      /* The array zeroes new elements, padding included. */
      g_array_set_size (array, array->len + 1);
      record = array->data + (gsize) (array->len - 1) * table->record_size;
      if (!read_row (r, stmt, table, record, error))
        {
          sqlite3_finalize (stmt);
          return FALSE;
        }
      if (++r->rows_done % PROGRESS_ROWS == 0 && !report_progress (r, error))
        {
          sqlite3_finalize (stmt);
          return FALSE;
        }
    }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    {
      set_sqlite_error (r, error, table->name);
      return FALSE;
    }
  return TRUE;
}

/* Sums max(rowid) over the tables, a cheap estimate of the row count
 * (rows are only ever appended), for the progress fraction. */
static void
estimate_rows (Reader *r)
{
  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    {
      g_autofree char *sql = g_strdup_printf ("SELECT max(rowid) FROM \"%s\"",
                                              pfprof_trace_schema_table ((PfprofTableId) t)->name);
      gint64 n = 0;

      if (r->file_major >= 2 && pfprof_trace_schema_is_chunked ((PfprofTableId) t))
        continue;
      if (query_int (r, sql, &n, NULL) && n > 0)
        {
          r->rows_estimate[t] = (guint64) n;
        }
    }
}

static gboolean
chunk_error (Reader *r, GError **error, gint64 id, const char *fmt, ...) G_GNUC_PRINTF (4, 5);

static gboolean
chunk_error (Reader *r, GError **error, gint64 id, const char *fmt, ...)
{
  g_autofree char *msg = NULL;
  va_list ap;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
               "%s: corrupt trace: chunk %" G_GINT64_FORMAT ": %s", r->path, id, msg);
  return FALSE;
}

static inline guchar *
trace_table_data (PfprofTrace *trace, int table)
{
  return (guchar *) trace->tables[table]->data;
}

/* Gives *@array (empty) room for exactly @n records, not zeroed: each
 * decoding thread zeroes the part it fills just before filling it, so the
 * first touch of hundreds of megabytes (a page fault per page, which the
 * kernel zeroes again, dear on a VM) is shared by both threads instead of
 * made by this one before they start. */
static void
size_array (GArray **array, guint n)
{
  GArray *a = pfprof_huge_array_sized_new (g_array_get_element_size (*array), n);

  g_array_set_size (a, n);
  g_array_unref (*array);
  *array = a;
}

/* Reads the first bytes of chunk @c (row @rowid) through incremental
 * blob I/O, which touches only its first page, and checks that the
 * chunk can hold the @n records it claims before the first pass reserves
 * room for them: a row claiming 30 million records over a 30 MB blob of
 * zeros is refused here, not after 2 GB are reserved. */
static gboolean
check_chunk_header (Reader *r, sqlite3_blob **blob, gint64 rowid, const Chunk *c, gint64 n, gint64 len,
                    GError **error)
{
  const PfprofTraceTable *table = pfprof_trace_schema_table ((PfprofTableId) c->table);
  guint8 head[PFPROF_TRACE_CHUNK_HEADER_BYTES];
  int head_len = (int) MIN (len, (gint64) sizeof head);
  PfprofTraceChunkError err;
  int rc;

  rc = *blob == NULL ? sqlite3_blob_open (r->db, "main", PFPROF_TRACE_CHUNKS_TABLE, "data", rowid, 0, blob)
                     : sqlite3_blob_reopen (*blob, rowid);
  if (rc != SQLITE_OK || sqlite3_blob_read (*blob, head, head_len, 0) != SQLITE_OK)
    {
      set_sqlite_error (r, error, PFPROF_TRACE_CHUNKS_TABLE);
      return FALSE;
    }
  if (pfprof_trace_chunk_check_header (table, head, (size_t) head_len, (guint64) len, (guint64) n,
                                       older_minor (r), &err) != 0)
    return chunk_error (r, error, c->id, "table %s: %s", table->name, err.message);
  return TRUE;
}

/* Format 2, first pass: reads every chunk's id, table and record count
 * (SQLite leaves the blobs on their overflow pages), checks them, and
 * sizes each event array to its exact final length. */
static gboolean
plan_chunks (Reader *r, PfprofTrace *trace, GError **error)
{
  static const char *const needed[] = { "id", "table_name", "n", "data" };
  g_autoptr (GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint64 totals[PFPROF_N_TABLES] = { 0 };
  sqlite3_stmt *stmt = NULL;
  sqlite3_blob *blob = NULL;
  int rc;

  if (!table_columns (r, PFPROF_TRACE_CHUNKS_TABLE, names, error))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (needed); i++)
    if (!g_hash_table_contains (names, needed[i]))
      {
        if (g_hash_table_size (names) == 0)
          g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
                       "%s: corrupt trace: no table %s", r->path, PFPROF_TRACE_CHUNKS_TABLE);
        else
          g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
                       "%s: corrupt trace: table %s has no column %s", r->path,
                       PFPROF_TRACE_CHUNKS_TABLE, needed[i]);
        return FALSE;
      }
  if (sqlite3_prepare_v2 (r->db,
                          "SELECT id, table_name, n, length(data), typeof(data), typeof(table_name),"
                          " typeof(n), rowid FROM " PFPROF_TRACE_CHUNKS_TABLE " ORDER BY id",
                          -1, &stmt, NULL)
      != SQLITE_OK)
    {
      set_sqlite_error (r, error, PFPROF_TRACE_CHUNKS_TABLE);
      return FALSE;
    }
  r->chunks = g_array_new (FALSE, FALSE, sizeof (Chunk));
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      Chunk c = { 0 };
      const char *name = (const char *) sqlite3_column_text (stmt, 1);
      const char *data_type = (const char *) sqlite3_column_text (stmt, 4);
      const char *name_type = (const char *) sqlite3_column_text (stmt, 5);
      const char *n_type = (const char *) sqlite3_column_text (stmt, 6);
      gint64 n = sqlite3_column_int64 (stmt, 2);
      gint64 len = sqlite3_column_int64 (stmt, 3);
      gboolean ok = TRUE;

      c.id = sqlite3_column_int64 (stmt, 0);
      if (g_strcmp0 (name_type, "text") != 0)
        ok = chunk_error (r, error, c.id, "table_name is not text");
      else if (g_strcmp0 (data_type, "blob") != 0)
        ok = chunk_error (r, error, c.id, "data is not a blob");
      else if (g_strcmp0 (n_type, "integer") != 0)
        ok = chunk_error (r, error, c.id, "n is not an integer");
      else if ((c.table = pfprof_trace_schema_table_by_name (name)) < 0
               || !pfprof_trace_schema_is_chunked ((PfprofTableId) c.table))
        {
          if (newer_minor (r))
            c.table = -1;
          else
            ok = chunk_error (r, error, c.id, "unknown table '%s'", name);
        }
      /* Every value takes a byte at least, so n cannot pass the blob's
       * length: this bounds what a damaged n can make us allocate. */
      if (ok && (n < 0 || n > len))
        ok = chunk_error (r, error, c.id,
                          "table %s: %" G_GINT64_FORMAT " records cannot fit in %" G_GINT64_FORMAT
                          " bytes", name, n, len);
      if (ok && c.table >= 0)
        ok = check_chunk_header (r, &blob, sqlite3_column_int64 (stmt, 7), &c, n, len, error);
      if (ok && c.table >= 0)
        {
          c.n = (guint64) n;
          c.offset = totals[c.table];
          totals[c.table] += c.n;
          if (totals[c.table] >= G_MAXUINT / 2)
            ok = chunk_error (r, error, c.id, "table %s: too many records", name);
        }
      if (!ok)
        {
          sqlite3_finalize (stmt);
          sqlite3_blob_close (blob);
          return FALSE;
        }
      g_array_append_val (r->chunks, c);
    }
  sqlite3_finalize (stmt);
  sqlite3_blob_close (blob);
  if (rc != SQLITE_DONE)
    {
      set_sqlite_error (r, error, PFPROF_TRACE_CHUNKS_TABLE);
      return FALSE;
    }
  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    if (pfprof_trace_schema_is_chunked ((PfprofTableId) t)
        && !can_allocate (r, totals[t] * pfprof_trace_schema_table ((PfprofTableId) t)->record_size,
                          pfprof_trace_schema_table ((PfprofTableId) t)->name, error))
      return FALSE;
  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    if (pfprof_trace_schema_is_chunked ((PfprofTableId) t))
      {
        /* Not zeroed yet: decode_range() zeroes each chunk's records,
         * padding included, before decoding into them. */
        size_array (&trace->tables[t], (guint) totals[t]);
        r->rows_estimate[t] = totals[t];
      }
  return TRUE;
}

/* Traces with at least this many records are decoded by two threads. */
#define THREAD_MIN_RECORDS (1u << 20)

/* Chunks [first, last) decoded by one thread on its own connection. */
typedef struct
{
  Reader *r;                 /* read only while jobs run */
  PfprofTrace *trace;        /* its arrays are sized; jobs fill disjoint parts */
  sqlite3 *db;
  guint first, last;
  gssize done;               /* records decoded (atomic) */
  gint finished;             /* (atomic) */
  gint *cancel;              /* (atomic) set by the main thread: stop */
  GError *error;
  PfprofSqliteGuard guard;   /* bounds the work on db, when it is the job's own */
} DecodeJob;

static gboolean
job_sqlite_error (DecodeJob *job)
{
  sqlite_error (&job->error, job->r->path, job->db, PFPROF_TRACE_CHUNKS_TABLE);
  return FALSE;
}

/* Main thread only: reports the records both jobs decoded. */
static gboolean
job_progress (DecodeJob *job, DecodeJob *other, guint64 base)
{
  guint64 before = job->r->rows_done;

  job->r->rows_done = base + (guint64) g_atomic_pointer_get (&job->done)
                      + (other ? (guint64) g_atomic_pointer_get (&other->done) : 0);
  if (job->r->rows_done / PROGRESS_ROWS != before / PROGRESS_ROWS
      && !report_progress (job->r, &job->error))
    return FALSE;
  return TRUE;
}

/* Format 2, second pass: decodes the job's chunks into their places.
 * @other is the job running in the other thread, when the main thread
 * runs this one (progress counts both), else NULL. */
static gboolean
decode_range (DecodeJob *job, DecodeJob *other, guint64 base)
{
  Reader *r = job->r;
  sqlite3_stmt *stmt = NULL;
  guint i = job->first;
  gboolean main_thread = other != NULL || job->db == r->db;
  int rc = SQLITE_DONE;

  if (job->first >= job->last)
    return TRUE;
  if (sqlite3_prepare_v2 (job->db,
                          "SELECT id, data FROM " PFPROF_TRACE_CHUNKS_TABLE " WHERE id >= ?1 ORDER BY id",
                          -1, &stmt, NULL)
      != SQLITE_OK)
    return job_sqlite_error (job);
  sqlite3_bind_int64 (stmt, 1, g_array_index (r->chunks, Chunk, job->first).id);
  while (i < job->last && (rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      const Chunk *c = &g_array_index (r->chunks, Chunk, i);
      const PfprofTraceTable *table;
      PfprofTraceChunkError err;
      const guint8 *data;
      guchar *dest;
      int len;

      if (c->id != sqlite3_column_int64 (stmt, 0))
        {
          chunk_error (r, &job->error, sqlite3_column_int64 (stmt, 0), "changed while reading");
          sqlite3_finalize (stmt);
          return FALSE;
        }
      i++;
      if (c->table < 0)
        continue;
      if (job->cancel && g_atomic_int_get (job->cancel))
        {
          sqlite3_finalize (stmt);
          return FALSE;
        }
      table = pfprof_trace_schema_table ((PfprofTableId) c->table);
      data = sqlite3_column_blob (stmt, 1);
      len = sqlite3_column_bytes (stmt, 1);
      if (data == NULL && len > 0)
        {
          job_sqlite_error (job);
          sqlite3_finalize (stmt);
          return FALSE;
        }
      dest = trace_table_data (job->trace, c->table) + c->offset * table->record_size;
      /* The arrays were sized without zeroing (size_array()). */
      if (c->n > 0)
        memset (dest, 0, (gsize) c->n * table->record_size);
      if (pfprof_trace_chunk_decode (table, data ? data : (const guint8 *) "", (size_t) len, c->n,
                                     older_minor (r), dest, &err)
          != 0)
        {
          chunk_error (r, &job->error, c->id, "table %s: %s", table->name, err.message);
          sqlite3_finalize (stmt);
          return FALSE;
        }
      g_atomic_pointer_add (&job->done, (gssize) c->n);
      if (main_thread && !job_progress (job, other, base))
        {
          sqlite3_finalize (stmt);
          return FALSE;
        }
    }
  /* The last range ends with the table. */
  if (rc == SQLITE_ROW && job->last == r->chunks->len)
    rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW && job->last == r->chunks->len)
    chunk_error (r, &job->error, sqlite3_column_int64 (stmt, 0), "changed while reading");
  else if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    job_sqlite_error (job);
  else if (i != job->last)
    chunk_error (r, &job->error, g_array_index (r->chunks, Chunk, i).id, "changed while reading");
  sqlite3_finalize (stmt);
  return job->error == NULL;
}

static gpointer
decode_thread (gpointer data)
{
  DecodeJob *job = data;

  if (sqlite3_open_v2 (job->r->open_name, &job->db, job->r->open_flags, NULL) != SQLITE_OK)
    job_sqlite_error (job);
  else
    {
      pfprof_sqlite_guard_bound (job->db, job->r->file_bytes, &job->guard);
      decode_range (job, NULL, 0);
    }
  if (job->db != NULL)
    sqlite3_close (job->db);
  job->db = NULL;
  g_atomic_int_set (&job->finished, 1);
  return NULL;
}

/* Format 2, second pass: decodes every chunk into its place; a big trace
 * in two halves, the second on a thread of its own with its own SQLite
 * connection (the arrays were sized by the first pass, so the halves
 * write to disjoint memory). Progress and cancellation stay on the
 * calling thread. */
static gboolean
load_chunks (Reader *r, PfprofTrace *trace, GError **error)
{
  guint64 total = 0, half = 0, base = r->rows_done;
  gint cancel = 0;
  guint split = r->chunks->len;
  GThread *thread = NULL;
  DecodeJob jobs[2];
  gboolean ok;

  for (guint i = 0; i < r->chunks->len; i++)
    total += g_array_index (r->chunks, Chunk, i).n;
  if (total >= THREAD_MIN_RECORDS && g_get_num_processors () > 1 && r->open_name != NULL)
    for (split = 0; split < r->chunks->len && half < total / 2; split++)
      half += g_array_index (r->chunks, Chunk, split).n;
  jobs[0] = (DecodeJob) { r, trace, r->db, 0, split, 0, 0, &cancel, NULL, { 0 } };
  jobs[1] = (DecodeJob) { r, trace, NULL, split, r->chunks->len, 0, 0, &cancel, NULL, { 0 } };
  if (split < r->chunks->len)
    thread = g_thread_try_new ("pfprof-read", decode_thread, &jobs[1], NULL);
  ok = decode_range (&jobs[0], thread ? &jobs[1] : NULL, base);
  if (thread != NULL)
    {
      /* Keep the progress going while the other half finishes. */
      while (ok && !g_atomic_int_get (&jobs[1].finished))
        {
          g_usleep (10000);
          ok = job_progress (&jobs[0], &jobs[1], base);
        }
      if (!ok)
        g_atomic_int_set (&cancel, 1);
      g_thread_join (thread);
      ok = ok && jobs[1].error == NULL;
    }
  else if (ok && split < r->chunks->len)
    {
      /* No thread to be had: the second half here. */
      jobs[1].db = r->db;
      ok = decode_range (&jobs[1], NULL, base + half);
    }
  r->rows_done = base + total;
  if (jobs[0].error != NULL)
    g_propagate_error (error, g_steal_pointer (&jobs[0].error));
  else if (jobs[1].error != NULL)
    g_propagate_error (error, g_steal_pointer (&jobs[1].error));
  g_clear_error (&jobs[0].error);
  g_clear_error (&jobs[1].error);
  return ok;
}

static PfprofTrace *
load (const char *path, PfprofTraceProgressFunc progress, gpointer user_data, GError **error)
{
  g_autoptr (PfprofTrace) trace = NULL;
  Reader r = { 0 };
  gboolean ok;

  r.path = path;
  r.tmp_slots[0] = r.tmp_slots[1] = -1;
  r.progress = progress;
  r.user_data = user_data;
  trace = pfprof_trace_new ();
  trace->path = g_strdup (path);

  ok = open_file (&r, error);
  ok = ok && check_identity (&r, error) && load_meta (&r, trace, error)
       && load_strings (&r, trace, error);
  if (ok && r.file_major >= 2)
    ok = plan_chunks (&r, trace, error);
  if (ok)
    {
      estimate_rows (&r);
      for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
        r.rows_total += r.rows_estimate[t];
      ok = report_progress (&r, error);
    }
  for (unsigned t = 0; ok && t < PFPROF_N_TABLES; t++)
    if (r.file_major < 2 || !pfprof_trace_schema_is_chunked ((PfprofTableId) t))
      ok = load_table (&r, trace, (PfprofTableId) t, error);
  if (ok && r.file_major >= 2)
    ok = load_chunks (&r, trace, error);

  if (r.db != NULL)
    sqlite3_close (r.db);
  remove_tmp_dir (&r);
  if (r.chunks != NULL)
    g_array_unref (r.chunks);
  g_free (r.open_name);
  if (!ok)
    return NULL;

  pfprof_trace_sort (trace);
  /* Said with the trace, as the capture range is: the pauses are no idle
   * time, and the analysis reads only what the windows hold. */
  if (pfprof_trace_n (trace, PFPROF_TABLE_WINDOWS) > 0)
    {
      const char *every = g_hash_table_lookup (trace->meta, "record_sample");
      g_autofree char *how = every != NULL ? g_strdup_printf (" (--sample %s)", every) : g_strdup ("");

      pfprof_trace_add_note (trace, "recorded in %u windows%s, with nothing recorded between them: the "
                                    "analysis takes the steps that ran whole inside a window.",
                             pfprof_trace_n (trace, PFPROF_TABLE_WINDOWS), how);
    }
  restore_notes (trace);
  r.rows_done = r.rows_total;
  if (!report_progress (&r, error))
    return NULL;
  return g_steal_pointer (&trace);
}

PfprofTrace *
pfprof_trace_reader_load (const char *path, PfprofTraceProgressFunc progress, gpointer user_data,
                          GError **error)
{
  GError *local_error = NULL;
  PfprofTrace *trace;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* Noted before reading: no output of this process may replace it. */
  pfprof_output_check_add_input (path);
  trace = load (path, progress, user_data, &local_error);
  if (local_error != NULL)
    {
      /* Messages quote the path, SQLite and values from the file: keep
       * them one line, with no terminal control characters. */
      for (char *c = local_error->message; *c; c++)
        if ((unsigned char) *c < 0x20 || *c == 0x7f)
          *c = '?';
      g_propagate_error (error, local_error);
    }
  return trace;
}

/* The same opening as a trace's, for importers of other SQLite files: a
 * Reader that only holds the connection and its private copy. */
struct _PfprofTraceDatabase
{
  Reader r;
};

PfprofTraceDatabase *
pfprof_trace_database_open (const char *path, GError **error)
{
  PfprofTraceDatabase *db;
  GError *local_error = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  db = g_new0 (PfprofTraceDatabase, 1);
  db->r.path = path;
  db->r.tmp_slots[0] = db->r.tmp_slots[1] = -1;
  /* An import's input too: no output may replace it. */
  pfprof_output_check_add_input (path);
  if (!open_file (&db->r, &local_error))
    {
      pfprof_trace_database_close (db);
      for (char *c = local_error->message; *c; c++)
        if ((unsigned char) *c < 0x20 || *c == 0x7f)
          *c = '?';
      g_propagate_error (error, local_error);
      return NULL;
    }
  return db;
}

sqlite3 *
pfprof_trace_database_get (PfprofTraceDatabase *db)
{
  g_return_val_if_fail (db != NULL, NULL);
  return db->r.db;
}

void
pfprof_trace_database_close (PfprofTraceDatabase *db)
{
  if (db == NULL)
    return;
  if (db->r.db != NULL)
    sqlite3_close (db->r.db);
  remove_tmp_dir (&db->r);
  g_free (db->r.open_name);
  g_free (db);
}

gboolean
pfprof_trace_reader_count (const char *path, guint64 counts[PFPROF_N_TABLES], GError **error)
{
  g_autoptr (PfprofTrace) trace = pfprof_trace_new ();
  Reader r = { 0 };
  gboolean ok;

  g_return_val_if_fail (path != NULL, FALSE);
  memset (counts, 0, sizeof (guint64) * PFPROF_N_TABLES);
  r.path = path;
  r.tmp_slots[0] = r.tmp_slots[1] = -1;
  ok = open_file (&r, error) && check_identity (&r, error) && load_meta (&r, trace, error);
  for (unsigned t = 0; ok && t < PFPROF_N_TABLES; t++)
    {
      const char *name = pfprof_trace_schema_table ((PfprofTableId) t)->name;
      g_autofree char *sql = NULL;
      gint64 n = 0;

      if (r.file_major >= 2 && pfprof_trace_schema_is_chunked ((PfprofTableId) t))
        sql = g_strdup_printf ("SELECT coalesce(sum(n), 0) FROM " PFPROF_TRACE_CHUNKS_TABLE
                               " WHERE table_name = '%s'", name);
      else
        sql = g_strdup_printf ("SELECT count(*) FROM \"%s\"", name);
      ok = query_int (&r, sql, &n, error);
      counts[t] = n > 0 ? (guint64) n : 0;
    }
  if (r.db != NULL)
    sqlite3_close (r.db);
  remove_tmp_dir (&r);
  g_free (r.open_name);
  return ok;
}

/* The `chunks` rows without their blobs: SQLite keeps a blob on overflow
 * pages, so this reads a few pages per thousand chunks. */
static gboolean
read_spans (Reader *r, GArray *spans, GError **error)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  if (sqlite3_prepare_v2 (r->db,
                          "SELECT id, table_name, n, min_ns, max_ns FROM " PFPROF_TRACE_CHUNKS_TABLE
                          " ORDER BY id", -1, &stmt, NULL)
      != SQLITE_OK)
    {
      set_sqlite_error (r, error, PFPROF_TRACE_CHUNKS_TABLE);
      return FALSE;
    }
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      int table = pfprof_trace_schema_table_by_name ((const char *) sqlite3_column_text (stmt, 1));
      PfprofTraceChunkSpan s = { 0 };
      gint64 n = sqlite3_column_int64 (stmt, 2);

      if (table < 0 || !pfprof_trace_schema_is_chunked ((PfprofTableId) table))
        continue;
      s.table = (PfprofTableId) table;
      s.min_ns = sqlite3_column_int64 (stmt, 3);
      s.max_ns = sqlite3_column_int64 (stmt, 4);
      if (n < 0 || s.max_ns < s.min_ns)
        {
          gint64 id = sqlite3_column_int64 (stmt, 0);

          sqlite3_finalize (stmt);
          return chunk_error (r, error, id, "table %s: impossible span",
                              pfprof_trace_schema_table (s.table)->name);
        }
      s.n = (guint64) n;
      g_array_append_val (spans, s);
    }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    {
      set_sqlite_error (r, error, PFPROF_TRACE_CHUNKS_TABLE);
      return FALSE;
    }
  return TRUE;
}

GArray *
pfprof_trace_reader_chunk_spans (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);

  g_autoptr (PfprofTrace) trace = pfprof_trace_new ();
  g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (PfprofTraceChunkSpan));
  Reader r = { 0 };
  gboolean ok;

  r.path = path;
  r.tmp_slots[0] = r.tmp_slots[1] = -1;
  ok = open_file (&r, error) && check_identity (&r, error) && load_meta (&r, trace, error);
  if (ok && r.file_major >= 2)
    ok = read_spans (&r, spans, error);
  if (r.db != NULL)
    sqlite3_close (r.db);
  remove_tmp_dir (&r);
  g_free (r.open_name);
  return ok ? g_steal_pointer (&spans) : NULL;
}
