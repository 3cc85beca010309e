/* SPDX-License-Identifier: MIT */
/* pfprof.c: main(), the subcommand table, and what a word that is no
 * subcommand means: `pfprof help CMD`, a program to record
 * (`pfprof python3 train.py`), or a typo ("did you mean 'report'?"). */
#include "pfprof-config.h"

#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>

#include "pfprof-cli.h"
#include "pfprof-format.h"
#include "pfprof-temp-file.h"

static const PfprofCommand commands[] = {
  { pfprof_cmd_record, &pfprof_cmd_record_help, FALSE },
  { pfprof_cmd_report, &pfprof_cmd_report_help, FALSE },
  { pfprof_cmd_render, &pfprof_cmd_render_help, FALSE },
  { pfprof_cmd_view, &pfprof_cmd_view_help, FALSE },
  { pfprof_cmd_export, &pfprof_cmd_export_help, FALSE },
  { pfprof_cmd_diff, &pfprof_cmd_diff_help, FALSE },
  { pfprof_cmd_import, &pfprof_cmd_import_help, FALSE },
  { pfprof_cmd_try, &pfprof_cmd_try_help, FALSE },
  { pfprof_cmd_generate, &pfprof_cmd_generate_help, TRUE },
};

static const PfprofCliHelp pfprof_help = {
  NULL,
  "Find why a GPU waits on the input pipeline of a PyTorch training job",
  NULL,
  "pfprof records a training program with NVIDIA's CUPTI (no change to its\n"
  "code), measures each step (DataLoader wait, copies exposed and hidden,\n"
  "compute, sync wait, GPU idle) and names the cause of every wait with its\n"
  "fix: pageable or serialized copies, a late prefetch, record_stream\n"
  "pressure, a starved GPU, syncs in the loop, tiny copies, pinning in the\n"
  "loop, an imbalance between ranks. It reads its own traces, Nsight Systems\n"
  "SQLite exports and torch.profiler traces.\n"
  "\n"
  "A word that is no command but a program on PATH is run as `pfprof record\n"
  "-- PROGRAM ARGS...` would: `pfprof python3 train.py`; one named like a\n"
  "command (`pfprof test`) gets a warning first. `pfprof version` is\n"
  "`pfprof --version`.\n",
  "  0  success (record: PROGRAM's exit code, 128+N if it died of signal N)\n"
  "  1  report: a finding at or above --fail-on fired; diff: slower than\n"
  "     --fail-if-slower\n"
  "  2  usage error, unreadable or invalid input, unwritable output\n"
  "  3  the output file exists and --force was not given\n",
  "  NO_COLOR  no colour in text reports\n"
  "  PFPROF_COLLECTOR  path of libpfprof-collector.so (record)\n"
  "  RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK  the rank for %r in\n"
  "     file names\n",
  "  *.pfprof  traces (SQLite; docs/trace-format.md)\n",
  "  # Record a training run and print its findings\n"
  "  pfprof python3 train.py --epochs 1\n"
  "  # Report on a trace, as JSON for CI\n"
  "  pfprof report run.pfprof --format json -o report.json\n"
  "  # Compare before and after a fix\n"
  "  pfprof diff slow.pfprof fixed.pfprof\n",
  "pfprof-record(1), pfprof-report(1), pfprof-render(1), pfprof-view(1), "
  "pfprof-export(1), pfprof-diff(1), pfprof-import(1), pfprof-try(1), nsys(1)",
};

void
pfprof_cli_error (const char *format, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;
  g_autoptr (GString) shown = NULL;

  g_return_if_fail (format != NULL);

  shown = g_string_new (NULL);
  va_start (ap, format);
  msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  /* One line, no escape sequences: the message may quote untrusted text
   * (file names from a shared folder, names inside a trace). */
  pfprof_escape_terminal (shown, msg, FALSE);
  fprintf (stderr, "pfprof: %s\n", shown->str);
}

