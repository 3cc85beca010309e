/* SPDX-License-Identifier: MIT */
/* pfprof-run-match.h: whether traces are of one run.
 *
 * The traces given together to `pfprof report` (or to one side of
 * `pfprof diff`) become one run: one step median, one headline, one
 * per-rank table. Traces of two programs, or of two runs of one program,
 * pooled so would give figures of neither, so the commands refuse them
 * instead. Two traces are of different runs when what both recorded says
 * so (docs/trace-format.md, meta):
 *
 *   - their launcher job ids differ (`launcher_job_id`: Slurm's job and
 *     step, torchrun's run id);
 *   - their world sizes differ, or both are the same rank;
 *   - their command lines differ, a `--local-rank N` argument aside
 *     (torch.distributed.launch gives each rank its own);
 *   - their recordings do not overlap in time (`clock_start_realtime_ns`
 *     to `clock_end_realtime_ns`; traces of different hosts may be a
 *     minute apart, as their clocks may be).
 *
 * A key that either trace lacks decides nothing (an Nsight Systems or
 * torch.profiler import records fewer of them), so the ranks of one run
 * are never split. GLib only.
 */
#pragma once

#include <glib.h>

#include "pfprof-trace.h"

G_BEGIN_DECLS

#define PFPROF_RUN_MATCH_ERROR (pfprof_run_match_error_quark ())

typedef enum
{
  PFPROF_RUN_MATCH_ERROR_MIXED, /* traces of different runs given as one */
} PfprofRunMatchError;

GQuark pfprof_run_match_error_quark (void);

/* TRUE when @a and @b may be of one run; else FALSE with *@why set to
 * what tells them apart ("their command lines differ"; static text). */
gboolean pfprof_run_match (const PfprofTrace *a, const PfprofTrace *b, const char **why);

/* TRUE when every trace of @traces (PfprofTrace*) may be of the run of
 * the first; else FALSE with @error set (PFPROF_RUN_MATCH_ERROR_MIXED),
 * one line naming both files and what tells them apart. */
gboolean pfprof_run_match_traces (const GPtrArray *traces, GError **error);

G_END_DECLS
