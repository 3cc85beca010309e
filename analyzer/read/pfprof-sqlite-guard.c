/* SPDX-License-Identifier: MIT */
/* pfprof-sqlite-guard.c: see the header. */
#include "pfprof-sqlite-guard.h"

#include <string.h>

/* The progress handler runs every this many virtual-machine steps. */
#define STEPS_PER_CALL 10000

/* Reading a real table takes a few steps per row and a row is at least a
 * few bytes, so every read pfprof makes of a file stays far below this
 * many steps per byte; a view or a hostile query passes it. */
#define STEPS_PER_BYTE 64
#define STEPS_FLOOR 200000000ull

int
pfprof_sqlite_guard_table_columns (sqlite3 *db, const char *table, GHashTable *names, char **problem)
{
  sqlite3_stmt *st = NULL;
  int rc;

  *problem = NULL;
  rc = sqlite3_prepare_v2 (db, "SELECT type, sql FROM sqlite_master WHERE name = ?1 COLLATE NOCASE",
                           -1, &st, NULL);
  if (rc != SQLITE_OK)
    return rc;
  sqlite3_bind_text (st, 1, table, -1, SQLITE_STATIC);
  while ((rc = sqlite3_step (st)) == SQLITE_ROW)
    {
      const char *type = (const char *) sqlite3_column_text (st, 0);
      const char *sql = (const char *) sqlite3_column_text (st, 1);

      if (type == NULL || strcmp (type, "table") != 0)
        {
          if (type != NULL && (strcmp (type, "index") == 0 || strcmp (type, "trigger") == 0))
            continue; /* another object of that name: not what is read */
          *problem = g_strdup_printf ("%s is a %s, not a table", table, type ? type : "(null)");
          break;
        }
      if (sql != NULL && g_ascii_strncasecmp (sql, "CREATE VIRTUAL", 14) == 0)
        {
          *problem = g_strdup_printf ("%s is a virtual table", table);
          break;
        }
    }
  sqlite3_finalize (st);
  if (*problem != NULL)
    return SQLITE_MISMATCH;
  if (rc != SQLITE_DONE)
    return rc;

  /* hidden: 0 a stored column, 1 hidden (virtual tables), 2 and 3
   * generated. */
  rc = sqlite3_prepare_v2 (db, "SELECT name, hidden FROM pragma_table_xinfo(?1)", -1, &st, NULL);
  if (rc != SQLITE_OK)
    return rc;
  sqlite3_bind_text (st, 1, table, -1, SQLITE_STATIC);
  while ((rc = sqlite3_step (st)) == SQLITE_ROW)
    {
      const char *name = (const char *) sqlite3_column_text (st, 0);

      if (sqlite3_column_int (st, 1) != 0)
        {
          *problem = g_strdup_printf ("table %s: column %s is generated, not stored", table,
                                      name ? name : "(null)");
          break;
        }
      if (name != NULL)
        g_hash_table_add (names, g_strdup (name));
    }
  sqlite3_finalize (st);
  if (*problem != NULL)
    return SQLITE_MISMATCH;
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int
on_progress (void *data)
{
  PfprofSqliteGuard *g = data;

  return ++g->calls > g->limit;
}

void
pfprof_sqlite_guard_bound (sqlite3 *db, guint64 file_bytes, PfprofSqliteGuard *guard)
{
  g_return_if_fail (db != NULL);
  g_return_if_fail (guard != NULL);

  guard->calls = 0;
  guard->limit = (STEPS_FLOOR + file_bytes * STEPS_PER_BYTE) / STEPS_PER_CALL;
  sqlite3_progress_handler (db, STEPS_PER_CALL, on_progress, guard);
}

gboolean
pfprof_sqlite_guard_exceeded (const PfprofSqliteGuard *guard)
{
  g_return_val_if_fail (guard != NULL, FALSE);

  return guard->calls > guard->limit;
}
