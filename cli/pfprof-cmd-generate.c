/* SPDX-License-Identifier: MIT */
/* pfprof-cmd-generate.c: `pfprof generate`, a hidden developer command
 * that writes a synthetic trace (trace/pfprof-trace-generator.h) for
 * tests, benchmarks and demos without a GPU. */
#include "pfprof-config.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>

#include "pfprof-cli-trace-output.h"
#include "pfprof-cli.h"
#include "pfprof-trace-generator.h"

/* Parses @s as an unsigned decimal in [min, max] into *@out. */
static gboolean
parse_number (const char *option, const char *s, guint64 min, guint64 max, guint64 *out)
{
  g_autoptr (GError) error = NULL;

  if (!g_ascii_string_to_unsigned (s, 10, min, max, out, &error))
    {
      pfprof_cli_error ("generate: %s: %s", option, error->message);
      return FALSE;
    }
  return TRUE;
}

const PfprofCliHelp pfprof_cmd_generate_help = {
  "generate",
  "Write a synthetic trace (tests and benchmarks)",
  "-o PATH",
  NULL, /* the patterns are listed at run time */
  "  0  written\n"
  "  2  usage error, unwritable output\n"
  "  3  PATH exists and --force was not given\n",
  NULL,
  NULL,
  "  pfprof generate --plant pageable,sync-in-loop --steps 100 -o test.pfprof\n",
  "pfprof(1), pfprof-report(1)",
};

