/* SPDX-License-Identifier: MIT */
/* pfprof-clock-collectives.c: clock offset and drift from paired collectives. */
#include "pfprof-clock-collectives-private.h"

#include <math.h>
#include <string.h>

#include "pfprof-quantile.h"
#include "pfprof-trace-index.h"

/* A recording that starts or stops a little apart from the others misses
 * a few collectives at either end; more than this and the traces are
 * hardly of one run. */
#define MAX_SKIP 8
/* Pairs looked at per candidate pairing: enough for a median, bounded
 * for a long run of thousands of collectives. */
#define MAX_PAIRS 16384
/* End differences of the same collectives scatter by microseconds (NVLink)
 * to tens of microseconds (a network); a pairing scattering by more is
 * not of the same collectives. */
#define MAX_SPREAD_NS ((gint64) 1000000)
/* Below this, jitter is indistinguishable from a bad pairing. */
#define MIN_INLIER_BAND_NS ((gint64) 20000)
/* No quartz is off by a thousandth; a steeper line is a bad fit. */
#define MAX_DRIFT 1e-3
/* A drift is fitted only over at least this much time. */
#define MIN_DRIFT_SPAN_NS ((gint64) 1000000000)

/* Times beyond this are not real (the analysis leaves them out too);
 * within it, differences cannot overflow. */
#define TIME_LIMIT ((gint64) 1 << 62)

typedef struct
{
  gint64 end_ns;
  const char *name;
} Collective;

gboolean
pfprof_kernel_name_is_symmetric_collective (const char *name)
{
  if (!pfprof_kernel_name_is_comm (name))
    return FALSE;
  if (strstr (name, "Generic") != NULL)
    return FALSE;
  return strstr (name, "AllReduce") != NULL || strstr (name, "AllGather") != NULL
         || strstr (name, "ReduceScatter") != NULL;
}

/* The symmetric collectives of @t in order of start. */
static GArray *
collect (const PfprofTrace *t)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Collective));
  const PfprofKernelRecord *k = pfprof_trace_kernels (t);
  guint n = pfprof_trace_n (t, PFPROF_TABLE_KERNELS);
  /* Per string id: 0 not looked at, 1 a collective, 2 not. Kernel names
   * repeat, so each is classified once. */
  g_autofree guint8 *seen = g_new0 (guint8, t->strings->len + 1);

  for (guint i = 0; i < n; i++)
    {
      guint32 id = k[i].name_id;
      Collective c;

      if (id == PFPROF_NONE || id >= t->strings->len)
        continue;
      if (seen[id] == 0)
        seen[id] = pfprof_kernel_name_is_symmetric_collective (pfprof_trace_string (t, id)) ? 1 : 2;
      if (seen[id] != 1 || k[i].end_ns < k[i].start_ns)
        continue;
      c.end_ns = k[i].end_ns;
      c.name = pfprof_trace_string (t, id);
      g_array_append_val (out, c);
    }
  return out;
}

/* Median |v - center| of @n values into *@mad, its 90th percentile into
 * *@p90 (scratch @tmp of @n). */
static void
abs_dev (const gint64 *v, guint n, gint64 center, gint64 *tmp, gint64 *mad, gint64 *p90)
{
  for (guint i = 0; i < n; i++)
    tmp[i] = ABS (v[i] - center);
  *mad = pfprof_quantile_median_i64 (tmp, n);
  *p90 = tmp[(guint) ((guint64) n * 9 / 10)];
}

typedef struct
{
  GArray *ref_end; /* gint64, reference end times of the name-agreeing pairs */
  GArray *diff;    /* gint64, other - reference */
  gint64 center, mad;
  gint64 p90; /* 90th percentile of |diff - center|: how well it pairs */
} Pairing;

static void
pairing_clear (Pairing *p)
{
  g_clear_pointer (&p->ref_end, g_array_unref);
  g_clear_pointer (&p->diff, g_array_unref);
}

/* Pairs a[i] with b[i + shift]. FALSE when the overlap is too short or
 * the names disagree too often. */
static gboolean
pair (const GArray *a, const GArray *b, int shift, Pairing *p)
{
  guint lo = shift < 0 ? (guint) -shift : 0;
  guint hi = MIN (a->len, (guint) MAX (0, (int) b->len - shift));
  guint overlap, stride, looked = 0;
  g_autofree gint64 *tmp = NULL;

  memset (p, 0, sizeof *p);
  if (hi <= lo)
    return FALSE;
  overlap = hi - lo;
  if (overlap < PFPROF_CLOCK_FIT_MIN_PAIRS || overlap * 2 < MIN (a->len, b->len))
    return FALSE;
  stride = overlap / MAX_PAIRS + 1;
  p->ref_end = g_array_sized_new (FALSE, FALSE, sizeof (gint64), overlap / stride + 1);
  p->diff = g_array_sized_new (FALSE, FALSE, sizeof (gint64), overlap / stride + 1);
  for (guint i = lo; i < hi; i += stride)
    {
      const Collective *x = &g_array_index (a, Collective, i);
      const Collective *y = &g_array_index (b, Collective, (guint) ((int) i + shift));
      gint64 d;

      looked++;
      if (strcmp (x->name, y->name) != 0)
        continue;
      /* Hostile times: keep the difference in range. */
      if (ABS (x->end_ns) >= TIME_LIMIT || ABS (y->end_ns) >= TIME_LIMIT)
        continue;
      d = y->end_ns - x->end_ns;
      g_array_append_val (p->ref_end, x->end_ns);
      g_array_append_val (p->diff, d);
    }
  if (p->diff->len < PFPROF_CLOCK_FIT_MIN_PAIRS || (guint64) p->diff->len * 10 < (guint64) looked * 9)
    {
      pairing_clear (p);
      return FALSE;
    }
  tmp = g_new (gint64, p->diff->len);
  memcpy (tmp, p->diff->data, p->diff->len * sizeof (gint64));
  p->center = pfprof_quantile_median_i64 (tmp, p->diff->len);
  abs_dev ((const gint64 *) (gconstpointer) p->diff->data, p->diff->len, p->center, tmp, &p->mad, &p->p90);
  return TRUE;
}

