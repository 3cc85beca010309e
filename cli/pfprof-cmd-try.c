/* SPDX-License-Identifier: MIT */
/* pfprof-cmd-try.c: `pfprof try [--fix NAME,...] -- PROGRAM [ARGS...]`.
 *
 * Runs PROGRAM as it is (arm A) and with fixes the Python start-up hook
 * applies (arm B; cli/pfprof_fixes.py, docs/try.md), each run a fresh
 * process, alternating for --rounds rounds, and compares their step
 * times. Step times come from the hook's step timer (one monotonic time
 * per optimizer.step(), else per DataLoader batch), which adds no
 * synchronisation. Each round runs B first and A second, so the last
 * process to run is the unmodified program and the files it leaves are
 * its own; the first A run's output goes to the terminal, every other
 * run's to a log in the folder named at the end. With --traced every
 * run is recorded (through `pfprof record`), and the reports of the first
 * A and B runs give the prediction and the findings resolved; without
 * --fix, a first traced run of A picks the fixes its findings suggest.
 */
#include "pfprof-config.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <jansson.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pfprof-cli-program.h"
#include "pfprof-cli.h"
#include "pfprof-format.h"
#include "pfprof-json-writer.h"
#include "pfprof-quantile.h"
#include "pfprof-record.h"
#include "pfprof-try-loss.h"

#define PFPROF_TRY_FIXES_RESOURCE "/org/pfprof/cli/pfprof_fixes.py"

/* The fixes the hook knows (cli/pfprof_fixes.py); `value` says whether
 * it takes =N, `optional` whether it may go without. ideal-input is a
 * measurement, not a fix: it is tried alone and never picked. */
static const struct
{
  const char *name;
  gboolean value;
  gboolean optional;
} known_fixes[] = {
  { "pin-memory", FALSE, FALSE },     { "workers", TRUE, FALSE },     { "persistent-workers", FALSE, FALSE },
  { "prefetch-factor", TRUE, FALSE }, { "non-blocking", FALSE, FALSE }, { "prefetch", FALSE, FALSE },
  { "ideal-input", TRUE, TRUE },
};

#define PFPROF_TRY_IDEAL "ideal-input"

/* A step with free input this much shorter, or less, says that no input
 * fix pays. */
#define PFPROF_TRY_IDEAL_PAYS_PCT 5.0

/* What a finding's rule suggests that the hook can apply; `workers`
 * puts workers=N first, N the processors less two (2 to 16). A rule not
 * here needs a code change. */
static const struct
{
  const char *rule;
  gboolean workers;
  gboolean htod_only; /* the fixes act on host-to-device copies only */
  const char *fixes;
} rule_fixes[] = {
  { "pageable-transfer", FALSE, TRUE, "pin-memory,non-blocking" },
  { "input-starved", TRUE, FALSE, "persistent-workers,prefetch-factor=4" },
  { "serialized-copy", FALSE, FALSE, "prefetch" },
};

typedef struct
{
  char arm;         /* 'A' or 'B' */
  int round;        /* 1..; 0 for the first traced run that picks fixes */
  int code;         /* exit code, 128+N for signal N, -1 not run */
  char *log;        /* NULL when shown on the terminal */
  GArray *steps;    /* gint64 step intervals measured */
  const char *step_source; /* "optimizer.step", "DataLoader" or NULL */
  gint64 median;    /* of steps, -1 without steps */
  GArray *losses;   /* the losses its log shows (double); NULL when shown */
  json_t *report;   /* --traced: the JSON report of its traces */
} TryRun;

typedef struct
{
  char **command;
  char *self;
  char *dir;        /* kept: logs, step files, traces */
  char *hook_dir;   /* sitecustomize.py (untraced runs) */
  char *fixes_dir;  /* pfprof_fixes.py */
  gboolean traced;
  gboolean ideal;   /* arm B is the ideal-input measurement */
  char *sample;     /* --sample ON/EVERY of the traced runs, or NULL */
  guint steps;      /* 0: all but the first quarter */
  GPtrArray *runs;  /* TryRun */
  GPtrArray *notes; /* unique "STATE\tFIX\tTEXT" of arm B */
} Try;

static void
try_run_free (TryRun *r)
{
  g_free (r->log);
  g_array_unref (r->steps);
  if (r->losses)
    g_array_unref (r->losses);
  if (r->report)
    json_decref (r->report);
  g_free (r);
}

/* Checks a --fix list: NULL with a one-line message on stderr when a
 * name is unknown or a value is missing or bad. */
static char *
check_fixes (const char *text)
{
  g_auto (GStrv) items = g_strsplit (text, ",", -1);
  g_autoptr (GString) out = g_string_new (NULL);

  for (guint i = 0; items[i] != NULL; i++)
    {
      g_autofree char *item = g_strstrip (g_strdup (items[i]));
      char *eq = strchr (item, '=');
      gsize k;

      if (*item == '\0')
        continue;
      if (eq != NULL)
        *eq = '\0';
      for (k = 0; k < G_N_ELEMENTS (known_fixes); k++)
        if (g_str_equal (item, known_fixes[k].name))
          break;
      if (k == G_N_ELEMENTS (known_fixes))
        {
          pfprof_cli_error ("unknown fix '%s'; the fixes are pin-memory, workers=N, persistent-workers, "
                            "prefetch-factor=N, non-blocking, prefetch, and the measurement ideal-input[=K]",
                            item);
          return NULL;
        }
      if (known_fixes[k].optional && eq == NULL)
        g_string_append_printf (out, "%s%s", out->len ? "," : "", item);
      else if (known_fixes[k].value)
        {
          guint64 n = 0;

          if (eq == NULL || !g_ascii_string_to_unsigned (eq + 1, 10, 1, 1024, &n, NULL))
            {
              pfprof_cli_error ("--fix %s needs a number from 1 to 1024 (%s=N)", item, item);
              return NULL;
            }
          g_string_append_printf (out, "%s%s=%u", out->len ? "," : "", item, (guint) n);
        }
      else if (eq != NULL)
        {
          pfprof_cli_error ("--fix %s takes no value", item);
          return NULL;
        }
      else
        g_string_append_printf (out, "%s%s", out->len ? "," : "", item);
    }
  if (out->len == 0)
    {
      pfprof_cli_error ("--fix needs at least one fix name");
      return NULL;
    }
  if (strstr (out->str, PFPROF_TRY_IDEAL) != NULL && strchr (out->str, ',') != NULL)
    {
      pfprof_cli_error ("--fix ideal-input is a measurement, not a fix: try it alone");
      return NULL;
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static gboolean
write_resource (const char *resource, const char *dir, const char *name, GError **error)
{
  g_autoptr (GBytes) text = g_resources_lookup_data (resource, 0, error);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  gsize len = 0;
  const char *data;

  if (text == NULL)
    return FALSE;
  data = g_bytes_get_data (text, &len);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "cannot create %s: %s", dir,
                   g_strerror (errno));
      return FALSE;
    }
  return g_file_set_contents (path, data, (gssize) len, error);
}

