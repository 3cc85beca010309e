#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`--config FILE` given something that is not a config (suite
`reliability`).

Usage: test-config.py PFPROF WORKDIR

A FIFO (would block), /dev/zero (never ends), a directory, a binary file
starting with a NUL byte, a 2 MiB file, invalid UTF-8 and malformed text
are each refused by every command that takes --config: exit 2, one
"pfprof: FILE: ..." line, at once, nothing written. Prints TAP.
"""
import os
import sys

from reltest import check, clear_dir, commands, finish, generate, listdir_all, run, setup

PFPROF, WORK, OUT, TMP, C = setup("out", "tmp", "configs")
trace = generate(PFPROF, os.path.join(WORK, "t.pfprof"), "--steps", "4")

fifo = os.path.join(C, "fifo")
os.mkfifo(fifo)
bad = {"a FIFO": fifo, "/dev/zero": "/dev/zero", "a directory": C}
for name, data in (("a binary file starting with NUL", b"\0[thresholds]\nx=1\n" + os.urandom(64)),
                   ("a 2 MiB file", b"# " + b"x" * (2 << 20) + b"\n"),
                   ("invalid UTF-8", b"[thresholds]\n\xff\xfe = 1\n"),
                   ("malformed text", b"this is not a key file\n")):
    p = os.path.join(C, name.replace(" ", "_"))
    with open(p, "wb") as f:
        f.write(data)
    bad[name] = p
good = os.path.join(C, "good.ini")
with open(good, "w") as f:
    f.write("# nothing set\n")

CMDS = []
for cmd in commands(PFPROF, TMP):
    if b"--config" in run(PFPROF, [cmd, "--help"], TMP).out:
        CMDS.append(cmd)
check("some commands take --config", len(CMDS) >= 2, str(CMDS))


def argv(cmd, cfg):
    if cmd == "render":
        return [cmd, "--config", cfg, trace, "-o", os.path.join(OUT, "x.png")]
    if cmd == "export":
        return [cmd, "--config", cfg, trace, "-o", os.path.join(OUT, "x.json")]
    if cmd == "diff":
        return [cmd, "--config", cfg, "-b", trace, "-a", trace]
    return [cmd, "--config", cfg, trace]


for cmd in CMDS:
    for what, path in bad.items():
        clear_dir(OUT)
        r = run(PFPROF, argv(cmd, path), TMP, timeout=20)
        check(f"{cmd} --config {what}: exit 2 at once", r.rc == 2 and not r.timed_out, r.describe())
        check(f"{cmd} --config {what}: one line naming the file", len(r.err_lines) == 1
              and r.err_lines[0].startswith(b"pfprof: " + path.encode()), r.describe())
        check(f"{cmd} --config {what}: nothing written", listdir_all(OUT) == [])
    r = run(PFPROF, argv(cmd, good), TMP)
    check(f"{cmd} --config a good file: accepted", r.rc in (0, 1) and r.err_lines == [], r.describe())
finish()
