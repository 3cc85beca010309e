#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A torch.profiler trace truncated while pfprof reads it (suite
`reliability`).

Usage: test-changed-input.py PFPROF WORKDIR

torch.profiler re-exporting a trace in place truncates the file; a reader
that maps it dies of SIGBUS. PFPROF_TEST_READ_PAUSE makes pfprof wait on
a FIFO between opening the file and reading it, so the test truncates it
exactly there, every time. `report` and `import`, plain JSON and gzip,
must exit 2 with one line that says the file changed while it was read.
Prints TAP.
"""
import errno
import gzip
import os
import shutil
import subprocess
import sys
import time

from reltest import check, env_for, finish, generate, listdir_all, note, setup

PFPROF, WORK, OUT, TMP, SRC = setup("out", "tmp", "src")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
import kineto_schema  # noqa: E402

rows = generate(PFPROF, os.path.join(SRC, "rows.pfprof"), "--steps", "40")
plain = os.path.join(SRC, "trace.json")
kineto_schema.convert(rows, plain)
packed = os.path.join(SRC, "trace.json.gz")
with open(plain, "rb") as a, gzip.open(packed, "wb") as b:
    b.write(a.read())
fifo = os.path.join(SRC, "pause")
os.mkfifo(fifo)


def truncated_while_read(src, args):
    """Runs pfprof on a copy of @src that is cut to half its size between
    its open and its read; (exit status, stderr lines)."""
    victim = os.path.join(SRC, "victim" + (".json.gz" if src.endswith(".gz") else ".json"))
    shutil.copyfile(src, victim)
    env = env_for(TMP)
    env["PFPROF_TEST_READ_PAUSE"] = fifo
    p = subprocess.Popen([PFPROF, *[victim if a == "@" else a for a in args]], env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # pfprof opens the FIFO for reading once it holds the file open.
    deadline = time.monotonic() + 60
    w = None
    while w is None and p.poll() is None and time.monotonic() < deadline:
        try:
            w = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as e:
            if e.errno != errno.ENXIO:
                raise
            time.sleep(0.01)
    if w is not None:
        os.truncate(victim, os.path.getsize(victim) // 2)
        os.write(w, b"x")
        os.close(w)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    lines = [l for l in err.decode("utf-8", "replace").split("\n") if l]
    note(f"{' '.join(args)} on {os.path.basename(src)}, paused: {w is not None}, exit {p.returncode}: "
         f"{lines[:2]}")
    return p.returncode, lines, w is not None


for src in (plain, packed):
    for args in (["report", "@"], ["import", "@", "-o", os.path.join(OUT, "t.pfprof")]):
        rc, lines, paused = truncated_while_read(src, args)
        what = f"{args[0]} of a {'gzip' if src.endswith('.gz') else 'plain'} JSON trace truncated while read"
        check(f"{what}: exit 2, not a signal", rc == 2, f"exit {rc}: {lines}")
        check(f"{what}: one line, 'the file changed while it was read'",
              paused and len(lines) == 1 and "the file changed while it was read" in lines[0], lines)
        check(f"{what}: nothing written", listdir_all(OUT) == [], listdir_all(OUT))

finish()
