/* SPDX-License-Identifier: MIT */
/* pfprof-timeline.h: the row layout of a timeline, built once per analysis.
 *
 * Rows are grouped process (one per trace) -> GPU -> stream, then the
 * host threads of that process, then what the hook recorded inside its
 * DataLoader: the batches the training loop got (labelled with the batch
 * and its worker, ending when the step got it), the pin thread's, and one
 * lane per worker with its batches and, below, each stage's span. A lane row holds references to events of
 * the trace, sorted by start, never overlapping (overlapping events, such
 * as a driver call inside a runtime call, are spread over sub-lanes), plus
 * a prefix sum of durations. That is what lets the renderer draw any zoom
 * level in time proportional to the number of pixel columns, not to the
 * number of events: a run of events narrower than a pixel is found with
 * two binary searches and drawn as one column whose shade is the busy
 * fraction of that column.
 *
 * The timeline borrows the run (and the analysis, once it has one): free
 * the timeline first. Labels are built from untrusted trace text and must be drawn
 * literally (pfprof_render_sanitize()).
 */
#pragma once

#include <glib.h>

#include "pfprof-analysis.h"

G_BEGIN_DECLS

typedef enum
{
  PFPROF_ROW_PROCESS,      /* group: one trace (rank / pid) */
  PFPROF_ROW_DEVICE,       /* group: one GPU */
  PFPROF_ROW_STREAM,       /* lane: kernels, copies, memsets of one stream */
  PFPROF_ROW_DEVICE_SYNC,  /* lane: synchronizations and event waits */
  PFPROF_ROW_THREADS,      /* group: the host threads of a process */
  PFPROF_ROW_THREAD_API,   /* lane: CUDA API calls of one thread */
  PFPROF_ROW_THREAD_NVTX,  /* lane: NVTX ranges (and DataLoader waits) */
  PFPROF_ROW_WORKERS,      /* group: inside the DataLoader (worker_events) */
  PFPROF_ROW_WORKER,       /* lane: stream_id PFPROF_TIMELINE_WORKER_*: a worker's
                            * batches and stages (tid = its pid), the pin
                            * thread's batches, the batches the loop got */
} PfprofRowType;

/* PFPROF_ROW_WORKER lanes, in display order (their stream_id). */
#define PFPROF_TIMELINE_WORKER_GOT 0
#define PFPROF_TIMELINE_WORKER_PIN 1
#define PFPROF_TIMELINE_WORKER_BATCHES 2

/* What an event is drawn as; one colour each. */
typedef enum
{
  PFPROF_ITEM_KERNEL,
  PFPROF_ITEM_HTOD_PINNED,
  PFPROF_ITEM_HTOD_PAGEABLE,
  PFPROF_ITEM_DTOH_PINNED,
  PFPROF_ITEM_DTOH_PAGEABLE,
  PFPROF_ITEM_COPY_OTHER,
  PFPROF_ITEM_MEMSET,
  PFPROF_ITEM_SYNC,
  PFPROF_ITEM_API,
  PFPROF_ITEM_API_SYNC,    /* a blocking synchronizing API call */
  PFPROF_ITEM_NVTX,
  PFPROF_ITEM_DATA_WAIT,   /* pfprof's DataLoader.next range */
  PFPROF_ITEM_BATCH,       /* a DataLoader batch: made, pinned or got */
  PFPROF_ITEM_STAGE,       /* a stage over a batch's samples, first call to last */
  PFPROF_ITEM_COLLATE,     /* a batch's collate_fn, drawn over the end of its batch */
  PFPROF_N_ITEMS
} PfprofItemClass;

/* An event reference: table in the top 4 bits, index in the low 28. */
typedef guint32 PfprofEventRef;

#define PFPROF_EVENT_REF(table, index) ((PfprofEventRef) (((guint32) (table) << 28) | (guint32) (index)))
#define PFPROF_EVENT_REF_TABLE(ref) ((PfprofTableId) ((ref) >> 28))
#define PFPROF_EVENT_REF_INDEX(ref) ((guint) ((ref) & 0x0fffffffu))
#define PFPROF_EVENT_REF_MAX_INDEX 0x0fffffffu
#define PFPROF_EVENT_REF_NONE G_MAXUINT32

typedef struct
{
  PfprofRowType type;
  gboolean is_group;
  gboolean expanded;      /* groups only; collapsed hides the children */
  int depth;              /* nesting level, for indentation */
  int parent;             /* index of the enclosing group, -1 at top */
  char *label;            /* sanitized, valid UTF-8 */
  guint trace_index;
  guint32 device_id;      /* PFPROF_NONE where not applicable */
  guint32 stream_id;      /* PFPROF_NONE where not applicable */
  guint32 tid;            /* 0 where not applicable */
  guint sub_lane;         /* 0 for the first lane of a logical row */
  /* Lane data (empty for groups). */
  const PfprofTrace *trace;
  const struct _PfprofTimelineTraceInfo *info;
  PfprofEventRef *refs;   /* sorted by start, non-overlapping */
  gint64 *prefix;         /* n_refs + 1 running sums of durations */
  guint n_refs;
  struct _PfprofTimelineLod *lod; /* coverage summary of big lanes, or NULL */
} PfprofTimelineRow;

