#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/gpu/workers.sh: what `pfprof record` records inside the DataLoader,
# with real torch on a GPU: workers_probe.py under pfprof record for the
# fork, spawn and forkserver start methods, and once with
# --no-worker-hooks; the batches the program got must be bit-identical,
# each trace must hold worker_events (batches of both workers, the
# transforms' stages, the batches got, the pin thread's), and the report's
# input_pipeline must name SlowNoise. One line a check, then a table.
set -u
. tests/gpu/env.sh
out=${OUT:-/tmp/pfprof-workers}
mkdir -p "$out"
fail=0
for m in fork spawn forkserver off; do
  flags=
  method=$m
  if [ "$m" = off ]; then flags=--no-worker-hooks; method=fork; fi
  "$pfprof" record --quiet --force $flags -o "$out/$m.pfprof" -- python3 tests/gpu/workers_probe.py "$method" \
    >"$out/$m.out" 2>"$out/$m.err" || { echo "FAIL $m: exit $?"; tail -5 "$out/$m.err"; fail=1; }
  "$pfprof" report --format json "$out/$m.pfprof" >"$out/$m.json" 2>>"$out/$m.err"
done
python3 - "$out" <<'PY' || fail=1
import json, os, sys
sys.path.insert(0, "tests")
import pfprof_trace_rows
out = sys.argv[1]
bad = 0
digest = {m: open(os.path.join(out, m + ".out")).read().strip() for m in ("fork", "spawn", "forkserver", "off")}
ok = len(set(digest.values())) == 1 and len(digest["off"]) == 64
print(("ok" if ok else "FAIL"), "batches bit-identical with and without the recording", digest)
bad |= not ok
for m in ("fork", "spawn", "forkserver", "off"):
    db = pfprof_trace_rows.connect(os.path.join(out, m + ".pfprof"))
    counts = dict(db.execute("SELECT kind, count(*) FROM worker_events GROUP BY kind").fetchall())
    workers = db.execute("SELECT count(DISTINCT pid) FROM worker_events WHERE kind = 2").fetchone()[0]
    stages = [r[0] for r in db.execute("SELECT s.value FROM python_sites p JOIN strings s ON s.id = p.function_id"
                                        " WHERE p.kind = 6 ORDER BY s.value")]
    if m == "off":
        ok = not counts
    else:
        # 2 epochs of 32 batches.
        ok = counts.get(2) == 64 and counts.get(6) == 64 and counts.get(7) == 64 and workers == 2 \
            and stages == ["__main__.Scale", "__main__.SlowNoise"]
    print(("ok" if ok else "FAIL"), m, "worker_events by kind", counts, "workers", workers, "stages", stages)
    bad |= not ok
    if m != "off":
        doc = json.load(open(os.path.join(out, m + ".json")))
        f = next((f for f in doc["findings"] if f["rule"] == "input-starved"), None)
        p = f and f["input_pipeline"]
        print("  input-starved:", "none" if f is None else (p and [(s["function"], round(s["share"], 3)) for s in p["stages"]],
              p and p["saturated"], p and p["cores"], p and p["worker_cores"], f["predicted_step_ns"]))
        if p:
            ok = p["stages"][0]["function"] == "__main__.SlowNoise"
            print(("ok" if ok else "FAIL"), m, "SlowNoise named first")
            bad |= not ok
sys.exit(1 if bad else 0)
PY
exit $fail
