/* SPDX-License-Identifier: MIT */
/* pfprof-call-sites.c: the user's Python lines behind each finding.
 *
 * See pfprof-call-sites.h for the model. The work is proportional to the
 * recorded calls (at most 16 per site) and to the findings' evidence,
 * plus one pass over the copy, memset, sync and memory tables to map
 * correlation ids, made only for a trace that has sites.
 */
#include "pfprof-call-sites.h"
#include "pfprof-hash.h"
#include "pfprof-format.h"
#include "pfprof-lower-bound.h"

#include <string.h>

/* Names longer than this (in characters) are cut in descriptions. */
#define NAME_MAX_CHARS 120
/* Lines looked at above and below a copy for its `with` block. */
#define BLOCK_SCAN_LINES 200
/* Source text shown, in characters. */
#define SOURCE_MAX_CHARS 160
/* Longer names mark a bad python_sites row. */
#define SITE_NAME_MAX_BYTES 4096

/* Signature tables: what kind of event. */
enum
{
  SIG_MEMCPY = 1,
  SIG_MEMSET,
  SIG_SYNC,
  SIG_MEMORY,
  SIG_API,
  SIG_NVTX,
};

typedef struct
{
  const PfprofPythonSiteRecord *row; /* the row with the most calls */
  guint recorded;                    /* python_calls rows */
  gint64 last_end;                   /* the end of its last recorded call */
  GHashTable *sigs;                  /* signature -> events in recorded calls */
} Site;

/* One python_calls row, for finding the call an event happened in. */
typedef struct
{
  gint64 start, end;
  guint32 tid;
  Site *site;
} Call;

typedef struct
{
  const PfprofTraceIndex *ix;
  const PfprofLoop *loop;
  const PfprofTrace *t;
  GHashTable *by_id;          /* site_id -> Site* */
  GPtrArray *sites;           /* Site*, owned */
  GArray *calls;              /* Call, by start */
  GHashTable *corr[PFPROF_N_TABLES]; /* correlation id -> index + 1 */
} Ctx;

static guint64
sig_key (guint table, guint32 tid, guint32 sub)
{
  return ((guint64) table << 60) | ((guint64) (tid & 0x0fffffffu) << 32) | sub;
}

/* Copies are told apart by size too (a batch from its labels), by power
 * of two: the low byte of a copy's signature. A copy of a size no
 * recorded call made falls back to the signature without it (COARSE). */
#define COARSE 0xffu

static guint32
size_bucket (guint64 bytes)
{
  return bytes == 0 ? 0 : (guint32) g_bit_storage (bytes);
}

static void
site_free (gpointer p)
{
  Site *s = p;

  g_clear_pointer (&s->sigs, g_hash_table_unref);
  g_free (s);
}

static void
add_sig (GHashTable *h, guint64 key, double by)
{
  double *v = g_hash_table_lookup (h, &key);

  if (v == NULL)
    {
      guint64 *k = g_memdup2 (&key, sizeof key);

      v = g_new0 (double, 1);
      g_hash_table_insert (h, k, v);
    }
  *v += by;
}

/* Correlation id -> index + 1 of the first record of @table having it. */
static GHashTable *
corr_map (Ctx *c, PfprofTableId table)
{
  const PfprofTraceTable *desc = pfprof_trace_schema_table (table);
  const GArray *a = c->t->tables[table];
  guint16 off = 0;

  if (c->corr[table] != NULL)
    return c->corr[table];
  for (unsigned i = 0; i < desc->n_columns; i++)
    if (strcmp (desc->columns[i].name, "correlation_id") == 0)
      off = desc->columns[i].offset;
  c->corr[table] = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint i = 0; off != 0 && i < a->len; i++)
    {
      guint32 corr;

      memcpy (&corr, a->data + (gsize) i * desc->record_size + off, sizeof corr);
      if (corr != 0 && !g_hash_table_contains (c->corr[table], GUINT_TO_POINTER (corr)))
        g_hash_table_insert (c->corr[table], GUINT_TO_POINTER (corr), GUINT_TO_POINTER (i + 1));
    }
  return c->corr[table];
}

/* The signature of row @index of @table, its host thread and the host time
 * it happened at. FALSE for an event with no host side found. */
