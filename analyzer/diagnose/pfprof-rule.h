/* SPDX-License-Identifier: MIT */
/* pfprof-rule.h: what a rule is (its id, severity, thresholds, scope and
 * run function) and what its run function works with: the context of one
 * call, its thresholds, new findings and their evidence, and the
 * per-step measures every rule states its findings in. The rules
 * themselves and their table: pfprof-rules.h. GLib only.
 */
#pragma once

#include <glib.h>

#include "pfprof-analysis.h"
#include "pfprof-analysis-options.h"
#include "pfprof-loop.h"
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
  PfprofLoop *loop;                     /* its loop: steps, phases, steady window;
                                         * NULL for the run */
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
 * device-scoped rule on trace @ix with its loop @loop (once, or once per device timeline of
 * it), a run-scoped rule on the run, with @ix NULL. Nothing is called
 * when @ix does not fit the scope (NULL for a trace rule, set for a run
 * rule). pfprof_analysis_run() calls every rule through it; the merge of
 * per-rank results (pfprof-report-merge.h) the run-scoped ones. */
void pfprof_rule_run (const PfprofRule *rule, PfprofAnalysis *analysis,
                      const PfprofAnalysisOptions *options /* nullable */,
                      PfprofTraceIndex *ix /* nullable */, PfprofLoop *loop /* nullable */);

/* Fraction of the trace's steady steps that contain at least one of the
 * @n times (sorted ascending); 1.0 when the trace has no steps and @n > 0,
 * 0.0 when @n is 0. Rules use it to tell a per-step pattern from a
 * one-off. */
double pfprof_rule_step_coverage (const PfprofRuleContext *ctx, const gint64 *times /* nullable */,
                                  guint n);

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

/* The mean step of the trace's steady steps, on their GPU side: the
 * ledger's, which savings and predictions are taken from (the steady
 * window over the steps where the trace has no ledger). */
gint64 pfprof_rule_mean_step (const PfprofRuleContext *ctx);

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
