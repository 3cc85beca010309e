/* pfprof.c: main() and the subcommand table. */
#include "pfprof-config.h"

#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pfprof-cli.h"
#include "pfprof-temp-file.h"

static const PfprofCommand commands[] = {
  { "record", pfprof_cmd_record, "Run a program with the collector injected and report", FALSE },
  { "report", pfprof_cmd_report, "Analyze traces: findings, overlap, steps (text/json/markdown/junit)", FALSE },
  { "render", pfprof_cmd_render, "Draw the timeline of a trace to PNG, SVG or PDF", FALSE },
  { "view", pfprof_cmd_view, "Open traces in the timeline app", FALSE },
  { "export", pfprof_cmd_export, "Write traces and findings as Chrome/Perfetto trace JSON", FALSE },
  { "diff", pfprof_cmd_diff, "Compare two runs: step breakdown, overlap, findings resolved/new", FALSE },
  { "import", pfprof_cmd_import, "Convert an nsys export or a torch.profiler trace into a pfprof trace", FALSE },
  { "try", pfprof_cmd_try, "Measure a fix on the program's own run, with no change to its code", FALSE },
  { "generate", pfprof_cmd_generate, "Write a synthetic trace (tests and benchmarks)", TRUE },
};

void
pfprof_cli_error (const char *format, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start (ap, format);
  msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  /* One line: the message may quote untrusted text. */
  g_strdelimit (msg, "\n\r", ' ');
  fprintf (stderr, "pfprof: %s\n", msg);
}

static void
usage (FILE *out)
{
  fprintf (out,
           "Usage: pfprof [--version] [--help] COMMAND [ARGS...]\n"
           "       pfprof [RECORD-OPTIONS] -- PROGRAM [ARGS...]   (same as pfprof record)\n"
           "\n"
           "Finds why a GPU waits on the input pipeline of a PyTorch training job.\n"
           "\n"
           "Commands:\n");
  for (size_t i = 0; i < G_N_ELEMENTS (commands); i++)
    if (!commands[i].hidden)
      fprintf (out, "  %-9s %s\n", commands[i].name, commands[i].summary);
  fprintf (out, "\nRun 'pfprof COMMAND --help' for a command's options.\n");
}

static gboolean main_returned;

/* Output to standard output that cannot be written (a full disk,
 * /dev/full, a closed pipe reader) is an error, also for --help and
 * --version, which GOption answers with exit(0) from inside a command. */
static gboolean
stdout_failed (void)
{
  if (fflush (stdout) == 0 && !ferror (stdout))
    return FALSE;
  fprintf (stderr, "pfprof: cannot write to standard output: %s\n", g_strerror (errno));
  return TRUE;
}

static void
check_stdout_at_exit (void)
{
  if (!main_returned && stdout_failed ())
    _exit (PFPROF_EXIT_USAGE);
}

static int
run_command (int argc, char **argv);

int
main (int argc, char **argv)
{
  int rc;

  atexit (check_stdout_at_exit);
  rc = run_command (argc, argv);
  main_returned = TRUE;
  /* A command that reported its own error already said it. */
  if (rc != PFPROF_EXIT_USAGE && stdout_failed ())
    return PFPROF_EXIT_USAGE;
  return rc;
}

static int
run_command (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  pfprof_temp_file_install_handlers ();

  if (argc < 2)
    {
      usage (stderr);
      return PFPROF_EXIT_USAGE;
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 || strcmp (argv[1], "help") == 0)
    {
      usage (stdout);
      return PFPROF_EXIT_OK;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("pfprof %s\n", PFPROF_VERSION);
      return PFPROF_EXIT_OK;
    }
  /* `pfprof -- CMD` and `pfprof -o x -- CMD`: anything that starts with a
   * dash is taken as record's options. */
  if (argv[1][0] == '-')
    {
      argv[0] = (char *) "record";
      return pfprof_cmd_record (argc, argv);
    }
  for (size_t i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      return commands[i].func (argc - 1, argv + 1);

  pfprof_cli_error ("'%s' is not a pfprof command; see 'pfprof --help'", argv[1]);
  return PFPROF_EXIT_USAGE;
}
