/* SPDX-License-Identifier: MIT */
/* pfprof-kineto-import.c: torch.profiler (Kineto) Chrome-trace JSON as a
 * trace (see the header for what is read and how it maps). */
#include "pfprof-kineto-import-private.h"
#include "pfprof-file-read.h"
#include "pfprof-hash.h"
#include "pfprof-kineto-sites-private.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* A gzip file may not inflate beyond this: a few bytes can claim
 * gigabytes. Real traces are well below (360 bytes per event). */
#define MAX_JSON_BYTES ((gsize) 8 << 30)

/* Times beyond this many ns are refused (the analysis keeps ±2^62). */
#define MAX_TIME_NS ((gint64) 1 << 62)

/* Below this many µs a double holds the time to better than 2 ns. */
#define EXACT_DOUBLE_US 8.0e9

/* Events between two progress callbacks. */
#define PROGRESS_EVERY 8192

/* The JSON text is read (or inflated) into a window of this many bytes
 * at a time, not whole: memory follows the events kept, not the file's
 * size (a few MB of gzip can hold gigabytes of JSON). */
#define WINDOW_BYTES ((gsize) 16 << 20)

/* Compressed bytes read from a gzip file at a time. */
#define GZIP_IN_BYTES ((gsize) 1 << 20)

/* The window grows to hold one value (an event, a key, a member read)
 * up to this size; a longer one is refused. */
#define MAX_VALUE_BYTES ((gsize) 256 << 20)

typedef struct
{
  const char *path;
  PfprofTrace *trace;
  GHashTable *interned;
  const char *buf;          /* the window: the JSON text read and still needed */
  gsize len;
  char *window;             /* buf, owned */
  gsize cap;                /* bytes the window holds */
  gsize window_bytes;       /* bytes read into it at a time */
  gboolean jansson_only;    /* no fast path (for tests) */
  gsize base;               /* offset in the JSON text of buf[0] */
  gboolean eof;             /* buf holds the text's end */
  PfprofFileRead *file;
  guint64 file_size;
  guint64 file_got;         /* bytes read from the file */
  gboolean z_live;          /* a gzip file */
  gboolean z_in_end;        /* all of its bytes are read */
  z_stream z;
  char *z_in;               /* compressed bytes read, not yet inflated */
  GError *stream_error;     /* why inflating stopped early */
  PfprofTraceProgressFunc progress;
  gpointer user_data;
  double progress_base;     /* fraction done before parsing began */
  gsize event_at;           /* byte offset of the event being read */
  gint64 base_ns;           /* baseTimeOffset */
  gboolean have_events;
  guint64 n_events;         /* in traceEvents */
  guint64 n_known;          /* of a category this file reads */
  guint64 n_no_time;        /* complete events without ts, skipped */
  guint64 n_python;         /* python_function frames seen */
  guint64 n_unknown_kind;   /* copies whose name gives no memory kinds */
  guint64 n_noise_api;      /* runtime queries left out, as the collector does */
  guint64 n_steps;          /* ProfilerStep#N ranges */
  gint64 schema_version;    /* -1 when absent */
  guint32 dom_pfprof;       /* string ids */
  guint32 dom_python;
  guint32 name_wait;
  guint32 name_backward;
  double last_autograd_us;  /* raw "ts" of the last autograd engine operator */
  gboolean seen_autograd;
  GHashTable *api_names;    /* correlation id -> const char* API name */
  GHashTable *pid_calls;    /* host pid -> runtime calls + 1 */
  GHashTable *streams;      /* (device << 32 | stream) -> context + 1 */
  GHashTable *devices_seen; /* device id + 1 */
  GHashTable *thread_names; /* (pid << 32 | tid) -> name id + 1 */
  GHashTable *process_names; /* pid -> name id + 1 */
} Importer;

static gboolean
fail (Importer *im, GError **error, PfprofTraceError code, const char *fmt, ...)
  G_GNUC_PRINTF (4, 5);

static gboolean
fail (Importer *im, GError **error, PfprofTraceError code, const char *fmt, ...)
{
  g_autofree char *msg = NULL;
  va_list ap;

  /* Once inflating failed, the text ends early there: what the parser
   * then finds wrong is a consequence, the gzip error the cause. */
  if (im->stream_error != NULL && error != &im->stream_error)
    {
      g_propagate_error (error, g_steal_pointer (&im->stream_error));
      return FALSE;
    }
  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, PFPROF_TRACE_ERROR, code, "%s: %s", im->path, msg);
  return FALSE;
}

/* An error about the event being read. */
static gboolean
bad_event (Importer *im, GError **error, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static gboolean
bad_event (Importer *im, GError **error, const char *fmt, ...)
{
  g_autofree char *msg = NULL;
  va_list ap;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  return fail (im, error, PFPROF_TRACE_ERROR_CORRUPT,
               "corrupt torch.profiler trace: event at byte %" G_GSIZE_FORMAT ": %s", im->event_at,
               msg);
}

static guint32
intern (Importer *im, const char *s)
{
  return pfprof_trace_intern (im->trace, im->interned, s);
}

static void
set_meta (Importer *im, const char *key, const char *value)
{
  g_hash_table_replace (im->trace->meta, g_strdup (key), g_strdup (value ? value : ""));
}

static void
set_meta_int (Importer *im, const char *key, gint64 value)
{
  g_hash_table_replace (im->trace->meta, g_strdup (key),
                        g_strdup_printf ("%" G_GINT64_FORMAT, value));
}

/* ---- Reading the file ------------------------------------------------ */

gboolean
pfprof_kineto_import_sniff (const guint8 *head, gsize len)
{
  gsize i = 0;

  if (len >= 2 && head[0] == 0x1f && head[1] == 0x8b)
    return TRUE;
  if (len >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF)
    i = 3;
  while (i < len && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
    i++;
  return i < len && head[i] == '{';
}

gboolean
pfprof_kineto_import_is_kineto (const guint8 *head, gsize len)
{
  static const char result_key[] = "\"format\"";
  gsize i = 0;

  if (!pfprof_kineto_import_sniff (head, len))
    return FALSE;
  if (head[0] == 0x1f)
    return TRUE;
  while (head[i] != '{')
    i++;
  for (i++; i < len && g_ascii_isspace (head[i]); i++)
    ;
  /* Only the first member decides, wherever traceEvents comes: a Kineto
   * writer may put any key first, and every result starts with "format"
   * (pfprof_report_json). A head that ends before the first member
   * leaves the file to the importer, as `pfprof import` does. */
  return !(i + sizeof result_key - 1 <= len
           && memcmp (head + i, result_key, sizeof result_key - 1) == 0);
}

static gboolean
report_progress (Importer *im, double fraction, GError **error)
{
  if (im->progress != NULL && !im->progress (CLAMP (fraction, 0.0, 1.0), im->user_data))
    return fail (im, error, PFPROF_TRACE_ERROR_CANCELLED, "loading cancelled");
  return TRUE;
}

/* Records why the text ends early (@local's message), once. */
static void
stream_failed (Importer *im, GError *local)
{
  im->eof = TRUE;
  if (im->stream_error == NULL)
    fail (im, &im->stream_error, (PfprofTraceError) local->code, "%s", local->message);
  g_error_free (local);
}

/* Reads more of a gzip file's compressed bytes when z has none left:
 * FALSE at their end or on an error (then im->stream_error). */
static gboolean
refill (Importer *im)
{
  GError *local = NULL;
  gssize n;

  if (im->z.avail_in > 0)
    return TRUE;
  if (im->z_in_end)
    return FALSE;
  n = pfprof_file_read_next (im->file, im->z_in, GZIP_IN_BYTES, &local);
  if (n < 0)
    {
      im->z_in_end = TRUE;
      stream_failed (im, local);
      return FALSE;
    }
  if (n == 0)
    {
      im->z_in_end = TRUE;
      return FALSE;
    }
  im->file_got += (guint64) n;
  im->z.next_in = (Bytef *) im->z_in;
  im->z.avail_in = (uInt) n;
  return TRUE;
}

/* Inflates about @want bytes more of a gzip file (one member or
 * several, as `cat a.gz b.gz` makes) at im->buf + im->len. */
static void
inflate_more (Importer *im, gsize want)
{
  gsize before = im->len;
  int rc = Z_OK;

  for (;;)
    {
      gsize room;

      refill (im);
      if (im->stream_error != NULL)
        return;
      room = MIN (im->cap - im->len, (gsize) 1 << 24);
      if (room == 0 || im->len - before >= want)
        return;
      im->z.next_out = (Bytef *) im->window + im->len;
      im->z.avail_out = (uInt) room;
      rc = inflate (&im->z, Z_NO_FLUSH);
      im->len += room - im->z.avail_out;
      if (im->base + im->len > MAX_JSON_BYTES)
        {
          rc = Z_MEM_ERROR;
          break;
        }
      if (rc == Z_STREAM_END)
        {
          /* Another member may follow; trailing zero bytes end the file. */
          for (;;)
            {
              while (im->z.avail_in > 0 && *im->z.next_in == 0)
                {
                  im->z.next_in++;
                  im->z.avail_in--;
                }
              if (im->z.avail_in > 0 || !refill (im))
                break;
            }
          if (im->stream_error != NULL)
            return;
          if (im->z.avail_in == 0)
            {
              im->eof = TRUE;
              return;
            }
          if (inflateReset (&im->z) != Z_OK)
            {
              rc = Z_DATA_ERROR;
              break;
            }
          continue;
        }
      if (rc == Z_BUF_ERROR && im->z.avail_in == 0 && im->z_in_end)
        break; /* input ended inside a member */
      if (rc != Z_OK && rc != Z_BUF_ERROR)
        break;
    }
  im->eof = TRUE;
  if (rc == Z_MEM_ERROR)
    fail (im, &im->stream_error, PFPROF_TRACE_ERROR_CORRUPT,
          "gzip data inflates beyond %" G_GSIZE_FORMAT " GiB, or memory ran out",
          MAX_JSON_BYTES >> 30);
  else if (rc == Z_BUF_ERROR || rc == Z_OK)
    fail (im, &im->stream_error, PFPROF_TRACE_ERROR_CORRUPT,
          "truncated gzip file (it ends after %" G_GSIZE_FORMAT " bytes of JSON)",
          im->base + im->len);
  else
    fail (im, &im->stream_error, PFPROF_TRACE_ERROR_CORRUPT, "corrupt gzip data: %s",
          im->z.msg ? im->z.msg : "bad stream");
}

/* Reads about @want bytes more of a plain file at im->buf + im->len. */
static void
read_more (Importer *im, gsize want)
{
  gsize before = im->len;

  while (im->len - before < want)
    {
      GError *local = NULL;
      gssize n = pfprof_file_read_next (im->file, im->window + im->len, im->cap - im->len, &local);

      if (n < 0)
        {
          stream_failed (im, local);
          return;
        }
      if (n == 0)
        {
          im->eof = TRUE;
          return;
        }
      im->len += (gsize) n;
      im->file_got += (guint64) n;
    }
}

/* Moves the window on to start at *@pos (which becomes 0), letting go
 * of the text before it, and reads more of the file into it. FALSE when
 * nothing more came: the text ended, or reading it failed
 * (im->stream_error). */
static gboolean
pull (Importer *im, gsize *pos)
{
  gsize before, want;

  if (im->eof)
    return FALSE;
  memmove (im->window, im->window + *pos, im->len - *pos);
  im->base += *pos;
  im->len -= *pos;
  *pos = 0;
  /* Half a window, or half again what is held: a value longer than the
   * window is read in steps that grow with it, not rescanned after each
   * half window. */
  want = MAX (im->window_bytes / 2, im->len / 2);
  if (im->cap - im->len < want)
    {
      char *bigger = g_try_realloc (im->window, im->len + want + 1);

      if (bigger == NULL)
        {
          im->eof = TRUE;
          fail (im, &im->stream_error, PFPROF_TRACE_ERROR_CORRUPT,
                "out of memory for a window of %" G_GSIZE_FORMAT " MiB of the trace",
                (im->len + want) >> 20);
          return FALSE;
        }
      im->window = bigger;
      im->cap = im->len + want;
    }
  before = im->len;
  if (im->z_live)
    inflate_more (im, want);
  else
    read_more (im, want);
  im->window[im->len] = '\0';
  im->buf = im->window;
  return im->len > before;
}

static gboolean
open_input (Importer *im, GError **error)
{
  g_autoptr (GError) local = NULL;
  const char *test_window = g_getenv ("PFPROF_TEST_JSON_WINDOW");
  gssize n;
  gsize at = 0;

  /* Read, not mapped (pfprof-file-read.h): a trace re-exported in place
   * while it is read is an error, not a SIGBUS. */
  im->file = pfprof_file_read_open (im->path, MAX_JSON_BYTES, 0, &local);
  if (im->file == NULL)
    return fail (im, error, (PfprofTraceError) local->code, "%s", local->message);
  im->file_size = pfprof_file_read_size (im->file);
  if (im->file_size == 0)
    return fail (im, error, PFPROF_TRACE_ERROR_EMPTY, "empty file");
  /* For tests: a small window puts every kind of value across its edge
   * with a small file. */
  im->window_bytes = WINDOW_BYTES;
  if (test_window != NULL && *test_window != '\0')
    im->window_bytes = CLAMP (g_ascii_strtoull (test_window, NULL, 10), 16, WINDOW_BYTES);
  /* For tests: every event read by jansson, to compare with. */
  im->jansson_only = g_getenv ("PFPROF_TEST_JSON_JANSSON") != NULL;
  im->window = g_try_malloc (im->window_bytes + 1);
  im->z_in = g_try_malloc (GZIP_IN_BYTES);
  if (im->window == NULL || im->z_in == NULL)
    return fail (im, error, PFPROF_TRACE_ERROR_CORRUPT, "out of memory for reading the trace");
  im->cap = im->window_bytes;
  im->buf = im->window;
  im->window[0] = '\0';
  /* The first bytes tell gzip from plain text. */
  n = pfprof_file_read_next (im->file, im->z_in, MIN (GZIP_IN_BYTES, im->window_bytes), &local);
  if (n < 0)
    return fail (im, error, (PfprofTraceError) local->code, "%s", local->message);
  im->file_got = (guint64) n;
  if (n >= 2 && (guint8) im->z_in[0] == 0x1f && (guint8) im->z_in[1] == 0x8b)
    {
      if (inflateInit2 (&im->z, 16 + MAX_WBITS) != Z_OK)
        return fail (im, error, PFPROF_TRACE_ERROR_CORRUPT, "cannot start gzip decompression");
      im->z_live = TRUE;
      im->z.next_in = (Bytef *) im->z_in;
      im->z.avail_in = (uInt) n;
    }
  else
    {
      memcpy (im->window, im->z_in, (gsize) n);
      im->len = (gsize) n;
      g_clear_pointer (&im->z_in, g_free);
    }
  pull (im, &at);
  return TRUE;
}

/* How much of the file is read when the parser is at @pos. */
static double
read_fraction (const Importer *im, gsize pos)
{
  if (im->z_live)
    return (double) (im->file_got - im->z.avail_in) / (double) MAX (im->file_size, 1);
  return (double) (im->base + pos) / (double) MAX (im->file_size, 1);
}

/* ---- Allocation ------------------------------------------------------- */

/* jansson allocates every member, key and string of an event and frees
 * them all at json_decref(): through malloc that is a third of the time.
 * While a thread reads events it bumps a pointer in its arena instead,
 * reset after each event; any other jansson use (another thread, an
 * event larger than the arena, another part of the program) gets malloc.
 * json_set_alloc_funcs() is process-wide, so the functions are installed
 * once and behave as malloc/free outside an import. */
#define ARENA_BYTES ((gsize) 1 << 20)

typedef struct
{
  char *data;
  gsize used;
} Arena;

static _Thread_local Arena *arena;

static void *
arena_malloc (size_t n)
{
  Arena *a = arena;

  n = (n + 15) & ~(size_t) 15;
  if (a == NULL || n > ARENA_BYTES - a->used)
    return malloc (n);
  a->used += n;
  return a->data + a->used - n;
}

static void
arena_free (void *p)
{
  Arena *a = arena;

  if (a != NULL && (char *) p >= a->data && (char *) p < a->data + ARENA_BYTES)
    return;
  free (p);
}

static void
arena_install (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once))
    {
      json_set_alloc_funcs (arena_malloc, arena_free);
      g_once_init_leave (&once, 1);
    }
}

