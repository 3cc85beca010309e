/* SPDX-License-Identifier: MIT */
/* pfprof-clock-align.c: several hosts' traces on one time axis. */
#include "pfprof-clock-align.h"

#include <string.h>

#include "pfprof-clock-collectives-private.h"
#include "pfprof-format.h"

/* No real clock is this far off its host's wall clock; shifting by more
 * could carry times past the analyzer's range checks. */
#define MAX_OFFSET_NS ((gint64) 1 << 52)

const char *
pfprof_clock_alignment_to_string (PfprofClockAlignment alignment)
{
  switch (alignment)
    {
    case PFPROF_CLOCK_ALIGNED: return "aligned";
    case PFPROF_CLOCK_UNALIGNED: return "unaligned";
    case PFPROF_CLOCK_COLLECTIVES: return "collectives";
    case PFPROF_CLOCK_SHARED:
    default: return "shared";
    }
}

static gboolean
meta_i64 (const PfprofTrace *t, const char *key, gint64 *out)
{
  const char *v = pfprof_trace_meta (t, key);

  /* Meta values are untrusted text. */
  return v != NULL && g_ascii_string_to_signed (v, 10, -((gint64) 1 << 62), (gint64) 1 << 62, out,
                                                NULL);
}

gboolean
pfprof_clock_wall_offset (const PfprofTrace *t, gint64 *offset_ns)
{
  gint64 cupti, real, d;

  g_return_val_if_fail (t != NULL, FALSE);
  g_return_val_if_fail (offset_ns != NULL, FALSE);
  if (!meta_i64 (t, "clock_start_cupti_ns", &cupti) || !meta_i64 (t, "clock_start_realtime_ns", &real))
    return FALSE;
  d = real - cupti; /* both within ±2^62: no overflow */
  if (d > MAX_OFFSET_NS || d < -MAX_OFFSET_NS)
    return FALSE;
  *offset_ns = d;
  return TRUE;
}

/* Moves every time v of @t to v + @shift - fit_at(@fit, v + @shift)
 * (@fit may be NULL). Order is kept: a constant shift keeps it, and a
 * drift is far below 1. */
static void
move_trace (PfprofTrace *t, gint64 shift, const PfprofClockFit *fit)
{
#define MOVE(v) ((v) + shift - (fit != NULL ? pfprof_clock_fit_at (fit, (v) + shift) : 0))
  for (guint i = 0; i < PFPROF_TABLE_DEVICES; i++)
    {
      const PfprofTraceTable *table = pfprof_trace_schema_table ((PfprofTableId) i);
      GArray *a = t->tables[i];
      gboolean has_end = table->n_columns > 1 && table->columns[1].kind == PFPROF_COLUMN_DURATION;

      for (guint r = 0; r < a->len; r++)
        {
          char *rec = a->data + (gsize) r * table->record_size;
          gint64 v;

          /* Every event record starts with its time; CUDA event
           * timestamps are 0 when unknown and stay so. */
          memcpy (&v, rec, sizeof v);
          if (i == PFPROF_TABLE_CUDA_EVENTS && v == 0)
            continue;
          v = MOVE (v);
          memcpy (rec, &v, sizeof v);
          if (has_end)
            {
              memcpy (&v, rec + table->columns[1].offset, sizeof v);
              v = MOVE (v);
              memcpy (rec + table->columns[1].offset, &v, sizeof v);
            }
        }
    }
  if (t->start_ns != 0 || t->end_ns != 0)
    {
      t->start_ns = MOVE (t->start_ns);
      t->end_ns = MOVE (t->end_ns);
    }
#undef MOVE
}

/* Times beyond ±2^62 are set aside by the run (pfprof-run.h); keep the
 * shift from overflowing on a hostile trace whose events sit at the ends
 * of int64. */
static gboolean
shift_fits (const PfprofTrace *t, gint64 shift)
{
  const gint64 lim = (gint64) 1 << 62;

  return t->start_ns > -lim && t->end_ns < lim;
}