/* A run's output into its log (g_spawn closed every other descriptor
 * before this runs, so the log is opened here). */
static void
child_to_log (gpointer data)
{
  int fd = open ((const char *) data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

  if (fd >= 0)
    {
      dup2 (fd, 1);
      dup2 (fd, 2);
    }
}

/* The step intervals of a run: from the process whose step file has
 * most marks (a program's trainer process), optimizer steps when at
 * least three were marked, else DataLoader batches. */
static void
read_steps (Try *t, TryRun *r, const char *prefix)
{
  g_autoptr (GDir) d = g_dir_open (t->dir, 0, NULL);
  GArray *best[2] = { NULL, NULL };
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autofree char *text = NULL;
      g_auto (GStrv) lines = NULL;
      g_autoptr (GArray) marks = NULL;
      int kind;

      if (!g_str_has_prefix (name, prefix))
        continue;
      kind = g_str_has_suffix (name, ".loader") ? 1 : 0;
      path = g_build_filename (t->dir, name, NULL);
      if (!g_file_get_contents (path, &text, NULL, NULL))
        continue;
      lines = g_strsplit (text, "\n", -1);
      marks = g_array_new (FALSE, FALSE, sizeof (gint64));
      for (guint i = 0; lines[i] != NULL; i++)
        {
          gint64 v;

          if (lines[i][0] != '\0' && g_ascii_string_to_signed (lines[i], 10, 0, G_MAXINT64, &v, NULL))
            g_array_append_val (marks, v);
        }
      if (best[kind] == NULL || marks->len > best[kind]->len)
        {
          g_clear_pointer (&best[kind], g_array_unref);
          best[kind] = g_steal_pointer (&marks);
        }
    }
  {
    int kind = best[0] != NULL && best[0]->len >= 3 ? 0 : 1;
    GArray *m = best[kind];
    guint n, skip;

    if (m == NULL || m->len < 2)
      {
        g_clear_pointer (&best[0], g_array_unref);
        g_clear_pointer (&best[1], g_array_unref);
        return;
      }
    r->step_source = kind == 0 ? "optimizer.step" : "DataLoader";
    n = m->len - 1;
    /* The first steps are warm-up (start-up, compilation, workers
     * starting): measured are the last --steps, by default the last
     * three quarters. */
    skip = t->steps > 0 ? (n > t->steps ? n - t->steps : 0) : n / 4;
    for (guint i = skip + 1; i < m->len; i++)
      {
        gint64 dt = g_array_index (m, gint64, i) - g_array_index (m, gint64, i - 1);

        g_array_append_val (r->steps, dt);
      }
    g_clear_pointer (&best[0], g_array_unref);
    g_clear_pointer (&best[1], g_array_unref);
  }
  if (r->steps->len > 0)
    {
      g_autofree gint64 *copy = g_memdup2 (r->steps->data, r->steps->len * sizeof (gint64));

      r->median = pfprof_quantile_median_i64 (copy, r->steps->len);
    }
}

static void
read_notes (Try *t, const char *path)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      gboolean seen = FALSE;

      if (lines[i][0] == '\0' || !g_utf8_validate (lines[i], -1, NULL))
        continue;
      for (guint k = 0; k < t->notes->len && !seen; k++)
        seen = g_str_equal (g_ptr_array_index (t->notes, k), lines[i]);
      if (!seen)
        g_ptr_array_add (t->notes, g_strdup (lines[i]));
    }
}

/* `pfprof report --format json` of the traces a run left. */
static json_t *
read_report (Try *t, const char *prefix)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) d = g_dir_open (t->dir, 0, NULL);
  g_autofree char *out = NULL;
  const char *name;
  int status = 0;

  g_ptr_array_add (argv, g_strdup (t->self));
  g_ptr_array_add (argv, g_strdup ("report"));
  g_ptr_array_add (argv, g_strdup ("--format"));
  g_ptr_array_add (argv, g_strdup ("json"));
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, prefix) && g_str_has_suffix (name, ".pfprof"))
      g_ptr_array_add (argv, g_build_filename (t->dir, name, NULL));
  if (argv->len == 4)
    return NULL;
  g_ptr_array_add (argv, NULL);
  if (!g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                     &status, NULL)
      || out == NULL)
    return NULL;
  return json_loadb (out, strlen (out), 0, NULL);
}

/* The findings of a report (an empty array's worth when absent). */
static const json_t *
report_findings (const json_t *report)
{
  const json_t *findings = json_object_get (report, "findings");

  return json_is_array (findings) ? findings : NULL;
}

/* Runs PROGRAM once; FALSE when it could not be started. */
static gboolean
run_once (Try *t, TryRun *r, const char *fixes, gboolean traced, gboolean show)
{
  g_autofree char *prefix = g_strdup_printf ("%c%d-", r->arm, r->round);
  g_autofree char *steps = g_strdup_printf ("%s/%ssteps-%%p", t->dir, prefix);
  g_autofree char *notes = g_strdup_printf ("%s/%snotes", t->dir, prefix);
  g_autofree char *trace = g_strdup_printf ("%s/%s%%p.pfprof", t->dir, prefix);
  g_autofree char *pythonpath = NULL;
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) env = g_get_environ ();
  const char *user_path = g_environ_getenv (env, "PYTHONPATH");
  int status = 0;

  if (traced)
    pythonpath = g_strjoin (":", t->fixes_dir, user_path && *user_path ? user_path : NULL, NULL);
  else
    pythonpath = g_strjoin (":", t->hook_dir, t->fixes_dir, user_path && *user_path ? user_path : NULL, NULL);
  env = g_environ_setenv (env, "PYTHONPATH", pythonpath, TRUE);
  env = g_environ_setenv (env, "PFPROF_TRY_STEPS", steps, TRUE);
  env = g_environ_setenv (env, "PFPROF_TRY_NOTES", notes, TRUE);
  if (fixes != NULL)
    env = g_environ_setenv (env, "PFPROF_TRY_FIXES", fixes, TRUE);
  else
    env = g_environ_unsetenv (env, "PFPROF_TRY_FIXES");
  if (!traced)
    {
      env = g_environ_setenv (env, "PFPROF_HOOK_DIR", t->hook_dir, TRUE);
      env = g_environ_setenv (env, "PFPROF_PYTHON_HOOKS", "0", TRUE);
      env = g_environ_unsetenv (env, "CUDA_INJECTION64_PATH");
    }
  else
    {
      g_ptr_array_add (argv, t->self);
      g_ptr_array_add (argv, (char *) "record");
      g_ptr_array_add (argv, (char *) "--quiet");
      g_ptr_array_add (argv, (char *) "--no-report");
      if (t->sample != NULL)
        {
          g_ptr_array_add (argv, (char *) "--sample");
          g_ptr_array_add (argv, t->sample);
        }
      g_ptr_array_add (argv, (char *) "-o");
      g_ptr_array_add (argv, trace);
      g_ptr_array_add (argv, (char *) "--");
    }
  for (guint i = 0; t->command[i] != NULL; i++)
    g_ptr_array_add (argv, t->command[i]);
  g_ptr_array_add (argv, NULL);
  if (!show)
    r->log = g_strdup_printf ("%s/%slog", t->dir, prefix);
  fflush (stdout);
  fflush (stderr);
  if (!g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_SEARCH_PATH | G_SPAWN_CHILD_INHERITS_STDIN,
                     show ? NULL : child_to_log, r->log, NULL, NULL, &status, &error))
    {
      pfprof_cli_error ("cannot run '%s': %s", t->command[0], error->message);
      r->code = g_error_matches (error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT) ? 127 : 126;
      return FALSE;
    }
  r->code = WIFSIGNALED (status) ? 128 + WTERMSIG (status) : WEXITSTATUS (status);
  {
    g_autofree char *steps_prefix = g_strconcat (prefix, "steps-", NULL);

    read_steps (t, r, steps_prefix);
  }
  if (r->log != NULL)
    {
      g_autofree char *text = NULL;

      if (g_file_get_contents (r->log, &text, NULL, NULL))
        r->losses = pfprof_try_loss_parse (text);
    }
  if (fixes != NULL)
    read_notes (t, notes);
  if (traced)
    r->report = read_report (t, prefix);
  return TRUE;
}

