/* pfprof-json.c: recursive descent over RFC 8259, depth-limited. */
#include "pfprof-json.h"

#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK (pfprof-json-error-quark, pfprof_json_error)

typedef struct
{
  const char *s;
  gsize len;
  gsize pos;
  GError **error;
  guint n_nodes;
} Parser;

/* A hostile file of "[0,0,0,..." would otherwise cost ~60 bytes of tree
 * per 2 bytes of input. */
#define MAX_NODES (1u << 20)

static gboolean
fail (Parser *p, const char *what)
{
  guint line = 1, col = 1;

  for (gsize i = 0; i < p->pos && i < p->len; i++)
    {
      if (p->s[i] == '\n')
        {
          line++;
          col = 1;
        }
      else
        col++;
    }
  g_set_error (p->error, PFPROF_JSON_ERROR, 0, "line %u, column %u: %s", line, col,
               what);
  return FALSE;
}

static void
skip_ws (Parser *p)
{
  while (p->pos < p->len
         && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n'
             || p->s[p->pos] == '\r'))
    p->pos++;
}

static PfprofJson *
node_new (PfprofJsonKind kind)
{
  PfprofJson *j = g_new0 (PfprofJson, 1);

  j->kind = kind;
  if (kind == PFPROF_JSON_ARRAY || kind == PFPROF_JSON_OBJECT)
    j->items = g_ptr_array_new_with_free_func ((GDestroyNotify) pfprof_json_free);
  if (kind == PFPROF_JSON_OBJECT)
    j->keys = g_ptr_array_new_with_free_func (g_free);
  return j;
}

void
pfprof_json_free (PfprofJson *j)
{
  if (j == NULL)
    return;
  g_free (j->string);
  if (j->items)
    g_ptr_array_unref (j->items);
  if (j->keys)
    g_ptr_array_unref (j->keys);
  g_free (j);
}

static int
hex4 (Parser *p)
{
  int v = 0;

  if (p->len - p->pos < 4)
    return -1;
  for (int i = 0; i < 4; i++)
    {
      int d = g_ascii_xdigit_value (p->s[p->pos + (gsize) i]);

      if (d < 0)
        return -1;
      v = v * 16 + d;
    }
  p->pos += 4;
  return v;
}

