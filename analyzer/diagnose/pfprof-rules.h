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
 *      borderline test to tests/analyzer/diagnose/.
 */
#pragma once

#include <glib.h>

#include "pfprof-rule.h"

G_BEGIN_DECLS

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
const PfprofRule *pfprof_rules_lookup (const char *id /* nullable */);

G_END_DECLS
