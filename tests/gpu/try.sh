#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/gpu/try.sh: `pfprof try` on the GPU, on two samples with an
# automatic fix, 3 rounds each (at most 420 s: each try is cut at 170 s):
#  1. samples/pageable_copies.py with --fix pin-memory (the sample's own
#     --fix is pin_memory=True);
#  2. samples/slow_dataloader.py with
#     --fix workers=12,persistent-workers,prefetch-factor=4 (its --fix).
# Each measures the sample's own timed steps (--steps). Then each
# sample's own --fix once, bare, for its step timer's median
# beside pfprof try's. Run from the repository root with the build folder
# carried (env.sh). Prints both tables; the JSON results, logs and the
# bare runs' output go to $OUT (default /tmp/pfprof-gpu-try). Exits 1 when
# a `pfprof try` failed or its arm B was abandoned.
set -u
root=$PWD
out=${OUT:-/tmp/pfprof-gpu-try}
rounds=${ROUNDS:-3}
mkdir -p "$out"
. "$root/tests/gpu/env.sh"
"$pfprof" --version || { echo "pfprof does not run here"; exit 1; }
export PYTHONUNBUFFERED=1
failed=0

# one NAME FIXES STEPS SCRIPT ARGS...: pfprof try, measuring the last
# STEPS steps of each run (the sample's own timed steps), its table
# printed; then the sample's --fix bare, unless 300 s are spent.
one() {
  local name=$1 fixes=$2 steps=$3 rc
  shift 3
  echo "== $name: pfprof try --fix $fixes --steps $steps -- python3 $*"
  timeout 170 "$pfprof" try --fix "$fixes" --steps "$steps" --rounds "$rounds" -- python3 "$@" \
    >"$out/$name.txt" 2>"$out/$name.err"
  rc=$?
  # The first unmodified run's own output comes first (its step timer
  # line shown), the table after it.
  grep -m1 "median step" "$out/$name.txt"
  sed -n '/^pfprof try:/,$p' "$out/$name.txt"
  cat "$out/$name.err"
  grep -q '^Result: abandoned' "$out/$name.txt" && failed=1
  [ "$rc" = 0 ] || { echo "$name: pfprof try exited $rc"; failed=1; }
  [ "$SECONDS" -lt 300 ] || { echo "== $name: the sample's own --fix: not run (300 s spent)"; return; }
  echo "== $name: the sample's own --fix, bare:"
  timeout 40 python3 "$@" --fix >"$out/$name-fix.txt" 2>&1
  tail -2 "$out/$name-fix.txt"
}

one pageable pin-memory 30 samples/pageable_copies.py --steps 30 --warmup 10
one slow_loader workers=12,persistent-workers,prefetch-factor=4 20 samples/slow_dataloader.py --steps 20 --warmup 5
exit $failed
