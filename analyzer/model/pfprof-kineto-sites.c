/* SPDX-License-Identifier: MIT */
/* pfprof-kineto-sites.c: call sites from torch.profiler's Python frames
 * (see the private header). */
#include "pfprof-kineto-sites-private.h"

#include <stdlib.h>
#include <string.h>

/* The entry points of pfprof's launcher hook (cli/pfprof_sitecustomize.py),
 * as torch.profiler names their calls, and the hook's name for each. */
static const struct
{
  const char *prefix;
  const char *api;
  guint8 kind;
} entries[] = {
  { "<built-in method to of Tensor object", "Tensor.to", PFPROF_SITE_COPY },
  { "<built-in method cuda of Tensor object", "Tensor.cuda", PFPROF_SITE_COPY },
  { "<built-in method cpu of Tensor object", "Tensor.cpu", PFPROF_SITE_COPY },
  { "<built-in method item of Tensor object", "Tensor.item", PFPROF_SITE_SYNC },
  { "<built-in method pin_memory of Tensor object", "Tensor.pin_memory", PFPROF_SITE_PIN },
  { "<built-in method record_stream of Tensor object", "Tensor.record_stream", PFPROF_SITE_RECORD_STREAM },
  { "<built-in function _cuda_synchronize>", "torch.cuda.synchronize", PFPROF_SITE_SYNC },
};

/* Python 3.11's sys.stdlib_module_names, sorted as strcmp() sorts. */
static const char *const stdlib_modules[] = {
  "__future__", "_abc", "_aix_support", "_ast", "_asyncio", "_bisect", "_blake2",
  "_bootsubprocess", "_bz2", "_codecs", "_codecs_cn", "_codecs_hk", "_codecs_iso2022",
  "_codecs_jp", "_codecs_kr", "_codecs_tw", "_collections", "_collections_abc", "_compat_pickle",
  "_compression", "_contextvars", "_crypt", "_csv", "_ctypes", "_curses", "_curses_panel",
  "_datetime", "_dbm", "_decimal", "_elementtree", "_frozen_importlib",
  "_frozen_importlib_external", "_functools", "_gdbm", "_hashlib", "_heapq", "_imp", "_io",
  "_json", "_locale", "_lsprof", "_lzma", "_markupbase", "_md5", "_msi", "_multibytecodec",
  "_multiprocessing", "_opcode", "_operator", "_osx_support", "_overlapped", "_pickle",
  "_posixshmem", "_posixsubprocess", "_py_abc", "_pydecimal", "_pyio", "_queue", "_random",
  "_scproxy", "_sha1", "_sha256", "_sha3", "_sha512", "_signal", "_sitebuiltins", "_socket",
  "_sqlite3", "_sre", "_ssl", "_stat", "_statistics", "_string", "_strptime", "_struct",
  "_symtable", "_thread", "_threading_local", "_tkinter", "_tokenize", "_tracemalloc", "_typing",
  "_uuid", "_warnings", "_weakref", "_weakrefset", "_winapi", "_zoneinfo", "abc", "aifc",
  "antigravity", "argparse", "array", "ast", "asynchat", "asyncio", "asyncore", "atexit",
  "audioop", "base64", "bdb", "binascii", "bisect", "builtins", "bz2", "cProfile", "calendar",
  "cgi", "cgitb", "chunk", "cmath", "cmd", "code", "codecs", "codeop", "collections", "colorsys",
  "compileall", "concurrent", "configparser", "contextlib", "contextvars", "copy", "copyreg",
  "crypt", "csv", "ctypes", "curses", "dataclasses", "datetime", "dbm", "decimal", "difflib",
  "dis", "distutils", "doctest", "email", "encodings", "ensurepip", "enum", "errno",
  "faulthandler", "fcntl", "filecmp", "fileinput", "fnmatch", "fractions", "ftplib", "functools",
  "gc", "genericpath", "getopt", "getpass", "gettext", "glob", "graphlib", "grp", "gzip",
  "hashlib", "heapq", "hmac", "html", "http", "idlelib", "imaplib", "imghdr", "imp", "importlib",
  "inspect", "io", "ipaddress", "itertools", "json", "keyword", "lib2to3", "linecache", "locale",
  "logging", "lzma", "mailbox", "mailcap", "marshal", "math", "mimetypes", "mmap",
  "modulefinder", "msilib", "msvcrt", "multiprocessing", "netrc", "nis", "nntplib", "nt",
  "ntpath", "nturl2path", "numbers", "opcode", "operator", "optparse", "os", "ossaudiodev",
  "pathlib", "pdb", "pickle", "pickletools", "pipes", "pkgutil", "platform", "plistlib",
  "poplib", "posix", "posixpath", "pprint", "profile", "pstats", "pty", "pwd", "py_compile",
  "pyclbr", "pydoc", "pydoc_data", "pyexpat", "queue", "quopri", "random", "re", "readline",
  "reprlib", "resource", "rlcompleter", "runpy", "sched", "secrets", "select", "selectors",
  "shelve", "shlex", "shutil", "signal", "site", "smtpd", "smtplib", "sndhdr", "socket",
  "socketserver", "spwd", "sqlite3", "sre_compile", "sre_constants", "sre_parse", "ssl", "stat",
  "statistics", "string", "stringprep", "struct", "subprocess", "sunau", "symtable", "sys",
  "sysconfig", "syslog", "tabnanny", "tarfile", "telnetlib", "tempfile", "termios", "textwrap",
  "this", "threading", "time", "timeit", "tkinter", "token", "tokenize", "tomllib", "trace",
  "traceback", "tracemalloc", "tty", "turtle", "turtledemo", "types", "typing", "unicodedata",
  "unittest", "urllib", "uu", "uuid", "venv", "warnings", "wave", "weakref", "webbrowser",
  "winreg", "winsound", "wsgiref", "xdrlib", "xml", "xmlrpc", "zipapp", "zipfile", "zipimport",
  "zlib", "zoneinfo",

};