static gboolean
event_sig (Ctx *c, PfprofTableId table, guint index, guint64 *key, gint64 *dur, gint64 *host)
{
  const PfprofTrace *t = c->t;
  const PfprofApiRecord *api = NULL;
  guint sig = 0;
  guint32 sub = 0, corr = 0, tid;

  if (index >= pfprof_trace_n (t, table))
    return FALSE;
  switch (table)
    {
    case PFPROF_TABLE_MEMCPYS:
      {
        const PfprofMemcpyRecord *m = &pfprof_trace_memcpys (t)[index];

        sig = SIG_MEMCPY;
        sub = (guint32) m->copy_kind << 24 | (guint32) (m->src_kind & 0xf) << 20
              | (guint32) (m->dst_kind & 0xf) << 16 | size_bucket (m->bytes);
        corr = m->correlation_id;
        *dur = m->end_ns - m->start_ns;
        break;
      }
    case PFPROF_TABLE_MEMSETS:
      sig = SIG_MEMSET;
      sub = pfprof_trace_memsets (t)[index].memory_kind;
      corr = pfprof_trace_memsets (t)[index].correlation_id;
      *dur = pfprof_trace_memsets (t)[index].end_ns - pfprof_trace_memsets (t)[index].start_ns;
      break;
    case PFPROF_TABLE_SYNCS:
      sig = SIG_SYNC;
      sub = pfprof_trace_syncs (t)[index].type;
      corr = pfprof_trace_syncs (t)[index].correlation_id;
      *dur = pfprof_trace_syncs (t)[index].end_ns - pfprof_trace_syncs (t)[index].start_ns;
      break;
    case PFPROF_TABLE_MEMORY:
      sig = SIG_MEMORY;
      sub = (guint32) pfprof_trace_memory (t)[index].operation << 8 | pfprof_trace_memory (t)[index].memory_kind;
      corr = pfprof_trace_memory (t)[index].correlation_id;
      *dur = 0;
      break;
    case PFPROF_TABLE_API_CALLS:
      api = &pfprof_trace_api_calls (t)[index];
      *key = sig_key (SIG_API, api->tid, api->name_id);
      *dur = api->end_ns - api->start_ns;
      *host = api->start_ns;
      return TRUE;
    case PFPROF_TABLE_NVTX:
      {
        const PfprofNvtxRecord *n = &pfprof_trace_nvtx (t)[index];

        *key = sig_key (SIG_NVTX, n->tid, n->name_id);
        *dur = n->end_ns - n->start_ns;
        *host = n->start_ns;
        return TRUE;
      }
    default:
      return FALSE;
    }
  api = pfprof_trace_index_api (c->ix, corr);
  if (api == NULL)
    return FALSE;
  tid = api->tid;
  *key = sig_key (sig, tid, sub);
  *host = api->start_ns;
  return TRUE;
}

/* The signatures of what API call @a made: itself and the events
 * correlated with it. */
static void
api_sigs (Ctx *c, const PfprofApiRecord *a, GHashTable *into)
{
  static const PfprofTableId tables[] = { PFPROF_TABLE_MEMCPYS, PFPROF_TABLE_MEMSETS,
                                          PFPROF_TABLE_SYNCS, PFPROF_TABLE_MEMORY };

  add_sig (into, sig_key (SIG_API, a->tid, a->name_id), 1);
  if (a->correlation_id == 0)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (tables); i++)
    {
      guint k = GPOINTER_TO_UINT (g_hash_table_lookup (corr_map (c, tables[i]),
                                                       GUINT_TO_POINTER (a->correlation_id)));
      guint64 key;
      gint64 dur, host;

      if (k > 0 && event_sig (c, tables[i], k - 1, &key, &dur, &host))
        {
          add_sig (into, key, 1);
          if (tables[i] == PFPROF_TABLE_MEMCPYS)
            add_sig (into, (key & ~(guint64) 0xff) | COARSE, 1);
        }
    }
}

/* First index of the records of @a (sorted by a leading int64 start) with
 * start >= @start. */
typedef struct
{
  const GArray *a;
  gsize size;
  gint64 start;
} RecordsAt;

static gboolean
record_starts_before (gconstpointer data, guint i)
{
  const RecordsAt *r = data;
  gint64 v;

  memcpy (&v, r->a->data + (gsize) i * r->size, sizeof v);
  return v < r->start;
}

static guint
lower_bound (const GArray *a, gsize size, gint64 start)
{
  RecordsAt r = { a, size, start };

  return pfprof_lower_bound (0, a->len, record_starts_before, &r);
}

/* The collector cuts names at 1 KiB; a longer one is a damaged row. */
static gboolean
too_long (const PfprofTrace *t, guint32 id)
{
  return strnlen (pfprof_trace_string (t, id), SITE_NAME_MAX_BYTES + 1) > SITE_NAME_MAX_BYTES;
}

static int
compare_calls (gconstpointer pa, gconstpointer pb)
{
  const Call *a = pa, *b = pb;

  return (a->start > b->start) - (a->start < b->start);
}

