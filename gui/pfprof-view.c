/* SPDX-License-Identifier: MIT */
/* pfprof-view.c: main() of the pfprof-view application, which is in
 * pfprof-view-application.c. The test mode is in
 * pfprof-view-test-mode.c. */
#include "pfprof-config.h"

#include <stdio.h>

#include "pfprof-view-application.h"
#include "pfprof-view-test-mode.h"

int
main (int argc, char **argv)
{
  gint64 start_us = g_get_monotonic_time ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GtkApplication) app = pfprof_view_application_new (&error);
  int status;

  /* GTK's own failure is "cannot open display: " and exit 1 (pfprof's
   * "a finding fired"): one clear line and 2 instead. */
  if (app == NULL)
    {
      fprintf (stderr, "pfprof-view: %s\n", error->message);
      return 2;
    }
  pfprof_view_test_mode_init (app, start_us);
  status = g_application_run (G_APPLICATION (app), argc, argv);
  return status != 0 ? status : pfprof_view_test_mode_finish ();
}
