/* SPDX-License-Identifier: MIT */
/* pfprof-call-sites.h: the user's Python lines behind each finding.
 *
 * The launcher's Python hook records call sites (python_sites: file, line,
 * function, a call count) and times the first calls of each
 * (python_calls, per thread). A site's recorded calls say which events it
 * makes: the API calls on the same thread inside one of its calls, the
 * copies, memsets, syncs and allocations those API calls correlate with,
 * and the DataLoader ranges it spans. An event is described by a
 * signature (its table, its thread, and what kind of it: copy direction,
 * memory kinds and size to a power of two, API function, NVTX name...).
 * A finding's event made inside a recorded call (same thread) belongs to
 * that call's site. Its other events are shared among the sites that make
 * events of the same signature and still run in the steady window (their
 * last recorded call ends in it; the hook times a sample of the calls
 * after the first 16, so a steady site has calls there), in proportion to
 * how many such events each makes per call times its calls. Sites whose
 * recorded calls all ended before the window (start-up code: model.cuda()
 * makes copies and syncs of the kinds .item() makes) share an event only
 * when no running site makes its kind, and are marked start-up.
 */
#pragma once

#include <glib.h>

#include "pfprof-analysis.h"
#include "pfprof-source-lines.h"
#include "pfprof-loop.h"
#include "pfprof-trace-index.h"

G_BEGIN_DECLS

/* Sites listed per finding, by time. */
#define PFPROF_FINDING_MAX_SITES 5

/* Strings are the trace's (untrusted: escape them for the output). */
typedef struct
{
  guint trace_index;
  guint32 site_id;
  guint8 kind;              /* PfprofSiteKind */
  const char *api;          /* "Tensor.cuda", ... */
  const char *file;
  gint32 line;
  const char *function;
  const char *caller_file;  /* "" if none */
  gint32 caller_line;       /* 0 if none */
  const char *caller_function;
  char *source;             /* the line's text, read at analysis time; NULL when the
                             * file is missing, the policy leaves it unread
                             * (pfprof-source-lines.h) or the trace was recorded
                             * with --redact-args */
  gboolean source_withheld; /* the file is there, but the policy leaves it
                             * unread (pfprof-source-lines.h) */
  guint64 calls;            /* the hook's count of calls */
  guint64 count;            /* the finding's events attributed to this site */
  gint64 time_ns;           /* their time */
  gint64 per_step_ns;       /* time_ns over the steady steps */
  gboolean startup;         /* all its recorded calls ended before the steady
                             * window and it was credited only because no
                             * site running then makes such events */
} PfprofFindingSite;

/* Adds to each finding of @findings from index @first on (the findings of
 * the trace @ix describes, whose loop is @loop) its sites (PfprofFinding.sites), and frees the
 * findings' evidence keys. Sites of bad python_sites rows (a line below 1,
 * no file name, an unknown kind, a name over 4 KiB) are left out and
 * counted in *@n_bad_sites. Source text is read under @policy; the files
 * it left unread are counted in *@n_sources_withheld. Does nothing for a
 * trace without sites. */
void pfprof_call_sites_attach (const PfprofTraceIndex *ix, const PfprofLoop *loop,
                               GPtrArray *findings, guint first,
                               PfprofSourceLinesPolicy policy, guint64 *n_bad_sites,
                               guint *n_sources_withheld);

/* "file:line in function: api", with @file's folders left out unless
 * @full; the strings shortened to a sane length. Free with g_free(). */
char *pfprof_call_site_describe (const PfprofFindingSite *site, gboolean full);

/* One line for reports: "train.py:57 in train_one_epoch:
 * images.cuda(non_blocking=True): 74 copies, 8.1 ms per step" (the
 * entry point's name where the source text is unknown). */
char *pfprof_call_site_summary (const PfprofFindingSite *site);

/* "copy", "sync", "record_stream", "pin", "dataloader" ("unknown"). */
const char *pfprof_site_kind_name (guint kind);

void pfprof_finding_site_clear (gpointer site);

G_END_DECLS
