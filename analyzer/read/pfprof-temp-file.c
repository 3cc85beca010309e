/* SPDX-License-Identifier: MIT */
/* pfprof-temp-file.c: see the header. */
#include "pfprof-temp-file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

/* Paths registered at once: a command has a few temporary files. */
#define N_SLOTS 32

static char *volatile slots[N_SLOTS];

static const char *const side_suffixes[] = { "", "-wal", "-shm", "-journal" };

/* Async-signal-safe: no allocation, no stdio. */
static void
remove_paths (void)
{
  char buf[PATH_MAX + 16];

  for (int i = 0; i < N_SLOTS; i++)
    {
      const char *p = slots[i];
      size_t len;

      if (p == NULL || (len = strlen (p)) >= PATH_MAX)
        continue;
      for (size_t s = 0; s < G_N_ELEMENTS (side_suffixes); s++)
        {
          memcpy (buf, p, len);
          strcpy (buf + len, side_suffixes[s]);
          unlink (buf);
        }
    }
  /* Folders last: they are empty once their files are gone. */
  for (int i = 0; i < N_SLOTS; i++)
    if (slots[i] != NULL)
      rmdir (slots[i]);
}

static void
on_signal (int sig)
{
  int saved = errno;

  remove_paths ();
  /* Die of the same signal once the handler returns (it is blocked
   * while the handler runs). */
  signal (sig, SIG_DFL);
  raise (sig);
  errno = saved;
}

void
pfprof_temp_file_install_handlers (void)
{
  static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
  struct sigaction sa;

  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigfillset (&sa.sa_mask);
  for (gsize i = 0; i < G_N_ELEMENTS (signals); i++)
    {
      struct sigaction old;

      /* An ignored signal (nohup, a shell's background job) stays ignored. */
      if (sigaction (signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
        continue;
      sigaction (signals[i], &sa, NULL);
    }
}

int
pfprof_temp_file_register (const char *path)
{
  g_return_val_if_fail (path != NULL, -1);

  char *p = g_strdup (path);

  for (int i = 0; i < N_SLOTS; i++)
    if (g_atomic_pointer_compare_and_exchange ((gpointer *) &slots[i], NULL, p))
      return i;
  g_free (p);
  return -1;
}

void
pfprof_temp_file_forget (int slot)
{
  sigset_t all, old;
  char *p;

  if (slot < 0 || slot >= N_SLOTS)
    return;
  /* The handler may read the slot: no signal between taking it out and
   * freeing it. */
  sigfillset (&all);
  pthread_sigmask (SIG_BLOCK, &all, &old);
  p = g_atomic_pointer_exchange ((gpointer *) &slots[slot], NULL);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  g_free (p);
}

void
pfprof_temp_file_remove (const char *path)
{
  g_return_if_fail (path != NULL);

  for (gsize s = 0; s < G_N_ELEMENTS (side_suffixes); s++)
    {
      g_autofree char *p = g_strconcat (path, side_suffixes[s], NULL);

      g_unlink (p);
    }
}

/* While a temporary path is made and registered, the signals that
 * remove registered paths wait: between the two it would be left. */
static void
block_signals (sigset_t *old)
{
  sigset_t set;

  sigemptyset (&set);
  sigaddset (&set, SIGINT);
  sigaddset (&set, SIGTERM);
  sigaddset (&set, SIGHUP);
  pthread_sigmask (SIG_BLOCK, &set, old);
}

char *
pfprof_temp_file_dir_new (const char *tmpl, int *slot, GError **error)
{
  sigset_t old;
  char *dir;

  g_return_val_if_fail (tmpl != NULL, NULL);
  g_return_val_if_fail (slot != NULL, NULL);

  block_signals (&old);
  dir = g_dir_make_tmp (tmpl, error);
  *slot = dir != NULL ? pfprof_temp_file_register (dir) : -1;
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  return dir;
}

int
pfprof_temp_file_beside (const char *path, int mode, char **tmp, int *slot)
{
  /* "." + BASE + ".XXXXXX" + "-journal" (SQLite's longest side file)
   * within NAME_MAX. */
  g_return_val_if_fail (path != NULL, -1);
  g_return_val_if_fail (tmp != NULL, -1);
  g_return_val_if_fail (slot != NULL, -1);

  const gsize max_base = NAME_MAX - 8 - 8;
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  sigset_t old;
  char *name;
  int fd, e;

  if (strlen (base) > max_base)
    base[max_base] = '\0';
  name = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  block_signals (&old);
  fd = g_mkstemp_full (name, O_WRONLY | O_CLOEXEC, mode);
  e = errno;
  *slot = fd >= 0 ? pfprof_temp_file_register (name) : -1;
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  if (fd < 0)
    {
      g_free (name);
      errno = e;
      return -1;
    }
  *tmp = name;
  return fd;
}
