#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test-trace-rows.py PFPROF WORKDIR: cross-checks the C writer's format 2
against an independent decoder.

`pfprof generate` writes a format 2 trace (event chunks);
tests/pfprof_trace_rows.py (Python's sqlite3 and plain Python, no pfprof
code) decodes it; `pfprof export --format sqlite` (the C reader, then the
writer's row mode) writes the same trace as format 1 rows. Both must hold
the same tables, columns, rows, strings and meta. Prints TAP.
"""
import glob
import json
import os
import shutil
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import pfprof_trace_rows  # noqa: E402

PFPROF, WORK = sys.argv[1], sys.argv[2]
SOURCE_ROOT = sys.argv[3] if len(sys.argv) > 3 else None
EVENT_TABLES = ["kernels", "memcpys", "memsets", "syncs", "cuda_events", "api_calls", "nvtx", "memory",
                "overhead", "python_calls", "windows"]
OBJECT_TABLES = ["devices", "contexts", "streams", "threads"]
n_tests = 0
failed = 0


def ok(cond, name, detail=""):
    global n_tests, failed
    n_tests += 1
    print(f"{'ok' if cond else 'not ok'} {n_tests} {name}")
    if not cond:
        failed += 1
        print(f"# {detail}")


def run(*argv):
    p = subprocess.run([PFPROF, *argv], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        print(f"Bail out! pfprof {' '.join(argv)}: {p.stderr}")
        sys.exit(1)


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
# Two generated traces, and one the collector recorded in windows on the
# H200 (its windows and python_calls tables hold rows).
SAMPLED = os.path.join(SOURCE_ROOT, "samples", "traces", "a_pageable_sampled.pfprof") if SOURCE_ROOT else None
for plant, steps in (("all", 60), ("none", 30)) + ((("sampled", 0),) if SAMPLED and os.path.exists(SAMPLED) else ()):
    chunked = os.path.join(WORK, f"{plant}.pfprof")
    rows = os.path.join(WORK, f"{plant}-rows.sqlite")
    if steps:
        run("generate", "--steps", str(steps), "--plant", plant, "-o", chunked)
    else:
        shutil.copy(SAMPLED, chunked)
    run("export", "--format", "sqlite", "-o", rows, chunked)
    raw = sqlite3.connect(f"file:{chunked}?mode=ro", uri=True)
    version = raw.execute("SELECT value FROM meta WHERE key = 'format_version'").fetchone()[0]
    # A generated trace is of this pfprof's format; the stored sample of the one it was recorded with.
    ok((version == "2.3" if steps else version.startswith("2."))
       and raw.execute("SELECT count(*) FROM sqlite_master WHERE name = 'kernels'").fetchone()[0] == 0,
       f"{plant}: format 2 (no kernels row table)")
    py = pfprof_trace_rows.connect(chunked)
    c = sqlite3.connect(f"file:{rows}?mode=ro", uri=True)
    ok(c.execute("SELECT value FROM meta WHERE key = 'format_version'").fetchone()[0] == "1.3",
       f"{plant}: export --format sqlite writes format 1")
    counts = pfprof_trace_rows.count_events(chunked)
    total = 0
    for t in EVENT_TABLES + OBJECT_TABLES:
        cols_py = [r[1] for r in py.execute(f"PRAGMA table_info({t})")]
        cols_c = [r[1] for r in c.execute(f"PRAGMA table_info({t})")]
        ok(cols_py == cols_c and cols_c, f"{plant}: {t}: same columns", f"{cols_py} vs {cols_c}")
        rows_py = sorted(py.execute(f"SELECT * FROM {t}").fetchall())
        rows_c = sorted(c.execute(f"SELECT * FROM {t}").fetchall())
        ok(rows_py == rows_c, f"{plant}: {t}: same {len(rows_c)} rows",
           f"{len(rows_py)} vs {len(rows_c)}; first difference "
           f"{next(((a, b) for a, b in zip(rows_py, rows_c) if a != b), None)}")
        # Column sums (Python integers: SQL's sum() overflows on times).
        sums_py = [sum(col) for col in zip(*rows_py)]
        sums_c = [sum(col) for col in zip(*rows_c)]
        ok(sums_py == sums_c, f"{plant}: {t}: same column sums", f"{sums_py} vs {sums_c}")
        if t in EVENT_TABLES:
            ok(counts.get(t) == len(rows_c), f"{plant}: {t}: chunk counts add up", f"{counts.get(t)}")
            total += len(rows_c)
    ok(total > 1000, f"{plant}: a trace of some size ({total} events)")
    # Durations are stored, never negative; the kernels of the planted
    # trace really have some.
    ok(py.execute("SELECT count(*) FROM kernels WHERE dur_ns > 0").fetchone()[0] > 0
       and py.execute("SELECT min(dur_ns) FROM api_calls").fetchone()[0] >= 0,
       f"{plant}: dur_ns decoded")
    ok(sorted(py.execute("SELECT * FROM strings")) == sorted(c.execute("SELECT * FROM strings")),
       f"{plant}: same strings with the same ids")
    meta_py = dict(py.execute("SELECT key, value FROM meta"))
    meta_c = dict(c.execute("SELECT key, value FROM meta"))
    for m in (meta_py, meta_c):
        m.pop("format_version")
    ok(meta_py == meta_c, f"{plant}: same meta", f"{meta_py} vs {meta_c}")
    # The chunks' time range columns hold what the decoded rows say.
    for t, col in (("kernels", "start_ns"), ("memory", "ts_ns")):
        lo = raw.execute("SELECT min(min_ns) FROM chunks WHERE table_name = ?", (t,)).fetchone()[0]
        ok(lo == py.execute(f"SELECT min({col}) FROM {t}").fetchone()[0], f"{plant}: {t}: chunks.min_ns")
    hi = raw.execute("SELECT max(max_ns) FROM chunks WHERE table_name = 'kernels'").fetchone()[0]
    ok(hi == py.execute("SELECT max(start_ns + dur_ns) FROM kernels").fetchone()[0],
       f"{plant}: kernels: chunks.max_ns is the latest end")

# export --format sqlite refuses what it cannot do, with one line and exit
# status 2 (3 for an existing output), and leaves nothing behind.
chunked = os.path.join(WORK, "none.pfprof")
existing = os.path.join(WORK, "existing.sqlite")
with open(existing, "w") as f:
    f.write("precious")
for args, needle, code in ((["-o", "-", chunked], "needs -o FILE", 2),
                           ([chunked], "needs -o FILE", 2),
                           (["-o", os.path.join(WORK, "two.sqlite"), chunked, chunked], "takes one trace", 2),
                           (["-o", existing, chunked], "exists", 3),
                           (["-o", os.path.join(WORK, "bad.sqlite"), os.path.join(WORK, "missing.pfprof")],
                            "No such file", 2)):
    p = subprocess.run([PFPROF, "export", "--format", "sqlite", *args], capture_output=True, text=True,
                       timeout=120)
    ok(p.returncode == code and needle in p.stderr and p.stderr.count("\n") == 1,
       f"export --format sqlite {' '.join(os.path.basename(a) for a in args)}: exit {code}, '{needle}'",
       f"rc {p.returncode} {p.stderr!r}")
ok(open(existing).read() == "precious"
   and sorted(f for f in os.listdir(WORK) if f.endswith(".sqlite") or f.startswith("."))
   == sorted(["all-rows.sqlite", "existing.sqlite", "none-rows.sqlite"]
             + (["sampled-rows.sqlite"] if SAMPLED and os.path.exists(SAMPLED) else [])),
   "a refused export writes nothing and keeps the existing file", str(sorted(os.listdir(WORK))))

# Real data: the traces the collector recorded on an H200 (format 1),
# rewritten in format 2 by the writer (`pfprof import` reads any trace),
# decode to the same rows and give the same report.
def report_json(path):
    p = subprocess.run([PFPROF, "report", "-q", "--format", "json", path], capture_output=True,
                       text=True, timeout=300)
    d = json.loads(p.stdout)
    for t in d.get("traces", []):
        t.pop("path", None)
    return d


def rows_of(db, table):
    """The rows of @table, or None where the trace has no such table (a
    file written before the table existed)."""
    if db.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()[0]:
        return sorted(db.execute(f"SELECT * FROM {table}"))
    return None


def major(path):
    db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    try:
        return pfprof_trace_rows.format_major(db)
    finally:
        db.close()


samples = sorted(glob.glob(os.path.join(SOURCE_ROOT, "samples", "traces", "*.pfprof"))) if SOURCE_ROOT else []
# Format 2 as the collector wrote it on the GPU: the Python decoder and
# the C reader (export --format sqlite) agree row for row.
for sample in [s for s in samples if major(s) == 2][:2]:
    name = os.path.basename(sample)
    rows = os.path.join(WORK, "sample-rows-" + name)
    run("export", "--format", "sqlite", "-o", rows, sample)
    v2 = pfprof_trace_rows.connect(sample)
    v1 = sqlite3.connect(f"file:{rows}?mode=ro", uri=True)
    # A table the file was written without reads as empty on the other side.
    bad = [t for t in EVENT_TABLES + OBJECT_TABLES if (rows_of(v1, t) or []) != (rows_of(v2, t) or [])]
    n = sum(pfprof_trace_rows.count_events(sample).values())
    ok(not bad and n > 0, f"{name} (recorded in format 2): Python decoder and C reader agree on {n} events",
       f"tables that differ: {bad}")
for sample in [s for s in samples if major(s) == 1][:4]:
    name = os.path.basename(sample)
    chunked = os.path.join(WORK, "sample-" + name)
    run("import", sample, "-o", chunked)
    v1 = sqlite3.connect(f"file:{sample}?immutable=1", uri=True)
    v2 = pfprof_trace_rows.connect(chunked)
    same = all((rows_of(v1, t) or []) == (rows_of(v2, t) or []) for t in EVENT_TABLES)
    ok(same and pfprof_trace_rows.format_major(v2) == 2,
       f"{name}: rewritten in format 2, decodes to the recorded rows")
    ok(report_json(sample) == report_json(chunked), f"{name}: same report from format 1 and format 2")
if not samples:
    print("# no recorded samples: skipped the real-data checks")

# The decoder refuses a damaged chunk rather than inventing rows.
try:
    pfprof_trace_rows.decode_chunk(bytes([2, 2, 2, 2, 5, 2]), 2, [False, True])
    ok(False, "decoder: a column whose length holds too few values is refused")
except pfprof_trace_rows.TraceFormatError:
    ok(True, "decoder: a column whose length holds too few values is refused")
print(f"1..{n_tests}")
sys.exit(1 if failed else 0)
