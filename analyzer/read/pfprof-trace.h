/* SPDX-License-Identifier: MIT */
/* pfprof-trace.h: one trace loaded into memory (one profiled process).
 *
 * The reader (pfprof-trace-reader.h) fills it; the analyzer, the renderer
 * and the GUI read it. Event arrays hold the record structs of
 * trace/pfprof-trace-schema.h, sorted by start time (ts_ns for memory),
 * so code can binary-search them. Nothing here knows about GTK or cairo.
 */
#pragma once

#include <glib.h>

#include "pfprof-trace-schema.h"

G_BEGIN_DECLS

typedef struct _PfprofTrace PfprofTrace;

struct _PfprofTrace
{
  char *path;           /* file it was loaded from */
  GHashTable *meta;     /* char* key -> char* value (the meta table) */
  GPtrArray *strings;   /* id -> const char* (owned); NULL entries allowed */
  GPtrArray *display_names; /* id -> the name shown, or NULL for strings[id];
                             * filled on first use by analyzer/base/pfprof-display-name.c */
  gint64 pid;           /* meta "pid", 0 if absent */
  gint64 rank;          /* meta "rank", -1 if absent */
  gint64 start_ns;      /* earliest timestamp of any event, 0 if none */
  gint64 end_ns;        /* latest end of any event */
  GArray *tables[PFPROF_N_TABLES]; /* element type: the table's record struct */
  /* Clock alignment of several hosts' traces, set by pfprof_clock_align(): */
  gint64 clock_offset_ns; /* added to every time of this trace to align it (with a
                           * drift, at the middle of the paired collectives) */
  int clock_alignment;    /* PfprofClockAlignment */
  /* When the collectives refined it (PFPROF_CLOCK_COLLECTIVES): */
  guint clock_collectives;        /* paired collectives the fit used */
  gint64 clock_collectives_ns;    /* the part of clock_offset_ns they measured */
  gint64 clock_spread_ns;         /* their median residual: the precision */
  double clock_drift;             /* per ns, about that middle: the rest of the move */
  /* What the trace's source cannot show (char*, one sentence each): an
   * importer fills it when a foreign format lacks something the rules
   * judge by; the report formats print each once. Empty for pfprof traces. */
  GPtrArray *notes;
};

/* Typed views of tables[] for readability at call sites. */
#define pfprof_trace_kernels(t) ((PfprofKernelRecord *) (t)->tables[PFPROF_TABLE_KERNELS]->data)
#define pfprof_trace_memcpys(t) ((PfprofMemcpyRecord *) (t)->tables[PFPROF_TABLE_MEMCPYS]->data)
#define pfprof_trace_memsets(t) ((PfprofMemsetRecord *) (t)->tables[PFPROF_TABLE_MEMSETS]->data)
#define pfprof_trace_syncs(t) ((PfprofSyncRecord *) (t)->tables[PFPROF_TABLE_SYNCS]->data)
#define pfprof_trace_cuda_events(t) ((PfprofCudaEventRecord *) (t)->tables[PFPROF_TABLE_CUDA_EVENTS]->data)
#define pfprof_trace_api_calls(t) ((PfprofApiRecord *) (t)->tables[PFPROF_TABLE_API_CALLS]->data)
#define pfprof_trace_nvtx(t) ((PfprofNvtxRecord *) (t)->tables[PFPROF_TABLE_NVTX]->data)
#define pfprof_trace_memory(t) ((PfprofMemoryRecord *) (t)->tables[PFPROF_TABLE_MEMORY]->data)
#define pfprof_trace_overhead(t) ((PfprofOverheadRecord *) (t)->tables[PFPROF_TABLE_OVERHEAD]->data)
#define pfprof_trace_devices(t) ((PfprofDeviceRecord *) (t)->tables[PFPROF_TABLE_DEVICES]->data)
#define pfprof_trace_contexts(t) ((PfprofContextRecord *) (t)->tables[PFPROF_TABLE_CONTEXTS]->data)
#define pfprof_trace_streams(t) ((PfprofStreamRecord *) (t)->tables[PFPROF_TABLE_STREAMS]->data)
#define pfprof_trace_threads(t) ((PfprofThreadRecord *) (t)->tables[PFPROF_TABLE_THREADS]->data)
#define pfprof_trace_windows(t) ((PfprofWindowRecord *) (t)->tables[PFPROF_TABLE_WINDOWS]->data)
#define pfprof_trace_python_calls(t) ((PfprofPythonCallRecord *) (t)->tables[PFPROF_TABLE_PYTHON_CALLS]->data)
#define pfprof_trace_worker_events(t) ((PfprofWorkerEventRecord *) (t)->tables[PFPROF_TABLE_WORKER_EVENTS]->data)
#define pfprof_trace_python_sites(t) ((PfprofPythonSiteRecord *) (t)->tables[PFPROF_TABLE_PYTHON_SITES]->data)
#define pfprof_trace_n(t, table) ((t)->tables[(table)]->len)

/* An empty trace (all tables empty), for tests and generators. */
PfprofTrace *pfprof_trace_new (void);

void pfprof_trace_free (PfprofTrace *trace);

/* The string with id @id, or "" when the id is PFPROF_NONE or unknown;
 * never NULL. The text is untrusted (it came from the profiled program):
 * escape it for the output format. */
const char *pfprof_trace_string (const PfprofTrace *trace, guint32 id);

/* The metadata value for @key, or NULL. */
const char *pfprof_trace_meta (const PfprofTrace *trace, const char *key);

/* Whether the writer never finished the trace (meta complete = 0: the
 * process was killed, or ended without exit handlers). */
gboolean pfprof_trace_is_incomplete (const PfprofTrace *trace);

/* Total number of events (all event tables, not devices/streams/...). */
guint64 pfprof_trace_n_events (const PfprofTrace *trace);

/* The id of string @s (NULL reads as "") in @trace's strings, added when
 * new. @interned maps the strings already added (char* borrowed from the
 * trace -> id + 1): importers keep one while they build a trace. */
guint32 pfprof_trace_intern (PfprofTrace *trace, GHashTable *interned, const char *s /* nullable */);

/* Sets the depth of every NVTX range from how the ranges of its thread
 * nest (the number of earlier ranges still open when it starts), for
 * importers whose source records no nesting level. */
void pfprof_trace_nest_nvtx (PfprofTrace *trace);

/* Appends one note to @trace->notes (printf-style). */
void pfprof_trace_add_note (PfprofTrace *trace, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

/* Sorts every event table by time and recomputes start_ns/end_ns. The
 * reader calls it; code that builds a trace in memory calls it too. */
void pfprof_trace_sort (PfprofTrace *trace);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PfprofTrace, pfprof_trace_free)

G_END_DECLS