static gboolean
load_sites (Ctx *c, guint64 *n_bad)
{
  const PfprofTrace *t = c->t;
  const PfprofPythonSiteRecord *rows = pfprof_trace_python_sites (t);

  for (guint i = 0; i < pfprof_trace_n (t, PFPROF_TABLE_PYTHON_SITES); i++)
    {
      const PfprofPythonSiteRecord *r = &rows[i];
      Site *s;

      /* A DataLoader worker's stage makes no GPU work of this process:
       * worker_events tells what it cost. */
      if (r->kind == PFPROF_SITE_WORKER_STAGE)
        continue;
      if (r->line < 1 || *pfprof_trace_string (t, r->file_id) == '\0' || r->kind < PFPROF_SITE_COPY
          || r->kind > PFPROF_SITE_DATALOADER || too_long (t, r->file_id) || too_long (t, r->api_id)
          || too_long (t, r->function_id) || too_long (t, r->caller_file_id)
          || too_long (t, r->caller_function_id))
        {
          (*n_bad)++;
          continue;
        }
      s = g_hash_table_lookup (c->by_id, GUINT_TO_POINTER (r->site_id));
      if (s == NULL)
        {
          s = g_new0 (Site, 1);
          s->sigs = g_hash_table_new_full (pfprof_hash_int64, g_int64_equal, g_free, g_free);
          g_ptr_array_add (c->sites, s);
          g_hash_table_insert (c->by_id, GUINT_TO_POINTER (r->site_id), s);
        }
      if (s->row == NULL || r->calls > s->row->calls)
        s->row = r;
    }
  return c->sites->len > 0;
}

/* The recorded calls of the sites, and what each site's calls made (the
 * API calls and NVTX ranges inside them), for attach_one(): read only
 * when a finding has evidence to attach, as a scan of every call's API
 * records is no small part of the analysis of a large trace. */
static void
load_calls (Ctx *c)
{
  const PfprofTrace *t = c->t;
  const PfprofPythonCallRecord *calls = pfprof_trace_python_calls (t);
  const GArray *api_a = t->tables[PFPROF_TABLE_API_CALLS];
  const GArray *nvtx_a = t->tables[PFPROF_TABLE_NVTX];

  for (guint i = 0; i < pfprof_trace_n (t, PFPROF_TABLE_PYTHON_CALLS); i++)
    {
      const PfprofPythonCallRecord *pc = &calls[i];
      Site *s = g_hash_table_lookup (c->by_id, GUINT_TO_POINTER (pc->site_id));

      if (s == NULL)
        continue;
      s->recorded++;
      s->last_end = s->recorded == 1 ? pc->end_ns : MAX (s->last_end, pc->end_ns);
      {
        Call call = { pc->start_ns, pc->end_ns, pc->tid, s };

        g_array_append_val (c->calls, call);
      }
      for (guint k = lower_bound (api_a, sizeof (PfprofApiRecord), pc->start_ns); k < api_a->len; k++)
        {
          const PfprofApiRecord *a = &pfprof_trace_api_calls (t)[k];

          if (a->start_ns > pc->end_ns)
            break;
          if (a->tid == pc->tid)
            api_sigs (c, a, s->sigs);
        }
      for (guint k = lower_bound (nvtx_a, sizeof (PfprofNvtxRecord), pc->start_ns); k < nvtx_a->len; k++)
        {
          const PfprofNvtxRecord *n = &pfprof_trace_nvtx (t)[k];

          if (n->start_ns > pc->end_ns)
            break;
          if (n->tid == pc->tid)
            add_sig (s->sigs, sig_key (SIG_NVTX, n->tid, n->name_id), 1);
        }
    }
  g_array_sort (c->calls, compare_calls);
}

/* Characters of @s, valid UTF-8, at most @max, "…" when cut. */
static char *
shorten (const char *s, glong max)
{
  g_autofree char *valid = g_utf8_make_valid (s ? s : "", MIN ((gssize) strlen (s ? s : ""), max * 4 + 4));

  if (g_utf8_strlen (valid, -1) <= max)
    return g_steal_pointer (&valid);
  {
    g_autofree char *cut = g_utf8_substring (valid, 0, max - 1);

    return g_strconcat (cut, "…", NULL);
  }
}

/* Line @line of @path, stripped and shortened, or NULL. */
static char *
read_source (PfprofSourceLines *sources, const char *path, gint32 line)
{
  char **lines = pfprof_source_lines_get (sources, path);

  if (lines == NULL || line < 1 || (guint) line > g_strv_length (lines))
    return NULL;
  {
    g_autofree char *stripped = g_strstrip (g_strdup (lines[line - 1]));

    return *stripped ? shorten (stripped, SOURCE_MAX_CHARS) : NULL;
  }
}

static int
compare_sites (gconstpointer pa, gconstpointer pb)
{
  const PfprofFindingSite *a = pa, *b = pb;

  if (a->time_ns != b->time_ns)
    return a->time_ns > b->time_ns ? -1 : 1;
  if (a->count != b->count)
    return a->count > b->count ? -1 : 1;
  return (a->site_id > b->site_id) - (a->site_id < b->site_id);
}

typedef struct
{
  double count, time;
  double live;     /* of count, events credited from calls in the steady state */
} Share;

/* Recorded calls looked at backwards from an event for one containing it. */
#define CONTAINING_SCAN 64

/* Events of signature @key per recorded call of @site (the memcpy
 * signature without its size when @coarse), or 0. */