/* Moves @t onto the reference's clock by @fit and records how. */
static void
apply_fit (PfprofTrace *t, const PfprofClockFit *fit)
{
  move_trace (t, 0, fit);
  t->clock_offset_ns -= fit->offset_ns;
  t->clock_collectives = fit->n_used;
  t->clock_collectives_ns = -fit->offset_ns;
  t->clock_spread_ns = fit->spread_ns;
  t->clock_drift = fit->drift;
  t->clock_alignment = PFPROF_CLOCK_COLLECTIVES;
}

/* @fit measured against a trace of @ref_host: the first few of them
 * that ran collectives (each rank of one host shares its clock). */
static gboolean
fit_against (GPtrArray *traces, const char *ref_host, const PfprofTrace *t, PfprofClockFit *fit)
{
  guint tried = 0;

  for (guint i = 0; i < traces->len && tried < 4; i++)
    {
      const PfprofTrace *r = g_ptr_array_index (traces, i);
      const char *h = pfprof_trace_meta (r, "host");

      if (r == t || r->clock_alignment != PFPROF_CLOCK_ALIGNED || h == NULL || strcmp (h, ref_host) != 0)
        continue;
      tried++;
      if (pfprof_clock_collectives_fit (r, t, fit) && ABS (fit->offset_ns) <= MAX_OFFSET_NS
          && shift_fits (t, -fit->offset_ns))
        return TRUE;
    }
  return FALSE;
}

/* The triples leave each host as far off as its wall clock (NTP: about a
 * millisecond); the collectives its ranks ran with the reference host's
 * measure that error to microseconds (pfprof-clock-collectives-private.h). Each
 * other host is fitted once and every triple-aligned trace of it moved
 * by the same fit, so they keep the clock they share; a trace without a
 * usable triple is fitted alone. Returns how many of those were
 * aligned that way. */
static guint
refine (GPtrArray *traces, const char *ref_host)
{
  g_autoptr (GHashTable) done = g_hash_table_new (g_str_hash, g_str_equal);
  guint n_rescued = 0;

  for (guint i = 0; i < traces->len; i++)
    {
      PfprofTrace *t = g_ptr_array_index (traces, i);
      const char *h = pfprof_trace_meta (t, "host");
      PfprofClockFit fit;

      if (t->clock_alignment == PFPROF_CLOCK_UNALIGNED)
        {
          if (fit_against (traces, ref_host, t, &fit))
            {
              apply_fit (t, &fit);
              n_rescued++;
            }
          continue;
        }
      if (h == NULL || strcmp (h, ref_host) == 0 || g_hash_table_contains (done, h)
          || !fit_against (traces, ref_host, t, &fit))
        continue;
      g_hash_table_add (done, (gpointer) h);
      for (guint j = 0; j < traces->len; j++)
        {
          PfprofTrace *u = g_ptr_array_index (traces, j);
          const char *hu = pfprof_trace_meta (u, "host");

          if (u->clock_alignment == PFPROF_CLOCK_ALIGNED && hu != NULL && strcmp (hu, h) == 0
              && shift_fits (u, -fit.offset_ns))
            apply_fit (u, &fit);
        }
    }
  return n_rescued;
}

