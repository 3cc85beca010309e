/* SPDX-License-Identifier: MIT */
/* pfprof-report-junit.c: one JUnit test case per rule that ran.
 *
 * A case fails when its rule fired at or above the gate (--fail-on,
 * warning when none was given), so CI systems that read JUnit show which
 * input-pipeline check broke. Findings below the gate are reported in
 * <system-out> of a passing case. A case's time is the time its rule's
 * findings affected (time_ns, in seconds), so a CI page that sorts cases
 * by time puts the costliest check first.
 */
#include "pfprof-format.h"
#include "pfprof-report.h"
#include "pfprof-rules.h"

#include <string.h>

static void
xml (GString *out, const char *s)
{
  pfprof_escape_xml (out, s);
}

/* @apart: a finding of phase_findings, tagged with its phase and saving
 * per mean evaluation batch. */
static void
finding_text (GString *body, const PfprofAnalysis *a, const PfprofFinding *f, gboolean apart)
{
  g_autofree char *s_save = apart ? pfprof_report_phase_saving (a, f) : pfprof_report_saving (f);

  /* The saving in the words of the other formats, which say its basis. */
  s_save[0] = g_ascii_toupper (s_save[0]);
  if (apart)
    g_string_append_printf (body, "[%s] ", pfprof_loop_judge_to_string (f->phase));
  g_string_append_printf (body, "[%s] %s\n%s\n%s\n",
                          pfprof_severity_to_string (f->severity), f->title, f->message, s_save);
  if (f->evidence && f->evidence->len > 0)
    g_string_append_printf (body, "%s:\n", PFPROF_EVIDENCE_HEADING);
  for (guint e = 0; f->evidence && e < f->evidence->len; e++)
    {
      const PfprofEvidence *ev = &g_array_index (f->evidence, PfprofEvidence, e);
      g_autofree char *what = pfprof_evidence_describe (a, ev);
      g_autofree char *share = pfprof_evidence_format_share (f, ev);

      if (share != NULL)
        g_string_append_printf (body, "  - %s (%s)\n", what, share);
      else
        g_string_append_printf (body, "  - %s\n", what);
    }
  g_string_append_printf (body, "Fix:\n%s\n", f->fix);
}

void
pfprof_report_junit (const PfprofAnalysis *a, const PfprofReportOptions *o, GString *out)
{
  g_return_if_fail (a != NULL);
  g_return_if_fail (o != NULL);
  g_return_if_fail (out != NULL);

  PfprofSeverity gate = o->has_fail_on ? o->fail_on : PFPROF_SEVERITY_WARNING;
  guint failures = 0;
  gint64 total_ns = 0;
  g_autofree char *total = NULL;

  for (guint r = 0; r < a->rules_run->len; r++)
    {
      g_autoptr (GPtrArray) fs = pfprof_analysis_findings_of (a, g_ptr_array_index (a->rules_run, r));

      gboolean failed = FALSE;

      for (guint i = 0; i < fs->len; i++)
        {
          const PfprofFinding *f = g_ptr_array_index (fs, i);

          failed |= f->severity >= gate;
          total_ns += MAX (f->time_ns, 0);
        }
      failures += failed;
    }
  total = pfprof_format_double ((double) total_ns / 1e9, 6);
  g_string_append (out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  g_string_append_printf (out, "<testsuites name=\"pfprof\" tests=\"%u\" failures=\"%u\" errors=\"0\">\n",
                          a->rules_run->len, failures);
  g_string_append_printf (out, "  <testsuite name=\"pfprof.input-pipeline\" tests=\"%u\" failures=\"%u\" "
                               "errors=\"0\" skipped=\"0\" time=\"%s\">\n",
                          a->rules_run->len, failures, total);
  g_string_append (out, "    <properties>\n");
  for (guint i = 0; i < a->traces->len; i++)
    {
      const PfprofTrace *t = g_ptr_array_index (a->traces, i);

      g_string_append (out, "      <property name=\"trace\" value=\"");
      xml (out, t->path ? t->path : "");
      g_string_append (out, "\"/>\n");
    }
  g_string_append_printf (out, "      <property name=\"gate\" value=\"%s\"/>\n",
                          pfprof_severity_to_string (gate));
  g_string_append (out, "    </properties>\n");
  for (guint r = 0; r < a->rules_run->len; r++)
    {
      const char *id = g_ptr_array_index (a->rules_run, r);
      const PfprofRule *rule = pfprof_rules_lookup (id);
      g_autoptr (GPtrArray) fs = pfprof_analysis_findings_of (a, id);
      g_autoptr (GString) body = g_string_new (NULL);
      g_autoptr (GString) apart = g_string_new (NULL);
      const PfprofFinding *worst = NULL;
      g_autofree char *time = NULL;
      gint64 time_ns = 0;

      for (guint i = 0; i < fs->len; i++)
        {
          const PfprofFinding *f = g_ptr_array_index (fs, i);

          finding_text (body, a, f, FALSE);
          time_ns += MAX (f->time_ns, 0);
          if (worst == NULL || f->severity > worst->severity)
            worst = f;
        }
      /* An evaluation phase judged on its own: its findings are told,
       * never a failure, as the gate is the training findings'. */
      for (guint i = 0; a->phase_findings != NULL && i < a->phase_findings->len; i++)
        {
          const PfprofFinding *f = g_ptr_array_index (a->phase_findings, i);

          if (g_str_equal (f->rule, id))
            finding_text (apart, a, f, TRUE);
        }
      time = pfprof_format_double ((double) time_ns / 1e9, 6);
      g_string_append_printf (out, "    <testcase classname=\"pfprof.rules\" name=\"%s\" time=\"%s\">\n", id,
                              time);
      if (worst != NULL && worst->severity >= gate)
        {
          g_string_append_printf (out, "      <failure type=\"%s\" message=\"",
                                  pfprof_severity_to_string (worst->severity));
          xml (out, worst->title);
          g_string_append (out, "\">");
          xml (out, body->str);
          g_string_append (out, "</failure>\n");
          if (apart->len > 0)
            {
              g_string_append (out, "      <system-out>");
              xml (out, apart->str);
              g_string_append (out, "</system-out>\n");
            }
        }
      else if (worst != NULL)
        {
          g_string_append (out, "      <system-out>");
          xml (out, body->str);
          xml (out, apart->str);
          g_string_append (out, "</system-out>\n");
        }
      else if (rule != NULL)
        {
          g_string_append (out, "      <system-out>");
          xml (out, rule->summary);
          g_string_append (out, apart->len > 0 ? ": not found in the training steps.\n" : ": not found.");
          xml (out, apart->str);
          g_string_append (out, "</system-out>\n");
        }
      g_string_append (out, "    </testcase>\n");
    }
  g_string_append (out, "  </testsuite>\n</testsuites>\n");
}