static int
compare_name (const void *key, const void *member)
{
  return strcmp (key, *(const char *const *) member);
}

/* The module a shortened path begins with: "multiprocessing/connection.py"
 * -> "multiprocessing", "threading.py" -> "threading". */
static gboolean
is_stdlib_path (const char *path, gsize len)
{
  char first[64];
  gsize n = 0;

  while (n < len && path[n] != '/' && path[n] != '.' && n < sizeof first - 1)
    {
      first[n] = path[n];
      n++;
    }
  if (n == 0 || n >= sizeof first - 1)
    return FALSE;
  first[n] = '\0';
  return bsearch (first, stdlib_modules, G_N_ELEMENTS (stdlib_modules), sizeof stdlib_modules[0],
                  compare_name)
         != NULL;
}

gboolean
pfprof_kineto_sites_is_program_frame (const char *name)
{
  static const char *const library[] = { "/torch/", "/lib/python", "<frozen", "<string>" };
  const char *paren;

  if (name == NULL || name[0] == '<' || (paren = strstr (name, ".py(")) == NULL)
    return FALSE;
  if (g_str_has_prefix (name, "torch/"))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (library); i++)
    {
      const char *at = strstr (name, library[i]);

      /* Packages installed beside Python are the program's, as the
       * launcher hook counts them: only torch and the standard library
       * are not. */
      if (at != NULL && at < paren
          && !(i == 1 && (strstr (name, "-packages/") != NULL)))
        return FALSE;
    }
  return name[0] == '/' || !is_stdlib_path (name, (gsize) (paren - name));
}

guint
pfprof_kineto_sites_entry (const char *name)
{
  if (name == NULL || name[0] != '<')
    return 0;
  for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
    if (g_str_has_prefix (name, entries[i].prefix))
      return i + 1;
  return 0;
}

/* A frame's name split: "train.py(57): train_step". FALSE when it is not
 * of that form. */
static gboolean
parse_frame (const char *name, char **file, gint32 *line, const char **function)
{
  const char *open = strstr (name, ".py(");
  char *end;
  gint64 v;

  if (open == NULL)
    return FALSE;
  open += 3;
  v = g_ascii_strtoll (open + 1, &end, 10);
  if (end == open + 1 || end[0] != ')' || end[1] != ':' || v < 1 || v > G_MAXINT32)
    return FALSE;
  *file = g_strndup (name, (gsize) (open - name));
  *line = (gint32) v;
  *function = end[2] == ' ' ? end + 3 : end + 2;
  return TRUE;
}

/* A frame range or a call, for the sweep over one thread's time. */
typedef struct
{
  guint32 tid;
  gint64 start, end;
  guint index;     /* into the NVTX or python_calls table */
  gboolean call;
} Item;

