#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/gpu/live-read.sh: a trace read while the collector writes it, as
# `pfprof view` follows one (`pfprof record --view`; the window itself
# needs a display, which the GPU machine has not: the window's reload is
# the same reader and analysis as `pfprof report`, tested under Xvfb in
# tests/gui/test-view-follow.c). samples/pageable_copies.py runs under
# `pfprof record` twice, interleaved with nothing and with a reader:
#  1. alone, for its step time;
#  2. with `pfprof report --format json` of the growing trace once a
#     second meanwhile: each read must succeed (exit 0 or 1), the event
#     count must grow from read to read, the pageable-transfer finding must
#     show up before the program ends, and the step time must stay within
#     10% of the run alone (the reader copies the file and takes no lock,
#     so the collector never waits).
# At most ~300 s. Run from the repository root with the build carried
# (env.sh). Results in $OUT (default /tmp/pfprof-gpu-live): reads.tsv (a
# row per read: seconds since start, exit code, events, findings, read
# time), the logs, and summary.txt. Exits 1 when a check failed.
set -u
root=$PWD
out=${OUT:-/tmp/pfprof-gpu-live}
steps=${STEPS:-300}
mkdir -p "$out"
. "$root/tests/gpu/env.sh"
"$pfprof" --version || { echo "pfprof does not run here"; exit 1; }
export PYTHONUNBUFFERED=1
failed=0
sample=(samples/pageable_copies.py --steps "$steps" --warmup 10)
# DRY=1 (no GPU): a stand-in that writes a finished trace where the
# collector would, and a step time, to try the script's own logic.
if [ "${DRY:-0}" = 1 ]; then
  cat >"$out/dry.py" <<'PY'
import os, subprocess, sys, time
out = os.environ["PFPROF_OUTPUT"]
st = os.path.join(os.environ["PFPROF_STATUS_DIR"], "%d.status" % os.getpid())
for n in (50, 100, 150, 200):
    tmp = out + ".tmp"
    subprocess.run([os.environ["PFPROF_DRY_BIN"], "generate", "--steps", str(n), "--plant", "pageable",
                    "-f", "-o", tmp], check=True, stdout=subprocess.DEVNULL)
    os.replace(tmp, out)
    open(st, "w").write("pid=%d\ntrace=%s\nstate=tracing\n" % (os.getpid(), out))
    time.sleep(1.5)
print("pageable (no fix): median step 10.00 ms, mean 10.00 ms")
PY
  export PFPROF_DRY_BIN=$pfprof
  sample=("$out/dry.py")
fi

median() { grep -m1 -o 'median step [0-9.]* ms' "$1" | grep -o '[0-9.]*' | head -1; }

echo "== alone"
rm -f "$out/alone.pfprof"
timeout 150 "$pfprof" record -q --no-report -o "$out/alone.pfprof" -- python3 "${sample[@]}" >"$out/alone.txt" 2>&1
alone=$(median "$out/alone.txt")

echo "== with a reader once a second"
trace="$out/live.pfprof"
rm -f "$trace" "$trace-wal"
start=$SECONDS
timeout 150 "$pfprof" record -q --no-report -o "$trace" -- python3 "${sample[@]}" >"$out/live.txt" 2>&1 &
rec=$!
printf 'second\trc\tevents\tfindings\tread\n' >"$out/reads.tsv"
while kill -0 "$rec" 2>/dev/null; do
  sleep 1
  [ -e "$trace" ] || continue
  t0=$(date +%s%N)
  "$pfprof" report --format json "$trace" >"$out/read.json" 2>"$out/read.err"
  rc=$?
  t1=$(date +%s%N)
  read -r events findings < <(python3 -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    print(d["traces"][0]["events"], ",".join(f["rule"] for f in d["findings"]) or "-")
except Exception:
    print(0, "-")' "$out/read.json")
  printf '%s\t%s\t%s\t%s\t%s\n' $((SECONDS - start)) "$rc" "$events" "$findings" \
    "$(((t1 - t0) / 1000000))ms" >>"$out/reads.tsv"
  [ "$rc" -le 1 ] || cat "$out/read.err" >>"$out/read-errors.txt"
done
wait "$rec"
live=$(median "$out/live.txt")
rm -f "$out/read.json" "$out/read.err"

python3 - "$out/reads.tsv" "$alone" "$live" <<'PY' | tee "$out/summary.txt"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
alone, live = sys.argv[2], sys.argv[3]
bad = [r for r in rows if int(r["rc"]) > 1]
ok = [r for r in rows if int(r["rc"]) <= 1]
events = [int(r["events"]) for r in ok]
grew = all(b >= a for a, b in zip(events, events[1:])) and len(set(events)) >= 3
found = next((r["second"] for r in ok if "pageable-transfer" in r["findings"]), None)
slow = None
if alone and live:
    slow = float(live) / float(alone) - 1
print(f"reads: {len(rows)}, failed: {len(bad)}, events {events[:1]} .. {events[-1:]}, grew: {grew}")
print(f"pageable-transfer first seen at {found} s (of {rows[-1]['second'] if rows else '?'} s)")
print(f"median step alone {alone} ms, with the reader {live} ms ({'' if slow is None else f'{slow:+.1%}'})")
checks = [("every read succeeded", not bad), ("events grew", grew),
          ("finding seen while recording", found is not None),
          ("step time within 10%", slow is not None and slow < 0.10)]
for name, good in checks:
    print(("PASS " if good else "FAIL ") + name)
sys.exit(0 if all(g for _, g in checks) else 1)
PY
[ $? = 0 ] || failed=1
xz -T0 -q "$out"/*.pfprof 2>/dev/null
exit $failed