/* Whether a rule's fixes, which act on host-to-device copies only
 * (@htod_only), can touch the copies @finding is about: a finding about
 * device-to-host copies alone (`.cpu()` each step) needs a code change.
 * A report without `copy_directions` (older) is taken as it says. */
static gboolean
fix_reaches (gboolean htod_only, const json_t *finding)
{
  const json_t *dirs = json_object_get (finding, "copy_directions");

  if (!htod_only || !json_is_array (dirs) || json_array_size (dirs) == 0)
    return TRUE;
  for (gsize i = 0; i < json_array_size (dirs); i++)
    if (g_strcmp0 (json_string_value (json_array_get (dirs, i)), "htod") == 0)
      return TRUE;
  return FALSE;
}

/* The fixes the first run's findings suggest that the hook can apply;
 * the rules whose fixes need a code change go to @manual. */
static char *
fixes_from_report (const json_t *report, GPtrArray *manual)
{
  const json_t *findings = report_findings (report);
  g_autoptr (GString) out = g_string_new (NULL);
  int workers = CLAMP ((int) g_get_num_processors () - 2, 2, 16);

  for (guint i = 0; i < json_array_size (findings); i++)
    {
      const json_t *finding = json_array_get (findings, i);
      const char *rule = json_string_value (json_object_get (finding, "rule"));
      gboolean found = FALSE;

      if (rule == NULL)
        continue;
      for (gsize k = 0; k < G_N_ELEMENTS (rule_fixes); k++)
        if (g_str_equal (rule, rule_fixes[k].rule) && fix_reaches (rule_fixes[k].htod_only, finding))
          {
            g_autofree char *f = rule_fixes[k].workers ? g_strdup_printf ("workers=%d,%s", workers, rule_fixes[k].fixes)
                                                       : g_strdup (rule_fixes[k].fixes);

            found = TRUE;
            if (strstr (out->str, f) == NULL)
              g_string_append_printf (out, "%s%s", out->len ? "," : "", f);
          }
      if (!found && !g_ptr_array_find_with_equal_func (manual, rule, g_str_equal, NULL))
        g_ptr_array_add (manual, g_strdup (rule));
    }
  return out->len ? g_string_free (g_steal_pointer (&out), FALSE) : NULL;
}

/* Whether @rule's finding is one that @fixes (a checked --fix list)
 * addresses: a fix the rule suggests is among them. */
static gboolean
rule_is_tried (const char *rule, const char *fixes)
{
  g_auto (GStrv) tried = g_strsplit (fixes ? fixes : "", ",", -1);

  for (gsize k = 0; k < G_N_ELEMENTS (rule_fixes); k++)
    {
      g_auto (GStrv) suggested = NULL;

      if (!g_str_equal (rule, rule_fixes[k].rule))
        continue;
      suggested = g_strsplit (rule_fixes[k].fixes, ",", -1);
      for (guint i = 0; tried[i] != NULL; i++)
        {
          g_autofree char *name = g_strdup (tried[i]);

          *strchrnul (name, '=') = '\0';
          if (rule_fixes[k].workers && g_str_equal (name, "workers"))
            return TRUE;
          for (guint j = 0; suggested[j] != NULL; j++)
            if (g_str_has_prefix (suggested[j], name) && (suggested[j][strlen (name)] == '\0' || suggested[j][strlen (name)] == '='))
              return TRUE;
        }
    }
  return FALSE;
}

typedef struct
{
  guint n;
  gint64 mean, median, spread; /* over the rounds' medians */
} TryArm;

static TryArm
arm_stats (Try *t, char arm)
{
  g_autoptr (GArray) v = g_array_new (FALSE, FALSE, sizeof (gint64));
  TryArm s = { 0, -1, -1, -1 };
  gint64 lo = G_MAXINT64, hi = G_MININT64;
  double sum = 0;

  for (guint i = 0; i < t->runs->len; i++)
    {
      TryRun *r = g_ptr_array_index (t->runs, i);

      if (r->arm == arm && r->round > 0 && r->median >= 0)
        g_array_append_val (v, r->median);
    }
  if (v->len == 0)
    return s;
  for (guint i = 0; i < v->len; i++)
    {
      gint64 x = g_array_index (v, gint64, i);

      sum += (double) x;
      lo = MIN (lo, x);
      hi = MAX (hi, x);
    }
  s.n = v->len;
  s.mean = (gint64) (sum / v->len);
  s.median = pfprof_quantile_median_i64 ((gint64 *) v->data, v->len);
  s.spread = hi - lo;
  return s;
}

typedef struct
{
  guint n;          /* rounds with both arms measured */
  gint64 mean;      /* of B - A per round */
  gint64 spread;    /* of B - A, max - min */
  gboolean conclusive;
  const char *why;  /* when not */
} TryDiff;

