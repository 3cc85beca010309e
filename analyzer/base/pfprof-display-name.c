/* SPDX-License-Identifier: MIT */
/* pfprof-display-name.c: demangled, suffix-free names for people. */
#include "pfprof-display-name.h"

#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

/* CUPTI's runtime API names end in _v and the CUDA version that brought
 * them (4 or 5 digits: _v3020, _v11060); driver names such as
 * cuMemAlloc_v2 are the real symbol and keep theirs. */
static gsize
api_suffix_start (const char *raw)
{
  gsize n = strlen (raw), i = n;

  while (i > 0 && g_ascii_isdigit (raw[i - 1]))
    i--;
  if (n - i >= 4 && n - i <= 5 && i >= 3 && raw[i - 1] == 'v' && raw[i - 2] == '_'
      && g_str_has_prefix (raw, "cu"))
    return i - 2;
  return n;
}

/* Writes @s with template arguments nested deeper than one level, and the
 * parameter lists of function-local scopes ("f(int)::{lambda..."), as
 * "…". NULL when the brackets do not balance (an operator< in a name):
 * then the long form is shown. */
static char *
shorten (const char *s)
{
  g_autoptr (GString) out = g_string_new (NULL);
  int depth = 0;

  for (const char *p = s; *p; p++)
    {
      if (*p == '<')
        {
          if (++depth == 2)
            g_string_append (out, "<…");
          else if (depth < 2)
            g_string_append_c (out, '<');
          continue;
        }
      if (*p == '>')
        {
          if (--depth < 0)
            return NULL;
          if (depth < 2)
            g_string_append_c (out, '>');
          continue;
        }
      if (depth >= 2)
        continue;
      /* At depth 1, "nocast<…>(at::TensorIteratorBase&, ...)::" is the
       * enclosing function of a local type: its parameters say nothing. */
      if (*p == '(' && depth == 1 && p > s && (p[-1] == '>' || g_ascii_isalnum (p[-1]) || p[-1] == '_')
          && strncmp (p - MIN (6, p - s), "lambda", 6) != 0)
        {
          int parens = 0;
          const char *q = p;

          for (; *q; q++)
            {
              parens += *q == '(' ? 1 : *q == ')' ? -1 : 0;
              if (parens == 0)
                break;
            }
          if (*q == ')' && strncmp (q + 1, "::", 2) == 0)
            {
              g_string_append (out, "(…)");
              p = q;
              continue;
            }
        }
      g_string_append_c (out, *p);
    }
  if (depth != 0)
    return NULL;
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Takes @s: drops "(anonymous namespace)::" and writes the chain of
 * lambdas and their call operators between a function and its innermost
 * lambda as "…" (direct_copy_kernel_cuda(…)::…::{lambda(float)#1}). */
static char *
tidy (char *s)
{
  static GRegex *anonymous, *lambdas;
  static gsize ready;
  char *a, *b;

  if (g_once_init_enter (&ready))
    {
      anonymous = g_regex_new ("\\(anonymous namespace\\)::", G_REGEX_OPTIMIZE, 0, NULL);
      lambdas = g_regex_new ("(::\\{lambda\\([^(){}]*\\)#[0-9]+\\}::operator\\(\\)\\(\\) const)+::",
                             G_REGEX_OPTIMIZE, 0, NULL);
      g_once_init_leave (&ready, 1);
    }
  a = g_regex_replace_literal (anonymous, s, -1, 0, "", 0, NULL);
  b = a ? g_regex_replace_literal (lambdas, a, -1, 0, "::…::", 0, NULL) : NULL;
  g_free (a);
  if (b == NULL)
    return s;
  g_free (s);
  return b;
}

char *
pfprof_display_name_new (const char *raw)
{
  gsize cut;

  if (raw == NULL || raw[0] == '\0')
    return NULL;
  if (g_str_has_prefix (raw, "_Z"))
    {
      /* No DMGL_PARAMS: the parameters repeat the template arguments. */
      char *demangled = cplus_demangle (raw, DMGL_ANSI);
      char *shortened;

      /* CUTLASS kernels nest deeper than libiberty's recursion limit,
       * which guards the stack against hostile names: lift it only for
       * names short enough that their depth cannot exhaust a stack. */
      if (demangled == NULL && strlen (raw) <= 3000)
        demangled = cplus_demangle (raw, DMGL_ANSI | DMGL_NO_RECURSE_LIMIT);
      if (demangled == NULL)
        return NULL;
      shortened = shorten (demangled);
      if (shortened == NULL)
        shortened = g_strdup (demangled);
      free (demangled);
      return tidy (shortened);
    }
  cut = api_suffix_start (raw);
  return raw[cut] != '\0' ? g_strndup (raw, cut) : NULL;
}

G_LOCK_DEFINE_STATIC (display_names);

const char *
pfprof_display_name (const PfprofTrace *trace, guint32 id)
{
  GPtrArray *names;

  g_return_val_if_fail (trace != NULL, "");

  names = g_atomic_pointer_get (&((PfprofTrace *) trace)->display_names);
  if (G_UNLIKELY (names == NULL))
    {
      G_LOCK (display_names);
      names = trace->display_names;
      if (names == NULL)
        {
          names = g_ptr_array_new_full (trace->strings->len, g_free);
          for (guint i = 0; i < trace->strings->len; i++)
            g_ptr_array_add (names, pfprof_display_name_new (g_ptr_array_index (trace->strings, i)));
          /* A cache of derived text, not a change of the trace. */
          g_atomic_pointer_set (&((PfprofTrace *) trace)->display_names, names);
        }
      G_UNLOCK (display_names);
    }
  if (id != PFPROF_NONE && id < names->len && g_ptr_array_index (names, id) != NULL)
    return g_ptr_array_index (names, id);
  return pfprof_trace_string (trace, id);
}
