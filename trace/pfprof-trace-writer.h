/* SPDX-License-Identifier: MIT */
/* pfprof-trace-writer.h: writes a trace file (format in pfprof-trace-schema.h).
 *
 * Plain C11 + SQLite, no GLib: the collector links it into the profiled
 * process. Not thread-safe: one thread (the collector's writer thread, or
 * the synthetic generator) owns a writer.
 *
 * A recording goes:
 *
 *   pfprof_trace_writer_open (path, 0, &w);
 *   pfprof_trace_writer_set_meta (w, "pid", "1234");
 *   pfprof_trace_writer_begin (w);
 *   pfprof_trace_writer_append (w, PFPROF_TABLE_KERNELS, &kernel);   // many
 *   pfprof_trace_writer_commit (w);      // at most about once a second
 *   ...
 *   pfprof_trace_writer_finish (w);      // "complete" = 1, close
 *
 * The file is a valid, readable trace after every commit, so a SIGKILL
 * loses only what was appended since the last commit (format 2 keeps
 * event records in memory until a chunk is full or a commit comes).
 * `meta.complete` says whether finish ran.
 *
 * Errors are return codes (PfprofTraceWriterStatus); the message of the
 * last one is pfprof_trace_writer_errmsg().
 */
#pragma once

#include "pfprof-trace-schema.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _PfprofTraceWriter PfprofTraceWriter;

typedef enum
{
  PFPROF_WRITER_OK = 0,
  PFPROF_WRITER_ERR_EXISTS = 1,  /* path exists and OVERWRITE not given */
  PFPROF_WRITER_ERR_OPEN = 2,    /* cannot create or open the file */
  PFPROF_WRITER_ERR_IO = 3,      /* SQLite failed to write */
  PFPROF_WRITER_ERR_FULL = 4,    /* disk or quota full */
  PFPROF_WRITER_ERR_ARG = 5,     /* bad argument (unknown table, NULL) */
  PFPROF_WRITER_ERR_NOMEM = 6,
} PfprofTraceWriterStatus;

typedef enum
{
  PFPROF_WRITER_OVERWRITE = 1 << 0, /* replace an existing regular file */
  PFPROF_WRITER_ROWS = 1 << 1,      /* format 1: every table as plain rows, for SQL
                                     * users (`pfprof export --format sqlite`);
                                     * bigger and slower than the default format 2 */
} PfprofTraceWriterFlags;

/* Creates the file at @path (never following a symlink there), writes the
 * schema and the format-version metadata, and stores the writer in @out.
 * On failure *@out is NULL and nothing is left at @path. */
int pfprof_trace_writer_open (const char *path, unsigned flags, PfprofTraceWriter **out);

/* Sets metadata @key to @value (NULL deletes it); outside or inside a
 * transaction. Keys are documented in docs/trace-format.md. */
int pfprof_trace_writer_set_meta (PfprofTraceWriter *w, const char *key, const char *value);

/* Same with an integer value. */
int pfprof_trace_writer_set_meta_int (PfprofTraceWriter *w, const char *key, int64_t value);

/* Returns the id of @s in the string table, adding it if new. Ids are
 * dense from 0. Returns PFPROF_NONE on failure (out of memory) and for a
 * NULL @s. Strings are written at the next commit. */
uint32_t pfprof_trace_writer_intern (PfprofTraceWriter *w, const char *s);

/* Stores string @s with the given @id, for a caller copying the strings of
 * an existing trace with their ids (`pfprof export`); do not mix with
 * pfprof_trace_writer_intern() on the same writer, whose ids would clash.
 * Written at once, inside the open transaction (one is started if none). */
int pfprof_trace_writer_set_string (PfprofTraceWriter *w, uint32_t id, const char *s);

/* Starts a transaction. */
int pfprof_trace_writer_begin (PfprofTraceWriter *w);

/* Appends one record of @table (a pointer to the table's record struct).
 * Starts a transaction when none is open; it lasts until the next commit. */
int pfprof_trace_writer_append (PfprofTraceWriter *w, PfprofTableId table, const void *record);

/* Writes pending strings and commits the transaction. */
int pfprof_trace_writer_commit (PfprofTraceWriter *w);

/* Commits what is open, builds the time indexes (format 1), marks the trace complete,
 * checkpoints the WAL into the main file and closes. PFPROF_WRITER_OK only
 * when the file is whole on its own: the journal mode is back to DELETE,
 * the connection closed cleanly and no -wal or -journal is left beside
 * it (a full disk makes the checkpoint fail). Frees @w whatever the
 * outcome. */
int pfprof_trace_writer_finish (PfprofTraceWriter *w);

/* Closes without finishing (what was committed stays readable). Frees @w. */
void pfprof_trace_writer_close (PfprofTraceWriter *w);

/* Number of records appended so far, all tables. */
uint64_t pfprof_trace_writer_n_records (const PfprofTraceWriter *w);

/* The message of the last error, or "" when none. Valid until the next
 * call on @w. */
const char *pfprof_trace_writer_errmsg (const PfprofTraceWriter *w);

/* The message for a status code, for errors where no writer exists. */
const char *pfprof_trace_writer_status_string (int status);

#ifdef __cplusplus
}
#endif