static TryDiff
diff_stats (Try *t)
{
  TryDiff d = { 0, 0, 0, FALSE, NULL };
  gint64 lo = G_MAXINT64, hi = G_MININT64;
  double sum = 0;
  int pos = 0, neg = 0;

  for (guint i = 0; i < t->runs->len; i++)
    {
      TryRun *a = g_ptr_array_index (t->runs, i);

      if (a->arm != 'A' || a->round <= 0 || a->median < 0)
        continue;
      for (guint k = 0; k < t->runs->len; k++)
        {
          TryRun *b = g_ptr_array_index (t->runs, k);
          gint64 x;

          if (b->arm != 'B' || b->round != a->round || b->median < 0)
            continue;
          x = b->median - a->median;
          sum += (double) x;
          lo = MIN (lo, x);
          hi = MAX (hi, x);
          pos += x > 0;
          neg += x < 0;
          d.n++;
        }
    }
  if (d.n == 0)
    {
      d.why = "no round measured both arms";
      return d;
    }
  d.mean = (gint64) (sum / d.n);
  d.spread = hi - lo;
  if (d.n < 2)
    d.why = "one round: no measure of the noise";
  else if (pos > 0 && neg > 0)
    d.why = "the rounds disagree on the sign of the difference";
  else if (d.spread > ABS (d.mean))
    d.why = "the rounds' differences spread wider than their mean";
  else
    d.conclusive = TRUE;
  return d;
}

/* The rules of a report's findings. */
static GPtrArray *
report_rules (const json_t *report)
{
  GPtrArray *rules = g_ptr_array_new ();
  const json_t *findings = report_findings (report);

  for (guint i = 0; i < json_array_size (findings); i++)
    {
      const char *rule = json_string_value (json_object_get (json_array_get (findings, i), "rule"));

      if (rule != NULL && !g_ptr_array_find_with_equal_func (rules, rule, g_str_equal, NULL))
        g_ptr_array_add (rules, (char *) rule);
    }
  return rules;
}

static TryRun *
first_run (Try *t, char arm, gboolean traced)
{
  for (guint i = 0; i < t->runs->len; i++)
    {
      TryRun *r = g_ptr_array_index (t->runs, i);

      if (r->arm == arm && (!traced || r->report != NULL))
        return r;
    }
  return NULL;
}

/* The loss check over the runs read so far (pfprof-try-loss.h): the
 * measured rounds' unmodified runs with a log (the one shown on the
 * terminal is not read) against the runs with the fix. */
static void
loss_check (Try *t, PfprofTryLoss *out)
{
  g_autoptr (GPtrArray) a = g_ptr_array_new ();
  g_autoptr (GPtrArray) b = g_ptr_array_new ();

  for (guint i = 0; i < t->runs->len; i++)
    {
      TryRun *r = g_ptr_array_index (t->runs, i);

      if (r->round > 0 && r->losses != NULL && r->code == 0)
        g_ptr_array_add (r->arm == 'A' ? a : b, r->losses);
    }
  pfprof_try_loss_compare (a, b, out);
}

typedef enum
{
  TRY_TEXT,
  TRY_JSON,
  TRY_MARKDOWN,
} TryFormat;

/* One cell: a duration, or "-". */
static char *
cell_ns (gint64 ns)
{
  return ns < 0 ? g_strdup ("-") : pfprof_format_ns (ns);
}