/* Coverage of a big lane summarised in time buckets, at levels 4 times
 * coarser each: when zoomed out past level 0's bucket width, a frame
 * reads a few buckets per pixel column instead of searching the events,
 * so its cost does not depend on how many events the lane holds. */
typedef struct _PfprofTimelineLod
{
  gint64 start_ns;      /* start of bucket 0 at every level */
  guint n_levels;
  gint64 width_ns[16];  /* bucket width per level */
  guint n[16];          /* buckets per level */
  gint64 *busy[16];     /* ns covered by events in each bucket */
  guint8 *cls[16];      /* the PfprofItemClass covering most of it */
} PfprofTimelineLod;

/* Lanes with more events than this get a PfprofTimelineLod. */
#define PFPROF_TIMELINE_LOD_MIN_EVENTS 4096

typedef struct _PfprofTimeline PfprofTimeline;

struct _PfprofTimeline
{
  const PfprofRun *run;   /* the run drawn */
  GPtrArray *traces;      /* its traces (pfprof_run_get_traces()), borrowed */
  const PfprofAnalysis *analysis; /* of the run: steps and findings; NULL until set */
  GArray *rows;           /* PfprofTimelineRow, in display order */
  gint64 start_ns;        /* extent of all traces */
  gint64 end_ns;
  guint64 n_gpu_events;   /* kernels + copies + memsets of all traces */
  struct _PfprofTimelineTraceInfo *infos; /* one per trace, private */
  GPtrArray *finding_rows; /* per finding: GArray of int, one per evidence; lazy */
};

/* Called now and then while building with the fraction done (0..1). */
typedef void (*PfprofTimelineProgressFunc) (double fraction, gpointer user_data);

/* Builds the rows of @analysis (of its run), and draws its steps and
 * findings. @progress may be NULL. Never fails: a trace without GPU
 * activity gives a process group with thread rows only (see
 * n_gpu_events). Events whose index does not fit an event reference are
 * left out. */
PfprofTimeline *pfprof_timeline_new (const PfprofAnalysis *analysis,
                                     PfprofTimelineProgressFunc progress, gpointer user_data);

/* The same rows for @run alone, with no steps or findings until
 * pfprof_timeline_set_analysis(): a caller shows the trace while the
 * analysis of the run goes on on another thread (both only read the
 * run). */
PfprofTimeline *pfprof_timeline_new_for_run (const PfprofRun *run,
                                             PfprofTimelineProgressFunc progress,
                                             gpointer user_data);

void pfprof_timeline_free (PfprofTimeline *timeline);

/* Makes @timeline read its findings and steps from @analysis, which must
 * be of the run it was built for. FALSE, and nothing changed, when it is
 * of another run. */
gboolean pfprof_timeline_set_analysis (PfprofTimeline *timeline, const PfprofAnalysis *analysis);

/* Row @i; NULL past the end. */
const PfprofTimelineRow *pfprof_timeline_get_row (const PfprofTimeline *timeline, guint i);

/* Whether row @i is shown (every enclosing group is expanded). */
gboolean pfprof_timeline_row_visible (const PfprofTimeline *timeline, guint i);

/* Expands or collapses group row @i (no-op for lanes). */
void pfprof_timeline_set_expanded (PfprofTimeline *timeline, guint i, gboolean expanded);

/* Start and end of event @ref of @trace. */
void pfprof_timeline_event_range (const PfprofTrace *trace, PfprofEventRef ref,
                                  gint64 *start_ns /* nullable */,
                                  gint64 *end_ns /* nullable */);

/* The colour class of event @ref of lane @row. */
PfprofItemClass pfprof_timeline_event_class (const PfprofTimelineRow *row, PfprofEventRef ref);

/* Index in @row of the first event that ends after @t (n_refs if none). */
guint pfprof_timeline_row_first_after (const PfprofTimelineRow *row, gint64 t);

/* Index of the first event at or after @from whose start is >= @t,
 * searching forward from @from (galloping, so short hops are cheap). */
guint pfprof_timeline_row_lower_bound (const PfprofTimelineRow *row, guint from, gint64 t);

/* The event of @row under time @t, allowing @slop_ns either side (to make
 * sub-pixel events clickable); PFPROF_EVENT_REF_NONE if none. */
PfprofEventRef pfprof_timeline_row_hit (const PfprofTimelineRow *row, gint64 t, gint64 slop_ns);

/* The row index that holds @ref of trace @trace_index, or -1. */
int pfprof_timeline_find_row (const PfprofTimeline *timeline, guint trace_index, PfprofEventRef ref);

/* The API call (index into the api_calls table) that launched GPU event
 * @ref, found by correlation id; -1 if none or @ref is not GPU work. */
gint64 pfprof_timeline_launching_call (PfprofTimeline *timeline, guint trace_index,
                                       PfprofEventRef ref);

/* The first lane row that shows evidence @ev (its stream, its thread, or
 * the GPU's first stream), or -1. */
int pfprof_timeline_evidence_row (const PfprofTimeline *timeline, const PfprofEvidence *ev);

/* Row of each evidence of finding @finding_index (as
 * pfprof_timeline_evidence_row(), -1 where none), computed once and kept;
 * NULL when the index is out of range. */
const int *pfprof_timeline_finding_rows (PfprofTimeline *timeline, guint finding_index);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PfprofTimeline, pfprof_timeline_free)

G_END_DECLS
