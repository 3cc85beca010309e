/* SPDX-License-Identifier: MIT */
/* test-trace-index.c: each device's lists of records, for a trace of one
 * GPU (the whole tables, no list held) and of two (each device its own
 * records, in order), the same through pfprof_device_record_at(). */
#include "pfprof-trace-index.h"

/* A trace whose kernels and copies alternate between devices 0 and
 * @n_devices - 1, @n of each. */
static PfprofTrace *
trace_on (guint n_devices, guint n)
{
  PfprofTrace *t = pfprof_trace_new ();

  for (guint i = 0; i < n; i++)
    {
      PfprofKernelRecord k = { 0 };
      PfprofMemcpyRecord m = { 0 };

      k.start_ns = 1000 * (gint64) i;
      k.end_ns = k.start_ns + 500;
      k.device_id = i % n_devices;
      k.stream_id = 7;
      k.correlation_id = 2 * i + 1;
      g_array_append_val (t->tables[PFPROF_TABLE_KERNELS], k);
      m.start_ns = 1000 * (gint64) i + 600;
      m.end_ns = m.start_ns + 100;
      m.device_id = (i / 2) % n_devices;
      m.copy_kind = PFPROF_COPY_KIND_HTOD;
      m.correlation_id = 2 * i + 2;
      g_array_append_val (t->tables[PFPROF_TABLE_MEMCPYS], m);
    }
  pfprof_trace_sort (t);
  return t;
}

/* Every record of @table on @dev, by pfprof_device_record_at(), is the
 * table's next one on that device. */
static void
check_lists (const PfprofTrace *t, const PfprofDeviceTimeline *dev, PfprofTableId table)
{
  guint n, total = pfprof_trace_n (t, table), j = 0;
  const guint *list = pfprof_device_timeline_records (dev, table, &n);

  for (guint i = 0; i < total; i++)
    {
      guint32 device = table == PFPROF_TABLE_KERNELS ? pfprof_trace_kernels (t)[i].device_id
                                                     : pfprof_trace_memcpys (t)[i].device_id;

      if (device != dev->device_id)
        continue;
      g_assert_cmpuint (j, <, n);
      g_assert_cmpuint (pfprof_device_record_at (list, j), ==, i);
      j++;
    }
  g_assert_cmpuint (j, ==, n);
}

static void
test_one_device (void)
{
  PfprofTrace *t = trace_on (1, 1000);
  PfprofTraceIndex *ix = pfprof_trace_index_new (t, 0);
  const PfprofDeviceTimeline *dev = pfprof_trace_index_device (ix, 0);
  guint n;

  g_assert_nonnull (dev);
  /* The whole kernel table, with no list of its indices. */
  g_assert_null (pfprof_device_timeline_records (dev, PFPROF_TABLE_KERNELS, &n));
  g_assert_cmpuint (n, ==, 1000);
  check_lists (t, dev, PFPROF_TABLE_KERNELS);
  check_lists (t, dev, PFPROF_TABLE_MEMCPYS);
  pfprof_trace_index_free (ix);
  pfprof_trace_free (t);
}

static void
test_two_devices (void)
{
  PfprofTrace *t = trace_on (2, 1000);
  PfprofTraceIndex *ix = pfprof_trace_index_new (t, 0);

  for (guint32 d = 0; d < 2; d++)
    {
      const PfprofDeviceTimeline *dev = pfprof_trace_index_device (ix, d);
      guint n;

      g_assert_nonnull (dev);
      g_assert_nonnull (pfprof_device_timeline_records (dev, PFPROF_TABLE_KERNELS, &n));
      g_assert_cmpuint (n, ==, 500);
      check_lists (t, dev, PFPROF_TABLE_KERNELS);
      check_lists (t, dev, PFPROF_TABLE_MEMCPYS);
      g_assert_cmpuint (dev->n_kernels, ==, 500);
    }
  pfprof_trace_index_free (ix);
  pfprof_trace_free (t);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/trace-index/one-device", test_one_device);
  g_test_add_func ("/trace-index/two-devices", test_two_devices);
  return g_test_run ();
}
