/* SPDX-License-Identifier: MIT */
/* pfprof-kind-names.c: see the header. */
#include "pfprof-kind-names.h"

#include "pfprof-trace-schema.h"

/* Indexed by the CUPTI value; the values pfprof-trace-schema.h names are
 * set by their enum so that a renumbering there cannot go unnoticed. */
static const char *const copy_kinds[] = {
  [PFPROF_COPY_KIND_UNKNOWN] = "unknown",
  [PFPROF_COPY_KIND_HTOD] = "HtoD",
  [PFPROF_COPY_KIND_DTOH] = "DtoH",
  [3] = "HtoA",
  [4] = "AtoH",
  [5] = "AtoA",
  [6] = "AtoD",
  [7] = "DtoA",
  [PFPROF_COPY_KIND_DTOD] = "DtoD",
  [PFPROF_COPY_KIND_HTOH] = "HtoH",
  [PFPROF_COPY_KIND_PTOP] = "PtoP",
};

static const char *const memory_kinds[] = {
  [PFPROF_MEMORY_KIND_UNKNOWN] = "unknown",
  [PFPROF_MEMORY_KIND_PAGEABLE] = "pageable",
  [PFPROF_MEMORY_KIND_PINNED] = "pinned",
  [PFPROF_MEMORY_KIND_DEVICE] = "device",
  [PFPROF_MEMORY_KIND_ARRAY] = "array",
  [PFPROF_MEMORY_KIND_MANAGED] = "managed",
  [PFPROF_MEMORY_KIND_DEVICE_STATIC] = "device-static",
  [PFPROF_MEMORY_KIND_MANAGED_STATIC] = "managed-static",
};

const char *
pfprof_kind_names_copy (guint kind)
{
  return kind < G_N_ELEMENTS (copy_kinds) && copy_kinds[kind] != NULL ? copy_kinds[kind] : "unknown";
}

const char *
pfprof_kind_names_memory (guint kind)
{
  return kind < G_N_ELEMENTS (memory_kinds) && memory_kinds[kind] != NULL ? memory_kinds[kind]
                                                                          : "unknown";
}
