/* SPDX-License-Identifier: MIT */
/* test-hash.c: 64-bit keys that differ only in their high half, or only
 * in their low half, spread over a table's buckets
 * (analyzer/base/pfprof-hash.h). */
#include "pfprof-hash.h"

/* Buckets of a table of @mod slots (a prime, as GLib's table sizes are)
 * that @n keys key(i) land in. */
static guint
buckets_used (guint64 (*key) (guint i), guint n, guint mod)
{
  g_autofree guint8 *used = g_new0 (guint8, mod);
  guint count = 0;

  for (guint i = 0; i < n; i++)
    {
      guint64 k = key (i);
      guint b = pfprof_hash_int64 (&k) % mod;

      count += used[b] == 0;
      used[b] = 1;
    }
  return count;
}

static guint64 high_only (guint i) { return (guint64) (i + 1) << 32; }
static guint64 low_only (guint i) { return i + 1; }
/* A process/thread pair of one thread id, as a trace packs it. */
static guint64 pid_tid (guint i) { return ((guint64) (1000 + i) << 32) | 7; }
/* nsys StringIds ids spaced by 2^40. */
static guint64 sparse (guint i) { return (guint64) i << 40; }

static void
test_spread (void)
{
  guint64 (*keys[]) (guint) = { high_only, low_only, pid_tid, sparse };

  /* 65,536 keys over 8,191 buckets: a uniform hash fills all but about
   * 8191·e⁻⁸ ≈ 3 of them; a hash of the low 32 bits puts every high-only
   * key in bucket 0. */
  for (gsize k = 0; k < G_N_ELEMENTS (keys); k++)
    g_assert_cmpuint (buckets_used (keys[k], 65536, 8191), >=, 8100);
}

static void
test_high_half (void)
{
  /* Keys that differ only above bit 31 hash differently, pairwise over
   * every single-bit difference there. */
  for (guint bit = 32; bit < 64; bit++)
    {
      guint64 a = G_GUINT64_CONSTANT (0x12345678), b = a | ((guint64) 1 << bit);

      g_assert_cmpuint (pfprof_hash_int64 (&a), !=, pfprof_hash_int64 (&b));
    }
}

static void
test_table (void)
{
  /* A GHashTable over 200,000 high-only keys finds each; with a hash of
   * the low half this is 2·10¹⁰ probes, which this test would not finish. */
  g_autoptr (GHashTable) h = g_hash_table_new_full (pfprof_hash_int64, g_int64_equal, g_free, NULL);

  for (guint i = 0; i < 200000; i++)
    {
      guint64 k = high_only (i);

      g_hash_table_insert (h, g_memdup2 (&k, sizeof k), GUINT_TO_POINTER (i + 1));
    }
  for (guint i = 0; i < 200000; i += 997)
    {
      guint64 k = high_only (i);

      g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (h, &k)), ==, i + 1);
    }
  g_assert_cmpuint (g_hash_table_size (h), ==, 200000);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hash/spread", test_spread);
  g_test_add_func ("/hash/high-half", test_high_half);
  g_test_add_func ("/hash/table", test_table);
  return g_test_run ();
}
