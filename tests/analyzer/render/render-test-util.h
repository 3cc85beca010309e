/* SPDX-License-Identifier: MIT */
/* render-test-util.h: a synthetic trace with planted patterns, shared by
 * the render and gui suites.
 *
 * One process (pid 4242), GPU 0 "NVIDIA H200". Ten 10 ms steps from
 * RT_ORIGIN. In step k (s = RT_ORIGIN + k * 10 ms):
 *   stream 7:  HtoD pageable copy [s, s+3ms] (64 MiB), five 1 ms kernels
 *              [s+3ms, s+8ms], DtoH pinned copy [s+8ms, s+8.5ms]
 *   stream 13: HtoD pinned copy [s+1ms, s+2ms], memset [s+9ms, s+9.2ms]
 *   stream 21: (with dense) 300 ns kernels every 500 ns all along
 *   thread 100 "python": cudaMemcpyAsync launching each copy, one
 *              cudaLaunchKernel per kernel, cudaStreamSynchronize
 *              [s+8.5ms, s+9ms]; NVTX "DataLoader.next" (domain pfprof)
 *              [s+9.2ms, s+9.9ms]
 *   a stream-sync record [s+8.5ms, s+9ms] on stream 7.
 * The analysis has the ten steps and one warning finding
 * "pageable-htod" whose evidence is each pageable copy.
 */
#pragma once

#include <glib.h>

#include "pfprof-analysis.h"

G_BEGIN_DECLS

#define RT_ORIGIN G_GINT64_CONSTANT (1000000000)
#define RT_MS G_GINT64_CONSTANT (1000000)
#define RT_STEPS 10
#define RT_DENSE_PERIOD 500
#define RT_DENSE_LEN 300

/* Strings can be replaced to test hostile text: when @kernel_name is not
 * NULL every kernel on stream 7 has that name. */
PfprofTrace *rt_trace_new (gboolean dense, const char *kernel_name);

/* An analysis over @trace (taken) with the planted steps and finding,
 * built by hand so the renderer is tested apart from the analyzer. */
PfprofAnalysis *rt_analysis_new (PfprofTrace *trace);

/* Frees what rt_analysis_new built. */
void rt_analysis_free (PfprofAnalysis *analysis);

/* Writes @trace to a finished trace file at @path; FALSE on failure. */
gboolean rt_trace_write (const PfprofTrace *trace, const char *path);

G_END_DECLS