/* ---- Values ------------------------------------------------------------ */

/* Past the white space at @at, pulling more of a gzip file's text
 * while it lasts: the bytes before @at are let go. */
static gsize
skip_ws (Importer *im, gsize at)
{
  for (;;)
    {
      while (at < im->len
             && (im->buf[at] == ' ' || im->buf[at] == '\t' || im->buf[at] == '\n'
                 || im->buf[at] == '\r'))
        at++;
      if (at < im->len || !pull (im, &at))
        return at;
    }
}

static gsize container_end (const Importer *im, gsize at);

/* Whether the value at @at is whole in the window: a container to its
 * closing bracket, a string to its closing quote, anything else to the
 * byte after it. */
static gboolean
value_whole (const Importer *im, gsize at)
{
  const char *b = im->buf;

  if (at >= im->len)
    return FALSE;
  if (b[at] == '{' || b[at] == '[')
    return container_end (im, at) != 0;
  if (b[at] == '"')
    {
      for (gsize i = at + 1; i < im->len; i++)
        if (b[i] == '\\')
          i++;
        else if (b[i] == '"')
          return TRUE;
      return FALSE;
    }
  for (gsize i = at; i < im->len; i++)
    if (strchr (",]}: \t\r\n", b[i]) != NULL)
      return TRUE;
  return FALSE;
}

/* Pulls until the value at *@pos is whole in the window or the text
 * ends (the parser then says what is wrong). */
static gboolean
need_value (Importer *im, gsize *pos, GError **error)
{
  while (!im->eof && !value_whole (im, *pos))
    {
      if (im->len - *pos > MAX_VALUE_BYTES)
        return fail (im, error, PFPROF_TRACE_ERROR_CORRUPT,
                     "corrupt torch.profiler trace: byte %" G_GSIZE_FORMAT
                     ": a value of more than %" G_GSIZE_FORMAT " MiB",
                     im->base + *pos, MAX_VALUE_BYTES >> 20);
      if (!pull (im, pos))
        break;
    }
  return TRUE;
}

/* Moves *@pos past the object or array at it, pulling and letting go of
 * a gzip file's text as it goes: an ignored member is never held whole.
 * At the text's end *@pos is im->len. */
static void
skip_container (Importer *im, gsize *pos)
{
  gsize depth = 0, i = *pos;
  gboolean str = FALSE, esc = FALSE;

  for (;;)
    {
      for (; i < im->len; i++)
        {
          char c = im->buf[i];

          if (str)
            {
              if (esc)
                esc = FALSE;
              else if (c == '\\')
                esc = TRUE;
              else if (c == '"')
                str = FALSE;
            }
          else if (c == '"')
            str = TRUE;
          else if (c == '{' || c == '[')
            depth++;
          else if ((c == '}' || c == ']') && --depth == 0)
            {
              *pos = i + 1;
              return;
            }
        }
      if (!pull (im, &i))
        {
          *pos = i;
          return;
        }
    }
}

/* ---- Plain events, read fast --------------------------------------------
 *
 * jansson reads an event a character at a time, copying each into a
 * buffer: two thirds of an import's time. Most events are ASCII strings
 * without escapes, integers and decimals: those are built here as the
 * same jansson values, directly from the text. Anything else (an escape,
 * a byte beyond ASCII, an exponent, a long number, deep nesting, any
 * error) gives NULL, and the event goes to jansson, which decides and
 * words what is wrong. */

/* Deeper events go to jansson. */
#define FAST_MAX_DEPTH 16

/* Keys longer than this go to jansson. */
#define FAST_MAX_KEY 128

static json_t *fast_value (const char **p, const char *end, int depth);

static const char *
fast_ws (const char *q, const char *end)
{
  while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'))
    q++;
  return q;
}

/* The string at *@p (at its quote), printable ASCII without escapes:
 * its text at *@s, *@n bytes; *@p moves past it. */
static gboolean
fast_string (const char **p, const char *end, const char **s, gsize *n)
{
  const char *q = *p + 1;

  *s = q;
  for (; q < end; q++)
    {
      guint8 c = (guint8) *q;

      if (c == '"')
        {
          *n = (gsize) (q - *s);
          *p = q + 1;
          return TRUE;
        }
      if (c == '\\' || c < 0x20 || c >= 0x80)
        return FALSE;
    }
  return FALSE;
}

/* An integer of up to 18 digits or a decimal of up to 30 characters
 * without an exponent, written as JSON writes it. */
