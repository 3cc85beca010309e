/* SPDX-License-Identifier: MIT */
/* pfprof-kind-names.h: the words for trace/'s enum values.
 *
 * Copy and memory kinds are stored as CUPTI numbers
 * (pfprof-trace-schema.h); every place that shows one to a person or
 * writes it into an export takes its name from here, so the evidence
 * text, the Chrome export and the GUI's details say the same thing. The
 * names are those of docs/trace-format.md ("Copy kinds", "Memory kinds").
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* "HtoD", "DtoH", "HtoA", ..., "PtoP" for a PfprofCopyKind (CUPTI's
 * CUpti_ActivityMemcpyKind); "unknown" for 0 and values CUPTI 13.0 does
 * not define. Never NULL. */
const char *pfprof_kind_names_copy (guint kind);

/* "pageable", "pinned", "device", "array", "managed", "device-static",
 * "managed-static" for a PfprofMemoryKind; "unknown" for 0 and values
 * CUPTI 13.0 does not define. Never NULL. */
const char *pfprof_kind_names_memory (guint kind);

G_END_DECLS
