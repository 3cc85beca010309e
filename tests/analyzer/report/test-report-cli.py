#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`pfprof report` as a user and a CI job run it (suite `analyzer`).

Usage: test-report-cli.py PFPROF WORKDIR

Generates a trace per planted pattern with `pfprof generate`, then checks:
each pattern yields its rule and no other; the clean trace yields nothing
and an overlap near 1; the JSON contract (docs/report-format.md); the
Markdown and JUnit formats; --fail-on exit codes; usage errors and
unreadable input exit 2 with one line; -o replaces atomically and never
writes through a symlink; untrusted strings stay escaped. Prints TAP.
"""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

PFPROF, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
results = []

PLANTS = {
    "pageable": "pageable-transfer",
    "serialized": "serialized-copy",
    "record-stream": "record-stream-stall",
    "input-starved": "input-starved",
    "late-prefetch": "late-prefetch",
    "sync-in-loop": "sync-in-loop",
    "small-transfers": "small-transfers",
    "pinned-alloc": "pinned-alloc-in-loop",
}


def run(*args, env=None):
    e = dict(os.environ)
    e.pop("COLUMNS", None)
    if env:
        e.update(env)
    p = subprocess.run([PFPROF, *args], capture_output=True, text=True, env=e, timeout=120)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


def trace(plant, *rank):
    path = os.path.join(WORK, f"gen-{plant}{''.join(rank)}.pfprof")
    if not os.path.exists(path):
        rc, out, err = run("generate", "-o", path, "--plant", plant, "--steps", "60", "-f",
                           *(("--rank", rank[0]) if rank else ()))
        if rc != 0:
            raise SystemExit(f"Bail out! pfprof generate --plant {plant} failed: {err}")
    return path


def report_json(*args):
    rc, out, err = run("report", "--format", "json", *args)
    return rc, json.loads(out) if rc in (0, 1) else None, err


INT = int
CONTRACT_DEVICE = {"kernel_ns": INT, "htod_bytes": INT, "htod_ns": INT,
                   "overlap_fraction": (float, type(None)), "exposed_copy_ns": INT,
                   "idle_ns": INT}
CONTRACT_FINDING = {"rule": str, "severity": str, "title": str, "message": str, "fix": str,
                    "count": INT, "time_ns": INT, "est_savings_ns": INT, "first_ns": INT,
                    "last_ns": INT, "pid": INT, "device": (int, type(None)),
                    "stream": (int, type(None))}


def contract_ok(d):
    problems = []
    if d.get("format") != "pfprof-report/1":
        problems.append("format")
    if not isinstance(d.get("traces"), list) or not d["traces"]:
        problems.append("traces")
    s = d.get("summary", {})
    for dev in s.get("devices", [None]):
        for k, t in CONTRACT_DEVICE.items():
            if not isinstance(dev, dict) or k not in dev or not isinstance(dev[k], t) or isinstance(dev[k], bool):
                problems.append(f"summary.devices.{k}")
    st = s.get("steps", {})
    for k in ("count", "median_ns"):
        if not isinstance(st.get(k), int):
            problems.append(f"summary.steps.{k}")
    if not isinstance(d.get("findings"), list):
        problems.append("findings")
    for f in d.get("findings", []):
        for k, t in CONTRACT_FINDING.items():
            if k not in f or not isinstance(f[k], t) or isinstance(f[k], bool):
                problems.append(f"findings.{k}")
        if f.get("severity") not in ("info", "warning", "error"):
            problems.append("findings.severity value")
        if f.get("first_ns", 0) > f.get("last_ns", 0):
            problems.append("first_ns > last_ns")
    return problems


# Each planted pattern yields its rule, and only it.
for plant, rule in PLANTS.items():
    rc, d, err = report_json(trace(plant))
    rules = [f["rule"] for f in d["findings"]] if d else []
    check(f"plant {plant} -> {rule}", rc == 0 and rules == [rule], f"rc={rc} rules={rules} {err}")
    if d:
        check(f"plant {plant}: JSON contract", not contract_ok(d), contract_ok(d))
        f = d["findings"][0] if d["findings"] else {}
        if plant in ("pinned-alloc", "small-transfers"):
            # The generator pins on a thread of its own, and issues the
            # small copies on the copy stream while kernels run and the
            # host is ahead, so the GPU stays busy: the step ledger has no
            # idle to save and no copy time left exposed, so the finding
            # claims nothing and is immaterial (info).
            check(f"plant {plant}: no saving beyond the ledger, info", f.get("est_savings_ns") == 0
                  and f.get("severity") == "info" and f.get("material") is False and f.get("evidence"), f)
        else:
            check(f"plant {plant}: savings and evidence", f.get("est_savings_ns", 0) > 0 and f.get("evidence"), f)

# The clean pipeline: no finding, overlap near 1.
rc, d, err = report_json(trace("none"))
check("clean: no findings", rc == 0 and d["findings"] == [], d and d["findings"])
check("clean: overlap near 1", d and d["summary"]["devices"][0]["overlap_fraction"] > 0.95)
check("clean: JSON contract", d and not contract_ok(d), d and contract_ok(d))
rc, out, err = run("report", trace("none"))
check("clean: text says so", rc == 0 and "No input-pipeline problem found" in out and "overlap" in out, out)
check("text to a pipe has no colour", "\033" not in out)

# Gating.
check("--fail-on error, clean -> 0", run("report", "--fail-on", "error", trace("none"))[0] == 0)
check("--fail-on error, input-starved -> 1", run("report", "--fail-on", "error", trace("input-starved"))[0] == 1)
check("--fail-on error, warning only -> 0", run("report", "--fail-on", "error", trace("pageable"))[0] == 0)
check("--fail-on warning, info only -> 0", run("report", "--fail-on", "warning", trace("small-transfers"))[0] == 0)
check("--fail-on info, info only -> 1", run("report", "--fail-on", "info", trace("small-transfers"))[0] == 1)
check("no gate -> 0 even with findings", run("report", trace("input-starved"))[0] == 0)
check("--rules selects", run("report", "--fail-on", "info", "--rules", "pageable-transfer",
                             trace("input-starved"))[0] == 0)

# Thresholds from a config file.
conf = os.path.join(WORK, "strict.conf")
with open(conf, "w") as fh:
    fh.write("[analysis]\nmin-saving-share=0\n[small-transfers]\nseverity=error\n")
check("--config raises severity", run("report", "--config", conf, "--fail-on", "error",
                                      trace("small-transfers"))[0] == 1)
with open(conf, "w") as fh:
    fh.write("[small-transfers]\nmin-per-step=100\n")
rc, d, err = report_json("--config", conf, trace("small-transfers"))
check("--config threshold silences", rc == 0 and d["findings"] == [], d and d["findings"])

# Usage errors and unreadable input: exit 2, one line, "pfprof: ...".
junk = os.path.join(WORK, "junk.pfprof")
with open(junk, "wb") as fh:
    fh.write(b"this is not a trace\n" * 100)
bad_conf = os.path.join(WORK, "bad.conf")
with open(bad_conf, "w") as fh:
    fh.write("[small-transfers]\nmin-per-stepp=3\n")
for name, args in [
    ("missing file", ["report", os.path.join(WORK, "nope.pfprof")]),
    ("junk file", ["report", junk]),
    ("no trace", ["report"]),
    ("bad format", ["report", "--format", "yaml", trace("none")]),
    ("bad gate", ["report", "--fail-on", "fatal", trace("none")]),
    ("bad rule", ["report", "--rules", "nope", trace("none")]),
    ("bad config key", ["report", "--config", bad_conf, trace("none")]),
    ("missing config", ["report", "--config", os.path.join(WORK, "nope.conf"), trace("none")]),
    ("bad option", ["report", "--frobnicate", trace("none")]),
    ("one bad among good", ["report", trace("none"), junk]),
]:
    rc, out, err = run(*args)
    lines = err.strip().split("\n")
    check(f"{name}: exit 2, one line", rc == 2 and len(lines) == 1 and lines[0].startswith("pfprof: ")
          and out == "", f"rc={rc} err={err!r}")
rc, out, err = run("report", junk)
check("unreadable input names the file", junk in err, err)

# -o: atomic replace of a regular file, never through a symlink.
out_path = os.path.join(WORK, "report.json")
with open(out_path, "w") as fh:
    fh.write("old")
rc, out, err = run("report", "--format", "json", "-o", out_path, trace("pageable"))
with open(out_path) as fh:
    check("-o refuses to replace a file without --force (exit 3)",
          rc == 3 and fh.read() == "old" and "--force" in err, err)
rc, out, err = run("report", "--format", "json", "--force", "-o", out_path, trace("pageable"))
with open(out_path) as fh:
    check("-o --force replaces a regular file", rc == 0 and json.load(fh)["format"] == "pfprof-report/1")
victim = os.path.join(WORK, "victim.txt")
with open(victim, "w") as fh:
    fh.write("keep me")
link = os.path.join(WORK, "link.json")
if os.path.lexists(link):
    os.unlink(link)
os.symlink(victim, link)
rc, out, err = run("report", "-o", link, trace("none"))
with open(victim) as fh:
    check("-o refuses a symlink", rc == 2 and fh.read() == "keep me" and os.path.islink(link), err)
check("-o leaves no temporary file", not [f for f in os.listdir(WORK) if f.startswith(".pfprof-report-")])
rc, out, err = run("report", "-o", WORK, trace("none"))
check("-o on a folder -> 2", rc == 2)

# pageable-transfer's device-to-host advice waits for the copy before the
# pinned result is read.
_, js, _ = report_json(trace("pageable"))
fix = next((f["fix"] for f in (js or {}).get("findings", []) if f["rule"] == "pageable-transfer"), "")
dtoh = fix[fix.find("device-to-host"):] if "device-to-host" in fix else ""
check("pageable-transfer: the device-to-host snippet waits for the copy before reading out",
      "out.copy_(t, non_blocking=True)" in dtoh and "before reading out" in dtoh
      and dtoh.find(".synchronize()") > dtoh.find("out.copy_(") > 0
      and dtoh.find(".synchronize()") < dtoh.find("value = out"), dtoh)

# Markdown and JUnit.
rc, out, err = run("report", "--format", "markdown", trace("input-starved"))
check("markdown", rc == 0 and out.startswith("## pfprof report") and "`input-starved`" in out
      and "```" in out, out[:200])
rc, out, err = run("report", "--format", "junit", "--fail-on", "error", trace("input-starved"))
root = ET.fromstring(out)
cases = root.findall(".//testcase")
failed = [c.get("name") for c in cases if c.find("failure") is not None]
check("junit: one case per rule, input-starved failed", rc == 1 and len(cases) == 10 and failed == ["input-starved"],
      f"{len(cases)} {failed}")
_, js, _ = report_json(trace("input-starved"))
want = {}
for f in js["findings"]:
    want[f["rule"]] = want.get(f["rule"], 0) + f["time_ns"]
times = {c.get("name"): float(c.get("time")) for c in cases}
check("junit: each case's time is its findings' time (s), 0 for rules that found nothing",
      all(abs(times[r] - want.get(r, 0) / 1e9) < 1e-6 for r in times) and any(times.values()), times)
rc, out, err = run("report", "--format", "junit", trace("small-transfers"))
root = ET.fromstring(out)
failed = [c.get("name") for c in root.findall(".//testcase") if c.find("failure") is not None]
check("junit: below the default gate passes", failed == [] and "small-transfers" in out, failed)

# Untrusted path: escaped in every format.
evil = os.path.join(WORK, 'evil "<x>&\u001b[2J.pfprof')
if not os.path.exists(evil):
    os.link(trace("pageable"), evil)
rc, d, err = report_json(evil)
check("json: path round-trips", rc == 0 and d["traces"][0]["path"] == evil, d and d["traces"][0]["path"])
rc, out, err = run("report", "--color", "always", evil)
check("text: no escape sequence from the path", "\u001b[2J" not in out and "evil" in out)
rc, out, err = run("report", "--format", "junit", evil)
root = ET.fromstring(out)
check("junit: path parses back", any(p.get("value") == evil.replace("\u001b", "")
                                     for p in root.iter("property")), out[:300])
rc, out, err = run("report", "--format", "markdown", evil)
check("markdown: no raw markup from the path", "<x>" not in out and "\u001b" not in out)

# Short summary, --top, --list-rules, several traces.
rc, out, err = run("report", "--summary", trace("input-starved"))
check("--summary is short", rc == 0 and "input-starved" in out and "Fix:" not in out
      and len(out.splitlines()) < 25, out)
# Two ranks of one run; rank-imbalance, which they also fire, left out.
rc, d, err = report_json("--top", "1", "--rules", "-rank-imbalance", trace("pageable", "0"),
                         trace("input-starved", "1"))
check("two traces, --top 1", rc == 0 and len(d["traces"]) == 2 and len(d["findings"]) == 1
      and d["findings"][0]["rule"] == "input-starved" and d["findings_total"] == 2, d and d["findings_total"])
rc, out, err = run("report", "--list-rules")
check("--list-rules", rc == 0 and all(r in out for r in PLANTS.values()))
rc, out, err = run("report", "--width", "60", trace("serialized"))
# Code lines of fixes and a long file name (one word) cannot be wrapped.
prose = [l for l in out.splitlines() if not l.startswith("         ") and WORK not in l]
check("--width 60 wraps prose", rc == 0 and max(len(l) for l in prose) <= 60, max(prose, key=len))

# On a terminal (a pty from script(1)): progress on stderr for a long load,
# colour on stdout; neither when piped (checked above).
if subprocess.run(["sh", "-c", "command -v script"], capture_output=True).returncode == 0:
    big = os.path.join(WORK, "big.pfprof")
    if not os.path.exists(big):
        run("generate", "-o", big, "--events", "1000000", "-f")
    # A million events load in well under the 0.3 s after which progress
    # shows: show it at once here.
    p = subprocess.run(["script", "-qec", f"'{PFPROF}' report '{big}'", "/dev/null"],
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PFPROF_PROGRESS_DELAY_MS="0"))
    check("tty: progress while loading", "pfprof: loading" in p.stdout, p.stdout[:200])
    check("tty: colour", "\033[1m" in p.stdout)
    p = subprocess.run(["script", "-qec", f"'{PFPROF}' report -q --color never '{big}'", "/dev/null"],
                       capture_output=True, text=True, timeout=300)
    check("tty: -q and --color never", "loading" not in p.stdout and "\033" not in p.stdout)

# A trace of a capture range says so with the trace (text and JSON notes),
# by how many ranges it holds.
import shutil
import sqlite3
for ranges, want in (("1", "only what ran between the program's cudaProfilerStart() and "
                           "cudaProfilerStop()"),
                     ("0", "never called cudaProfilerStart()"),
                     ("3", "3 cudaProfilerStart()..Stop() ranges recorded")):
    cap = os.path.join(WORK, f"capture-{ranges}.pfprof")
    shutil.copy(trace("pageable"), cap)
    db = sqlite3.connect(cap)
    db.execute("INSERT OR REPLACE INTO meta VALUES ('capture_range', 'cuda-profiler-api')")
    db.execute("INSERT OR REPLACE INTO meta VALUES ('capture_ranges', ?)", (ranges,))
    db.commit()
    db.close()
    rc, out, err = run("report", "--color", "never", cap)
    text = " ".join(out.split())
    _, d, _ = report_json(cap)
    notes = [n for t in (d or {}).get("traces", []) for n in (t.get("notes") or [])]
    check(f"capture range, {ranges} ranges: noted in text and JSON",
          want in text and any(want in n for n in notes), (text[:400], notes, err))
rc, out, err = run("report", "--color", "never", trace("pageable"))
check("no capture range: no such note", "cudaProfilerStart" not in out, out[:300])

print(f"1..{len(results)}")
failed_any = False
for i, (name, ok, detail) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} {name}")
    if not ok:
        failed_any = True
        print(f"# {detail}")
sys.exit(1 if failed_any else 0)
