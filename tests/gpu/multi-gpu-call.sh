#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/gpu/multi-gpu-call.sh: tests/gpu/ranks.sh, then tests/gpu/reliability.sh,
# in one call of the GPU machine (from the repository root, build folder
# carried, OUT set), within about TOTAL_S seconds (default 500): ranks.sh
# gets RANKS_BUDGET_S (default 230) to start its runs, reliability.sh what
# is left, less a margin for its last scenario. Both put their files in
# $OUT (7 files in all). Exits 1 if either found a failed check.
# DRY=1 passes through: print what would run.
set -u
total=${TOTAL_S:-500}
t0=$SECONDS
BUDGET_S=${RANKS_BUDGET_S:-230} bash tests/gpu/ranks.sh
r1=$?
left=$((total - (SECONDS - t0) - 60))
[ $left -lt 60 ] && left=60
BUDGET_S=$left bash tests/gpu/reliability.sh
r2=$?
echo
echo "multi-gpu-call: ranks.sh exit $r1, reliability.sh exit $r2, $((SECONDS - t0)) s"
[ $r1 -le 1 ] && [ $r2 -le 1 ] && [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && exit 0
exit 1