static json_t *
fast_number (const char **p, const char *end)
{
  const char *q = *p, *digits;
  gboolean real = FALSE, neg = *q == '-';

  if (neg)
    q++;
  digits = q;
  while (q < end && g_ascii_isdigit (*q))
    q++;
  if (q == digits || (*digits == '0' && q - digits > 1))
    return NULL;
  if (q < end && *q == '.')
    {
      const char *frac = ++q;

      while (q < end && g_ascii_isdigit (*q))
        q++;
      if (q == frac)
        return NULL;
      real = TRUE;
    }
  if (q < end && (g_ascii_isalnum (*q) || *q == '.' || *q == '+' || *q == '-'))
    return NULL;
  if (!real)
    {
      gint64 v = 0;

      if (q - digits > 18)
        return NULL;
      for (const char *d = digits; d < q; d++)
        v = v * 10 + (*d - '0');
      *p = q;
      return json_integer (neg ? -v : v);
    }
  {
    char text[32];
    char *stop;
    double v;

    if (q - *p >= (gssize) sizeof text)
      return NULL;
    memcpy (text, *p, (gsize) (q - *p));
    text[q - *p] = '\0';
    v = g_ascii_strtod (text, &stop);
    if (*stop != '\0' || !isfinite (v))
      return NULL;
    *p = q;
    return json_real (v);
  }
}

static json_t *
fast_object (const char **p, const char *end, int depth)
{
  json_t *o = json_object ();
  const char *q = fast_ws (*p + 1, end);

  if (o == NULL)
    return NULL;
  if (q < end && *q == '}')
    {
      *p = q + 1;
      return o;
    }
  for (;;)
    {
      char key[FAST_MAX_KEY + 1];
      const char *k;
      gsize kn;
      json_t *v;

      if (q >= end || *q != '"' || !fast_string (&q, end, &k, &kn) || kn > FAST_MAX_KEY)
        goto bail;
      memcpy (key, k, kn);
      key[kn] = '\0';
      q = fast_ws (q, end);
      if (q >= end || *q != ':')
        goto bail;
      q = fast_ws (q + 1, end);
      v = fast_value (&q, end, depth + 1);
      /* Of a key given twice the last is kept, as jansson keeps it. */
      if (v == NULL || json_object_set_new_nocheck (o, key, v) != 0)
        goto bail;
      q = fast_ws (q, end);
      if (q < end && *q == ',')
        {
          q = fast_ws (q + 1, end);
          continue;
        }
      if (q < end && *q == '}')
        break;
      goto bail;
    }
  *p = q + 1;
  return o;

bail:
  json_decref (o);
  return NULL;
}

static json_t *
fast_array (const char **p, const char *end, int depth)
{
  json_t *a = json_array ();
  const char *q = fast_ws (*p + 1, end);

  if (a == NULL)
    return NULL;
  if (q < end && *q == ']')
    {
      *p = q + 1;
      return a;
    }
  for (;;)
    {
      json_t *v = fast_value (&q, end, depth + 1);

      if (v == NULL || json_array_append_new (a, v) != 0)
        goto bail;
      q = fast_ws (q, end);
      if (q < end && *q == ',')
        {
          q = fast_ws (q + 1, end);
          continue;
        }
      if (q < end && *q == ']')
        break;
      goto bail;
    }
  *p = q + 1;
  return a;

bail:
  json_decref (a);
  return NULL;
}

static json_t *
fast_value (const char **p, const char *end, int depth)
{
  const char *q = *p;

  if (q >= end || depth > FAST_MAX_DEPTH)
    return NULL;
  switch (*q)
    {
    case '{':
      return fast_object (p, end, depth);
    case '[':
      return fast_array (p, end, depth);
    case '"':
      {
        const char *s;
        gsize n;

        if (!fast_string (p, end, &s, &n))
          return NULL;
        return json_stringn_nocheck (s, n);
      }
    case 't':
    case 'f':
    case 'n':
      {
        static const char *const words[] = { "true", "false", "null" };

        for (guint i = 0; i < G_N_ELEMENTS (words); i++)
          {
            gsize n = strlen (words[i]);

            if ((gsize) (end - q) >= n && memcmp (q, words[i], n) == 0
                && ((gsize) (end - q) == n || !g_ascii_isalnum (q[n])))
              {
                *p = q + n;
                return i == 0 ? json_true () : i == 1 ? json_false () : json_null ();
              }
          }
        return NULL;
      }
    default:
      return fast_number (p, end);
    }
}

/* Parses one JSON value at *@at, of which the window holds @whole bytes
 * when known (0: all it holds), and moves *@at past it. */
static json_t *
parse_value_in (Importer *im, gsize *at, gsize whole, GError **error)
{
  json_error_t err;
  json_t *v;
  gsize n;

  if (whole != 0 && !im->jansson_only)
    {
      const char *p = im->buf + *at;

      v = fast_value (&p, im->buf + *at + whole, 0);
      if (v != NULL && p == im->buf + *at + whole)
        {
          *at += whole;
          return v;
        }
      if (v != NULL)
        json_decref (v);
    }
  if (whole == 0 && !need_value (im, at, error))
    return NULL;
  n = whole != 0 ? whole : im->len - *at;
  v = json_loadb (im->buf + *at, n, JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY, &err);
  if (v == NULL && strstr (err.text, "too big") != NULL)
    /* An integer beyond 64 bits: read as a real, then judged by range. */
    v = json_loadb (im->buf + *at, n,
                    JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, &err);
  if (v == NULL)
    {
      fail (im, error, PFPROF_TRACE_ERROR_CORRUPT,
            "corrupt torch.profiler trace: byte %" G_GSIZE_FORMAT ": %s",
            im->base + *at + (gsize) MAX (err.position, 0), err.text);
      return NULL;
    }
  *at += (gsize) err.position;
  return v;
}

/* Parses one JSON value at *@at and moves *@at past it. */
static json_t *
parse_value (Importer *im, gsize *at, GError **error)
{
  return parse_value_in (im, at, 0, error);
}

/* A JSON number at the start of @s, to the nanosecond when read as µs:
 * the integer part and up to three fraction digits (the rest rounds). */
static gboolean
us_text_to_ns (const char *s, gsize len, gint64 *out)
{
  gsize i = 0;
  gboolean neg = FALSE;
  gint64 us = 0, frac = 0;
  int digits = 0;

  if (i < len && s[i] == '-')
    {
      neg = TRUE;
      i++;
    }
  if (i >= len || !g_ascii_isdigit (s[i]))
    return FALSE;
  for (; i < len && g_ascii_isdigit (s[i]); i++)
    {
      if (us > MAX_TIME_NS / 10000)
        return FALSE;
      us = us * 10 + (s[i] - '0');
    }
  if (i < len && s[i] == '.')
    for (i++; i < len && g_ascii_isdigit (s[i]); i++, digits++)
      {
        if (digits < 3)
          frac = frac * 10 + (s[i] - '0');
        else if (digits == 3 && s[i] >= '5')
          frac++;
      }
  if (i < len && (s[i] == 'e' || s[i] == 'E'))
    return FALSE;
  for (; digits < 3; digits++)
    frac *= 10;
  *out = us * 1000 + frac;
  if (neg)
    *out = -*out;
  return TRUE;
}

/* The text of member @key of the flat event object @obj (its JSON text,
 * @len bytes), or NULL: a scan that steps over strings and nested values.
 * Of a key given twice, the last, as the JSON parser keeps it: the
 * skipping decision and the event read must see one value. */
static const char *
member_text (const char *obj, gsize len, const char *key)
{
  gsize klen = strlen (key);
  const char *found = NULL;
  int depth = 0;

  for (gsize i = 0; i < len; i++)
    {
      char c = obj[i];

      if (c == '"')
        {
          gsize start = i + 1;

          for (i++; i < len && obj[i] != '"'; i++)
            if (obj[i] == '\\')
              i++;
          if (depth == 1 && i - start == klen && memcmp (obj + start, key, klen) == 0)
            {
              gsize j = i + 1;

              while (j < len && (obj[j] == ' ' || obj[j] == '\t' || obj[j] == '\n' || obj[j] == '\r'))
                j++;
              if (j < len && obj[j] == ':')
                {
                  for (j++; j < len && (obj[j] == ' ' || obj[j] == '\t' || obj[j] == '\n'
                                        || obj[j] == '\r');
                       j++)
                    ;
                  found = obj + j;
                }
            }
        }
      else if (c == '{' || c == '[')
        depth++;
      else if (c == '}' || c == ']')
        depth--;
    }
  return found;
}

typedef struct
{
  const char *text; /* the event's JSON text */
  gsize len;
  json_t *obj;
  json_t *args;     /* may be NULL */
} Event;

/* A time member in µs as ns; *@present tells whether it was there. */
static gboolean
get_time (Importer *im, const Event *ev, const char *key, gint64 *ns, gboolean *present,
          GError **error)
{
  json_t *v = json_object_get (ev->obj, key);
  double us;

  *present = v != NULL;
  *ns = 0;
  if (v == NULL || json_is_null (v))
    {
      *present = FALSE;
      return TRUE;
    }
  if (json_is_integer (v))
    {
      json_int_t i = json_integer_value (v);

      if (i > MAX_TIME_NS / 1000 || i < -MAX_TIME_NS / 1000)
        return bad_event (im, error, "%s %" JSON_INTEGER_FORMAT " µs is out of range", key, i);
      *ns = (gint64) i * 1000;
      return TRUE;
    }
  if (!json_is_real (v))
    return bad_event (im, error, "%s is not a number", key);
  us = json_real_value (v);
  if (!isfinite (us) || fabs (us) >= (double) (MAX_TIME_NS / 1000))
    return bad_event (im, error, "%s %g µs is out of range", key, us);
  if (fabs (us) < EXACT_DOUBLE_US)
    {
      *ns = (gint64) llround (us * 1000.0);
      return TRUE;
    }
  {
    /* A large time with a fraction (µs since the epoch): the digits. */
    const char *t = member_text (ev->text, ev->len, key);

    if (t == NULL || !us_text_to_ns (t, ev->len - (gsize) (t - ev->text), ns))
      *ns = (gint64) llround (us * 1000.0);
  }
  return TRUE;
}

/* An integer member of @o (the event or its args); a string of digits
 * ("stream 7" too: the digits after the last space) counts. FALSE when
 * absent or of another type. */
