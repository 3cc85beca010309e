/* SPDX-License-Identifier: MIT */
/* pfprof-cli-template.h: %r, %h and %p in the paths `pfprof report` takes.
 *
 * Inside a launcher job every rank runs the same command line, so
 * `srun pfprof report --format json -o rank-%r.json run-%h-%r.pfprof`
 * must name a different file on each rank, as `pfprof record -o` does.
 */
#pragma once

#include <glib.h>

#include "pfprof-analysis.h"

G_BEGIN_DECLS

/* This process's rank from the launcher's environment: RANK (torchrun),
 * else SLURM_PROCID (srun), OMPI_COMM_WORLD_RANK (Open MPI), PMI_RANK
 * (MPICH, Intel MPI). -1 when none is set to a number. */
gint64 pfprof_cli_template_env_rank (void);

/* Expands @template: %r the rank, %h the host name, %p the pid, %% a '%'.
 * Each value is made one safe file-name part: '/', '\\' and control
 * characters become '_', invalid UTF-8 is replaced, it is cut at 64 bytes,
 * and an empty value, "." or ".." is prefixed with "unknown", so that a
 * trace's host name never points outside the folder the template names. With @analysis (non-NULL) they come from its
 * traces' metadata when every ranked trace agrees (the trace was
 * recorded on that rank and host), else from the environment above, this
 * host and this process. NULL with @error for another %-sequence, or %r
 * with no rank to put there. */
char *pfprof_cli_template_expand (const char *template,
                                  const PfprofAnalysis *analysis /* nullable */, GError **error);

G_END_DECLS
