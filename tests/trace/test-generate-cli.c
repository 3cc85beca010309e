/* SPDX-License-Identifier: MIT */
/* test-generate-cli.c: `pfprof generate` as a user runs it: exit codes,
 * one-line errors, never clobbering a file, and a loadable trace. The
 * binary is named by the PFPROF environment variable (set by meson). */
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace-test-util.h"

typedef struct
{
  int status;
  char *out;
  char *err;
} Run;

static void
run_clear (Run *r)
{
  g_free (r->out);
  g_free (r->err);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

/* Runs pfprof with the NULL-terminated arguments after "pfprof". */
static Run
run (const char *first, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  const char *pfprof = g_getenv ("PFPROF");
  Run r = { 0 };
  va_list ap;
  int wait_status = 0;

  g_assert_nonnull (pfprof);
  g_ptr_array_add (argv, (char *) pfprof);
  va_start (ap, first);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (char *) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDIN_FROM_DEV_NULL, NULL,
                               NULL, &r.out, &r.err, &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  r.status = WEXITSTATUS (wait_status);
  return r;
}

/* A refusal with exit @status and exactly one "pfprof: ..." line on stderr. */
static void
assert_refused (const Run *r, int status, const char *needle)
{
  g_assert_cmpint (r->status, ==, status);
  g_assert_true (g_str_has_prefix (r->err, "pfprof: "));
  g_assert_true (g_str_has_suffix (r->err, "\n"));
  g_assert_true (strchr (r->err, '\n') == r->err + strlen (r->err) - 1);
  g_assert_nonnull (strstr (r->err, needle));
  g_assert_cmpstr (r->out, ==, "");
}

/* A usage error: exit 2. */
static void
assert_usage_error (const Run *r, const char *needle)
{
  assert_refused (r, 2, needle);
}

static void
test_help (void)
{
  g_auto (Run) r = run ("generate", "--help", NULL);

  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "--plant"));
  g_assert_nonnull (strstr (r.out, "--events"));
  g_assert_nonnull (strstr (r.out, "record-stream"));
}

static void
test_usage_errors (void)
{
  char *dir = trace_test_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "t.pfprof", NULL);

  {
    g_auto (Run) r = run ("generate", "--bogus", "-o", path, NULL);
    assert_usage_error (&r, "--bogus");
  }
  {
    g_auto (Run) r = run ("generate", NULL);
    assert_usage_error (&r, "-o PATH is required");
  }
  {
    g_auto (Run) r = run ("generate", "-o", path, "--plant", "pageable,nonsense", NULL);
    assert_usage_error (&r, "nonsense");
  }
  {
    g_auto (Run) r = run ("generate", "-o", path, "--steps", "0", NULL);
    assert_usage_error (&r, "--steps");
  }
  {
    g_auto (Run) r = run ("generate", "-o", path, "--steps", "12abc", NULL);
    assert_usage_error (&r, "--steps");
  }
  {
    g_auto (Run) r = run ("generate", "-o", path, "--events", "-5", NULL);
    assert_usage_error (&r, "--events");
  }
  {
    g_auto (Run) r = run ("generate", "-o", path, "--events", "100", "--steps", "3", NULL);
    assert_usage_error (&r, "not both");
  }
  {
    g_auto (Run) r = run ("generate", "-o", path, "--streams", "1", NULL);
    assert_usage_error (&r, "--streams");
  }
  {
    g_auto (Run) r = run ("generate", "-o", path, "extra", NULL);
    assert_usage_error (&r, "extra");
  }
  /* None of them wrote anything. */
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  {
    g_autofree char *deep = g_build_filename (dir, "missing", "t.pfprof", NULL);
    g_auto (Run) r = run ("generate", "-o", deep, "--steps", "2", NULL);

    assert_usage_error (&r, "cannot create a file in");
  }
  {
    g_autofree char *listing = trace_test_list_dir (dir);

    g_assert_cmpstr (listing, ==, "");
  }
  trace_test_tmp_dir_free (dir);
}

