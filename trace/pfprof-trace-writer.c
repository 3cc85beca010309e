/* SPDX-License-Identifier: MIT */
/* pfprof-trace-writer.c: the trace writer (see the header for the contract).
 *
 * Speed matters: the collector hands it every CUPTI record. In format 2
 * an event record is copied into its table's chunk buffer and nothing
 * else; a full buffer is encoded column by column (pfprof-trace-chunk.c)
 * into one `chunks` row, and a commit writes the partial ones, so what was
 * committed is on disk. Object tables and format 1 (PFPROF_WRITER_ROWS)
 * use one prepared INSERT per table, bound column by column from the
 * schema description. Strings are interned in an open-addressing hash
 * table and written at commit.
 */
#include "pfprof-trace-writer.h"
#include "pfprof-trace-chunk.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct
{
  char *value;   /* owned */
  uint64_t hash;
  uint32_t id;
} StringSlot;

/* Records of one event table waiting to become a chunk. */
typedef struct
{
  unsigned char *records; /* PFPROF_TRACE_CHUNK_RECORDS records, allocated on first use */
  uint32_t n;
} ChunkBuffer;

struct _PfprofTraceWriter
{
  sqlite3 *db;
  int rows;                /* format 1: every table as rows */
  sqlite3_stmt *insert[PFPROF_N_TABLES];
  sqlite3_stmt *insert_chunk;
  ChunkBuffer chunks[PFPROF_N_TABLES];
  uint8_t *encoded;        /* pfprof_trace_chunk_bound() of the widest table */
  uint8_t *scratch;        /* one column's values */
  size_t encoded_size;
  sqlite3_stmt *insert_string;
  sqlite3_stmt *insert_meta;
  StringSlot *slots;       /* hash table of interned strings, NULL value = empty */
  uint32_t n_slots;        /* power of two */
  uint32_t n_strings;      /* next id */
  uint32_t n_flushed;      /* ids below this are in the strings table */
  char **by_id;            /* id -> string, for writing pending ones */
  uint32_t by_id_cap;
  uint64_t n_records;
  int in_transaction;
  char *path;              /* the database file, to check its side files at finish */
  char errmsg[256];
};

static int
set_error (PfprofTraceWriter *w, int status, const char *what)
{
  int rc = w->db ? sqlite3_errcode (w->db) : SQLITE_OK;

  if (rc == SQLITE_FULL)
    status = PFPROF_WRITER_ERR_FULL;
  else if (rc == SQLITE_NOMEM)
    status = PFPROF_WRITER_ERR_NOMEM;
  snprintf (w->errmsg, sizeof w->errmsg, "%s: %s", what,
            w->db && rc != SQLITE_OK ? sqlite3_errmsg (w->db) : pfprof_trace_writer_status_string (status));
  return status;
}

const char *
pfprof_trace_writer_status_string (int status)
{
  switch (status)
    {
    case PFPROF_WRITER_OK: return "ok";
    case PFPROF_WRITER_ERR_EXISTS: return "file exists";
    case PFPROF_WRITER_ERR_OPEN: return "cannot create file";
    case PFPROF_WRITER_ERR_IO: return "write failed";
    case PFPROF_WRITER_ERR_FULL: return "disk full";
    case PFPROF_WRITER_ERR_ARG: return "invalid argument";
    case PFPROF_WRITER_ERR_NOMEM: return "out of memory";
    default: return "unknown error";
    }
}

static int
exec (PfprofTraceWriter *w, const char *sql)
{
  if (sqlite3_exec (w->db, sql, NULL, NULL, NULL) != SQLITE_OK)
    return set_error (w, PFPROF_WRITER_ERR_IO, "sqlite");
  return PFPROF_WRITER_OK;
}

