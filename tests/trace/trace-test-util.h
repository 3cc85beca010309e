/* SPDX-License-Identifier: MIT */
/* trace-test-util.h: helpers shared by the trace suite's tests. */
#pragma once

#include <glib.h>
#include <sqlite3.h>

#include "pfprof-trace-reader.h"
#include "pfprof-trace-writer.h"

G_BEGIN_DECLS

/* A fresh temporary folder for one test; removed (with its files) by
 * trace_test_tmp_dir_free. */
char *trace_test_tmp_dir (void);
void trace_test_tmp_dir_free (char *dir);

/* Fills @record (of @table) with a value per column chosen by @which:
 * 0 = every field at its minimum, 1 = ordinary distinct values, 2 = every
 * field at its maximum. Durations are chosen so that end_ns does not
 * overflow. */
void trace_test_fill_record (PfprofTableId table, int which, void *record);

/* Writes a finished trace at @path with three rows (min, ordinary, max)
 * in every table, plus a few strings and meta keys; @flags are the
 * writer's (PFPROF_WRITER_ROWS: format 1). */
void trace_test_write_extremes (const char *path, unsigned flags);

/* Runs @sql on @path with a plain read-write connection (to damage a
 * trace on purpose). */
void trace_test_exec (const char *path, const char *sql);

/* Loads @path and asserts that it fails with @code; returns the message
 * (owned by the caller). */
char *trace_test_load_fails (const char *path, PfprofTraceError code);

/* Lists the names in @dir, sorted, joined by spaces. */
char *trace_test_list_dir (const char *dir);

G_END_DECLS
