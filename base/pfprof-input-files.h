/* pfprof-input-files.h: the files this process read, so that no output
 * replaces one of them.
 *
 * `pfprof report -o run.pfprof --force run.pfprof` would replace the
 * trace with its own report. The readers note every file they load
 * (device and inode, so a second name or a hard link is the same file);
 * the output checks (cli/pfprof-cli-output, render/pfprof-render-output)
 * refuse a destination that is one of them.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Notes @path (following links) as read; nothing when it cannot be
 * stat()ed. Thread-safe. */
void pfprof_input_files_add (const char *path);

/* Whether the existing file at @path (not following a final link) is one
 * that was read. */
gboolean pfprof_input_files_contains (const char *path);

G_END_DECLS
