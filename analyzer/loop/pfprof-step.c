/* SPDX-License-Identifier: MIT */
/* pfprof-step.c: one step of the training loop. */

#include "pfprof-step.h"

const char *
pfprof_phase_to_string (PfprofPhase phase)
{
  return phase == PFPROF_PHASE_EVAL ? "evaluation" : "training";
}
