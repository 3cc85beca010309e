#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/gpu/run-all.sh [QUICK]: the collector on the real GPU.
#
# Run from the repository root on the borrowed H200, with the build folder
# carried (default build-collector; PFPROF_BUILD to change). Builds nothing.
# Runs every sample under `pfprof record` with and without --fix, checks
# each trace with check_trace.py (Python's sqlite3, not our reader), then
# the failure scenarios: torch.profiler in the same process, an unwritable
# output path, SIGTERM and SIGKILL mid-run, several CUDA processes. Prints
# a table last; exits 1 if any check failed. Traces and logs go to
# $OUT (or /tmp/pfprof-gpu).
#
# QUICK=1: one sample and the probes only (a smoke test).
# ONLY=PREFIX: only the sample runs whose name starts with PREFIX (e.g. d_).
set -u
root=$PWD
out=${OUT:-/tmp/pfprof-gpu}
work=/tmp/pfprof-gpu-work
quick=${1:-${QUICK:-0}}
rm -rf "$work"; mkdir -p "$work" "$out"
check=$root/tests/gpu/check_trace.py
export PYTHONUNBUFFERED=1
table=$work/table.txt
failed=0
: >"$table"

. "$root/tests/gpu/env.sh"
"$pfprof" --version || { echo "pfprof does not run here"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

row() { printf '%-34s %-4s %-6s %s\n' "$1" "$2" "$3" "$4" | tee -a "$table"; }

# record NAME WANT-RC CHECKS -- COMMAND...: runs under pfprof record into
# $work/NAME.pfprof, then checks the trace.
record() {
  local name=$1 want=$2 checks=$3; shift 4
  [ -n "${ONLY:-}" ] && [[ "$name" != "$ONLY"* ]] && return 0
  local t0=$SECONDS
  (cd "$root/samples" && "$pfprof" record -o "$work/$name.pfprof" -- "$@") >"$work/$name.log" 2>&1
  local rc=$?
  local secs=$((SECONDS - t0))
  local verdict=ok
  [ "$rc" -eq "$want" ] || verdict=FAIL
  if [ -f "$work/$name.pfprof" ]; then
    python3 "$check" "$work/$name.pfprof" $checks >"$work/$name.json" || verdict=FAIL
  else
    verdict=FAIL
    echo '{}' >"$work/$name.json"
  fi
  [ $verdict = ok ] || failed=1
  local step=$(grep -o 'median step [0-9.]* ms, mean [0-9.]* ms' "$work/$name.log" | tail -1)
  local summary=$(python3 -c "
import json,sys
d=json.load(open('$work/$name.json'))
m=d.get('metrics',{}); c=d.get('checks',{})
bad=[k for k,v in c.items() if not v]
print(f\"{d.get('size',0)/1e6:.1f}MB k={m.get('kernels')} cp={m.get('memcpys')} api={m.get('api_calls')} sy={m.get('syncs')} nvtx={m.get('nvtx')} mem={m.get('memory')} drop={m.get('dropped')} inv={m.get('invalid')}\" + (' FAILED:'+','.join(bad) if bad else ''))
" 2>/dev/null)
  row "$name" "$rc" "$verdict" "${secs}s $summary | $step"
}

base="complete no_drops kinds h200 named_threads clock_aligned"
steps=(--steps 60 --warmup 15)
[ "$quick" = 1 ] && steps=(--steps 30 --warmup 10)

record nvtx_probe 0 "$base" -- python3 "$root/tests/gpu/nvtx_probe.py"
[ -n "${ONLY:-}" ] || python3 -c "
import json; m=json.load(open('$work/nvtx_probe.json'))['metrics']
assert {'outer','inner','a-mark','ctx-range'} <= set(m['nvtx_names']), m['nvtx_names']
assert m['nvtx_max_depth'] >= 1
print('nvtx names and depth ok')" >>"$work/nvtx_probe.log" 2>&1 || { failed=1; row nvtx_probe_names - FAIL "$(tail -1 "$work/nvtx_probe.log")"; }

record a_pageable 0 "$base dl_nvtx pageable" -- python3 pageable_copies.py "${steps[@]}"
record a_pageable_fix 0 "$base dl_nvtx pinned" -- python3 pageable_copies.py --fix "${steps[@]}"
if [ "$quick" != 1 ]; then
  record b_serialized 0 "$base dl_nvtx pinned copy_on_compute" -- python3 serialized_copies.py "${steps[@]}"
  record b_serialized_fix 0 "$base dl_nvtx pinned copy_on_side" -- python3 serialized_copies.py --fix "${steps[@]}"
  record c_side_stream 0 "$base dl_nvtx pinned copy_on_side" -- python3 side_stream_prefetch.py "${steps[@]}"
  record d_record_stream 0 "$base dl_nvtx pinned event_syncs" -- python3 record_stream_pressure.py "${steps[@]}"
  record d_record_stream_fix 0 "$base dl_nvtx pinned no_event_syncs" -- python3 record_stream_pressure.py --fix "${steps[@]}"
  record e_slow_loader 0 "$base dl_nvtx" -- python3 slow_dataloader.py --steps 40 --warmup 10
  record e_slow_loader_fix 0 "$base dl_nvtx" -- python3 slow_dataloader.py --fix --steps 40 --warmup 10
  record f_item 0 "$base dl_nvtx pinned stream_syncs" -- python3 item_sync.py "${steps[@]}"
  record f_item_fix 0 "$base dl_nvtx pinned few_stream_syncs" -- python3 item_sync.py --fix "${steps[@]}"
  # The slow loader must show as time in DataLoader.next, and the fix cut it.
  [ -f "$work/e_slow_loader.json" ] && python3 -c "
import json
a=json.load(open('$work/e_slow_loader.json'))['metrics']; b=json.load(open('$work/e_slow_loader_fix.json'))['metrics']
print('DataLoader.next ms', a['dl_next_ms'], b['dl_next_ms'])
assert a['dl_next_ms'] > 2 * b['dl_next_ms']" >"$work/e_compare.log" 2>&1 \
    && row e_next_time_compare - ok "$(head -1 "$work/e_compare.log")" \
    || { [ -f "$work/e_slow_loader.json" ] && { failed=1; row e_next_time_compare - FAIL "$(tail -1 "$work/e_compare.log")"; }; }
fi

if [ -z "${ONLY:-}" ]; then
# torch.profiler in a traced process: the program is unaffected.
record profiler 0 "complete no_drops gpu_kinds" -- python3 "$root/tests/gpu/profiler_probe.py"
grep -q "profiler-probe ok" "$work/profiler.log" || { failed=1; row profiler_output - FAIL "program output missing"; }

# Unwritable output. pfprof record refuses a folder it cannot write
# before it runs anything (one line, exit 2: every trace would fail after
# the program ran); the collector itself, injected without the launcher
# into a folder it cannot create a file in, says so in one line and the
# program runs untraced with its own output and exit code.
(cd "$root/samples" && "$pfprof" record -o /proc/pfprof-nowhere/x.pfprof -- python3 -c \
  "import sys; print('ran'); sys.exit(4)") >"$work/unwritable-record.log" 2>&1
rc=$?
if [ $rc -eq 2 ] && ! grep -q "^ran" "$work/unwritable-record.log" \
   && [ "$(wc -l <"$work/unwritable-record.log")" = 1 ] \
   && grep -q '^pfprof: cannot write traces into /proc/pfprof-nowhere' "$work/unwritable-record.log"; then
  row unwritable_record $rc ok "$(cut -c1-90 "$work/unwritable-record.log")"
else
  failed=1; row unwritable_record $rc FAIL "$(tr '\n' ' ' <"$work/unwritable-record.log" | cut -c1-200)"
fi
(cd "$root/samples" && CUDA_INJECTION64_PATH=$root/$build/collector/libpfprof-collector.so \
  PFPROF_OUTPUT=/proc/pfprof-nowhere/x.pfprof python3 -c \
  "import torch, sys; torch.ones(1, device='cuda'); print('untraced ok'); sys.exit(4)") >"$work/unwritable.log" 2>&1
rc=$?
if [ $rc -eq 4 ] && grep -q "untraced ok" "$work/unwritable.log" && [ "$(grep -c '^pfprof: cannot create trace' "$work/unwritable.log")" = 1 ]; then
  row unwritable_output $rc ok "$(grep -m1 'cannot create' "$work/unwritable.log" | cut -c1-90)"
else
  failed=1; row unwritable_output $rc FAIL "$(tr '\n' ' ' <"$work/unwritable.log" | cut -c1-200)"
fi

# Several CUDA processes: one trace each (%p).
(cd "$work" && "$pfprof" record -o "$work/multi-%p.pfprof" -- python3 "$root/tests/gpu/multiproc_probe.py") >"$work/multi.log" 2>&1
rc=$?
n=$(ls "$work"/multi-*.pfprof 2>/dev/null | wc -l)
if [ $rc -eq 0 ] && [ "$n" = 2 ] && [ "$(grep -c 'wrote' "$work/multi.log")" = 2 ]; then
  row multiprocess $rc ok "$n traces"
else
  failed=1; row multiprocess $rc FAIL "$n traces; $(tr '\n' ' ' <"$work/multi.log" | cut -c1-200)"
fi

# kill_test SIG WANT-RC CHECKS: a long run, killed once its trace has data.
kill_test() {
  local sig=$1 want=$2 checks=$3 name=kill_$1
  (cd "$root/samples" && exec "$pfprof" record -o "$work/$name.pfprof" -- python3 item_sync.py --steps 100000) \
    >"$work/$name.log" 2>&1 &
  local launcher=$!
  sleep 20
  local child=$(cat /proc/$launcher/task/$launcher/children | awk '{print $1}')
  local kill_ns=$(date +%s%N)
  if [ "$sig" = KILL ]; then kill -KILL "$child"; else kill -TERM "$launcher"; fi
  wait $launcher
  local rc=$?
  local verdict=ok
  [ $rc -eq "$want" ] || verdict=FAIL
  python3 "$check" "$work/$name.pfprof" $checks >"$work/$name.json" || verdict=FAIL
  local lag=$(python3 -c "import json; m=json.load(open('$work/$name.json'))['metrics']; print(round(($kill_ns - m['last_api_ns'])/1e9, 2))")
  # SIGKILL: what was committed is there, up to about a second before.
  if [ "$sig" = KILL ] && ! python3 -c "import sys; sys.exit(0 if 0 <= $lag < 1.6 else 1)"; then verdict=FAIL; fi
  [ $verdict = ok ] || failed=1
  row "$name" $rc $verdict "last API record ${lag}s before the kill; $(python3 -c "import json; m=json.load(open('$work/$name.json'))['metrics']; print(f\"complete={m['complete']} kernels={m['kernels']}\")")"
}
kill_test TERM 143 "complete no_drops kinds"
kill_test KILL 137 "incomplete kinds"
fi

echo
echo "== pfprof GPU tests ($(date -u +%FT%TZ), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1))"
printf '%-34s %-4s %-6s %s\n' TEST RC RESULT DETAILS
cat "$table"
[ $failed -eq 0 ] && echo "ALL PASSED" || echo "SOME CHECKS FAILED"

# Bring back (the device tool returns at most 8 files): the table, the
# sample traces, and every log and JSON.
mkdir -p "$out"
cp "$table" "$out/"
(cd "$work" && tar cJf "$out/traces.tar.xz" $(ls *.pfprof | grep -v '^kill_\|^multi') 2>/dev/null)
(cd "$work" && tar cJf "$out/logs.tar.xz" *.log *.json table.txt 2>/dev/null)
exit $failed
