/* pfprof-trace-writer.c: the trace writer (see the header for the contract).
 *
 * Speed matters: the collector hands it every CUPTI record. One prepared
 * INSERT per table, bound column by column from the schema description;
 * strings interned in an open-addressing hash table and written at commit;
 * no index until finish.
 */
#include "pfprof-trace-writer.h"

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

struct _PfprofTraceWriter
{
  sqlite3 *db;
  sqlite3_stmt *insert[PFPROF_N_TABLES];
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
      size_t pos = (size_t) snprintf (sql, sizeof sql, "INSERT INTO %s VALUES (", table->name);

      for (unsigned c = 0; c < table->n_columns && pos < sizeof sql; c++)
        pos += (size_t) snprintf (sql + pos, sizeof sql - pos, c ? ",?" : "?");
      if (pos + 2 >= sizeof sql)
        return set_error (w, PFPROF_WRITER_ERR_ARG, "schema");
      memcpy (sql + pos, ")", 2);
      if (sqlite3_prepare_v3 (w->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &w->insert[t], NULL) != SQLITE_OK)
        return set_error (w, PFPROF_WRITER_ERR_IO, "prepare");
    }
  if (sqlite3_prepare_v3 (w->db, "INSERT INTO strings (id, value) VALUES (?, ?)", -1,
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
  char schema[8192];
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
  if (sqlite3_open_v2 (path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK)
    {
      status = PFPROF_WRITER_ERR_OPEN;
      goto fail;
    }
  if (pfprof_trace_schema_create_sql (schema, sizeof schema) >= sizeof schema)
    {
      status = PFPROF_WRITER_ERR_ARG;
      goto fail;
    }
  snprintf (version, sizeof version, "%d.%d", PFPROF_TRACE_FORMAT_MAJOR, PFPROF_TRACE_FORMAT_MINOR);
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
  *out = w;
  return PFPROF_WRITER_OK;

fail:
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
  if ((status = flush_strings (w)) != PFPROF_WRITER_OK)
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

int
pfprof_trace_writer_finish (PfprofTraceWriter *w)
{
  char sql[4096];
  int status;

  if (w == NULL)
    return PFPROF_WRITER_ERR_ARG;
  pfprof_trace_schema_index_sql (sql, sizeof sql);
  if ((status = pfprof_trace_writer_commit (w)) != PFPROF_WRITER_OK
      || (status = exec (w, "BEGIN")) != PFPROF_WRITER_OK
      || (status = exec (w, sql)) != PFPROF_WRITER_OK
      || (status = pfprof_trace_writer_set_meta (w, "complete", "1")) != PFPROF_WRITER_OK
      || (status = exec (w, "COMMIT")) != PFPROF_WRITER_OK)
    {
      pfprof_trace_writer_close (w);
      return status;
    }
  /* One self-contained file: fold the WAL back in. */
  sqlite3_exec (w->db, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL);
  pfprof_trace_writer_close (w);
  return PFPROF_WRITER_OK;
}

void
pfprof_trace_writer_close (PfprofTraceWriter *w)
{
  if (w == NULL)
    return;
  /* Keep what was appended, and the strings it refers to. */
  if (w->db != NULL && w->in_transaction && flush_strings (w) == PFPROF_WRITER_OK)
    sqlite3_exec (w->db, "COMMIT", NULL, NULL, NULL);
  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    sqlite3_finalize (w->insert[t]);
  sqlite3_finalize (w->insert_string);
  sqlite3_finalize (w->insert_meta);
  if (w->db != NULL)
    sqlite3_close (w->db);
  for (uint32_t i = 0; i < w->n_strings; i++)
    free (w->by_id[i]);
  free (w->by_id);
  free (w->slots);
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
