/* SPDX-License-Identifier: MIT */
/* pfprof-temp-file.h: temporary files that never outlive a failed or
 * interrupted command.
 *
 * Every file pfprof writes is made under a temporary name beside its
 * destination (or, for the reader's copy of an unfinished trace, in a
 * private folder) and renamed, or removed, at the end. A command killed by
 * SIGINT, SIGTERM or SIGHUP in between would leave that name behind, with
 * gigabytes in it. So each temporary path is registered here; once
 * pfprof_temp_file_install_handlers() ran, those signals remove every
 * registered path (an SQLite file with its -wal, -shm and -journal, a
 * folder after its files) and then end the process with the same signal,
 * so the exit status is what the shell expects. The handler does only
 * async-signal-safe work on a fixed table; the signals wait while a path
 * is made and registered.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Removes the registered paths on SIGINT, SIGTERM and SIGHUP, then dies of
 * the signal. For programs (pfprof); a library never installs it. */
void pfprof_temp_file_install_handlers (void);

/* Registers @path (a file, removed with its SQLite side files, or an
 * empty-by-then folder: registered after the files in it). Returns a slot
 * for pfprof_temp_file_forget(), or -1 when the table is full (the file is
 * then only removed by the caller). */
int pfprof_temp_file_register (const char *path);

/* Unregisters @slot (-1 allowed): the path was renamed or removed. */
void pfprof_temp_file_forget (int slot);

/* Removes @path and its SQLite side files (-wal, -shm, -journal). */
void pfprof_temp_file_remove (const char *path);

/* g_dir_make_tmp (@tmpl) registered (*@slot) with no signal in between. */
char *pfprof_temp_file_dir_new (const char *tmpl, int *slot, GError **error);

/* A temporary name beside @path (".BASE.XXXXXX" in its folder, BASE cut
 * so that the name and its SQLite side files fit NAME_MAX), created empty with O_EXCL and mode
 * @mode, registered. Returns the open descriptor and sets *@tmp and
 * *@slot; -1 with errno set on failure. */
int pfprof_temp_file_beside (const char *path, int mode, char **tmp, int *slot);

G_END_DECLS
