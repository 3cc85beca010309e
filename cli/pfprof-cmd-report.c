/* pfprof-cmd-report.c: `pfprof report`. Placeholder until its issue lands. */
#include "pfprof-cli.h"

int
pfprof_cmd_report (int argc, char **argv)
{
  pfprof_cli_error ("'report' is not implemented in this build yet");
  return PFPROF_EXIT_USAGE;
}
