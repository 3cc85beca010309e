/* SPDX-License-Identifier: MIT */
/* pfprof-try-loss.c: the loss check of `pfprof try` (the rule is in
 * pfprof-try-loss.h). */
#include "pfprof-try-loss.h"

#include <math.h>
#include <string.h>

#include "pfprof-format.h"

/* The number after "loss" at @p (just past the word), or FALSE. */
static gboolean
number_after (const char *p, double *value)
{
  char *end = NULL;
  double v;

  while (*p == ' ' || *p == '\t' || *p == '\'' || *p == '"' || *p == ':' || *p == '=')
    p++;
  if (g_ascii_strncasecmp (p, "tensor(", 7) == 0)
    p += 7;
  if (!(g_ascii_isdigit (*p) || *p == '-' || *p == '+' || *p == '.' || *p == 'n' || *p == 'N' || *p == 'i'
        || *p == 'I'))
    return FALSE;
  v = g_ascii_strtod (p, &end);
  if (end == p || g_ascii_isalnum (*end) || *end == '_')
    return FALSE;
  *value = v;
  return TRUE;
}

/* Whether [@p, @end) holds a word that names an evaluation phase: the
 * words are runs of letters and digits ('_' and punctuation part them,
 * so "val_loss" holds "val"). */
static gboolean
names_evaluation (const char *p, const char *end)
{
  static const char *const words[] = {
    "test",  "tests",    "testing",  "val",      "valid",     "validate",  "validating",
    "validation", "eval", "evaluate", "evaluating", "evaluation", "dev",
  };

  while (p < end)
    {
      const char *w;

      while (p < end && !g_ascii_isalnum (*p))
        p++;
      w = p;
      while (p < end && g_ascii_isalnum (*p))
        p++;
      for (gsize k = 0; k < G_N_ELEMENTS (words) && p > w; k++)
        if ((gsize) (p - w) == strlen (words[k]) && g_ascii_strncasecmp (w, words[k], p - w) == 0)
          return TRUE;
    }
  return FALSE;
}

GArray *
pfprof_try_loss_parse (const char *text)
{
  g_return_val_if_fail (text != NULL, NULL);

  GArray *out = g_array_new (FALSE, FALSE, sizeof (double));
  const char *line = text;

  g_return_val_if_fail (text != NULL, out);
  while (*line != '\0')
    {
      const char *eol = strchr (line, '\n');
      gsize len = eol ? (gsize) (eol - line) : strlen (line);
      g_autofree char *copy = g_strndup (line, len);

      for (char *p = copy; *p != '\0'; p++)
        {
          double v;

          if (g_ascii_strncasecmp (p, "loss", 4) != 0 || (p > copy && g_ascii_isalnum (p[-1]))
              || strchr (" \t'\":=", p[4]) == NULL || p[4] == '\0')
            continue;
          /* An evaluation loss ("Test: [10/196] Loss", "val_loss",
           * "eval_loss"): anything the line says before it of a phase
           * other than training. */
          if (names_evaluation (copy, p))
            break;
          if (number_after (p + 4, &v))
            {
              g_array_append_val (out, v);
              break;
            }
        }
      line += len + (eol ? 1 : 0);
    }
  return out;
}

/* The least and largest of @runs' means over [from, to). */
static void
window_means (GPtrArray *runs, guint from, guint to, double *lo, double *hi)
{
  *lo = INFINITY;
  *hi = -INFINITY;
  for (guint r = 0; r < runs->len; r++)
    {
      GArray *v = g_ptr_array_index (runs, r);
      double sum = 0;

      for (guint i = from; i < to; i++)
        sum += g_array_index (v, double, i);
      *lo = MIN (*lo, sum / (to - from));
      *hi = MAX (*hi, sum / (to - from));
    }
}

/* The ranges of @a's and @b's means over [from, to) in @w; TRUE when
 * @b's stay inside @a's, widened by the tolerance. */
static gboolean
window_same (GPtrArray *a, GPtrArray *b, guint from, guint to, PfprofTryLossWindow *w)
{
  double mid;

  window_means (a, from, to, &w->lo, &w->hi);
  window_means (b, from, to, &w->b_lo, &w->b_hi);
  mid = (w->lo + w->hi) / 2;
  w->tolerance = MAX (w->hi - w->lo, PFPROF_TRY_LOSS_FLOOR * fabs (mid));
  w->tolerance = MAX (w->tolerance, 1e-12);
  return w->b_lo >= w->lo - w->tolerance && w->b_hi <= w->hi + w->tolerance;
}

static gboolean
any_not_finite (GPtrArray *runs, guint n)
{
  for (guint r = 0; r < runs->len; r++)
    for (guint i = 0; i < n; i++)
      if (!isfinite (g_array_index ((GArray *) g_ptr_array_index (runs, r), double, i)))
        return TRUE;
  return FALSE;
}

static char *
range (double lo, double hi)
{
  g_autofree char *l = pfprof_format_double (lo, 4), *h = pfprof_format_double (hi, 4);

  return lo == hi ? g_strdup (l) : g_strdup_printf ("%s to %s", l, h);
}

