#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""SIGINT, SIGTERM and SIGHUP in the middle of a command leave no
temporary file (suite `reliability`).

Usage: test-signals.py PFPROF WORKDIR

Each command that writes a file (export as JSON and as SQLite, import,
generate, render, report -o) and `report` of an unfinished (WAL) trace,
which reads a private copy in TMPDIR, is sent a signal as soon as its
temporary file exists. It must die of that signal, leave the output
folder as it was (an existing file given with --force unchanged) and
TMPDIR empty. A stray -wal too small to hold a page must not make the
reader copy the trace at all. Prints TAP.
"""
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

from reltest import (check, clear_dir, env_for, file_digest, finish, listdir_all, note, setup)
from reltest import nsys_schema as reltest_nsys_schema


PFPROF, WORK, OUT, TMP, SRC = setup("out", "tmp", "src")
# A signal ignored when a program starts stays ignored (nohup relies on
# it), so under nohup the commands would rightly sit through SIGHUP: give
# them the default dispositions a terminal's job gets.
for _sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(_sig, signal.SIG_DFL)
nsys_schema = reltest_nsys_schema()


def gen(path, steps, *extra):
    subprocess.run([PFPROF, "generate", "-f", "--steps", str(steps), "-o", path, *extra],
                   check=True, capture_output=True, env=env_for(TMP))
    return path


big = gen(os.path.join(SRC, "big.pfprof"), 6000)
old = gen(os.path.join(SRC, "old.pfprof"), 2)
nsys = os.path.join(SRC, "big.sqlite")
nsys_schema.convert(gen(os.path.join(SRC, "mid.pfprof"), 1500), nsys)

# An unfinished trace: WAL mode, its data in the -wal.
wal = os.path.join(SRC, "wal.pfprof")
shutil.copyfile(big, wal + ".tmp")
c = sqlite3.connect(wal + ".tmp", isolation_level=None)
c.execute("PRAGMA journal_mode=WAL")
c.execute("PRAGMA wal_autocheckpoint=0")
c.execute("UPDATE meta SET value = value")
c.execute("CREATE TABLE pad AS SELECT * FROM chunks")
shutil.copyfile(wal + ".tmp", wal)
shutil.copyfile(wal + ".tmp-wal", wal + "-wal")
c.close()
os.unlink(wal + ".tmp")


def temporary_in(folder, before):
    return [n for n in listdir_all(folder) if n not in before]


def interrupt(what, args, watch, sig, keep=None):
    """Runs pfprof @args, sends @sig once a new entry shows in @watch."""
    clear_dir(OUT)
    clear_dir(TMP)
    if keep:
        shutil.copyfile(old, os.path.join(OUT, keep))
    before_out = {n: file_digest(os.path.join(OUT, n)) for n in listdir_all(OUT)}
    before_watch = listdir_all(watch)
    p = subprocess.Popen([PFPROF, *args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, env=env_for(TMP))
    t0 = time.monotonic()
    sent = False
    while p.poll() is None and time.monotonic() - t0 < 120:
        if temporary_in(watch, before_watch):
            p.send_signal(sig)
            sent = True
            break
        time.sleep(0.002)
    try:
        err = p.communicate(timeout=120)[1]
    except subprocess.TimeoutExpired:
        p.kill()
        err = p.communicate()[1]
    name = f"{what}, {signal.Signals(sig).name} mid-run"
    if not sent:
        note(f"{name}: finished before its temporary file was seen (rc {p.returncode}); not counted")
        return False
    after_out = {n: file_digest(os.path.join(OUT, n)) for n in listdir_all(OUT)}
    check(f"{name}: died of the signal", p.returncode == -sig, f"rc {p.returncode}; {err[-300:]!r}")
    check(f"{name}: the output folder as it was", after_out == before_out,
          f"before {sorted(before_out)} after {sorted(after_out)}")
    check(f"{name}: TMPDIR empty", listdir_all(TMP) == [], str(listdir_all(TMP)))
    return True


CASES = [
    ("export (chrome json)", lambda o: ["export", big, "-o", o], "x.json"),
    ("export --format sqlite", lambda o: ["export", "--format", "sqlite", "--force", big, "-o", o],
     "x.pfprof"),
    ("import", lambda o: ["import", "--force", nsys, "-o", o], "x.pfprof"),
    ("generate", lambda o: ["generate", "--force", "--steps", "20000", "-o", o], "x.pfprof"),
]
seen = 0
for what, argv, name in CASES:
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        out = os.path.join(OUT, name)
        keep = name if "--force" in argv(out) else None
        seen += interrupt(what + (" --force over a file" if keep else ""), argv(out), OUT, sig, keep)
for sig in (signal.SIGINT, signal.SIGTERM):
    seen += interrupt("report of an unfinished (WAL) trace", ["report", wal], TMP, sig)
check("most runs were caught mid-way (the test tests something)", seen >= 10, f"{seen} caught")

# A stray -wal or -journal too small to hold anything: no copy.
for suffix, data in (("-wal", b"x"), ("-wal", b"\0" * 4096), ("-journal", b"\0" * 512)):
    t = os.path.join(SRC, "stray.pfprof")
    shutil.copyfile(old, t)
    for s in ("-wal", "-journal"):
        if os.path.exists(t + s):
            os.unlink(t + s)
    with open(t + suffix, "wb") as f:
        f.write(data)
    # A TMPDIR that cannot exist (its parent is a file): a copy would fail.
    env = env_for(TMP)
    env["TMPDIR"] = os.path.join(old, "tmp")
    p = subprocess.run([PFPROF, "report", t], capture_output=True, env=env, timeout=60)
    check(f"a stray {len(data)}-byte {suffix}: read in place (no copy in TMPDIR)",
          p.returncode in (0, 1) and p.stderr == b"", f"rc {p.returncode}; {p.stderr!r}")
    os.unlink(t + suffix)
finish()
