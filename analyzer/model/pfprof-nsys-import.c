/* SPDX-License-Identifier: MIT */
/* pfprof-nsys-import.c: Nsight Systems SQLite exports as traces (see the
 * header for what is read and how it maps). */
#include "pfprof-nsys-import-private.h"
#include "pfprof-hash.h"

#include <string.h>

#include "pfprof-sqlite-guard.h"
#include "pfprof-trace-reader.h"

/* Enumeration values above this are read as "unknown". */
#define ENUM_MAX 256

/* The only major schema version whose layout this file knows. */
#define NSYS_SCHEMA_MAJOR 3

#define GLOBAL_PID(g) (((g) >> 24) & 0xFFFFFF)
#define GLOBAL_TID(g) ((g) & 0xFFFFFF)

typedef enum
{
  NVTX_IGNORE = 0,
  NVTX_RANGE,
  NVTX_MARK,
  NVTX_DOMAIN,
} NvtxType;

typedef struct
{
  sqlite3 *db;
  const char *path;
  PfprofTrace *trace;
  GHashTable *nsys_strings; /* gint64 id -> char* (owned by the hash) */
  GHashTable *interned;     /* char* -> id + 1 */
  GHashTable *by_nsys_id;   /* StringIds id (gint64*) -> our id + 1, as a name */
  GHashTable *api_by_nsys_id; /* the same, as an API name (version suffix dropped) */
  gint64 pid;               /* the process read; -1 when unknown */
  guint8 mem_kind[ENUM_MAX];
  guint8 copy_kind[ENUM_MAX];
  guint8 sync_type[ENUM_MAX];
  guint8 mem_op[ENUM_MAX];
  guint8 nvtx_type[ENUM_MAX];
  guint8 stream_flag[ENUM_MAX];
  GHashTable *api_names;    /* correlation id -> const char* API name */
  GHashTable *context_device; /* context id -> device id + 1 */
  GHashTable *nvtx_domains; /* NVTX domain id -> name */
} Importer;

typedef struct
{
  const char *name;
  gboolean required;
} Col;

/* A row being read: failures set *error once and `failed`. */
typedef struct
{
  Importer *im;
  sqlite3_stmt *st;
  const char *table;
  const Col *cols;
  gint64 rowid;
  GError **error;
  gboolean failed;
} Row;

static gboolean
corrupt (Importer *im, GError **error, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static gboolean
corrupt (Importer *im, GError **error, const char *fmt, ...)
{
  g_autofree char *msg = NULL;
  va_list ap;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_CORRUPT,
               "%s: corrupt Nsight Systems export: %s", im->path, msg);
  return FALSE;
}

static gboolean
sqlite_failed (Importer *im, GError **error, const char *what)
{
  /* The only interrupter is the reader's pfprof_sqlite_guard_bound(). */
  return corrupt (im, error, "%s: %s", what,
                  sqlite3_errcode (im->db) == SQLITE_INTERRUPT ? PFPROF_SQLITE_GUARD_MESSAGE
                                                               : sqlite3_errmsg (im->db));
}

/* Column names of @table into @names; an absent table gives none, a view
 * or generated columns an error (pfprof-sqlite-guard.h). */
static gboolean
table_columns (Importer *im, const char *table, GHashTable *names, GError **error)
{
  g_autofree char *problem = NULL;
  int rc = pfprof_sqlite_guard_table_columns (im->db, table, names, &problem);

  if (problem != NULL)
    return corrupt (im, error, "%s", problem);
  if (rc != SQLITE_OK)
    return sqlite_failed (im, error, "table_info");
  return TRUE;
}

static gboolean
has_table (sqlite3 *db, const char *table)
{
  sqlite3_stmt *st = NULL;
  gboolean found = FALSE;

  if (sqlite3_prepare_v2 (db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", -1,
                          &st, NULL) != SQLITE_OK)
    return FALSE;
  sqlite3_bind_text (st, 1, table, -1, SQLITE_STATIC);
  found = sqlite3_step (st) == SQLITE_ROW;
  sqlite3_finalize (st);
  return found;
}

/* Prepares "SELECT rowid, cols... FROM table"; a column the table lacks
 * reads as NULL. *@out stays NULL (and TRUE is returned) when the table
 * does not exist: nsys creates tables lazily. */
static gboolean
prepare_select (Importer *im, const char *table, const Col *cols, guint n, sqlite3_stmt **out,
                GError **error)
{
  g_autoptr (GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GString) sql = g_string_new ("SELECT rowid");

  *out = NULL;
  if (!table_columns (im, table, names, error))
    return FALSE;
  if (g_hash_table_size (names) == 0)
    return TRUE;
  for (guint i = 0; i < n; i++)
    {
      if (g_hash_table_contains (names, cols[i].name))
        g_string_append_printf (sql, ", \"%s\"", cols[i].name);
      else if (cols[i].required)
        return corrupt (im, error, "table %s has no column %s", table, cols[i].name);
      else
        g_string_append (sql, ", NULL");
    }
  g_string_append_printf (sql, " FROM \"%s\"", table);
  if (sqlite3_prepare_v2 (im->db, sql->str, -1, out, NULL) != SQLITE_OK)
    return sqlite_failed (im, error, table);
  return TRUE;
}

/* Column @i of the row as an integer; NULL reads as @def unless the
 * column is required. */
static gint64
get (Row *r, guint i, gint64 def)
{
  int type = sqlite3_column_type (r->st, (int) i + 1);

  if (r->failed)
    return def;
  if (type == SQLITE_INTEGER)
    return sqlite3_column_int64 (r->st, (int) i + 1);
  if (type == SQLITE_NULL && !r->cols[i].required)
    return def;
  r->failed = TRUE;
  corrupt (r->im, r->error, "table %s row %" G_GINT64_FORMAT ": %s %s", r->table, r->rowid,
           r->cols[i].name, type == SQLITE_NULL ? "is NULL" : "is not an integer");
  return def;
}

static void
range_error (Row *r, guint i, gint64 v)
{
  if (r->failed)
    return;
  r->failed = TRUE;
  corrupt (r->im, r->error, "table %s row %" G_GINT64_FORMAT ": %s value %" G_GINT64_FORMAT
           " is out of range", r->table, r->rowid, r->cols[i].name, v);
}

