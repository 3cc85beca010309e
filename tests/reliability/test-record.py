#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`pfprof record` around programs that fail, with fake programs instead of
CUDA ones (suite `reliability`).

Usage: test-record.py PFPROF WORKDIR [COLLECTOR]

- `--force` over an existing trace keeps it unless a new trace took its
  name: a mistyped program, a program that never uses CUDA, a missing
  collector, an unusable TMPDIR;
- `-o` into a folder that does not exist is refused before the program
  runs;
- Ctrl-C on the terminal reaches a program that left pfprof's process
  group (`setsid`);
- the end-of-run summary reads an unfinished (WAL) trace in a read-only
  folder, and creates nothing beside it in a writable one.
A traced process is imitated by a shell that writes the status file the
collector writes (PFPROF_STATUS_DIR/PID.status). Prints TAP.
"""
import os
import pty
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

from reltest import (check, clear_dir, env_for, file_digest, finish, listdir_all, note, run, setup)

PFPROF, WORK, D, TMP, SRC = setup("d", "tmp", "src")
COLLECTOR = sys.argv[3] if len(sys.argv) > 3 else None
if COLLECTOR is None:
    print("1..0 # SKIP the collector is not built (no CUPTI)")
    sys.exit(0)
os.environ["PFPROF_COLLECTOR"] = os.path.abspath(COLLECTOR)

subprocess.run([PFPROF, "generate", "--steps", "4", "-o", os.path.join(SRC, "old.pfprof")],
               check=True, capture_output=True)
subprocess.run([PFPROF, "generate", "--steps", "6", "-o", os.path.join(SRC, "new.pfprof")],
               check=True, capture_output=True)
OLD = os.path.join(D, "run.pfprof")
# A recorded program's trace in the current format, with findings and
# notes: the torch.profiler sample, imported.
SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE = os.path.join(SRC, "sample.pfprof")
if subprocess.run([PFPROF, "import", os.path.join(SOURCE_ROOT, "samples", "traces", "kineto",
                                                  "a_pageable.stack.pt.trace.json.gz"), "-o", SAMPLE],
                  capture_output=True).returncode != 0:
    SAMPLE = None


def one_line(r):
    lines = r.err_lines
    return len(lines) == 1 and lines[0].startswith(b"pfprof: ")


def force_case(what, program, want_rc, want_msg, env_extra=None):
    clear_dir(D)
    shutil.copyfile(os.path.join(SRC, "old.pfprof"), OLD)
    before = file_digest(OLD)
    env = env_for(TMP)
    env.update(env_extra or {})
    argv = [PFPROF, "record", "--force", "-o", OLD, "--", *program]
    p = subprocess.run(argv, capture_output=True, env=env, timeout=60, cwd=D)
    lines = [l for l in p.stderr.split(b"\n") if l]
    check(f"record --force, {what}: exit {want_rc}", p.returncode == want_rc,
          f"rc {p.returncode}; stderr {p.stderr!r}")
    check(f"record --force, {what}: one line saying so",
          len(lines) == 1 and lines[0].startswith(b"pfprof: ") and want_msg in lines[0],
          f"stderr {p.stderr!r}")
    check(f"record --force, {what}: the old trace unchanged, nothing else",
          file_digest(OLD) == before and listdir_all(D) == ["run.pfprof"], str(listdir_all(D)))


force_case("a program that does not exist", ["/nonexistent/typo"], 127, b"cannot run")
force_case("a program that never uses CUDA", ["sh", "-c", "exit 3"], 3,
           b"no CUDA process was traced")
force_case("no collector", ["true"], 2, b"collector",
           {"PFPROF_COLLECTOR": "/nonexistent/libpfprof-collector.so"})
# In the sanitizer build, LeakSanitizer's exit-time scan crashes in a
# process that loaded the (instrumented) collector and exits without
# forking; leaks are not what this case checks.
force_case("an unusable TMPDIR", ["true"], 2, b"temporary folder",
           {"TMPDIR": "/nonexistent/tmp", "LSAN_OPTIONS": "detect_leaks=0"})

# A new trace at the name replaces the old one, and nothing is left.
clear_dir(D)
shutil.copyfile(os.path.join(SRC, "old.pfprof"), OLD)
new = os.path.join(SRC, "new.pfprof")
script = (f'cp "{new}" "{OLD}" && printf "pid=$$\\ntrace={OLD}\\nstate=complete\\n" '
          '> "$PFPROF_STATUS_DIR/$$.status"')
p = subprocess.run([PFPROF, "record", "--force", "--no-report", "-o", OLD, "--", "sh", "-c", script],
                   capture_output=True, env=env_for(TMP), timeout=60, cwd=D)
check("record --force, a new trace written: exit 0", p.returncode == 0, repr(p.stderr))
check("record --force, a new trace written: it replaced the old one, nothing else left",
      file_digest(OLD) == file_digest(new) and listdir_all(D) == ["run.pfprof"], str(listdir_all(D)))

# -o into a missing folder: refused before the program runs.
clear_dir(D)
marker = os.path.join(D, "ran")
r = run(PFPROF, ["record", "-o", "/nonexistent/dir/x.pfprof", "--", "touch", marker], TMP)
check("record -o /nonexistent/dir/x.pfprof: exit 2, one line", r.rc == 2 and one_line(r)
      and b"/nonexistent/dir" in r.err, r.describe())
check("record -o /nonexistent/dir/x.pfprof: the program did not run", not os.path.exists(marker))
# The same with %-escapes in the folder: checked as far as it is known.
for tmpl, env, shown in (("/nonexistent/%r/x.pfprof", {}, b"/nonexistent"),
                         ("/nonexistent/run-%p/x.pfprof", {}, b"/nonexistent"),
                         (os.path.join(D, "host-%h", "x.pfprof"), {}, b"host-"),
                         (os.path.join(D, "rank%r", "x.pfprof"), {"RANK": "3"}, b"rank3")):
    clear_dir(D)
    e = env_for(TMP)
    for k in ("RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK"):
        e.pop(k, None)
    e.update(env)
    p = subprocess.run([PFPROF, "record", "-o", tmpl, "--", "touch", marker], stdin=subprocess.DEVNULL,
                       capture_output=True, env=e, timeout=60)
    lines = [l for l in p.stderr.split(b"\n") if l]
    check(f"record -o {tmpl}: exit 2, one line naming the folder", p.returncode == 2 and len(lines) == 1
          and shown in p.stderr, repr(p.stderr))
    check(f"record -o {tmpl}: the program did not run", not os.path.exists(marker))

# Ctrl-C on a terminal, the program in a session of its own.
pid, fd = pty.fork()
if pid == 0:
    os.execve(PFPROF, [PFPROF, "record", "--quiet", "--", "setsid", "sleep", "30"], env_for(TMP))
time.sleep(1.0)
t0 = time.monotonic()
os.write(fd, b"\x03")
status = None
while time.monotonic() - t0 < 15:
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = st
        break
    r_, _, _ = select.select([fd], [], [], 0.1)
    if r_:
        try:
            os.read(fd, 4096)
        except OSError:
            pass
if status is None:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
os.close(fd)
check("Ctrl-C reaches `record -- setsid sleep 30`: record ends with 130 within 15 s",
      status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 130,
      f"wait status {status}")


def make_wal_trace(folder, name):
    """An unfinished trace: WAL mode, its last commit only in the -wal."""
    tmp = os.path.join(SRC, "w.pfprof")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(tmp + suffix):
            os.unlink(tmp + suffix)
    shutil.copyfile(os.path.join(SRC, "old.pfprof"), tmp)
    c = sqlite3.connect(tmp, isolation_level=None)
    c.execute("PRAGMA journal_mode=WAL")
    c.execute("PRAGMA wal_autocheckpoint=0")
    c.execute("UPDATE meta SET value = '0' WHERE key = 'complete'")
    shutil.copyfile(tmp, os.path.join(folder, name))
    shutil.copyfile(tmp + "-wal", os.path.join(folder, name + "-wal"))
    c.close()


def summary_case(what, read_only):
    folder = os.path.join(WORK, "summary")
    subprocess.run(["umount", folder], capture_output=True)
    clear_dir(folder)
    if read_only:
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", folder],
                          capture_output=True).returncode != 0:
            note("cannot mount a tmpfs: the read-only summary case is skipped")
            return
    trace = os.path.join(folder, "w.pfprof")
    make_wal_trace(folder, "w.pfprof")
    if read_only:
        subprocess.run(["mount", "-o", "remount,ro", folder], check=True)
    before = {n: file_digest(os.path.join(folder, n)) for n in listdir_all(folder)}
    script = f'printf "pid=$$\\ntrace={trace}\\nstate=tracing\\n" > "$PFPROF_STATUS_DIR/$$.status"'
    p = subprocess.run([PFPROF, "record", "--no-report", "-o", os.path.join(D, "x.pfprof"), "--",
                        "sh", "-c", script], capture_output=True, env=env_for(TMP), timeout=60)
    after = {n: file_digest(os.path.join(folder, n)) for n in listdir_all(folder)}
    if read_only:
        subprocess.run(["umount", folder], capture_output=True)
    check(f"summary of an unfinished trace, {what}: read (exit 0, its events counted)",
          p.returncode == 0 and b"cannot be read" not in p.stderr and b" events (" in p.stderr,
          repr(p.stderr))
    check(f"summary of an unfinished trace, {what}: nothing created or changed beside it",
          after == before, f"before {sorted(before)} after {sorted(after)}")


def kept_case(what, kept_first):
    """Two processes of one run under `-o run.pfprof`: the first took the
    name (and ran nothing, or kept its trace), the second wrote
    run.1748.pfprof."""
    clear_dir(D)
    out, second = os.path.join(D, "run.pfprof"), os.path.join(D, "run.1748.pfprof")
    new = os.path.join(SRC, "new.pfprof")
    first = (f'cp "{new}" "{out}" && printf "pid=1747\\ntrace={out}\\nstate=complete\\n"' if kept_first
             else f'printf "pid=1747\\ntrace={out}\\nstate=empty\\n"')
    script = (f'{first} > "$PFPROF_STATUS_DIR/1747.status" && cp "{new}" "{second}" && '
              f'printf "pid=1748\\ntrace={second}\\nstate=complete\\n" > "$PFPROF_STATUS_DIR/1748.status"')
    p = subprocess.run([PFPROF, "record", "-o", out, "--", "sh", "-c", script],
                       capture_output=True, env=env_for(TMP), timeout=60, cwd=D)
    return p, out, second


p, out, second = kept_case("one kept", False)
check("record -o run.pfprof, one trace kept of two processes: it has the name asked for",
      p.returncode == 0 and listdir_all(D) == ["run.pfprof"], f"{listdir_all(D)} {p.stderr!r}")
check("record -o run.pfprof, one trace kept of two processes: the report reads it",
      b"No such file" not in p.stderr and b"wrote " + out.encode() + b"\n" in p.stderr
      and b"run.pfprof" in p.stdout and b"run.1748" not in p.stdout, f"{p.stdout!r} {p.stderr!r}")
r = run(PFPROF, ["report", "-q", out], TMP)
check("record -o run.pfprof, one trace kept: `pfprof report run.pfprof` reads it", r.rc in (0, 1),
      r.describe())
p, out, second = kept_case("two kept", True)
listed = [l for l in p.stderr.split(b"\n") if l.startswith(b"pfprof: 2 traces")]
check("record -o run.pfprof, two traces kept: both stay, one line lists them",
      p.returncode == 0 and listdir_all(D) == ["run.1748.pfprof", "run.pfprof"] and len(listed) == 1
      and out.encode() in listed[0] and second.encode() in listed[0], f"{listdir_all(D)} {p.stderr!r}")

# The end-of-run report is `pfprof report --summary` of the traces kept,
# byte for byte, at any width, of a trace with notes too.
for width in ("100", "44"):
    for name, src in (("generated", os.path.join(SRC, "new.pfprof")), ("sample", SAMPLE)):
        if src is None:
            continue
        clear_dir(D)
        out = os.path.join(D, "run.pfprof")
        script = (f'cp "{src}" "{out}" && printf "pid=$$\\ntrace={out}\\nstate=complete\\n" '
                  '> "$PFPROF_STATUS_DIR/$$.status"')
        env = env_for(TMP)
        env["COLUMNS"] = width
        p = subprocess.run([PFPROF, "record", "-o", out, "--", "sh", "-c", script],
                           capture_output=True, env=env, timeout=60, cwd=D)
        q = subprocess.run([PFPROF, "report", "--summary", out], capture_output=True, env=env,
                           timeout=60, cwd=D)
        check(f"record's report of a {name} trace at {width} columns is `pfprof report --summary`'s",
              p.returncode == 0 and q.returncode == 0 and p.stdout == q.stdout and p.stdout,
              f"record {p.stdout!r}\nreport {q.stdout!r}")

summary_case("writable folder", False)
summary_case("read-only folder", True)
check("nothing left in TMPDIR", listdir_all(TMP) == [], str(listdir_all(TMP)))
finish()
