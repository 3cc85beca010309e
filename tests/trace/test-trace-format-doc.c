/* SPDX-License-Identifier: MIT */
/* test-trace-format-doc.c: docs/trace-format.md documents every table and
 * column of the schema description, the current format version, and
 * every meta key the collector and the generator write or that the
 * recorded sample traces carry. The source root
 * comes from the PFPROF_SOURCE_ROOT environment variable (set by meson). */
#include <string.h>

#include "pfprof-trace-generator.h"
#include "trace-test-util.h"

static char *
read_source (const char *relative)
{
  g_autofree char *path = g_build_filename (g_getenv ("PFPROF_SOURCE_ROOT"), relative, NULL);
  g_autoptr (GError) error = NULL;
  char *contents = NULL;

  g_assert_nonnull (g_getenv ("PFPROF_SOURCE_ROOT"));
  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  return contents;
}

/* The text of the section whose heading line is exactly @heading, up to
 * the next heading of the same or a higher level; NULL if none. */
static char *
section (const char *doc, const char *heading)
{
  g_autofree char *needle = g_strconcat ("\n", heading, "\n", NULL);
  const char *start = strstr (doc, needle);
  const char *end;
  guint level = 0;
  g_autofree char *stop = NULL;

  if (start == NULL)
    return NULL;
  start += strlen (needle);
  while (heading[level] == '#')
    level++;
  /* "\n## " also ends a "### " section; "\n#### " does not. */
  end = NULL;
  for (guint l = 1; l <= level; l++)
    {
      const char *e;

      g_free (stop);
      stop = g_strdup_printf ("\n%.*s ", (int) l, "######");
      e = strstr (start, stop);
      if (e != NULL && (end == NULL || e < end))
        end = e;
    }
  return end ? g_strndup (start, (gsize) (end - start)) : g_strdup (start);
}

/* Whether @text has a table row for @name: "| `name` |". */
static gboolean
has_row (const char *text, const char *name)
{
  g_autofree char *row = g_strdup_printf ("\n| `%s` |", name);

  return strstr (text, row) != NULL;
}

static void
test_tables_and_columns (void)
{
  g_autofree char *doc = read_source ("docs/trace-format.md");
  guint missing = 0;

  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    {
      const PfprofTraceTable *table = pfprof_trace_schema_table ((PfprofTableId) t);
      g_autofree char *heading = g_strdup_printf ("### `%s`", table->name);
      g_autofree char *text = section (doc, heading);

      if (text == NULL)
        {
          g_test_message ("table %s: no section '%s'", table->name, heading);
          missing++;
          continue;
        }
      for (unsigned c = 0; c < table->n_columns; c++)
        if (!has_row (text, table->columns[c].name))
          {
            g_test_message ("table %s: column %s is not documented", table->name,
                            table->columns[c].name);
            missing++;
          }
    }
  {
    g_autofree char *strings = section (doc, "## `strings`");
    g_autofree char *meta = section (doc, "## `meta`");

    g_assert_nonnull (strings);
    g_assert_true (has_row (strings, "id"));
    g_assert_true (has_row (strings, "value"));
    g_assert_nonnull (meta);
  }
  g_assert_cmpuint (missing, ==, 0);
}

static void
test_version (void)
{
  g_autofree char *doc = read_source ("docs/trace-format.md");
  g_autofree char *title = g_strdup_printf ("# pfprof trace format, version %d.%d\n",
                                            PFPROF_TRACE_FORMAT_MAJOR, PFPROF_TRACE_FORMAT_MINOR);
  g_autofree char *app_id = g_strdup_printf ("0x%08X", PFPROF_TRACE_APPLICATION_ID);

  g_assert_true (g_str_has_prefix (doc, title));
  g_assert_nonnull (strstr (doc, app_id));
}