static gboolean
get_int (json_t *o, const char *key, gint64 *out)
{
  json_t *v = o ? json_object_get (o, key) : NULL;

  if (v == NULL)
    return FALSE;
  if (json_is_integer (v))
    {
      *out = json_integer_value (v);
      return TRUE;
    }
  if (json_is_real (v))
    {
      double d = json_real_value (v);

      if (!isfinite (d) || d != floor (d) || fabs (d) > 9.0e18)
        return FALSE;
      *out = (gint64) d;
      return TRUE;
    }
  if (json_is_string (v))
    {
      const char *s = json_string_value (v);
      const char *sp = strrchr (s, ' ');
      char *end = NULL;
      gint64 n;

      if (sp != NULL)
        s = sp + 1;
      errno = 0;
      n = g_ascii_strtoll (s, &end, 10);
      if (errno != 0 || end == s || *end != '\0')
        return FALSE;
      *out = n;
      return TRUE;
    }
  return FALSE;
}

/* An id that must fit 32 bits: -1 (CUPTI's "none") reads as PFPROF_NONE;
 * absent reads as @def; anything else out of range is an error. */
static gboolean
get_u32 (Importer *im, json_t *o, const char *key, guint32 def, guint32 *out, GError **error)
{
  gint64 v;

  *out = def;
  if (o == NULL || json_object_get (o, key) == NULL)
    return TRUE;
  if (!get_int (o, key, &v))
    return json_is_null (json_object_get (o, key))
           || bad_event (im, error, "%s is not an integer", key);
  if (v == -1)
    *out = PFPROF_NONE;
  else if (v < 0 || v > G_MAXUINT32)
    return bad_event (im, error, "%s %" G_GINT64_FORMAT " is out of range", key, v);
  else
    *out = (guint32) v;
  return TRUE;
}

static gint32
get_i32_or (json_t *o, const char *key, gint32 def)
{
  gint64 v;

  if (!get_int (o, key, &v) || v < G_MININT32 || v > G_MAXINT32)
    return def;
  return (gint32) v;
}

static const char *
get_str (json_t *o, const char *key)
{
  json_t *v = o ? json_object_get (o, key) : NULL;

  return json_is_string (v) ? json_string_value (v) : NULL;
}

/* ---- Events ------------------------------------------------------------ */

typedef enum
{
  CAT_OTHER,
  CAT_KERNEL,
  CAT_MEMCPY,
  CAT_MEMSET,
  CAT_RUNTIME,
  CAT_DRIVER,
  CAT_SYNC,
  CAT_CPU_OP,
  CAT_ANNOTATION,
  CAT_PYTHON,
} Category;

static Category
category (const char *cat)
{
  static const struct
  {
    const char *name;
    Category cat;
  } cats[] = {
    { "kernel", CAT_KERNEL },           { "gpu_memcpy", CAT_MEMCPY },
    { "memcpy", CAT_MEMCPY },           { "gpu_memset", CAT_MEMSET },
    { "memset", CAT_MEMSET },           { "cuda_runtime", CAT_RUNTIME },
    { "runtime", CAT_RUNTIME },         { "cuda_driver", CAT_DRIVER },
    { "cuda_sync", CAT_SYNC },          { "cpu_op", CAT_CPU_OP },
    { "operator", CAT_CPU_OP },         { "user_annotation", CAT_ANNOTATION },
    { "python_function", CAT_PYTHON },
  };

  if (cat == NULL)
    return CAT_OTHER;
  /* Schema 1 capitalises ("Kernel", "Memcpy", "Runtime", "Operator"). */
  for (guint i = 0; i < G_N_ELEMENTS (cats); i++)
    if (g_ascii_strcasecmp (cat, cats[i].name) == 0)
      return cats[i].cat;
  return CAT_OTHER;
}

/* Start and end of a complete event; FALSE with *@skip when it has no ts. */
static gboolean
get_interval (Importer *im, const Event *ev, gint64 *start, gint64 *end, gboolean *skip,
              GError **error)
{
  gint64 dur = 0;
  gboolean has_ts, has_dur;

  *skip = FALSE;
  if (!get_time (im, ev, "ts", start, &has_ts, error) || !get_time (im, ev, "dur", &dur, &has_dur, error))
    return FALSE;
  if (!has_ts)
    {
      im->n_no_time++;
      *skip = TRUE;
      return TRUE;
    }
  if (dur < 0)
    return bad_event (im, error, "negative dur");
  *end = *start + dur;
  if (*end > MAX_TIME_NS)
    return bad_event (im, error, "ts + dur is out of range");
  return TRUE;
}

static void
note_stream (Importer *im, guint32 device, guint32 stream, guint32 context)
{
  guint64 key = ((guint64) device << 32) | stream;

  g_hash_table_add (im->devices_seen, GUINT_TO_POINTER (device + 1));
  if (stream == PFPROF_NONE)
    return;
  if (!g_hash_table_contains (im->streams, &key))
    g_hash_table_insert (im->streams, g_memdup2 (&key, sizeof key),
                         GUINT_TO_POINTER (context == PFPROF_NONE ? 0 : context + 1));
}

/* Device, context, stream and correlation of GPU work: from args, else
 * from the event's pid (device) and tid (stream). */
static gboolean
gpu_ids (Importer *im, const Event *ev, guint32 *device, guint32 *context, guint32 *stream,
         guint32 *correlation, GError **error)
{
  gint64 v;
  guint32 dev_def = 0, stream_def = 0;

  if (get_int (ev->obj, "pid", &v) && v >= 0 && v <= G_MAXUINT32)
    dev_def = (guint32) v;
  if (get_int (ev->obj, "tid", &v) && v >= 0 && v <= G_MAXUINT32)
    stream_def = (guint32) v;
  if (!get_u32 (im, ev->args, "device", dev_def, device, error)
      || !get_u32 (im, ev->args, "context", 0, context, error)
      || !get_u32 (im, ev->args, "stream", stream_def, stream, error)
      || !get_u32 (im, ev->args, "correlation", 0, correlation, error))
    return FALSE;
  if (*device == PFPROF_NONE)
    *device = 0;
  return TRUE;
}

/* What every piece of GPU work has. */
typedef struct
{
  gint64 start_ns, end_ns;
  guint32 device_id, context_id, stream_id, correlation_id;
} GpuWork;

/* Kernel, copy and memset records name these fields alike. */
#define SET_GPU_WORK(r, w)                                                                         \
  ((r).start_ns = (w).start_ns, (r).end_ns = (w).end_ns, (r).device_id = (w).device_id,            \
   (r).context_id = (w).context_id, (r).stream_id = (w).stream_id,                                 \
   (r).correlation_id = (w).correlation_id)

/* Adds the record of one kind of GPU work from @ev and @w. */
typedef gboolean (*GpuWorkFunc) (Importer *im, const Event *ev, const GpuWork *w, GError **error);

/* GPU work @ev: its interval and ids, then the record @add makes of it;
 * an event without ts is left out. */
static gboolean
gpu_work (Importer *im, const Event *ev, GpuWorkFunc add, GError **error)
{
  GpuWork w;
  gboolean skip;

  if (!get_interval (im, ev, &w.start_ns, &w.end_ns, &skip, error))
    return FALSE;
  if (skip)
    return TRUE;
  if (!gpu_ids (im, ev, &w.device_id, &w.context_id, &w.stream_id, &w.correlation_id, error))
    return FALSE;
  note_stream (im, w.device_id, w.stream_id, w.context_id);
  return add (im, ev, &w, error);
}

static gboolean
kernel_event (Importer *im, const Event *ev, const GpuWork *w, GError **error)
{
  PfprofKernelRecord k = { 0 };
  json_t *grid, *block;

  SET_GPU_WORK (k, *w);
  k.name_id = intern (im, get_str (ev->obj, "name"));
  grid = json_object_get (ev->args, "grid");
  block = json_object_get (ev->args, "block");
  if (json_is_array (grid) && json_array_size (grid) == 3)
    {
      k.grid_x = (gint32) json_integer_value (json_array_get (grid, 0));
      k.grid_y = pfprof_trace_u16 (json_integer_value (json_array_get (grid, 1)));
      k.grid_z = pfprof_trace_u16 (json_integer_value (json_array_get (grid, 2)));
    }
  if (json_is_array (block) && json_array_size (block) == 3)
    {
      k.block_x = pfprof_trace_u16 (json_integer_value (json_array_get (block, 0)));
      k.block_y = pfprof_trace_u16 (json_integer_value (json_array_get (block, 1)));
      k.block_z = pfprof_trace_u16 (json_integer_value (json_array_get (block, 2)));
    }
  k.shared_mem_bytes = get_i32_or (ev->args, "shared memory", 0);
  k.registers = pfprof_trace_u16 (get_i32_or (ev->args, "registers per thread", 0));
  g_array_append_val (im->trace->tables[PFPROF_TABLE_KERNELS], k);
  return TRUE;
}

/* "Pageable", "Pinned", "Device", ... at @s (@n bytes). */
static guint8
memory_kind (const char *s, gsize n)
{
  static const struct
  {
    const char *name;
    guint8 kind;
  } kinds[] = {
    { "Pageable", PFPROF_MEMORY_KIND_PAGEABLE }, { "Pinned", PFPROF_MEMORY_KIND_PINNED },
    { "Device", PFPROF_MEMORY_KIND_DEVICE },     { "Array", PFPROF_MEMORY_KIND_ARRAY },
    { "Managed", PFPROF_MEMORY_KIND_MANAGED },
  };

  while (n > 0 && *s == ' ')
    s++, n--;
  while (n > 0 && s[n - 1] == ' ')
    n--;
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (n == strlen (kinds[i].name) && g_ascii_strncasecmp (s, kinds[i].name, n) == 0)
      return kinds[i].kind;
  return PFPROF_MEMORY_KIND_UNKNOWN;
}

/* "Memcpy HtoD (Pageable -> Device)": the copy kind and both memory kinds. */
static void
parse_memcpy_name (const char *name, guint8 *copy, guint8 *src, guint8 *dst)
{
  static const struct
  {
    const char *word;
    guint8 kind;
  } copies[] = {
    { "HtoD", PFPROF_COPY_KIND_HTOD }, { "DtoH", PFPROF_COPY_KIND_DTOH },
    { "DtoD", PFPROF_COPY_KIND_DTOD }, { "HtoH", PFPROF_COPY_KIND_HTOH },
    { "PtoP", PFPROF_COPY_KIND_PTOP }, { "HtoA", 3 }, { "AtoH", 4 }, { "AtoA", 5 },
    { "AtoD", 6 }, { "DtoA", 7 },
  };
  const char *open, *arrow, *close;

  *copy = PFPROF_COPY_KIND_UNKNOWN;
  *src = *dst = PFPROF_MEMORY_KIND_UNKNOWN;
  if (name == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (copies); i++)
    {
      const char *w = strstr (name, copies[i].word);

      if (w != NULL && (w == name || w[-1] == ' ') && !g_ascii_isalnum (w[4]))
        {
          *copy = copies[i].kind;
          break;
        }
    }
  open = strchr (name, '(');
  arrow = open ? strstr (open, "->") : NULL;
  close = arrow ? strchr (arrow, ')') : NULL;
  if (close == NULL)
    return;
  *src = memory_kind (open + 1, (gsize) (arrow - open - 1));
  *dst = memory_kind (arrow + 2, (gsize) (close - arrow - 2));
}

