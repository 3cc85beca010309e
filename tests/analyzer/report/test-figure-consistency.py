#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every format shows the same figures (suite `analyzer`).

For each committed sample trace (samples/traces/*.pfprof and the
torch.profiler traces in samples/traces/kineto/), as a user compares them:
the median step and the median of each part, the ledger's mean and median
step and each bucket, each finding's severity and saving and the order of
the findings agree between text, Markdown, HTML, JSON, CSV and CSV
findings to the precision shown, and `pfprof diff` of each sample and its
recorded fix shows each side's median step and parts as its report does; the ledger's buckets sum to its step;
no finding saves more than the mean ledger buckets it comes out of
(docs/report-format.md); the findings come largest saving first, their
severity never rising as the saving falls.

Usage: test-figure-consistency.py PFPROF SAMPLES   (TAP on stdout)
"""
import csv
import glob
import html
import io
import json
import os
import re
import statistics
import sys

import analyzer_tap
from analyzer_tap import check, finish

PFPROF, SAMPLES = sys.argv[1], sys.argv[2]

# The ledger's rows as the reports label them (docs/report-format.md).
LABELS = {
    "copy hidden behind kernels": "copy_hidden_ns",
    "compute": "compute_ns",
    "communication (NCCL)": "comm_ns",
    "copy exposed: pageable, compute": "copy_exposed_pageable_compute_stream_ns",
    "copy exposed: pageable, side": "copy_exposed_pageable_side_stream_ns",
    "copy exposed: pinned, compute": "copy_exposed_pinned_compute_stream_ns",
    "copy exposed: pinned, side": "copy_exposed_pinned_side_stream_ns",
    "other GPU work (memset, DtoD)": "gpu_other_ns",
    "idle: DataLoader wait": "data_wait_ns",
    "idle: sync of a blocking copy": "sync_copy_ns",
    "idle: cudaStreamSynchronize": "sync_stream_ns",
    "idle: cudaDeviceSynchronize": "sync_device_ns",
    "idle: cudaEventSynchronize": "sync_event_ns",
    "idle: allocator (malloc/free)": "alloc_ns",
    "idle: host in pageable copies": "pageable_call_ns",
    "idle: host busy, nothing queued": "host_bound_ns",
    "idle: other (work queued)": "other_idle_ns",
}
EXPOSED = ["copy_exposed_pageable_compute_stream_ns", "copy_exposed_pageable_side_stream_ns",
           "copy_exposed_pinned_compute_stream_ns", "copy_exposed_pinned_side_stream_ns"]
PINNED = ["copy_exposed_pinned_compute_stream_ns", "copy_exposed_pinned_side_stream_ns"]
SIDE = ["copy_exposed_pageable_side_stream_ns", "copy_exposed_pinned_side_stream_ns"]
# The buckets each rule's saving comes out of (the table "Findings and the
# ledger" in docs/report-format.md); rank-imbalance is not capped.
SOURCES = {
    "input-starved": ["data_wait_ns", "host_bound_ns", "other_idle_ns"],
    "pageable-transfer": ["copy_exposed_pageable_compute_stream_ns", "copy_exposed_pageable_side_stream_ns",
                          "sync_copy_ns", "pageable_call_ns", "host_bound_ns"],
    "serialized-copy": PINNED + ["sync_copy_ns", "host_bound_ns"],
    "record-stream-stall": ["alloc_ns", "sync_event_ns", "host_bound_ns", "other_idle_ns"] + PINNED,
    "late-prefetch": SIDE + ["other_idle_ns"],
    "sync-in-loop": ["data_wait_ns", "sync_stream_ns", "sync_device_ns", "host_bound_ns"],
    "host-bound": ["host_bound_ns"],
    "small-transfers": EXPOSED + ["host_bound_ns"],
    "pinned-alloc-in-loop": ["alloc_ns", "data_wait_ns", "host_bound_ns"],
}
PARTS = ["data wait", "copy exposed", "copy hidden", "compute", "sync wait", "GPU idle"]
PART_KEYS = ["data_wait_ns", "copy_exposed_ns", "copy_hidden_ns", "compute_ns", "sync_wait_ns", "idle_ns"]
SEVERITY = {"info": 0, "warning": 1, "error": 2}
UNITS = {"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9}
DUR = r"(-?[0-9.]+ (?:ns|µs|ms|s))"


def shown(text, ns):
    """Whether the duration @text ("8.06 ms") shows @ns to its precision."""
    num, unit = text.split(" ")
    decimals = len(num.split(".")[1]) if "." in num else 0
    half = 0.5 * 10 ** -decimals * UNITS[unit]
    return abs(float(num) * UNITS[unit] - ns) <= half * 1.0001


def report(fmt, trace):
    rc, out, err = analyzer_tap.run(PFPROF, "report", "-q", "--format", fmt, "--width", "1000", trace)
    if rc != 0:
        raise SystemExit(f"Bail out! pfprof report --format {fmt} {trace}: {err}")
    return out


def step_line(text):
    """(median step, {part: value}) of the step line, or None."""
    m = re.search(r"after warm-up, median " + DUR + r" \(p10", text)
    if m is None:
        return None
    parts = {}
    for part in PARTS:
        p = re.search(r"(?:: |, )" + re.escape(part) + " " + DUR + r"[,.]", text[m.end():])
        parts[part] = p.group(1) if p else None
    return m.group(1), parts


def ledger_rows(rows):
    """{key: (mean, median)} of ledger rows given as (label, mean, share, median)."""
    out = {}
    for label, mean, _share, median in rows:
        if label in LABELS:
            out[LABELS[label]] = (mean.strip(), median.strip())
    return out


def text_view(out):
    head = re.search(r"mean step " + DUR + ", median step " + DUR, out)
    rows = re.findall(r"^  (\S.*?)\s+" + DUR + r"\s+([0-9.]+%)\s+" + DUR + "$", out, re.M)
    findings = re.findall(r"^\d+\. \[(\w+)\] (\S+)\n\s+Saves ~" + DUR + " per mean step", out, re.M)
    return head, ledger_rows(rows), [(s, r, v) for s, r, v in findings]


def markdown_view(out):
    head = re.search(r"mean step " + DUR + ", median step " + DUR, out)
    rows = re.findall(r"^\| (.*?) \| " + DUR + r" \| ([0-9.]+%) \| " + DUR + r" \|$", out, re.M)
    findings = re.findall(r"^### (\w+) `(\S+)`.*\n\nEstimated: \*\*saves ~" + DUR + " per mean step", out, re.M)
    return head, ledger_rows([(html.unescape(a.replace("\\", "")), b, c, d) for a, b, c, d in rows]), \
        [(s.lower(), r, v) for s, r, v in findings]


def html_view(out):
    plain = html.unescape(re.sub(r"<[^>]*>", "", out))
    head = re.search(r"mean step " + DUR + ", median step " + DUR, plain)
    rows = re.findall(r"<tr><td>([^<]*)</td><td>" + DUR + r"</td><td>([0-9.]+%)</td><td>" + DUR + "</td></tr>", out)
    findings = re.findall(r'<span class="sev">(\w+)</span> <code>([^<]+)</code> saves ~' + DUR + " per mean step", out)
    return head, ledger_rows([(html.unescape(a), b, c, d) for a, b, c, d in rows]), findings


def steady_csv(out):
    """The steady steps of the per-step CSV, each a dict of ints."""
    rows = list(csv.DictReader(io.StringIO(out)))
    return [{k: int(v) for k, v in r.items() if k.endswith("_ns")} for r in rows
            if r["warmup"] == "0" and r["phase"] == "training"]


traces = sorted(glob.glob(os.path.join(SAMPLES, "*.pfprof")) + glob.glob(os.path.join(SAMPLES, "kineto", "*.json.gz")))
check("samples: traces found", len(traces) > 40, len(traces))

for trace in traces:
    name = os.path.relpath(trace, SAMPLES)
    js = json.loads(report("json", trace))
    steps = js["summary"]["steps"]
    ledger = js["summary"]["ledger"]
    findings = js["findings"]

    # A finding that names the mean step names the ledger's (training
    # findings: the trace's ledger; an evaluation phase's: its batches').
    for f in findings + js.get("phase_findings", []):
        t = js["traces"][f["evidence"][0]["trace"] if f.get("evidence") else 0]
        basis = (t["phases"].get("evaluation_batch_ledger") or {}).get("mean", {}).get("step_ns") \
            if f.get("phase") == "evaluation" else t["ledger"]["mean"]["step_ns"]
        for m in re.finditer(r"\(mean step " + DUR + r", median step", f["message"]):
            check(f"{name}: {f['rule']} ({f.get('phase', 'training')}): its mean step is the ledger's",
                  basis is not None and shown(m.group(1), basis), (m.group(1), basis))

    # The step line: the median step and the median of each part.
    text = report("text", trace)
    steady = steady_csv(report("csv", trace))
    if steady:
        check(f"{name}: CSV's steady steps give JSON's median step",
              statistics.median_low([s["duration_ns"] for s in steady]) <= steps["median_ns"]
              <= statistics.median_high([s["duration_ns"] for s in steady]),
              (steps["median_ns"], len(steady)))
        for key in PART_KEYS:
            values = sorted(s[key] for s in steady)
            check(f"{name}: CSV's steady steps give JSON's median {key}",
                  values[(len(values) - 1) // 2] <= steps["median_breakdown"][key] <= values[len(values) // 2],
                  (steps["median_breakdown"][key], values[(len(values) - 1) // 2], values[len(values) // 2]))
    for fmt in ("text", "markdown", "html"):
        out = text if fmt == "text" else report(fmt, trace)
        plain = html.unescape(re.sub(r"<[^>]*>", "", out)) if fmt == "html" else out
        line = step_line(plain)
        if steps["steady"] == 0:
            continue
        check(f"{name}: {fmt}: has the step line", line is not None, plain[:800])
        if line is None:
            continue
        median, parts = line
        ahead = re.search(r"The host runs ahead of the GPU: its median step took " + DUR, plain)
        check(f"{name}: {fmt}: says the host runs ahead when JSON does, with its host median step",
              (ahead is not None) == steps["host_ahead"]
              and (ahead is None or shown(ahead.group(1), steps["host_median_ns"])),
              (ahead and ahead.group(0), steps["host_ahead"], steps["host_median_ns"]))
        check(f"{name}: {fmt}: median step is JSON's", shown(median, steps["median_ns"]), (median, steps["median_ns"]))
        # Parts within their whole: the median step is the GPU side the
        # parts are measured over, whether or not the host runs ahead.
        over = [k for k in ("copy_exposed_ns", "copy_hidden_ns", "compute_ns", "idle_ns")
                if steps["median_breakdown"][k] > steps["median_ns"]]
        check(f"{name}: {fmt}: no median part exceeds the median step", over == [],
              (over, steps["median_ns"], steps["median_breakdown"]))
        for part, key in zip(PARTS, PART_KEYS):
            check(f"{name}: {fmt}: median {part} is JSON's",
                  parts[part] is not None and shown(parts[part], steps["median_breakdown"][key]),
                  (parts[part], steps["median_breakdown"][key]))

        # The ledger: heading, rows, and its buckets summing to its step.
        view = {"text": text_view, "markdown": markdown_view, "html": html_view}[fmt](out)
        head, rows, shown_findings = view
        if ledger["steps"] > 0:
            check(f"{name}: {fmt}: ledger's mean and median step are JSON's",
                  head is not None and shown(head.group(1), ledger["mean"]["step_ns"])
                  and shown(head.group(2), ledger["median"]["step_ns"]),
                  (head and head.group(0), ledger["mean"]["step_ns"], ledger["median"]["step_ns"]))
            bad = [(k, v, ledger["mean"][k], ledger["median"][k]) for k, v in rows.items()
                   if not (shown(v[0], ledger["mean"][k]) and shown(v[1], ledger["median"][k]))]
            check(f"{name}: {fmt}: each ledger row is JSON's mean and median", rows and bad == [], bad or out[:300])
            # A bucket under a microsecond on both bases has no row.
            missing = [k for k in LABELS.values()
                       if max(ledger["mean"][k], ledger["median"][k]) >= 1000 and k not in rows]
            check(f"{name}: {fmt}: every bucket of a microsecond or more has its row", missing == [], missing)

        # Findings: the same ones, in the same order, with the same saving
        # (the text folds the immaterial ones into one line at the end).
        want = [(f["severity"], f["rule"], f["est_savings_ns"]) for f in findings
                if f["material"] or fmt != "text"]
        got = [(s, r) for s, r, _ in shown_findings]
        check(f"{name}: {fmt}: the material findings in JSON's order", got == [(s, r) for s, r, _ in want],
              (got, want))
        check(f"{name}: {fmt}: each finding's saving is JSON's",
              all(shown(v, w[2]) for (_, _, v), w in zip(shown_findings, want)),
              (shown_findings, want))

    if ledger["steps"] > 0:
        check(f"{name}: JSON's median step is the ledger's median step (one step set)",
              steps["median_ns"] == ledger["median"]["step_ns"], (steps["median_ns"], ledger["median"]))
        check(f"{name}: JSON says the host runs ahead exactly when its median step is over 5% shorter",
              steps["host_ahead"] == (steps["median_ns"] * 20 > steps["host_median_ns"] * 21 > 0),
              (steps["host_ahead"], steps["median_ns"], steps["host_median_ns"]))
    for kind in ("mean", "median"):
        total = sum(ledger[kind][k] for k in LABELS.values())
        check(f"{name}: the {kind} ledger's buckets sum to its step", total == ledger[kind]["step_ns"],
              (total, ledger[kind]["step_ns"]))
        over = [k for k in LABELS.values() if ledger[kind][k] > ledger[kind]["step_ns"]]
        check(f"{name}: no {kind} ledger bucket exceeds its step", over == [], over)

    # Each finding saves no more than the buckets it comes out of, and the
    # findings come largest saving first.
    for f in findings:
        if f["rule"] in SOURCES and f["saving_basis"] == "mean_step":
            cap = sum(ledger["mean"][k] for k in SOURCES[f["rule"]])
            check(f"{name}: {f['rule']} saves no more than its buckets",
                  f["est_savings_ns"] <= cap + 1, (f["est_savings_ns"], cap))
    savings = [f["est_savings_ns"] for f in findings]
    check(f"{name}: findings by saving, largest first", savings == sorted(savings, reverse=True), savings)
    severities = [SEVERITY[f["severity"]] for f in findings if f["material"]]
    check(f"{name}: severity never rises as the saving falls", severities == sorted(severities, reverse=True),
          [(f["rule"], f["severity"], f["saving_share"]) for f in findings])
    rows = list(csv.DictReader(io.StringIO(report("csv-findings", trace))))
    check(f"{name}: CSV findings: JSON's findings, order, severity and saving",
          [(r["rule"], r["severity"], int(r["est_savings_ns"])) for r in rows if r["phase"] != "evaluation"]
          == [(f["rule"], f["severity"], f["est_savings_ns"]) for f in findings],
          ([(r["rule"], r["severity"]) for r in rows], [(f["rule"], f["severity"]) for f in findings]))
    # An evaluation phase judged on its own: its findings after, each
    # within its buckets of the evaluation batches' ledger.
    apart = js.get("phase_findings", [])
    check(f"{name}: CSV findings: the evaluation rows are JSON's phase_findings",
          [(r["rule"], r["severity"], int(r["est_savings_ns"])) for r in rows if r["phase"] == "evaluation"]
          == [(f["rule"], f["severity"], f["est_savings_ns"]) for f in apart],
          [(r["rule"], r["phase"]) for r in rows])
    for t in js["traces"]:
        if not t["phases"].get("evaluation_judged"):
            continue
        batch = t["phases"]["evaluation_batch_ledger"]
        mine = [f for f in apart if f["evidence"] == [] or f["evidence"][0]["trace"] == t["index"]]
        for f in mine:
            if f["rule"] in SOURCES and f["saving_basis"] == "mean_evaluation_batch":
                cap = sum(batch["mean"][k] for k in SOURCES[f["rule"]])
                check(f"{name}: evaluation {f['rule']} saves no more than its buckets of the batches' ledger",
                      f["est_savings_ns"] <= cap + 1, (f["est_savings_ns"], cap))
        total = sum(batch["mean"][k] for k in LABELS.values())
        check(f"{name}: the evaluation batches' mean ledger sums to its batch", total == batch["mean"]["step_ns"],
              (total, batch["mean"]["step_ns"]))
        savings = [f["est_savings_ns"] for f in mine]
        check(f"{name}: evaluation findings by saving, largest first", savings == sorted(savings, reverse=True),
              savings)

# `pfprof diff` of each sample and its recorded fix: each side's median
# step and median parts are that trace's report's, in JSON and as shown.
DIFF_ROWS = [("median step", "step_ns")] + list(zip(PARTS, PART_KEYS))
fixes = [(t, t.replace(".pfprof", "_fix.pfprof")) for t in traces if t.endswith(".pfprof")]
fixes += [(t, re.sub(r"(\.stack)?\.pt\.trace\.json\.gz$", "_fix.pt.trace.json.gz", t))
          for t in traces if t.endswith(".json.gz") and "_fix." not in t]
fixes = [(b, a) for b, a in fixes if os.path.exists(a)]
check("samples: fix pairs found", len(fixes) > 20, len(fixes))
for before, after in fixes:
    name = os.path.relpath(before, SAMPLES)
    rc, out, err = analyzer_tap.run(PFPROF, "diff", "--format", "json", before, after)
    rc2, text, err2 = analyzer_tap.run(PFPROF, "diff", before, after)
    if rc != 0 or rc2 != 0:
        raise SystemExit(f"Bail out! pfprof diff {before} {after}: {err}{err2}")
    d = json.loads(out)
    shown_rows = {label: (b, a) for label, b, a in
                  re.findall(r"^  (median step|" + "|".join(PARTS) + r")\s+" + DUR + r"\s+" + DUR, text, re.M)}
    for side, trace, col in (("before", before, 0), ("after", after, 1)):
        js = json.loads(report("json", trace))
        steps = js["summary"]["steps"]
        want = dict(steps["median_breakdown"], step_ns=steps["median_ns"])
        got = d[side]["median"]
        check(f"diff {name}: {side}: JSON's median step and parts are the report's",
              all(got[k] == want[k] for _, k in DIFF_ROWS), (got, want))
        bad = [(label, shown_rows.get(label)) for label, k in DIFF_ROWS
               if label not in shown_rows or not shown(shown_rows[label][col], got[k])]
        check(f"diff {name}: {side}: text shows JSON's median step and parts", bad == [], bad)
        check(f"diff {name}: {side}: JSON says the host runs ahead as the report does, with its host median",
              d[side]["host_ahead"] == steps["host_ahead"] and d[side]["host_median_ns"] == steps["host_median_ns"],
              (d[side]["host_ahead"], steps["host_ahead"]))
        note = re.search(r"^  note: " + side + r": the host runs ahead of the GPU \(its median step took " + DUR,
                         text, re.M)
        check(f"diff {name}: {side}: text says the host runs ahead when the report does",
              (note is not None) == steps["host_ahead"]
              and (note is None or shown(note.group(1), steps["host_median_ns"])), (note, steps["host_ahead"]))
        over = [k for k in ("copy_exposed_ns", "copy_hidden_ns", "compute_ns", "idle_ns") if got[k] > got["step_ns"]]
        check(f"diff {name}: {side}: no median part exceeds the median step", over == [], (over, got))
        rules = {f["rule"] for f in js["findings"]}
        side_rules = {f["rule"] for f in d["findings"]
                      if f["status"] in (("resolved", "unchanged") if side == "before" else ("new", "unchanged"))}
        check(f"diff {name}: {side}: the findings are the report's", side_rules == rules, (side_rules, rules))

finish()
