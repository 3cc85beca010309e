# SPDX-License-Identifier: MIT
"""Shared helpers for the reliability suite (tests/reliability/*.py).

Runs pfprof as a user would, with a private TMPDIR so that temporary files
left behind are seen, a timeout so that a hang is a failure, and checks the
things every command owes its user whatever the input: no crash (no death
by signal, no sanitizer report), one "pfprof: ..." line on failure, and no
file left in the output folder unless the command succeeded. Prints TAP.
"""
import hashlib
import os
import re
import sqlite3
import subprocess
import sys
import time

SANITIZER_RE = re.compile(
    rb"AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:|"
    rb"ThreadSanitizer|MemorySanitizer|SUMMARY: \w+Sanitizer")

# A run longer than this is a hang (the sanitizer build on a busy 2-core
# CI machine is ~10x slower than a plain build).
DEFAULT_TIMEOUT = 90

_results = []


def check(name, cond, detail="", todo=None):
    """Records one TAP result; @detail is shown when it fails. @todo marks a
    known, reported bug: TAP's TODO directive, which meson counts as an
    expected failure while it fails and as a failure once it passes (so the
    marker gets removed when the bug is fixed)."""
    _results.append((name, bool(cond), detail, todo))
    return bool(cond)


def note(text):
    """A TAP comment (observed outcomes, timings): kept in the test log."""
    for line in str(text).splitlines():
        print("# " + line)
    sys.stdout.flush()


def finish():
    print(f"1..{len(_results)}")
    failed = 0
    for i, (name, ok, detail, todo) in enumerate(_results, 1):
        name = name.replace("#", "no.")
        print(f"{'ok' if ok else 'not ok'} {i} - {name}" + (f" # TODO {todo}" if todo else ""))
        if not ok:
            failed += 0 if todo else 1
            for line in str(detail).splitlines()[:40]:
                print("#   " + line)
    sys.exit(1 if failed else 0)


class Result:
    def __init__(self, argv, rc, out, err, secs, timed_out):
        self.argv, self.rc, self.out, self.err = argv, rc, out, err
        self.secs, self.timed_out = secs, timed_out

    @property
    def err_lines(self):
        return [l for l in self.err.split(b"\n") if l != b""]

    def crashed(self):
        """Death by signal, a sanitizer report or a hang."""
        return self.timed_out or self.rc < 0 or SANITIZER_RE.search(self.err) is not None

    def describe(self):
        tail = self.err[-3000:].decode("utf-8", "backslashreplace")
        return (f"argv: {self.argv!r}\nrc: {self.rc} in {self.secs:.2f}s"
                f"{' (TIMED OUT)' if self.timed_out else ''}\nstderr: {tail}")


def env_for(tmpdir):
    e = dict(os.environ)
    for k in ("COLUMNS", "NO_COLOR", "TERM"):
        e.pop(k, None)
    e["TMPDIR"] = tmpdir
    e["LC_ALL"] = "C.UTF-8"
    return e


def run(pfprof, args, tmpdir, timeout=DEFAULT_TIMEOUT):
    """Runs pfprof with @args; stdout and stderr as bytes."""
    os.makedirs(tmpdir, exist_ok=True)
    argv = [pfprof, *args]
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                           env=env_for(tmpdir), timeout=timeout)
        return Result(argv, p.returncode, p.stdout, p.stderr, time.monotonic() - t0, False)
    except subprocess.TimeoutExpired as e:
        return Result(argv, -9, e.stdout or b"", e.stderr or b"", time.monotonic() - t0, True)


def listdir_all(path):
    """Every entry, hidden ones included; [] for a missing folder."""
    try:
        return sorted(os.listdir(path))
    except FileNotFoundError:
        return []


def clear_dir(path):
    os.makedirs(path, exist_ok=True)
    for name in os.listdir(path):
        p = os.path.join(path, name)
        if os.path.isdir(p) and not os.path.islink(p):
            clear_dir(p)
            os.rmdir(p)
        else:
            os.unlink(p)


def file_digest(path):
    """sha256 of a regular file, or a marker for anything else."""
    if os.path.islink(path):
        return "link:" + os.readlink(path)
    if not os.path.isfile(path):
        return "missing" if not os.path.exists(path) else "not-a-file"
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def generate(pfprof, path, *args):
    """A synthetic trace from `pfprof generate` (the hidden command),
    rewritten with `pfprof export --format sqlite` as plain row tables
    (trace format 1), which the tests here edit with SQL; format 2's
    event chunks are damaged by tests/trace and the fuzzer instead."""
    chunked = path + ".v2"
    env = env_for(os.path.dirname(path) or ".")
    for argv in ([pfprof, "generate", "-o", chunked, "-f", *args],
                 [pfprof, "export", "--format", "sqlite", "--force", "-o", path, chunked]):
        p = subprocess.run(argv, capture_output=True, env=env, timeout=300)
        if p.returncode != 0:
            print(f"Bail out! {' '.join(argv[1:])} failed: {p.stderr!r}")
            sys.exit(1)
    os.unlink(chunked)
    return path


def connect(path):
    """Opens a trace for editing with Python's sqlite3 (autocommit)."""
    c = sqlite3.connect(path, isolation_level=None)
    c.execute("PRAGMA journal_mode=DELETE")
    return c


def loosen(c, table):
    """Recreates @table without NOT NULL / PRIMARY KEY constraints so that
    tests can plant rows the writer never would (NULLs, text, reals)."""
    cols = [r[1] for r in c.execute(f'PRAGMA table_info("{table}")')]
    c.execute(f'ALTER TABLE "{table}" RENAME TO "{table}_old"')
    c.execute(f'CREATE TABLE "{table}" ({", ".join(cols)})')
    c.execute(f'INSERT INTO "{table}" SELECT * FROM "{table}_old"')
    c.execute(f'DROP TABLE "{table}_old"')
    return cols


def commands(pfprof, tmpdir):
    """Subcommand names listed by `pfprof --help`."""
    r = run(pfprof, ["--help"], tmpdir)
    names = []
    in_list = False
    for line in r.out.decode("utf-8", "replace").splitlines():
        if line.startswith("Commands:"):
            in_list = True
            continue
        if in_list:
            m = re.match(r"^  (\S+)\s", line)
            if not m:
                if line.strip() == "":
                    break
                continue
            names.append(m.group(1))
    return names


def setup(*subdirs):
    """PFPROF and WORK from the command line (absolute), and the emptied
    folders WORK/@subdirs."""
    pfprof, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.makedirs(work, exist_ok=True)
    dirs = [os.path.join(work, d) for d in subdirs]
    for d in dirs:
        clear_dir(d)
    return (pfprof, work, *dirs)


def nsys_schema():
    """tests/interop/nsys_schema.py, which writes Nsight Systems exports."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
    import nsys_schema as module
    return module
