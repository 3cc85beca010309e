/* SPDX-License-Identifier: MIT */
/* pfprof-nsys-import-private.h: reads an Nsight Systems SQLite export as a trace.
 *
 * `nsys export --type sqlite report.nsys-rep` writes the same CUPTI
 * activity a pfprof trace holds, in Nsight Systems' own schema (its user
 * guide, "SQLite Schema Reference"). The importer table
 * (pfprof-importer.h) hands any SQLite file that is not a pfprof trace to
 * this importer, so every command opens such a file directly.
 *
 * What is read (columns by name; a missing optional column reads as its
 * default, a missing required one is an error):
 *   CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY, _MEMSET, _SYNCHRONIZATION,
 *   _CUDA_EVENT, _RUNTIME; NVTX_EVENTS (ranges, marks, domain names);
 *   CUDA_GPU_MEMORY_USAGE_EVENTS; StringIds; ThreadNames; PROCESSES;
 *   TARGET_INFO_GPU, TARGET_INFO_CUDA_CONTEXT_INFO,
 *   TARGET_INFO_CUDA_STREAM; META_DATA_EXPORT.
 * Enumerations are translated through the file's own ENUM_* tables when
 * present (ENUM_CUDA_MEM_KIND, ENUM_CUDA_MEMCPY_OPER, ENUM_CUPTI_SYNC_TYPE,
 * ENUM_CUDA_DEV_MEM_EVENT_OPER, ENUM_NSYS_EVENT_TYPE, ENUM_CUPTI_STREAM_TYPE)
 * by symbol name, because nsys numbers some of them differently from
 * CUPTI (memory kinds: nsys 0 = pageable, CUPTI 1 = pageable). Without
 * those tables, nsys's documented numbering is assumed.
 *
 * One trace is one process: when the export holds several, the process
 * with the most kernels is read (meta "nsys_processes" says how many had
 * GPU work). Timestamps stay nsys's (ns from the session start). Global
 * thread and process ids are decoded as (globalTid >> 24) & 0xFFFFFF =
 * pid, globalTid & 0xFFFFFF = tid.
 *
 * Schema versions: EXPORT_SCHEMA_VERSION major 3, as documented for
 * Nsight Systems 2024.6 (schema 3.16) to 2026.4 (3.28); tested on files
 * built in those two layouts. A newer major is refused with
 * PFPROF_TRACE_ERROR_NEWER, an older one with _NOT_A_TRACE.
 */
#pragma once

#include <glib.h>
#include <sqlite3.h>

#include "pfprof-trace-reader.h"

G_BEGIN_DECLS

/* TRUE when @db (open) is not a pfprof trace (application id) but has
 * the tables of an nsys export: StringIds and a CUPTI_ACTIVITY_KIND_*
 * table or META_DATA_EXPORT. */
gboolean pfprof_nsys_import_detect (sqlite3 *db);

/* Reads the nsys export open in @db into a new sorted trace whose path
 * is @path; NULL with @error set (PFPROF_TRACE_ERROR, one line naming
 * @path) when a value is missing, malformed or out of range. @db is left
 * open. */
PfprofTrace *pfprof_nsys_import_read (sqlite3 *db, const char *path, GError **error);

/* Opens @path as the trace reader opens traces and reads it as above;
 * NULL with @error set when it is not an nsys export (PFPROF_TRACE_ERROR,
 * NOT_A_TRACE) or cannot be read. @progress is not called yet. */
PfprofTrace *pfprof_nsys_import_load (const char *path, PfprofTraceProgressFunc progress,
                                      gpointer user_data, GError **error);

G_END_DECLS