static gboolean
get_bytes (Importer *im, const Event *ev, guint64 *bytes, GError **error)
{
  gint64 v = 0;

  *bytes = 0;
  if (ev->args == NULL || json_object_get (ev->args, "bytes") == NULL)
    return TRUE;
  if (!get_int (ev->args, "bytes", &v))
    return bad_event (im, error, "bytes is not an integer");
  if (v < 0)
    return bad_event (im, error, "bytes %" G_GINT64_FORMAT " is negative", v);
  *bytes = (guint64) v;
  return TRUE;
}

static gboolean
memcpy_event (Importer *im, const Event *ev, const GpuWork *w, GError **error)
{
  PfprofMemcpyRecord m = { 0 };

  if (!get_bytes (im, ev, &m.bytes, error))
    return FALSE;
  SET_GPU_WORK (m, *w);
  m.runtime_correlation_id = m.correlation_id;
  parse_memcpy_name (get_str (ev->obj, "name"), &m.copy_kind, &m.src_kind, &m.dst_kind);
  if ((m.copy_kind == PFPROF_COPY_KIND_HTOD && m.src_kind == PFPROF_MEMORY_KIND_UNKNOWN)
      || (m.copy_kind == PFPROF_COPY_KIND_DTOH && m.dst_kind == PFPROF_MEMORY_KIND_UNKNOWN))
    im->n_unknown_kind++;
  g_array_append_val (im->trace->tables[PFPROF_TABLE_MEMCPYS], m);
  return TRUE;
}

static gboolean
memset_event (Importer *im, const Event *ev, const GpuWork *w, GError **error)
{
  PfprofMemsetRecord m = { 0 };
  const char *name = get_str (ev->obj, "name");
  const char *open = name ? strchr (name, '(') : NULL;
  const char *close = open ? strchr (open, ')') : NULL;

  if (!get_bytes (im, ev, &m.bytes, error))
    return FALSE;
  SET_GPU_WORK (m, *w);
  if (close != NULL)
    m.memory_kind = memory_kind (open + 1, (gsize) (close - open - 1));
  g_array_append_val (im->trace->tables[PFPROF_TABLE_MEMSETS], m);
  return TRUE;
}

static guint32
host_pid (const Event *ev)
{
  gint64 v;

  return get_int (ev->obj, "pid", &v) && v >= 0 && v <= G_MAXUINT32 ? (guint32) v : 0;
}

static guint32
host_tid (const Event *ev)
{
  gint64 v;

  return get_int (ev->obj, "tid", &v) && v >= 0 && v <= G_MAXUINT32 ? (guint32) v : 0;
}

static gboolean
api_event (Importer *im, const Event *ev, guint8 domain, GError **error)
{
  PfprofApiRecord c = { 0 };
  const char *name = get_str (ev->obj, "name");
  gboolean skip;
  gint64 pid;

  if (!get_interval (im, ev, &c.start_ns, &c.end_ns, &skip, error))
    return FALSE;
  if (skip)
    return TRUE;
  /* torch.profiler records every runtime call; pfprof's traces leave out
   * the queries between the calls that matter (a cudaStreamIsCapturing
   * before each copy), and the rules judge calls issued back to back by
   * what lies between them. */
  if (pfprof_trace_schema_api_is_noise (name))
    {
      im->n_noise_api++;
      return TRUE;
    }
  if (!get_u32 (im, ev->args, "correlation", 0, &c.correlation_id, error)
      || !get_u32 (im, ev->args, "cbid", 0, &c.cbid, error))
    return FALSE;
  c.tid = host_tid (ev);
  c.name_id = intern (im, name);
  c.domain = domain;
  if (c.correlation_id != 0 && c.correlation_id != PFPROF_NONE)
    g_hash_table_insert (im->api_names, GUINT_TO_POINTER (c.correlation_id),
                         (gpointer) pfprof_trace_string (im->trace, c.name_id));
  if (get_int (ev->obj, "pid", &pid) && pid >= 0)
    {
      gpointer key = GSIZE_TO_POINTER ((gsize) pid);

      g_hash_table_insert (im->pid_calls, key,
                           GSIZE_TO_POINTER (GPOINTER_TO_SIZE (g_hash_table_lookup (im->pid_calls, key)) + 1));
    }
  g_array_append_val (im->trace->tables[PFPROF_TABLE_API_CALLS], c);
  return TRUE;
}

static gboolean
sync_event (Importer *im, const Event *ev, GError **error)
{
  static const struct
  {
    const char *name;
    guint8 type;
  } types[] = {
    { "Event Sync", PFPROF_SYNC_EVENT_SYNCHRONIZE },
    { "Stream Wait Event", PFPROF_SYNC_STREAM_WAIT_EVENT },
    { "Stream Sync", PFPROF_SYNC_STREAM_SYNCHRONIZE },
    { "Context Sync", PFPROF_SYNC_CONTEXT_SYNCHRONIZE },
  };
  PfprofSyncRecord s = { 0 };
  const char *name = get_str (ev->obj, "name");
  guint32 device;
  gboolean skip;

  if (!get_interval (im, ev, &s.start_ns, &s.end_ns, &skip, error))
    return FALSE;
  if (skip)
    return TRUE;
  if (!gpu_ids (im, ev, &device, &s.context_id, &s.stream_id, &s.correlation_id, error)
      || !get_u32 (im, ev->args, "cuda_event_id", PFPROF_NONE, &s.event_id, error))
    return FALSE;
  for (guint i = 0; name != NULL && i < G_N_ELEMENTS (types); i++)
    if (g_ascii_strcasecmp (name, types[i].name) == 0)
      s.type = types[i].type;
  if (s.type == PFPROF_SYNC_CONTEXT_SYNCHRONIZE || s.type == PFPROF_SYNC_EVENT_SYNCHRONIZE)
    s.stream_id = PFPROF_NONE;
  g_array_append_val (im->trace->tables[PFPROF_TABLE_SYNCS], s);
  return TRUE;
}

/* The autograd engine's operators ("autograd::engine::evaluate_function:
 * ConvolutionBackward0"), each node of a backward pass: they tell
 * training batches from evaluation ones as the hook's "backward" marks do.
 * A backward pass runs hundreds of them back to back; one whose start
 * follows the previous one's by more than BACKWARD_GAP_US begins a pass
 * and becomes a "backward" mark, the others are left out. */
#define AUTOGRAD_OP "autograd::engine::evaluate_function: "
#define BACKWARD_GAP_US 200.0

/* Whether the autograd operator whose raw "ts" is at @ts begins a
 * backward pass (TRUE when its time cannot be read: the parser decides). */
static gboolean
autograd_starts_pass (Importer *im, const char *ts, const char *end)
{
  char buf[40], *e;
  gsize n = 0;
  double t;
  gboolean starts;

  if (ts == NULL)
    return TRUE;
  while (ts + n < end && n + 1 < sizeof buf && (g_ascii_isdigit (ts[n]) || strchr ("+-.eE", ts[n]) != NULL))
    {
      buf[n] = ts[n];
      n++;
    }
  buf[n] = '\0';
  t = g_ascii_strtod (buf, &e);
  if (n == 0 || *e != '\0' || !isfinite (t))
    return TRUE;
  starts = !im->seen_autograd || t < im->last_autograd_us || t - im->last_autograd_us > BACKWARD_GAP_US;
  im->seen_autograd = TRUE;
  im->last_autograd_us = t;
  return starts;
}

/* The DataLoader's wait for a batch:
 * "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__". */
static gboolean
is_dataloader_next (const char *name)
{
  return name != NULL && strstr (name, "DataLoader") != NULL && g_str_has_suffix (name, "__next__");
}

static gboolean
range_event (Importer *im, const Event *ev, Category cat, GError **error)
{
  PfprofNvtxRecord n = { 0 };
  const char *name = get_str (ev->obj, "name");
  gboolean skip;

  /* Of the operators, only the steps, the DataLoader waits and the
   * backward passes' starts matter to the rules; the others would only
   * fill memory. */
  if (cat == CAT_CPU_OP && !is_dataloader_next (name)
      && !(name != NULL && (g_str_has_prefix (name, "ProfilerStep#") || g_str_has_prefix (name, AUTOGRAD_OP))))
    return TRUE;
  if (!get_interval (im, ev, &n.start_ns, &n.end_ns, &skip, error))
    return FALSE;
  if (skip)
    return TRUE;
  n.kind = PFPROF_NVTX_RANGE;
  n.tid = host_tid (ev);
  if (cat == CAT_CPU_OP && g_str_has_prefix (name, AUTOGRAD_OP))
    {
      n.kind = PFPROF_NVTX_MARK;
      n.end_ns = n.start_ns;
      n.domain_id = im->dom_pfprof;
      n.name_id = im->name_backward;
    }
  else if (is_dataloader_next (name))
    {
      n.domain_id = im->dom_pfprof;
      n.name_id = im->name_wait;
    }
  else
    {
      n.domain_id = PFPROF_NONE;
      n.name_id = intern (im, name);
      if (name != NULL && g_str_has_prefix (name, "ProfilerStep#"))
        im->n_steps++;
    }
  g_array_append_val (im->trace->tables[PFPROF_TABLE_NVTX], n);
  return TRUE;
}

static gboolean
python_event (Importer *im, const Event *ev, GError **error)
{
  PfprofNvtxRecord n = { 0 };
  const char *name = get_str (ev->obj, "name");
  guint entry = pfprof_kineto_sites_entry (name);
  gboolean skip;

  im->n_python++;
  if (entry == 0 && !pfprof_kineto_sites_is_program_frame (name))
    return TRUE;
  if (!get_interval (im, ev, &n.start_ns, &n.end_ns, &skip, error))
    return FALSE;
  if (skip)
    return TRUE;
  if (entry > 0)
    {
      /* site_id holds the entry point until the sites are built. */
      PfprofPythonCallRecord c = { n.start_ns, n.end_ns, host_tid (ev), entry };

      g_array_append_val (im->trace->tables[PFPROF_TABLE_PYTHON_CALLS], c);
      return TRUE;
    }
  n.kind = PFPROF_NVTX_RANGE;
  n.tid = host_tid (ev);
  n.domain_id = im->dom_python;
  n.name_id = intern (im, name);
  g_array_append_val (im->trace->tables[PFPROF_TABLE_NVTX], n);
  return TRUE;
}

