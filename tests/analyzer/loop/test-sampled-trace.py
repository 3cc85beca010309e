#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A trace recorded with --sample, read as a user checks it (suite
`analyzer`).

samples/traces/a_pageable_sampled.pfprof: samples/pageable_copies.py
--steps 300 under `pfprof record --sample 0.5/1.5` on the H200, 11
recording windows; the program's own timer printed a median step of
34.95 ms for that run. The report's steps lie inside the windows, its
median step is the program's, the pauses are no idle time, the ledger's
parts add up to its step, the one finding's saving is no more than the
buckets it draws on, and every API call and kernel of the two threads
that launched work (the loop's and autograd's) has its own correlation
id across the switches.

Usage: test-sampled-trace.py PFPROF SAMPLES WORKDIR   (TAP on stdout)
"""
import csv
import io
import json
import os
import sqlite3
import sys

import analyzer_tap
from analyzer_tap import check, finish

PFPROF, SAMPLES, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(WORK, exist_ok=True)
TRACE = os.path.join(SAMPLES, "a_pageable_sampled.pfprof")
PROGRAM_MEDIAN_NS = 34950000


def run(*args):
    rc, out, err = analyzer_tap.run(PFPROF, *args)
    if rc != 0:
        raise SystemExit(f"Bail out! pfprof {' '.join(args)}: {err}")
    return out


js = json.loads(run("report", "-q", "--format", "json", TRACE))
text = run("report", "-q", "--width", "1000", TRACE)
steps = [r for r in csv.DictReader(io.StringIO(run("report", "-q", "--format", "csv", TRACE)))]
rows = os.path.join(WORK, "sampled-rows.sqlite")
if os.path.exists(rows):
    os.unlink(rows)
run("export", "--format", "sqlite", "-o", rows, TRACE)
db = sqlite3.connect(rows)
windows = sorted((s, s + d) for s, d in db.execute("SELECT start_ns, dur_ns FROM windows"))
shared = [db.execute(f"SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) n FROM {table} "
                     f"WHERE correlation_id != 0 GROUP BY {key})").fetchone()[0]
          for table, key in (("api_calls", "tid, correlation_id"), ("kernels", "correlation_id"))]
api_tids = db.execute("SELECT count(DISTINCT tid) FROM api_calls").fetchone()[0]
db.close()

t = js["traces"][0]
check("the trace holds 11 recording windows, and the report says so",
      len(windows) == 11 and t["recording_windows"] == 11 and "recorded in 11 windows" in text,
      (len(windows), t["recording_windows"]))
check("each API call of both threads, and each kernel, has its own correlation id",
      api_tids == 2 and shared == [0, 0], (api_tids, shared))
check("steps across a pause or first in a window are left out, and said",
      t["steps_left_out"] >= 12 and f"{t['steps_left_out']} steps left out" in text, t["steps_left_out"])
inside = [any(a <= int(s["start_ns"]) and int(s["start_ns"]) + int(s["duration_ns"]) <= b for a, b in windows)
          for s in steps]
check("every step of the report lies inside one window", len(steps) > 40 and all(inside),
      (len(steps), inside.count(False)))
check("the median step is the program's own (34.95 ms, within 3%)",
      abs(t["step_median_ns"] - PROGRAM_MEDIAN_NS) <= 0.03 * PROGRAM_MEDIAN_NS, t["step_median_ns"])
d = js["summary"]["devices"][0]
check("the steady window is its parts, less than its span",
      0 < d["steady_ns"] < 0.6 * (d["steady_end_ns"] - d["steady_start_ns"]),
      (d["steady_ns"], d["steady_end_ns"] - d["steady_start_ns"]))
check("the pauses are no idle time: the GPU idled under 10% of the window",
      d["idle_ns"] < 0.1 * d["steady_ns"] and d["kernel_ns"] > 0.6 * d["steady_ns"], (d["idle_ns"], d["steady_ns"]))
mean = t["ledger"]["mean"]
check("the ledger's parts add up to its mean step",
      sum(v for k, v in mean.items() if k != "step_ns") == mean["step_ns"], mean)
check("the ledger's mean step is near its median (no step reaches across a pause)",
      abs(mean["step_ns"] - t["ledger"]["median"]["step_ns"]) < 0.05 * mean["step_ns"], t["ledger"])
f = [x for x in js["findings"] if x["rule"] == "pageable-transfer"]
drawn = mean["copy_exposed_pageable_compute_stream_ns"] + mean["copy_exposed_pageable_side_stream_ns"] \
    + mean["sync_copy_ns"] + mean["pageable_call_ns"] + mean["host_bound_ns"]
check("pageable-transfer is found, its saving within the buckets it draws on",
      len(f) == 1 and 0 < f[0]["est_savings_ns"] <= drawn, (f, drawn))
finish()
