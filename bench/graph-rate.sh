#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/graph-rate.sh [RUNS]: the collector at kernel-record rates Python
# cannot launch (bench/graph_kernels.py: a CUDA graph of 1,000 tiny kernels
# replayed REPLAYS times, default 3000). Run from the repository root on the
# GPU machine with the build folder carried (PFPROF_BUILD, default
# build-collector). For each run: the script bare, then under `pfprof
# record`; prints the kernel rate of each and, from the trace, the kernel
# records written, the records dropped (meta dropped_records), the trace's
# size and bytes per event. Traces are deleted once counted (a run writes
# tens of MB). Results also in $OUT/graph-rate.txt when OUT is set.
set -u
runs=${1:-2}
replays=${REPLAYS:-3000}
work=${WORK:-/tmp/pfprof-graph-rate}
. tests/gpu/env.sh
rm -rf "$work"
mkdir -p "$work"
log=$work/graph-rate.txt
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1
  for r in $(seq 1 "$runs"); do
    echo "run $r bare: $(python3 bench/graph_kernels.py --replays "$replays" 2>&1 | tail -1)"
    out=$(timeout 300 "$pfprof" record -q --no-report -o "$work/g.pfprof" -- \
      python3 bench/graph_kernels.py --replays "$replays" 2>&1 | tail -1)
    echo "run $r pfprof: $out"
    python3 - "$work/g.pfprof" <<'PY'
import os, sqlite3, sys
sys.path.insert(0, "tests")
import pfprof_trace_rows
path = sys.argv[1]
db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
meta = dict(db.execute("SELECT key, value FROM meta"))
counts = pfprof_trace_rows.count_events(path)
kernels, events = counts.get("kernels", 0), sum(counts.values())
size = os.path.getsize(path)
print(f"  trace: {kernels} kernel records, {events} events, dropped_records {meta.get('dropped_records')}, "
      f"api_callback_dropped {meta.get('api_callback_dropped')}, {size} bytes ({size / max(events, 1):.1f} B/event)")
PY
    rm -f "$work/g.pfprof"*
  done
} 2>&1 | tee "$log"
[ -n "${OUT:-}" ] && cp "$log" "$OUT/"
exit 0