/* @v as an unsigned 32-bit value, or 0 with a range error. */
static guint32
to_u32 (Row *r, guint i, gint64 v)
{
  if (v < 0 || v > G_MAXUINT32)
    {
      range_error (r, i, v);
      return 0;
    }
  return (guint32) v;
}

/* An unsigned 32-bit value. */
static guint32
get_u32 (Row *r, guint i, gint64 def)
{
  return to_u32 (r, i, get (r, i, def));
}

/* An id: CUPTI's "invalid" (0xFFFFFFFF, or -1 once stored signed) reads
 * as PFPROF_NONE. */
static guint32
get_id (Row *r, guint i, gint64 def)
{
  gint64 v = get (r, i, def);

  return v == -1 || v == G_MAXUINT32 ? PFPROF_NONE : to_u32 (r, i, v);
}

static gint32
get_i32 (Row *r, guint i, gint64 def)
{
  gint64 v = get (r, i, def);

  if (v < G_MININT32 || v > G_MAXINT32)
    {
      range_error (r, i, v);
      return 0;
    }
  return (gint32) v;
}

/* Column @i as text, or NULL. */
static const char *
get_text (Row *r, guint i)
{
  if (sqlite3_column_type (r->st, (int) i + 1) != SQLITE_TEXT)
    return NULL;
  return (const char *) sqlite3_column_text (r->st, (int) i + 1);
}

/* Translates an nsys enumeration value through @map. */
static guint8
get_enum (Row *r, guint i, const guint8 *map, gint64 def)
{
  gint64 v = get (r, i, def);

  return v >= 0 && v < ENUM_MAX ? map[v] : 0;
}

/* Start and end of an interval row (columns 0 and 1). */
static gboolean
get_interval (Row *r, gint64 *start, gint64 *end)
{
  *start = get (r, 0, 0);
  *end = get (r, 1, *start);
  if (!r->failed && *end < *start)
    {
      r->failed = TRUE;
      corrupt (r->im, r->error, "table %s row %" G_GINT64_FORMAT ": ends before it starts",
               r->table, r->rowid);
    }
  return !r->failed;
}

/* Whether a row whose global pid (or tid) is @global belongs to the
 * process being read. */
static gboolean
same_process (const Importer *im, gint64 global)
{
  return im->pid < 0 || global < 0 || GLOBAL_PID (global) == im->pid;
}

static void
set_meta (Importer *im, const char *key, const char *value)
{
  g_hash_table_replace (im->trace->meta, g_strdup (key), g_strdup (value ? value : ""));
}

static guint32
intern (Importer *im, const char *s)
{
  return pfprof_trace_intern (im->trace, im->interned, s);
}

static const char *
nsys_string (Importer *im, gint64 id)
{
  return g_hash_table_lookup (im->nsys_strings, &id);
}

/* Runs @st to the end, calling @fn on each row. */
typedef gboolean (*RowFunc) (Row *row);

static gboolean
for_each_row (Importer *im, const char *table, const Col *cols, guint n, RowFunc fn, GError **error)
{
  sqlite3_stmt *st = NULL;
  Row row = { im, NULL, table, cols, 0, error, FALSE };
  int rc;

  if (!prepare_select (im, table, cols, n, &st, error))
    return FALSE;
  if (st == NULL)
    return TRUE;
  row.st = st;
  while ((rc = sqlite3_step (st)) == SQLITE_ROW)
    {
      row.rowid = sqlite3_column_int64 (st, 0);
      if (!fn (&row) || row.failed)
        {
          sqlite3_finalize (st);
          if (!row.failed)
            corrupt (im, error, "table %s row %" G_GINT64_FORMAT, table, row.rowid);
          return FALSE;
        }
    }
  sqlite3_finalize (st);
  if (rc != SQLITE_DONE)
    return sqlite_failed (im, error, table);
  return TRUE;
}

/* ---- Enumerations ---------------------------------------------------- */

typedef struct
{
  const char *symbol; /* matched as the name or its last _-separated part(s) */
  guint8 value;
} EnumName;

static gboolean
symbol_matches (const char *name, const char *symbol)
{
  gsize n = strlen (name), s = strlen (symbol);

  if (strcmp (name, symbol) == 0)
    return TRUE;
  return n > s && strcmp (name + n - s, symbol) == 0 && name[n - s - 1] == '_';
}

/* Fills @map from @table's (id, name) rows by symbol name. When the table
 * is absent, or none of its names is known, @map keeps its defaults. */
static gboolean
load_enum (Importer *im, const char *table, const EnumName *names, guint n, guint8 *map,
           GError **error)
{
  static const Col cols[] = { { "id", TRUE }, { "name", FALSE } };
  guint8 fresh[ENUM_MAX] = { 0 };
  sqlite3_stmt *st = NULL;
  guint matched = 0;
  int rc;

  if (!prepare_select (im, table, cols, G_N_ELEMENTS (cols), &st, error))
    return FALSE;
  if (st == NULL)
    return TRUE;
  while ((rc = sqlite3_step (st)) == SQLITE_ROW)
    {
      gint64 id = sqlite3_column_int64 (st, 1);
      const char *name = (const char *) sqlite3_column_text (st, 2);

      if (name == NULL || id < 0 || id >= ENUM_MAX)
        continue;
      for (guint i = 0; i < n; i++)
        if (symbol_matches (name, names[i].symbol))
          {
            fresh[id] = names[i].value;
            matched++;
            break;
          }
    }
  sqlite3_finalize (st);
  if (rc != SQLITE_DONE)
    return sqlite_failed (im, error, table);
  if (matched > 0)
    memcpy (map, fresh, ENUM_MAX);
  return TRUE;
}

