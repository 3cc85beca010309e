/* SPDX-License-Identifier: MIT */
/* pfprof-search.h: finding names on the timeline.
 *
 * A query matches, case-insensitively as a substring, the names people
 * see: kernels and API calls by their display names (demangled, CUPTI's
 * version suffix dropped: analyzer/base/pfprof-display-name.h), NVTX ranges, and
 * findings by their title or rule. Matches are in time order, findings at
 * their costliest occurrence. GTK-free. */
#pragma once

#include <glib.h>

#include "pfprof-timeline.h"

G_BEGIN_DECLS

typedef struct
{
  gint64 start_ns;
  gint64 end_ns;
  int row;              /* timeline row of the event; -1 for a finding */
  PfprofEventRef ref;   /* the event; PFPROF_EVENT_REF_NONE for a finding */
  int finding;          /* index in analysis->findings; -1 for an event */
} PfprofSearchMatch;

/* At most this many matches are kept (the count then says "or more"). */
#define PFPROF_SEARCH_MAX_MATCHES 1000000

/* The matches of @query in @timeline (and its analysis, when it has one),
 * in time order; empty for an empty query. *@truncated (may be NULL) says
 * whether PFPROF_SEARCH_MAX_MATCHES stopped the search. */
GArray *pfprof_search_find (const PfprofTimeline *timeline, const char *query, gboolean *truncated);

G_END_DECLS
