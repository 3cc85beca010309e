/* SPDX-License-Identifier: MIT */
/* pfprof-hash.h: the hash of 64-bit keys.
 *
 * GLib's g_int64_hash folds a key to its low 32 bits, and g_direct_hash
 * of a pointer-sized key does the same, so keys packed as
 * (high << 32 | low) (device and stream, process and thread, the ids of
 * another tool's tables) that differ only in their high half all land in
 * one bucket, and a table of n of them costs n² probes. Every GHashTable
 * keyed by a 64-bit value hashes it here: all 64 bits mixed (the
 * finalizer of splitmix64), so a trace cannot choose keys that collide.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* @v with every bit mixed into the 32 bits returned. */
guint pfprof_hash_u64 (guint64 v);

/* A GHashFunc over a pointer to a gint64 or guint64 key; the
 * GEqualFunc that goes with it is g_int64_equal. */
guint pfprof_hash_int64 (gconstpointer v);

G_END_DECLS
