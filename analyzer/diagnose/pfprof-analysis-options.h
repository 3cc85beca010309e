/* SPDX-License-Identifier: MIT */
/* pfprof-analysis-options.h: what the user can change about an analysis.
 *
 * Options come from `pfprof report --config FILE` (a GKeyFile, keys listed
 * in docs/report-format.md), `--rules` and `--step-pattern`:
 *
 *   [analysis]
 *   step-pattern=^(train_)?step     # NVTX range names that delimit steps
 *   warmup-steps=auto               # or a number of leading steps
 *   min-saving-share=0.01           # findings saving less of the mean step are info
 *   min-phase-share=0.2             # evaluation this share of the run: judged too
 *
 *   [rules]
 *   select=pageable-transfer,input-starved   # same as --rules
 *
 *   [pageable-transfer]               # one group per rule id
 *   enabled=true
 *   severity=error
 *   min-bytes=1048576                 # a threshold the rule declares
 *
 * Unknown groups, keys, rule ids and malformed values are errors, so a
 * typo in a CI config is not silently ignored.
 */
#pragma once

#include <glib.h>

#include "pfprof-loop.h"

#include "pfprof-analysis.h"
#include "pfprof-source-lines.h"

G_BEGIN_DECLS

#define PFPROF_ANALYSIS_ERROR (pfprof_analysis_error_quark ())

typedef enum
{
  PFPROF_ANALYSIS_ERROR_INVALID_OPTION, /* bad key, value, rule id or regex */
  PFPROF_ANALYSIS_ERROR_CONFIG_FILE,    /* the config file cannot be read or parsed */
} PfprofAnalysisError;

GQuark pfprof_analysis_error_quark (void);

typedef struct _PfprofRule PfprofRule;

PfprofAnalysisOptions *pfprof_analysis_options_new (void);

void pfprof_analysis_options_free (PfprofAnalysisOptions *options);

/* Reads a config file (format above). */
gboolean pfprof_analysis_options_load_file (PfprofAnalysisOptions *options, const char *path,
                                            GError **error);

/* Same from memory (tests). */
gboolean pfprof_analysis_options_load_data (PfprofAnalysisOptions *options, const char *data,
                                            GError **error);

/* Enables only the rules in @list ("a,b,c"); an id prefixed with '-'
 * disables that rule and keeps the others. */
gboolean pfprof_analysis_options_select_rules (PfprofAnalysisOptions *options, const char *list,
                                               GError **error);

/* Sets the NVTX step pattern (checked as a regular expression). */
gboolean pfprof_analysis_options_set_step_pattern (PfprofAnalysisOptions *options,
                                                   const char *pattern, GError **error);

/* Sets threshold @key of rule @rule_id. */
gboolean pfprof_analysis_options_set_param (PfprofAnalysisOptions *options, const char *rule_id,
                                            const char *key, double value, GError **error);

/* The step pattern in effect. @options may be NULL, here and in the
 * getters below: the defaults. */
const char *pfprof_analysis_options_get_step_pattern (const PfprofAnalysisOptions *options);

/* Leading steps to treat as warm-up, or -1 to detect them. @options may
 * be NULL. */
int pfprof_analysis_options_get_warmup_steps (const PfprofAnalysisOptions *options);

/* The phase whose steps every figure is over (pfprof-loop.h): by default
 * the training steps; `--phase eval|all`. */
void pfprof_analysis_options_set_judge (PfprofAnalysisOptions *options, PfprofLoopJudge judge);
PfprofLoopJudge pfprof_analysis_options_get_judge (const PfprofAnalysisOptions *options /* nullable */);

/* Findings that save less than this share of the mean step are info
 * (default 0.01). @options may be NULL. */
double pfprof_analysis_options_get_min_saving_share (const PfprofAnalysisOptions *options);

/* With the training steps judged, a trace whose evaluation batches take
 * at least this share of its run has them judged too, their findings
 * apart (PfprofAnalysis.phase_findings); default
 * PFPROF_DEFAULT_MIN_PHASE_SHARE. @options may be NULL. */
#define PFPROF_DEFAULT_MIN_PHASE_SHARE 0.2
double pfprof_analysis_options_get_min_phase_share (const PfprofAnalysisOptions *options);

/* Whether findings keep every occurrence (PfprofFinding.occurrences), not
 * only the costliest few of PfprofFinding.evidence: what the GUI's
 * occurrence navigator steps through. Off by default: the reports show
 * the evidence alone, and a finding can have a million occurrences. */
void pfprof_analysis_options_set_keep_occurrences (PfprofAnalysisOptions *options, gboolean keep);

/* @options may be NULL. */
gboolean pfprof_analysis_options_get_keep_occurrences (const PfprofAnalysisOptions *options);

/* Which files the call sites' source text is read from
 * (pfprof-source-lines.h); PFPROF_SOURCE_LINES_AUTO by default. */
void pfprof_analysis_options_set_source_lines (PfprofAnalysisOptions *options,
                                               PfprofSourceLinesPolicy policy);
/* @options may be NULL. */
PfprofSourceLinesPolicy pfprof_analysis_options_get_source_lines (const PfprofAnalysisOptions *options);

/* Whether @rule runs. @options may be NULL. */
gboolean pfprof_analysis_options_rule_enabled (const PfprofAnalysisOptions *options,
                                               const PfprofRule *rule);

/* The severity @rule's findings get. @options may be NULL. */
PfprofSeverity pfprof_analysis_options_rule_severity (const PfprofAnalysisOptions *options,
                                                      const PfprofRule *rule);

/* TRUE when the config file set @rule's severity. @options may be NULL. */
gboolean pfprof_analysis_options_severity_is_set (const PfprofAnalysisOptions *options,
                                                  const PfprofRule *rule);

/* Threshold @key of @rule: configured or default. @options may be NULL. */
double pfprof_analysis_options_get_param (const PfprofAnalysisOptions *options,
                                          const PfprofRule *rule, const char *key);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PfprofAnalysisOptions, pfprof_analysis_options_free)

G_END_DECLS