static gboolean
load_enums (Importer *im, GError **error)
{
  /* Longer symbols first where one is the tail of another. */
  static const EnumName mem_kinds[] = {
    { "DEVICE_STATIC", PFPROF_MEMORY_KIND_DEVICE_STATIC },
    { "MANAGED_STATIC", PFPROF_MEMORY_KIND_MANAGED_STATIC },
    { "PAGEABLE", PFPROF_MEMORY_KIND_PAGEABLE },
    { "PINNED", PFPROF_MEMORY_KIND_PINNED },
    { "DEVICE", PFPROF_MEMORY_KIND_DEVICE },
    { "ARRAY", PFPROF_MEMORY_KIND_ARRAY },
    { "MANAGED", PFPROF_MEMORY_KIND_MANAGED },
    { "UNKNOWN", PFPROF_MEMORY_KIND_UNKNOWN },
  };
  /* Unified-memory migrations are not copies the program asked for. */
  static const EnumName copy_kinds[] = {
    { "UVM_HTOD", PFPROF_COPY_KIND_UNKNOWN }, { "UVM_DTOH", PFPROF_COPY_KIND_UNKNOWN },
    { "UVM_DTOD", PFPROF_COPY_KIND_UNKNOWN }, { "HTOD", PFPROF_COPY_KIND_HTOD },
    { "DTOH", PFPROF_COPY_KIND_DTOH },        { "HTOA", 3 },
    { "ATOH", 4 },                            { "ATOA", 5 },
    { "ATOD", 6 },                            { "DTOA", 7 },
    { "DTOD", PFPROF_COPY_KIND_DTOD },        { "HTOH", PFPROF_COPY_KIND_HTOH },
    { "PTOP", PFPROF_COPY_KIND_PTOP },        { "UNKNOWN", PFPROF_COPY_KIND_UNKNOWN },
  };
  static const EnumName sync_types[] = {
    { "EVENT_SYNCHRONIZE", PFPROF_SYNC_EVENT_SYNCHRONIZE },
    { "STREAM_WAIT_EVENT", PFPROF_SYNC_STREAM_WAIT_EVENT },
    { "STREAM_SYNCHRONIZE", PFPROF_SYNC_STREAM_SYNCHRONIZE },
    { "CONTEXT_SYNCHRONIZE", PFPROF_SYNC_CONTEXT_SYNCHRONIZE },
    { "UNKNOWN", PFPROF_SYNC_UNKNOWN },
  };
  static const EnumName mem_ops[] = {
    { "DEALLOCATION", PFPROF_MEMORY_OP_RELEASE },
    { "ALLOCATION", PFPROF_MEMORY_OP_ALLOCATION },
  };
  static const EnumName nvtx_types[] = {
    { "NvtxMark", NVTX_MARK },           { "NvtxPushPopRange", NVTX_RANGE },
    { "NvtxStartEndRange", NVTX_RANGE }, { "NvtxtPushPopRange", NVTX_RANGE },
    { "NvtxtStartEndRange", NVTX_RANGE }, { "NvtxDomainCreate", NVTX_DOMAIN },
  };
  static const EnumName stream_types[] = {
    { "NON_BLOCKING", 1 },
  };

  /* nsys's documented numbering, for exports without ENUM_* tables. */
  static const guint8 default_mem_kinds[] = {
    PFPROF_MEMORY_KIND_PAGEABLE, PFPROF_MEMORY_KIND_PINNED, PFPROF_MEMORY_KIND_DEVICE,
    PFPROF_MEMORY_KIND_ARRAY, PFPROF_MEMORY_KIND_MANAGED, PFPROF_MEMORY_KIND_DEVICE_STATIC,
    PFPROF_MEMORY_KIND_MANAGED_STATIC, PFPROF_MEMORY_KIND_UNKNOWN,
  };

  memcpy (im->mem_kind, default_mem_kinds, sizeof default_mem_kinds);
  for (guint i = 0; i <= PFPROF_COPY_KIND_PTOP; i++)
    im->copy_kind[i] = (guint8) i;
  for (guint i = 0; i <= PFPROF_SYNC_CONTEXT_SYNCHRONIZE; i++)
    im->sync_type[i] = (guint8) i;
  im->mem_op[0] = PFPROF_MEMORY_OP_ALLOCATION;
  im->mem_op[1] = PFPROF_MEMORY_OP_RELEASE;
  im->nvtx_type[34] = NVTX_MARK;
  im->nvtx_type[59] = im->nvtx_type[60] = im->nvtx_type[70] = im->nvtx_type[71] = NVTX_RANGE;
  im->nvtx_type[75] = NVTX_DOMAIN;
  im->stream_flag[1] = 1;

#define LOAD(table, names, map) load_enum (im, table, names, G_N_ELEMENTS (names), map, error)
  return LOAD ("ENUM_CUDA_MEM_KIND", mem_kinds, im->mem_kind)
         && LOAD ("ENUM_CUDA_MEMCPY_OPER", copy_kinds, im->copy_kind)
         && LOAD ("ENUM_CUPTI_SYNC_TYPE", sync_types, im->sync_type)
         && LOAD ("ENUM_CUDA_DEV_MEM_EVENT_OPER", mem_ops, im->mem_op)
         && LOAD ("ENUM_NSYS_EVENT_TYPE", nvtx_types, im->nvtx_type)
         && LOAD ("ENUM_CUPTI_STREAM_TYPE", stream_types, im->stream_flag);
#undef LOAD
}

/* ---- Version, strings, process --------------------------------------- */

/* Whether @dot (NULL, or the first '.' of a version) starts ".N", ".N.N",
 * ... with digits only. */
static gboolean
version_rest_ok (const char *dot)
{
  for (const char *p = dot; p != NULL && *p != '\0';)
    {
      if (*p != '.' || !g_ascii_isdigit (p[1]))
        return FALSE;
      for (p++; g_ascii_isdigit (*p); p++)
        ;
    }
  return TRUE;
}

static gboolean
corrupt_meta (Importer *im, sqlite3_stmt *st, GError **error, const char *problem)
{
  sqlite3_finalize (st);
  return corrupt (im, error, "%s", problem);
}

