/* SPDX-License-Identifier: MIT */
/* pfprof-export-chrome.h: an analysis as Trace Event Format JSON.
 *
 * The Trace Event Format ("Chrome trace JSON") is what chrome://tracing
 * and ui.perfetto.dev open. The export is one JSON object:
 *
 *   {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}
 *
 * Tracks: each traced process is a process (its real pid when the pids
 * of the traces differ) whose threads are the host threads that called
 * CUDA or NVTX, plus a "pfprof steps" track (tid 0) with one slice per
 * detected step. Each GPU of each process is a process of its own
 * ("GPU 0: NVIDIA H200 (pid 4242)") with one thread per stream ("GPU 0
 * stream 7"). Names come from metadata events (ph "M": process_name,
 * thread_name, and sort indexes so the GPU sits under its process).
 *
 * The DataLoader's workers (worker_events) are threads of their process
 * (tid = the worker's pid) with a slice per batch holding its fetch, its
 * stages laid end to end by summed time, and collate_fn; the pin-memory
 * thread has a lane of its own; a flow joins each batch to the step that
 * got it.
 *
 * Events: CUDA API calls, NVTX ranges, kernels, copies and memsets are
 * complete events (ph "X", ts and dur in microseconds with nanosecond
 * decimals, counted from the earliest event of all traces so the numbers
 * keep their precision; the origin is in otherData.clock_origin_ns).
 * NVTX marks are thread-scoped instant events. Each API call that
 * launched GPU work is joined to it by a flow (ph "s" on the call, ph "f"
 * with "bp":"e" on the GPU event, same "id"), drawn as an arrow. Each
 * finding is a global instant event (s "g") at its first occurrence
 * whose args hold the rule, severity, title, message and fix, plus a
 * thread-scoped instant on the row of each occurrence (at most
 * PFPROF_EXPORT_CHROME_MAX_OCCURRENCES per finding).
 *
 * Every string from the trace (kernel, API, NVTX and thread names, paths)
 * is untrusted and goes through pfprof_escape_json().
 */
#pragma once

#include <glib.h>

#include "pfprof-analysis.h"

G_BEGIN_DECLS

/* Occurrence instants written per finding; the global instant gives the
 * full count. */
#define PFPROF_EXPORT_CHROME_MAX_OCCURRENCES 200

/* Receives the output in order, in pieces of about
 * PFPROF_EXPORT_CHROME_CHUNK bytes; returns FALSE to stop the export. */
typedef gboolean (*PfprofExportWriteFunc) (const char *data, gsize len, gpointer user_data);

#define PFPROF_EXPORT_CHROME_CHUNK (1 << 20)

/* Writes the Trace Event Format JSON of @analysis (its traces, steps and
 * findings) through @write, so the whole text is never in memory (a
 * 10-million-event trace makes gigabytes of JSON). FALSE when @write
 * returned FALSE; what was written is then incomplete. */
gboolean pfprof_export_chrome (const PfprofAnalysis *analysis, PfprofExportWriteFunc write,
                               gpointer user_data);

G_END_DECLS