int
pfprof_cmd_generate (int argc, char **argv)
{
  g_autofree char *output = NULL;
  g_autofree char *events = NULL;
  g_autofree char *steps = NULL;
  g_autofree char *seed = NULL;
  g_autofree char *world_size = NULL;
  g_autofree char *plants = NULL;
  g_autofree char *streams = NULL;
  g_autofree char *rank = NULL;
  g_autofree char *host = NULL;
  g_autofree char *clock_offset = NULL;
  g_autofree char *worker_cores = NULL;
  g_autofree char *plant_names = NULL;
  gboolean force = FALSE;
  g_return_val_if_fail (argv != NULL, PFPROF_EXIT_USAGE);

  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  PfprofTraceGenerator gen;
  PfprofTraceGeneratorResult result;
  char errbuf[512];
  char names[256];
  GStatBuf st;
  char *tmp;
  int slot = -1, code;
  gint64 t0, t1;
  guint64 n;
  int status;
  const GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Trace file to write (required)", "PATH" },
    { "events", 0, 0, G_OPTION_ARG_STRING, &events,
      "Write steps until about N event records (instead of --steps)", "N" },
    { "steps", 0, 0, G_OPTION_ARG_STRING, &steps, "Number of training steps (default 200)", "N" },
    { "seed", 0, 0, G_OPTION_ARG_STRING, &seed, "Random seed (default 1)", "N" },
    { "plant", 0, 0, G_OPTION_ARG_STRING, &plants,
      "Comma-separated patterns to plant, 'all' or 'none' (default none)", "LIST" },
    { "streams", 0, 0, G_OPTION_ARG_STRING, &streams, "GPU streams, 2 to 64 (default 4)", "N" },
    { "rank", 0, 0, G_OPTION_ARG_STRING, &rank, "Rank recorded in the metadata (default 0)", "N" },
    { "world-size", 0, 0, G_OPTION_ARG_STRING, &world_size,
      "World size recorded in the metadata (default 1; with --rank, none)", "N" },
    { "host", 0, 0, G_OPTION_ARG_STRING, &host,
      "Host name recorded in the metadata (default synthetic-node-RANK)", "NAME" },
    { "clock-offset", 0, 0, G_OPTION_ARG_STRING, &clock_offset,
      "Plant a clock offset: CUPTI times = wall clock + NS (default 0)", "NS" },
    { "worker-cores", 0, 0, G_OPTION_ARG_STRING, &worker_cores,
      "CPU cores the DataLoader's workers may use, 1 to 4096 (default 16; 2 with input-starved)", "N" },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force, "Overwrite PATH if it is a regular file", NULL },
    { NULL }
  };

  pfprof_trace_generator_init (&gen);
  plant_names = g_strjoin (", ", pfprof_trace_generator_plant_name (PFPROF_PLANT_PAGEABLE),
                           pfprof_trace_generator_plant_name (PFPROF_PLANT_SERIALIZED),
                           pfprof_trace_generator_plant_name (PFPROF_PLANT_RECORD_STREAM),
                           pfprof_trace_generator_plant_name (PFPROF_PLANT_INPUT_STARVED),
                           pfprof_trace_generator_plant_name (PFPROF_PLANT_LATE_PREFETCH),
                           pfprof_trace_generator_plant_name (PFPROF_PLANT_SYNC_IN_LOOP),
                           pfprof_trace_generator_plant_name (PFPROF_PLANT_SMALL_TRANSFERS),
                           pfprof_trace_generator_plant_name (PFPROF_PLANT_PINNED_ALLOC),
                           pfprof_trace_generator_plant_name (PFPROF_PLANT_NCCL), NULL);
  {
    g_autofree char *description = g_strdup_printf (
      "Simulates one PyTorch training process on one GPU (warm-up, then steps of\n"
      "DataLoader wait, copies, kernels, events) and writes it as a pfprof trace.\n"
      "Patterns: %s.\n"
      "The same options always give the same trace.\n",
      plant_names);
    PfprofCliHelp help = pfprof_cmd_generate_help;

    help.description = description;
    context = pfprof_cli_help_context_new (&help);
  }
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      pfprof_cli_error ("generate: %s (see 'pfprof generate --help')", error->message);
      return PFPROF_EXIT_USAGE;
    }
  if (argc > 1)
    {
      pfprof_cli_error ("generate: unexpected argument '%s'", argv[1]);
      return PFPROF_EXIT_USAGE;
    }
  if (output == NULL || *output == '\0')
    {
      pfprof_cli_error ("generate: -o PATH is required");
      return PFPROF_EXIT_USAGE;
    }
  if (events != NULL && steps != NULL)
    {
      pfprof_cli_error ("generate: give --events or --steps, not both");
      return PFPROF_EXIT_USAGE;
    }
  if (events != NULL)
    {
      if (!parse_number ("--events", events, 1, G_GUINT64_CONSTANT (1000000000000), &n))
        return PFPROF_EXIT_USAGE;
      gen.events = n;
      gen.steps = 0;
    }
  if (steps != NULL)
    {
      if (!parse_number ("--steps", steps, 1, G_MAXUINT32, &n))
        return PFPROF_EXIT_USAGE;
      gen.steps = (guint32) n;
    }
  if (seed != NULL)
    {
      if (!parse_number ("--seed", seed, 0, G_MAXUINT64, &n))
        return PFPROF_EXIT_USAGE;
      gen.seed = n;
    }
  if (streams != NULL)
    {
      if (!parse_number ("--streams", streams, 2, 64, &n))
        return PFPROF_EXIT_USAGE;
      gen.streams = (guint32) n;
    }
  if (rank != NULL)
    {
      if (!parse_number ("--rank", rank, 0, 65535, &n))
        return PFPROF_EXIT_USAGE;
      gen.rank = (gint32) n;
      /* Ranks generated one by one are of one run unless told its size. */
      gen.world_size = 0;
    }
  if (world_size != NULL)
    {
      if (!parse_number ("--world-size", world_size, 1, 65536, &n))
        return PFPROF_EXIT_USAGE;
      gen.world_size = (gint32) n;
    }
  if (host != NULL)
    gen.host = host;
  if (clock_offset != NULL)
    {
      gint64 v;

      /* ±10^15 ns (11.6 days): far beyond any real clock error. */
      if (!g_ascii_string_to_signed (clock_offset, 10, -1000000000000000LL, 1000000000000000LL, &v,
                                     &error))
        {
          pfprof_cli_error ("generate: --clock-offset: %s", error->message);
          return PFPROF_EXIT_USAGE;
        }
      gen.clock_offset_ns = v;
    }
  if (worker_cores != NULL)
    {
      guint64 v;

      if (!g_ascii_string_to_unsigned (worker_cores, 10, 1, 4096, &v, &error))
        {
          pfprof_cli_error ("generate: --worker-cores: %s", error->message);
          return PFPROF_EXIT_USAGE;
        }
      gen.worker_cores = (guint32) v;
    }
  if (plants != NULL && pfprof_trace_generator_parse_plants (plants, &gen.plants) != 0)
    {
      pfprof_cli_error ("generate: --plant: '%s' is not a list of: all, none, %s", plants,
                        plant_names);
      return PFPROF_EXIT_USAGE;
    }
  gen.pfprof_version = PFPROF_VERSION;

  /* Under a temporary name, renamed once finished: an interrupted or
   * failed run leaves nothing, and an existing file stays as it was. */
  if ((tmp = pfprof_cli_trace_output_reserve ("generate", output, force, &slot, &code)) == NULL)
    return code;
  t0 = g_get_monotonic_time ();
  status = pfprof_trace_generator_write (&gen, tmp, PFPROF_WRITER_OVERWRITE, &result, errbuf,
                                         sizeof errbuf);
  t1 = g_get_monotonic_time ();
  if (status != PFPROF_WRITER_OK)
    {
      pfprof_cli_error ("generate: cannot write %s: %s", output, errbuf);
      pfprof_cli_trace_output_discard (tmp, slot);
      return PFPROF_EXIT_USAGE;
    }
  if ((code = pfprof_cli_trace_output_place ("generate", tmp, slot, output, force)) != PFPROF_EXIT_OK)
    return code;
  pfprof_trace_generator_format_plants (gen.plants, names, sizeof names);
  if (g_stat (output, &st) != 0)
    st.st_size = 0;
  printf ("%s: %" G_GUINT64_FORMAT " events, %u steps, plants %s, %" G_GINT64_FORMAT
          " bytes (%.1f bytes/event), %.2f s\n",
          output, result.n_events, result.n_steps, names, (gint64) st.st_size,
          result.n_events ? (double) st.st_size / (double) result.n_events : 0.0,
          (double) (t1 - t0) / 1e6);
  return PFPROF_EXIT_OK;
}