static void
print_result (Try *t, TryFormat format, const char *fixes, GPtrArray *manual, const char *failed)
{
  TryArm a = arm_stats (t, 'A'), b = arm_stats (t, 'B');
  TryDiff d = diff_stats (t);
  PfprofTryLoss loss;
  TryRun *ta = first_run (t, 'A', TRUE), *tb = first_run (t, 'B', TRUE);
  g_autoptr (GPtrArray) predictions = g_ptr_array_new_with_free_func (g_free); /* "rule\tns" */
  g_autoptr (GPtrArray) rules_a = ta ? report_rules (ta->report) : NULL;
  g_autoptr (GPtrArray) rules_b = tb ? report_rules (tb->report) : NULL;
  g_autoptr (GString) out = g_string_new (NULL);
  g_autofree char *verdict = NULL;
  g_autofree char *ideal = NULL; /* the ideal-input sentence */
  double ideal_pct = 0;
  gboolean ideal_pays = FALSE, suggest_ideal = FALSE;
  const char *source = NULL;
  const char *not_checked = "arm B replays the program's first batches on purpose: its loss is not the program's";
  guint rounds_run = 0, runs_run = 0;

  loss_check (t, &loss);
  for (guint i = 0; i < t->runs->len; i++)
    {
      TryRun *r = g_ptr_array_index (t->runs, i);

      if (source == NULL)
        source = r->step_source;
      if (r->round > 0)
        {
          rounds_run = MAX (rounds_run, (guint) r->round);
          runs_run++;
        }
    }
  if (ta != NULL)
    {
      const json_t *findings = report_findings (ta->report);

      for (guint i = 0; i < json_array_size (findings); i++)
        {
          const json_t *f = json_array_get (findings, i);
          const char *rule = json_string_value (json_object_get (f, "rule"));
          const json_t *predicted = json_object_get (f, "predicted_step_ns");

          if (rule != NULL && rule_is_tried (rule, fixes) && json_is_integer (predicted))
            g_ptr_array_add (predictions, g_strdup_printf ("%s\t%" JSON_INTEGER_FORMAT, rule, json_integer_value (predicted)));
        }
    }
  if (failed != NULL)
    verdict = g_strdup_printf ("abandoned: %s", failed);
  else if (source == NULL)
    verdict = g_strdup_printf ("inconclusive: no step measured: none of the %u runs called optimizer.step() or "
                               "took a batch from a torch DataLoader in Python",
                               runs_run);
  else if (!d.conclusive)
    verdict = g_strdup_printf ("inconclusive: %s", d.why);
  else
    {
      g_autofree char *amount = pfprof_format_ns (ABS (d.mean));
      g_autofree char *pct = pfprof_format_double (a.mean > 0 ? 100.0 * (double) ABS (d.mean) / (double) a.mean : 0, 1);

      verdict = g_strdup_printf ("%s by %s a step (%s%%), every round agreeing", d.mean < 0 ? "faster" : "slower",
                                 amount, pct);
    }
  /* ideal-input: the step with free input, the ceiling of input fixes. */
  if (t->ideal && failed == NULL && a.n > 0 && b.n > 0 && a.mean > 0)
    {
      g_autofree char *step = pfprof_format_ns (b.mean);
      g_autofree char *pct = NULL;
      g_autofree char *least = pfprof_format_double (PFPROF_TRY_IDEAL_PAYS_PCT, 0);

      ideal_pct = 100.0 * (double) (b.mean - a.mean) / (double) a.mean;
      ideal_pays = d.conclusive && d.mean < 0 && -ideal_pct > PFPROF_TRY_IDEAL_PAYS_PCT;
      pct = pfprof_format_double (ABS (ideal_pct), 1);
      ideal = g_strdup_printf ("a perfect input pipeline would make the step %s (%s%s%%): no input fix can beat "
                               "it%s%s%s",
                               step, ideal_pct < 0 ? "-" : "+", pct,
                               ideal_pays ? "" : "; with free input the step is not ",
                               ideal_pays ? "" : d.conclusive ? least : "measurably",
                               ideal_pays ? ""
                               : d.conclusive ? "% shorter, so optimizing the input will not pay"
                                              : " shorter, so optimizing the input will not pay");
    }
  suggest_ideal = !t->ideal && rules_a != NULL
                  && g_ptr_array_find_with_equal_func (rules_a, "input-starved", g_str_equal, NULL);

  if (format == TRY_JSON)
    {
      PfprofJsonWriter w;

      pfprof_json_writer_init (&w, out);
      pfprof_json_writer_begin_object (&w);
      pfprof_json_writer_member_string (&w, "format", "pfprof-try/1");
      pfprof_json_writer_member_string (&w, "fixes", fixes);
      pfprof_json_writer_member_string (&w, "step_source", source);
      pfprof_json_writer_key (&w, "runs");
      pfprof_json_writer_begin_array (&w);
      for (guint i = 0; i < t->runs->len; i++)
        {
          TryRun *r = g_ptr_array_index (t->runs, i);
          char arm[2] = { r->arm, '\0' };

          pfprof_json_writer_new_line (&w);
          pfprof_json_writer_begin_object (&w);
          pfprof_json_writer_member_string (&w, "arm", arm);
          pfprof_json_writer_member_int (&w, "round", r->round);
          pfprof_json_writer_member_int (&w, "exit_code", r->code);
          pfprof_json_writer_member_int (&w, "steps", r->steps->len);
          pfprof_json_writer_key (&w, "step_median_ns");
          if (r->median >= 0)
            pfprof_json_writer_int (&w, r->median);
          else
            pfprof_json_writer_null (&w);
          pfprof_json_writer_member_string (&w, "log", r->log);
          pfprof_json_writer_end_object (&w);
        }
      pfprof_json_writer_end_array (&w);
      for (int k = 0; k < 2; k++)
        {
          TryArm *s = k == 0 ? &a : &b;

          pfprof_json_writer_key (&w, k == 0 ? "a" : "b");
          pfprof_json_writer_begin_object (&w);
          pfprof_json_writer_member_int (&w, "rounds", s->n);
          pfprof_json_writer_member_int (&w, "mean_ns", s->mean);
          pfprof_json_writer_member_int (&w, "median_ns", s->median);
          pfprof_json_writer_member_int (&w, "spread_ns", s->spread);
          pfprof_json_writer_end_object (&w);
        }
      pfprof_json_writer_key (&w, "difference");
      pfprof_json_writer_begin_object (&w);
      pfprof_json_writer_member_int (&w, "rounds", d.n);
      pfprof_json_writer_member_int (&w, "mean_ns", d.mean);
      pfprof_json_writer_member_int (&w, "spread_ns", d.spread);
      pfprof_json_writer_member_string (&w, "verdict",
                                        failed ? "abandoned" : d.conclusive ? (d.mean < 0 ? "faster" : "slower")
                                                                            : "inconclusive");
      pfprof_json_writer_member_string (&w, "why", failed ? failed : d.why);
      pfprof_json_writer_end_object (&w);
      if (ideal != NULL)
        {
          pfprof_json_writer_key (&w, "ideal_input");
          pfprof_json_writer_begin_object (&w);
          pfprof_json_writer_member_int (&w, "step_ns", b.mean);
          pfprof_json_writer_member_double (&w, "change_pct", ideal_pct, 1);
          pfprof_json_writer_key (&w, "input_fix_pays");
          pfprof_json_writer_bool (&w, ideal_pays);
          pfprof_json_writer_member_string (&w, "text", ideal);
          pfprof_json_writer_end_object (&w);
        }
      pfprof_json_writer_member_string (&w, "suggested_measurement", suggest_ideal ? PFPROF_TRY_IDEAL : NULL);
      pfprof_json_writer_key (&w, "loss");
      pfprof_json_writer_begin_object (&w);
      pfprof_json_writer_member_string (&w, "verdict",
                                        t->ideal ? "not checked" : pfprof_try_loss_verdict_name (loss.verdict));
      pfprof_json_writer_member_string (&w, "why", t->ideal ? not_checked : loss.why);
      pfprof_json_writer_member_int (&w, "a_runs", loss.a_runs);
      pfprof_json_writer_member_int (&w, "b_runs", loss.b_runs);
      pfprof_json_writer_member_int (&w, "values", loss.values);
      if (!t->ideal
          && (loss.verdict == PFPROF_TRY_LOSS_SAME || (loss.verdict == PFPROF_TRY_LOSS_CHANGED && loss.values > 0)))
        for (int k = 0; k < 2; k++)
          {
            const PfprofTryLossWindow *lw = k == 0 ? &loss.all : &loss.end;

            pfprof_json_writer_key (&w, k == 0 ? "all" : "last_quarter");
            pfprof_json_writer_begin_object (&w);
            pfprof_json_writer_member_double (&w, "a_min", lw->lo, 6);
            pfprof_json_writer_member_double (&w, "a_max", lw->hi, 6);
            pfprof_json_writer_member_double (&w, "b_min", lw->b_lo, 6);
            pfprof_json_writer_member_double (&w, "b_max", lw->b_hi, 6);
            pfprof_json_writer_member_double (&w, "tolerance", lw->tolerance, 6);
            pfprof_json_writer_end_object (&w);
          }
      pfprof_json_writer_end_object (&w);
      if (predictions->len > 0)
        {
          pfprof_json_writer_key (&w, "predictions");
          pfprof_json_writer_begin_array (&w);
          for (guint i = 0; i < predictions->len; i++)
            {
              g_auto (GStrv) p = g_strsplit (g_ptr_array_index (predictions, i), "\t", 2);

              pfprof_json_writer_begin_object (&w);
              pfprof_json_writer_member_string (&w, "rule", p[0]);
              pfprof_json_writer_member_int (&w, "predicted_step_ns", g_ascii_strtoll (p[1], NULL, 10));
              pfprof_json_writer_end_object (&w);
            }
          pfprof_json_writer_end_array (&w);
        }
      pfprof_json_writer_key (&w, "notes");
      pfprof_json_writer_begin_array (&w);
      for (guint i = 0; i < t->notes->len; i++)
        {
          g_auto (GStrv) p = g_strsplit (g_ptr_array_index (t->notes, i), "\t", 3);

          pfprof_json_writer_begin_object (&w);
          pfprof_json_writer_member_string (&w, "state", p[0]);
          pfprof_json_writer_member_string (&w, "fix", p[1]);
          pfprof_json_writer_member_string (&w, "text", p[1] ? p[2] : NULL);
          pfprof_json_writer_end_object (&w);
        }
      pfprof_json_writer_end_array (&w);
      pfprof_json_writer_key (&w, "needs_code_change");
      pfprof_json_writer_begin_array (&w);
      for (guint i = 0; i < manual->len; i++)
        pfprof_json_writer_string (&w, g_ptr_array_index (manual, i));
      pfprof_json_writer_end_array (&w);
      if (rules_a != NULL && rules_b != NULL)
        {
          pfprof_json_writer_key (&w, "findings");
          pfprof_json_writer_begin_object (&w);
          for (int k = 0; k < 3; k++)
            {
              GPtrArray *from = k == 2 ? rules_b : rules_a, *other = k == 2 ? rules_a : rules_b;

              pfprof_json_writer_key (&w, k == 0 ? "resolved" : k == 1 ? "left" : "new");
              pfprof_json_writer_begin_array (&w);
              for (guint i = 0; i < from->len; i++)
                if (g_ptr_array_find_with_equal_func (other, from->pdata[i], g_str_equal, NULL) == (k == 1))
                  pfprof_json_writer_string (&w, from->pdata[i]);
              pfprof_json_writer_end_array (&w);
            }
          pfprof_json_writer_end_object (&w);
        }
      pfprof_json_writer_member_string (&w, "folder", t->dir);
      pfprof_json_writer_end_object (&w);
      g_string_append_c (out, '\n');
    }
  else
    {
      gboolean md = format == TRY_MARKDOWN;
      const char *h = md ? "| " : "  ", *sep = md ? " | " : "  ", *end = md ? " |\n" : "\n";
      g_autofree char *am = cell_ns (a.mean), *amed = cell_ns (a.median), *asp = cell_ns (a.spread);
      g_autofree char *bm = cell_ns (b.mean), *bmed = cell_ns (b.median), *bsp = cell_ns (b.spread);
      g_autofree char *dm = NULL, *dsp = cell_ns (d.n ? d.spread : -1);
      const char *arm_b = t->ideal ? "B: free input" : "B: with the fix";

      if (d.n)
        {
          g_autofree char *x = pfprof_format_ns (ABS (d.mean));

          dm = g_strdup_printf ("%s%s", d.mean < 0 ? "-" : "+", x);
        }
      else
        dm = g_strdup ("-");
      if (md)
        {
          GString *e = g_string_new (NULL);

          pfprof_escape_markdown (e, fixes ? fixes : "none");
          g_string_append_printf (out, "### pfprof try: %s\n\n", e->str);
          g_string_free (e, TRUE);
          g_string_append (out, "| arm | rounds | step mean | step median | spread |\n|---|---|---|---|---|\n");
        }
      else
        {
          g_autofree char *what = NULL;

          if (source == NULL)
            what = g_strdup_printf ("%u rounds, %u runs, no step measured in any", rounds_run, runs_run);
          else if (MAX (a.n, b.n) < rounds_run)
            what = g_strdup_printf ("step time from %s, median of each run, %u rounds run, %u measured", source,
                                    rounds_run, MAX (a.n, b.n));
          else
            what = g_strdup_printf ("step time from %s, median of each run, over %u rounds", source, rounds_run);
          g_string_append_printf (out, "pfprof try: %s (%s)\n\n  %-16s %6s  %12s  %12s  %12s\n",
                                  fixes ? fixes : "no fix", what, "arm", "rounds", "step mean", "step median",
                                  "spread");
        }
      if (md)
        {
          g_string_append_printf (out, "%sA: as it is%s%u%s%s%s%s%s%s%s", h, sep, a.n, sep, am, sep, amed, sep, asp, end);
          g_string_append_printf (out, "%s%s%s%u%s%s%s%s%s%s%s", h, arm_b, sep, b.n, sep, bm, sep, bmed, sep, bsp, end);
          g_string_append_printf (out, "%sB - A%s%u%s%s%s%s%s%s%s\n", h, sep, d.n, sep, dm, sep, "", sep, dsp, end);
        }
      else
        {
          g_string_append_printf (out, "  %-16s %6u  %12s  %12s  %12s\n", "A: as it is", a.n, am, amed, asp);
          g_string_append_printf (out, "  %-16s %6u  %12s  %12s  %12s\n", arm_b, b.n, bm, bmed, bsp);
          g_string_append_printf (out, "  %-16s %6u  %12s  %12s  %12s\n\n", "B - A", d.n, dm, "", dsp);
        }
      g_string_append_printf (out, "%s%s\n", md ? "**Result:** " : "Result: ", verdict);
      if (ideal != NULL)
        g_string_append_printf (out, "%s%c%s\n", md ? "- " : "  ", g_ascii_toupper (ideal[0]), ideal + 1);
      if (t->ideal)
        g_string_append_printf (out, "%sLoss: not checked: %s\n", md ? "- " : "  ", not_checked);
      else if (loss.verdict != PFPROF_TRY_LOSS_NONE)
        g_string_append_printf (out, "%sLoss: %s: %s\n", md ? "- " : "  ",
                                loss.verdict == PFPROF_TRY_LOSS_SAME      ? "within the noise"
                                : loss.verdict == PFPROF_TRY_LOSS_CHANGED ? "changed with the fix"
                                : loss.verdict == PFPROF_TRY_LOSS_UNJUDGED
                                  ? "cannot judge the loss, the speed verdict stands"
                                  : "not compared",
                                loss.why);
      for (guint i = 0; i < predictions->len; i++)
        {
          g_auto (GStrv) p = g_strsplit (g_ptr_array_index (predictions, i), "\t", 2);
          g_autofree char *ns = pfprof_format_ns (g_ascii_strtoll (p[1], NULL, 10));

          g_string_append_printf (out, "%sPredicted by %s's finding: a mean step of %s (measured with the fix: median %s)\n", md ? "- " : "  ",
                                  p[0], ns, bmed);
        }
      for (guint i = 0; i < t->notes->len; i++)
        {
          g_auto (GStrv) p = g_strsplit (g_ptr_array_index (t->notes, i), "\t", 3);
          GString *e = g_string_new (NULL);

          if (md)
            pfprof_escape_markdown (e, p[1] && p[2] ? p[2] : "");
          else
            pfprof_escape_terminal (e, p[1] && p[2] ? p[2] : "", FALSE);
          g_string_append_printf (out, "%s%s %s: %s\n", md ? "- " : "  ", p[1] ? p[1] : "", p[0], e->str);
          g_string_free (e, TRUE);
        }
      for (guint i = 0; i < manual->len; i++)
        g_string_append_printf (out, "%s%s: needs a code change (see pfprof report)\n", md ? "- " : "  ",
                                (char *) g_ptr_array_index (manual, i));
      if (suggest_ideal)
        g_string_append_printf (out, "%sinput-starved: pfprof try --fix ideal-input measures the step with free "
                                     "input, the most any input fix can give\n",
                                md ? "- " : "  ");
      if (rules_a != NULL && rules_b != NULL)
        for (int k = 0; k < 3; k++)
          {
            GPtrArray *from = k == 2 ? rules_b : rules_a, *other = k == 2 ? rules_a : rules_b;
            GString *list = g_string_new (NULL);

            for (guint i = 0; i < from->len; i++)
              if (g_ptr_array_find_with_equal_func (other, from->pdata[i], g_str_equal, NULL) == (k == 1))
                g_string_append_printf (list, "%s%s", list->len ? ", " : "", (char *) from->pdata[i]);
            g_string_append_printf (out, "%sFindings %s: %s\n", md ? "- " : "  ",
                                    k == 0 ? "resolved" : k == 1 ? "left" : "new", list->len ? list->str : "none");
            g_string_free (list, TRUE);
          }
      if (!md)
        g_string_append_printf (out, "Logs, step times%s: %s\n", t->traced ? " and traces" : "", t->dir);
    }
  fputs (out->str, stdout);
  pfprof_try_loss_clear (&loss);
}