/* Removes the SQLite side files of @path; -1 if one stays. */
static int
remove_side_files (const char *path)
{
  static const char *const suffixes[] = { "-wal", "-shm", "-journal" };
  size_t len = strlen (path);
  int status = 0;

  for (unsigned i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
    {
      char *p = malloc (len + 9);

      if (p == NULL)
        return -1;
      memcpy (p, path, len);
      strcpy (p + len, suffixes[i]);
      if (unlink (p) != 0 && errno != ENOENT)
        status = -1;
      free (p);
    }
  return status;
}

/* Creates the file ourselves so that O_NOFOLLOW and O_EXCL apply; SQLite
 * then opens the (empty) regular file. */
static int
create_file (const char *path, unsigned flags)
{
  struct stat st;
  int fd;

  if (lstat (path, &st) == 0)
    {
      if (!(flags & PFPROF_WRITER_OVERWRITE) || !S_ISREG (st.st_mode))
        return PFPROF_WRITER_ERR_EXISTS;
      if (unlink (path) != 0)
        return PFPROF_WRITER_ERR_OPEN;
    }
  /* A -wal or -journal left by an earlier file of this name would be
   * replayed into the new one. */
  if (remove_side_files (path) != 0)
    return PFPROF_WRITER_ERR_OPEN;
  fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    return errno == EEXIST ? PFPROF_WRITER_ERR_EXISTS : PFPROF_WRITER_ERR_OPEN;
  close (fd);
  return PFPROF_WRITER_OK;
}

static int
prepare_inserts (PfprofTraceWriter *w)
{
  char sql[1024];

  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    {
      const PfprofTraceTable *table = pfprof_trace_schema_table ((PfprofTableId) t);
      size_t pos;

      if (!w->rows && pfprof_trace_schema_is_chunked ((PfprofTableId) t))
        continue;
      pos = (size_t) snprintf (sql, sizeof sql, "INSERT INTO %s VALUES (", table->name);

      for (unsigned c = 0; c < table->n_columns && pos < sizeof sql; c++)
        pos += (size_t) snprintf (sql + pos, sizeof sql - pos, c ? ",?" : "?");
      if (pos + 2 >= sizeof sql)
        return set_error (w, PFPROF_WRITER_ERR_ARG, "schema");
      memcpy (sql + pos, ")", 2);
      if (sqlite3_prepare_v3 (w->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &w->insert[t], NULL) != SQLITE_OK)
        return set_error (w, PFPROF_WRITER_ERR_IO, "prepare");
    }
  if (!w->rows
      && sqlite3_prepare_v3 (w->db,
                             "INSERT INTO " PFPROF_TRACE_CHUNKS_TABLE
                             " (table_name, n, min_ns, max_ns, data) VALUES (?, ?, ?, ?, ?)",
                             -1, SQLITE_PREPARE_PERSISTENT, &w->insert_chunk, NULL) != SQLITE_OK)
    return set_error (w, PFPROF_WRITER_ERR_IO, "prepare");
  if (sqlite3_prepare_v3 (w->db, "INSERT OR REPLACE INTO strings (id, value) VALUES (?, ?)", -1,
                          SQLITE_PREPARE_PERSISTENT, &w->insert_string, NULL) != SQLITE_OK
      || sqlite3_prepare_v3 (w->db, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", -1,
                             SQLITE_PREPARE_PERSISTENT, &w->insert_meta, NULL) != SQLITE_OK)
    return set_error (w, PFPROF_WRITER_ERR_IO, "prepare");
  return PFPROF_WRITER_OK;
}

int
pfprof_trace_writer_open (const char *path, unsigned flags, PfprofTraceWriter **out)
{
  PfprofTraceWriter *w;
  char *schema = NULL;
  size_t schema_len;
  char version[32];
  int status;

  if (out == NULL)
    return PFPROF_WRITER_ERR_ARG;
  *out = NULL;
  if (path == NULL || *path == '\0')
    return PFPROF_WRITER_ERR_ARG;
  if ((status = create_file (path, flags)) != PFPROF_WRITER_OK)
    return status;

  w = calloc (1, sizeof *w);
  if (w == NULL)
    {
      unlink (path);
      return PFPROF_WRITER_ERR_NOMEM;
    }
  if ((w->path = strdup (path)) == NULL)
    {
      status = PFPROF_WRITER_ERR_NOMEM;
      goto fail;
    }
  if (sqlite3_open_v2 (path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK)
    {
      status = PFPROF_WRITER_ERR_OPEN;
      goto fail;
    }
  w->rows = (flags & PFPROF_WRITER_ROWS) != 0;
  schema_len = w->rows ? pfprof_trace_schema_create_sql (NULL, 0)
                       : pfprof_trace_schema_create_chunked_sql (NULL, 0);
  if ((schema = malloc (schema_len + 1)) == NULL)
    {
      status = PFPROF_WRITER_ERR_NOMEM;
      goto fail;
    }
  if (w->rows)
    pfprof_trace_schema_create_sql (schema, schema_len + 1);
  else
    pfprof_trace_schema_create_chunked_sql (schema, schema_len + 1);
  if (w->rows)
    snprintf (version, sizeof version, "%d.%d", PFPROF_TRACE_ROWS_FORMAT_MAJOR,
              PFPROF_TRACE_ROWS_FORMAT_MINOR);
  else
    snprintf (version, sizeof version, "%d.%d", PFPROF_TRACE_FORMAT_MAJOR,
              PFPROF_TRACE_FORMAT_MINOR);
  /* WAL: a reader (or a SIGKILL) sees every committed batch. synchronous
   * NORMAL: a crash of the process loses nothing committed; only a power
   * loss can lose the last batches, which a profile can afford. */
  if ((status = exec (w, "PRAGMA application_id = 1346785350;" /* 0x50465046 */
                         "PRAGMA journal_mode = WAL;"
                         "PRAGMA synchronous = NORMAL;"
                         "PRAGMA cache_size = -16384;"))
        != PFPROF_WRITER_OK
      || (status = exec (w, "BEGIN")) != PFPROF_WRITER_OK
      || (status = exec (w, schema)) != PFPROF_WRITER_OK
      || (status = prepare_inserts (w)) != PFPROF_WRITER_OK
      || (status = pfprof_trace_writer_set_meta (w, "format_version", version)) != PFPROF_WRITER_OK
      || (status = pfprof_trace_writer_set_meta (w, "complete", "0")) != PFPROF_WRITER_OK
      || (status = exec (w, "COMMIT")) != PFPROF_WRITER_OK)
    goto fail;
  free (schema);
  *out = w;
  return PFPROF_WRITER_OK;

fail:
  free (schema);
  pfprof_trace_writer_close (w);
  unlink (path);
  return status;
}

int
pfprof_trace_writer_set_meta (PfprofTraceWriter *w, const char *key, const char *value)
{
  int rc;

  if (w == NULL || key == NULL)
    return PFPROF_WRITER_ERR_ARG;
  if (value == NULL)
    {
      char sql[256];
      char *q = sqlite3_mprintf ("DELETE FROM meta WHERE key = %Q", key);

      if (q == NULL)
        return set_error (w, PFPROF_WRITER_ERR_NOMEM, "meta");
      snprintf (sql, sizeof sql, "%s", q);
      sqlite3_free (q);
      return exec (w, sql);
    }
  sqlite3_bind_text (w->insert_meta, 1, key, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (w->insert_meta, 2, value, -1, SQLITE_TRANSIENT);
  rc = sqlite3_step (w->insert_meta);
  sqlite3_reset (w->insert_meta);
  if (rc != SQLITE_DONE)
    return set_error (w, PFPROF_WRITER_ERR_IO, "meta");
  return PFPROF_WRITER_OK;
}

int
pfprof_trace_writer_set_meta_int (PfprofTraceWriter *w, const char *key, int64_t value)
{
  char buf[32];

  snprintf (buf, sizeof buf, "%" PRId64, value);
  return pfprof_trace_writer_set_meta (w, key, buf);
}

/* FNV-1a; strings are short kernel and API names. */
static uint64_t
hash_string (const char *s)
{
  uint64_t h = 1469598103934665603ull;

  for (; *s; s++)
    h = (h ^ (unsigned char) *s) * 1099511628211ull;
  return h;
}

static int
grow_slots (PfprofTraceWriter *w)
{
  uint32_t n = w->n_slots ? w->n_slots * 2 : 1024;
  StringSlot *slots = calloc (n, sizeof *slots);

  if (slots == NULL)
    return -1;
  for (uint32_t i = 0; i < w->n_slots; i++)
    if (w->slots[i].value != NULL)
      {
        uint32_t j = (uint32_t) w->slots[i].hash & (n - 1);

        while (slots[j].value != NULL)
          j = (j + 1) & (n - 1);
        slots[j] = w->slots[i];
      }
  free (w->slots);
  w->slots = slots;
  w->n_slots = n;
  return 0;
}

uint32_t
pfprof_trace_writer_intern (PfprofTraceWriter *w, const char *s)
{
  uint64_t h;
  uint32_t i;

  if (w == NULL || s == NULL)
    return PFPROF_NONE;
  /* Keep the load factor under 1/2. */
  if ((w->n_strings + 1) * 2 > w->n_slots && grow_slots (w) != 0)
    return PFPROF_NONE;
  h = hash_string (s);
  for (i = (uint32_t) h & (w->n_slots - 1); w->slots[i].value != NULL; i = (i + 1) & (w->n_slots - 1))
    if (w->slots[i].hash == h && strcmp (w->slots[i].value, s) == 0)
      return w->slots[i].id;

  if (w->n_strings == w->by_id_cap)
    {
      uint32_t cap = w->by_id_cap ? w->by_id_cap * 2 : 1024;
      char **by_id = realloc (w->by_id, cap * sizeof *by_id);

      if (by_id == NULL)
        return PFPROF_NONE;
      w->by_id = by_id;
      w->by_id_cap = cap;
    }
  w->slots[i].value = strdup (s);
  if (w->slots[i].value == NULL)
    return PFPROF_NONE;
  w->slots[i].hash = h;
  w->slots[i].id = w->n_strings;
  w->by_id[w->n_strings] = w->slots[i].value;
  return w->n_strings++;
}

int
pfprof_trace_writer_begin (PfprofTraceWriter *w)
{
  int status;

  if (w == NULL)
    return PFPROF_WRITER_ERR_ARG;
  if (w->in_transaction)
    return PFPROF_WRITER_OK;
  if ((status = exec (w, "BEGIN")) == PFPROF_WRITER_OK)
    w->in_transaction = 1;
  return status;
}

/* Encodes the buffered records of @table into one `chunks` row. The
 * buffer is emptied whatever the outcome, so a failing disk does not make
 * every later append retry the same chunk. */
static int
flush_chunk (PfprofTraceWriter *w, PfprofTableId table)
{
  const PfprofTraceTable *t = pfprof_trace_schema_table (table);
  ChunkBuffer *b = &w->chunks[table];
  size_t bound = pfprof_trace_chunk_bound (t, PFPROF_TRACE_CHUNK_RECORDS);
  int64_t min_ns, max_ns;
  uint32_t n = b->n;
  size_t len;
  int rc;

  if (n == 0)
    return PFPROF_WRITER_OK;
  b->n = 0;
  if (bound > w->encoded_size)
    {
      uint8_t *encoded = realloc (w->encoded, bound);

      if (encoded == NULL)
        return set_error (w, PFPROF_WRITER_ERR_NOMEM, t->name);
      w->encoded = encoded;
      w->encoded_size = bound;
    }
  if (w->scratch == NULL
      && (w->scratch = malloc ((size_t) PFPROF_TRACE_CHUNK_RECORDS * 10)) == NULL)
    return set_error (w, PFPROF_WRITER_ERR_NOMEM, t->name);
  len = pfprof_trace_chunk_encode (t, b->records, n, w->encoded, w->scratch, &min_ns, &max_ns);
  sqlite3_bind_text (w->insert_chunk, 1, t->name, -1, SQLITE_STATIC);
  sqlite3_bind_int64 (w->insert_chunk, 2, n);
  sqlite3_bind_int64 (w->insert_chunk, 3, min_ns);
  sqlite3_bind_int64 (w->insert_chunk, 4, max_ns);
  sqlite3_bind_blob (w->insert_chunk, 5, w->encoded, (int) len, SQLITE_STATIC);
  rc = sqlite3_step (w->insert_chunk);
  sqlite3_reset (w->insert_chunk);
  sqlite3_clear_bindings (w->insert_chunk);
  if (rc != SQLITE_DONE)
    return set_error (w, PFPROF_WRITER_ERR_IO, t->name);
  return PFPROF_WRITER_OK;
}

static int
flush_chunks (PfprofTraceWriter *w)
{
  int status = PFPROF_WRITER_OK;

  if (w->rows)
    return PFPROF_WRITER_OK;
  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    {
      int s = flush_chunk (w, (PfprofTableId) t);

      if (status == PFPROF_WRITER_OK)
        status = s;
    }
  return status;
}

int
pfprof_trace_writer_set_string (PfprofTraceWriter *w, uint32_t id, const char *s)
{
  int rc;

  if (w == NULL || s == NULL || id == PFPROF_NONE)
    return PFPROF_WRITER_ERR_ARG;
  if (!w->in_transaction && (rc = pfprof_trace_writer_begin (w)) != PFPROF_WRITER_OK)
    return rc;
  sqlite3_bind_int64 (w->insert_string, 1, id);
  sqlite3_bind_text (w->insert_string, 2, s, -1, SQLITE_STATIC);
  rc = sqlite3_step (w->insert_string);
  sqlite3_reset (w->insert_string);
  if (rc != SQLITE_DONE)
    return set_error (w, PFPROF_WRITER_ERR_IO, "strings");
  return PFPROF_WRITER_OK;
}

int
pfprof_trace_writer_append (PfprofTraceWriter *w, PfprofTableId table, const void *record)
{
  const PfprofTraceTable *t;
  sqlite3_stmt *stmt;
  int64_t start = 0;
  int rc;

  if (w == NULL || record == NULL || (t = pfprof_trace_schema_table (table)) == NULL)
    return PFPROF_WRITER_ERR_ARG;
  /* Outside a transaction every INSERT would be its own commit, with its
   * own WAL locking: 100 times slower. Open one; commit() closes it. */
  if (!w->in_transaction && (rc = pfprof_trace_writer_begin (w)) != PFPROF_WRITER_OK)
    return rc;
  if (!w->rows && pfprof_trace_schema_is_chunked (table))
    {
      ChunkBuffer *b = &w->chunks[table];

      if (b->records == NULL
          && (b->records = malloc ((size_t) PFPROF_TRACE_CHUNK_RECORDS * t->record_size)) == NULL)
        return set_error (w, PFPROF_WRITER_ERR_NOMEM, t->name);
      memcpy (b->records + (size_t) b->n * t->record_size, record, t->record_size);
      w->n_records++;
      if (++b->n == PFPROF_TRACE_CHUNK_RECORDS)
        return flush_chunk (w, table);
      return PFPROF_WRITER_OK;
    }
  stmt = w->insert[table];
  for (unsigned c = 0; c < t->n_columns; c++)
    {
      const PfprofTraceColumn *col = &t->columns[c];
      int64_t v = pfprof_trace_column_get (col, record);

      if (c == 0)
        start = v;
      if (col->kind == PFPROF_COLUMN_DURATION)
        v -= start;
      sqlite3_bind_int64 (stmt, (int) c + 1, v);
    }
  rc = sqlite3_step (stmt);
  sqlite3_reset (stmt);
  if (rc != SQLITE_DONE)
    return set_error (w, PFPROF_WRITER_ERR_IO, t->name);
  w->n_records++;
  return PFPROF_WRITER_OK;
}

static int
flush_strings (PfprofTraceWriter *w)
{
  for (; w->n_flushed < w->n_strings; w->n_flushed++)
    {
      int rc;

      sqlite3_bind_int64 (w->insert_string, 1, w->n_flushed);
      sqlite3_bind_text (w->insert_string, 2, w->by_id[w->n_flushed], -1, SQLITE_STATIC);
      rc = sqlite3_step (w->insert_string);
      sqlite3_reset (w->insert_string);
      if (rc != SQLITE_DONE)
        return set_error (w, PFPROF_WRITER_ERR_IO, "strings");
    }
  return PFPROF_WRITER_OK;
}

int
pfprof_trace_writer_commit (PfprofTraceWriter *w)
{
  int status;

  if (w == NULL)
    return PFPROF_WRITER_ERR_ARG;
  if (!w->in_transaction)
    {
      if ((status = pfprof_trace_writer_begin (w)) != PFPROF_WRITER_OK)
        return status;
    }
  if ((status = flush_chunks (w)) != PFPROF_WRITER_OK
      || (status = flush_strings (w)) != PFPROF_WRITER_OK)
    {
      exec (w, "ROLLBACK");
      w->in_transaction = 0;
      return status;
    }
  status = exec (w, "COMMIT");
  if (status != PFPROF_WRITER_OK)
    sqlite3_exec (w->db, "ROLLBACK", NULL, NULL, NULL);
  w->in_transaction = 0;
  return status;
}

static int leave_wal (PfprofTraceWriter *w);
static int close_db (PfprofTraceWriter *w);
static int side_file_left (const char *path);

int
pfprof_trace_writer_finish (PfprofTraceWriter *w)
{
  char sql[4096];
  int status;

  if (w == NULL)
    return PFPROF_WRITER_ERR_ARG;
  /* Format 2 needs no index: chunks are read whole, in order. */
  if (w->rows)
    pfprof_trace_schema_index_sql (sql, sizeof sql);
  else
    sql[0] = '\0';
  if ((status = pfprof_trace_writer_commit (w)) != PFPROF_WRITER_OK
      || (status = exec (w, "BEGIN")) != PFPROF_WRITER_OK
      || (sql[0] != '\0' && (status = exec (w, sql)) != PFPROF_WRITER_OK)
      || (status = pfprof_trace_writer_set_meta (w, "complete", "1")) != PFPROF_WRITER_OK
      || (status = exec (w, "COMMIT")) != PFPROF_WRITER_OK)
    {
      pfprof_trace_writer_close (w);
      return status;
    }
  /* One self-contained file: fold the WAL back in. The checkpoint this
   * runs is the first time the main file grows to hold everything, so on
   * a nearly full disk it is what fails: SQLite then stays in WAL mode
   * with the data only in the -wal. The pragma answers the mode it is in;
   * anything but "delete" is a failure, and so is a side file left after
   * closing. */
  status = leave_wal (w);
  if (close_db (w) != SQLITE_OK && status == PFPROF_WRITER_OK)
    status = PFPROF_WRITER_ERR_IO;
  if (status == PFPROF_WRITER_OK && side_file_left (w->path))
    status = PFPROF_WRITER_ERR_IO;
  pfprof_trace_writer_close (w);
  return status;
}

static int
leave_wal (PfprofTraceWriter *w)
{
  sqlite3_stmt *stmt = NULL;
  int status = PFPROF_WRITER_ERR_IO;
  int rc;

  if (sqlite3_prepare_v2 (w->db, "PRAGMA journal_mode = DELETE", -1, &stmt, NULL) != SQLITE_OK)
    return set_error (w, PFPROF_WRITER_ERR_IO, "journal_mode");
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    {
      const char *mode = (const char *) sqlite3_column_text (stmt, 0);

      if (mode != NULL && strcmp (mode, "delete") == 0)
        status = PFPROF_WRITER_OK;
    }
  if (status != PFPROF_WRITER_OK)
    status = set_error (w, PFPROF_WRITER_ERR_IO, "checkpoint");
  sqlite3_finalize (stmt);
  return status;
}

static int
side_file_left (const char *path)
{
  static const char *const suffixes[] = { "-wal", "-journal" };
  size_t len = strlen (path);
  int left = 0;

  for (unsigned i = 0; i < sizeof suffixes / sizeof suffixes[0] && !left; i++)
    {
      char *p = malloc (len + 9);
      struct stat st;

      if (p == NULL)
        return 1;
      memcpy (p, path, len);
      strcpy (p + len, suffixes[i]);
      left = lstat (p, &st) == 0;
      free (p);
    }
  return left;
}

/* Finalizes the statements (sqlite3_close() refuses a connection that
 * has some) and closes the connection; its result. */
static int
close_db (PfprofTraceWriter *w)
{
  int rc;

  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    {
      sqlite3_finalize (w->insert[t]);
      w->insert[t] = NULL;
    }
  sqlite3_finalize (w->insert_chunk);
  sqlite3_finalize (w->insert_string);
  sqlite3_finalize (w->insert_meta);
  w->insert_chunk = w->insert_string = w->insert_meta = NULL;
  rc = w->db != NULL ? sqlite3_close (w->db) : SQLITE_OK;
  w->db = NULL;
  return rc;
}

void
pfprof_trace_writer_close (PfprofTraceWriter *w)
{
  if (w == NULL)
    return;
  /* Keep what was appended, and the strings it refers to. */
  if (w->db != NULL && w->in_transaction && flush_chunks (w) == PFPROF_WRITER_OK
      && flush_strings (w) == PFPROF_WRITER_OK)
    sqlite3_exec (w->db, "COMMIT", NULL, NULL, NULL);
  close_db (w);
  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    free (w->chunks[t].records);
  free (w->encoded);
  free (w->scratch);
  for (uint32_t i = 0; i < w->n_strings; i++)
    free (w->by_id[i]);
  free (w->by_id);
  free (w->slots);
  free (w->path);
  free (w);
}

uint64_t
pfprof_trace_writer_n_records (const PfprofTraceWriter *w)
{
  return w ? w->n_records : 0;
}

const char *
pfprof_trace_writer_errmsg (const PfprofTraceWriter *w)
{
  return w ? w->errmsg : "";
}
