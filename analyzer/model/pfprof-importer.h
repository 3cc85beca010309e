/* SPDX-License-Identifier: MIT */
/* pfprof-importer.h: every file format pfprof reads, behind one table.
 *
 * Commands, the GUI and tests load a file with pfprof_importer_load(),
 * which reads its first bytes and hands it to the first importer whose
 * sniff accepts them; no importer calls another. The native reader
 * (analyzer/read/pfprof-trace-reader.h) comes last and takes everything the others
 * refuse, so a file that is nothing pfprof reads gets the reader's one-line
 * error.
 *
 * How to add an importer: write analyzer/model/pfprof-NAME-import.[ch] with a
 * `sniff` that decides from at most PFPROF_IMPORTER_HEAD_SIZE leading bytes
 * (never from the file name) and a `load` that returns a sorted
 * PfprofTrace or NULL with a PFPROF_TRACE_ERROR; add one line to
 * `importers[]` in pfprof-importer.c, before the native reader; add it to
 * analyzer/model/meson.build, docs/interop.md and a test under tests/interop/.
 */
#pragma once

#include <glib.h>

#include "pfprof-trace-reader.h"

G_BEGIN_DECLS

/* How many leading bytes a sniff sees (fewer when the file is shorter). */
#define PFPROF_IMPORTER_HEAD_SIZE 4096

typedef struct
{
  const char *name;         /* "pfprof", "nsys", ...: stable, lower case */
  const char *description;  /* one line, for --help and docs */
  gboolean (*sniff) (const guint8 *head, gsize len);
  PfprofTrace *(*load) (const char *path, PfprofTraceProgressFunc progress, gpointer user_data,
                        GError **error);
} PfprofImporter;

/* The table, in the order sniffs are tried; *@n_importers set. */
const PfprofImporter *pfprof_importer_table (guint *n_importers);

/* The importer that takes @path's content (never NULL: the native reader
 * takes what no other does). A file that cannot be opened goes to the
 * native reader, whose load says why. */
const PfprofImporter *pfprof_importer_for_file (const char *path);

/* Reads the first PFPROF_IMPORTER_HEAD_SIZE bytes of @path into @head,
 * the bytes every sniff decides from; returns how many were read: 0 when
 * the file cannot be opened or is not a regular file. */
gsize pfprof_importer_read_head (const char *path, guint8 head[PFPROF_IMPORTER_HEAD_SIZE]);

/* Loads @path with the importer its content calls for. */
PfprofTrace *pfprof_importer_load (const char *path, PfprofTraceProgressFunc progress,
                                   gpointer user_data, GError **error);

/* TRUE when @head, a JSON file's first @len bytes, is a trace of a format
 * an importer reads (a torch.profiler trace) rather than a pfprof-report/1
 * result: how `pfprof report` tells the traces it loads from the results
 * it merges. A JSON object is a trace unless its first member is
 * "format", as in every result; the importers' sniffs take any JSON
 * object, so a trace `pfprof import` reads is never taken for a result. */
gboolean pfprof_importer_is_trace_json (const guint8 *head, gsize len);

G_END_DECLS
