/* pfprof-cmd-render.c: `pfprof render`. Placeholder until its issue lands. */
#include "pfprof-cli.h"

int
pfprof_cmd_render (int argc, char **argv)
{
  pfprof_cli_error ("'render' is not implemented in this build yet");
  return PFPROF_EXIT_USAGE;
}
