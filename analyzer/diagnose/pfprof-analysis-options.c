/* SPDX-License-Identifier: MIT */
/* pfprof-analysis-options.c: thresholds, rule selection, step pattern. */
#include "pfprof-analysis-options.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pfprof-rules.h"

struct _PfprofAnalysisOptions
{
  char *step_pattern;
  int warmup_steps;      /* -1: detect */
  double min_saving_share; /* below: info */
  double min_phase_share;  /* evaluation judged on its own from here */
  GHashTable *params;    /* "rule-id\nkey" -> double* */
  GHashTable *enabled;   /* rule id -> GINT(1 or 2): 1 off, 2 on; absent: default */
  gboolean select_only;  /* a selection was given: absent means off */
  GHashTable *severity;  /* rule id -> GINT(severity + 1) */
  gboolean keep_occurrences;
  PfprofSourceLinesPolicy source_lines;
  PfprofLoopJudge judge;
};

G_DEFINE_QUARK (pfprof-analysis-error-quark, pfprof_analysis_error)

PfprofAnalysisOptions *
pfprof_analysis_options_new (void)
{
  PfprofAnalysisOptions *o = g_new0 (PfprofAnalysisOptions, 1);

  o->step_pattern = g_strdup (PFPROF_DEFAULT_STEP_PATTERN);
  o->warmup_steps = -1;
  o->min_saving_share = 0.01;
  o->min_phase_share = PFPROF_DEFAULT_MIN_PHASE_SHARE;
  o->params = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  o->enabled = g_hash_table_new (g_str_hash, g_str_equal);
  o->severity = g_hash_table_new (g_str_hash, g_str_equal);
  return o;
}

void
pfprof_analysis_options_free (PfprofAnalysisOptions *o)
{
  if (o == NULL)
    return;
  g_free (o->step_pattern);
  g_hash_table_unref (o->params);
  g_hash_table_unref (o->enabled);
  g_hash_table_unref (o->severity);
  g_free (o);
}

static const PfprofRuleParam *
find_param (const PfprofRule *rule, const char *key)
{
  for (guint i = 0; i < rule->n_params; i++)
    if (strcmp (rule->params[i].key, key) == 0)
      return &rule->params[i];
  return NULL;
}

gboolean
pfprof_analysis_options_set_param (PfprofAnalysisOptions *o, const char *rule_id,
                                   const char *key, double value, GError **error)
{
  const PfprofRule *rule;

  g_return_val_if_fail (rule_id != NULL, FALSE);
  g_return_val_if_fail (o != NULL, FALSE);
  g_return_val_if_fail (key != NULL, FALSE);
  rule = pfprof_rules_lookup (rule_id);
  if (rule == NULL)
    {
      g_set_error (error, PFPROF_ANALYSIS_ERROR, PFPROF_ANALYSIS_ERROR_INVALID_OPTION,
                   "unknown rule '%s'", rule_id);
      return FALSE;
    }
  if (find_param (rule, key) == NULL)
    {
      g_set_error (error, PFPROF_ANALYSIS_ERROR, PFPROF_ANALYSIS_ERROR_INVALID_OPTION,
                   "rule '%s' has no threshold '%s'", rule_id, key);
      return FALSE;
    }
  if (!isfinite (value) || value < 0)
    {
      g_set_error (error, PFPROF_ANALYSIS_ERROR, PFPROF_ANALYSIS_ERROR_INVALID_OPTION,
                   "threshold '%s' of rule '%s' must be a number >= 0", key, rule_id);
      return FALSE;
    }
  g_hash_table_insert (o->params, g_strconcat (rule->id, "\n", key, NULL),
                       g_memdup2 (&value, sizeof value));
  return TRUE;
}

double
pfprof_analysis_options_get_param (const PfprofAnalysisOptions *o, const PfprofRule *rule,
                                   const char *key)
{
  g_return_val_if_fail (rule != NULL, 0.0);
  g_return_val_if_fail (key != NULL, 0.0);

  const PfprofRuleParam *p = find_param (rule, key);
  g_autofree char *k = NULL;
  const double *v;

  g_return_val_if_fail (p != NULL, 0.0);
  if (o == NULL)
    return p->default_value;
  k = g_strconcat (rule->id, "\n", key, NULL);
  v = g_hash_table_lookup (o->params, k);
  return v ? *v : p->default_value;
}