static gboolean
load_export_meta (Importer *im, GError **error)
{
  static const Col cols[] = { { "name", TRUE }, { "value", FALSE } };
  sqlite3_stmt *st = NULL;
  const char *version;
  int rc;

  if (!prepare_select (im, "META_DATA_EXPORT", cols, G_N_ELEMENTS (cols), &st, error))
    return FALSE;
  /* Every nsys export has it; without it the file only looks like one. */
  if (st == NULL)
    {
      g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_NOT_A_TRACE,
                   "%s: not an Nsight Systems export (no table META_DATA_EXPORT)", im->path);
      return FALSE;
    }
  while ((rc = sqlite3_step (st)) == SQLITE_ROW)
    {
      const char *name = (const char *) sqlite3_column_text (st, 1);
      const char *value = (const char *) sqlite3_column_text (st, 2);

      if (name == NULL)
        continue;
      if (strcmp (name, "EXPORT_SCHEMA_VERSION") == 0)
        {
          if (value == NULL)
            return corrupt_meta (im, st, error, "EXPORT_SCHEMA_VERSION is NULL");
          set_meta (im, "nsys_schema_version", value);
        }
      else if (strcmp (name, "EXPORT_PRODUCT_VERSION") == 0)
        set_meta (im, "nsys_product_version", value);
    }
  sqlite3_finalize (st);
  if (rc != SQLITE_DONE)
    return sqlite_failed (im, error, "META_DATA_EXPORT");

  version = g_hash_table_lookup (im->trace->meta, "nsys_schema_version");
  if (version == NULL)
    return corrupt (im, error, "META_DATA_EXPORT has no EXPORT_SCHEMA_VERSION");
  {
    guint64 major = 0;
    const char *dot = strchr (version, '.');
    g_autofree char *major_s = g_strndup (version, dot ? (gsize) (dot - version) : strlen (version));

    /* MAJOR[.MINOR[.PATCH]], digits only: "-3.1" is no version at all. */
    if (!g_ascii_string_to_unsigned (major_s, 10, 0, G_MAXUINT32, &major, NULL)
        || !version_rest_ok (dot))
      return corrupt (im, error, "schema version '%s' is not MAJOR.MINOR", version);
    if (major > NSYS_SCHEMA_MAJOR)
      {
        g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_NEWER,
                     "%s: Nsight Systems SQLite schema %s is newer than pfprof reads (%d.x); "
                     "update pfprof",
                     im->path, version, NSYS_SCHEMA_MAJOR);
        return FALSE;
      }
    if (major < NSYS_SCHEMA_MAJOR)
      {
        g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_NOT_A_TRACE,
                     "%s: Nsight Systems SQLite schema %s is older than pfprof reads (%d.x); "
                     "export it again with a newer Nsight Systems",
                     im->path, version, NSYS_SCHEMA_MAJOR);
        return FALSE;
      }
  }
  return TRUE;
}

