/* SPDX-License-Identifier: MIT */
/* pfprof-huge-pages.h: large arrays backed by transparent huge pages.
 *
 * A trace of ten million events fills half a gigabyte of fresh memory,
 * and every fresh page costs a fault in which the kernel zeroes it; on
 * a virtual machine a fault costs several microseconds, so the faults of
 * 4 KiB pages were a third of a report's time. Debian's kernel gives
 * transparent huge pages (2 MiB, one fault each) only to memory that
 * asks for them with madvise(MADV_HUGEPAGE), which glibc's malloc never
 * does by itself: the arrays that grow to megabytes ask here, before
 * anything touches them. Advice only: where it is refused the pages are
 * small, and nothing else changes.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Asks for huge pages over the whole pages inside [@mem, @mem + @len)
 * when @len is at least 4 MiB; does nothing for smaller ranges, whose
 * rounding up to 2 MiB would cost more memory than the faults cost time.
 * @mem may be NULL when @len is 0. */
void pfprof_huge_pages_advise (gpointer mem, gsize len);

/* A GArray of elements of @element_size with room for @n of them
 * (length 0, not cleared), advised as above: for arrays whose final
 * length is known, or bounded, before they are filled. */
GArray *pfprof_huge_array_sized_new (guint element_size, guint n);

/* Makes room in @array for @n more elements at once, and advises the
 * room as above. @array must be one made without `clear`, whose new
 * elements would otherwise be zeroed here, touching every page before
 * the advice. */
void pfprof_huge_array_reserve (GArray *array, guint n);

G_END_DECLS
