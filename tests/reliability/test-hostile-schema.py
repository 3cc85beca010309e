#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Traces and Nsight Systems exports whose schema is hostile, and chunks
that claim more than they hold (suite `reliability`).

Usage: test-hostile-schema.py PFPROF WORKDIR

A table pfprof reads replaced by a view (an endless recursive CTE, a
5-way cross join), a virtual table or a table with generated columns;
one chunk row claiming 30 million records over a 30 MB blob of zeros.
Every command that reads them (report, render, export, import) must exit
2 with one "pfprof: PATH: ..." line, quickly, within a small amount of
memory, and write nothing. Prints TAP.
"""
import os
import sqlite3
import subprocess
import sys
import time

from reltest import (check, clear_dir, connect, env_for, finish, generate, listdir_all, note, setup)
from reltest import nsys_schema as reltest_nsys_schema


PFPROF, WORK, OUT, TMP, SRC = setup("out", "tmp", "src")
nsys_schema = reltest_nsys_schema()

# Seconds and peak memory a refusal may take (the sanitizer build on a
# busy machine included).
TIME_LIMIT = 60
RSS_LIMIT_MB = 600

rows = generate(PFPROF, os.path.join(SRC, "rows.pfprof"), "--steps", "8")
chunked = os.path.join(SRC, "chunked.pfprof")
subprocess.run([PFPROF, "generate", "--steps", "8", "-o", chunked], check=True, capture_output=True)
nsys = os.path.join(SRC, "nsys.sqlite")
nsys_schema.convert(rows, nsys)

ENDLESS = ("WITH RECURSIVE c(id, value) AS (SELECT 0, 'x' UNION ALL SELECT id + 1, 'x' FROM c) "
           "SELECT id, value FROM c")


def variant(name, base, sql):
    path = os.path.join(SRC, name)
    with open(base, "rb") as f, open(path, "wb") as g:
        g.write(f.read())
    c = connect(path)
    c.executescript(sql)
    c.close()
    return path


def cross_join(table, cols):
    return (f"CREATE TABLE pad(x); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
            f"WHERE i < 40) INSERT INTO pad SELECT i FROM n; DROP TABLE {table}; "
            f"CREATE VIEW {table} AS SELECT {cols} FROM pad a, pad b, pad c, pad d, pad e;")


CASES = [
    ("strings an endless recursive view (format 1)", rows,
     f"DROP TABLE strings; CREATE VIEW strings AS {ENDLESS};", b"strings is a view"),
    ("strings an endless recursive view (format 2)", chunked,
     f"DROP TABLE strings; CREATE VIEW strings AS {ENDLESS};", b"strings is a view"),
    ("strings a 5-way cross join", rows,
     cross_join("strings", "a.x * 100000000 + b.x * 1000000 + c.x * 10000 + d.x * 100 + e.x AS id,"
                " 'x' AS value"), b"strings is a view"),
    ("kernels a cross join (format 1)", rows,
     "CREATE TABLE k AS SELECT * FROM kernels; " + cross_join("kernels", "k.*").replace(
         "FROM pad a", "FROM k, pad a"), b"kernels is a view"),
    ("chunks a view", chunked,
     "ALTER TABLE chunks RENAME TO c2; CREATE VIEW chunks AS SELECT c2.* FROM c2, "
     "(" + ENDLESS + ");", b"chunks is a view"),
    ("strings with a generated column", rows,
     "DROP TABLE strings; CREATE TABLE strings (id INTEGER PRIMARY KEY, v TEXT, "
     "value TEXT GENERATED ALWAYS AS (printf('%.*c', 100000000, 'x')) VIRTUAL);"
     " INSERT INTO strings (id, v) VALUES (0, 'a'), (1, 'b');", b"generated"),
    ("nsys kernel table an endless view", nsys,
     "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME TO k2; CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS "
     "SELECT k2.* FROM k2, (" + ENDLESS + ");", b"CUPTI_ACTIVITY_KIND_KERNEL is a view"),
    ("one chunk claiming 30 million records over 30 MB of zeros", chunked,
     "INSERT INTO chunks (table_name, n, min_ns, max_ns, data) "
     "VALUES ('kernels', 30000000, 0, 0, zeroblob(30000000));", b"chunk"),
]


def run_measured(args):
    t0 = time.monotonic()
    p = subprocess.Popen([PFPROF, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env_for(TMP))
    try:
        out, err = p.communicate(timeout=TIME_LIMIT)
        timed_out = False
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        timed_out = True
    # The child is reaped by communicate(); its peak RSS is the maximum
    # over all children so far, which only grows: checked per run below.
    return p.returncode, out, err, time.monotonic() - t0, timed_out


import resource  # noqa: E402


for what, base, sql, needle in CASES:
    path = variant(what.replace(" ", "_").replace("(", "").replace(")", "") + ".db", base, sql)
    for cmd, args in (("report", ["report", path]),
                      ("render", ["render", path, "-o", os.path.join(OUT, "x.png")]),
                      ("export", ["export", path, "-o", os.path.join(OUT, "x.json")]),
                      ("import", ["import", path, "-o", os.path.join(OUT, "x.pfprof")])):
        if cmd == "import" and base != nsys:
            args = ["export", "--format", "sqlite", path, "-o", os.path.join(OUT, "x.pfprof")]
        clear_dir(OUT)
        rc, out, err, secs, timed_out = run_measured(args)
        lines = [l for l in err.split(b"\n") if l]
        rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
        detail = f"rc {rc} in {secs:.1f}s{' TIMED OUT' if timed_out else ''}; stderr {err[-400:]!r}"
        check(f"{what}: {cmd} exits 2 within {TIME_LIMIT} s", rc == 2 and not timed_out, detail)
        check(f"{what}: {cmd} says so in one line", len(lines) == 1
              and lines[0].startswith(b"pfprof: " + path.encode()) and needle in lines[0], detail)
        check(f"{what}: {cmd} writes nothing", listdir_all(OUT) == [], str(listdir_all(OUT)))
        check(f"{what}: {cmd} peak memory under {RSS_LIMIT_MB} MB (so far {rss_mb} MB)",
              rss_mb < RSS_LIMIT_MB, f"{rss_mb} MB")
    note(f"{what}: {lines[0].decode('utf-8', 'replace') if lines else ''}")
check("nothing left in TMPDIR", listdir_all(TMP) == [], str(listdir_all(TMP)))
finish()
