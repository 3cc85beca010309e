/* SPDX-License-Identifier: MIT */
/* test-display-name.c: the names people see for kernels and API calls
 * (analyzer/base/pfprof-display-name.h), on fixed names and on every string of
 * the recorded samples. */
#include <string.h>

#include "pfprof-display-name.h"
#include "pfprof-trace-reader.h"

static void
check (const char *raw, const char *expected)
{
  g_autofree char *shown = pfprof_display_name_new (raw);

  g_assert_cmpstr (shown, ==, expected);
}

static void
test_fixed (void)
{
  /* CUPTI's runtime suffix goes; the driver's _v2 is the real symbol. */
  check ("cudaMemcpyAsync_v3020", "cudaMemcpyAsync");
  check ("cudaLaunchKernelExC_v11060", "cudaLaunchKernelExC");
  check ("cuMemAlloc_v2", NULL);
  check ("cuLaunchKernel", NULL);
  check ("DataLoader.next", NULL);
  check ("my_range_v1234", NULL);
  /* Demangled without parameters, nested template arguments as "…". */
  check ("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_13AUnaryFunctorIfffNS0_15binary_"
         "internal10MulFunctorIfEEEESt5arrayIPcLm2EEEEviT0_T1_",
         "at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<…>, std::array<…> >");
  check ("_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastINS0_15CUDAFunctor_"
         "addIfEEEEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
         "at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<…>(…)::{lambda(int)#1}>");
  check ("_ZN5cudnn19engines_precompiled20convertTensor_kernelIfffL21cudnnKernelDataType_t2EEEvT1_PKT_S3_PT0_m",
         "cudnn::engines_precompiled::convertTensor_kernel<float, float, float, (cudnnKernelDataType_t)2>");
  check ("_Z10add_kernelPfS_i", "add_kernel");
  /* Not a mangled name after all: shown as it is. */
  check ("_Zzz not mangled", NULL);
  check ("", NULL);
}

static void
test_samples (void)
{
  const char *dir = g_getenv ("PFPROF_SAMPLES");
  g_autoptr (GDir) d = NULL;
  const char *name;
  guint n_traces = 0, n_demangled = 0;

  if (dir == NULL || (d = g_dir_open (dir, 0, NULL)) == NULL)
    {
      g_test_skip ("PFPROF_SAMPLES not set");
      return;
    }
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autoptr (GError) error = NULL;
      g_autoptr (PfprofTrace) t = NULL;

      if (!g_str_has_suffix (name, ".pfprof"))
        continue;
      path = g_build_filename (dir, name, NULL);
      t = pfprof_trace_reader_load (path, NULL, NULL, &error);
      g_assert_no_error (error);
      n_traces++;
      for (guint i = 0; i < pfprof_trace_n (t, PFPROF_TABLE_KERNELS); i++)
        {
          guint32 id = pfprof_trace_kernels (t)[i].name_id;
          const char *raw = pfprof_trace_string (t, id), *shown = pfprof_display_name (t, id);

          if (g_str_has_prefix (raw, "_Z"))
            {
              /* Every mangled kernel of the samples demangles, into no
               * more than twice the raw length
               * (a mangled name's substitutions are short: cub's
               * DeviceScanKernel<...> of HF's Trainer comes out 233
               * bytes from 209). */
              g_assert_false (g_str_has_prefix (shown, "_Z"));
              g_assert_cmpuint (strlen (shown), <=, 2 * strlen (raw));
              g_assert_true (g_utf8_validate (shown, -1, NULL));
              n_demangled++;
            }
        }
      for (guint i = 0; i < pfprof_trace_n (t, PFPROF_TABLE_API_CALLS); i++)
        {
          guint32 id = pfprof_trace_api_calls (t)[i].name_id;
          const char *shown = pfprof_display_name (t, id);
          const char *v = strstr (shown, "_v");

          g_assert_true (v == NULL || strlen (v + 2) < 4 || !g_ascii_isdigit (v[2]));
        }
    }
  g_assert_cmpuint (n_traces, >, 0);
  g_assert_cmpuint (n_demangled, >, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/display-name/fixed", test_fixed);
  g_test_add_func ("/display-name/samples", test_samples);
  return g_test_run ();
}
