/* SPDX-License-Identifier: MIT */
/* pfprof-rules.h: the detection rules and the table that registers them.
 *
 * How to add a rule:
 *   1. Write analyzer/diagnose/rules/pfprof-rule-NAME.c defining
 *        const PfprofRule pfprof_rule_NAME = { "name", ... };
 *      with a stable kebab-case id, a default severity, a one-line
 *      summary, its thresholds (PfprofRuleParam: key, default, meaning),
 *      a run function and, last, its scope (PfprofRuleScope: what one
 *      call of the run function judges). The run function
 *      judges the steady state only (pfprof_trace_index_in_steady), says
 *      nothing when the pattern is absent, and otherwise emits findings
 *      with pfprof_rule_finding_new() + pfprof_rule_emit(): measured
 *      numbers in the message, evidence, estimated savings per step, and
 *      fix text with concrete PyTorch code.
 *   2. Declare it below and add it to the table in pfprof-rules.c.
 *   3. Add the file to analyzer/diagnose/meson.build, its thresholds to
 *      docs/report-format.md, and a positive, a negative and a
 *      borderline test to tests/analyzer/.
 */
#pragma once

#include <glib.h>

#include "pfprof-analysis.h"
#include "pfprof-analysis-options.h"
#include "pfprof-trace-index.h"

G_BEGIN_DECLS

typedef struct
{
  const char *key;         /* kebab-case, the key in the config file */
  double default_value;
  const char *description; /* one line, with the unit */
} PfprofRuleParam;

typedef struct _PfprofRule PfprofRule;

/* What one call of a rule's run function judges. */
typedef enum
{
  PFPROF_RULE_SCOPE_TRACE = 0,  /* one trace: called once per trace, ctx->ix set */
  PFPROF_RULE_SCOPE_DEVICE = 1, /* one GPU of one trace: called once per device
                                 * timeline of each trace, ctx->ix and ctx->device set */
  PFPROF_RULE_SCOPE_RUN = 2,    /* the run: called once, after every trace was
                                 * judged (every trace's steps, summaries and
                                 * findings are in ctx->analysis); ctx->ix and
                                 * ctx->device NULL. It compares ranks through
                                 * pfprof_rank_summary_get (ctx->analysis), which
                                 * also serves an analysis merged from per-rank
                                 * results (pfprof-report-merge.h), where the merge
                                 * calls it the same way */
} PfprofRuleScope;

typedef struct
{
  PfprofAnalysis *analysis;
  const PfprofAnalysisOptions *options;
  const PfprofRule *rule;
  PfprofTraceIndex *ix;                 /* the trace being judged; NULL for the run */
  const PfprofDeviceTimeline *device;   /* the device, for PFPROF_RULE_SCOPE_DEVICE only */
} PfprofRuleContext;

struct _PfprofRule
{
  const char *id;               /* stable kebab-case id */
  PfprofSeverity severity;      /* default severity */
  const char *summary;          /* one line: what it detects */
  const PfprofRuleParam *params;
  guint n_params;
  void (*run) (PfprofRuleContext *ctx);
  PfprofRuleScope scope;        /* what one call of run judges */
};

extern const PfprofRule pfprof_rule_input_starved;
extern const PfprofRule pfprof_rule_pageable_transfer;
extern const PfprofRule pfprof_rule_serialized_copy;
extern const PfprofRule pfprof_rule_record_stream_stall;
extern const PfprofRule pfprof_rule_late_prefetch;
extern const PfprofRule pfprof_rule_sync_in_loop;
extern const PfprofRule pfprof_rule_small_transfers;
extern const PfprofRule pfprof_rule_pinned_alloc_in_loop;
extern const PfprofRule pfprof_rule_host_bound;
extern const PfprofRule pfprof_rule_rank_imbalance;

/* Every rule, in table order; @n_rules receives the count. */
const PfprofRule *const *pfprof_rules_get (guint *n_rules);

/* The rule with id @id, or NULL. */
const PfprofRule *pfprof_rules_lookup (const char *id);

/* The value of threshold @key of the context's rule: the config file's,
 * else the default. Asking for a key the rule does not declare is a
 * programming error (returns 0 with a critical). */
