/* SPDX-License-Identifier: MIT */
/* pfprof-record-summary.c: what `pfprof record` says after the program
 * ends: which processes were traced, into which files, with how many
 * events of each kind, and how many records were dropped.
 *
 * Each traced process appends KEY=VALUE lines to STATUS_DIR/PID.status
 * (collector/pfprof-collector.c); the last value of a key wins, so a
 * process killed mid-run is left at state=tracing.
 */
#include "pfprof-record.h"

#include <stdio.h>
#include <stdlib.h>

#include "pfprof-trace-reader.h"
#include "pfprof-trace-schema.h"

void
pfprof_record_status_free (PfprofRecordStatus *status)
{
  if (status == NULL)
    return;
  g_free (status->trace);
  g_free (status->state);
  g_free (status->error);
  g_free (status);
}

static PfprofRecordStatus *
status_parse (const char *path)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  PfprofRecordStatus *s;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  s = g_new0 (PfprofRecordStatus, 1);
  s->capture_ranges = -1;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *eq = strchr (lines[i], '=');
      const char *value;

      if (eq == NULL)
        continue;
      *eq = '\0';
      value = eq + 1;
      if (g_str_equal (lines[i], "pid"))
        s->pid = strtol (value, NULL, 10);
      else if (g_str_equal (lines[i], "trace"))
        g_free (s->trace), s->trace = g_strdup (value);
      else if (g_str_equal (lines[i], "state"))
        g_free (s->state), s->state = g_strdup (value);
      else if (g_str_equal (lines[i], "error"))
        g_free (s->error), s->error = g_strdup (value);
      else if (g_str_equal (lines[i], "records"))
        s->records = g_ascii_strtoull (value, NULL, 10);
      else if (g_str_equal (lines[i], "dropped"))
        s->dropped = g_ascii_strtoull (value, NULL, 10);
      else if (g_str_equal (lines[i], "invalid"))
        s->invalid = g_ascii_strtoull (value, NULL, 10);
      else if (g_str_equal (lines[i], "capture_ranges"))
        s->capture_ranges = (gint64) g_ascii_strtoull (value, NULL, 10);
    }
  if (s->state == NULL)
    s->state = g_strdup ("starting");
  return s;
}

static int
compare_pid (gconstpointer a, gconstpointer b)
{
  const PfprofRecordStatus *x = *(PfprofRecordStatus *const *) a;
  const PfprofRecordStatus *y = *(PfprofRecordStatus *const *) b;

  return (x->pid > y->pid) - (x->pid < y->pid);
}

GPtrArray *
pfprof_record_status_read_dir (const char *dir)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_record_status_free);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return out;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = NULL;
      PfprofRecordStatus *s;

      if (!g_str_has_suffix (name, ".status"))
        continue;
      path = g_build_filename (dir, name, NULL);
      if ((s = status_parse (path)) != NULL)
        g_ptr_array_add (out, s);
    }
  g_ptr_array_sort (out, compare_pid);
  return out;
}

/* "kernels 1234, memcpys 56, ..." for the non-empty tables, and the
 * total; FALSE when the file cannot be read as a trace. Read as every
 * command reads traces, so an unfinished (WAL) trace in a read-only
 * folder is counted, and nothing is created beside it. */
static gboolean
count_events (const char *path, GString *out, guint64 *total)
{
  guint64 counts[PFPROF_N_TABLES];

  *total = 0;
  if (!pfprof_trace_reader_count (path, counts, NULL))
    return FALSE;
  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    {
      *total += counts[t];
      if (counts[t] > 0)
        g_string_append_printf (out, "%s%s %" G_GUINT64_FORMAT, out->len ? ", " : "",
                                pfprof_trace_schema_table ((PfprofTableId) t)->name, counts[t]);
    }
  return TRUE;
}

guint
pfprof_record_summary_print (GPtrArray *statuses)
{
  guint readable = 0;

  g_return_val_if_fail (statuses != NULL, 0);

  for (guint i = 0; i < statuses->len; i++)
    {
      PfprofRecordStatus *s = g_ptr_array_index (statuses, i);
      g_autoptr (GString) counts = g_string_new (NULL);
      guint64 total = 0;

      if (g_str_equal (s->state, "empty"))
        {
          fprintf (stderr, "pfprof: process %ld: initialized CUDA but ran nothing on the GPU; no trace kept\n",
                   s->pid);
          continue;
        }
      if (g_str_equal (s->state, "failed") || s->trace == NULL)
        {
          fprintf (stderr, "pfprof: process %ld: not traced: %s\n", s->pid,
                   s->error ? s->error : "the collector stopped before creating a trace");
          continue;
        }
      if (!count_events (s->trace, counts, &total))
        {
          fprintf (stderr, "pfprof: process %ld: %s cannot be read\n", s->pid, s->trace);
          continue;
        }
      readable++;
      fprintf (stderr, "pfprof: process %ld: wrote %s%s\n", s->pid, s->trace,
               g_str_equal (s->state, "complete") ? ""
                                                  : " (incomplete: the process ended before the collector "
                                                    "finished; what was committed is readable)");
      fprintf (stderr, "pfprof:   %" G_GUINT64_FORMAT " events%s%s%s\n", total, counts->len ? " (" : "",
               counts->str, counts->len ? ")" : "");
      if (s->dropped > 0)
        fprintf (stderr, "pfprof:   WARNING: CUPTI dropped %" G_GUINT64_FORMAT " records (buffers full)\n",
                 s->dropped);
      if (s->invalid > 0)
        fprintf (stderr, "pfprof:   %" G_GUINT64_FORMAT " records with missing timestamps were skipped\n",
                 s->invalid);
      if (s->capture_ranges == 0)
        fprintf (stderr, "pfprof:   nothing recorded: the process never called cudaProfilerStart() "
                         "(--capture-range=cuda-profiler-api)\n");
    }
  return readable;
}
