#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Traces of different runs given together (suite `analyzer`).

`pfprof report A B` pools its traces into one run: one step median, one
headline. Traces that are not of one run (analyzer/model/pfprof-run-match.h) are
refused with one line that names both files and what tells them apart,
exit 2, by report, export, render and each side of diff; the ranks of one
run, with their per-rank command-line arguments and on several hosts,
stay one run, and its headline names the rank its idle figure is for.
Uses the recorded samples and copies of them whose metadata is edited.

Usage: test-run-match.py PFPROF SAMPLES WORKDIR   (TAP on stdout)
"""
import json
import os
import shutil
import sqlite3
import sys

import analyzer_tap
from analyzer_tap import check, finish

PFPROF, SAMPLES, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(WORK, exist_ok=True)


def run(*args):
    return analyzer_tap.run(PFPROF, *args)


def sample(name):
    return os.path.join(SAMPLES, name + ".pfprof")


def edited(name, out, **meta):
    """A copy of sample @name with meta keys set (None: removed)."""
    path = os.path.join(WORK, out + ".pfprof")
    shutil.copyfile(sample(name), path)
    db = sqlite3.connect(path)
    for k, v in meta.items():
        db.execute("DELETE FROM meta WHERE key = ?", (k,))
        if v is not None:
            db.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (k, str(v)))
    db.commit()
    db.close()
    return path


def meta(name, key):
    db = sqlite3.connect(f"file:{sample(name)}?mode=ro", uri=True)
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    db.close()
    return row[0] if row else None


def refused(name, args, a, b, why):
    rc, out, err = run(*args)
    check(name, rc == 2 and out == "" and err.count("\n") == 1 and a in err and b in err
          and why in err and "not of one run" in err, (rc, err))


pageable, slow = sample("a_pageable"), sample("e_slow_loader")
r0, r1 = sample("g_ddp_slow_rank0"), sample("g_ddp_slow_rank1")

# Two programs: refused by every command that analyses, before any output.
refused("report: two programs refused", ("report", pageable, slow), pageable, slow,
        "command lines differ")
refused("report --format json: two programs refused", ("report", "--format", "json", pageable, slow),
        pageable, slow, "command lines differ")
refused("export: two programs refused", ("export", pageable, slow), pageable, slow,
        "command lines differ")
png = os.path.join(WORK, "mixed.png")
refused("render: two programs refused", ("render", "-f", "-o", png, pageable, slow), pageable,
        slow, "command lines differ")
check("render: no image left", not os.path.exists(png))
refused("diff: a side of two programs refused", ("diff", f"{pageable},{slow}", r0), pageable, slow,
        "command lines differ")
# One trace per side is what diff compares: two runs are its purpose.
rc, out, err = run("diff", pageable, slow)
check("diff of two programs, one each side: fine", rc == 0 and "Verdict" in out, err)

# The ranks of one run: one run, one headline naming its rank.
rc, out, err = run("report", r0, r1)
check("two ranks of one run: one report", rc == 0 and "2 traces" in out, err)
check("headline names the rank its idle figure is for",
      "The GPU of rank " in out and "(the most idle of 2 traces) idled" in out, out[:600])
rc, out, err = run("report", "--format", "json", r0, r1)
headline = json.loads(out)["summary"].get("headline") if rc == 0 else None
check("JSON headline names the rank", (headline or "").startswith("The GPU of rank "), headline)
rc, out, err = run("report", sample("h_hosts_rank0"), sample("h_hosts_rank1"))
check("two hosts' ranks of one run: one report", rc == 0, err)
rc, out, err = run("report", slow)
check("one trace: the headline says 'The GPU'", rc == 0 and "The GPU idled" in out, out[:400])

# What tells runs apart, one key at a time, on copies of rank 1.
cmd = meta("g_ddp_slow_rank1", "command_line")
start = int(meta("g_ddp_slow_rank1", "clock_start_realtime_ns"))
end = int(meta("g_ddp_slow_rank1", "clock_end_realtime_ns"))
hour = 3600 * 10**9
later = edited("g_ddp_slow_rank1", "later", clock_start_realtime_ns=start + hour,
               clock_end_realtime_ns=end + hour)
refused("the same command an hour later: refused", ("report", r0, later), r0, later,
        "recorded at different times")
near = edited("g_ddp_slow_rank1", "near", clock_start_realtime_ns=start + 5 * 10**9,
              clock_end_realtime_ns=end + 5 * 10**9)
rc, out, err = run("report", r0, near)
check("overlapping recordings: one run", rc == 0, err)
other_host = edited("g_ddp_slow_rank1", "other-host", host="node-b",
                    clock_start_realtime_ns=end + 30 * 10**9, clock_end_realtime_ns=end + 40 * 10**9)
rc, out, err = run("report", r0, other_host)
check("another host's clock 30 s off: one run", rc == 0, err)
job = edited("g_ddp_slow_rank1", "job", launcher_job_id="slurm:41.0")
job0 = edited("g_ddp_slow_rank0", "job0", launcher_job_id="slurm:40.0")
refused("launcher job ids differ: refused", ("report", job0, job), job0, job, "launcher job ids")
same_job = edited("g_ddp_slow_rank0", "same-job", launcher_job_id="slurm:41.0")
rc, out, err = run("report", same_job, job)
check("the same launcher job id: one run", rc == 0, err)
world = edited("g_ddp_slow_rank1", "world", world_size=4)
refused("world sizes differ: refused", ("report", r0, world), r0, world, "world sizes differ")
twice = edited("g_ddp_slow_rank1", "twice", rank=0)
refused("the same rank twice: refused", ("report", r0, twice), r0, twice, "same rank")
local = edited("g_ddp_slow_rank1", "local", command_line=cmd + " --local-rank=1")
local0 = edited("g_ddp_slow_rank0", "local0", command_line=cmd + " --local-rank=0")
rc, out, err = run("report", local0, local)
check("--local-rank arguments differ: one run", rc == 0, err)
no_cmd = edited("g_ddp_slow_rank1", "no-cmd", command_line=None)
rc, out, err = run("report", r0, no_cmd)
check("a key one trace lacks decides nothing", rc == 0, err)

# Per-rank JSON results merge as the traces do: two runs' ranks refused.
results = []
for name, src in (("res0", sample("g_ddp_slow_rank0")), ("res1", sample("g_ddp_slow_rank1")),
                  ("res-other", edited("g_ddp_slow_rank1", "other-prog", command_line="python3 other.py"))):
    path = os.path.join(WORK, name + ".json")
    rc, out, err = run("report", "--format", "json", "-q", "--force", "-o", path, src)
    results.append(path)
rc, out, err = run("report", results[0], results[1])
check("results of the two ranks of one run: merged", rc == 0 and "2 ranks" in out, err)
refused("results of two programs' ranks: refused", ("report", results[0], results[2]), results[0],
        results[2], "command lines differ")

finish()