double pfprof_rule_param (const PfprofRuleContext *ctx, const char *key);

/* A new finding of the context's rule for its trace: rule id, severity
 * (as configured), pid; device and stream PFPROF_NONE, evidence empty.
 * Without a trace (ctx->ix NULL: a run-scoped rule) pid and trace_index
 * are 0 for the caller to set. Fill it in and pass it to
 * pfprof_rule_emit(). */
PfprofFinding *pfprof_rule_finding_new (const PfprofRuleContext *ctx);

/* Adds @finding to the analysis (takes it over). */
void pfprof_rule_emit (const PfprofRuleContext *ctx, PfprofFinding *finding);

/* Judges @analysis with @rule when @options enable it: a trace- or
 * device-scoped rule on trace @ix (once, or once per device timeline of
 * it), a run-scoped rule on the run, with @ix NULL. Nothing is called
 * when @ix does not fit the scope (NULL for a trace rule, set for a run
 * rule). pfprof_analysis_run() calls every rule through it; the merge of
 * per-rank results (pfprof-report-merge.h) the run-scoped ones. */
void pfprof_rule_run (const PfprofRule *rule, PfprofAnalysis *analysis,
                      const PfprofAnalysisOptions *options, PfprofTraceIndex *ix);

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

/* Fraction of the trace's steady steps that contain at least one of the
 * @n times (sorted ascending); 1.0 when the trace has no steps and @n > 0,
 * 0.0 when @n is 0. Rules use it to tell a per-step pattern from a
 * one-off. */
double pfprof_rule_step_coverage (const PfprofRuleContext *ctx, const gint64 *times, guint n);

/* Appends to @out (guint API indices, time order) the calls of any of the
 * @n_classes classes that start in the steady window, made by thread @tid
 * (0: any thread), leaving out calls nested in an earlier kept call of the
 * same thread (a runtime call and the driver call it makes count once). */
void pfprof_rule_collect_calls (const PfprofRuleContext *ctx, const PfprofApiClass *classes,
                                guint n_classes, guint32 tid, GArray *out);

/* The starts of the trace's steady steps, ascending
 * (pfprof_trace_index_n_steady_steps() of them; g_free it). */
gint64 *pfprof_rule_step_starts (const PfprofRuleContext *ctx);

/* TRUE when the trace shows input reaching @dev without DataLoader
 * ranges: host-to-device copies in at least half the steady steps (at
 * least two in the window when it has no steps). Idle time is called
 * input only with such evidence. */
gboolean pfprof_rule_has_input_copies (const PfprofRuleContext *ctx,
                                       const PfprofDeviceTimeline *dev);

/* @total spread over the steady steps (or the whole window when none). */
gint64 pfprof_rule_per_step (const PfprofRuleContext *ctx, gint64 total);

/* @ns as a percentage of the steady window's length. */
double pfprof_rule_share (const PfprofRuleContext *ctx, gint64 ns);

/* " ≥ 64.0 KiB": what a count of copies the rule's min-bytes filtered
 * says after its noun, so that it is not read as every copy the device
 * summary counts; "" when @min_bytes is 0. Free with g_free(). */
char *pfprof_rule_min_bytes_phrase (guint64 min_bytes);

/* Evidence for row @index of @table in the context's trace; its cost is
 * its span, end - start (set cost_ns after for another measure). */
PfprofEvidence pfprof_rule_evidence (const PfprofRuleContext *ctx, PfprofTableId table, guint index,
                                     gint64 start, gint64 end, guint32 device_id,
                                     guint32 stream_id, guint32 tid);

/* Offers the copies at @hits (guint indexes into the trace's memcpy
 * table) as @finding's evidence: the PFPROF_RULE_MAX_EVIDENCE longest are
 * kept, longest first. */
void pfprof_rule_add_memcpy_evidence (const PfprofRuleContext *ctx, PfprofFinding *finding,
                                      const GArray *hits);

/* How many pieces of evidence rules keep per finding. */
#define PFPROF_RULE_MAX_EVIDENCE 8

G_END_DECLS