void
pfprof_try_loss_compare (GPtrArray *a, GPtrArray *b, PfprofTryLoss *out)
{
  g_return_if_fail (a != NULL);
  g_return_if_fail (b != NULL);
  g_return_if_fail (out != NULL);

  g_autoptr (GPtrArray) sa = g_ptr_array_new ();
  g_autoptr (GPtrArray) sb = g_ptr_array_new ();
  guint n = G_MAXUINT, empty_b = 0;

  g_return_if_fail (a != NULL && b != NULL && out != NULL);
  memset (out, 0, sizeof *out);
  for (guint i = 0; i < a->len; i++)
    if (((GArray *) g_ptr_array_index (a, i))->len > 0)
      g_ptr_array_add (sa, g_ptr_array_index (a, i));
  for (guint i = 0; i < b->len; i++)
    if (((GArray *) g_ptr_array_index (b, i))->len > 0)
      g_ptr_array_add (sb, g_ptr_array_index (b, i));
    else
      empty_b++;
  out->a_runs = sa->len;
  out->b_runs = sb->len;
  if (sa->len == 0)
    {
      out->verdict = PFPROF_TRY_LOSS_NONE;
      out->why = g_strdup (sb->len ? "only the runs with the fix printed a loss" : "no run printed a loss");
      return;
    }
  if (empty_b > 0 && sa->len == a->len)
    {
      out->verdict = PFPROF_TRY_LOSS_CHANGED;
      out->why = g_strdup ("a run with the fix printed no loss, where every unmodified run printed some");
      return;
    }
  if (sb->len == 0)
    {
      out->verdict = PFPROF_TRY_LOSS_UNKNOWN;
      out->why = g_strdup ("no run with the fix was read");
      return;
    }
  for (guint i = 0; i < sa->len; i++)
    n = MIN (n, ((GArray *) g_ptr_array_index (sa, i))->len);
  for (guint i = 0; i < sb->len; i++)
    n = MIN (n, ((GArray *) g_ptr_array_index (sb, i))->len);
  out->values = n;
  if (any_not_finite (sb, n) && !any_not_finite (sa, n))
    {
      out->verdict = PFPROF_TRY_LOSS_CHANGED;
      out->why = g_strdup_printf ("the loss became NaN or infinite with the fix, never without it (%u values a run)", n);
      return;
    }
  if (any_not_finite (sa, n))
    {
      out->verdict = PFPROF_TRY_LOSS_UNKNOWN;
      out->why = g_strdup ("the unmodified runs' loss was NaN or infinite");
      return;
    }
  if (sa->len < 2)
    {
      out->verdict = PFPROF_TRY_LOSS_UNKNOWN;
      out->why = g_strdup ("one unmodified run's losses were read: no measure of their noise");
      return;
    }
  {
    guint quarter = MAX (n / 4, 1);
    PfprofTryLossWindow wa, we;

    /* Unmodified runs whose own means lie far apart: any range wide
     * enough to hold them holds a changed loss too. */
    window_means (sa, 0, n, &wa.lo, &wa.hi);
    window_means (sa, n - quarter, n, &we.lo, &we.hi);
    for (int k = 0; k < 2; k++)
      {
        const PfprofTryLossWindow *w = k == 0 ? &we : &wa;

        if (w->hi - w->lo > PFPROF_TRY_LOSS_SPREAD_MAX * fabs ((w->lo + w->hi) / 2))
          {
            g_autofree char *ra = range (w->lo, w->hi);

            out->verdict = PFPROF_TRY_LOSS_UNJUDGED;
            out->why = g_strdup_printf ("%s mean loss of the unmodified runs alone spans %s, more than %d%% of its "
                                        "middle apart (%u values a run, %u runs without the fix)",
                                        k == 0 ? "the last quarter's" : "the trajectory's", ra,
                                        (int) (PFPROF_TRY_LOSS_SPREAD_MAX * 100), n, sa->len);
            return;
          }
      }
  }
  {
    guint quarter = MAX (n / 4, 1);
    gboolean same_all = window_same (sa, sb, 0, n, &out->all);
    gboolean same_end = window_same (sa, sb, n - quarter, n, &out->end);
    /* The window that says changed, else where the trajectory ends. */
    const PfprofTryLossWindow *w = !same_end || same_all ? &out->end : &out->all;
    g_autofree char *ra = range (w->lo, w->hi), *rb = range (w->b_lo, w->b_hi);
    g_autofree char *tol = pfprof_format_double (w->tolerance, 4);

    out->verdict = same_all && same_end ? PFPROF_TRY_LOSS_SAME : PFPROF_TRY_LOSS_CHANGED;
    out->why = g_strdup_printf ("%s mean loss %s without the fix, %s with it (tolerance %s; %u values a run; "
                                "%u runs without the fix, %u with it)",
                                w == &out->end ? "the last quarter's" : "the trajectory's", ra, rb, tol, n, sa->len,
                                sb->len);
  }
}

void
pfprof_try_loss_clear (PfprofTryLoss *loss)
{
  g_return_if_fail (loss != NULL);

  g_clear_pointer (&loss->why, g_free);
}

const char *
pfprof_try_loss_verdict_name (PfprofTryLossVerdict verdict)
{
  switch (verdict)
    {
    case PFPROF_TRY_LOSS_SAME:
      return "same";
    case PFPROF_TRY_LOSS_CHANGED:
      return "changed";
    case PFPROF_TRY_LOSS_UNKNOWN:
      return "not compared";
    case PFPROF_TRY_LOSS_UNJUDGED:
      return "cannot judge";
    case PFPROF_TRY_LOSS_NONE:
    default:
      return "none";
    }
}
