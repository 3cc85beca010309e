#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/update-results.py without running a benchmark: every RESULTS
file has its generated block, the block is replaced in place with the
date, commit and figures, the prose around it kept, a file without a
block refused, pfprof-bench-report's lines read as they are printed,
and a run of some parts named apart from the full run's log.

Usage: test-update-results.py BENCH_DIR   (TAP on stdout)
"""
import importlib.util
import os
import subprocess
import sys
import tempfile

bench = sys.argv[1]
script = os.path.join(bench, "update-results.py")
spec = importlib.util.spec_from_file_location("update_results", script)
ur = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ur)
results = []


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


p = subprocess.run([sys.executable, script, "unused-build", "--check"], capture_output=True, text=True)
check("--check: every RESULTS file has its generated block", p.returncode == 0, p.stderr)

out = ("sqlite-scan       243 ms wall      150 ms cpu  10000044 rows (checksum 1)  peak 6 MiB\n"
       "load             1593 ms wall     1415 ms cpu  10000044 events  peak 517 MiB\n"
       "analyze          2488 ms wall     2143 ms cpu  96346 steps, 0 findings  peak 716 MiB\n")
ph = ur.phases(out)
check("pfprof-bench-report's lines read: wall, CPU, peak",
      ph.get("load") == (1593, 1415, 517) and ph.get("sqlite-scan") == (243, 150, 6), ph)

stamp = {"date": "2026-01-02", "commit": "abc123", "machine": "2 CPUs", "load": "0.1 0.1 0.1",
         "log": "2026-01-02-update-results.md"}
new = ur.block("report", "`trace`", [("wall", "1.00 s", "≤ 1 s")], stamp)
with tempfile.TemporaryDirectory() as d:
    f = os.path.join(d, "R.md")
    with open(f, "w") as fh:
        fh.write("before\n" + ur.BEGIN + "\nold figures\n" + ur.END + "\nafter\n")
    ur.replace_block(f, new)
    text = open(f).read()
    check("the block is replaced, the prose around it kept",
          text.startswith("before\n") and text.endswith("\nafter\n") and "old figures" not in text
          and "| wall | 1.00 s | ≤ 1 s |" in text, text)
    check("the block names the date, the commit and the log",
          "2026-01-02" in text and "`abc123`" in text and "results/2026-01-02-update-results.md" in text, text)
    g = os.path.join(d, "none.md")
    with open(g, "w") as fh:
        fh.write("no block\n")
    try:
        ur.replace_block(g, new)
        refused = False
    except SystemExit:
        refused = True
    check("a file without the block is refused, not appended to", refused and open(g).read() == "no block\n")

check("a run of some parts keeps its own log, a run of all the shared one",
      ur.part_suffix(["gui"]) == "-gui" and ur.part_suffix(["gui", "report"]) == "-report-gui"
      and ur.part_suffix(["report", "kineto", "gui"]) == "", ur.part_suffix(["gui"]))

print(f"1..{len(results)}")
for i, (name, ok, detail) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} {name}")
    if not ok:
        print("# " + str(detail).replace("\n", "\n# "))
sys.exit(0 if all(ok for _, ok, _ in results) else 1)