int
pfprof_cli_output_exit_code (const GError *error)
{
  return g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_EXIST) ? PFPROF_EXIT_EXISTS : PFPROF_EXIT_USAGE;
}

gboolean
pfprof_cli_color (const char *command, const char *when, gboolean to_file, gboolean *color)
{
  g_return_val_if_fail (command != NULL, FALSE);
  g_return_val_if_fail (color != NULL, FALSE);

  if (when == NULL || strcmp (when, "auto") == 0)
    *color = !to_file && isatty (STDOUT_FILENO) && g_getenv ("NO_COLOR") == NULL
             && g_strcmp0 (g_getenv ("TERM"), "dumb") != 0;
  else if (strcmp (when, "always") == 0 || strcmp (when, "never") == 0)
    *color = strcmp (when, "always") == 0;
  else
    {
      pfprof_cli_error ("%s: --color takes auto, always or never, not '%s'", command, when);
      return FALSE;
    }
  return TRUE;
}

/* The layout of a command's --help (pfprof-cli-help.h), so help-to-man.py
 * reads both alike. */
static void
usage (FILE *out)
{
  g_autoptr (GString) s = g_string_new (NULL);

  g_string_append_printf (s,
                          "Usage:\n"
                          "  pfprof [--version] [--help] COMMAND [ARGS...]\n"
                          "  pfprof [RECORD-OPTIONS] -- PROGRAM [ARGS...]\n"
                          "  pfprof PROGRAM [ARGS...]\n"
                          "\n%s.\n\n%s\nCommands:\n",
                          pfprof_help.summary, pfprof_help.description);
  for (size_t i = 0; i < G_N_ELEMENTS (commands); i++)
    if (!commands[i].hidden)
      g_string_append_printf (s, "  %-9s %s\n", commands[i].help->name, commands[i].help->summary);
  g_string_append (s,
                   "\nOptions:\n"
                   "  -h, --help       Show this help ('pfprof help COMMAND': a command's)\n"
                   "  --version        Show the version\n"
                   "\n");
  pfprof_cli_help_append_sections (&pfprof_help, s);
  fputs (s->str, out);
}

static const PfprofCommand *
find_command (const char *name)
{
  for (size_t i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (name, commands[i].help->name) == 0)
      return &commands[i];
  return NULL;
}

/* Edits (insert, delete, substitute, swap two neighbours) from @a to @b,
 * capped at 9: "reprot" is 1 from "report". */