static double
per_call (const Site *site, guint64 key, gboolean coarse)
{
  const double *n;

  if (coarse)
    key = (key & ~(guint64) 0xff) | COARSE;
  n = g_hash_table_lookup (site->sigs, &key);
  return n != NULL && site->recorded > 0 ? *n / site->recorded : 0;
}

/* The site of the innermost recorded call that was running on the
 * event's thread (in @key) at host time @t and makes events like it. */
static Site *
containing_site (Ctx *c, guint64 key, gint64 t)
{
  guint32 tid = (guint32) (key >> 32) & 0x0fffffffu;
  guint first_after = lower_bound (c->calls, sizeof (Call), t + 1);

  for (guint i = first_after, n = 0; i > 0 && n < CONTAINING_SCAN; i--, n++)
    {
      const Call *call = &g_array_index (c->calls, Call, i - 1);

      if ((call->tid & 0x0fffffffu) == tid && call->end >= t
          && (per_call (call->site, key, FALSE) > 0
              || (key >> 60 == SIG_MEMCPY && per_call (call->site, key, TRUE) > 0)))
        return call->site;
    }
  return NULL;
}

static void
credit (GHashTable *shares, Site *site, double count, double time, gboolean live)
{
  Share *sh = g_hash_table_lookup (shares, site);

  if (sh == NULL)
    {
      sh = g_new0 (Share, 1);
      g_hash_table_insert (shares, site, sh);
    }
  sh->count += count;
  sh->time += time;
  if (live)
    sh->live += count;
}

/* A site is credited with an event it was not seen making only if it was
 * running in the steady state: its last recorded call ends in it (the
 * hook records a site's first calls and a thinning sample of the later
 * ones, so a site still called in the steady state has calls there).
 * Sites whose recorded calls all ended before (start-up code: moving the
 * model to the GPU makes copies and syncs of the same kinds) share an
 * event only when no running site makes its kind. */
static void
share_sig (Ctx *c, guint64 key, const Share *ev, GHashTable *shares)
{
  for (int startup = 0; startup < 2; startup++)
    for (int coarse = 0; coarse < 2; coarse++)
      {
        double total = 0;

        if (coarse && key >> 60 != SIG_MEMCPY)
          break;
        for (guint s = 0; s < c->sites->len; s++)
          {
            const Site *site = g_ptr_array_index (c->sites, s);

            if (startup || site->last_end >= c->loop->steady_start)
              total += per_call (site, key, coarse) * (double) MAX (site->row->calls, site->recorded);
          }
        if (total <= 0)
          continue;
        for (guint s = 0; s < c->sites->len; s++)
          {
            Site *site = g_ptr_array_index (c->sites, s);
            double w;

            if (!startup && site->last_end < c->loop->steady_start)
              continue;
            w = per_call (site, key, coarse) * (double) MAX (site->row->calls, site->recorded) / total;
            if (w > 0)
              credit (shares, site, ev->count * w, ev->time * w, !startup);
          }
        return;
      }
}

/* "file:line" of @file (its base name) for fix texts. */
static char *
where (const char *file, gint32 line)
{
  g_autofree char *base = g_path_get_basename (file);
  g_autofree char *name = shorten (base, NAME_MAX_CHARS);

  return g_strdup_printf ("%s:%d", name, line);
}

/* The class of a method the hook named ("DetectionBatch.to", or
 * "DetectionBatch.to.<locals>.<listcomp>" where comprehensions are
 * functions of their own) when the method moves the batch (to, cuda,
 * to_device): the batch's own type, whose tensors pin_memory=True pins
 * only through its pin_memory() method. NULL otherwise. */
static char *
batch_class (const char *function)
{
  g_auto (GStrv) parts = g_strsplit (function ? function : "", ".", -1);
  guint n = g_strv_length (parts);

  while (n > 0 && parts[n - 1][0] == '<')
    n--;
  if (n < 2 || parts[n - 2][0] == '<')
    return NULL;
  if (strcmp (parts[n - 1], "to") != 0 && strcmp (parts[n - 1], "cuda") != 0
      && strcmp (parts[n - 1], "to_device") != 0)
    return NULL;
  return shorten (parts[n - 2], NAME_MAX_CHARS);
}

/* Whether @source is a comprehension over a list or dict, one copy per
 * element ("[t.cuda() for t in batch]", "{k: v.to(d) for k, v in
 * t.items()}"). */
static gboolean
per_element (const char *source)
{
  return source != NULL && g_regex_match_simple ("[\\[{(].*\\bfor\\b.+\\bin\\b", source, 0, 0);
}

static int
indent_of (const char *line)
{
  int n = 0;

  while (line[n] == ' ' || line[n] == '\t')
    n++;
  return line[n] == '\0' || line[n] == '#' ? -1 : n;
}

/* A copy at @line of @lines inside a `with torch.cuda.stream(...)` block
 * that then converts or normalises on that stream: the `with` line and
 * the first such line after the copy in the block (1-based), else FALSE. */
