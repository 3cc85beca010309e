/* SPDX-License-Identifier: MIT */
/* pfprof-hash.c: the hash of 64-bit keys (pfprof-hash.h). */
#include "pfprof-hash.h"

guint
pfprof_hash_u64 (guint64 v)
{
  /* splitmix64's finalizer: each input bit flips about half the output
   * bits, the high half's as much as the low half's. */
  v ^= v >> 30;
  v *= G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  v ^= v >> 27;
  v *= G_GUINT64_CONSTANT (0x94d049bb133111eb);
  v ^= v >> 31;
  return (guint) (v ^ (v >> 32));
}

guint
pfprof_hash_int64 (gconstpointer v)
{
  g_return_val_if_fail (v != NULL, 0);
  return pfprof_hash_u64 (*(const guint64 *) v);
}