static guint
edit_distance (const char *a, const char *b)
{
  gsize la = strlen (a), lb = strlen (b);
  guint d[16][16];

  if (la > 14 || lb > 14)
    return 9;
  for (gsize i = 0; i <= la; i++)
    d[i][0] = (guint) i;
  for (gsize j = 0; j <= lb; j++)
    d[0][j] = (guint) j;
  for (gsize i = 1; i <= la; i++)
    for (gsize j = 1; j <= lb; j++)
      {
        guint cost = g_ascii_tolower (a[i - 1]) == g_ascii_tolower (b[j - 1]) ? 0 : 1;
        guint v = MIN (MIN (d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);

        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
          v = MIN (v, d[i - 2][j - 2] + 1);
        d[i][j] = v;
      }
  return MIN (d[la][lb], 9);
}

static const PfprofCommand *
closest_command (const char *word)
{
  const PfprofCommand *best = NULL;
  guint best_d = 3;

  for (size_t i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      guint d = edit_distance (word, commands[i].help->name);

      /* Two edits only in names long enough that two are not most of it. */
      if (!commands[i].hidden && d < best_d && d * 2 < strlen (commands[i].help->name))
        {
          best = &commands[i];
          best_d = d;
        }
    }
  return best;
}

/* Whether a program named @word, run as `pfprof WORD`, more likely meant
 * a pfprof command: a near-miss of one, or a word other tools use as a
 * command and that a program on PATH also has (test(1), install(1)). */
static gboolean
shadows_command (const char *word)
{
  static const char *const words[] = { "test", "check", "install", "info", "show", "list", "run", "stats" };

  if (closest_command (word) != NULL)
    return TRUE;
  for (size_t i = 0; i < G_N_ELEMENTS (words); i++)
    if (strcmp (word, words[i]) == 0)
      return TRUE;
  return FALSE;
}

static int
run_command (const PfprofCommand *cmd, int argc, char **argv)
{
  g_autofree char *prgname = g_strdup_printf ("pfprof %s", cmd->help->name);

  /* GOptionContext's usage line: "pfprof report [OPTION…] TRACE...". */
  g_set_prgname (prgname);
  argv[0] = (char *) cmd->help->name;
  return cmd->func (argc, argv);
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
dispatch (int argc, char **argv);

int
main (int argc, char **argv)
{
  int rc;

  atexit (check_stdout_at_exit);
  rc = dispatch (argc, argv);
  main_returned = TRUE;
  /* A command that reported its own error already said it. */
  if (rc != PFPROF_EXIT_USAGE && stdout_failed ())
    return PFPROF_EXIT_USAGE;
  return rc;
}

static int
dispatch (int argc, char **argv)
{
  const PfprofCommand *cmd;
  g_autofree char *program = NULL;

  setlocale (LC_ALL, "");
  pfprof_temp_file_install_handlers ();

  if (argc < 2)
    {
      usage (stderr);
      return PFPROF_EXIT_USAGE;
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0
      || (strcmp (argv[1], "help") == 0 && argc == 2))
    {
      usage (stdout);
      return PFPROF_EXIT_OK;
    }
  if (strcmp (argv[1], "help") == 0)
    {
      char *help_argv[] = { argv[2], (char *) "--help", NULL };

      if ((cmd = find_command (argv[2])) != NULL)
        return run_command (cmd, 2, help_argv);
      pfprof_cli_error ("help: '%s' is not a pfprof command; see 'pfprof --help'", argv[2]);
      return PFPROF_EXIT_USAGE;
    }
  if (strcmp (argv[1], "--version") == 0 || (strcmp (argv[1], "version") == 0 && argc == 2))
    {
      printf ("pfprof %s\n", PFPROF_VERSION);
      return PFPROF_EXIT_OK;
    }
  /* `pfprof -- CMD` and `pfprof -o x -- CMD`: anything that starts with a
   * dash is taken as record's options. */
  if (argv[1][0] == '-')
    return run_command (find_command ("record"), argc, argv);
  if ((cmd = find_command (argv[1])) != NULL)
    return run_command (cmd, argc - 1, argv + 1);

  /* `pfprof python3 train.py`: a program, as `pfprof -- python3 ...`. */
  if ((program = g_find_program_in_path (argv[1])) != NULL)
    {
      char **record_argv = g_new0 (char *, (gsize) argc + 2);
      int code;

      if (shadows_command (argv[1]))
        pfprof_cli_error ("warning: '%s' is not a pfprof command; recording the program %s "
                          "(write 'pfprof -- %s ...' to mean it, see 'pfprof --help')",
                          argv[1], program, argv[1]);
      record_argv[0] = (char *) "record";
      record_argv[1] = (char *) "--";
      for (int i = 1; i < argc; i++)
        record_argv[i + 1] = argv[i];
      code = run_command (find_command ("record"), argc + 1, record_argv);
      g_free (record_argv);
      return code;
    }
  if ((cmd = closest_command (argv[1])) != NULL)
    pfprof_cli_error ("'%s' is not a pfprof command; did you mean '%s'? (see 'pfprof --help')", argv[1],
                      cmd->help->name);
  else
    pfprof_cli_error ("'%s' is neither a pfprof command nor a program on PATH; to record a program, "
                      "give its path: pfprof -- %s ...",
                      argv[1], argv[1]);
  return PFPROF_EXIT_USAGE;
}
