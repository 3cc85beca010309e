/* SPDX-License-Identifier: MIT */
/* pfprof-finding.h: one finding a rule makes, its severity and its
 * evidence: the costliest occurrences, kept in order as a rule offers
 * them. GLib only. */
#pragma once

#include <glib.h>

#include "pfprof-input-pipeline.h"
#include "pfprof-loop.h"
#include "pfprof-trace.h"

G_BEGIN_DECLS

typedef enum
{
  PFPROF_SEVERITY_INFO = 0,
  PFPROF_SEVERITY_WARNING = 1,
  PFPROF_SEVERITY_ERROR = 2,
} PfprofSeverity;

/* "info", "warning", "error". */
const char *pfprof_severity_to_string (PfprofSeverity severity);

/* Parses the above; FALSE when @s is none of them. */
gboolean pfprof_severity_from_string (const char *s /* nullable */, PfprofSeverity *out);

/* One occurrence of a finding: a time range on one row of the timeline. */
typedef struct
{
  guint trace_index;    /* into PfprofAnalysis.traces */
  gint64 start_ns;
  gint64 end_ns;
  guint32 device_id;    /* PFPROF_NONE for host-side evidence */
  guint32 stream_id;    /* PFPROF_NONE for host-side evidence */
  guint32 tid;          /* host thread, 0 if GPU-side */
  PfprofTableId table;  /* the example event's table */
  guint index;          /* and its index in that table */
  gint64 cost_ns;       /* what this occurrence cost (its wait, its copy): a
                         * finding keeps its costliest examples, costliest first */
} PfprofEvidence;

/* PfprofFinding.copy_directions */
#define PFPROF_FINDING_HTOD 1
#define PFPROF_FINDING_DTOH 2

typedef struct
{
  const char *rule;       /* stable kebab-case id, static string */
  PfprofSeverity severity;
  char *title;
  char *message;          /* with the measured numbers */
  char *fix;              /* concrete PyTorch code */
  guint64 count;          /* occurrences */
  gint64 time_ns;         /* total time affected */
  gint64 est_savings_ns;  /* estimated time saved per step if fixed */
  gint64 first_ns;
  gint64 last_ns;
  gint64 pid;
  guint32 device_id;      /* PFPROF_NONE if not device-specific */
  guint32 stream_id;      /* PFPROF_NONE if not stream-specific */
  GArray *evidence;       /* PfprofEvidence, the costliest examples, costliest first
                           * (pfprof_finding_add_evidence) */
  /* Which trace, and the evidence's identities while the rules run: */
  guint trace_index;      /* the trace it is about (into PfprofAnalysis.traces) */
  GArray *evidence_keys;  /* guint64 table << 32 | index of every piece of evidence,
                           * kept while the rules run; NULL afterwards */
  GArray *sites;          /* PfprofFindingSite (pfprof-call-sites.h): the user's Python
                           * lines behind the evidence, by time; NULL when none */
  /* The saving against the step ledger, and the step it predicts: */
  guint32 buckets;        /* the ledger buckets (PFPROF_LEDGER_BIT) the saving comes out
                           * of; est_savings_ns is at most their mean; 0: not capped */
  gint64 predicted_step_ns; /* mean GPU-side step with this fix alone; 0 without steps */
  gint64 host_bound_ns;   /* of est_savings_ns, the ledger's host-bound idle it names (the
                           * refill after its waits, the host issuing its copies): the
                           * host-bound finding leaves it to this one */
  gboolean immaterial;    /* saves less than the materiality threshold: made info */
  gint64 after_input_ns;  /* when input-starved is material (the DataLoader paces the
                           * loop): what this fix saves once input keeps up;
                           * est_savings_ns is then what it saves alone. 0 otherwise */
  guint8 copy_directions; /* PFPROF_FINDING_HTOD | PFPROF_FINDING_DTOH: the copies a copy
                           * finding is about (a fix for one direction cannot touch the
                           * other); 0 for the other findings */
  PfprofInputPipeline *pipeline; /* input-starved with worker_events: what the
                           * DataLoader's workers did in the steady state; else NULL */
  guint pipeline_workers; /* the worker count predicted_step_ns is for (not saturated);
                           * 0: the prediction assumes a perfect input pipeline */
  PfprofLoopJudge phase;  /* the phase whose steps its figures are over: the
                           * analysis's (training by default), or evaluation for
                           * one of PfprofAnalysis.phase_findings */
  GArray *occurrences;    /* PfprofEvidence: every occurrence, in the order the rule
                           * found them; NULL unless the options keep them
                           * (pfprof_analysis_options_set_keep_occurrences) */
} PfprofFinding;

void pfprof_finding_free (PfprofFinding *finding);

/* Offers one piece of evidence; first_ns/last_ns of @finding are widened
 * to cover it. The @max costliest pieces (PfprofEvidence.cost_ns, the
 * earlier on a tie) are kept, costliest first, whatever the order they
 * are offered in: every report, the export and the GUI's occurrence
 * navigator show them in that order. The count is separate. */
void pfprof_finding_add_evidence (PfprofFinding *finding, const PfprofEvidence *evidence,
                                  guint max);

/* Records one occurrence in @finding's occurrences (when the options keep
 * them) and nothing else: for the occurrences a rule offers no evidence
 * for, once it has its costliest. pfprof_finding_add_evidence() calls it. */
void pfprof_finding_add_occurrence (PfprofFinding *finding, const PfprofEvidence *evidence);

G_END_DECLS
