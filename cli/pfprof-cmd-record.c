/* pfprof-cmd-record.c: `pfprof record`. Placeholder until its issue lands. */
#include "pfprof-cli.h"

int
pfprof_cmd_record (int argc, char **argv)
{
  pfprof_cli_error ("'record' is not implemented in this build yet");
  return PFPROF_EXIT_USAGE;
}
