/* SPDX-License-Identifier: MIT */
/* pfprof-kineto-import-private.h: reads a torch.profiler (Kineto) trace as a trace.
 *
 * torch.profiler writes Chrome-trace JSON (`export_chrome_trace`, or
 * `tensorboard_trace_handler`'s `*.pt.trace.json[.gz]`, one file per rank).
 * This importer turns one such file, plain or gzip, into the records an
 * Nsight Systems import or the collector produces, so every rule, report,
 * the renderer and the GUI work on it unchanged. docs/interop.md has the
 * mapping table; in short:
 *
 *   cat kernel / Kernel              -> kernels (args device, stream,
 *                                        correlation, grid, block, ...)
 *   cat gpu_memcpy / Memcpy          -> memcpys; copy kind and host memory
 *                                        kind from the name ("Memcpy HtoD
 *                                        (Pageable -> Device)"), bytes from
 *                                        args.bytes, async from the runtime
 *                                        call of the same correlation id
 *   cat gpu_memset / Memset          -> memsets
 *   cat cuda_runtime / Runtime       -> API calls (runtime domain)
 *   cat cuda_driver                  -> API calls (driver domain)
 *   cat cuda_sync                    -> syncs ("Stream Sync", "Event Sync",
 *                                        "Context Sync", "Stream Wait Event")
 *   ProfilerStep#N, user_annotation  -> NVTX ranges (default domain), so
 *                                        steps come from ProfilerStep#N
 *   DataLoader __next__ ranges       -> NVTX ranges "DataLoader.next" in
 *                                        domain "pfprof": the data waits
 *   python_function (with_stack)     -> NVTX ranges in domain "python" for
 *                                        the program's own frames (not the
 *                                        library's), which name the source
 *                                        line of a finding's example; calls
 *                                        of the hook's entry points
 *                                        (Tensor.to, .item, ...) -> the call
 *                                        sites (pfprof-kineto-sites-private.h)
 *   [memory] instants of CUDA memory -> memory (allocation / release)
 *   deviceProperties                 -> devices
 *   distributedInfo                  -> rank, meta world_size and backend
 *   process_name / thread_name       -> meta process_name, threads
 *   baseTimeNanoseconds (or the      -> added to every time (ns)
 *   older baseTimeOffset)
 *
 * Times are microseconds in the file (displayTimeUnit only says how to
 * show them); they are read to the nanosecond, from the number's text when
 * a double could not hold it. What the trace cannot show is added to the
 * trace's notes (no runtime calls, no host memory kind, no synchronization
 * records, no steps, ...).
 *
 * The JSON is never held as one tree, nor the file whole: its text is
 * read through a window and the traceEvents array one event at a time,
 * so memory stays near the size of the records.
 */
#pragma once

#include <glib.h>

#include "pfprof-trace-reader.h"
#include "pfprof-trace.h"

G_BEGIN_DECLS

/* TRUE when the first @len bytes of a file look like a Kineto trace:
 * the gzip magic, or an optional UTF-8 byte order mark and white space
 * followed by `{`. */
gboolean pfprof_kineto_import_sniff (const guint8 *head, gsize len);

/* Stricter than the sniff, for telling a Kineto trace from a
 * pfprof-report/1 result: the gzip magic, or a JSON object whose first
 * member is not "format". */
gboolean pfprof_kineto_import_is_kineto (const guint8 *head, gsize len);

/* Reads the Kineto trace at @path into a new sorted trace; NULL with
 * @error set (PFPROF_TRACE_ERROR, one line naming @path) when the file
 * is not one, is truncated, or holds a value of the wrong type or out of
 * range. @progress (may be NULL) sees the fraction read. */
PfprofTrace *pfprof_kineto_import_load (const char *path, PfprofTraceProgressFunc progress,
                                        gpointer user_data, GError **error);

G_END_DECLS
