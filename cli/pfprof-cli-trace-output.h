/* SPDX-License-Identifier: MIT */
/* pfprof-cli-trace-output.h: writing a trace file whole or not at all.
 *
 * `pfprof export --format sqlite` and `pfprof import` copy a loaded trace
 * into a new file through the trace writer. The writer makes its own
 * SQLite file, so this reserves a temporary name beside the destination
 * with base/'s safe output (pfprof-safe-output.h), writes there, and gives
 * it the destination's name only once finished; on any failure nothing is
 * left.
 */
#pragma once

#include <glib.h>

#include "pfprof-trace-writer.h"
#include "pfprof-trace.h"

G_BEGIN_DECLS

/* Writes what the file holds (meta, strings, records) of @trace into @w;
 * returns a PfprofTraceWriterStatus. */
typedef int (*PfprofCliTraceFill) (PfprofTraceWriter *w, const PfprofTrace *trace);

/* Copies @trace's meta rows into @w but the format's own keys
 * (format_version, complete), which the writer sets; the first step of
 * every PfprofCliTraceFill. Returns a PfprofTraceWriterStatus. */
int pfprof_cli_trace_output_copy_meta (PfprofTraceWriter *w, const PfprofTrace *trace);

/* Checks @output, writes @trace there with @fill through a writer opened
 * with @writer_flags, finishes and places it. Errors are one line on
 * stderr prefixed with "@command: ". Returns PFPROF_EXIT_OK or
 * PFPROF_EXIT_USAGE. */
int pfprof_cli_trace_output_write (const char *command, const PfprofTrace *trace, PfprofCliTraceFill fill,
                                   unsigned writer_flags, const char *output, gboolean force);

/* The steps of pfprof_cli_trace_output_write() for a command that opens
 * its own writer (pfprof generate). reserve checks @output and creates an
 * empty temporary file beside it, registered for removal on signals
 * (*@slot); NULL after printing the error, with the exit code in *@code
 * (PFPROF_EXIT_EXISTS or PFPROF_EXIT_USAGE). place gives it @output's
 * name or, failing that, prints why and discards it; PFPROF_EXIT_OK or
 * the exit code of the error. discard removes it with its SQLite side files. Both
 * free @tmp. */
char *pfprof_cli_trace_output_reserve (const char *command, const char *output, gboolean force, int *slot,
                                       int *code);
int pfprof_cli_trace_output_place (const char *command, char *tmp, int slot, const char *output,
                                   gboolean force);
void pfprof_cli_trace_output_discard (char *tmp, int slot);

G_END_DECLS
