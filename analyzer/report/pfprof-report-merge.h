/* SPDX-License-Identifier: MIT */
/* pfprof-report-merge.h: one run's ranks from per-rank JSON results.
 *
 * A 1,000-rank job's traces need not meet on one host: each rank runs
 * `pfprof report --format json -o rank-%r.json TRACE` where its trace
 * lives (inside the same srun/mpirun job), and `pfprof report
 * rank-*.json` merges those pfprof-report/1 results: the per-rank table
 * and the rank-imbalance finding, judged exactly as for traces given
 * together (the run-scoped rules, called the same way), from the per-trace figures
 * every result carries in traces[] (rank, host, pid, steady_steps,
 * step_median_ns, data_wait_per_step_ns, copy_exposed_per_step_ns,
 * idle_per_step_ns, findings, steady_start_ns, steady_end_ns).
 */
#pragma once

#include <glib.h>

#include "pfprof-analysis-options.h"
#include "pfprof-analysis.h"

G_BEGIN_DECLS

/* The domain of every error the merge reports (code 0): one line that
 * starts with the result's name. */
#define PFPROF_REPORT_MERGE_ERROR (pfprof_report_merge_error_quark ())
GQuark pfprof_report_merge_error_quark (void);

/* Largest result file read (a result is a few kB per trace). */
#define PFPROF_REPORT_MERGE_MAX_BYTES (64 * 1024 * 1024)

/* TRUE when the file at @path holds JSON rather than a trace: its first
 * byte that is not white space is '{' (a trace starts with SQLite's
 * header) and it is not a torch.profiler trace
 * (pfprof_importer_is_trace_json). Decided by content, never by the name;
 * FALSE when the file cannot be read (loading it as a trace then reports
 * why). */
gboolean pfprof_report_merge_is_result (const char *path);

/* Reads the @n_paths pfprof-report/1 results at @paths and builds an
 * analysis with no traces: PfprofAnalysis.ranks (one per ranked trace
 * of every result, by rank), n_results, and the rank-imbalance findings
 * under @options (NULL for the defaults). NULL with @error set, its
 * message naming the file, for unreadable or invalid JSON, another
 * format, a result without ranked traces or without the figures above
 * (older pfprof), figures out of range, or one rank in two results.
 * The ranks' host and path strings belong to the analysis. */
PfprofAnalysis *pfprof_report_merge (const char *const *paths, guint n_paths,
                                     const PfprofAnalysisOptions *options /* nullable */,
                                     GError **error);

/* The same merge, with the same checks and messages, of @n results
 * already in memory: result i is @lens[i] bytes at @data[i] (need not
 * end in NUL), named @names[i] in messages and in
 * PfprofRankSummary.path. The JSON fuzzer (tests/fuzz/pfprof-fuzz-json.c)
 * feeds hostile bytes through here; every refusal sets @error. */
PfprofAnalysis *pfprof_report_merge_buffers (const char *const *names, const char *const *data,
                                             const gsize *lens, guint n,
                                             const PfprofAnalysisOptions *options /* nullable */,
                                             GError **error);

G_END_DECLS
