/* SPDX-License-Identifier: MIT */
/* pfprof-view.c: main() of the pfprof-view application, which is in
 * pfprof-view-application.c. */
#include "pfprof-config.h"

#include <stdio.h>

#include "pfprof-view-application.h"

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GtkApplication) app = pfprof_view_application_new (&error);

  /* GTK's own failure is "cannot open display: " and exit 1 (pfprof's
   * "a finding fired"): one clear line and 2 instead. */
  if (app == NULL)
    {
      fprintf (stderr, "pfprof-view: %s\n", error->message);
      return 2;
    }
  return g_application_run (G_APPLICATION (app), argc, argv);
}
