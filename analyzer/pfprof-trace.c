/* pfprof-trace.c: the in-memory trace. */
#include "pfprof-trace.h"

#include <string.h>

PfprofTrace *
pfprof_trace_new (void)
{
  PfprofTrace *trace = g_new0 (PfprofTrace, 1);

  trace->meta = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  trace->strings = g_ptr_array_new_with_free_func (g_free);
  trace->rank = -1;
  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    trace->tables[t] = g_array_new (FALSE, TRUE,
                                    (guint) pfprof_trace_schema_table ((PfprofTableId) t)->record_size);
  return trace;
}

void
pfprof_trace_free (PfprofTrace *trace)
{
  if (trace == NULL)
    return;
  g_free (trace->path);
  g_hash_table_unref (trace->meta);
  g_ptr_array_unref (trace->strings);
  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    g_array_unref (trace->tables[t]);
  g_free (trace);
}

const char *
pfprof_trace_string (const PfprofTrace *trace, guint32 id)
{
  const char *s;

  if (id == PFPROF_NONE || id >= trace->strings->len)
    return "";
  s = g_ptr_array_index (trace->strings, id);
  return s ? s : "";
}

const char *
pfprof_trace_meta (const PfprofTrace *trace, const char *key)
{
  return g_hash_table_lookup (trace->meta, key);
}

/* Event tables come first in PfprofTableId; each record starts with its
 * int64 timestamp. */
static gboolean
is_event_table (unsigned t)
{
  return t < PFPROF_TABLE_DEVICES;
}

guint64
pfprof_trace_n_events (const PfprofTrace *trace)
{
  guint64 n = 0;

  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    if (is_event_table (t))
      n += trace->tables[t]->len;
  return n;
}

/* Every event record starts with its int64 start (or ts) field. */
static int
compare_start (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a;
  gint64 y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

static gboolean
is_sorted (const GArray *a, gsize record_size)
{
  for (guint i = 1; i < a->len; i++)
    if (*(const gint64 *) (a->data + (gsize) i * record_size)
        < *(const gint64 *) (a->data + (gsize) (i - 1) * record_size))
      return FALSE;
  return TRUE;
}

void
pfprof_trace_sort (PfprofTrace *trace)
{
  gint64 lo = G_MAXINT64;
  gint64 hi = G_MININT64;

  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    {
      const PfprofTraceTable *table = pfprof_trace_schema_table ((PfprofTableId) t);
      GArray *a = trace->tables[t];

      if (!is_event_table (t) || a->len == 0)
        continue;
      /* Writers mostly append in time order: a linear check saves the
       * merge sort's allocation and copying then. g_array_sort is stable,
       * so equal starts keep file order either way. */
      if (!is_sorted (a, table->record_size))
        g_array_sort (a, compare_start);
      /* CUDA event timestamps are optional (0): not part of the extent. */
      if (t == PFPROF_TABLE_CUDA_EVENTS)
        continue;
      for (guint i = 0; i < a->len; i++)
        {
          const char *rec = a->data + (gsize) i * table->record_size;
          gint64 start = *(const gint64 *) rec;
          gint64 end = start;

          /* The duration column, when present, is the second one. */
          if (table->n_columns > 1 && table->columns[1].kind == PFPROF_COLUMN_DURATION)
            end = *(const gint64 *) (rec + table->columns[1].offset);
          if (start < lo)
            lo = start;
          if (end > hi)
            hi = end;
        }
    }
  trace->start_ns = lo == G_MAXINT64 ? 0 : lo;
  trace->end_ns = hi == G_MININT64 ? 0 : hi;
}
