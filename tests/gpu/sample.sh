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
# 3. Its records: tests/gpu/threads_probe.py (CUDA calls from two threads
#    at once) under --sample 0.2/0.4, every API call and kernel with its
#    own correlation id (check_trace.py distinct_ids); with PFPROF_BASE
#    (a build to compare with, tests/gpu/pack-carry.sh BUILD BASE) the
#    same under that build, whose result is printed, not checked.
#
# PIN=N runs the part 1 workloads restricted to CPUs 0..N-1 (taskset).
# PARTS (default "1 2 3") picks the parts.
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

parts=" ${PARTS:-1 2 3} "
pin=()
[ -z "${PIN:-}" ] || pin=(taskset -c "0-$((PIN - 1))")
for w in ${WORKLOADS:-r50b32 bert tiny toitem}; do
  case $parts in *" 1 "*) ;; *) break ;; esac
  rm -f "$work/$w.pfprof"
  # shellcheck disable=SC2046
  BENCH_STEPS_LOG=$work/$w.steps timeout 300 "${pin[@]}" "$pfprof" record -q --no-report --sample "$spec" \
    -o "$work/$w.pfprof" -- python3 $(command_for "$w") --steps "$(steps_for "$w")" --warmup 20 \
    >"$out/$w.log" 2>&1 || echo "$w: exit $?" >>"$summary"
  python3 bench/sample_windows.py --pfprof "$pfprof" --name "$w --sample $spec${PIN:+ on $PIN CPUs}" \
    "$work/$w.pfprof" "$work/$w.steps" >>"$summary" 2>&1
  tail -1 "$out/$w.log" >>"$summary"
done

for s in ${SAMPLES:-pageable_copies slow_dataloader}; do
  case $parts in *" 2 "*) ;; *) break ;; esac
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

failed=0
case $parts in *" 3 "*)
  for b in ${PFPROF_BASE:+base} this; do
    bin=$pfprof
    [ $b = this ] || bin=$root/$PFPROF_BASE/cli/pfprof
    rm -f "$work/threads-$b.pfprof"
    timeout 120 "$bin" record -q --no-report --sample 0.2/0.4 -o "$work/threads-$b.pfprof" -- \
      python3 tests/gpu/threads_probe.py --seconds 6 >"$out/threads-$b.log" 2>&1 \
      || echo "threads $b: exit $?" >>"$summary"
    python3 tests/gpu/check_trace.py "$work/threads-$b.pfprof" distinct_ids >"$work/threads-$b.json"
    rc=$?
    python3 - "$work/threads-$b.json" "$b" >>"$summary" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = d["metrics"]
print(f"threads {sys.argv[2]}: {m['api_calls']} API calls ({m['api_ids_shared']} sharing an id), "
      f"{m['kernels']} kernels ({m['kernel_ids_shared']} sharing an id), {m['api_tids']} threads: "
      + ("ok" if d["checks"]["distinct_ids"] else "FAILED"))
PY
    [ $b = base ] || [ $rc = 0 ] || failed=1
  done ;;
esac
cat "$summary"
exit $failed
