#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/work-budget.py: the committed budgets hold for this build, and a
case that does more work than its budget allows fails the check.

    test-work-budget.py SOURCE_ROOT PFPROF
"""
import json
import os
import subprocess
import sys
import tempfile

root, pfprof = sys.argv[1], sys.argv[2]
script = os.path.join(root, "bench", "work-budget.py")
failed = 0


def run(*args):
    r = subprocess.run([sys.executable, script, pfprof] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return r.returncode, r.stdout


def check(name, ok, detail=""):
    global failed
    print(("ok: " if ok else "FAIL: ") + name + ("" if ok else "\n" + detail))
    failed |= not ok


rc, out = run()
if rc == 77:
    print(out.strip())
    sys.exit(77)
check("the committed budgets hold", rc == 0 and "ok: every case" in out, out)

with open(os.path.join(root, "bench", "work-budget.json")) as fh:
    budget = json.load(fh)
with tempfile.TemporaryDirectory() as tmp:
    # A planted regression: the budget of one case at two thirds of what
    # it costs today stands for a change that made it 50% more work.
    budget["cases"]["report-json"] = budget["cases"]["report-json"] * 2 // 3
    planted = os.path.join(tmp, "budget.json")
    with open(planted, "w") as fh:
        json.dump(budget, fh)
    rc, out = run("--budget", planted, "--only", "report-json")
    check("50% more work fails the check", rc == 1 and "over budget: report-json" in out, out)
    rc, out = run("--budget", planted, "--only", "report-json", "--update")
    with open(planted) as fh:
        updated = json.load(fh)["cases"]["report-json"]
    check("--update writes what was measured",
          rc == 0 and updated > budget["cases"]["report-json"], out)
sys.exit(1 if failed else 0)
