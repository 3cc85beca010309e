/* SPDX-License-Identifier: MIT */
/* pfprof-display-name.h: the name shown for a kernel or an API call.
 *
 * CUPTI reports kernels by their mangled C++ symbol
 * (_ZN2at6native29vectorized_elementwise_kernelILi4E...) and runtime
 * calls with the CUDA version that introduced them (cudaMemcpyAsync_v3020).
 * Every place that shows a name to a person (reports, the timeline, the
 * GUI, the Perfetto export) takes it from here; rules and the JSON's
 * `raw_name` keep the raw string, which is what the program called.
 */
#pragma once

#include <glib.h>

#include "pfprof-trace.h"

G_BEGIN_DECLS

/* The short form of @raw, newly allocated, or NULL when it is shown as it
 * is: a mangled C++ name demangled (libiberty) without its parameters,
 * with template arguments nested two deep and function-local scopes
 * written "…" (at::native::vectorized_elementwise_kernel<4,
 * at::native::AUnaryFunctor<…>, std::array<…> >); CUPTI's "_vNNNN" API
 * suffix dropped (cudaMemcpyAsync). Names that do not demangle are kept. */
char *pfprof_display_name_new (const char *raw);

/* The display form of string @id of @trace (pfprof_trace_string()'s
 * text when it needs none), computed once per trace and kept with it;
 * never NULL. Safe to call from several threads. Untrusted text: escape
 * it for the output format. */
const char *pfprof_display_name (const PfprofTrace *trace, guint32 id);

G_END_DECLS
