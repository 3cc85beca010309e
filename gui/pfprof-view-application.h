/* SPDX-License-Identifier: MIT */
/* pfprof-view-application.h: the pfprof-view application: its actions and
 * accelerators, the desktop's dark preference, and a window per open.
 *
 * pfprof-view's main() runs it as it is. The test program of tests/gui
 * (pfprof-view-test) runs the same application and adds its scripted
 * session through the application's own signals ("window-added",
 * "activate"), so the shipped binary carries no test code. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Readies the process (the signal handlers that remove a loading WAL
 * trace's copy, the program's name) and returns the application, to be
 * run with g_application_run(). The traces named on the command line
 * start loading as soon as the options are read, before the display is
 * opened (pfprof-view-preload.h); without a display the run returns 2
 * after one line on stderr. */
GtkApplication *pfprof_view_application_new (void);

G_END_DECLS
