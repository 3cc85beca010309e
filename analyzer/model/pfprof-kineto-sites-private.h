/* SPDX-License-Identifier: MIT */
/* pfprof-kineto-sites-private.h: the user's Python call sites
 * (python_sites, python_calls) from the Python frames of a torch.profiler
 * trace recorded with with_stack=True, for pfprof-kineto-import.c.
 *
 * torch.profiler writes every Python call as a python_function event
 * named "file(line): function" (a C function: "<built-in method to of
 * Tensor object at 0x...>"), nested in time on its thread. The entry
 * points pfprof's launcher hook wraps (Tensor.to, .cuda, .cpu, .item,
 * .pin_memory, .record_stream, torch.cuda.synchronize) are found by
 * their name; each call of one is a python_calls row, and its site is
 * the innermost frame of the program around it, with the program frame
 * around that as the caller: the site the hook would have named, but for
 * the line. torch.profiler names a frame by its function's first line
 * (or, for a frame already running when profiling began, the line it
 * stood on then), never the line of the call inside it, so a Kineto site
 * is one per entry point and function, and its line is the frame's.
 */
#pragma once

#include <glib.h>

#include "pfprof-trace.h"

G_BEGIN_DECLS

/* Whether a python_function name is a frame of the program itself, not
 * of torch, the standard library or a built-in: "train.py(42): main",
 * not "torch/nn/modules/module.py(1501): _call_impl", "threading.py(1010):
 * run" (torch.profiler shortens paths by the sys.path entry they are
 * under, so the standard library is told by its module names) nor
 * "<built-in method ...>". */
gboolean pfprof_kineto_sites_is_program_frame (const char *name);

/* The number (from 1) of the entry point a python_function name calls,
 * or 0 when it is none of them. */
guint pfprof_kineto_sites_entry (const char *name);

/* Gives each python_calls row of @trace (site_id: the entry point's
 * number, from pfprof_kineto_sites_entry) its site, from the program's
 * frames (NVTX ranges of domain @dom_python, name ids), writes the
 * python_sites rows, and drops the calls made outside any program frame.
 * @interned: the trace's string table index. */
void pfprof_kineto_sites_build (PfprofTrace *trace, GHashTable *interned, guint32 dom_python);

G_END_DECLS