static gboolean
side_stream_work (char **lines, gint32 line, gint32 *with_line, gint32 *work_line)
{
  guint n = lines ? g_strv_length (lines) : 0;
  int at, in = 0;

  if (line < 1 || (guint) line > n || (at = indent_of (lines[line - 1])) < 0)
    return FALSE;
  *with_line = 0;
  for (gint32 k = line - 1; k >= 1 && k >= line - BLOCK_SCAN_LINES && *with_line == 0; k--)
    {
      int i = indent_of (lines[k - 1]);

      if (i < 0 || i >= at)
        continue;
      if (!g_regex_match_simple ("^\\s*with\\b.*\\bstream\\s*\\(", lines[k - 1], 0, 0))
        return FALSE;
      *with_line = k;
      in = i;
    }
  if (*with_line == 0)
    return FALSE;
  for (guint k = (guint) line + 1; k <= n && k <= (guint) line + BLOCK_SCAN_LINES; k++)
    {
      int i = indent_of (lines[k - 1]);

      if (i < 0)
        continue;
      if (i <= in)
        return FALSE;
      if (g_regex_match_simple ("\\.(float|half|bfloat16|double)\\s*\\(|\\.(sub|div|mul|add)_?\\s*\\(|normali[sz]e",
                                lines[k - 1], 0, 0))
        {
          *work_line = (gint32) k;
          return TRUE;
        }
    }
  return FALSE;
}

/* The installed package @file is part of ("torchvision" for
 * ".../site-packages/torchvision/ops/boxes.py"), or NULL for the user's
 * own files. The hook counts such files as the user's (their frames are
 * where torch is called from), but their lines are not the user's to
 * change. */
static char *
package_of (const char *file)
{
  static const char *const roots[] = { "/site-packages/", "/dist-packages/" };

  for (size_t i = 0; file != NULL && i < G_N_ELEMENTS (roots); i++)
    {
      const char *p = strstr (file, roots[i]);
      const char *name, *end;
      g_autofree char *pkg = NULL;

      if (p == NULL)
        continue;
      name = p + strlen (roots[i]);
      end = strchr (name, '/');
      if (end == NULL || end == name)
        return NULL;
      pkg = g_strndup (name, (gsize) (end - name));
      return shorten (pkg, NAME_MAX_CHARS);
    }
  return NULL;
}

/* "The syncs at boxes.py:100 (in `batched_nms`) are made inside the
 * installed package `torchvision`, called from rpn.py:270 (in
 * `filter_proposals`): ..." when @top's file belongs to an installed
 * package; appended to @advice. */
static void
add_library_advice (GString *advice, const PfprofFindingSite *top)
{
  g_autofree char *pkg = package_of (top->file);
  g_autofree char *at = NULL;
  g_autofree char *fn = NULL;
  g_autofree char *from = NULL;
  const char *what = top->kind == PFPROF_SITE_SYNC ? "syncs" : top->kind == PFPROF_SITE_COPY ? "copies" : "calls";

  if (pkg == NULL || top->startup)
    return;
  at = where (top->file, top->line);
  fn = shorten (top->function && *top->function ? top->function : "?", NAME_MAX_CHARS);
  if (top->caller_file != NULL && *top->caller_file != '\0' && top->caller_line > 0)
    {
      g_autofree char *cat = where (top->caller_file, top->caller_line);
      g_autofree char *cfn = shorten (top->caller_function && *top->caller_function ? top->caller_function : "?",
                                      NAME_MAX_CHARS);

      from = g_strdup_printf (", called from %s (in `%s`)", cat, cfn);
    }
  g_string_append_printf (advice,
                          "The %s at %s (in `%s`) are made inside the installed package `%s`%s, not by a "
                          "line of your own: what follows applies to what your code hands to `%s` and how "
                          "often it calls it; the %s themselves go only with a change of how `%s` is used "
                          "(another function or option of it) or of `%s` itself.\n\n",
                          what, at, fn, pkg, from ? from : "", pkg, what, pkg, pkg);
}

/* What a copy site @top of @f reveals, appended to @advice: where the
 * DataLoader whose batches arrive pageable is iterated (the hook knows the
 * line that iterates it, not the one that built it), a batch of the
 * program's own type (moved by its own to()), a list or dict moved one
 * tensor at a time, and a copy on a side stream that then converts or
 * normalises the batch there. */