/* "[memory]" instants (profile_memory=True): CUDA allocations and frees
 * by the caching allocator. Host ones are left out. */
static gboolean
memory_event (Importer *im, const Event *ev, GError **error)
{
  PfprofMemoryRecord m = { 0 };
  gint64 type = -1, bytes = 0, addr = 0;
  guint32 device;
  gboolean present;

  if (!get_int (ev->args, "Device Type", &type) || type != 1)
    return TRUE;
  if (!get_time (im, ev, "ts", &m.ts_ns, &present, error))
    return FALSE;
  if (!present)
    {
      im->n_no_time++;
      return TRUE;
    }
  if (!get_u32 (im, ev->args, "Device Id", 0, &device, error))
    return FALSE;
  if (!get_int (ev->args, "Bytes", &bytes))
    return bad_event (im, error, "[memory] event without Bytes");
  get_int (ev->args, "Addr", &addr);
  m.device_id = device == PFPROF_NONE ? 0 : device;
  m.address = (guint64) addr;
  /* A release is written as a negative size: INT64_MIN has no positive
   * counterpart in an int64. */
  if (bytes == G_MININT64)
    return bad_event (im, error, "[memory] Bytes %" G_GINT64_FORMAT " is out of range", bytes);
  m.bytes = (guint64) (bytes < 0 ? -bytes : bytes);
  m.operation = bytes < 0 ? PFPROF_MEMORY_OP_RELEASE : PFPROF_MEMORY_OP_ALLOCATION;
  m.memory_kind = PFPROF_MEMORY_KIND_DEVICE;
  m.stream_id = PFPROF_NONE;
  g_array_append_val (im->trace->tables[PFPROF_TABLE_MEMORY], m);
  return TRUE;
}

static gboolean
metadata_event (Importer *im, const Event *ev)
{
  const char *name = get_str (ev->obj, "name");
  json_t *args = ev->args;
  const char *value = get_str (args, "name");

  if (name == NULL || value == NULL)
    return TRUE;
  /* Kept by pid: the GPU's rows (pid = device, tid = stream) have names
   * too, and only the host process's belong to the trace. */
  if (strcmp (name, "thread_name") == 0)
    {
      guint64 key = ((guint64) host_pid (ev) << 32) | host_tid (ev);

      g_hash_table_replace (im->thread_names, g_memdup2 (&key, sizeof key),
                            GUINT_TO_POINTER (intern (im, value) + 1));
    }
  else if (strcmp (name, "process_name") == 0)
    g_hash_table_replace (im->process_names, GUINT_TO_POINTER (host_pid (ev)),
                          GUINT_TO_POINTER (intern (im, value) + 1));
  return TRUE;
}

static gboolean
event (Importer *im, json_t *obj, gsize at, gsize len, GError **error)
{
  Event ev = { im->buf + at, len, obj, NULL };
  const char *ph;
  Category cat;

  if (!json_is_object (obj))
    return bad_event (im, error, "not an object");
  ph = get_str (obj, "ph");
  ev.args = json_object_get (obj, "args");
  if (ev.args != NULL && !json_is_object (ev.args))
    return bad_event (im, error, "args is not an object");
  if (json_object_get (obj, "ph") != NULL && ph == NULL)
    return bad_event (im, error, "ph is not a string");
  if (json_object_get (obj, "name") != NULL && !json_is_string (json_object_get (obj, "name")))
    return bad_event (im, error, "name is not a string");
  if (ph == NULL)
    return TRUE;
  if (strcmp (ph, "M") == 0)
    return metadata_event (im, &ev);
  if ((strcmp (ph, "i") == 0 || strcmp (ph, "I") == 0)
      && g_strcmp0 (get_str (obj, "name"), "[memory]") == 0)
    {
      im->n_known++;
      return memory_event (im, &ev, error);
    }
  if (strcmp (ph, "X") != 0)
    return TRUE; /* flows (ac2g, fwdbwd), counters, instants */
  cat = category (get_str (obj, "cat"));
  if (cat != CAT_OTHER)
    im->n_known++;
  switch (cat)
    {
    case CAT_KERNEL:
      return gpu_work (im, &ev, kernel_event, error);
    case CAT_MEMCPY:
      return gpu_work (im, &ev, memcpy_event, error);
    case CAT_MEMSET:
      return gpu_work (im, &ev, memset_event, error);
    case CAT_RUNTIME:
      return api_event (im, &ev, PFPROF_API_RUNTIME, error);
    case CAT_DRIVER:
      return api_event (im, &ev, PFPROF_API_DRIVER, error);
    case CAT_SYNC:
      return sync_event (im, &ev, error);
    case CAT_CPU_OP:
    case CAT_ANNOTATION:
      return range_event (im, &ev, cat, error);
    case CAT_PYTHON:
      return python_event (im, &ev, error);
    case CAT_OTHER:
    default:
      return TRUE;
    }
}

/* ---- Top-level keys ---------------------------------------------------- */

static gboolean
device_properties (Importer *im, json_t *v, GError **error)
{
  size_t i;
  json_t *d;

  if (!json_is_array (v))
    return fail (im, error, PFPROF_TRACE_ERROR_CORRUPT,
                 "corrupt torch.profiler trace: deviceProperties is not an array");
  json_array_foreach (v, i, d)
    {
      PfprofDeviceRecord r = { 0 };
      gint64 id = (gint64) i, mem = 0;

      if (!json_is_object (d))
        continue;
      get_int (d, "id", &id);
      if (id < 0 || id > G_MAXUINT32)
        continue;
      r.device_id = (guint32) id;
      r.name_id = intern (im, get_str (d, "name"));
      r.uuid_id = intern (im, get_str (d, "uuid"));
      r.cc_major = get_i32_or (d, "computeMajor", 0);
      r.cc_minor = get_i32_or (d, "computeMinor", 0);
      r.sm_count = get_i32_or (d, "numSms", 0);
      get_int (d, "totalGlobalMem", &mem);
      r.global_memory_bytes = (guint64) MAX (mem, 0);
      g_array_append_val (im->trace->tables[PFPROF_TABLE_DEVICES], r);
    }
  return TRUE;
}

static void
distributed_info (Importer *im, json_t *v)
{
  gint64 n;
  const char *backend = get_str (v, "backend");

  if (!json_is_object (v))
    return;
  if (get_int (v, "rank", &n) && n >= 0 && n <= G_MAXINT32)
    {
      im->trace->rank = n;
      set_meta_int (im, "rank", n);
    }
  if (get_int (v, "world_size", &n) && n > 0 && n <= G_MAXINT32)
    set_meta_int (im, "world_size", n);
  if (backend != NULL)
    set_meta (im, "distributed_backend", backend);
}

