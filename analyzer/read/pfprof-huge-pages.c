/* SPDX-License-Identifier: MIT */
/* pfprof-huge-pages.c: see pfprof-huge-pages.h. */
#include "pfprof-huge-pages.h"

#include <sys/mman.h>
#include <unistd.h>

void
pfprof_huge_pages_advise (gpointer mem, gsize len)
{
  g_return_if_fail (mem != NULL || len == 0);

#ifdef MADV_HUGEPAGE
  if (len >= (4u << 20))
    {
      guintptr page = (guintptr) sysconf (_SC_PAGESIZE);
      guintptr start = ((guintptr) mem + page - 1) & ~(page - 1);
      guintptr end = ((guintptr) mem + len) & ~(page - 1);

      /* Advice only: on failure the pages are small, nothing else. */
      if (end > start)
        (void) madvise ((void *) start, end - start, MADV_HUGEPAGE);
    }
#endif
}

GArray *
pfprof_huge_array_sized_new (guint element_size, guint n)
{
  GArray *a;

  g_return_val_if_fail (element_size > 0, NULL);
  a = g_array_sized_new (FALSE, FALSE, element_size, n);
  pfprof_huge_pages_advise (a->data, (gsize) n * element_size);
  return a;
}

void
pfprof_huge_array_reserve (GArray *array, guint n)
{
  guint len, elt;

  g_return_if_fail (array != NULL);
  len = array->len;
  elt = g_array_get_element_size (array);
  g_return_if_fail (n <= G_MAXUINT - len);
  g_array_set_size (array, len + n);
  g_array_set_size (array, len);
  pfprof_huge_pages_advise (array->data + (gsize) len * elt, (gsize) n * elt);
}
