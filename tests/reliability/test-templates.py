#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`pfprof report -o TEMPLATE` with values from untrusted traces (suite
`reliability`).

Usage: test-templates.py PFPROF WORKDIR

%h comes from the trace's meta.host. Whatever it holds (empty, ".",
"..", "/", "../..", control characters, invalid UTF-8, 300 bytes), the
report lands in the folder the template names, as one file whose name
has no control character and fits a file name, and nothing is written
anywhere else. Prints TAP.
"""
import os
import sqlite3
import subprocess
import sys

from reltest import check, clear_dir, connect, finish, generate, listdir_all, run, setup

PFPROF, WORK, D, TMP, SRC = setup(os.path.join("reports", "d"), "tmp", "src")
base = generate(PFPROF, os.path.join(SRC, "base.pfprof"), "--steps", "4")

HOSTS = ["", ".", "..", "/", "../..", "../../../../../../tmp", "a/b", "\x1b[31mred", "tab\there",
         "new\nline", "x" * 300, b"\xff\xfe".decode("latin-1"), "\u202e", "-rf"]
for i, host in enumerate(HOSTS):
    t = os.path.join(SRC, f"h{i}.pfprof")
    with open(base, "rb") as f, open(t, "wb") as g:
        g.write(f.read())
    c = connect(t)
    c.execute("UPDATE meta SET value = ? WHERE key = 'host'", (host,))
    c.close()
    clear_dir(os.path.join(WORK, "reports"))
    os.makedirs(D)
    before_work = listdir_all(WORK)
    r = run(PFPROF, ["report", "--format", "json", "-o", os.path.join(D, "%h.json"), t], TMP)
    names = listdir_all(D)
    check(f"host {host!r}: exit 0", r.rc in (0, 1) and r.err_lines == [], r.describe())
    check(f"host {host!r}: one file in the template's folder", len(names) == 1, str(names))
    check(f"host {host!r}: a plain name", all(len(n.encode()) <= 255 and not any(
        ord(ch) < 0x20 or ord(ch) == 0x7f for ch in n) and n not in (".json",) for n in names),
        str(names))
    check(f"host {host!r}: nothing written beside the folder or above it",
          listdir_all(os.path.join(WORK, "reports")) == ["d"] and listdir_all(WORK) == before_work
          and not os.path.exists("/.json") and not os.path.exists("/tmp.json"),
          f"{listdir_all(os.path.join(WORK, 'reports'))} {listdir_all(WORK)}")
    # %h as a folder: host ".." must not reach the parent, "" not the root.
    clear_dir(os.path.join(WORK, "reports"))
    os.makedirs(D)
    r = run(PFPROF, ["report", "--format", "json", "-o", os.path.join(D, "%h", "r.json"), t], TMP)
    check(f"host {host!r} as a folder (d/%h/r.json): written under d/ or refused, nothing else",
          listdir_all(os.path.join(WORK, "reports")) == ["d"] and listdir_all(WORK) == before_work
          and not os.path.exists("/r.json")
          and (r.rc == 2 and len(r.err_lines) == 1 or r.rc in (0, 1)), r.describe())
finish()