static int
compare_items (gconstpointer pa, gconstpointer pb)
{
  const Item *a = pa, *b = pb;

  if (a->tid != b->tid)
    return a->tid < b->tid ? -1 : 1;
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  /* A frame opens before a call that starts with it; outer frames first. */
  if (a->call != b->call)
    return a->call ? 1 : -1;
  if (a->end != b->end)
    return a->end > b->end ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

static guint32
intern (PfprofTrace *t, GHashTable *interned, const char *s)
{
  return pfprof_trace_intern (t, interned, s);
}

/* The python_sites row of a call made inside @frame, called from
 * @caller (an NVTX index, or G_MAXUINT), to entry point @entry, or
 * G_MAXUINT when the frame's name cannot be read. */
static guint
site_of (PfprofTrace *t, GHashTable *interned, GHashTable *keys, guint frame, guint caller,
         guint entry)
{
  const PfprofNvtxRecord *nvtx = pfprof_trace_nvtx (t);
  const char *name = pfprof_trace_string (t, nvtx[frame].name_id);
  const char *caller_name = caller != G_MAXUINT ? pfprof_trace_string (t, nvtx[caller].name_id) : NULL;
  g_autofree char *file = NULL, *caller_file = NULL, *key = NULL;
  const char *function, *caller_function = NULL;
  gint32 line, caller_line = 0;
  gpointer found;
  PfprofPythonSiteRecord r = { 0 };

  if (!parse_frame (name, &file, &line, &function))
    return G_MAXUINT;
  if (caller_name != NULL && !parse_frame (caller_name, &caller_file, &caller_line, &caller_function))
    caller_file = NULL;
  key = g_strdup_printf ("%u\x1f%s\x1f%s", entry, name, caller_file != NULL ? caller_name : "");
  if (g_hash_table_lookup_extended (keys, key, NULL, &found))
    return GPOINTER_TO_UINT (found);
  r.site_id = g_hash_table_size (keys) + 1;
  r.kind = entries[entry - 1].kind;
  r.api_id = intern (t, interned, entries[entry - 1].api);
  r.file_id = intern (t, interned, file);
  r.line = line;
  r.function_id = intern (t, interned, function);
  r.caller_file_id = caller_file != NULL ? intern (t, interned, caller_file) : PFPROF_NONE;
  r.caller_line = caller_file != NULL ? caller_line : 0;
  r.caller_function_id = caller_file != NULL ? intern (t, interned, caller_function) : PFPROF_NONE;
  g_array_append_val (t->tables[PFPROF_TABLE_PYTHON_SITES], r);
  found = GUINT_TO_POINTER (t->tables[PFPROF_TABLE_PYTHON_SITES]->len - 1);
  g_hash_table_insert (keys, g_steal_pointer (&key), found);
  return GPOINTER_TO_UINT (found);
}

void
pfprof_kineto_sites_build (PfprofTrace *trace, GHashTable *interned, guint32 dom_python)
{
  GArray *calls_a = trace->tables[PFPROF_TABLE_PYTHON_CALLS];
  PfprofPythonCallRecord *calls = pfprof_trace_python_calls (trace);
  const PfprofNvtxRecord *nvtx = pfprof_trace_nvtx (trace);
  g_autoptr (GArray) items = g_array_new (FALSE, FALSE, sizeof (Item));
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) site_of_call = NULL;
  g_autoptr (GHashTable) keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint32 tid = 0;
  guint kept = 0;

  if (calls_a->len == 0)
    return;
  site_of_call = g_array_new (FALSE, FALSE, sizeof (guint));
  g_array_set_size (site_of_call, calls_a->len);
  for (guint i = 0; i < calls_a->len; i++)
    {
      Item it = { calls[i].tid, calls[i].start_ns, calls[i].end_ns, i, TRUE };

      g_array_index (site_of_call, guint, i) = G_MAXUINT;
      g_array_append_val (items, it);
    }
  for (guint i = 0; i < pfprof_trace_n (trace, PFPROF_TABLE_NVTX); i++)
    if (nvtx[i].domain_id == dom_python && nvtx[i].kind == PFPROF_NVTX_RANGE)
      {
        Item it = { nvtx[i].tid, nvtx[i].start_ns, nvtx[i].end_ns, i, FALSE };

        g_array_append_val (items, it);
      }
  g_array_sort (items, compare_items);
  /* One sweep per thread, with the frames open at each instant. */
  for (guint i = 0; i < items->len; i++)
    {
      const Item *it = &g_array_index (items, Item, i);

      if (i == 0 || it->tid != tid)
        {
          g_array_set_size (stack, 0);
          tid = it->tid;
        }
      while (stack->len > 0
             && nvtx[g_array_index (stack, guint, stack->len - 1)].end_ns < it->start)
        g_array_set_size (stack, stack->len - 1);
      if (!it->call)
        g_array_append_val (stack, it->index);
      else if (stack->len > 0)
        {
          guint entry = calls[it->index].site_id;

          if (entry >= 1 && entry <= G_N_ELEMENTS (entries))
            g_array_index (site_of_call, guint, it->index)
              = site_of (trace, interned, keys, g_array_index (stack, guint, stack->len - 1),
                         stack->len > 1 ? g_array_index (stack, guint, stack->len - 2) : G_MAXUINT,
                         entry);
        }
    }
  /* Calls outside the program's frames name no site: dropped. */
  for (guint i = 0; i < calls_a->len; i++)
    {
      guint row = g_array_index (site_of_call, guint, i);

      if (row == G_MAXUINT)
        continue;
      calls[kept] = calls[i];
      calls[kept].site_id = pfprof_trace_python_sites (trace)[row].site_id;
      pfprof_trace_python_sites (trace)[row].calls++;
      kept++;
    }
  g_array_set_size (calls_a, kept);
}