/* The top-level members top_level reads. */
static gboolean
is_top_level_key (const char *key)
{
  static const char *const keys[] = {
    "deviceProperties", "distributedInfo", "baseTimeNanoseconds", "baseTimeOffset",
    "schemaVersion", "displayTimeUnit", "traceName",
  };

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (strcmp (key, keys[i]) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
top_level (Importer *im, const char *key, json_t *v, GError **error)
{
  if (strcmp (key, "deviceProperties") == 0)
    return device_properties (im, v, error);
  if (strcmp (key, "distributedInfo") == 0)
    distributed_info (im, v);
  /* The ns the relative times count from: Kineto names it
   * baseTimeNanoseconds, some versions baseTimeOffset. */
  else if (strcmp (key, "baseTimeNanoseconds") == 0 || strcmp (key, "baseTimeOffset") == 0)
    {
      if (json_is_integer (v) && llabs (json_integer_value (v)) < MAX_TIME_NS)
        im->base_ns = json_integer_value (v);
      else if (!json_is_null (v))
        return fail (im, error, PFPROF_TRACE_ERROR_CORRUPT,
                     "corrupt torch.profiler trace: %s is not an integer in range", key);
    }
  else if (strcmp (key, "schemaVersion") == 0 && json_is_integer (v))
    {
      im->schema_version = json_integer_value (v);
      set_meta_int (im, "kineto_schema_version", im->schema_version);
    }
  else if (strcmp (key, "displayTimeUnit") == 0 && json_is_string (v))
    set_meta (im, "display_time_unit", json_string_value (v));
  else if (strcmp (key, "traceName") == 0 && json_is_string (v))
    set_meta (im, "trace_name", json_string_value (v));
  return TRUE;
}

/* One past the end of the JSON object or array at @at, found by its
 * brackets and strings alone; 0 when it is neither or the text ends first
 * (the parser then says what is wrong). */
static gsize
container_end (const Importer *im, gsize at)
{
  const char *b = im->buf;
  gsize depth = 0;

  if (at >= im->len || (b[at] != '{' && b[at] != '['))
    return 0;
  for (gsize i = at; i < im->len; i++)
    {
      char c = b[i];

      if (c == '"')
        {
          for (i++; i < im->len && b[i] != '"'; i++)
            if (b[i] == '\\')
              i++;
          if (i >= im->len)
            return 0;
        }
      else if (c == '{' || c == '[')
        depth++;
      else if ((c == '}' || c == ']') && --depth == 0)
        return i + 1;
    }
  return 0;
}

/* The text of an event's "ph", "cat" and "name" members (NULL when
 * absent): of a key given twice, the last, as the JSON parser keeps it. */
typedef struct
{
  const char *ph, *cat, *name, *ts;
} Heads;

/* As container_end, for an object only, noting its Heads on the way:
 * one pass over each event, not one per member looked at. */
static gsize
object_end (const Importer *im, gsize at, Heads *h)
{
  const char *b = im->buf;
  gsize depth = 0;

  *h = (Heads) { 0 };
  if (at >= im->len || b[at] != '{')
    return 0;
  for (gsize i = at; i < im->len; i++)
    {
      char c = b[i];

      if (c == '"')
        {
          gsize start = i + 1, klen;

          for (i++; i < im->len && b[i] != '"'; i++)
            if (b[i] == '\\')
              i++;
          if (i >= im->len)
            return 0;
          klen = i - start;
          if (depth == 1 && klen >= 2 && klen <= 4)
            {
              gsize j = i + 1;

              while (j < im->len && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r'))
                j++;
              if (j < im->len && b[j] == ':')
                {
                  const char **slot = klen == 2 && memcmp (b + start, "ph", 2) == 0     ? &h->ph
                                      : klen == 2 && memcmp (b + start, "ts", 2) == 0   ? &h->ts
                                      : klen == 3 && memcmp (b + start, "cat", 3) == 0  ? &h->cat
                                      : klen == 4 && memcmp (b + start, "name", 4) == 0 ? &h->name
                                                                                         : NULL;

                  if (slot != NULL)
                    {
                      for (j++; j < im->len && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n'
                                                || b[j] == '\r');
                           j++)
                        ;
                      *slot = b + j;
                    }
                }
            }
        }
      else if (c == '{' || c == '[')
        depth++;
      else if ((c == '}' || c == ']') && --depth == 0)
        return i + 1;
    }
  return 0;
}

/* Whether the text at @v is the JSON string @lit (with its quotes). */
static gboolean
raw_is (const char *v, const char *end, const char *lit)
{
  gsize n = strlen (lit);

  return v != NULL && (gsize) (end - v) >= n && memcmp (v, lit, n) == 0;
}

/* The event text @s (@n bytes) is one this importer does not read, told
 * from its raw "ph", "cat" and "name" before any parsing: most of a real
 * trace is operators and Python frames the rules have no use for, and
 * parsing them would take most of the time. When in doubt (an escape in
 * a name), FALSE: the parser decides. */
static gboolean
skippable (Importer *im, const Heads *h, const char *s, gsize n)
{
  static const char *const skipped_cats[] = {
    "\"gpu_user_annotation\"", "\"ac2g\"", "\"fwdbwd\"", "\"Trace\"", "\"overhead\"",
  };
  const char *end = s + n;
  const char *ph = h->ph;
  const char *cat, *name, *name_end;
  gboolean op, python;

  if (ph == NULL)
    return FALSE;
  if (!raw_is (ph, end, "\"X\""))
    return raw_is (ph, end, "\"s\"") || raw_is (ph, end, "\"f\"") || raw_is (ph, end, "\"t\"");
  cat = h->cat;
  if (cat == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (skipped_cats); i++)
    if (raw_is (cat, end, skipped_cats[i]))
      return TRUE;
  op = raw_is (cat, end, "\"cpu_op\"") || raw_is (cat, end, "\"Operator\"");
  python = raw_is (cat, end, "\"python_function\"");
  if (!op && !python)
    return FALSE;
  name = h->name;
  if (name == NULL || *name != '"')
    return FALSE;
  for (name_end = name + 1; name_end < end && *name_end != '"'; name_end++)
    if (*name_end == '\\')
      return FALSE;
  if (name_end >= end)
    return FALSE;
  {
    g_autofree char *text = g_strndup (name + 1, (gsize) (name_end - name - 1));

    if (python)
      {
        if (pfprof_kineto_sites_is_program_frame (text) || pfprof_kineto_sites_entry (text) > 0)
          return FALSE;
        im->n_python++;
        return TRUE;
      }
    if (op && g_str_has_prefix (text, AUTOGRAD_OP))
      return !autograd_starts_pass (im, h->ts, end);
    return !is_dataloader_next (text) && !g_str_has_prefix (text, "ProfilerStep#");
  }
}

static gboolean trace_events_in_arena (Importer *im, gsize *at, GError **error);

/* After an element of an array or a member of an object (@inside names
 * it): moves *@pos past the ',' before the next one (*@more set) or past
 * the closing @close (*@more unset); anything else is an error. */
static gboolean
after_item (Importer *im, gsize *pos, char close, const char *inside, gboolean *more,
            GError **error)
{
  gsize p = skip_ws (im, *pos);

  *more = p < im->len && im->buf[p] == ',';
  if (*more || (p < im->len && im->buf[p] == close))
    {
      *pos = *more ? skip_ws (im, p + 1) : p + 1;
      return TRUE;
    }
  if (p >= im->len)
    return fail (im, error, PFPROF_TRACE_ERROR_CORRUPT,
                 "corrupt torch.profiler trace: the file ends inside %s", inside);
  return fail (im, error, PFPROF_TRACE_ERROR_CORRUPT,
               "corrupt torch.profiler trace: byte %" G_GSIZE_FORMAT ": expected ',' or '%c' in %s",
               im->base + p, close, inside);
}

static gboolean
trace_events (Importer *im, gsize *at, GError **error)
{
  Arena a = { g_malloc (ARENA_BYTES), 0 };
  gboolean ok;

  arena_install ();
  arena = &a;
  ok = trace_events_in_arena (im, at, error);
  arena = NULL;
  g_free (a.data);
  return ok;
}

static gboolean
trace_events_in_arena (Importer *im, gsize *at, GError **error)
{
  gsize pos = skip_ws (im, *at);

  if (pos >= im->len || im->buf[pos] != '[')
    return fail (im, error, PFPROF_TRACE_ERROR_CORRUPT,
                 "corrupt torch.profiler trace: traceEvents is not an array");
  im->have_events = TRUE;
  pos = skip_ws (im, pos + 1);
  if (pos < im->len && im->buf[pos] == ']')
    {
      *at = pos + 1;
      return TRUE;
    }
  for (;;)
    {
      gsize start = pos, end;
      Heads heads;
      json_t *ev;
      gboolean ok, more;

      im->event_at = im->base + start;
      end = object_end (im, pos, &heads);
      if (end == 0 && !im->eof)
        {
          if (!need_value (im, &pos, error))
            return FALSE;
          start = pos;
          im->event_at = im->base + start;
          end = object_end (im, pos, &heads);
        }
      if (end != 0 && skippable (im, &heads, im->buf + pos, end - pos))
        pos = end;
      else
        {
          /* An object whose end was found is whole in the window. */
          ev = parse_value_in (im, &pos, end != 0 ? end - pos : 0, error);
          if (ev == NULL)
            return FALSE;
          ok = event (im, ev, start, pos - start, error);
          json_decref (ev);
          arena->used = 0;
          if (!ok)
            return FALSE;
        }
      if (++im->n_events % PROGRESS_EVERY == 0
          && !report_progress (im, im->progress_base + (1.0 - im->progress_base)
                                                          * read_fraction (im, pos),
                               error))
        return FALSE;
      if (!after_item (im, &pos, ']', "traceEvents", &more, error))
        return FALSE;
      if (!more)
        break;
    }
  *at = pos;
  return TRUE;
}

static gboolean
parse (Importer *im, GError **error)
{
  gsize pos = 0;

  if (im->len >= 3 && memcmp (im->buf, "\xEF\xBB\xBF", 3) == 0)
    pos = 3;
  pos = skip_ws (im, pos);
  if (pos >= im->len || im->buf[pos] != '{')
    return fail (im, error, PFPROF_TRACE_ERROR_NOT_A_TRACE,
                 "not a torch.profiler trace: %s",
                 pos < im->len && im->buf[pos] == '['
                   ? "a JSON array, not an object with traceEvents"
                   : "not a JSON object");
  pos = skip_ws (im, pos + 1);
  if (pos < im->len && im->buf[pos] == '}')
    pos++;
  else
    for (;;)
      {
        g_autoptr (GString) key = NULL;
        json_t *k;
        gboolean more;
        gsize end;

        if (pos >= im->len || im->buf[pos] != '"')
          return fail (im, error, PFPROF_TRACE_ERROR_CORRUPT,
                       "corrupt torch.profiler trace: byte %" G_GSIZE_FORMAT ": expected a key",
                       im->base + pos);
        k = parse_value (im, &pos, error);
        if (k == NULL)
          return FALSE;
        key = g_string_new (json_string_value (k));
        json_decref (k);
        pos = skip_ws (im, pos);
        if (pos >= im->len || im->buf[pos] != ':')
          return fail (im, error, PFPROF_TRACE_ERROR_CORRUPT,
                       "corrupt torch.profiler trace: byte %" G_GSIZE_FORMAT ": expected ':'", im->base + pos);
        pos = skip_ws (im, pos + 1);
        if (strcmp (key->str, "traceEvents") == 0)
          {
            /* Refused rather than merged or replaced: which of two event
             * lists a trace means cannot be told. */
            if (im->have_events)
              return fail (im, error, PFPROF_TRACE_ERROR_CORRUPT,
                           "corrupt torch.profiler trace: byte %" G_GSIZE_FORMAT
                           ": a second traceEvents array", im->base + pos);
            if (!trace_events (im, &pos, error))
              return FALSE;
          }
        else if (!is_top_level_key (key->str) && (end = container_end (im, pos)) != 0)
          /* A value top_level does not read is stepped over, not built:
           * a parsed document takes some 60 times its text. */
          pos = end;
        else if (!is_top_level_key (key->str) && !im->eof
                 && (im->buf[pos] == '{' || im->buf[pos] == '['))
          skip_container (im, &pos);
        else
          {
            json_t *v = parse_value (im, &pos, error);
            gboolean ok;

            if (v == NULL)
              return FALSE;
            ok = top_level (im, key->str, v, error);
            json_decref (v);
            if (!ok)
              return FALSE;
          }
        if (!after_item (im, &pos, '}', "the top-level object", &more, error))
          return FALSE;
        if (!more)
          break;
      }
  /* A JSON text is one value: anything after it is a damaged or
   * concatenated file, not more of this trace. */
  pos = skip_ws (im, pos);
  if (im->stream_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&im->stream_error));
      return FALSE;
    }
  if (pos < im->len)
    return fail (im, error, PFPROF_TRACE_ERROR_CORRUPT,
                 "corrupt torch.profiler trace: byte %" G_GSIZE_FORMAT
                 ": data after the top-level object", im->base + pos);
  if (!im->have_events)
    return fail (im, error, PFPROF_TRACE_ERROR_NOT_A_TRACE,
                 "not a torch.profiler trace: a JSON object without traceEvents");
  if (im->n_known == 0)
    return fail (im, error, PFPROF_TRACE_ERROR_NOT_A_TRACE,
                 "not a torch.profiler trace: none of its %" G_GUINT64_FORMAT
                 " events is a kernel, copy, CUDA call or operator",
                 im->n_events);
  return TRUE;
}

/* ---- After the events -------------------------------------------------- */

/* The base time may come after the events (older Kineto wrote it last):
 * applied at the end. */
static gboolean
apply_base (Importer *im, GError **error)
{
  PfprofTrace *t = im->trace;

  if (im->base_ns == 0)
    return TRUE;
  for (unsigned tab = 0; tab < PFPROF_TABLE_DEVICES; tab++)
    {
      GArray *a = t->tables[tab];
      gsize size = g_array_get_element_size (a);
      gboolean interval = tab != PFPROF_TABLE_MEMORY && tab != PFPROF_TABLE_CUDA_EVENTS;

      for (guint i = 0; i < a->len; i++)
        {
          gint64 *start = (gint64 *) (void *) (a->data + (gsize) i * size);

          if ((im->base_ns > 0 && start[interval ? 1 : 0] > MAX_TIME_NS - im->base_ns)
              || (im->base_ns < 0 && start[0] < -MAX_TIME_NS - im->base_ns))
            return fail (im, error, PFPROF_TRACE_ERROR_CORRUPT,
                         "corrupt torch.profiler trace: baseTimeOffset puts times out of range");
          start[0] += im->base_ns;
          if (interval)
            start[1] += im->base_ns;
        }
    }
  return TRUE;
}

