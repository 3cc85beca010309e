#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Source lines of call sites named by an untrusted trace (suite
`reliability`).

Usage: test-source-lines.py PFPROF WORKDIR

A call site names a file and a line, and the reports print that line.
Traces are shared, so the file it names is the trace author's choice:
pfprof reads a line only from a Python file under the folder it runs in
(`--source-lines=auto`, the default), from any regular file with
`--source-lines=always`, never under /proc, /sys or /dev, never from a
FIFO (which would block), a file over 4 MiB or a file of a million
lines; a file it leaves unread is said once. Prints TAP.
"""
import json
import os
import shutil
import subprocess
import sys

from reltest import check, env_for, finish, generate, note, setup

PFPROF, WORK, TMP, SRC, PROJECT, OUTSIDE = setup("tmp", "src", "project", "outside")

SOURCE = "images = images.cuda(non_blocking=True)  # the copy"
SECRET = "SECRET-TOKEN-5d41402abc4b2a76"
rows = generate(PFPROF, os.path.join(SRC, "rows.pfprof"), "--plant", "pageable", "--steps", "60")

# The program, under the project folder; a secret outside it.
train = os.path.join(PROJECT, "train.py")
with open(train, "w") as f:
    f.write("\n" * 56 + SOURCE + "\n")
secret = os.path.join(OUTSIDE, "secret.py")
with open(secret, "w") as f:
    f.write("\n" * 56 + SECRET + "\n")
os.symlink(secret, os.path.join(PROJECT, "link.py"))
fifo = os.path.join(PROJECT, "fifo.py")
os.mkfifo(fifo)
newlines = os.path.join(PROJECT, "newlines.py")
with open(newlines, "wb") as f:
    f.write(b"\n" * (3 << 20))
huge = os.path.join(PROJECT, "huge.py")
with open(huge, "wb") as f:
    f.write(b"\n" * (15 << 20))
with open(os.path.join(PROJECT, "notes.txt"), "w") as f:
    f.write("\n" * 56 + SECRET + "\n")


def trace_naming(name, path, line=57):
    """The generated trace with its call site's file (and the caller's,
    which shares the string) renamed @path."""
    out = os.path.join(SRC, name + ".pfprof")
    shutil.copyfile(rows, out)
    import sqlite3
    db = sqlite3.connect(out, isolation_level=None)
    (fid,) = db.execute("SELECT file_id FROM python_sites LIMIT 1").fetchone()
    db.execute("UPDATE strings SET value = ? WHERE id = ?", (path, fid))
    db.execute("UPDATE python_sites SET line = ? WHERE file_id = ?", (line, fid))
    db.close()
    return out


def report(trace, *args, cwd=PROJECT, env=None, fmt="json"):
    """(exit status, stdout, stderr)."""
    e = env_for(TMP)
    e.pop("PFPROF_SOURCE_LINES", None)
    e.update(env or {})
    try:
        p = subprocess.run([PFPROF, "report", "--format", fmt, *args, trace], cwd=cwd, env=e,
                           capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return -9, "", "timed out after 60 s (a read that blocks)"
    return p.returncode, p.stdout, p.stderr


# Runs one command and prints its exit status and peak RSS in KiB: the
# children of this process are every pfprof run so far, so the peak of
# one is measured in a process of its own.
PEAK = ("import resource, subprocess, sys\n"
        "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")


def peak_mb(trace, *args):
    out = subprocess.run([sys.executable, "-c", PEAK, PFPROF, "report", "--format", "json", *args, trace],
                         cwd=PROJECT, env=env_for(TMP), capture_output=True, text=True, timeout=120).stdout
    rc, kib = out.split()
    return int(rc), int(kib) / 1024


def site(doc):
    f = next((f for f in doc["findings"] if f["rule"] == "pageable-transfer"), None) if doc else None
    return f["sites"][0] if f and f.get("sites") else None


def run_json(trace, *args, **kw):
    rc, out, err = report(trace, *args, **kw)
    doc = json.loads(out) if rc == 0 else None
    return rc, doc, err


# The user's own file, under the folder pfprof runs in: shown.
t = trace_naming("own", train)
rc, doc, err = run_json(t)
s = site(doc)
check("a Python file under the current folder: its line is shown",
      rc == 0 and s and s["source"] == SOURCE and doc["traces"][0].get("sources_withheld") == 0, (rc, err, s))
rc, doc, err = run_json(t, "--source-lines", "never")
check("--source-lines=never: not even the user's own file is read",
      rc == 0 and site(doc) and site(doc)["source"] is None, (rc, err))

# The same trace analysed from another folder: the file is outside it.
rc, doc, err = run_json(t, cwd=OUTSIDE)
check("run from another folder: the line is not shown, and counted",
      rc == 0 and site(doc)["source"] is None and doc["traces"][0].get("sources_withheld") == 1, (rc, err))
for fmt in ("text", "markdown", "html"):
    rc, out, err = report(t, cwd=OUTSIDE, fmt=fmt)
    check(f"{fmt} report: says once why the source text is missing, and how to show it",
          rc == 0 and out.count("Source text not shown") == 1 and "--source-lines=always" in out,
          out[-1500:])
    rc, out, err = report(t, fmt=fmt)
    check(f"{fmt} report: nothing to say when the file was read", rc == 0 and "Source text not shown" not in out,
          out[-1500:])
rc, doc, err = run_json(t, "--source-lines", "always", cwd=OUTSIDE)
check("--source-lines=always from another folder: shown",
      rc == 0 and site(doc)["source"] == SOURCE, (rc, err))
rc, doc, err = run_json(t, cwd=OUTSIDE, env={"PFPROF_SOURCE_LINES": "always"})
check("PFPROF_SOURCE_LINES=always: shown", rc == 0 and site(doc)["source"] == SOURCE, (rc, err))
rc, doc, err = run_json(t, cwd="/")
check("run from /: nothing is under the folder, nothing is read",
      rc == 0 and site(doc)["source"] is None and doc["traces"][0].get("sources_withheld") == 1, (rc, err))

# A file the trace names outside the folder, directly or through a link
# inside it, or a file that is not Python: never in any output format.
for name, path in (("outside", secret), ("link", os.path.join(PROJECT, "link.py")),
                   ("relative", "../outside/secret.py"),
                   ("text-file", os.path.join(PROJECT, "notes.txt"))):
    t = trace_naming(name, path)
    for fmt in ("json", "text", "markdown", "html", "junit"):
        rc, out, err = report(t, fmt=fmt)
        check(f"a site naming {name} ({path}): {fmt} report exit 0 without its text",
              rc == 0 and SECRET not in out, (rc, err[-500:]))
rc, doc, err = run_json(trace_naming("outside", secret), "--source-lines", "always")
check("--source-lines=always: a file outside the folder is read (the user asked)",
      rc == 0 and site(doc)["source"] == SECRET, (rc, err))

# /proc, /sys, /dev: not even with always. The environment of pfprof
# itself carries a marker that must not come out.
for path, line in (("/proc/self/environ", 1), ("/proc/self/status", 1), ("/sys/kernel/uevent_seqnum", 1),
                   ("/dev/zero", 1), ("/proc/kmsg", 1)):
    t = trace_naming("special", path, line)
    for args in ([], ["--source-lines", "always"]):
        rc, out, err = report(t, *args, env={"PFPROF_MARKER": SECRET})
        doc = json.loads(out) if rc == 0 else None
        check(f"{path} {' '.join(args) or '(default)'}: exit 0 at once, no text",
              rc == 0 and site(doc) and site(doc).get("source", "?") is None and SECRET not in out,
              (rc, err[-500:]))

# A FIFO (would block), 3 MiB of newlines (3 million lines: a pointer and
# an allocation each), 15 MiB of them (over the size bound).
for name, path in (("fifo", fifo), ("newlines", newlines), ("huge", huge)):
    for when in ("auto", "always"):
        rc, doc, err = run_json(trace_naming(name, path), "--source-lines", when)
        check(f"{name} under the folder, {when}: exit 0 at once, no text",
              rc == 0 and site(doc) and site(doc)["source"] is None, (rc, err[-500:]))
rc0, base = peak_mb(trace_naming("own", train))
for name, path in (("newlines", newlines), ("huge", huge)):
    rc, rss = peak_mb(trace_naming(name, path))
    note(f"{os.path.getsize(path) >> 20} MiB of newlines named by a site: peak RSS {rss:.0f} MB "
         f"(no source read: {base:.0f} MB)")
    check(f"{name}: {os.path.getsize(path) >> 20} MiB of newlines: peak memory within 64 MB of a run "
          f"that reads no source", rc == 0 and rc0 == 0 and rss < base + 64, f"{rss:.0f} MB vs {base:.0f} MB")

# A bad value is a usage error.
rc, out, err = report(trace_naming("own", train), "--source-lines", "sometimes")
lines = [l for l in err.split("\n") if l]
check("--source-lines=sometimes: exit 2, one line", rc == 2 and len(lines) == 1 and "sometimes" in lines[0],
      (rc, lines))
rc, out, err = report(trace_naming("own", train), env={"PFPROF_SOURCE_LINES": "yes"})
lines = [l for l in err.split("\n") if l]
check("PFPROF_SOURCE_LINES=yes: exit 2, one line naming the variable",
      rc == 2 and len(lines) == 1 and "PFPROF_SOURCE_LINES" in lines[0], (rc, lines))

finish()