/* At the opening quote; returns the decoded string or NULL. */
static char *
parse_string (Parser *p)
{
  g_autoptr (GString) out = g_string_new (NULL);

  p->pos++; /* " */
  for (;;)
    {
      unsigned char c;

      if (p->pos >= p->len)
        {
          fail (p, "unterminated string");
          return NULL;
        }
      c = (unsigned char) p->s[p->pos];
      if (c == '"')
        {
          p->pos++;
          break;
        }
      if (c < 0x20)
        {
          fail (p, "control character in a string");
          return NULL;
        }
      if (c != '\\')
        {
          g_string_append_c (out, (char) c);
          p->pos++;
          continue;
        }
      p->pos++;
      if (p->pos >= p->len)
        {
          fail (p, "unterminated string");
          return NULL;
        }
      c = (unsigned char) p->s[p->pos++];
      switch (c)
        {
        case '"': g_string_append_c (out, '"'); break;
        case '\\': g_string_append_c (out, '\\'); break;
        case '/': g_string_append_c (out, '/'); break;
        case 'b': g_string_append_c (out, '\b'); break;
        case 'f': g_string_append_c (out, '\f'); break;
        case 'n': g_string_append_c (out, '\n'); break;
        case 'r': g_string_append_c (out, '\r'); break;
        case 't': g_string_append_c (out, '\t'); break;
        case 'u':
          {
            int u = hex4 (p);

            if (u < 0)
              {
                fail (p, "bad \\u escape");
                return NULL;
              }
            if (u >= 0xD800 && u <= 0xDBFF)
              {
                int lo;

                if (p->len - p->pos < 2 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u')
                  {
                    fail (p, "unpaired surrogate");
                    return NULL;
                  }
                p->pos += 2;
                lo = hex4 (p);
                if (lo < 0xDC00 || lo > 0xDFFF)
                  {
                    fail (p, "unpaired surrogate");
                    return NULL;
                  }
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
              }
            else if (u >= 0xDC00 && u <= 0xDFFF)
              {
                fail (p, "unpaired surrogate");
                return NULL;
              }
            else if (u == 0)
              {
                /* C strings end at NUL: keep the rest readable. */
                u = 0xFFFD;
              }
            g_string_append_unichar (out, (gunichar) u);
            break;
          }
        default:
          p->pos--;
          fail (p, "bad escape in a string");
          return NULL;
        }
    }
  if (!g_utf8_validate (out->str, (gssize) out->len, NULL))
    {
      fail (p, "string is not valid UTF-8");
      return NULL;
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static gboolean
digits (Parser *p)
{
  gsize start = p->pos;

  while (p->pos < p->len && g_ascii_isdigit (p->s[p->pos]))
    p->pos++;
  return p->pos > start;
}

static PfprofJson *
parse_number (Parser *p)
{
  gsize start = p->pos;
  gboolean integral = TRUE;
  g_autofree char *text = NULL;
  PfprofJson *j;

  if (p->s[p->pos] == '-')
    p->pos++;
  if (p->pos < p->len && p->s[p->pos] == '0')
    p->pos++;
  else if (!digits (p))
    {
      fail (p, "bad number");
      return NULL;
    }
  if (p->pos < p->len && p->s[p->pos] == '.')
    {
      p->pos++;
      integral = FALSE;
      if (!digits (p))
        {
          fail (p, "bad number");
          return NULL;
        }
    }
  if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E'))
    {
      p->pos++;
      integral = FALSE;
      if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
        p->pos++;
      if (!digits (p))
        {
          fail (p, "bad number");
          return NULL;
        }
    }
  text = g_strndup (p->s + start, p->pos - start);
  j = node_new (PFPROF_JSON_NUMBER);
  j->number = g_ascii_strtod (text, NULL);
  if (integral)
    j->is_int = g_ascii_string_to_signed (text, 10, G_MININT64, G_MAXINT64, &j->integer, NULL);
  return j;
}

static gboolean
literal (Parser *p, const char *word)
{
  gsize n = strlen (word);

  if (p->len - p->pos < n || memcmp (p->s + p->pos, word, n) != 0)
    return FALSE;
  p->pos += n;
  return TRUE;
}

static PfprofJson *parse_value (Parser *p, guint depth);

static PfprofJson *
parse_container (Parser *p, guint depth, gboolean object)
{
  g_autoptr (PfprofJson) j = node_new (object ? PFPROF_JSON_OBJECT : PFPROF_JSON_ARRAY);
  char close = object ? '}' : ']';

  if (depth >= PFPROF_JSON_MAX_DEPTH)
    {
      fail (p, "nested too deeply");
      return NULL;
    }
  p->pos++;
  skip_ws (p);
  if (p->pos < p->len && p->s[p->pos] == close)
    {
      p->pos++;
      return g_steal_pointer (&j);
    }
  for (;;)
    {
      PfprofJson *v;

      skip_ws (p);
      if (object)
        {
          char *k;

          if (p->pos >= p->len || p->s[p->pos] != '"')
            {
              fail (p, "expected a member name");
              return NULL;
            }
          if ((k = parse_string (p)) == NULL)
            return NULL;
          g_ptr_array_add (j->keys, k);
          skip_ws (p);
          if (p->pos >= p->len || p->s[p->pos] != ':')
            {
              fail (p, "expected ':'");
              return NULL;
            }
          p->pos++;
        }
      if ((v = parse_value (p, depth + 1)) == NULL)
        return NULL;
      g_ptr_array_add (j->items, v);
      skip_ws (p);
      if (p->pos < p->len && p->s[p->pos] == ',')
        {
          p->pos++;
          continue;
        }
      if (p->pos < p->len && p->s[p->pos] == close)
        {
          p->pos++;
          return g_steal_pointer (&j);
        }
      fail (p, object ? "expected ',' or '}'" : "expected ',' or ']'");
      return NULL;
    }
}

static PfprofJson *
parse_value (Parser *p, guint depth)
{
  PfprofJson *j;
  char c;

  skip_ws (p);
  if (p->pos >= p->len)
    {
      fail (p, "unexpected end of input");
      return NULL;
    }
  if (++p->n_nodes > MAX_NODES)
    {
      fail (p, "too many values");
      return NULL;
    }
  c = p->s[p->pos];
  switch (c)
    {
    case '{': return parse_container (p, depth, TRUE);
    case '[': return parse_container (p, depth, FALSE);
    case '"':
      {
        char *s = parse_string (p);

        if (s == NULL)
          return NULL;
        j = node_new (PFPROF_JSON_STRING);
        j->string = s;
        return j;
      }
    case 't':
    case 'f':
      if (literal (p, "true") || literal (p, "false"))
        {
          j = node_new (PFPROF_JSON_BOOL);
          j->boolean = c == 't';
          return j;
        }
      break;
    case 'n':
      if (literal (p, "null"))
        return node_new (PFPROF_JSON_NULL);
      break;
    default:
      if (c == '-' || g_ascii_isdigit (c))
        return parse_number (p);
      break;
    }
  fail (p, "expected a value");
  return NULL;
}

PfprofJson *
pfprof_json_parse (const char *text, gsize len, GError **error)
{
  Parser p = { text, len, 0, error, 0 };
  g_autoptr (PfprofJson) j = NULL;

  if (text == NULL)
    {
      p.len = 0;
      p.s = "";
    }
  j = parse_value (&p, 0);
  if (j == NULL)
    return NULL;
  skip_ws (&p);
  if (p.pos != p.len)
    {
      fail (&p, "unexpected data after the JSON value");
      return NULL;
    }
  return g_steal_pointer (&j);
}

const PfprofJson *
pfprof_json_get (const PfprofJson *obj, const char *key)
{
  if (obj == NULL || obj->kind != PFPROF_JSON_OBJECT)
    return NULL;
  for (guint i = obj->keys->len; i > 0; i--)
    if (strcmp (g_ptr_array_index (obj->keys, i - 1), key) == 0)
      return g_ptr_array_index (obj->items, i - 1);
  return NULL;
}

gboolean
pfprof_json_get_int (const PfprofJson *obj, const char *key, gint64 *out)
{
  const PfprofJson *v = pfprof_json_get (obj, key);

  if (v == NULL || v->kind != PFPROF_JSON_NUMBER || !v->is_int)
    return FALSE;
  *out = v->integer;
  return TRUE;
}

const char *
pfprof_json_get_string (const PfprofJson *obj, const char *key)
{
  const PfprofJson *v = pfprof_json_get (obj, key);

  return v != NULL && v->kind == PFPROF_JSON_STRING ? v->string : NULL;
}

const PfprofJson *
pfprof_json_get_array (const PfprofJson *obj, const char *key)
{
  const PfprofJson *v = pfprof_json_get (obj, key);

  return v != NULL && v->kind == PFPROF_JSON_ARRAY ? v : NULL;
}