static void
test_no_clobber (void)
{
  char *dir = trace_test_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "t.pfprof", NULL);
  g_autofree char *target = g_build_filename (dir, "precious.txt", NULL);
  g_autofree char *link = g_build_filename (dir, "link.pfprof", NULL);
  g_autofree char *contents = NULL;

  g_assert_true (g_file_set_contents (path, "my notes", -1, NULL));
  {
    g_auto (Run) r = run ("generate", "-o", path, "--steps", "3", NULL);

    assert_refused (&r, 3, "--force"); /* an existing output has its own code */
  }
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "my notes");

  /* --force replaces a regular file, never a symlink's target. */
  g_assert_true (g_file_set_contents (target, "precious", -1, NULL));
  g_assert_cmpint (symlink (target, link), ==, 0);
  {
    g_auto (Run) r = run ("generate", "-o", link, "--steps", "3", "--force", NULL);

    assert_usage_error (&r, "symbolic link");
  }
  g_free (contents);
  g_assert_true (g_file_get_contents (target, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "precious");
  {
    g_auto (Run) r = run ("generate", "-o", path, "--steps", "3", "--force", NULL);

    g_assert_cmpint (r.status, ==, 0);
    g_assert_cmpstr (r.err, ==, "");
  }
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (PfprofTrace) trace = pfprof_trace_reader_load (path, NULL, NULL, &error);

    g_assert_no_error (error);
    g_assert_cmpstr (pfprof_trace_meta (trace, "generator_steps"), ==, "3");
  }
  trace_test_tmp_dir_free (dir);
}

static void
test_generate (void)
{
  char *dir = trace_test_tmp_dir ();
  g_autofree char *a = g_build_filename (dir, "a.pfprof", NULL);
  g_autofree char *b = g_build_filename (dir, "b.pfprof", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (PfprofTrace) trace = NULL;
  g_autofree char *da = NULL, *db = NULL;
  gsize la, lb;
  const PfprofMemcpyRecord *m;
  guint pageable = 0;
  gint64 first_step;

  {
    g_auto (Run) r = run ("generate", "-o", a, "--events", "20000", "--seed", "5", "--plant",
                          "pageable,sync-in-loop", "--rank", "3", NULL);

    g_assert_cmpint (r.status, ==, 0);
    g_assert_cmpstr (r.err, ==, "");
    /* One summary line with the numbers. */
    g_assert_true (g_str_has_prefix (r.out, a));
    g_assert_nonnull (strstr (r.out, "plants pageable,sync-in-loop"));
    g_assert_nonnull (strstr (r.out, "bytes/event"));
  }
  {
    g_auto (Run) r = run ("generate", "-o", b, "--events", "20000", "--seed", "5", "--plant",
                          "sync-in-loop,pageable", "--rank", "3", NULL);

    g_assert_cmpint (r.status, ==, 0);
  }
  /* Same options (in another order): the same file. */
  g_assert_true (g_file_get_contents (a, &da, &la, NULL));
  g_assert_true (g_file_get_contents (b, &db, &lb, NULL));
  g_assert_cmpmem (da, la, db, lb);

  trace = pfprof_trace_reader_load (a, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pfprof_trace_n_events (trace), >=, 20000);
  g_assert_cmpint (trace->rank, ==, 3);
  g_assert_cmpstr (pfprof_trace_meta (trace, "generator_plants"), ==, "pageable,sync-in-loop");
  first_step = g_ascii_strtoll (pfprof_trace_meta (trace, "generator_first_step_ns"), NULL, 10);
  m = pfprof_trace_memcpys (trace);
  for (guint i = 0; i < pfprof_trace_n (trace, PFPROF_TABLE_MEMCPYS); i++)
    if (m[i].start_ns >= first_step && m[i].src_kind == PFPROF_MEMORY_KIND_PAGEABLE)
      pageable++;
  g_assert_cmpuint (pageable, ==, 2 * (guint) g_ascii_strtoull (pfprof_trace_meta (trace, "generator_steps"), NULL, 10));
  trace_test_tmp_dir_free (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/generate-cli/help", test_help);
  g_test_add_func ("/generate-cli/usage-errors", test_usage_errors);
  g_test_add_func ("/generate-cli/no-clobber", test_no_clobber);
  g_test_add_func ("/generate-cli/generate", test_generate);
  return g_test_run ();
}