/* The enum values the analyzer relies on are stated with their numbers. */
static void
test_enums (void)
{
  g_autofree char *doc = read_source ("docs/trace-format.md");
  struct
  {
    const char *heading;
    const char *text;
    int value;
  } expect[] = {
    { "### Copy kinds", "HtoD", PFPROF_COPY_KIND_HTOD },
    { "### Copy kinds", "DtoH", PFPROF_COPY_KIND_DTOH },
    { "### Copy kinds", "DtoD", PFPROF_COPY_KIND_DTOD },
    { "### Memory kinds", "pageable", PFPROF_MEMORY_KIND_PAGEABLE },
    { "### Memory kinds", "pinned", PFPROF_MEMORY_KIND_PINNED },
    { "### Memory kinds", "device", PFPROF_MEMORY_KIND_DEVICE },
    { "### Synchronization types", "event synchronize", PFPROF_SYNC_EVENT_SYNCHRONIZE },
    { "### Synchronization types", "stream wait event", PFPROF_SYNC_STREAM_WAIT_EVENT },
    { "### Synchronization types", "stream synchronize", PFPROF_SYNC_STREAM_SYNCHRONIZE },
    { "### Synchronization types", "context synchronize", PFPROF_SYNC_CONTEXT_SYNCHRONIZE },
    { "### API domains", "driver", PFPROF_API_DRIVER },
    { "### API domains", "runtime", PFPROF_API_RUNTIME },
    { "### Memory operations", "allocation", PFPROF_MEMORY_OP_ALLOCATION },
    { "### Memory operations", "release", PFPROF_MEMORY_OP_RELEASE },
    { "### NVTX kinds", "range", PFPROF_NVTX_RANGE },
    { "### NVTX kinds", "mark", PFPROF_NVTX_MARK },
  };

  g_autoptr (GRegex) space = g_regex_new ("\\s+", 0, 0, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
    {
      g_autofree char *raw = section (doc, expect[i].heading);
      g_autofree char *text = NULL;
      g_autofree char *needle = g_strdup_printf ("%d %s", expect[i].value, expect[i].text);

      g_assert_nonnull (raw);
      /* Line breaks in the prose are spaces. */
      text = g_regex_replace_literal (space, raw, -1, 0, " ", 0, NULL);
      if (strstr (text, needle) == NULL)
        g_error ("%s: '%s' not found", expect[i].heading, needle);
    }
}

/* Adds the meta keys written as string literals by the C files of @dir
 * (set_meta (w, "key", ...) and set_meta_int), and the clock triple. */
static void
collect_source_keys (const char *dir, GHashTable *keys)
{
  g_autofree char *path = g_build_filename (g_getenv ("PFPROF_SOURCE_ROOT"), dir, NULL);
  g_autoptr (GRegex) regex = g_regex_new ("set_meta(?:_int)?\\s*\\(\\s*\\w+\\s*,\\s*\"([a-z0-9_]+)\"",
                                          0, 0, NULL);
  g_autoptr (GRegex) clock = g_regex_new ("\"clock_%s_([a-z]+)_ns\"", 0, 0, NULL);
  GDir *d = g_dir_open (path, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *file = NULL;
      g_autofree char *contents = NULL;
      GMatchInfo *match = NULL;

      if (!g_str_has_suffix (name, ".c"))
        continue;
      file = g_build_filename (path, name, NULL);
      g_assert_true (g_file_get_contents (file, &contents, NULL, NULL));
      g_regex_match (regex, contents, 0, &match);
      while (g_match_info_matches (match))
        {
          g_hash_table_add (keys, g_match_info_fetch (match, 1));
          g_match_info_next (match, NULL);
        }
      g_match_info_free (match);
      g_regex_match (clock, contents, 0, &match);
      while (g_match_info_matches (match))
        {
          g_autofree char *clock_name = g_match_info_fetch (match, 1);

          g_hash_table_add (keys, g_strdup_printf ("clock_start_%s_ns", clock_name));
          g_hash_table_add (keys, g_strdup_printf ("clock_end_%s_ns", clock_name));
          g_match_info_next (match, NULL);
        }
      g_match_info_free (match);
    }
  g_dir_close (d);
}

static void
test_meta_keys (void)
{
  g_autofree char *doc = read_source ("docs/trace-format.md");
  g_autofree char *meta = section (doc, "## `meta`");
  g_autoptr (GHashTable) keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  char *dir = trace_test_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "m.pfprof", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (PfprofTrace) trace = NULL;
  PfprofTraceGenerator gen;
  GHashTableIter iter;
  gpointer key;
  guint missing = 0;
  guint n_collector;

  g_assert_nonnull (meta);
  /* What the generator writes. */
  pfprof_trace_generator_init (&gen);
  gen.steps = 2;
  gen.pfprof_version = "0";
  g_assert_cmpint (pfprof_trace_generator_write (&gen, path, 0, NULL, NULL, 0), ==, 0);
  trace = pfprof_trace_reader_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_hash_table_iter_init (&iter, trace->meta);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_hash_table_add (keys, g_strdup (key));
  /* What the collector writes, when its sources are there. */
  n_collector = g_hash_table_size (keys);
  collect_source_keys ("collector", keys);
  collect_source_keys ("trace", keys);
  g_test_message ("%u keys, %u from the generator", g_hash_table_size (keys), n_collector);

  g_hash_table_iter_init (&iter, keys);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!has_row (meta, key))
      {
        g_test_message ("meta key %s is not documented", (const char *) key);
        missing++;
      }
  g_assert_cmpuint (missing, ==, 0);
  trace_test_tmp_dir_free (dir);
}

/* The traces recorded on the GPU (samples/traces/) load with this reader
 * and carry only documented meta keys. */
static void
test_recorded_samples (void)
{
  g_autofree char *doc = read_source ("docs/trace-format.md");
  g_autofree char *meta = section (doc, "## `meta`");
  g_autofree char *dir
    = g_build_filename (g_getenv ("PFPROF_SOURCE_ROOT"), "samples", "traces", NULL);
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0, missing = 0;

  if (d == NULL)
    {
      g_test_skip ("no samples/traces");
      return;
    }
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autoptr (GError) error = NULL;
      g_autoptr (PfprofTrace) trace = NULL;
      GHashTableIter iter;
      gpointer key;

      if (!g_str_has_suffix (name, ".pfprof"))
        continue;
      path = g_build_filename (dir, name, NULL);
      trace = pfprof_trace_reader_load (path, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (pfprof_trace_n_events (trace), >, 0);
      g_hash_table_iter_init (&iter, trace->meta);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        if (!has_row (meta, key))
          {
            g_test_message ("%s: meta key %s is not documented", name, (const char *) key);
            missing++;
          }
      n++;
    }
  g_dir_close (d);
  g_test_message ("%u recorded traces", n);
  g_assert_cmpuint (missing, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/trace-format-doc/tables-and-columns", test_tables_and_columns);
  g_test_add_func ("/trace-format-doc/version", test_version);
  g_test_add_func ("/trace-format-doc/enums", test_enums);
  g_test_add_func ("/trace-format-doc/meta-keys", test_meta_keys);
  g_test_add_func ("/trace-format-doc/recorded-samples", test_recorded_samples);
  return g_test_run ();
}
