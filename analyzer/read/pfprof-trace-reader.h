/* SPDX-License-Identifier: MIT */
/* pfprof-trace-reader.h: loads and validates a trace file.
 *
 * Every way a file can be wrong ends in one GError in PFPROF_TRACE_ERROR
 * whose message names the file and the problem in one line; the CLI turns
 * it into exit code 2.
 */
#pragma once

#include <glib.h>
#include <sqlite3.h>

#include "pfprof-trace.h"

G_BEGIN_DECLS

#define PFPROF_TRACE_ERROR (pfprof_trace_error_quark ())

typedef enum
{
  PFPROF_TRACE_ERROR_NOT_FOUND,    /* no such file, or not a regular file */
  PFPROF_TRACE_ERROR_EMPTY,        /* zero bytes */
  PFPROF_TRACE_ERROR_NOT_A_TRACE,  /* not SQLite, or SQLite of another app */
  PFPROF_TRACE_ERROR_NEWER,        /* major format version newer than ours */
  PFPROF_TRACE_ERROR_CORRUPT,      /* truncated, malformed, bad values */
  PFPROF_TRACE_ERROR_CANCELLED,    /* the progress callback asked to stop */
} PfprofTraceError;

GQuark pfprof_trace_error_quark (void);

/* Called now and then while loading with the fraction done (0..1); return
 * FALSE to cancel. */
typedef gboolean (*PfprofTraceProgressFunc) (double fraction, gpointer user_data);

/* Loads the trace at @path. Opens it read-only (never writes, never
 * creates a WAL), checks the application id, the format version and every
 * row (end >= start, ids and kinds in range), and returns a sorted
 * PfprofTrace, or NULL with @error set. @progress may be NULL. */
PfprofTrace *pfprof_trace_reader_load (const char *path, PfprofTraceProgressFunc progress,
                                       gpointer user_data, GError **error);

/* An SQLite file opened read-only as traces are (never written, never a
 * -wal or -shm beside it; an unfinished one read through a private copy),
 * for importers of other tools' SQLite files. */
typedef struct _PfprofTraceDatabase PfprofTraceDatabase;

/* NULL with @error set (PFPROF_TRACE_ERROR) when @path is missing, empty,
 * not SQLite or cannot be opened. @path must outlive the result. */
PfprofTraceDatabase *pfprof_trace_database_open (const char *path, GError **error);
sqlite3 *pfprof_trace_database_get (PfprofTraceDatabase *db);
void pfprof_trace_database_close (PfprofTraceDatabase *db /* nullable */);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PfprofTraceDatabase, pfprof_trace_database_close)

/* Counts the records of each table of the trace at @path into @counts
 * (indexed by PfprofTableId) without loading them: the chunk headers of
 * format 2, count(*) of format 1. Opens the file as load() does (nothing
 * written beside it, a private copy of an unfinished trace). FALSE with
 * @error set when it is not a readable trace. */
gboolean pfprof_trace_reader_count (const char *path, guint64 counts[PFPROF_N_TABLES], GError **error);

/* One chunk of an event table as the `chunks` table describes it beside
 * its blob: how many records, and the span from the earliest start to
 * the latest end among them. */
typedef struct
{
  PfprofTableId table;
  guint64 n;
  gint64 min_ns;
  gint64 max_ns;
} PfprofTraceChunkSpan;

/* The chunk spans of the format-2 trace at @path, in chunk order,
 * without decoding a record: what a view can show of a big trace in a
 * few milliseconds, before its load is done. Empty for format 1 (no
 * chunks); chunks of tables this pfprof does not know are left out.
 * Opens the file as load() does. NULL with @error set when it is not a
 * readable trace, or a span is impossible (n < 0, max_ns < min_ns). */
GArray *pfprof_trace_reader_chunk_spans (const char *path, GError **error);

G_END_DECLS
