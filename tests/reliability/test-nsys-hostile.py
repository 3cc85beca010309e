#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Nsight Systems exports made to hurt (suite `reliability`).

Usage: test-nsys-hostile.py PFPROF WORKDIR

- one 4 MB kernel name on every kernel: the import costs about what
  reading the file does (it used to cost rows x name length);
- EXPORT_SCHEMA_VERSION '-3.1', NULL, '', '3.x': refused as not a
  version, not as "newer" or "older";
- no META_DATA_EXPORT table: refused as not an nsys export.
Each refusal is exit 2 with one "pfprof: PATH: ..." line. Prints TAP.
"""
import os
import shutil
import sqlite3
import sys
import time

from reltest import check, clear_dir, connect, finish, generate, listdir_all, note, run, setup
from reltest import nsys_schema as reltest_nsys_schema


PFPROF, WORK, OUT, TMP, SRC = setup("out", "tmp", "src")
nsys_schema = reltest_nsys_schema()

rows = generate(PFPROF, os.path.join(SRC, "rows.pfprof"), "--steps", "20")
base = os.path.join(SRC, "base.sqlite")
nsys_schema.convert(rows, base)

# Every kernel named by one 4 MB string.
big_src = os.path.join(SRC, "bigname.pfprof")
shutil.copyfile(rows, big_src)
c = connect(big_src)
(kid,) = c.execute("SELECT name_id FROM kernels LIMIT 1").fetchone()
c.execute("UPDATE kernels SET name_id = ?", (kid,))
c.execute("UPDATE strings SET value = ? WHERE id = ?", ("k" * (4 << 20), kid))
(n_kernels,) = c.execute("SELECT count(*) FROM kernels").fetchone()
c.close()
big = os.path.join(SRC, "bigname.sqlite")
nsys_schema.convert(big_src, big)
r_small = run(PFPROF, ["import", base, "-o", os.path.join(OUT, "small.pfprof")], TMP)
t0 = time.monotonic()
r = run(PFPROF, ["import", big, "-o", os.path.join(OUT, "big.pfprof")], TMP)
secs = time.monotonic() - t0
note(f"{n_kernels} kernels named by one 4 MB string: import {secs:.2f} s "
     f"(the same file with short names: {r_small.secs:.2f} s)")
check("a 4 MB name on every kernel: imported", r.rc == 0 and r.err_lines == [], r.describe())
# Rows x length would be n_kernels x 4 MB of hashing: minutes. Reading
# the name once takes 0.2 s in a plain build; 10 s leaves room for ASan.
check(f"a 4 MB name on {n_kernels} kernels: import within 10 s (cost not rows x name length)",
      secs < 10, f"{secs:.1f} s")


def variant(name, sql):
    path = os.path.join(SRC, name)
    shutil.copyfile(base, path)
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(sql)
    db.close()
    return path


CASES = [
    ("schema version -3.1", "UPDATE META_DATA_EXPORT SET value = '-3.1' "
     "WHERE name = 'EXPORT_SCHEMA_VERSION';", b"not MAJOR.MINOR"),
    ("schema version NULL", "UPDATE META_DATA_EXPORT SET value = NULL "
     "WHERE name = 'EXPORT_SCHEMA_VERSION';", b"NULL"),
    ("schema version empty", "UPDATE META_DATA_EXPORT SET value = '' "
     "WHERE name = 'EXPORT_SCHEMA_VERSION';", b"not MAJOR.MINOR"),
    ("schema version 3.x", "UPDATE META_DATA_EXPORT SET value = '3.x' "
     "WHERE name = 'EXPORT_SCHEMA_VERSION';", b"not MAJOR.MINOR"),
    ("no schema version", "DELETE FROM META_DATA_EXPORT WHERE name = 'EXPORT_SCHEMA_VERSION';",
     b"no EXPORT_SCHEMA_VERSION"),
    ("no META_DATA_EXPORT", "DROP TABLE META_DATA_EXPORT;", b"no table META_DATA_EXPORT"),
]
for what, sql, needle in CASES:
    path = variant(what.replace(" ", "_") + ".sqlite", sql)
    for cmd in (["import", path, "-o", os.path.join(OUT, "x.pfprof")], ["report", path]):
        clear_dir(OUT)
        r = run(PFPROF, cmd, TMP)
        check(f"{what}: {cmd[0]} exits 2 with one line saying so", r.rc == 2
              and len(r.err_lines) == 1 and r.err_lines[0].startswith(b"pfprof: " + path.encode())
              and needle in r.err_lines[0], r.describe())
        check(f"{what}: {cmd[0]} writes nothing", listdir_all(OUT) == [])
finish()