const PfprofCliHelp pfprof_cmd_try_help = {
  "try",
  "Measure a fix on the program's own run, with no change to its code",
  "-- PROGRAM [ARGS...]",
  "Runs PROGRAM as it is (arm A) and with FIXES (arm B) applied by pfprof's\n"
  "Python start-up hook, with no change to its code, a fresh process each\n"
  "time, alternating for R rounds (each round B, then A, so that the last run\n"
  "is the unmodified program), and compares their step times. A step is the\n"
  "time between two optimizer.step() calls, else between two DataLoader\n"
  "batches; no synchronisation is added. The first steps are warm-up: each\n"
  "run's last N steps are measured (--steps; default: the last three\n"
  "quarters), and a run counts by its median step. The difference is\n"
  "conclusive only when every round agrees on its sign and the rounds'\n"
  "differences spread less than their mean; else it is \"inconclusive\".\n"
  "When the program prints its training loss (\"loss: 0.52\"; test, validation\n"
  "and evaluation losses are left out), a fix whose losses leave the spread\n"
  "of the unmodified runs' is abandoned: it changed what the program\n"
  "computes. When the unmodified runs' losses lie more than 20% apart, the\n"
  "loss cannot be judged and the speed verdict stands.\n"
  "\n"
  "Fixes (docs/try.md says what each patches): pin-memory, workers=N,\n"
  "persistent-workers, prefetch-factor=N (DataLoader arguments),\n"
  "non-blocking (host-to-device copies of pinned batches), prefetch (each\n"
  "batch's tensors that the loop moves to the GPU copied there one batch\n"
  "ahead on a side stream). Without --fix, a first traced run of A picks the\n"
  "fixes its findings suggest; the findings whose fix needs a code change\n"
  "are listed as such, and an input-starved finding suggests ideal-input.\n"
  "\n"
  "--fix ideal-input[=K] is a measurement, not a fix, tried alone and never\n"
  "picked: arm B keeps the first K (default 8) batches the loop took from each\n"
  "DataLoader, pinned, and replays them for the rest of the run, each pass\n"
  "as long as the DataLoader's (evaluation loaders too). The result says how\n"
  "long the step is with free input: no input fix can beat it. The loss is\n"
  "not checked in this arm.\n"
  "\n"
  "--traced records every run as pfprof record does, and compares the\n"
  "findings of the first A and B runs. --sample ON/EVERY has the traced\n"
  "runs record ON seconds of every EVERY, as pfprof record --sample does: on\n"
  "a long run, less of the recording's cost is in the traced runs' step\n"
  "times.\n"
  "\n"
  "The first run of A prints to the terminal; every other run's output goes\n"
  "to a log in the folder named at the end, with the step times (and with\n"
  "--traced, the traces).\n",
  "  0  the runs were compared, whatever the result, also when arm B fails\n"
  "     (reported as \"abandoned\" with its log)\n"
  "  N  PROGRAM's own exit code when its unmodified run fails (the others\n"
  "     are not made)\n"
  "  2  usage error\n"
  "  126  PROGRAM is not executable\n"
  "  127  PROGRAM was not found\n",
  NULL,
  NULL,
  "  # Measure pinned memory and non-blocking copies on one epoch\n"
  "  pfprof try --fix pin-memory,non-blocking -- python train.py --epochs 1\n"
  "  # Let the findings of a traced run pick the fixes\n"
  "  pfprof try -- python train.py --epochs 1\n"
  "  # The step when input costs nothing: the ceiling of any input fix\n"
  "  pfprof try --fix ideal-input -- python train.py --epochs 1\n",
  "pfprof(1), pfprof-record(1), pfprof-report(1)",
};