guint
pfprof_clock_align (GPtrArray *traces)
{
  g_autoptr (GHashTable) host_offset = NULL; /* host -> gint64* (borrowed keys) */
  g_autofree gint64 *offsets = NULL;
  const char *first_host = NULL, *ref_host = NULL;
  gboolean several = FALSE, have_ref = FALSE;
  gint64 ref = 0, ref_rank = -1;
  guint n_unaligned = 0;

  if (traces == NULL || traces->len < 2)
    return 0;
  for (guint i = 0; i < traces->len; i++)
    {
      const char *h = pfprof_trace_meta (g_ptr_array_index (traces, i), "host");

      if (h == NULL)
        continue;
      if (first_host == NULL)
        first_host = h;
      else if (strcmp (h, first_host) != 0)
        several = TRUE;
    }
  if (!several)
    return 0; /* one host: one clock */

  /* One offset per host: the first of its traces with a triple. */
  host_offset = g_hash_table_new (g_str_hash, g_str_equal);
  offsets = g_new0 (gint64, traces->len);
  for (guint i = 0; i < traces->len; i++)
    {
      const PfprofTrace *t = g_ptr_array_index (traces, i);
      const char *h = pfprof_trace_meta (t, "host");

      if (h != NULL && !g_hash_table_contains (host_offset, h)
          && pfprof_clock_wall_offset (t, &offsets[i]))
        g_hash_table_insert (host_offset, (gpointer) h, &offsets[i]);
    }
  /* The reference host: rank 0's (the lowest rank's) whatever the order
   * the traces were given in, else the first trace's with a triple. */
  for (guint i = 0; i < traces->len; i++)
    {
      const PfprofTrace *t = g_ptr_array_index (traces, i);
      const char *h = pfprof_trace_meta (t, "host");
      const gint64 *o = h != NULL ? g_hash_table_lookup (host_offset, h) : NULL;

      if (o != NULL && (!have_ref || (t->rank >= 0 && (ref_rank < 0 || t->rank < ref_rank))))
        {
          ref = *o;
          ref_host = h;
          ref_rank = t->rank;
          have_ref = TRUE;
        }
    }
  for (guint i = 0; i < traces->len; i++)
    {
      PfprofTrace *t = g_ptr_array_index (traces, i);
      const char *h = pfprof_trace_meta (t, "host");
      const gint64 *o = h != NULL ? g_hash_table_lookup (host_offset, h) : NULL;
      gint64 mine;

      /* A trace whose own triple is missing keeps its times: its host's
       * offset may come from another process, but a trace without a
       * triple may also be an import of another clock altogether. */
      if (o == NULL || !pfprof_clock_wall_offset (t, &mine) || !shift_fits (t, *o - ref))
        {
          t->clock_alignment = PFPROF_CLOCK_UNALIGNED;
          n_unaligned++;
          continue;
        }
      if (*o != ref)
        move_trace (t, *o - ref, NULL);
      t->clock_offset_ns = *o - ref;
      t->clock_alignment = PFPROF_CLOCK_ALIGNED;
    }
  if (ref_host != NULL)
    n_unaligned -= refine (traces, ref_host);
  return n_unaligned;
}

/* "+1.20 ms", "-5.00 s". */
static char *
signed_ns (gint64 ns)
{
  g_autofree char *abs = pfprof_format_ns (ns < 0 ? -ns : ns);

  return g_strdup_printf ("%s%s", ns < 0 ? "-" : "+", abs);
}

char *
pfprof_clock_describe (const PfprofTrace *t)
{
  const char *host;
  g_autofree char *total = NULL;

  g_return_val_if_fail (t != NULL, NULL);
  host = pfprof_trace_meta (t, "host");
  total = signed_ns (t->clock_offset_ns);
  if (host == NULL)
    host = "(unnamed)";
  switch ((PfprofClockAlignment) t->clock_alignment)
    {
    case PFPROF_CLOCK_ALIGNED:
      if (t->clock_offset_ns == 0)
        return NULL;
      return g_strdup_printf ("host %s: times moved %s onto the reference host's clock (clock triples)", host,
                              total);
    case PFPROF_CLOCK_COLLECTIVES:
      {
        g_autofree char *triples = signed_ns (t->clock_offset_ns - t->clock_collectives_ns);
        g_autofree char *coll = signed_ns (t->clock_collectives_ns);
        g_autofree char *spread = pfprof_format_ns (t->clock_spread_ns);
        g_autofree char *drift = t->clock_drift != 0
                                   ? g_strdup_printf ("; its clock drifted %+.2f ppm against the "
                                                      "reference host's, also corrected", t->clock_drift * 1e6)
                                   : g_strdup ("");

        return g_strdup_printf ("host %s: times moved %s onto the reference host's clock: %s by the clock "
                                "triples, %s measured on %u collectives both hosts ran (their kernels end "
                                "together), to within %s%s",
                                host, total, triples, coll, t->clock_collectives, spread, drift);
      }
    case PFPROF_CLOCK_UNALIGNED:
      return g_strdup ("not aligned with the other hosts' traces: no clock triple or host name in its "
                       "metadata, and no collectives shared with the reference host to measure it by.");
    case PFPROF_CLOCK_SHARED:
    default:
      return NULL;
    }
}
