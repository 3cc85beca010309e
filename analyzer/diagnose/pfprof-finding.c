/* SPDX-License-Identifier: MIT */
/* pfprof-finding.c: findings, their severity and their evidence
 * (pfprof-finding.h). */
#include "pfprof-finding.h"

#include <string.h>

static const char *const severity_names[] = { "info", "warning", "error" };

const char *
pfprof_severity_to_string (PfprofSeverity severity)
{
  if ((guint) severity < G_N_ELEMENTS (severity_names))
    return severity_names[severity];
  return "unknown";
}

gboolean
pfprof_severity_from_string (const char *s, PfprofSeverity *out)
{
  g_return_val_if_fail (out != NULL, FALSE);
  for (guint i = 0; s != NULL && i < G_N_ELEMENTS (severity_names); i++)
    if (g_ascii_strcasecmp (s, severity_names[i]) == 0)
      {
        *out = (PfprofSeverity) i;
        return TRUE;
      }
  return FALSE;
}

void
pfprof_finding_free (PfprofFinding *f)
{
  if (f == NULL)
    return;
  g_free (f->title);
  g_free (f->message);
  g_free (f->fix);
  if (f->evidence)
    g_array_unref (f->evidence);
  if (f->evidence_keys)
    g_array_unref (f->evidence_keys);
  if (f->sites)
    g_array_unref (f->sites);
  if (f->occurrences)
    g_array_unref (f->occurrences);
  pfprof_input_pipeline_free (f->pipeline);
  g_free (f);
}

/* TRUE when @a goes before @b: costlier, or as costly and earlier. */
static gboolean
evidence_before (const PfprofEvidence *a, const PfprofEvidence *b)
{
  if (a->cost_ns != b->cost_ns)
    return a->cost_ns > b->cost_ns;
  return a->start_ns < b->start_ns;
}

void
pfprof_finding_add_occurrence (PfprofFinding *f, const PfprofEvidence *e)
{
  g_return_if_fail (f != NULL);
  g_return_if_fail (e != NULL);
  if (f->occurrences != NULL)
    g_array_append_val (f->occurrences, *e);
}

void
pfprof_finding_add_evidence (PfprofFinding *f, const PfprofEvidence *e, guint max)
{
  guint pos;

  g_return_if_fail (f != NULL);
  g_return_if_fail (e != NULL);
  f->first_ns = MIN (f->first_ns, e->start_ns);
  f->last_ns = MAX (f->last_ns, e->end_ns);
  pfprof_finding_add_occurrence (f, e);
  /* Every piece, for the call sites (pfprof-call-sites.h). */
  if (f->evidence_keys != NULL)
    {
      guint64 key = (guint64) e->table << 32 | e->index;

      g_array_append_val (f->evidence_keys, key);
    }
  if (max == 0)
    return;
  /* The array stays sorted, costliest first: insert in place, drop the
   * cheapest past @max (a handful: a linear scan is enough). */
  if (f->evidence->len >= max
      && !evidence_before (e, &g_array_index (f->evidence, PfprofEvidence, f->evidence->len - 1)))
    return;
  for (pos = 0; pos < f->evidence->len; pos++)
    if (evidence_before (e, &g_array_index (f->evidence, PfprofEvidence, pos)))
      break;
  g_array_insert_val (f->evidence, pos, *e);
  if (f->evidence->len > max)
    g_array_set_size (f->evidence, max);
}
