/* SPDX-License-Identifier: MIT */
/* pfprof-record.h: the parts of `pfprof record` (cli/pfprof-cmd-record.c)
 * that live in their own files. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The GResource path of the Python start-up hook (cli/pfprof_sitecustomize.py,
 * compiled into the binary), which the launcher writes as sitecustomize.py
 * into a private folder put first on PYTHONPATH. */
#define PFPROF_RECORD_HOOK_RESOURCE "/org/pfprof/cli/pfprof_sitecustomize.py"
/* What the hook records inside the DataLoader, written next to it. */
#define PFPROF_RECORD_WORKERS_RESOURCE "/org/pfprof/cli/pfprof_workers.py"

/* What one traced process reported through its status file. */
typedef struct
{
  long pid;
  char *trace;   /* path written, NULL if none */
  char *state;   /* "tracing" (died before finishing), "complete", "failed" */
  char *error;   /* the collector's one-line reason, or NULL */
  guint64 records;
  guint64 dropped;
  guint64 invalid;
  gint64 capture_ranges; /* ranges of --capture-range recorded, -1 without it */
} PfprofRecordStatus;

void pfprof_record_status_free (PfprofRecordStatus *status);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PfprofRecordStatus, pfprof_record_status_free)

/* Reads every PID.status file in @dir, ordered by pid. Returns a
 * GPtrArray of PfprofRecordStatus (never NULL). */
GPtrArray *pfprof_record_status_read_dir (const char *dir);

/* Prints the traces written, their event counts per table and dropped
 * records, to stderr. Returns the number of readable traces. */
guint pfprof_record_summary_print (GPtrArray *statuses);

G_END_DECLS