static void
add_copy_advice (Ctx *c, PfprofFinding *f, const PfprofFindingSite *top, PfprofSourceLines *sources, GString *advice)
{
  g_autofree char *copy_at = where (top->file, top->line);
  g_autofree char *loader_at = NULL;
  gint32 with_line, work_line;

  {
    const PfprofPythonSiteRecord *loader = NULL;

    for (guint s = 0; s < c->sites->len; s++)
      {
        const Site *site = g_ptr_array_index (c->sites, s);

        if (site->row->kind == PFPROF_SITE_DATALOADER && (loader == NULL || site->row->calls > loader->calls))
          loader = site->row;
      }
    if (loader != NULL)
      loader_at = where (pfprof_trace_string (c->t, loader->file_id), loader->line);
  }
  if (strcmp (f->rule, "pageable-transfer") == 0)
    {
      g_autofree char *cls = batch_class (top->function);
      g_autofree char *loader_text
          = loader_at ? g_strdup_printf ("the DataLoader iterated at %s", loader_at) : g_strdup ("the DataLoader");

      if (cls != NULL)
        g_string_append_printf (advice,
                                "The copies at %s are made by `%s`'s own to(): the batch is a `%s`, and "
                                "`pin_memory=True` pins tensors, lists, tuples and dicts, but any other batch "
                                "only through its own pin_memory() method; without one its tensors stay "
                                "pageable (`pfprof try --fix pin-memory` reports such types). Give `%s` a "
                                "`pin_memory(self)` method that pins every tensor it holds and returns self: "
                                "%s calls it when built with `pin_memory=True`.\n\n",
                                copy_at, cls, cls, cls, loader_text);
      else if (per_element (top->source))
        g_string_append_printf (advice,
                                "The copies at %s move a list or dict one tensor at a time from pageable "
                                "memory: `pin_memory=True` on %s pins a list, tuple or dict of tensors element "
                                "by element (a custom collate_fn's own type needs a pin_memory() method); a "
                                "list the loop builds itself after the DataLoader stays pageable: stack it into "
                                "one tensor and pin that.\n\n",
                                copy_at, loader_text);
      else if (loader_at != NULL)
        g_string_append_printf (advice,
                                "The copies at %s read batches from pageable memory: pass "
                                "`pin_memory=True` to the DataLoader iterated at %s (or give a "
                                "custom batch type a pin_memory() method).\n\n",
                                copy_at, loader_at);
    }
  if (top->source != NULL && side_stream_work (pfprof_source_lines_get (sources, top->file), top->line, &with_line, &work_line))
    {
      g_autofree char *with_at = where (top->file, with_line);
      g_autofree char *work_at = where (top->file, work_line);

      g_string_append_printf (advice,
                              "The copy at %s runs on the side stream of the `with` at %s, and %s then "
                              "converts or normalises the batch on that stream too: those kernels delay the "
                              "batch as much as the copy, and write memory the allocator gave the side "
                              "stream, so the compute stream must `wait_stream` before it reads it and the "
                              "result needs `record_stream` to be safe. Keep only the copy in the `with` "
                              "block, and do the `.float()` and the normalisation on the compute stream "
                              "after `torch.cuda.current_stream().wait_stream(side)`.\n\n",
                              copy_at, with_at, work_at);
    }
}

/* Puts in front of @f's fix what its first site reveals: events made
 * inside an installed package rather than the user's own lines, and what
 * a copy site's lines show (add_copy_advice). */
static void
add_site_advice (Ctx *c, PfprofFinding *f, PfprofSourceLines *sources)
{
  g_autoptr (GString) advice = g_string_new (NULL);
  const PfprofFindingSite *top = &g_array_index (f->sites, PfprofFindingSite, 0);

  add_library_advice (advice, top);
  if (top->kind == PFPROF_SITE_COPY && !top->startup)
    add_copy_advice (c, f, top, sources, advice);
  if (advice->len > 0)
    {
      char *fix = g_strconcat (advice->str, f->fix ? f->fix : "", NULL);

      g_free (f->fix);
      f->fix = fix;
    }
}

/* `x = t.record_stream(s)`: record_stream() returns None, so x is None
 * after it. Said once per trace, in front of the fix of its
 * record-stream-stall finding, else of its first finding about the
 * batch's copies. */
static void
add_record_stream_advice (Ctx *c, GPtrArray *findings, guint first, PfprofSourceLines *sources)
{
  static const char *const rules[] = { "record-stream-stall", "late-prefetch", "serialized-copy", "pageable-transfer" };
  g_autoptr (GRegex) re = g_regex_new ("^\\s*([A-Za-z_][\\w.]*(\\[[^]=]*\\])?)\\s*=(?!=)\\s*(.+?)\\.record_stream\\s*\\(", 0, 0, NULL);
  PfprofFinding *target = NULL;

  for (gsize r = 0; r < G_N_ELEMENTS (rules) && target == NULL; r++)
    for (guint i = first; i < findings->len && target == NULL; i++)
      if (strcmp (((PfprofFinding *) g_ptr_array_index (findings, i))->rule, rules[r]) == 0)
        target = g_ptr_array_index (findings, i);
  if (target == NULL || re == NULL)
    return;
  for (guint s = 0; s < c->sites->len; s++)
    {
      const PfprofPythonSiteRecord *row = ((const Site *) g_ptr_array_index (c->sites, s))->row;
      const char *file = pfprof_trace_string (c->t, row->file_id);
      g_autofree char *source = NULL;
      g_autoptr (GMatchInfo) m = NULL;

      if (row->kind != PFPROF_SITE_RECORD_STREAM || (source = read_source (sources, file, row->line)) == NULL
          || !g_regex_match (re, source, 0, &m))
        continue;
      {
        g_autofree char *lhs = g_match_info_fetch (m, 1);
        g_autofree char *tensor = g_match_info_fetch (m, 3);
        g_autofree char *at = where (file, row->line);
        g_autofree char *fix = g_strdup_printf ("`%s` at %s assigns None: record_stream() marks `%s` in place "
                                                "and returns nothing, so `%s` is None after that line. Call "
                                                "`%s.record_stream(...)` on a line of its own, or allocate the "
                                                "batch on the stream that uses it and drop record_stream.\n\n%s",
                                                source, at, tensor, lhs, tensor, target->fix ? target->fix : "");

        g_free (target->fix);
        target->fix = g_steal_pointer (&fix);
        return;
      }
    }
}

