/* SPDX-License-Identifier: MIT */
/* pfprof-cli-template.c: %r, %h, %p in report paths. */
#include "pfprof-cli-template.h"

#include <string.h>
#include <unistd.h>

/* The launchers' rank variables, in the order they are tried. */
static const char *const rank_vars[] = { "RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK" };

gint64
pfprof_cli_template_env_rank (void)
{
  const char *const *vars = rank_vars;

  for (guint i = 0; i < G_N_ELEMENTS (rank_vars); i++)
    {
      const char *v = g_getenv (vars[i]);
      guint64 n;

      if (v != NULL && g_ascii_string_to_unsigned (v, 10, 0, G_MAXINT32, &n, NULL))
        return (gint64) n;
    }
  return -1;
}

/* "RANK=-1" for the first launcher variable set to something that is not
 * a rank, or NULL: a set but bad value is not "not set". */
static char *
env_rank_invalid (void)
{
  const char *const *vars = rank_vars;

  for (guint i = 0; i < G_N_ELEMENTS (rank_vars); i++)
    {
      const char *v = g_getenv (vars[i]);

      if (v != NULL && !g_ascii_string_to_unsigned (v, 10, 0, G_MAXINT32, NULL, NULL))
        {
          g_autofree char *shown = g_strescape (v, NULL);

          return g_strdup_printf ("%s=%s", vars[i], shown);
        }
    }
  return NULL;
}

/* The one value of meta @key (or of the rank) shared by every trace of
 * @a that has it, or NULL. */
static char *
traces_agree (const PfprofAnalysis *a, const char *key)
{
  char *value = NULL;

  for (guint i = 0; a != NULL && i < a->traces->len; i++)
    {
      const PfprofTrace *t = g_ptr_array_index (a->traces, i);
      g_autofree char *v = NULL;

      if (g_str_equal (key, "rank"))
        v = t->rank >= 0 ? g_strdup_printf ("%" G_GINT64_FORMAT, t->rank) : NULL;
      else if (g_str_equal (key, "pid"))
        v = t->pid > 0 ? g_strdup_printf ("%" G_GINT64_FORMAT, t->pid) : NULL;
      else
        v = g_strdup (pfprof_trace_meta (t, key));
      if (v == NULL)
        continue;
      if (value != NULL && strcmp (value, v) != 0)
        {
          g_free (value);
          return NULL;
        }
      if (value == NULL)
        value = g_steal_pointer (&v);
    }
  return value;
}

/* Longest value put into a path: a host name has at most 253 bytes. */
#define MAX_COMPONENT 64

/* Makes @v (from a trace: anything) one safe file-name part, in place:
 * no '/', no control characters, valid UTF-8, at most MAX_COMPONENT
 * bytes, and never empty, "." or "..", which would name the folder
 * itself, its parent or (empty, before a '/') the root. */
static char *
path_component (char *v)
{
  g_autofree char *valid = g_utf8_make_valid (v, -1);
  g_autoptr (GString) out = g_string_new (NULL);

  g_free (v);
  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      const char *next = g_utf8_next_char (p);

      if (out->len + (gsize) (next - p) > MAX_COMPONENT)
        break;
      if (c == '/' || c == '\\' || c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == 0xfffd)
        g_string_append_c (out, '_');
      else
        g_string_append_len (out, p, next - p);
    }
  if (out->len == 0 || strcmp (out->str, ".") == 0 || strcmp (out->str, "..") == 0)
    g_string_prepend (out, "unknown");
  return g_string_free (g_steal_pointer (&out), FALSE);
}

char *
pfprof_cli_template_expand (const char *template, const PfprofAnalysis *a, GError **error)
{
  g_return_val_if_fail (template != NULL, NULL);

  g_autoptr (GString) out = g_string_new (NULL);

  for (const char *s = template; *s; s++)
    {
      g_autofree char *v = NULL;
      g_autofree char *bad = NULL;

      if (*s != '%')
        {
          g_string_append_c (out, *s);
          continue;
        }
      switch (s[1])
        {
        case '%':
          v = g_strdup ("%");
          break;
        case 'r':
          v = traces_agree (a, "rank");
          if (v == NULL)
            {
              gint64 env = pfprof_cli_template_env_rank ();

              if (env >= 0)
                v = g_strdup_printf ("%" G_GINT64_FORMAT, env);
            }
          if (v == NULL && (bad = env_rank_invalid ()) != NULL)
            {
              g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           "%s: %%r: %s is not a rank (a number from 0)", template, bad);
              return NULL;
            }
          if (v == NULL)
            {
              g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           "%s: %%r: no rank (the traces have none or several, and RANK, "
                           "SLURM_PROCID, OMPI_COMM_WORLD_RANK and PMI_RANK are not set)",
                           template);
              return NULL;
            }
          break;
        case 'h':
          v = traces_agree (a, "host");
          if (v == NULL)
            v = g_strdup (g_get_host_name ());
          break;
        case 'p':
          v = traces_agree (a, "pid");
          if (v == NULL)
            v = g_strdup_printf ("%ld", (long) getpid ());
          break;
        default:
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "%s: unknown %%-sequence (%%r rank, %%h host, %%p pid, %%%% a %%)", template);
          return NULL;
        }
      /* Every value but %% comes from a trace or the machine: one safe
       * file-name part. */
      if (s[1] != '%')
        v = path_component (v);
      g_string_append (out, v);
      s++;
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}