int
pfprof_cmd_try (int argc, char **argv)
{
  g_autofree char *fix_opt = NULL;
  g_autofree char *format_opt = NULL;
  g_autofree char *fixes = NULL;
  g_autofree char *sample = NULL;
  gint steps = G_MININT, rounds = 3; /* G_MININT: --steps not given */
  gboolean traced = FALSE, help = FALSE;
  g_return_val_if_fail (argv != NULL, PFPROF_EXIT_USAGE);

  GOptionEntry entries[] = {
    { "help", 'h', 0, G_OPTION_ARG_NONE, &help, "Show this help", NULL },
    { "fix", 0, 0, G_OPTION_ARG_STRING, &fix_opt, "The fixes to try, comma-separated (default: those the findings suggest)",
      "NAME[,NAME]" },
    { "steps", 0, 0, G_OPTION_ARG_INT, &steps, "Steps measured per run: the last N (default: last three quarters)", "N" },
    { "rounds", 0, 0, G_OPTION_ARG_INT, &rounds, "Rounds of A and B (default 3)", "R" },
    { "traced", 0, 0, G_OPTION_ARG_NONE, &traced, "Record every run with the collector and compare the findings", NULL },
    { "sample", 0, 0, G_OPTION_ARG_STRING, &sample, "Traced runs record ON seconds of every EVERY (as pfprof record)",
      "ON/EVERY" },
    { "format", 'F', 0, G_OPTION_ARG_STRING, &format_opt, "text (default), json or markdown", "FORMAT" },
    { NULL },
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) manual = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *failed = NULL;
  TryFormat format = TRY_TEXT;
  Try t = { 0 };
  int code;

  context = pfprof_cli_help_context_new (&pfprof_cmd_try_help);
  g_option_context_add_main_entries (context, entries, NULL);
  code = pfprof_cli_program_parse (context, &help, argc, argv, "pfprof try [--fix NAME[,NAME]] -- PROGRAM [ARGS...]",
                                   &t.command);
  if (code >= 0)
    return code;
  code = PFPROF_EXIT_OK;
  if (rounds < 1 || rounds > 100)
    {
      pfprof_cli_error ("--rounds expects 1 to 100, not %d", rounds);
      return PFPROF_EXIT_USAGE;
    }
  if (steps != G_MININT && steps < 1)
    {
      pfprof_cli_error ("--steps expects a positive number, not %d", steps);
      return PFPROF_EXIT_USAGE;
    }
  if (format_opt == NULL || g_str_equal (format_opt, "text"))
    format = TRY_TEXT;
  else if (g_str_equal (format_opt, "json"))
    format = TRY_JSON;
  else if (g_str_equal (format_opt, "markdown"))
    format = TRY_MARKDOWN;
  else
    {
      pfprof_cli_error ("unknown --format '%s'; use text, json or markdown", format_opt);
      return PFPROF_EXIT_USAGE;
    }
  if (fix_opt != NULL && (fixes = check_fixes (fix_opt)) == NULL)
    return PFPROF_EXIT_USAGE;
  if (!pfprof_cmd_record_check_sample (sample))
    return PFPROF_EXIT_USAGE;
  if (sample != NULL && fix_opt != NULL && !traced)
    {
      pfprof_cli_error ("--sample applies to traced runs: with --fix, add --traced");
      return PFPROF_EXIT_USAGE;
    }

  t.self = g_file_read_link ("/proc/self/exe", NULL);
  t.traced = traced;
  t.ideal = fixes != NULL && g_str_has_prefix (fixes, PFPROF_TRY_IDEAL);
  t.sample = sample;
  t.steps = steps == G_MININT ? 0 : (guint) steps;
  t.dir = g_dir_make_tmp ("pfprof-try-XXXXXX", &error);
  if (t.self == NULL || t.dir == NULL)
    {
      pfprof_cli_error ("cannot prepare the runs: %s", error ? error->message : "/proc/self/exe unreadable");
      g_free (t.self);
      return PFPROF_EXIT_USAGE;
    }
  t.hook_dir = g_build_filename (t.dir, "python-hook", NULL);
  t.fixes_dir = g_build_filename (t.dir, "python-fixes", NULL);
  t.runs = g_ptr_array_new_with_free_func ((GDestroyNotify) try_run_free);
  t.notes = g_ptr_array_new_with_free_func (g_free);
  if (!write_resource (PFPROF_RECORD_HOOK_RESOURCE, t.hook_dir, "sitecustomize.py", &error)
      || !write_resource (PFPROF_TRY_FIXES_RESOURCE, t.fixes_dir, "pfprof_fixes.py", &error))
    {
      pfprof_cli_error ("cannot write the Python hook: %s", error->message);
      code = PFPROF_EXIT_USAGE;
      goto out;
    }

  {
    gboolean shown = FALSE, failed_said = FALSE;

    /* Without --fix, the first (traced) run of A says what to try. */
    if (fixes == NULL)
      {
        TryRun *r = g_new0 (TryRun, 1);

        r->arm = 'A';
        r->round = 0;
        r->median = -1;
        r->steps = g_array_new (FALSE, FALSE, sizeof (gint64));
        g_ptr_array_add (t.runs, r);
        shown = TRUE;
        if (!run_once (&t, r, NULL, TRUE, TRUE))
          {
            code = r->code;
            goto out;
          }
        if (r->code != 0)
          {
            pfprof_cli_error ("the program failed (exit %d) as it is; nothing to compare", r->code);
            code = r->code;
            goto out;
          }
        if (r->report == NULL)
          {
            pfprof_cli_error ("the first run left no trace to suggest fixes from (no CUDA?); name them with --fix");
            code = PFPROF_EXIT_USAGE;
            goto out;
          }
        fixes = fixes_from_report (r->report, manual);
        if (fixes == NULL)
          {
            print_result (&t, format, NULL, manual, "no finding of the first run has a fix the hook can apply");
            goto out;
          }
      }
    for (int round = 1; round <= rounds; round++)
      for (int k = 0; k < 2; k++)
        {
          TryRun *r;

          if (k == 0 && failed != NULL)
            continue;
          r = g_new0 (TryRun, 1);
          r->arm = k == 0 ? 'B' : 'A';
          r->round = round;
          r->median = -1;
          r->steps = g_array_new (FALSE, FALSE, sizeof (gint64));
          g_ptr_array_add (t.runs, r);
          if (!run_once (&t, r, k == 0 ? fixes : NULL, traced, k == 1 && !shown))
            {
              code = r->code;
              goto out;
            }
          if (k == 1)
            shown = TRUE;
          if (k == 1 && r->code == 0 && failed != NULL && !failed_said)
            {
              pfprof_cli_error ("%s", failed);
              failed_said = TRUE;
            }
          if (k == 1 && r->code != 0)
            {
              pfprof_cli_error ("the program failed (exit %d) as it is, in round %d%s%s; stopped", r->code, round,
                                r->log ? "; see " : "", r->log ? r->log : "");
              code = r->code;
              goto out;
            }
          if (k == 0 && r->code != 0)
            {
              failed = g_strdup_printf ("the program failed (exit %d) with the fix; see %s", r->code, r->log);
            }
          /* Each round's unmodified run adds to the noise the losses
           * with the fix are held against; once they leave it, no more
           * runs with the fix. */
          if (k == 1 && failed == NULL && !t.ideal)
            {
              PfprofTryLoss loss;

              loss_check (&t, &loss);
              if (loss.verdict == PFPROF_TRY_LOSS_CHANGED)
                {
                  failed = g_strdup_printf ("the loss changed with the fix: %s", loss.why);
                  pfprof_cli_error ("%s", failed);
                  failed_said = TRUE;
                }
              pfprof_try_loss_clear (&loss);
            }
        }
    print_result (&t, format, fixes, manual, failed);
  }

out:
  /* The hook files go; logs, step files and traces stay. */
  pfprof_cli_program_remove_tree (t.hook_dir);
  pfprof_cli_program_remove_tree (t.fixes_dir);
  g_free (t.self);
  g_free (t.dir);
  g_free (t.hook_dir);
  g_free (t.fixes_dir);
  g_ptr_array_unref (t.runs);
  g_ptr_array_unref (t.notes);
  return code;
}