static void
attach_one (Ctx *c, PfprofFinding *f, PfprofSourceLines *sources, gboolean redacted)
{
  g_autoptr (GHashTable) per_sig = g_hash_table_new_full (pfprof_hash_int64, g_int64_equal, g_free, g_free);
  g_autoptr (GHashTable) shares = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  GHashTableIter it;
  gpointer k, v;

  for (guint i = 0; i < f->evidence_keys->len; i++)
    {
      guint64 ek = g_array_index (f->evidence_keys, guint64, i);
      guint64 key;
      gint64 dur, host;
      Share *sh;
      Site *direct;

      if (!event_sig (c, (PfprofTableId) (ek >> 32), (guint) ek, &key, &dur, &host))
        continue;
      /* An event made inside a recorded call is that call's site's. */
      if ((direct = containing_site (c, key, host)) != NULL)
        {
          credit (shares, direct, 1, (double) dur, TRUE);
          continue;
        }
      if ((sh = g_hash_table_lookup (per_sig, &key)) == NULL)
        {
          sh = g_new0 (Share, 1);
          g_hash_table_insert (per_sig, g_memdup2 (&key, sizeof key), sh);
        }
      sh->count += 1;
      sh->time += (double) dur;
    }
  g_hash_table_iter_init (&it, per_sig);
  while (g_hash_table_iter_next (&it, &k, &v))
    share_sig (c, *(guint64 *) k, v, shares);
  if (g_hash_table_size (shares) == 0)
    return;
  f->sites = g_array_new (FALSE, TRUE, sizeof (PfprofFindingSite));
  g_array_set_clear_func (f->sites, pfprof_finding_site_clear);
  g_hash_table_iter_init (&it, shares);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      const Site *site = k;
      const Share *sh = v;
      const PfprofPythonSiteRecord *r = site->row;
      PfprofFindingSite fs = { 0 };

      fs.trace_index = c->ix->trace_index;
      fs.site_id = r->site_id;
      fs.kind = r->kind;
      fs.api = pfprof_trace_string (c->t, r->api_id);
      fs.file = pfprof_trace_string (c->t, r->file_id);
      fs.line = r->line;
      fs.function = pfprof_trace_string (c->t, r->function_id);
      fs.caller_file = pfprof_trace_string (c->t, r->caller_file_id);
      fs.caller_line = MAX (r->caller_line, 0);
      fs.caller_function = pfprof_trace_string (c->t, r->caller_function_id);
      fs.calls = MAX (r->calls, site->recorded);
      fs.count = (guint64) (sh->count + 0.5);
      fs.time_ns = (gint64) (sh->time + 0.5);
      fs.per_step_ns = (gint64) ((double) fs.time_ns / pfprof_loop_per_step_divisor (c->loop));
      fs.startup = sh->live <= 0;
      g_array_append_val (f->sites, fs);
    }
  g_array_sort (f->sites, compare_sites);
  if (f->sites->len > PFPROF_FINDING_MAX_SITES)
    g_array_set_size (f->sites, PFPROF_FINDING_MAX_SITES);
  for (guint i = 0; !redacted && i < f->sites->len; i++)
    {
      PfprofFindingSite *fs = &g_array_index (f->sites, PfprofFindingSite, i);

      fs->source = read_source (sources, fs->file, fs->line);
      fs->source_withheld = pfprof_source_lines_withheld (sources, fs->file);
    }
  add_site_advice (c, f, sources);
}

