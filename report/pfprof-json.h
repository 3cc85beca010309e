/* pfprof-json.h: a small strict JSON reader.
 *
 * `pfprof report` reads back its own pfprof-report/1 results (per-rank
 * analyses made where each trace lives) to merge them; the CLI has no
 * JSON library (the writers print JSON by hand), so this parses RFC 8259
 * JSON into a tree. Input is untrusted: nesting is limited, strings must
 * be valid UTF-8 (\u escapes included, surrogates paired), numbers follow
 * the grammar, and anything after the value but whitespace is an error.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  PFPROF_JSON_NULL,
  PFPROF_JSON_BOOL,
  PFPROF_JSON_NUMBER,
  PFPROF_JSON_STRING,
  PFPROF_JSON_ARRAY,
  PFPROF_JSON_OBJECT,
} PfprofJsonKind;

typedef struct _PfprofJson PfprofJson;

struct _PfprofJson
{
  PfprofJsonKind kind;
  gboolean boolean;
  double number;
  gboolean is_int;   /* a number written without fraction or exponent that fits gint64 */
  gint64 integer;    /* its exact value */
  char *string;      /* STRING: valid UTF-8; an escaped U+0000 becomes U+FFFD */
  GPtrArray *items;  /* ARRAY elements, OBJECT values (PfprofJson*) */
  GPtrArray *keys;   /* OBJECT keys (char*), parallel to items */
};

#define PFPROF_JSON_ERROR (pfprof_json_error_quark ())
GQuark pfprof_json_error_quark (void);

/* Deepest nesting accepted. */
#define PFPROF_JSON_MAX_DEPTH 64

/* Parses @len bytes at @text (at most 1,048,576 values). NULL with
 * @error (PFPROF_JSON_ERROR, code 0)
 * saying where and what ("line 3, column 7: expected ':'") on bad
 * input. */
PfprofJson *pfprof_json_parse (const char *text, gsize len, GError **error);

void pfprof_json_free (PfprofJson *json);

/* Member @key of object @obj (the last one when repeated), or NULL when
 * @obj is NULL or no object or has no such member. */
const PfprofJson *pfprof_json_get (const PfprofJson *obj, const char *key);

/* Member @key as an integer / a string / an array: FALSE (or NULL) when
 * absent or of another kind. */
gboolean pfprof_json_get_int (const PfprofJson *obj, const char *key, gint64 *out);
const char *pfprof_json_get_string (const PfprofJson *obj, const char *key);
const PfprofJson *pfprof_json_get_array (const PfprofJson *obj, const char *key);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PfprofJson, pfprof_json_free)

G_END_DECLS