/* The line through the inliers of @p into @fit. */
static gboolean
fit_line (const Pairing *p, PfprofClockFit *fit)
{
  const gint64 *x = (const gint64 *) (gconstpointer) p->ref_end->data;
  const gint64 *d = (const gint64 *) (gconstpointer) p->diff->data;
  gint64 band = MAX (5 * p->mad, MIN_INLIER_BAND_NS);
  gint64 lo = G_MAXINT64, hi = G_MININT64;
  double sx = 0, sd = 0, sxx = 0, sxd = 0, mx, md;
  guint n = 0;
  g_autofree gint64 *res = NULL;

  for (guint i = 0; i < p->diff->len; i++)
    if (ABS (d[i] - p->center) <= band)
      {
        /* Relative to the first end: keeps the sums exact enough in a
         * double (ns since 1970 need 61 bits). */
        double xi = (double) (x[i] - x[0]);

        sx += xi;
        sd += (double) (d[i] - p->center);
        n++;
        lo = MIN (lo, x[i]);
        hi = MAX (hi, x[i]);
      }
  if (n < PFPROF_CLOCK_FIT_MIN_PAIRS)
    return FALSE;
  mx = sx / n;
  md = sd / n;
  for (guint i = 0; i < p->diff->len; i++)
    if (ABS (d[i] - p->center) <= band)
      {
        double xi = (double) (x[i] - x[0]) - mx, di = (double) (d[i] - p->center) - md;

        sxx += xi * xi;
        sxd += xi * di;
      }
  fit->n_used = n;
  fit->pivot_ns = x[0] + (gint64) llround (mx);
  fit->drift = 0;
  fit->offset_ns = p->center;
  if (hi - lo >= MIN_DRIFT_SPAN_NS && sxx > 0)
    {
      double b = sxd / sxx;

      /* Only a drift that moves the difference by more than the jitter
       * over the run is one; else the median is the better offset. */
      if (fabs (b) <= MAX_DRIFT && fabs (b) * (double) (hi - lo) > 4.0 * (double) MAX (p->mad, 1))
        {
          fit->drift = b;
          fit->offset_ns = p->center + (gint64) llround (md);
        }
    }
  res = g_new (gint64, n);
  n = 0;
  for (guint i = 0; i < p->diff->len; i++)
    if (ABS (d[i] - p->center) <= band)
      res[n++] = ABS (d[i] - pfprof_clock_fit_at (fit, x[i]));
  fit->spread_ns = pfprof_quantile_median_i64 (res, n);
  return TRUE;
}

gint64
pfprof_clock_fit_at (const PfprofClockFit *fit, gint64 t)
{
  if (fit->drift == 0)
    return fit->offset_ns;
  return fit->offset_ns + (gint64) llround (fit->drift * (double) (t - fit->pivot_ns));
}

gboolean
pfprof_clock_collectives_fit (const PfprofTrace *reference, const PfprofTrace *other, PfprofClockFit *fit)
{
  g_autoptr (GArray) a = NULL;
  g_autoptr (GArray) b = NULL;
  Pairing best = { 0 }, zero = { 0 };
  gboolean have = FALSE, have_zero = FALSE, ok;

  memset (fit, 0, sizeof *fit);
  a = collect (reference);
  b = collect (other);
  if (a->len < PFPROF_CLOCK_FIT_MIN_PAIRS || b->len < PFPROF_CLOCK_FIT_MIN_PAIRS)
    return FALSE;
  /* Every small shift, and the one that pairs the last kernels (one
   * recording started later by more than MAX_SKIP collectives). Training
   * repeats its collectives step after step, so a pairing off by a step's
   * worth can agree almost as well as the right one; the plain pairing
   * (shift 0, right whenever both recordings saw the whole run) gives way
   * only to one that agrees four times better. Agreement is judged on
   * the 90th percentile, not the median: a wrong pairing of a regular
   * pattern can agree for most pairs and not for the rest. */
  for (int s = -MAX_SKIP; s <= MAX_SKIP + 1; s++)
    {
      int shift = s <= MAX_SKIP ? s : (int) b->len - (int) a->len;
      Pairing p;

      if (s > MAX_SKIP && ABS (shift) <= MAX_SKIP)
        break;
      if (!pair (a, b, shift, &p))
        continue;
      if (shift == 0)
        {
          zero = p;
          have_zero = TRUE;
        }
      else if (!have || p.p90 < best.p90)
        {
          pairing_clear (&best);
          best = p;
          have = TRUE;
        }
      else
        pairing_clear (&p);
    }
  if (have_zero && (!have || best.p90 * 4 >= zero.p90))
    {
      pairing_clear (&best);
      best = zero;
      have = TRUE;
    }
  else
    pairing_clear (&zero);
  if (!have || best.mad > MAX_SPREAD_NS)
    {
      pairing_clear (&best);
      return FALSE;
    }
  fit->n_matched = best.diff->len;
  ok = fit_line (&best, fit);
  pairing_clear (&best);
  if (!ok)
    memset (fit, 0, sizeof *fit);
  return ok;
}