gboolean
pfprof_analysis_options_select_rules (PfprofAnalysisOptions *o, const char *list, GError **error)
{
  g_return_val_if_fail (o != NULL, FALSE);
  g_return_val_if_fail (list != NULL, FALSE);

  g_auto (GStrv) ids = NULL;
  gboolean any_positive = FALSE;

  g_return_val_if_fail (o != NULL, FALSE);
  g_return_val_if_fail (list != NULL, FALSE);
  ids = g_strsplit_set (list, ",; ", -1);
  for (guint i = 0; ids[i]; i++)
    {
      const char *id = ids[i];
      gboolean off = id[0] == '-';
      const PfprofRule *rule;

      if (off)
        id++;
      if (id[0] == '\0')
        continue;
      rule = pfprof_rules_lookup (id);
      if (rule == NULL)
        {
          g_set_error (error, PFPROF_ANALYSIS_ERROR, PFPROF_ANALYSIS_ERROR_INVALID_OPTION,
                       "unknown rule '%s' (see 'pfprof report --list-rules')", id);
          return FALSE;
        }
      if (!off)
        any_positive = TRUE;
      g_hash_table_insert (o->enabled, (gpointer) rule->id, GINT_TO_POINTER (off ? 1 : 2));
    }
  if (any_positive)
    o->select_only = TRUE;
  return TRUE;
}

gboolean
pfprof_analysis_options_set_step_pattern (PfprofAnalysisOptions *o, const char *pattern,
                                          GError **error)
{
  g_return_val_if_fail (o != NULL, FALSE);
  g_return_val_if_fail (pattern != NULL, FALSE);

  g_autoptr (GRegex) re = NULL;
  g_autoptr (GError) local = NULL;

  g_return_val_if_fail (o != NULL, FALSE);
  g_return_val_if_fail (pattern != NULL, FALSE);
  re = g_regex_new (pattern, G_REGEX_CASELESS, 0, &local);
  if (re == NULL)
    {
      g_set_error (error, PFPROF_ANALYSIS_ERROR, PFPROF_ANALYSIS_ERROR_INVALID_OPTION,
                   "bad step pattern: %s", local->message);
      return FALSE;
    }
  g_free (o->step_pattern);
  o->step_pattern = g_strdup (pattern);
  return TRUE;
}

const char *
pfprof_analysis_options_get_step_pattern (const PfprofAnalysisOptions *o)
{
  return o ? o->step_pattern : PFPROF_DEFAULT_STEP_PATTERN;
}

void
pfprof_analysis_options_set_judge (PfprofAnalysisOptions *o, PfprofLoopJudge judge)
{
  g_return_if_fail (o != NULL);

  o->judge = judge;
}

PfprofLoopJudge
pfprof_analysis_options_get_judge (const PfprofAnalysisOptions *o /* nullable */)
{
  return o ? o->judge : PFPROF_LOOP_JUDGE_TRAINING;
}

int
pfprof_analysis_options_get_warmup_steps (const PfprofAnalysisOptions *o)
{
  return o ? o->warmup_steps : -1;
}

double
pfprof_analysis_options_get_min_saving_share (const PfprofAnalysisOptions *o)
{
  return o ? o->min_saving_share : 0.01;
}

double
pfprof_analysis_options_get_min_phase_share (const PfprofAnalysisOptions *o)
{
  return o ? o->min_phase_share : PFPROF_DEFAULT_MIN_PHASE_SHARE;
}

gboolean
pfprof_analysis_options_rule_enabled (const PfprofAnalysisOptions *o, const PfprofRule *rule)
{
  int v;

  g_return_val_if_fail (rule != NULL, FALSE);

  if (o == NULL)
    return TRUE;
  v = GPOINTER_TO_INT (g_hash_table_lookup (o->enabled, rule->id));
  if (v == 0)
    return !o->select_only;
  return v == 2;
}

PfprofSeverity
pfprof_analysis_options_rule_severity (const PfprofAnalysisOptions *o, const PfprofRule *rule)
{
  g_return_val_if_fail (rule != NULL, PFPROF_SEVERITY_INFO);

  int v = o ? GPOINTER_TO_INT (g_hash_table_lookup (o->severity, rule->id)) : 0;

  return v ? (PfprofSeverity) (v - 1) : rule->severity;
}

gboolean
pfprof_analysis_options_severity_is_set (const PfprofAnalysisOptions *o, const PfprofRule *rule)
{
  g_return_val_if_fail (rule != NULL, FALSE);

  return o != NULL && g_hash_table_lookup (o->severity, rule->id) != NULL;
}

static gboolean
invalid (GError **error, const char *group, const char *key, const char *what)
{
  g_set_error (error, PFPROF_ANALYSIS_ERROR, PFPROF_ANALYSIS_ERROR_INVALID_OPTION,
               "[%s] %s: %s", group, key, what);
  return FALSE;
}

/* A share from 0 to 1 into *@out; FALSE, *@out untouched, for anything
 * else. */
