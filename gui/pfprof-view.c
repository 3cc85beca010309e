/* SPDX-License-Identifier: MIT */
/* pfprof-view.c: main() of the pfprof-view application, which is in
 * pfprof-view-application.c. */
#include "pfprof-config.h"

#include "pfprof-view-application.h"

int
main (int argc, char **argv)
{
  g_autoptr (GtkApplication) app = pfprof_view_application_new ();

  return g_application_run (G_APPLICATION (app), argc, argv);
}
