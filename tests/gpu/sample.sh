#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/gpu/sample.sh: `pfprof record --sample ON/EVERY` on the GPU.
#
# 1. What it costs: each bench workload (WORKLOADS, default the four
#    host-bound ones) runs SAMPLE_S seconds under `pfprof record --sample
#    SPEC` (default 1/4) with BENCH_STEPS_LOG, and bench/sample_windows.py
#    sets its steps beside the trace's windows: the cost inside a window
#    and what the whole run paid, against the steps in the pauses.
# 2. What it says: SAMPLES (default pageable_copies slow_dataloader) run
#    the same steps recorded whole and sampled; both reports' step median,
#    findings and savings side by side (tests/gpu/sample_compare.py).
#
# Run from the repository root with the build carried (env.sh). Results in
# $OUT (default /tmp/pfprof-gpu-sample): summary.txt and the logs.
set -u
root=$PWD
out=${OUT:-/tmp/pfprof-gpu-sample}
work=${SAMPLE_WORK:-/tmp/pfprof-gpu-sample-work}
mkdir -p "$out" "$work"
. "$root/tests/gpu/env.sh"
export PYTHONUNBUFFERED=1
spec=${SPEC:-1/4}
secs=${SAMPLE_S:-40}
summary=$out/summary.txt
: >"$summary"

steps_for() { # WORKLOAD: steps for about $secs seconds, from a typical step
  case $1 in
    r50b32) echo $((secs * 1000 / 30)) ;;
    bert) echo $((secs * 1000 / 50)) ;;
    tiny) echo $((secs * 1000 / 11)) ;;
    toitem) echo $((secs * 1000 / 7)) ;;
  esac
}
command_for() { # WORKLOAD: its script and arguments, from bench/overhead_suite.py
  python3 -c 'import sys; sys.path.insert(0, "bench"); import overhead_suite as o
s, a, _, _ = o.WORKLOADS[sys.argv[1]]; print(" ".join([s] + a))' "$1"
}

for w in ${WORKLOADS:-r50b32 bert tiny toitem}; do
  rm -f "$work/$w.pfprof"
  # shellcheck disable=SC2046
  BENCH_STEPS_LOG=$work/$w.steps timeout 300 "$pfprof" record -q --no-report --sample "$spec" \
    -o "$work/$w.pfprof" -- python3 $(command_for "$w") --steps "$(steps_for "$w")" --warmup 20 \
    >"$out/$w.log" 2>&1 || echo "$w: exit $?" >>"$summary"
  python3 bench/sample_windows.py --pfprof "$pfprof" --name "$w --sample $spec" "$work/$w.pfprof" \
    "$work/$w.steps" >>"$summary" 2>&1
  tail -1 "$out/$w.log" >>"$summary"
done

for s in ${SAMPLES:-pageable_copies slow_dataloader}; do
  for how in whole sampled; do
    rm -f "$work/$s-$how.pfprof"
    extra=()
    [ "$how" = sampled ] && extra=(--sample "${SAMPLE_SPEC:-1/3}")
    timeout 300 "$pfprof" record -q --no-report "${extra[@]}" -o "$work/$s-$how.pfprof" -- \
      python3 "samples/$s.py" --steps "${SAMPLE_STEPS:-600}" >"$out/$s-$how.log" 2>&1 \
      || echo "$s $how: exit $?" >>"$summary"
    "$pfprof" report --format json "$work/$s-$how.pfprof" >"$work/$s-$how.json" 2>>"$out/$s-$how.log"
    "$pfprof" report "$work/$s-$how.pfprof" >"$out/$s-$how.report" 2>&1
  done
  python3 tests/gpu/sample_compare.py "$s" "$work/$s-whole.json" "$work/$s-sampled.json" >>"$summary" 2>&1
done
cat "$summary"
