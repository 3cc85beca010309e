/* SPDX-License-Identifier: MIT */
/* pfprof-view-test-mode.h: pfprof-view's test mode. Options (--report,
 * --screenshot, --select-finding, --select-rule, --next,
 * --select-evidence-event, --search, --search-next, --measure,
 * --then-open, --error-screenshot, --bench) make the real app, in a real
 * window, do what a user would (open, select a finding and step through
 * its occurrences, click the occurrence's event, search, measure an
 * interval, open a corrupt file, dismiss the error) and write
 * what it shows to a report file (KEY=VALUE lines) and screenshots, or
 * time its frames, then quit. tests/gui and bench/ drive it that way. */
#pragma once

#include <gtk/gtk.h>

#include "pfprof-view-window.h"

G_BEGIN_DECLS

/* Adds the options to @app's command line and scripts the session on
 * its first window when one is given; @start_us: g_get_monotonic_time at
 * the start of main(), which the first-frame times count from. */
void pfprof_view_test_mode_init (GtkApplication *app, gint64 start_us);

/* The exit status the session asks for (0 outside the test mode); frees
 * what it held. */
int pfprof_view_test_mode_finish (void);

G_END_DECLS
