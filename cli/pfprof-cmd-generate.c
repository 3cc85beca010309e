/* pfprof-cmd-generate.c: `pfprof generate`. Placeholder until its issue lands. */
#include "pfprof-cli.h"

int
pfprof_cmd_generate (int argc, char **argv)
{
  pfprof_cli_error ("'generate' is not implemented in this build yet");
  return PFPROF_EXIT_USAGE;
}
