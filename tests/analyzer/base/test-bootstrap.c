/* SPDX-License-Identifier: MIT */
/* The bootstrap interval of a change between two runs' steps
 * (analyzer/base/pfprof-bootstrap.h), on planted samples: no change, a
 * clear shift, a shift lost in noise, a slow tail with the same median,
 * and the same interval every time. */
#include <glib.h>

#include "pfprof-bootstrap.h"

/* @n steps around @center_ns, spread evenly over ±@spread_pct percent
 * (a deterministic stand-in for noisy steps). */
static gint64 *
steps (guint n, gint64 center_ns, double spread_pct, guint phase)
{
  gint64 *v = g_new (gint64, n);

  for (guint i = 0; i < n; i++)
    {
      double u = (double) ((i * 37 + phase) % n) / (double) (n - 1) * 2.0 - 1.0;

      v[i] = center_ns + (gint64) ((double) center_ns * spread_pct / 100.0 * u);
    }
  return v;
}

static void
test_no_change (void)
{
  g_autofree gint64 *a = steps (200, 10000000, 20, 0);
  g_autofree gint64 *b = steps (200, 10000000, 20, 11);
  PfprofChange c;

  for (guint s = 0; s < 3; s++)
    {
      g_assert_true (pfprof_bootstrap_change (a, 200, b, 200, (PfprofStatistic) s, &c));
      g_assert_cmpfloat (c.low_pct, <, 0);
      g_assert_cmpfloat (c.high_pct, >, 0);
      g_assert_cmpfloat (c.low_pct, <=, c.change_pct);
      g_assert_cmpfloat (c.change_pct, <=, c.high_pct);
      g_assert_cmpuint (c.rounds, >=, 200);
    }
}

static void
test_clear_shift (void)
{
  g_autofree gint64 *a = steps (100, 10000000, 4, 0);
  g_autofree gint64 *b = steps (100, 11000000, 4, 5);
  PfprofChange c;

  g_assert_true (pfprof_bootstrap_change (a, 100, b, 100, PFPROF_STATISTIC_MEDIAN, &c));
  g_assert_cmpfloat_with_epsilon (c.change_pct, 10.0, 0.5);
  g_assert_cmpfloat (c.low_pct, >, 5);
  g_assert_cmpfloat (c.high_pct, <, 15);
  g_assert_true (pfprof_bootstrap_change (a, 100, b, 100, PFPROF_STATISTIC_MEAN, &c));
  g_assert_cmpfloat (c.low_pct, >, 5);
}

/* Eight steps each way, spread ±40%: a 6% shift of the median is within
 * what such steps do between two runs. */
static void
test_shift_in_noise (void)
{
  g_autofree gint64 *a = steps (8, 10000000, 40, 0);
  g_autofree gint64 *b = steps (8, 10600000, 40, 3);
  PfprofChange c;

  g_assert_true (pfprof_bootstrap_change (a, 8, b, 8, PFPROF_STATISTIC_MEDIAN, &c));
  g_assert_cmpfloat (c.change_pct, >, 3);
  g_assert_cmpfloat (c.low_pct, <, 0);
}

/* Same body, one step in five twice as long: the median hardly moves,
 * the 90th percentile doubles. */
static void
test_slow_tail (void)
{
  g_autofree gint64 *a = steps (200, 10000000, 2, 0);
  g_autofree gint64 *b = steps (200, 10000000, 2, 7);
  PfprofChange c;

  for (guint i = 0; i < 200; i += 5)
    b[i] *= 2;
  g_assert_true (pfprof_bootstrap_change (a, 200, b, 200, PFPROF_STATISTIC_MEDIAN, &c));
  g_assert_cmpfloat (ABS (c.change_pct), <, 2);
  g_assert_true (pfprof_bootstrap_change (a, 200, b, 200, PFPROF_STATISTIC_P90, &c));
  g_assert_cmpfloat (c.change_pct, >, 80);
  g_assert_cmpfloat (c.low_pct, >, 50);
}

static void
test_repeatable_and_bounded (void)
{
  g_autofree gint64 *a = steps (150000, 4000000, 10, 0);
  g_autofree gint64 *b = steps (150000, 4100000, 10, 1);
  PfprofChange c1, c2;

  g_assert_true (pfprof_bootstrap_change (a, 150000, b, 150000, PFPROF_STATISTIC_P90, &c1));
  g_assert_true (pfprof_bootstrap_change (a, 150000, b, 150000, PFPROF_STATISTIC_P90, &c2));
  g_assert_cmpfloat (c1.low_pct, ==, c2.low_pct);
  g_assert_cmpfloat (c1.high_pct, ==, c2.high_pct);
  /* Many steps: fewer rounds, never fewer than the floor. */
  g_assert_cmpuint (c1.rounds, ==, 200);
}

static void
test_empty_and_zero (void)
{
  gint64 zero[3] = { 0, 0, 0 }, one[1] = { 5 };
  PfprofChange c;

  g_assert_false (pfprof_bootstrap_change (one, 1, NULL, 0, PFPROF_STATISTIC_MEAN, &c));
  g_assert_false (pfprof_bootstrap_change (zero, 3, one, 1, PFPROF_STATISTIC_MEDIAN, &c));
  g_assert_cmpfloat (c.change_pct, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bootstrap/no-change", test_no_change);
  g_test_add_func ("/bootstrap/clear-shift", test_clear_shift);
  g_test_add_func ("/bootstrap/shift-in-noise", test_shift_in_noise);
  g_test_add_func ("/bootstrap/slow-tail", test_slow_tail);
  g_test_add_func ("/bootstrap/repeatable-and-bounded", test_repeatable_and_bounded);
  g_test_add_func ("/bootstrap/empty-and-zero", test_empty_and_zero);
  return g_test_run ();
}