/* The copy's async flag: the launching call's name says it. */
static void
copy_flags (Importer *im)
{
  PfprofMemcpyRecord *m = pfprof_trace_memcpys (im->trace);
  PfprofMemsetRecord *s = pfprof_trace_memsets (im->trace);

  for (guint i = 0; i < pfprof_trace_n (im->trace, PFPROF_TABLE_MEMCPYS); i++)
    {
      const char *api = g_hash_table_lookup (im->api_names, GUINT_TO_POINTER (m[i].correlation_id));

      if (api != NULL && strstr (api, "Async") != NULL)
        m[i].flags |= PFPROF_MEMCPY_FLAG_ASYNC;
    }
  for (guint i = 0; i < pfprof_trace_n (im->trace, PFPROF_TABLE_MEMSETS); i++)
    {
      const char *api = g_hash_table_lookup (im->api_names, GUINT_TO_POINTER (s[i].correlation_id));

      if (api != NULL && strstr (api, "Async") != NULL)
        s[i].flags |= PFPROF_MEMCPY_FLAG_ASYNC;
    }
}

static void
objects (Importer *im)
{
  PfprofTrace *t = im->trace;
  GHashTableIter it;
  gpointer k, v;
  gsize best_calls = 0;
  gint64 pid = -1;

  g_hash_table_iter_init (&it, im->streams);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      guint64 key = *(guint64 *) k;
      PfprofStreamRecord s = { 0 };

      s.device_id = (guint32) (key >> 32);
      s.stream_id = (guint32) key;
      s.context_id = GPOINTER_TO_UINT (v) ? GPOINTER_TO_UINT (v) - 1 : 0;
      g_array_append_val (t->tables[PFPROF_TABLE_STREAMS], s);
    }
  /* Devices without deviceProperties (schema 1) still get a row. */
  g_hash_table_iter_init (&it, im->devices_seen);
  while (g_hash_table_iter_next (&it, &k, NULL))
    {
      guint32 id = GPOINTER_TO_UINT (k) - 1;
      gboolean known = FALSE;

      for (guint i = 0; i < pfprof_trace_n (t, PFPROF_TABLE_DEVICES); i++)
        known = known || pfprof_trace_devices (t)[i].device_id == id;
      if (!known)
        {
          PfprofDeviceRecord d = { 0 };

          d.device_id = id;
          d.name_id = intern (im, "");
          d.uuid_id = d.name_id;
          g_array_append_val (t->tables[PFPROF_TABLE_DEVICES], d);
        }
    }
  /* The host process: the one that made the CUDA calls. */
  g_hash_table_iter_init (&it, im->pid_calls);
  while (g_hash_table_iter_next (&it, &k, &v))
    if (GPOINTER_TO_SIZE (v) > best_calls
        || (GPOINTER_TO_SIZE (v) == best_calls && (gint64) GPOINTER_TO_SIZE (k) < pid))
      {
        best_calls = GPOINTER_TO_SIZE (v);
        pid = (gint64) GPOINTER_TO_SIZE (k);
      }
  if (pid >= 0)
    {
      gpointer name = g_hash_table_lookup (im->process_names, GUINT_TO_POINTER ((guint) pid));

      t->pid = pid;
      set_meta_int (im, "pid", pid);
      if (name != NULL)
        set_meta (im, "process_name", pfprof_trace_string (t, GPOINTER_TO_UINT (name) - 1));
    }
  g_hash_table_iter_init (&it, im->thread_names);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      guint64 key = *(guint64 *) k;
      PfprofThreadRecord th = { (guint32) key, GPOINTER_TO_UINT (v) - 1 };

      if (pid < 0 || (key >> 32) == (guint64) pid)
        g_array_append_val (t->tables[PFPROF_TABLE_THREADS], th);
    }
}

/* What the trace cannot show, said once in the report. */
static void
notes (Importer *im)
{
  PfprofTrace *t = im->trace;

  if (pfprof_trace_n (t, PFPROF_TABLE_API_CALLS) == 0)
    pfprof_trace_add_note (t, "torch.profiler trace without CUDA runtime calls: sync-in-loop, "
                              "record-stream-stall and pinned-alloc-in-loop cannot judge it, and "
                              "copies are not known to be asynchronous.");
  else
    pfprof_trace_add_note (t, "torch.profiler records no CUDA call return values: "
                              "record-stream-stall judges its stalls only, not pool growth "
                              "(not-ready event polls).");
  if (pfprof_trace_n (t, PFPROF_TABLE_API_CALLS) > 0)
    pfprof_trace_add_note (t, "torch.profiler's own cost per recorded operator is host time "
                              "here: host-bound cannot tell it from the program's (a pfprof "
                              "record of the same program can).");
  if (pfprof_trace_n (t, PFPROF_TABLE_SYNCS) == 0 && pfprof_trace_n (t, PFPROF_TABLE_API_CALLS) > 0)
    pfprof_trace_add_note (t, "no synchronization records (cuda_sync events): "
                              "synchronizations are known from the runtime calls only.");
  if (im->n_noise_api > 0)
    set_meta_int (im, "api_calls_left_out", (gint64) MIN (im->n_noise_api, (guint64) G_MAXINT64));
  if (im->n_unknown_kind > 0)
    pfprof_trace_add_note (t, "%" G_GUINT64_FORMAT " host-device copies do not name their host "
                              "memory kind: pageable-transfer cannot judge them.",
                           im->n_unknown_kind);
  if (im->n_steps == 0)
    pfprof_trace_add_note (t, "no ProfilerStep#N ranges (call prof.step() every iteration): "
                              "steps come from the DataLoader waits or the GPU work.");
  else if (im->n_steps <= 2)
    pfprof_trace_add_note (t, "only %" G_GUINT64_FORMAT " profiled step%s: too few to tell "
                              "warm-up from the steady state, so the figures are %s, warm-up "
                              "included if %s had any (schedule more active steps).",
                           im->n_steps, im->n_steps == 1 ? "" : "s",
                           im->n_steps == 1 ? "that step's" : "those steps'",
                           im->n_steps == 1 ? "it" : "they");
  if (im->n_python == 0)
    pfprof_trace_add_note (t, "no Python stacks (profile with with_stack=True): findings cannot "
                              "name the source line.");
  else if (pfprof_trace_n (t, PFPROF_TABLE_PYTHON_SITES) > 0)
    pfprof_trace_add_note (t, "torch.profiler names a Python frame by its first line (or the "
                              "line it was on when profiling began), not by the line of a call "
                              "in it: a call site's line is its function's.");
  if (im->n_no_time > 0)
    pfprof_trace_add_note (t, "%" G_GUINT64_FORMAT " events without ts were left out.",
                           im->n_no_time);
}

/* torch.profiler's times are since the epoch (PyTorch converts its
 * clock to Unix time): the profiled window is when the trace was
 * recorded, which tells traces of different runs apart
 * (analyzer/model/pfprof-run-match.c) as a pfprof trace's clock triples do. A
 * trace whose times are not since the epoch (a converted or synthetic
 * one: before 2001) says nothing. */
#define EPOCH_2001_NS (G_GINT64_CONSTANT (978307200) * G_GINT64_CONSTANT (1000000000))

static void
recording_window (Importer *im)
{
  const PfprofTrace *t = im->trace;

  if (t->start_ns < EPOCH_2001_NS || t->end_ns < t->start_ns)
    return;
  set_meta_int (im, "clock_start_realtime_ns", t->start_ns);
  set_meta_int (im, "clock_end_realtime_ns", t->end_ns);
}

PfprofTrace *
pfprof_kineto_import_load (const char *path, PfprofTraceProgressFunc progress, gpointer user_data,
                           GError **error)
{
  Importer im = { 0 };
  gboolean ok;

  g_return_val_if_fail (path != NULL, NULL);

  im.path = path;
  im.progress = progress;
  im.user_data = user_data;
  im.schema_version = -1;
  im.trace = pfprof_trace_new ();
  im.trace->path = g_strdup (path);
  im.interned = g_hash_table_new (g_str_hash, g_str_equal);
  im.api_names = g_hash_table_new (NULL, NULL);
  im.pid_calls = g_hash_table_new (NULL, NULL);
  im.streams = g_hash_table_new_full (pfprof_hash_int64, g_int64_equal, g_free, NULL);
  im.devices_seen = g_hash_table_new (NULL, NULL);
  im.thread_names = g_hash_table_new_full (pfprof_hash_int64, g_int64_equal, g_free, NULL);
  im.process_names = g_hash_table_new (NULL, NULL);
  im.dom_pfprof = intern (&im, PFPROF_NVTX_DOMAIN_PFPROF);
  im.dom_python = intern (&im, PFPROF_NVTX_DOMAIN_PYTHON);
  im.name_wait = intern (&im, PFPROF_NVTX_DATALOADER_WAIT);
  im.name_backward = intern (&im, PFPROF_NVTX_BACKWARD);
  set_meta (&im, "source", "kineto-json");

  ok = open_input (&im, error) && report_progress (&im, im.progress_base, error)
       && parse (&im, error) && apply_base (&im, error);
  if (ok)
    {
      copy_flags (&im);
      pfprof_kineto_sites_build (im.trace, im.interned, im.dom_python);
      objects (&im);
      notes (&im);
      pfprof_trace_nest_nvtx (im.trace);
      pfprof_trace_sort (im.trace);
      recording_window (&im);
      ok = report_progress (&im, 1.0, error);
    }

  g_clear_pointer (&im.file, pfprof_file_read_close);
  g_free (im.window);
  g_free (im.z_in);
  if (im.z_live)
    inflateEnd (&im.z);
  g_clear_error (&im.stream_error);
  g_hash_table_unref (im.interned);
  g_hash_table_unref (im.api_names);
  g_hash_table_unref (im.pid_calls);
  g_hash_table_unref (im.streams);
  g_hash_table_unref (im.devices_seen);
  g_hash_table_unref (im.thread_names);
  g_hash_table_unref (im.process_names);
  if (!ok)
    {
      pfprof_trace_free (im.trace);
      return NULL;
    }
  return im.trace;
}
