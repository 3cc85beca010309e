#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pfprof-view shows the report's figures (suite `gui`, under Xvfb).

For each committed pfprof sample, what the window shows (its test mode's
report) against `pfprof report --format json` of the same trace: the
summary bar's median step, steady steps, median exposed copy and median
GPU idle; the ledger panel's mean and median step and each row; the
findings list in the report's order (largest saving first) with each
finding's severity and saving, to the precision shown, then the
evaluation phase's findings (`phase_findings`), each tagged with its
phase and saving per evaluation batch.

Usage: test-view-figures.py PFPROF PFPROF_VIEW SAMPLES WORKDIR   (TAP)
"""
import glob
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analyzer"))
import analyzer_tap  # noqa: E402
from analyzer_tap import check, finish  # noqa: E402

PFPROF, VIEW, SAMPLES, WORK = sys.argv[1:5]
os.makedirs(WORK, exist_ok=True)
UNITS = {"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9}
DUR = r"(-?[0-9.]+ (?:ns|µs|ms|s))"
SEVERITY = {"info": 0, "warning": 1, "error": 2}


def shown(text, ns):
    """Whether the duration @text ("8.06 ms") shows @ns to its precision."""
    num, unit = text.split(" ")
    decimals = len(num.split(".")[1]) if "." in num else 0
    return abs(float(num) * UNITS[unit] - ns) <= 0.5 * 10 ** -decimals * UNITS[unit] * 1.0001


def view(trace):
    """The test program's report (tests/gui/pfprof-view-test) on @trace: {key: [values]}."""
    path = os.path.join(WORK, "report.txt")
    if os.path.exists(path):
        os.unlink(path)
    env = dict(os.environ)
    if "PFPROF_VIEW_LSAN_OPTIONS" in env:
        env["LSAN_OPTIONS"] = env["PFPROF_VIEW_LSAN_OPTIONS"]
    subprocess.run([VIEW, "--report", path, trace], capture_output=True, env=env, timeout=120)
    kv = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition("=")
            kv.setdefault(key, []).append(value)
    return kv


for trace in sorted(glob.glob(os.path.join(SAMPLES, "*.pfprof"))):
    name = os.path.basename(trace)
    rc, out, err = analyzer_tap.run(PFPROF, "report", "-q", "--format", "json", trace)
    if rc != 0:
        raise SystemExit(f"Bail out! pfprof report {trace}: {err}")
    js = json.loads(out)
    steps, ledger, findings = js["summary"]["steps"], js["summary"]["ledger"], js["findings"]
    kv = view(trace)

    summary = kv.get("summary", [""])[0]
    m = re.search(r"median step " + DUR + r" \((\d+) steady steps\)", summary)
    check(f"{name}: summary bar: the report's median step and steady steps",
          m is not None and shown(m.group(1), steps["median_ns"]) and int(m.group(2)) == steps["steady"],
          (summary, steps["median_ns"], steps["steady"]))
    m = re.search(r"host runs ahead: host median step " + DUR, summary)
    check(f"{name}: summary bar: says the host runs ahead when the report does",
          (m is not None) == steps["host_ahead"] and (m is None or shown(m.group(1), steps["host_median_ns"])),
          (summary, steps["host_ahead"], steps["host_median_ns"]))
    if len(js["summary"]["devices"]) == 1 and steps["steady"] > 0:
        m = re.search(r"median exposed copy " + DUR + r" · median GPU idle " + DUR, summary)
        check(f"{name}: summary bar: the step line's median exposed copy and GPU idle",
              m is not None and shown(m.group(1), steps["median_breakdown"]["copy_exposed_ns"])
              and shown(m.group(2), steps["median_breakdown"]["idle_ns"]),
              (summary, steps["median_breakdown"]))

    if ledger["steps"] > 0:
        text = kv.get("ledger", [""])[0]
        head = re.search(r"mean step " + DUR + ", median step " + DUR, text)
        check(f"{name}: ledger panel: the report's mean and median step",
              head is not None and shown(head.group(1), ledger["mean"]["step_ns"])
              and shown(head.group(2), ledger["median"]["step_ns"]),
              (text[:200], ledger["mean"]["step_ns"], ledger["median"]["step_ns"]))
        rows = re.findall(r"([^\t]+?)\t" + DUR + r"\t[0-9.]+%\t" + DUR, text.split("claims it. ", 1)[-1])
        bad = [r for r in rows
               if not any(shown(r[1], ledger["mean"][k]) and shown(r[2], ledger["median"][k])
                          for k in ledger["mean"] if k != "step_ns")]
        check(f"{name}: ledger panel: each row is a bucket's mean and median", rows and bad == [],
              bad or text[:300])

    rows = kv.get("finding_row", [])
    phase = js.get("phase_findings", [])
    got = [r.split(" · ")[:2] for r in rows]
    want = ([[f["severity"], f["rule"]] for f in findings]
            + [[f"[{f['phase']}] {f['severity']}", f["rule"]] for f in phase])
    check(f"{name}: findings list: the report's findings in its order, then the evaluation phase's",
          got == want, (got, want))
    savings = [re.search(r"saves ~" + DUR + " per mean step", r) for r in rows[:len(findings)]]
    check(f"{name}: findings list: each finding's saving per mean step",
          all(s is not None and shown(s.group(1), f["est_savings_ns"]) for s, f in zip(savings, findings)),
          rows)
    if phase:
        savings = [re.search(r"saves ~" + DUR + " per mean evaluation batch", r) for r in rows[len(findings):]]
        check(f"{name}: findings list: each evaluation finding's saving per mean evaluation batch",
              all(s is not None and shown(s.group(1), f["est_savings_ns"]) for s, f in zip(savings, phase)),
              rows[len(findings):])

finish()
