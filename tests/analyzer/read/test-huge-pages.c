/* SPDX-License-Identifier: MIT */
/* test-huge-pages.c: large arrays keep their contents and room, and ask
 * the kernel for huge pages (the VmFlags "hg" of their mapping). */
#include "pfprof-huge-pages.h"

#include <stdio.h>
#include <string.h>

/* Whether the mapping holding @p carries the "hg" flag (MADV_HUGEPAGE),
 * from /proc/self/smaps; -1 when that cannot be read. */
static int
advised (gconstpointer p)
{
  g_autofree char *smaps = NULL;
  g_auto (GStrv) lines = NULL;
  gboolean inside = FALSE;

  if (!g_file_get_contents ("/proc/self/smaps", &smaps, NULL, NULL))
    return -1;
  lines = g_strsplit (smaps, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      unsigned long lo, hi;

      /* A mapping's first line: "lo-hi perms offset dev inode path". */
      if (sscanf (lines[i], "%lx-%lx ", &lo, &hi) == 2)
        inside = (guintptr) p >= lo && (guintptr) p < hi;
      else if (inside && g_str_has_prefix (lines[i], "VmFlags:"))
        return strstr (lines[i], " hg") != NULL;
    }
  return -1;
}

static void
test_sized (void)
{
  const guint n = 3u << 20; /* 12 MiB of guint */
  g_autoptr (GArray) a = pfprof_huge_array_sized_new (sizeof (guint), n);
  gconstpointer data = a->data;
  int hg;

  g_assert_cmpuint (a->len, ==, 0);
  for (guint i = 0; i < n; i++)
    g_array_append_val (a, i);
  /* The room was there: filling it moved nothing. */
  g_assert_true (a->data == data);
  g_assert_cmpuint (g_array_index (a, guint, n - 1), ==, n - 1);
  hg = advised (a->data + (gsize) n * sizeof (guint) / 2);
  if (hg < 0)
    g_test_skip ("/proc/self/smaps has no VmFlags here");
  else
    g_assert_cmpint (hg, ==, 1);
}

static void
test_reserve (void)
{
  g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (gint64));
  const guint n = 1u << 20; /* 8 MiB more */
  gconstpointer data;

  for (gint64 i = 0; i < 1000; i++)
    g_array_append_val (a, i);
  pfprof_huge_array_reserve (a, n);
  g_assert_cmpuint (a->len, ==, 1000);
  g_assert_cmpint (g_array_index (a, gint64, 999), ==, 999);
  data = a->data;
  for (gint64 i = 1000; i < 1000 + (gint64) n; i++)
    g_array_append_val (a, i);
  g_assert_true (a->data == data);
  g_assert_cmpint (g_array_index (a, gint64, 1000 + n - 1), ==, 1000 + (gint64) n - 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/huge-pages/sized", test_sized);
  g_test_add_func ("/huge-pages/reserve", test_reserve);
  return g_test_run ();
}