static gboolean
parse_share (const char *v, double *out)
{
  char *end = NULL;
  double x;

  errno = 0;
  x = g_ascii_strtod (v, &end);
  if (errno || end == v || *end != '\0' || !(x >= 0 && x <= 1))
    return FALSE;
  *out = x;
  return TRUE;
}

static gboolean
load_analysis_group (PfprofAnalysisOptions *o, GKeyFile *kf, GError **error)
{
  g_auto (GStrv) keys = g_key_file_get_keys (kf, "analysis", NULL, NULL);

  for (guint i = 0; keys && keys[i]; i++)
    {
      g_autofree char *v = g_key_file_get_string (kf, "analysis", keys[i], NULL);

      if (v == NULL)
        return invalid (error, "analysis", keys[i], "unreadable value");
      if (strcmp (keys[i], "step-pattern") == 0)
        {
          if (!pfprof_analysis_options_set_step_pattern (o, v, error))
            return FALSE;
        }
      else if (strcmp (keys[i], "warmup-steps") == 0)
        {
          char *end = NULL;
          long n;

          if (strcmp (v, "auto") == 0)
            {
              o->warmup_steps = -1;
              continue;
            }
          errno = 0;
          n = strtol (v, &end, 10);
          if (errno || end == v || *end != '\0' || n < 0 || n > 1000000)
            return invalid (error, "analysis", keys[i], "expected 'auto' or a number of steps");
          o->warmup_steps = (int) n;
        }
      else if (strcmp (keys[i], "min-saving-share") == 0)
        {
          if (!parse_share (v, &o->min_saving_share))
            return invalid (error, "analysis", keys[i], "expected a share of the step between 0 and 1");
        }
      else if (strcmp (keys[i], "min-phase-share") == 0)
        {
          if (!parse_share (v, &o->min_phase_share))
            return invalid (error, "analysis", keys[i], "expected a share of the run between 0 and 1");
        }
      else
        return invalid (error, "analysis", keys[i], "unknown key");
    }
  return TRUE;
}

static gboolean
load_rule_group (PfprofAnalysisOptions *o, GKeyFile *kf, const PfprofRule *rule, GError **error)
{
  g_auto (GStrv) keys = g_key_file_get_keys (kf, rule->id, NULL, NULL);

  for (guint i = 0; keys && keys[i]; i++)
    {
      g_autofree char *v = g_key_file_get_string (kf, rule->id, keys[i], NULL);

      if (v == NULL)
        return invalid (error, rule->id, keys[i], "unreadable value");
      g_strstrip (v);
      if (strcmp (keys[i], "enabled") == 0)
        {
          if (strcmp (v, "true") != 0 && strcmp (v, "false") != 0)
            return invalid (error, rule->id, keys[i], "expected true or false");
          g_hash_table_insert (o->enabled, (gpointer) rule->id,
                               GINT_TO_POINTER (strcmp (v, "true") == 0 ? 2 : 1));
        }
      else if (strcmp (keys[i], "severity") == 0)
        {
          PfprofSeverity s;

          if (!pfprof_severity_from_string (v, &s))
            return invalid (error, rule->id, keys[i], "expected info, warning or error");
          g_hash_table_insert (o->severity, (gpointer) rule->id, GINT_TO_POINTER ((int) s + 1));
        }
      else
        {
          char *end = NULL;
          double d = g_ascii_strtod (v, &end);

          if (find_param (rule, keys[i]) == NULL)
            return invalid (error, rule->id, keys[i], "unknown key");
          if (end == v || *end != '\0')
            return invalid (error, rule->id, keys[i], "expected a number");
          if (!pfprof_analysis_options_set_param (o, rule->id, keys[i], d, error))
            return FALSE;
        }
    }
  return TRUE;
}