void
pfprof_call_sites_attach (const PfprofTraceIndex *ix, const PfprofLoop *loop, GPtrArray *findings,
                          guint first,
                          PfprofSourceLinesPolicy policy, guint64 *n_bad_sites,
                          guint *n_sources_withheld)
{
  g_return_if_fail (ix != NULL);
  g_return_if_fail (loop != NULL);
  g_return_if_fail (findings != NULL);
  g_return_if_fail (n_bad_sites != NULL);
  g_return_if_fail (n_sources_withheld != NULL);

  Ctx c = { 0 };
  const char *cmd = pfprof_trace_meta (ix->trace, "command_line");
  /* A trace recorded with --redact-args says so at the end of its command
   * line (docs/trace-format.md, meta); its source lines stay unread. So do
   * those of a torch.profiler trace, whose sites' lines are their frames'
   * (pfprof-kineto-sites-private.h), not the lines of the calls. */
  gboolean redacted = (cmd != NULL && g_str_has_suffix (cmd, "[arguments redacted]"))
                      || g_strcmp0 (pfprof_trace_meta (ix->trace, "source"), "kineto-json") == 0;
  g_autoptr (PfprofSourceLines) sources = pfprof_source_lines_new (policy);

  c.ix = ix;
  c.loop = loop;
  c.t = ix->trace;
  c.by_id = g_hash_table_new (g_direct_hash, g_direct_equal);
  c.sites = g_ptr_array_new_with_free_func (site_free);
  c.calls = g_array_new (FALSE, FALSE, sizeof (Call));
  if (pfprof_trace_n (c.t, PFPROF_TABLE_PYTHON_SITES) > 0 && load_sites (&c, n_bad_sites))
    {
      gboolean calls_loaded = FALSE;

      for (guint i = first; i < findings->len; i++)
        {
          PfprofFinding *f = g_ptr_array_index (findings, i);

          if (f->evidence_keys == NULL)
            continue;
          if (!calls_loaded)
            load_calls (&c);
          calls_loaded = TRUE;
          attach_one (&c, f, sources, redacted);
        }
    }
  if (c.sites->len > 0 && !redacted)
    add_record_stream_advice (&c, findings, first, sources);
  for (guint i = first; i < findings->len; i++)
    {
      PfprofFinding *f = g_ptr_array_index (findings, i);

      g_clear_pointer (&f->evidence_keys, g_array_unref);
    }
  for (guint t = 0; t < PFPROF_N_TABLES; t++)
    g_clear_pointer (&c.corr[t], g_hash_table_unref);
  g_hash_table_unref (c.by_id);
  g_ptr_array_unref (c.sites);
  g_array_unref (c.calls);
  *n_sources_withheld = pfprof_source_lines_n_withheld (sources);
}

char *
pfprof_call_site_describe (const PfprofFindingSite *site, gboolean full)
{
  g_return_val_if_fail (site != NULL, NULL);

  g_autofree char *base = full ? NULL : g_path_get_basename (site->file);
  g_autofree char *file = shorten (full ? site->file : base, NAME_MAX_CHARS);
  g_autofree char *function = shorten (site->function, NAME_MAX_CHARS);
  g_autofree char *api = shorten (site->api, NAME_MAX_CHARS);

  return g_strdup_printf ("%s:%d in %s: %s", file, site->line, function, api);
}

const char *
pfprof_site_kind_name (guint kind)
{
  switch (kind)
    {
    case PFPROF_SITE_COPY: return "copy";
    case PFPROF_SITE_SYNC: return "sync";
    case PFPROF_SITE_RECORD_STREAM: return "record_stream";
    case PFPROF_SITE_PIN: return "pin";
    case PFPROF_SITE_DATALOADER: return "dataloader";
    default: return "unknown";
    }
}

char *
pfprof_call_site_summary (const PfprofFindingSite *site)
{
  g_return_val_if_fail (site != NULL, NULL);

  g_autofree char *base = g_path_get_basename (site->file);
  g_autofree char *file = shorten (base, NAME_MAX_CHARS);
  g_autofree char *function = shorten (site->function, NAME_MAX_CHARS);
  g_autofree char *what = shorten (site->source ? site->source : site->api, SOURCE_MAX_CHARS);
  g_autofree char *per_step = pfprof_format_ns (site->per_step_ns);
  static const char *const nouns[][2] = {
    [PFPROF_SITE_COPY] = { "copy", "copies" },
    [PFPROF_SITE_SYNC] = { "sync", "syncs" },
    [PFPROF_SITE_RECORD_STREAM] = { "event", "events" },
    [PFPROF_SITE_PIN] = { "allocation", "allocations" },
    [PFPROF_SITE_DATALOADER] = { "wait", "waits" },
  };
  const char *noun = site->kind >= PFPROF_SITE_COPY && site->kind <= PFPROF_SITE_DATALOADER
                       ? nouns[site->kind][site->count != 1]
                       : (site->count != 1 ? "events" : "event");

  return g_strdup_printf ("%s:%d in %s: %s: %" G_GUINT64_FORMAT " %s, %s per step%s", file, site->line,
                          function, what, site->count, noun, per_step,
                          site->startup ? " (start-up)" : "");
}

void
pfprof_finding_site_clear (gpointer p)
{
  g_return_if_fail (p != NULL);

  PfprofFindingSite *s = p;

  g_clear_pointer (&s->source, g_free);
}