static gboolean
load_strings (Importer *im, GError **error)
{
  g_autoptr (GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sqlite3_stmt *st = NULL;
  int rc;

  if (!table_columns (im, "StringIds", names, error))
    return FALSE;
  if (sqlite3_prepare_v2 (im->db, "SELECT id, value FROM StringIds", -1, &st, NULL) != SQLITE_OK)
    return sqlite_failed (im, error, "StringIds");
  while ((rc = sqlite3_step (st)) == SQLITE_ROW)
    {
      gint64 id = sqlite3_column_int64 (st, 0);
      const char *value = (const char *) sqlite3_column_text (st, 1);

      if (sqlite3_column_type (st, 0) != SQLITE_INTEGER)
        {
          sqlite3_finalize (st);
          return corrupt (im, error, "table StringIds: an id is not an integer");
        }
      g_hash_table_replace (im->nsys_strings, g_memdup2 (&id, sizeof id),
                            g_strdup (value ? value : ""));
    }
  sqlite3_finalize (st);
  if (rc != SQLITE_DONE)
    return sqlite_failed (im, error, "StringIds");
  return TRUE;
}

/* Runs a query whose first row holds (integer, integer). */
static gboolean
query_pair (Importer *im, const char *sql, gint64 *a, gint64 *b)
{
  sqlite3_stmt *st = NULL;
  gboolean found = FALSE;

  if (sqlite3_prepare_v2 (im->db, sql, -1, &st, NULL) != SQLITE_OK)
    return FALSE;
  if (sqlite3_step (st) == SQLITE_ROW && sqlite3_column_type (st, 0) == SQLITE_INTEGER)
    {
      *a = sqlite3_column_int64 (st, 0);
      *b = sqlite3_column_int64 (st, 1);
      found = TRUE;
    }
  sqlite3_finalize (st);
  return found;
}

/* The process with the most kernels (or, without kernels, the most CUDA
 * API calls) is the one read. */
static void
choose_process (Importer *im)
{
  gint64 pid = -1, count = 0, n_procs = 0, unused = 0;

  im->pid = -1;
  if (has_table (im->db, "CUPTI_ACTIVITY_KIND_KERNEL")
      && query_pair (im, "SELECT (globalPid >> 24) & 16777215 AS p, count(*) "
                         "FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE globalPid IS NOT NULL "
                         "GROUP BY p ORDER BY 2 DESC, p LIMIT 1",
                     &pid, &count))
    {
      im->pid = pid;
      if (query_pair (im, "SELECT count(DISTINCT (globalPid >> 24) & 16777215), 0 "
                          "FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE globalPid IS NOT NULL",
                      &n_procs, &unused))
        g_hash_table_replace (im->trace->meta, g_strdup ("nsys_processes"),
                              g_strdup_printf ("%" G_GINT64_FORMAT, n_procs));
    }
  else if (has_table (im->db, "CUPTI_ACTIVITY_KIND_RUNTIME")
           && query_pair (im, "SELECT (globalTid >> 24) & 16777215 AS p, count(*) "
                              "FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE globalTid IS NOT NULL "
                              "GROUP BY p ORDER BY 2 DESC, p LIMIT 1",
                          &pid, &count))
    im->pid = pid;
  if (im->pid >= 0)
    {
      im->trace->pid = im->pid;
      g_autofree char *pid_s = g_strdup_printf ("%" G_GINT64_FORMAT, im->pid);

      set_meta (im, "pid", pid_s);
    }
}

/* ---- Event tables ---------------------------------------------------- */

/* nsys names runtime calls after CUPTI's callback ids
 * ("cudaLaunchKernel_v7000"); the collector records the function name
 * ("cudaLaunchKernel"). The version suffix (4 digits or more, so driver
 * names such as "cuMemAlloc_v2" stay) is dropped so both read the same. */
static guint32
intern_api_name (Importer *im, const char *name)
{
  const char *v = name ? strrchr (name, '_') : NULL;
  gsize digits = 0;

  if (v != NULL && v[1] == 'v')
    for (const char *p = v + 2; g_ascii_isdigit (*p); p++)
      digits++;
  if (v != NULL && digits >= 4 && v[2 + digits] == '\0')
    {
      g_autofree char *base = g_strndup (name, (gsize) (v - name));

      return intern (im, base);
    }
  return intern (im, name);
}

/* Our id of the StringIds string @nsys_id (an API name with @api), looked
 * up by the id: interning by content hashes the whole string, so a
 * 4 MB kernel name on every row made the import cost rows x length. */
static guint32
intern_nsys_id (Importer *im, gint64 nsys_id, gboolean api)
{
  GHashTable *cache = api ? im->api_by_nsys_id : im->by_nsys_id;
  gpointer found;
  guint32 id;

  if (g_hash_table_lookup_extended (cache, &nsys_id, NULL, &found))
    return GPOINTER_TO_UINT (found) - 1;
  id = api ? intern_api_name (im, nsys_string (im, nsys_id)) : intern (im, nsys_string (im, nsys_id));
  g_hash_table_insert (cache, g_memdup2 (&nsys_id, sizeof nsys_id), GUINT_TO_POINTER (id + 1));
  return id;
}

static gboolean
api_row (Row *r)
{
  PfprofApiRecord c = { 0 };
  gint64 gtid = get (r, 2, -1);

  if (!get_interval (r, &c.start_ns, &c.end_ns) || !same_process (r->im, gtid))
    return TRUE;
  c.tid = gtid < 0 ? 0 : (guint32) GLOBAL_TID (gtid);
  c.correlation_id = get_u32 (r, 3, 0);
  c.name_id = intern_nsys_id (r->im, get (r, 4, -1), TRUE);
  c.return_value = get_i32 (r, 5, 0);
  c.domain = PFPROF_API_RUNTIME;
  if (c.correlation_id != 0)
    g_hash_table_insert (r->im->api_names, GUINT_TO_POINTER (c.correlation_id),
                         (gpointer) pfprof_trace_string (r->im->trace, c.name_id));
  g_array_append_val (r->im->trace->tables[PFPROF_TABLE_API_CALLS], c);
  return TRUE;
}

/* The columns kernel, copy and memset queries share: the interval, then
 * device (2), context (3), stream (4), process (5) and correlation (6).
 * FALSE when the row is left out: no interval, or another process's. */
static gboolean
gpu_row (Row *r, gint64 *start, gint64 *end, guint32 *device, guint32 *context, guint32 *stream,
         guint32 *correlation)
{
  if (!get_interval (r, start, end) || !same_process (r->im, get (r, 5, -1)))
    return FALSE;
  *device = get_u32 (r, 2, 0);
  *context = get_u32 (r, 3, 0);
  *stream = get_id (r, 4, 0);
  *correlation = get_u32 (r, 6, 0);
  return TRUE;
}

/* A byte count at column @col; a negative one is a range error. */
static guint64
get_bytes (Row *r, guint col)
{
  gint64 bytes = get (r, col, 0);

  if (bytes < 0)
    range_error (r, col, bytes);
  return (guint64) MAX (bytes, 0);
}

static gboolean
kernel_row (Row *r)
{
  PfprofKernelRecord k = { 0 };
  const char *name;
  gint64 name_id;

  if (!gpu_row (r, &k.start_ns, &k.end_ns, &k.device_id, &k.context_id, &k.stream_id,
                &k.correlation_id))
    return TRUE;
  name_id = get (r, 7, -1);
  name = nsys_string (r->im, name_id);
  if (name == NULL || *name == '\0')
    name_id = get (r, 8, -1);
  k.name_id = intern_nsys_id (r->im, name_id, FALSE);
  k.grid_x = get_i32 (r, 9, 0);
  k.grid_y = pfprof_trace_u16 (get_i32 (r, 10, 0));
  k.grid_z = pfprof_trace_u16 (get_i32 (r, 11, 0));
  k.block_x = pfprof_trace_u16 (get_i32 (r, 12, 0));
  k.block_y = pfprof_trace_u16 (get_i32 (r, 13, 0));
  k.block_z = pfprof_trace_u16 (get_i32 (r, 14, 0));
  k.shared_mem_bytes = get_i32 (r, 15, 0) + get_i32 (r, 16, 0);
  k.registers = pfprof_trace_u16 (get_i32 (r, 17, 0));
  g_array_append_val (r->im->trace->tables[PFPROF_TABLE_KERNELS], k);
  return TRUE;
}

/* CUPTI's async flag is not exported; the launching call's name says it
 * (cudaMemcpyAsync, cuMemcpyHtoDAsync_v2, ...). */
static guint8
async_flag (Importer *im, guint32 correlation_id)
{
  const char *api = g_hash_table_lookup (im->api_names, GUINT_TO_POINTER (correlation_id));

  return api != NULL && strstr (api, "Async") != NULL ? PFPROF_MEMCPY_FLAG_ASYNC : 0;
}

static gboolean
memcpy_row (Row *r)
{
  PfprofMemcpyRecord m = { 0 };

  if (!gpu_row (r, &m.start_ns, &m.end_ns, &m.device_id, &m.context_id, &m.stream_id,
                &m.correlation_id))
    return TRUE;
  m.runtime_correlation_id = m.correlation_id;
  m.bytes = get_bytes (r, 7);
  m.copy_kind = get_enum (r, 8, r->im->copy_kind, 0);
  m.src_kind = get_enum (r, 9, r->im->mem_kind, -1);
  m.dst_kind = get_enum (r, 10, r->im->mem_kind, -1);
  m.flags = async_flag (r->im, m.correlation_id);
  g_array_append_val (r->im->trace->tables[PFPROF_TABLE_MEMCPYS], m);
  return TRUE;
}

static gboolean
memset_row (Row *r)
{
  PfprofMemsetRecord m = { 0 };

  if (!gpu_row (r, &m.start_ns, &m.end_ns, &m.device_id, &m.context_id, &m.stream_id,
                &m.correlation_id))
    return TRUE;
  m.bytes = get_bytes (r, 7);
  m.value = (guint32) get (r, 8, 0);
  m.memory_kind = get_enum (r, 9, r->im->mem_kind, -1);
  m.flags = async_flag (r->im, m.correlation_id);
  g_array_append_val (r->im->trace->tables[PFPROF_TABLE_MEMSETS], m);
  return TRUE;
}

static gboolean
sync_row (Row *r)
{
  PfprofSyncRecord s = { 0 };
  gint64 type, sync_id;

  if (!get_interval (r, &s.start_ns, &s.end_ns) || !same_process (r->im, get (r, 4, -1)))
    return TRUE;
  s.context_id = get_u32 (r, 2, 0);
  s.stream_id = get_id (r, 3, -1);
  s.correlation_id = get_u32 (r, 5, 0);
  /* syncType; older reports filled only what 3.28 calls deprecatedSyncType. */
  type = get (r, 6, -1);
  if (type < 0)
    type = get (r, 7, 0);
  s.type = type >= 0 && type < ENUM_MAX ? r->im->sync_type[type] : 0;
  s.event_id = get_id (r, 8, -1);
  sync_id = get (r, 9, 0);
  s.event_sync_id = (guint64) sync_id;
  g_array_append_val (r->im->trace->tables[PFPROF_TABLE_SYNCS], s);
  return TRUE;
}

static gboolean
cuda_event_row (Row *r)
{
  PfprofCudaEventRecord e = { 0 };

  if (!same_process (r->im, get (r, 4, -1)))
    return TRUE;
  e.device_ts_ns = get (r, 0, 0);
  e.device_id = get_u32 (r, 1, 0);
  e.context_id = get_u32 (r, 2, 0);
  e.stream_id = get_id (r, 3, 0);
  e.correlation_id = get_u32 (r, 5, 0);
  e.event_id = get_id (r, 6, -1);
  e.event_sync_id = (guint64) get (r, 7, 0);
  g_array_append_val (r->im->trace->tables[PFPROF_TABLE_CUDA_EVENTS], e);
  return TRUE;
}

static gboolean
memory_row (Row *r)
{
  PfprofMemoryRecord m = { 0 };
  gint64 bytes;

  if (!same_process (r->im, get (r, 1, -1)))
    return TRUE;
  m.ts_ns = get (r, 0, 0);
  m.device_id = get_u32 (r, 2, 0);
  m.context_id = get_u32 (r, 3, 0);
  m.address = (guint64) get (r, 4, 0);
  bytes = get (r, 5, 0);
  if (bytes < 0)
    range_error (r, 5, bytes);
  m.bytes = (guint64) MAX (bytes, 0);
  m.memory_kind = get_enum (r, 6, r->im->mem_kind, -1);
  m.operation = get_enum (r, 7, r->im->mem_op, -1);
  m.correlation_id = get_u32 (r, 8, 0);
  m.stream_id = get_id (r, 9, -1);
  g_array_append_val (r->im->trace->tables[PFPROF_TABLE_MEMORY], m);
  return TRUE;
}

/* ---- NVTX ------------------------------------------------------------- */

static gboolean
nvtx_domain_row (Row *r)
{
  gint64 type = get (r, 2, -1);
  gint64 gtid = get (r, 5, -1);
  const char *text;

  if (type < 0 || type >= ENUM_MAX || r->im->nvtx_type[type] != NVTX_DOMAIN
      || !same_process (r->im, gtid))
    return TRUE;
  text = get_text (r, 4) ? get_text (r, 4) : nsys_string (r->im, get (r, 6, -1));
  g_hash_table_replace (r->im->nvtx_domains, GINT_TO_POINTER ((gint) get (r, 7, 0)),
                        g_strdup (text ? text : ""));
  return TRUE;
}

static gboolean
nvtx_row (Row *r)
{
  PfprofNvtxRecord n = { 0 };
  gint64 type = get (r, 2, -1);
  gint64 gtid = get (r, 5, -1);
  gint64 domain;
  const char *text;
  NvtxType kind = type >= 0 && type < ENUM_MAX ? (NvtxType) r->im->nvtx_type[type] : NVTX_IGNORE;

  if ((kind != NVTX_RANGE && kind != NVTX_MARK) || !same_process (r->im, gtid))
    return TRUE;
  /* A range still open when the capture stopped has no end: skipped. */
  if (kind == NVTX_RANGE && sqlite3_column_type (r->st, 2) == SQLITE_NULL)
    return TRUE;
  if (kind == NVTX_RANGE)
    {
      if (!get_interval (r, &n.start_ns, &n.end_ns))
        return FALSE;
    }
  else
    n.start_ns = n.end_ns = get (r, 0, 0);
  n.kind = kind == NVTX_RANGE ? PFPROF_NVTX_RANGE : PFPROF_NVTX_MARK;
  n.tid = gtid < 0 ? 0 : (guint32) GLOBAL_TID (gtid);
  text = get_text (r, 4) ? get_text (r, 4) : nsys_string (r->im, get (r, 6, -1));
  n.name_id = intern (r->im, text);
  domain = get (r, 7, 0);
  if (domain == 0)
    n.domain_id = PFPROF_NONE;
  else
    {
      const char *dname = g_hash_table_lookup (r->im->nvtx_domains,
                                               GINT_TO_POINTER ((gint) domain));
      g_autofree char *fallback = g_strdup_printf ("domain %" G_GINT64_FORMAT, domain);

      n.domain_id = intern (r->im, dname ? dname : fallback);
    }
  n.category = (guint32) get (r, 8, 0);
  n.color = (guint32) (get (r, 9, 0) & 0xFFFFFFFF);
  g_array_append_val (r->im->trace->tables[PFPROF_TABLE_NVTX], n);
  return TRUE;
}

/* ---- Devices, contexts, streams, threads ----------------------------- */

static gboolean
device_row (Row *r)
{
  PfprofDeviceRecord d = { 0 };
  gint64 mem;

  d.device_id = get_u32 (r, 0, 0);
  d.name_id = intern (r->im, get_text (r, 2));
  d.uuid_id = intern (r->im, get_text (r, 3));
  d.cc_major = get_i32 (r, 4, 0);
  d.cc_minor = get_i32 (r, 5, 0);
  d.sm_count = get_i32 (r, 6, 0);
  mem = get (r, 7, 0);
  d.global_memory_bytes = (guint64) MAX (mem, 0);
  g_array_append_val (r->im->trace->tables[PFPROF_TABLE_DEVICES], d);
  return TRUE;
}

static gboolean
context_row (Row *r)
{
  PfprofContextRecord c = { 0 };
  gint64 pid = get (r, 3, -1);

  if (r->im->pid >= 0 && pid >= 0 && pid != r->im->pid)
    return TRUE;
  c.context_id = get_u32 (r, 0, 0);
  c.device_id = get_u32 (r, 1, 0);
  c.null_stream_id = get_id (r, 2, -1);
  g_hash_table_insert (r->im->context_device, GUINT_TO_POINTER (c.context_id),
                       GUINT_TO_POINTER (c.device_id + 1));
  g_array_append_val (r->im->trace->tables[PFPROF_TABLE_CONTEXTS], c);
  return TRUE;
}

static gboolean
stream_row (Row *r)
{
  PfprofStreamRecord s = { 0 };
  gint64 pid = get (r, 2, -1);
  gpointer dev;

  if (r->im->pid >= 0 && pid >= 0 && pid != r->im->pid)
    return TRUE;
  s.stream_id = get_id (r, 0, 0);
  s.context_id = get_u32 (r, 1, 0);
  s.priority = get_i32 (r, 3, 0);
  s.flags = get_enum (r, 4, r->im->stream_flag, 0);
  dev = g_hash_table_lookup (r->im->context_device, GUINT_TO_POINTER (s.context_id));
  s.device_id = dev ? GPOINTER_TO_UINT (dev) - 1 : 0;
  g_array_append_val (r->im->trace->tables[PFPROF_TABLE_STREAMS], s);
  return TRUE;
}

static gboolean
thread_row (Row *r)
{
  PfprofThreadRecord t = { 0 };
  gint64 gtid = get (r, 1, -1);

  if (gtid < 0 || !same_process (r->im, gtid))
    return TRUE;
  t.tid = (guint32) GLOBAL_TID (gtid);
  t.name_id = intern (r->im, nsys_string (r->im, get (r, 0, -1)));
  g_array_append_val (r->im->trace->tables[PFPROF_TABLE_THREADS], t);
  return TRUE;
}

static gboolean
process_row (Row *r)
{
  gint64 pid = get (r, 0, -1);

  if (pid == r->im->pid && get_text (r, 2) != NULL)
    set_meta (r->im, "process_name", get_text (r, 2));
  return TRUE;
}

/* ---- Entry points ----------------------------------------------------- */

gboolean
pfprof_nsys_import_detect (sqlite3 *db)
{
  sqlite3_stmt *st = NULL;
  gint64 app_id = 0;
  gboolean activity = FALSE;

  g_return_val_if_fail (db != NULL, FALSE);
  if (sqlite3_prepare_v2 (db, "PRAGMA application_id", -1, &st, NULL) == SQLITE_OK
      && sqlite3_step (st) == SQLITE_ROW)
    app_id = sqlite3_column_int64 (st, 0);
  sqlite3_finalize (st);
  if (app_id == PFPROF_TRACE_APPLICATION_ID || !has_table (db, "StringIds"))
    return FALSE;
  st = NULL;
  if (sqlite3_prepare_v2 (db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                              "(name LIKE 'CUPTI\\_ACTIVITY\\_KIND\\_%' ESCAPE '\\' "
                              "OR name = 'META_DATA_EXPORT')",
                          -1, &st, NULL) == SQLITE_OK)
    activity = sqlite3_step (st) == SQLITE_ROW;
  sqlite3_finalize (st);
  return activity;
}

PfprofTrace *
pfprof_nsys_import_read (sqlite3 *db, const char *path, GError **error)
{
  /* Column lists: the row callbacks read them by index. */
  static const Col api_cols[] = {
    { "start", TRUE }, { "end", TRUE }, { "globalTid", FALSE }, { "correlationId", FALSE },
    { "nameId", TRUE }, { "returnValue", FALSE },
  };
  static const Col kernel_cols[] = {
    { "start", TRUE }, { "end", TRUE }, { "deviceId", TRUE }, { "contextId", FALSE },
    { "streamId", TRUE }, { "globalPid", FALSE }, { "correlationId", FALSE },
    { "demangledName", FALSE }, { "shortName", FALSE }, { "gridX", FALSE }, { "gridY", FALSE },
    { "gridZ", FALSE }, { "blockX", FALSE }, { "blockY", FALSE }, { "blockZ", FALSE },
    { "staticSharedMemory", FALSE }, { "dynamicSharedMemory", FALSE },
    { "registersPerThread", FALSE },
  };
  static const Col memcpy_cols[] = {
    { "start", TRUE }, { "end", TRUE }, { "deviceId", TRUE }, { "contextId", FALSE },
    { "streamId", TRUE }, { "globalPid", FALSE }, { "correlationId", FALSE }, { "bytes", TRUE },
    { "copyKind", TRUE }, { "srcKind", FALSE }, { "dstKind", FALSE },
  };
  static const Col memset_cols[] = {
    { "start", TRUE }, { "end", TRUE }, { "deviceId", TRUE }, { "contextId", FALSE },
    { "streamId", TRUE }, { "globalPid", FALSE }, { "correlationId", FALSE }, { "bytes", TRUE },
    { "value", FALSE }, { "memKind", FALSE },
  };
  static const Col sync_cols[] = {
    { "start", TRUE }, { "end", TRUE }, { "contextId", FALSE }, { "streamId", FALSE },
    { "globalPid", FALSE }, { "correlationId", FALSE }, { "syncType", FALSE },
    { "deprecatedSyncType", FALSE }, { "eventId", FALSE }, { "eventSyncId", FALSE },
  };
  static const Col cuda_event_cols[] = {
    { "timestamp", FALSE }, { "deviceId", FALSE }, { "contextId", FALSE }, { "streamId", FALSE },
    { "globalPid", FALSE }, { "correlationId", FALSE }, { "eventId", FALSE },
    { "eventSyncId", FALSE },
  };
  static const Col memory_cols[] = {
    { "start", TRUE }, { "globalPid", FALSE }, { "deviceId", FALSE }, { "contextId", FALSE },
    { "address", FALSE }, { "bytes", TRUE }, { "memKind", FALSE }, { "memoryOperationType", TRUE },
    { "correlationId", FALSE }, { "streamId", FALSE },
  };
  static const Col nvtx_cols[] = {
    { "start", TRUE }, { "end", FALSE }, { "eventType", TRUE }, { "rangeId", FALSE },
    { "text", FALSE }, { "globalTid", FALSE }, { "textId", FALSE }, { "domainId", FALSE },
    { "category", FALSE }, { "color", FALSE },
  };
  static const Col device_cols[] = {
    { "id", TRUE }, { "vmId", FALSE }, { "name", FALSE }, { "uuid", FALSE },
    { "computeMajor", FALSE }, { "computeMinor", FALSE }, { "smCount", FALSE },
    { "totalMemory", FALSE },
  };
  static const Col context_cols[] = {
    { "contextId", TRUE }, { "deviceId", TRUE }, { "nullStreamId", FALSE }, { "processId", FALSE },
  };
  static const Col stream_cols[] = {
    { "streamId", TRUE }, { "contextId", TRUE }, { "processId", FALSE }, { "priority", FALSE },
    { "flag", FALSE },
  };
  static const Col thread_cols[] = { { "nameId", TRUE }, { "globalTid", FALSE } };
  static const Col process_cols[] = { { "pid", FALSE }, { "globalPid", FALSE }, { "name", FALSE } };
#define READER(table, cols, fn) { table, cols, G_N_ELEMENTS (cols), fn }
  static const struct
  {
    const char *table;
    const Col *cols;
    guint n_cols;
    RowFunc fn;
  } readers[] = {
    /* Runtime calls first: copies take their async flag from them. */
    READER ("CUPTI_ACTIVITY_KIND_RUNTIME", api_cols, api_row),
    READER ("CUPTI_ACTIVITY_KIND_KERNEL", kernel_cols, kernel_row),
    READER ("CUPTI_ACTIVITY_KIND_MEMCPY", memcpy_cols, memcpy_row),
    READER ("CUPTI_ACTIVITY_KIND_MEMSET", memset_cols, memset_row),
    READER ("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", sync_cols, sync_row),
    READER ("CUPTI_ACTIVITY_KIND_CUDA_EVENT", cuda_event_cols, cuda_event_row),
    READER ("CUDA_GPU_MEMORY_USAGE_EVENTS", memory_cols, memory_row),
    /* Domain names before the ranges that refer to them. */
    READER ("NVTX_EVENTS", nvtx_cols, nvtx_domain_row),
    READER ("NVTX_EVENTS", nvtx_cols, nvtx_row),
    READER ("TARGET_INFO_GPU", device_cols, device_row),
    /* Contexts before streams: a stream's device is its context's. */
    READER ("TARGET_INFO_CUDA_CONTEXT_INFO", context_cols, context_row),
    READER ("TARGET_INFO_CUDA_STREAM", stream_cols, stream_row),
    READER ("ThreadNames", thread_cols, thread_row),
    READER ("PROCESSES", process_cols, process_row),
  };
#undef READER
  Importer im = { 0 };
  gboolean ok;

  g_return_val_if_fail (db != NULL && path != NULL, NULL);

  im.db = db;
  im.path = path;
  im.trace = pfprof_trace_new ();
  im.trace->path = g_strdup (path);
  im.nsys_strings = g_hash_table_new_full (pfprof_hash_int64, g_int64_equal, g_free, g_free);
  im.interned = g_hash_table_new (g_str_hash, g_str_equal);
  im.by_nsys_id = g_hash_table_new_full (pfprof_hash_int64, g_int64_equal, g_free, NULL);
  im.api_by_nsys_id = g_hash_table_new_full (pfprof_hash_int64, g_int64_equal, g_free, NULL);
  im.api_names = g_hash_table_new (NULL, NULL);
  im.context_device = g_hash_table_new (NULL, NULL);
  im.nvtx_domains = g_hash_table_new_full (NULL, NULL, NULL, g_free);

  g_hash_table_replace (im.trace->meta, g_strdup ("source"), g_strdup ("nsys-sqlite"));
  ok = load_export_meta (&im, error) && load_enums (&im, error) && load_strings (&im, error);
  if (ok)
    choose_process (&im);
  for (guint i = 0; ok && i < G_N_ELEMENTS (readers); i++)
    ok = for_each_row (&im, readers[i].table, readers[i].cols, readers[i].n_cols, readers[i].fn,
                       error);

  g_hash_table_unref (im.nvtx_domains);
  g_hash_table_unref (im.nsys_strings);
  g_hash_table_unref (im.interned);
  g_hash_table_unref (im.by_nsys_id);
  g_hash_table_unref (im.api_by_nsys_id);
  g_hash_table_unref (im.api_names);
  g_hash_table_unref (im.context_device);
  if (!ok)
    {
      pfprof_trace_free (im.trace);
      return NULL;
    }
  /* nsys exports no nesting level. */
  pfprof_trace_nest_nvtx (im.trace);
  pfprof_trace_sort (im.trace);
  return im.trace;
}

PfprofTrace *
pfprof_nsys_import_load (const char *path, PfprofTraceProgressFunc progress, gpointer user_data,
                         GError **error)
{
  g_autoptr (PfprofTraceDatabase) db = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  db = pfprof_trace_database_open (path, error);
  if (db == NULL)
    return NULL;
  if (!pfprof_nsys_import_detect (pfprof_trace_database_get (db)))
    {
      g_set_error (error, PFPROF_TRACE_ERROR, PFPROF_TRACE_ERROR_NOT_A_TRACE,
                   "%s: not a pfprof trace (an SQLite database of another application)", path);
      return NULL;
    }
  return pfprof_nsys_import_read (pfprof_trace_database_get (db), path, error);
}