static gboolean
load_key_file (PfprofAnalysisOptions *o, GKeyFile *kf, GError **error)
{
  g_auto (GStrv) groups = g_key_file_get_groups (kf, NULL);

  for (guint i = 0; groups[i]; i++)
    {
      const PfprofRule *rule;

      if (strcmp (groups[i], "analysis") == 0)
        {
          if (!load_analysis_group (o, kf, error))
            return FALSE;
        }
      else if (strcmp (groups[i], "rules") == 0)
        {
          g_auto (GStrv) keys = g_key_file_get_keys (kf, "rules", NULL, NULL);

          for (guint k = 0; keys && keys[k]; k++)
            {
              g_autofree char *v = NULL;

              if (strcmp (keys[k], "select") != 0)
                return invalid (error, "rules", keys[k], "unknown key");
              v = g_key_file_get_string (kf, "rules", "select", NULL);
              if (v == NULL || !pfprof_analysis_options_select_rules (o, v, error))
                return v == NULL ? invalid (error, "rules", "select", "unreadable value") : FALSE;
            }
        }
      else if ((rule = pfprof_rules_lookup (groups[i])) != NULL)
        {
          if (!load_rule_group (o, kf, rule, error))
            return FALSE;
        }
      else
        {
          g_set_error (error, PFPROF_ANALYSIS_ERROR, PFPROF_ANALYSIS_ERROR_INVALID_OPTION,
                       "unknown section [%s]", groups[i]);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
pfprof_analysis_options_load_data (PfprofAnalysisOptions *o, const char *data, GError **error)
{
  g_return_val_if_fail (o != NULL, FALSE);
  g_return_val_if_fail (data != NULL, FALSE);

  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) local = NULL;

  g_return_val_if_fail (o != NULL, FALSE);
  g_return_val_if_fail (data != NULL, FALSE);
  if (!g_key_file_load_from_data (kf, data, (gsize) -1, G_KEY_FILE_NONE, &local))
    {
      g_set_error (error, PFPROF_ANALYSIS_ERROR, PFPROF_ANALYSIS_ERROR_CONFIG_FILE, "%s",
                   local->message);
      return FALSE;
    }
  return load_key_file (o, kf, error);
}

/* A config is a few lines of text: this is generous. */
#define MAX_CONFIG_BYTES (1 << 20)

static gboolean
config_error (GError **error, const char *path, const char *problem)
{
  g_set_error (error, PFPROF_ANALYSIS_ERROR, PFPROF_ANALYSIS_ERROR_CONFIG_FILE, "%s: %s", path,
               problem);
  return FALSE;
}

/* Reads @path whole into *@out: only a regular file (a FIFO would block,
 * /dev/zero never end), at most MAX_CONFIG_BYTES, text without NUL
 * bytes (GKeyFile would stop at the first and read the rest as
 * nothing). */
static gboolean
read_config (const char *path, char **out, GError **error)
{
  g_autofree char *data = NULL;
  struct stat st;
  gsize len = 0;
  int fd;

  /* O_NONBLOCK: opening a FIFO with no writer returns at once. */
  fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return config_error (error, path, g_strerror (errno));
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      return config_error (error, path, "not a regular file");
    }
  if (st.st_size > MAX_CONFIG_BYTES)
    {
      close (fd);
      return config_error (error, path, "larger than 1 MiB; not an analysis config");
    }
  data = g_malloc ((gsize) MAX_CONFIG_BYTES + 1);
  for (;;)
    {
      ssize_t n = read (fd, data + len, (gsize) MAX_CONFIG_BYTES + 1 - len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int e = errno;

          close (fd);
          return config_error (error, path, g_strerror (e));
        }
      if (n == 0)
        break;
      len += (gsize) n;
      if (len > MAX_CONFIG_BYTES)
        {
          close (fd);
          return config_error (error, path, "larger than 1 MiB; not an analysis config");
        }
    }
  close (fd);
  if (memchr (data, '\0', len) != NULL)
    return config_error (error, path, "holds a NUL byte; not an analysis config (text)");
  if (!g_utf8_validate (data, (gssize) len, NULL))
    return config_error (error, path, "not valid UTF-8; not an analysis config (text)");
  data[len] = '\0';
  *out = g_steal_pointer (&data);
  return TRUE;
}

gboolean
pfprof_analysis_options_load_file (PfprofAnalysisOptions *o, const char *path, GError **error)
{
  g_autofree char *data = NULL;
  g_return_val_if_fail (o != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  g_autoptr (GError) local = NULL;

  g_return_val_if_fail (o != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  if (!read_config (path, &data, error))
    return FALSE;
  if (!pfprof_analysis_options_load_data (o, data, &local))
    {
      g_set_error (error, PFPROF_ANALYSIS_ERROR, local->code, "%s: %s", path, local->message);
      return FALSE;
    }
  return TRUE;
}

void
pfprof_analysis_options_set_keep_occurrences (PfprofAnalysisOptions *options, gboolean keep)
{
  g_return_if_fail (options != NULL);

  options->keep_occurrences = keep;
}

gboolean
pfprof_analysis_options_get_keep_occurrences (const PfprofAnalysisOptions *options)
{
  return options != NULL && options->keep_occurrences;
}

void
pfprof_analysis_options_set_source_lines (PfprofAnalysisOptions *options, PfprofSourceLinesPolicy policy)
{
  g_return_if_fail (options != NULL);

  options->source_lines = policy;
}

PfprofSourceLinesPolicy
pfprof_analysis_options_get_source_lines (const PfprofAnalysisOptions *options)
{
  return options != NULL ? options->source_lines : PFPROF_SOURCE_LINES_AUTO;
}
