#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/gpu/capture.sh: `pfprof record --capture-range=cuda-profiler-api`
# on tests/gpu/capture_probe.py: the first range alone is recorded (7 sin
# kernels, 1 copy, no kernel from before or after it, meta capture_range
# and capture_ranges=1); with PFPROF_CAPTURE_REPEAT=1 and 3 ranges every
# range is (21 sin kernels, 6 copies, capture_ranges=3); a program that
# never calls cudaProfilerStart() leaves a trace with no kernels and
# pfprof record says so; the CUPTI floor with the same variables counts
# 3 ranges. Run from the repository root with the build carried (env.sh).
# Results in $OUT (default /tmp/pfprof-gpu-capture): the logs and
# summary.txt. Exits 1 when a check failed. About 40 s.
set -u
root=$PWD
out=${OUT:-/tmp/pfprof-gpu-capture}
mkdir -p "$out"
. "$root/tests/gpu/env.sh"
failed=0
export PYTHONUNBUFFERED=1
probe=$root/tests/gpu/capture_probe.py
check() { # NAME TRACE SIN COPIES RANGES
  python3 - "$2" "$3" "$4" "$5" <<'PY' >"$out/$1.check" 2>&1
import sys
sys.path.insert(0, "tests")
import pfprof_trace_rows
path, sin, copies, ranges = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
db = pfprof_trace_rows.connect(path)
def count(pattern):
    return db.execute("SELECT count(*) FROM kernels k JOIN strings s ON s.id = k.name_id "
                      "WHERE s.value LIKE ?", (pattern,)).fetchone()[0]
meta = dict(db.execute("SELECT key, value FROM meta"))
got = {"sin": count("%sin%"), "cos": count("%cos%"), "mul": count("%Mul%") + count("%mul%"),
       "copies": db.execute("SELECT count(*) FROM memcpys").fetchone()[0],
       "capture_range": meta.get("capture_range"), "capture_ranges": meta.get("capture_ranges")}
want = {"sin": sin, "cos": 0, "mul": 0, "copies": copies, "capture_range": "cuda-profiler-api",
        "capture_ranges": ranges}
bad = [f"{k} {got[k]} (want {want[k]})" for k in want if str(got[k]) != str(want[k])]
print(("FAIL: " + "; ".join(bad)) if bad else f"ok: {got}")
sys.exit(1 if bad else 0)
PY
  local rc=$?
  echo "$1: $(cat "$out/$1.check")" | tee -a "$out/summary.txt"
  [ $rc = 0 ] || failed=1
}
: >"$out/summary.txt"

rm -f "$out"/*.pfprof
"$pfprof" record -q --no-report --capture-range=cuda-profiler-api -o "$out/first.pfprof" -- \
  python3 "$probe" --ranges 3 >"$out/first.log" 2>&1
check first "$out/first.pfprof" 7 1 1

PFPROF_CAPTURE_REPEAT=1 "$pfprof" record -q --no-report --capture-range=cuda-profiler-api \
  -o "$out/repeat.pfprof" -- python3 "$probe" --ranges 3 >"$out/repeat.log" 2>&1
check repeat "$out/repeat.pfprof" 21 6 3

# No range at all: python -c with no profiler call.
"$pfprof" record --no-report --capture-range=cuda-profiler-api -o "$out/none.pfprof" -- \
  python3 -c 'import torch; torch.randn(8, device="cuda").sum().item()' >"$out/none.log" 2>&1
if grep -q "never called cudaProfilerStart" "$out/none.log"; then
  echo "none: ok: pfprof record says nothing was recorded" | tee -a "$out/summary.txt"
else
  echo "none: FAIL: no 'never called cudaProfilerStart' line in none.log" | tee -a "$out/summary.txt"
  failed=1
fi

floor=$PFPROF_BUILD/bench/libpfprof-cupti-floor.so
if [ -f "$floor" ]; then
  CUDA_INJECTION64_PATH=$floor PFPROF_FLOOR_KINDS=kernel,memcpy PFPROF_CAPTURE=cuda-profiler-api \
    PFPROF_CAPTURE_REPEAT=1 python3 "$probe" --ranges 3 >"$out/floor.log" 2>&1
  # 21 sin kernels + 6 copies counted, nothing else (the floor counts records).
  line=$(grep "records in" "$out/floor.log")
  if echo "$line" | grep -q " 27 records in .*(3 capture ranges)"; then
    echo "floor: ok: $line" | tee -a "$out/summary.txt"
  else
    echo "floor: FAIL: $line (want 27 records, 3 capture ranges)" | tee -a "$out/summary.txt"
    failed=1
  fi
fi
echo "capture: $([ $failed = 0 ] && echo all passed || echo FAILED)" | tee -a "$out/summary.txt"
exit $failed
