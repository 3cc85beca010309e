#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/gpu/try-paired.sh: `pfprof try` and the program's own fix, run in
# turn, PAIRS (default 6) times, so that both see the same drift of the
# machine (on the H200 one process's step time differs from the next's
# by up to 25%, and it drifts over minutes). Each pair: `pfprof try --fix
# FIXES --rounds 1` (one A and one B run), then the program with OWN,
# bare. Prints each pair's B and own medians and their ratio, then the
# medians of both. Defaults: the side_stream_pageable sample, its fixes
# and `--fix`:
#   PROGRAM="samples/side_stream_pageable.py --steps 40 --warmup 5"
#   FIXES=pin-memory,non-blocking OWN=--fix STEPS=40
# Run from the repository root with the build carried (env.sh). Results
# in $OUT (default /tmp/pfprof-gpu-try-paired).
set -u
root=$PWD
out=${OUT:-/tmp/pfprof-gpu-try-paired}
mkdir -p "$out"
. "$root/tests/gpu/env.sh"
export PYTHONUNBUFFERED=1
program=${PROGRAM:-samples/side_stream_pageable.py --steps 40 --warmup 5}
fixes=${FIXES:-pin-memory,non-blocking}
own=${OWN:---fix}
pairs=${PAIRS:-6}
for ((i = 1; i <= pairs; i++)); do
  # shellcheck disable=SC2086
  "$pfprof" try --fix "$fixes" --rounds 1 --steps "${STEPS:-40}" --format json -- python3 $program \
    >"$out/try$i.json" 2>"$out/try$i.err"
  # shellcheck disable=SC2086
  python3 $program $own >"$out/own$i.txt" 2>&1
done
python3 - "$out" "$pairs" <<'PY'
import json, re, statistics, sys
out, pairs = sys.argv[1], int(sys.argv[2])
bs, owns = [], []
for i in range(1, pairs + 1):
    try:
        t = open(f"{out}/try{i}.json").read()
        r = json.loads(t[t.index("{"):])
        b = [x["step_median_ns"] / 1e6 for x in r["runs"] if x["arm"] == "B"][0]
        own = float(re.search(r"median step ([0-9.]+) ms", open(f"{out}/own{i}.txt").read()).group(1))
    except (OSError, ValueError, IndexError, KeyError, AttributeError, TypeError) as e:
        print(f"pair {i}: no result ({type(e).__name__})")
        continue
    bs.append(b)
    owns.append(own)
    print(f"pair {i}: B {b:.2f} ms, own {own:.2f} ms, B/own {100 * (b / own - 1):+.1f}%")
if bs:
    mb, mo = statistics.median(bs), statistics.median(owns)
    print(f"{len(bs)} pairs: median B {mb:.2f} ms, median own {mo:.2f} ms, B/own {100 * (mb / mo - 1):+.1f}%")
PY
