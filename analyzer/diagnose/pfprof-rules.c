/* SPDX-License-Identifier: MIT */
/* pfprof-rules.c: the rule table.
 *
 * How to add a rule: see the recipe at the top of pfprof-rules.h (one file
 * in analyzer/diagnose/rules/, one line in the table below, docs, three tests).
 * The table order is the order of `--list-rules`, of JUnit test cases and
 * the tie-break when two findings promise the same savings.
 */
#include "pfprof-rules.h"

#include <string.h>
#include "pfprof-format.h"

static const PfprofRule *const rule_table[] = {
  &pfprof_rule_input_starved,
  &pfprof_rule_pageable_transfer,
  &pfprof_rule_serialized_copy,
  &pfprof_rule_record_stream_stall,
  &pfprof_rule_late_prefetch,
  &pfprof_rule_sync_in_loop,
  &pfprof_rule_small_transfers,
  &pfprof_rule_pinned_alloc_in_loop,
  &pfprof_rule_host_bound,
  &pfprof_rule_rank_imbalance,
};

const PfprofRule *const *
pfprof_rules_get (guint *n_rules)
{
  g_return_val_if_fail (n_rules != NULL, NULL);
  *n_rules = G_N_ELEMENTS (rule_table);
  return rule_table;
}

const PfprofRule *
pfprof_rules_lookup (const char *id)
{
  for (guint i = 0; id != NULL && i < G_N_ELEMENTS (rule_table); i++)
    if (strcmp (rule_table[i]->id, id) == 0)
      return rule_table[i];
  return NULL;
}
