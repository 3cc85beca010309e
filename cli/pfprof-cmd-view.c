/* pfprof-cmd-view.c: `pfprof view`. Placeholder until its issue lands. */
#include "pfprof-cli.h"

int
pfprof_cmd_view (int argc, char **argv)
{
  pfprof_cli_error ("'view' is not implemented in this build yet");
  return PFPROF_EXIT_USAGE;
}
