#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""call_summary.py MANIFEST: the table record-call.sh prints last.

MANIFEST: one tab-separated line per run: name, group, kind (pfprof, bare,
kineto, kineto-stack), sample, fix (0/1), rc, seconds, trace (a file or a
folder, '-' for none), log, report (pfprof report JSON, '-' for none).
Prints one row per run (result, the program's median/mean step, the trace,
pfprof's findings), then per sample the step times side by side."""
import json
import os
import re
import sys

STEP = re.compile(r"median step ([0-9.]+) ms, mean ([0-9.]+) ms")


def steps(log):
    try:
        text = open(log, errors="replace").read()
    except OSError:
        return []
    return [(float(a), float(b)) for a, b in STEP.findall(text)]


def last_line(log, prefix):
    try:
        for line in reversed(open(log, errors="replace").read().splitlines()):
            if line.startswith(prefix):
                return line
    except OSError:
        pass
    return ""


def size_of(path):
    if path == "-" or not os.path.exists(path):
        return None
    if os.path.isdir(path):
        files = [os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs]
        return len(files), sum(os.path.getsize(f) for f in files)
    return 1, os.path.getsize(path)


def findings(report):
    if report == "-" or not os.path.exists(report):
        return "-"
    try:
        d = json.load(open(report))
    except (OSError, ValueError):
        return "report unreadable"
    fs = d.get("findings", [])
    if not fs:
        return "no finding"
    return ", ".join(f"{f.get('rule')}({f.get('severity', '?')[0]}) {f.get('est_savings_ns', 0) / 1e6:.2f}ms"
                     for f in fs[:4])


def main():
    rows = []
    for line in open(sys.argv[1]):
        p = line.rstrip("\n").split("\t")
        if len(p) >= 10:
            rows.append(p)
    print(f"{'RUN':<36} {'RC':>4} {'SECS':>5} {'RESULT':<6} {'MEDIAN/MEAN ms':<17} {'TRACE':<16} FINDINGS / NOTE")
    table = {}
    for name, group, kind, sample, fix, rc, secs, trace, log, report in rows:
        st = steps(log)
        sz = size_of(trace)
        skip = rc == "77" or "SKIP:" in last_line(log, "SKIP:")
        if rc == "budget":
            print(f"{name:<36} {'-':>4} {'-':>5} {'SKIP':<6} {'-':<17} {'-':<16} not started: the time budget was spent")
            continue
        if rc == "dry":
            result = "dry"
        elif skip:
            result = "SKIP"
        elif rc in ("124", "137"):
            result = "TIMEOUT"
        elif rc != "0":
            result = "FAIL"
        elif kind != "bare" and sz is None:
            result = "FAIL"
        else:
            result = "ok"
        stxt = " ".join(f"{a:.2f}/{b:.2f}" for a, b in st[:2]) or "-"
        ttxt = "-" if sz is None else (f"{sz[1] / 2**20:.1f}MiB" + (f" ({sz[0]} files)" if sz[0] != 1 else ""))
        if skip:
            note = last_line(log, "SKIP:")[:80]
        elif result not in ("ok", "dry"):
            try:
                note = "log: " + (open(log, errors="replace").read().strip().splitlines() or [""])[-1][:100]
            except OSError:
                note = "no log"
        elif kind.startswith("kineto"):
            note = last_line(log, "torch_profile: ").replace("torch_profile: ", "")[:90]
        else:
            note = findings(report)
        print(f"{name:<36} {rc:>4} {secs:>5} {result:<6} {stxt:<17} {ttxt:<16} {note}")
        if st:
            table.setdefault(sample, {})[(kind, fix)] = st[0]
    print()
    print("Step times by sample, median/mean ms (program's own timer; kineto runs time fewer steps):")
    kinds = ["bare", "pfprof", "kineto", "kineto-stack"]
    print(f"{'SAMPLE':<28} " + " ".join(f"{k + (' fix' if f == '1' else ''):<16}" for k in kinds for f in "01"))
    for sample, t in table.items():
        cells = []
        for k in kinds:
            for f in "01":
                v = t.get((k, f))
                cells.append(f"{v[0]:.2f}/{v[1]:.2f}" if v else "-")
        print(f"{sample:<28} " + " ".join(f"{c:<16}" for c in cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
