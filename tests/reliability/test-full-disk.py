#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every file pfprof writes, on a disk that fills up (suite `reliability`).

Usage: test-full-disk.py PFPROF WORKDIR

Mounts a 1 MiB tmpfs (skipped when this machine does not let us mount
one) and runs each command that writes a file into it, with inputs of
several sizes so that the disk fills at different steps: while the
records go in, while the WAL is folded back into the file (the
checkpoint: the first time the file holds everything), and, on a disk
already full, while text or an image is written. Each run must either exit 0 with the whole output
(it loads, and nothing else is in the folder), or exit 2 with one
"pfprof: ..." line and leave the folder as it was: no partial output, no
hidden temporary file, no -wal or -shm; with --force over an existing
good trace, that trace unchanged. The same under a file-size limit
(RLIMIT_FSIZE, EFBIG), which needs no mount. Prints TAP.
"""
import os
import resource
import shutil
import signal
import subprocess
import sys

from reltest import (Result, check, clear_dir, env_for, file_digest, finish, listdir_all, note,
                     run, setup)
from reltest import nsys_schema as reltest_nsys_schema


PFPROF, WORK, TMP, SRC = setup("tmp", "src")
MNT = os.path.join(WORK, "mnt")
nsys_schema = reltest_nsys_schema()
os.makedirs(MNT, exist_ok=True)
subprocess.run(["umount", MNT], capture_output=True)

# Format 1 (export --format sqlite) and text take ~1.5 KB a step; format 2
# (import, generate) ~0.3 KB.
STEPS = [20, 40, 60, 90, 120, 160]
STEPS_CHUNKED = [100, 200, 300, 450, 600, 1000]


def gen(path, steps):
    p = subprocess.run([PFPROF, "generate", "-f", "--steps", str(steps), "-o", path],
                       capture_output=True, env=env_for(TMP), timeout=300)
    if p.returncode != 0:
        print(f"Bail out! generate failed: {p.stderr!r}")
        sys.exit(1)
    return path


inputs = {s: gen(os.path.join(SRC, f"t{s}.pfprof"), s) for s in STEPS + STEPS_CHUNKED}
nsys = {}
for s in STEPS_CHUNKED:
    nsys[s] = os.path.join(SRC, f"n{s}.sqlite")
    nsys_schema.convert(inputs[s], nsys[s])
old_trace = gen(os.path.join(SRC, "old.pfprof"), 2)


def loads(path):
    r = run(PFPROF, ["report", "--format", "json", path], TMP)
    return r.rc in (0, 1) and not r.err_lines


# name, output file, argv builder(steps, out), output is a trace, steps
WRITERS = [
    ("export --format sqlite", "x.pfprof",
     lambda s, o: ["export", "--format", "sqlite", inputs[s], "-o", o], True, STEPS),
    ("import", "x.pfprof", lambda s, o: ["import", nsys[s], "-o", o], True, STEPS_CHUNKED),
    ("generate", "x.pfprof", lambda s, o: ["generate", "--steps", str(s), "-o", o], True,
     STEPS_CHUNKED),
    ("export (chrome json)", "x.json", lambda s, o: ["export", inputs[s], "-o", o], False, STEPS),
    ("report --format json", "x.json", lambda s, o: ["report", "--format", "json", inputs[s], "-o", o], False,
     STEPS),
    ("render", "x.png", lambda s, o: ["render", inputs[s], "-o", o], False, STEPS),
]


def check_outcome(what, r, folder, out, is_trace, before):
    """@before: the folder's {name: digest} before the run."""
    names = listdir_all(folder)
    after = {n: file_digest(os.path.join(folder, n)) for n in names}
    if r.rc == 0:
        ok = names == sorted(set(before) | {out}) and (not is_trace or loads(os.path.join(folder, out)))
        check(f"{what}: exit 0 and the whole output, nothing else", ok,
              f"{r.describe()}\nfolder: {names}")
        return "written"
    lines = r.err_lines
    check(f"{what}: exit 2 with one line", not r.crashed() and r.rc == 2 and len(lines) == 1
          and lines[0].startswith(b"pfprof: "), r.describe())
    check(f"{what}: the folder as it was", after == before,
          f"{r.describe()}\nbefore: {sorted(before)}\nafter: {names}")
    return "refused"


def fill(folder, leave):
    """Fills @folder's file system to @leave bytes free."""
    st = os.statvfs(folder)
    free = st.f_bavail * st.f_frsize
    if free > leave:
        with open(os.path.join(folder, "filler"), "wb") as f:
            try:
                f.write(b"\0" * (free - leave))
            except OSError:
                pass


def tmpfs_cases():
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", MNT], capture_output=True)
    if p.returncode != 0:
        note("cannot mount a tmpfs here (" + p.stderr.decode("utf-8", "replace").strip()
             + "): the full-disk cases are skipped, the file-size limit cases run")
        return
    try:
        for name, out, argv, is_trace, steps in WRITERS:
            outcomes = []
            for force in (False, True):
                for s in steps:
                    clear_dir(MNT)
                    if force:
                        shutil.copyfile(old_trace, os.path.join(MNT, out))
                    if not is_trace:
                        fill(MNT, 0)  # a full disk: every text output fails
                    before = {n: file_digest(os.path.join(MNT, n)) for n in listdir_all(MNT)}
                    args = argv(s, os.path.join(MNT, out)) + (["--force"] if force else [])
                    r = run(PFPROF, args, TMP)
                    outcomes.append(check_outcome(
                        f"{name}{' --force over a trace' if force else ''}, {s} steps, 1 MiB disk",
                        r, MNT, out, is_trace, before))
            note(f"{name}: {outcomes}")
            check(f"{name}: the disk filled for some input (the test tests something)",
                  "refused" in outcomes, str(outcomes))
    finally:
        clear_dir(MNT)
        subprocess.run(["umount", MNT], capture_output=True)


def fsize_cases():
    """RLIMIT_FSIZE of 256 KiB: a write past it fails with EFBIG."""
    folder = os.path.join(WORK, "fsize")
    limit = 256 * 1024

    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    for name, out, argv, is_trace, steps in WRITERS:
        if not is_trace and name != "export (chrome json)":
            continue  # a report or a PNG stays under the limit
        clear_dir(folder)
        shutil.copyfile(old_trace, os.path.join(folder, out))
        before = {n: file_digest(os.path.join(folder, n)) for n in listdir_all(folder)}
        args = [PFPROF] + argv(steps[-1], os.path.join(folder, out)) + ["--force"]
        p = subprocess.run(args, capture_output=True, env=env_for(TMP), timeout=300,
                           preexec_fn=limited)
        r = Result(args, p.returncode, p.stdout, p.stderr, 0.0, False)
        check_outcome(f"{name} --force, file-size limit {limit // 1024} KiB", r, folder, out,
                      is_trace, before)
        check(f"{name}: the limit was hit", r.rc != 0, r.describe())


tmpfs_cases()
fsize_cases()
check("nothing left in TMPDIR", listdir_all(TMP) == [], str(listdir_all(TMP)))
finish()
