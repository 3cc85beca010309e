#!/usr/bin/env python3
"""The rules judged on traces recorded on the H200 (suite `analyzer`).

Usage: test-samples.py PFPROF SAMPLES-TRACES-DIR

For every trace under samples/traces/ (recorded by `pfprof record` from a
script in samples/), the sample is recognized from the trace's command line
(or its file name) and `pfprof report --format json` must show:
  - each problem sample (no --fix) yields its rule;
  - its --fix variant does not;
  - the good prefetcher (side_stream_prefetch.py) yields none of the
    must-have rules and a copy/compute overlap near 1;
  - no sample yields pageable-transfer for its start-up weight copies (only
    pageable_copies.py without --fix copies batches from pageable memory).
Prints TAP; skips when no trace has been recorded yet.
"""
import glob
import json
import os
import subprocess
import sys

PFPROF, DIR = sys.argv[1], sys.argv[2]
MUST_HAVE = {"pageable-transfer", "serialized-copy", "record-stream-stall", "input-starved"}
SAMPLES = {
    "pageable_copies.py": "pageable-transfer",
    "serialized_copies.py": "serialized-copy",
    "record_stream_pressure.py": "record-stream-stall",
    "slow_dataloader.py": "input-starved",
    "item_sync.py": "sync-in-loop",
    "side_stream_prefetch.py": None,
}
FILE_PREFIX = {"a_": "pageable_copies.py", "b_": "serialized_copies.py", "c_": "side_stream_prefetch.py",
               "d_": "record_stream_pressure.py", "e_": "slow_dataloader.py", "f_": "item_sync.py"}

traces = sorted(glob.glob(os.path.join(DIR, "*.pfprof")))
results = []


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


for path in traces:
    base = os.path.basename(path)
    p = subprocess.run([PFPROF, "report", "-q", "--format", "json", path], capture_output=True, text=True,
                       timeout=600)
    if p.returncode != 0:
        check(f"{base}: report runs", False, p.stderr)
        continue
    d = json.loads(p.stdout)
    cmd = d["traces"][0].get("command_line") or ""
    script = next((s for s in SAMPLES if s in cmd), None)
    if script is None:
        script = next((s for pre, s in FILE_PREFIX.items() if base.startswith(pre)), None)
    if script is None:
        continue  # a probe, not a sample
    fix = "--fix" in cmd or base.endswith("_fix.pfprof")
    rules = {f["rule"] for f in d["findings"]}
    summary = "; ".join(f"{f['rule']} {f['est_savings_ns'] / 1e6:.2f} ms/step" for f in d["findings"])
    want = SAMPLES[script]
    if want and not fix:
        check(f"{base}: {script} yields {want}", want in rules, summary or "no findings")
    elif want and fix:
        check(f"{base}: {script} --fix does not yield {want}", want not in rules, summary)
    else:
        check(f"{base}: good prefetcher yields no must-have rule", not (rules & MUST_HAVE), summary)
        ov = [dv["overlap_fraction"] for dv in d["summary"]["devices"] if dv["overlap_fraction"] is not None]
        check(f"{base}: good prefetcher overlap near 1", ov and min(ov) >= 0.9, ov)
    if not (script == "pageable_copies.py" and not fix):
        check(f"{base}: start-up weight copies not flagged", "pageable-transfer" not in rules, summary)

if not results:
    print("1..0 # SKIP no recorded sample traces under samples/traces yet")
    sys.exit(0)
print(f"1..{len(results)}")
for i, (name, ok, detail) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} {name}")
    if detail:
        print(f"# {detail}")
sys.exit(0 if all(ok for _, ok, _ in results) else 1)
