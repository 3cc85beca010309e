/* SPDX-License-Identifier: MIT */
/* pfprof-sqlite-guard.h: reading an SQLite file nobody vouches for.
 *
 * A trace or an Nsight Systems export is a database its sender wrote:
 * a "table" may be a view (an endless recursive CTE, a cross join of
 * millions of rows), a virtual table, or have generated columns that
 * compute anything on every read. The readers therefore read only real
 * tables with stored columns (pfprof_sqlite_guard_table_columns()), and
 * bound the work SQLite may do on a connection to a multiple of the
 * file's size (pfprof_sqlite_guard_bound()), so no file makes them hang.
 */
#pragma once

#include <glib.h>
#include <sqlite3.h>

G_BEGIN_DECLS

/* Adds the column names of table @table of @db to @names (none when there
 * is no such object). SQLITE_OK, or the SQLite error of the query; or
 * SQLITE_MISMATCH with *@problem set (free it) when @table is a view, a
 * virtual table or has generated columns. */
int pfprof_sqlite_guard_table_columns (sqlite3 *db, const char *table, GHashTable *names,
                                       char **problem);

/* The work bound of one connection; the caller's, as long as it. */
typedef struct
{
  guint64 calls;
  guint64 limit;
} PfprofSqliteGuard;

/* Makes every statement on @db fail with SQLITE_INTERRUPT once the
 * connection has run more virtual-machine steps than reading a file of
 * @file_bytes could need (a generous multiple of its size). */
void pfprof_sqlite_guard_bound (sqlite3 *db, guint64 file_bytes, PfprofSqliteGuard *guard);

/* Whether the bound of @guard stopped a statement. */
gboolean pfprof_sqlite_guard_exceeded (const PfprofSqliteGuard *guard);

/* The line for it: "reading it takes more work than a file of its size
 * can need (a view or a hostile schema?)". */
#define PFPROF_SQLITE_GUARD_MESSAGE \
  "reading it takes more work than a file of its size can need (a view or a hostile schema)"

G_END_DECLS
