#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The conventions every pfprof command keeps (suite `cli`).

Usage: test-cli-conventions.py PFPROF HELP_TO_MAN WORKDIR

One meaning per short option (-o --output, -f --force, -F --format), the
old `-f FORMAT` refused naming --format; report's format from -o's
extension; an existing -o kept with exit 3 naming --force; usage lines
that start with `pfprof COMMAND` and say each argument once; `pfprof help
COMMAND`; `pfprof version`; "did you mean"; a program on PATH run as
`pfprof -- PROGRAM`, with a warning when its name looks like a command;
man pages with every section, generated from --help. Prints TAP.
"""
import csv
import io
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

PFPROF, HELP_TO_MAN, WORK = sys.argv[1:4]
os.makedirs(WORK, exist_ok=True)
results = []
COMMANDS = ["record", "report", "render", "view", "export", "diff", "import"]
MAN_SECTIONS = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "ENVIRONMENT",
                "FILES", "EXAMPLES", "SEE ALSO"]


def run(*args, cwd=None, env=None):
    e = dict(os.environ, **(env or {}))
    p = subprocess.run([PFPROF, *args], capture_output=True, text=True, cwd=cwd, env=e, timeout=120)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


trace = os.path.join(WORK, "t.pfprof")
rc, _, err = run("generate", "-o", trace, "--force", "--plant", "pageable", "--steps", "20")
check("generate writes the test trace", rc == 0, err)

# Usage lines and one meaning per short option.
for cmd in COMMANDS + ["generate"]:
    rc, out, err = run(cmd, "--help")
    usage = out.split("\n")[1].strip() if out.startswith("Usage:\n") else ""
    words = usage.split()
    args = [w for w in words[3:] if w.isupper() or w.endswith("...")]
    check(f"{cmd} --help: usage starts with 'pfprof {cmd}' and names each argument once",
          rc == 0 and usage.startswith(f"pfprof {cmd} ") and len(args) == len(set(args)), usage)
    shorts = dict(re.findall(r"^\s+-(\w), --([\w-]+)", out, re.M))
    wrong = {s: l for s, l in shorts.items()
             if {"o": "output", "f": "force", "F": "format", "q": "quiet"}.get(s, l) != l}
    check(f"{cmd} --help: -o, -f, -F, -q mean --output, --force, --format, --quiet", not wrong,
          str(wrong))
    if re.search(r"^[ \t]+--(force|format)\b", out, re.M):
        check(f"{cmd}: --force is -f and --format is -F", False, out)
    rc2, out2, _ = run("help", cmd)
    check(f"pfprof help {cmd} prints {cmd}'s help", rc2 == 0 and out2 == out)

# The old -f FORMAT: refused, naming the new spelling, nothing written.
for cmd, args in (("report", ["-f", "json", trace]), ("report", ["-fjson", trace]),
                  ("export", ["-f", "sqlite", trace, "-o", os.path.join(WORK, "x.sqlite")]),
                  ("diff", ["-f", "markdown", trace, trace])):
    rc, out, err = run(cmd, *args)
    check(f"{cmd} {' '.join(args[:1])}: refused, naming --format", rc == 2 and out == ""
          and "--format" in err and err.count("\n") == 1, err)

# report: the format from -o's extension unless --format says otherwise.
for name, probe in (("r.json", lambda s: json.loads(s)["format"] == "pfprof-report/1"),
                    ("r.md", lambda s: s.startswith("#")),
                    ("r.xml", lambda s: ET.fromstring(s).tag == "testsuites"),
                    ("r.html", lambda s: s.lstrip().lower().startswith("<!doctype html")),
                    ("r.txt", lambda s: not s.lstrip().startswith(("{", "<", "#")))):
    path = os.path.join(WORK, name)
    rc, _, err = run("report", trace, "-o", path, "-f")
    text = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    try:
        good = probe(text)
    except Exception:
        good = False
    check(f"report -o {name}: the format of the extension", rc == 0 and good, err + text[:200])
path = os.path.join(WORK, "forced.json")
rc, _, err = run("report", trace, "-o", path, "--format", "text", "-f")
text = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
check("report -o x.json --format text: --format wins", rc == 0 and not text.lstrip().startswith("{"),
      err)

# CSV: the per-step table and the findings, as the JSON counts them.
rc, out, err = run("report", "--format", "json", trace)
rep = json.loads(out) if rc == 0 else {"summary": {"steps": {"count": -1, "steady": -1}}, "findings": []}
rc, out, err = run("report", "--format", "csv", trace)
rows = list(csv.DictReader(io.StringIO(out, newline=""))) if rc == 0 else []
check("report --format csv: one row per step with the breakdown columns",
      rc == 0 and len(rows) == rep["summary"]["steps"]["count"] and rows
      and {"step", "warmup", "duration_ns", "data_wait_ns", "copy_exposed_ns", "idle_ns"} <= set(rows[0])
      and sum(r["warmup"] == "0" for r in rows) == rep["summary"]["steps"]["steady"], err + out[:300])
rc, out, err = run("report", "--format", "csv-findings", trace)
rows = list(csv.DictReader(io.StringIO(out, newline=""))) if rc == 0 else []
check("report --format csv-findings: one row per finding, the JSON's figures",
      rc == 0 and [r["rule"] for r in rows] == [f["rule"] for f in rep["findings"]]
      and [int(r["est_savings_ns"]) for r in rows] == [f["est_savings_ns"] for f in rep["findings"]]
      and all(r["fix"] == f["fix"] for r, f in zip(rows, rep["findings"])), err + out[:300])
path = os.path.join(WORK, "steps.csv")
rc, _, err = run("report", trace, "-o", path, "-f")
check("report -o steps.csv: the per-step CSV",
      rc == 0 and open(path, encoding="utf-8").read().startswith("trace,rank,step,"), err)

# An existing -o: kept, exit 3, one line naming --force; -f replaces it.
for cmd, args, name in (("report", [trace], "keep.json"), ("export", [trace], "keep.json"),
                        ("render", [trace], "keep.png"), ("diff", [trace, trace], "keep.md"),
                        ("generate", ["--steps", "5"], "keep.pfprof")):
    path = os.path.join(WORK, cmd + "-" + name)
    with open(path, "w") as f:
        f.write("precious")
    rc, _, err = run(cmd, *args, "-o", path)
    check(f"{cmd} -o EXISTING: exit 3, one line naming --force, file kept",
          rc == 3 and "--force" in err and err.count("\n") == 1 and open(path).read() == "precious",
          f"rc {rc} {err!r}")
    rc, _, err = run(cmd, *args, "-o", path, "-f")
    check(f"{cmd} -o EXISTING -f: replaced", rc == 0 and open(path, "rb").read() != b"precious", err)

# Words that are no command.
rc, out, err = run("reprot", trace)
check("pfprof reprot: did you mean 'report'?", rc == 2 and "did you mean 'report'?" in err, err)
rc, out, err = run("no-such-program-xyz", "a")
check("pfprof WORD (not on PATH): says pfprof -- WORD", rc == 2 and "pfprof -- no-such-program-xyz" in err,
      err)
marker = os.path.join(WORK, "ran")
if os.path.exists(marker):
    os.unlink(marker)
rc, out, err = run("python3", "-c", f"open({marker!r}, 'w').write('yes')", cwd=WORK,
                   env={"PFPROF_COLLECTOR": os.path.join(WORK, "no-collector.so")})
ran = os.path.exists(marker)
rc2, out2, err2 = run("--", "python3", "-c", "pass", cwd=WORK,
                      env={"PFPROF_COLLECTOR": os.path.join(WORK, "no-collector.so")})
# Without a collector both refuse alike; with one, the program runs.
check("pfprof python3 ...: run as pfprof -- python3 ...",
      ran or (rc == rc2 and err.replace("python3", "") == err2.replace("python3", "")),
      f"{rc} {err!r} / {rc2} {err2!r}")
check("pfprof python3 ...: no warning about a pfprof command", "not a pfprof command" not in err, err)

# Without an NVIDIA driver (CI, a laptop) nothing can be traced; the
# refusal says so rather than only naming the missing collector.
if not any(os.path.exists(p) for p in ("/dev/nvidiactl", "/proc/driver/nvidia", "/dev/dxg")):
    for env in ({}, {"PFPROF_COLLECTOR": os.path.join(WORK, "no-collector.so")}):
        rc, out, err = run("--", "python3", "-c", "print(1)", cwd=WORK, env=env)
        # With a collector the program runs (its exit status, 0); without
        # one nothing runs (2). Either way one line names the cause.
        check(f"pfprof -- python3 without a driver{' (PFPROF_COLLECTOR set)' if env else ''}: "
              "one line saying no NVIDIA driver or GPU was found",
              rc in (0, 2) and "no NVIDIA driver or GPU was found" in err and err.count("\n") == 1,
              f"{rc} {err!r}")

# `version` and `help` are words as well as options; a program on PATH
# named like a command (test(1)) is still run, with a warning first.
rc, out, err = run("version")
rc2, out2, _ = run("--version")
check("pfprof version: the version, as --version", rc == 0 and out == out2 and out.startswith("pfprof "),
      f"{rc} {out!r} {err!r}")
rc, out, err = run("test", "-e", "/", cwd=WORK, env={"PFPROF_COLLECTOR": os.path.join(WORK, "no-collector.so")})
check("pfprof test: warns that 'test' is not a pfprof command, naming pfprof -- test",
      err.startswith("pfprof: warning: 'test' is not a pfprof command") and "pfprof -- test" in err, err)

# Text, Markdown, HTML and diff: the same words and figures for the same
# thing (a recorded sample: real numbers, warm-up steps).
sample = os.path.join(os.path.dirname(os.path.abspath(HELP_TO_MAN)), "..", "samples", "traces",
                      "b_serialized.pfprof")
fix = sample.replace(".pfprof", "_fix.pfprof")
if os.path.exists(sample) and os.path.exists(fix):
    outs = {}
    for fmt in ("text", "markdown", "html"):
        rc, out, err = run("report", "--format", fmt, "--width", "1000", sample)
        outs[fmt] = re.sub(r"<[^>]+>", " ", out) if fmt == "html" else out.replace("\\", "")
    rc, out, err = run("report", "--format", "json", sample)
    js = json.loads(out)
    dev = js["summary"]["devices"][0]
    steps_phrase = re.search(r"\d+ steps, \d+ after warm-up, median [^(]+\([^)]*\)", outs["text"])
    busy = re.search(r"kernel busy ([^,;]+\(\d+\.\d%\))", outs["text"])
    idle = re.search(r"GPU idle ([^,;]+\(\d+\.\d%\))", outs["text"])
    parts = re.search(r"Median of each part over the steady steps: (data wait .*?, GPU idle [0-9.]+ \S+)\.", outs["text"])
    same = steps_phrase and busy and idle and parts and all(
        steps_phrase.group(0) in o and busy.group(1) in o and idle.group(1) in o and parts.group(1) in o
        for o in outs.values())
    check("text, Markdown and HTML: the same steps phrase, kernel busy, GPU idle and median step",
          same, f"{steps_phrase and steps_phrase.group(0)} | {busy and busy.group(1)} | "
          f"{idle and idle.group(1)} | {parts and parts.group(1)}")
    check("the steps phrase counts what the JSON counts",
          steps_phrase and steps_phrase.group(0).startswith(
              f"{js['summary']['steps']['count']} steps, {js['summary']['steps']['steady']} after warm-up"),
          steps_phrase and steps_phrase.group(0))
    rc, out, err = run("diff", sample, fix)
    head = re.search(r"\((\d+ steps, \d+ after warm-up)", out)
    labels = all(w in out for w in ("data wait", "copy exposed", "copy hidden", "compute", "sync wait",
                                    "GPU idle", "copy/compute overlap"))
    check("diff: the report's step count and words", head and steps_phrase
          and steps_phrase.group(0).startswith(head.group(1)) and labels, out[:600])
    for fmt in ("markdown", "html"):
        check(f"{fmt}: the device table's columns are the shared headings",
              all(h in outs[fmt] for h in ("Kernel busy", "GPU idle", "Copy/compute overlap", "Copy exposed",
                                           "Data wait", "Sync wait")), outs[fmt][:800])

# Man pages: every section, from --help, pfprof-import(1) among them.
for cmd in [None] + COMMANDS:
    name = "pfprof" + ("-" + cmd if cmd else "")
    page = os.path.join(WORK, name + ".1")
    p = subprocess.run([sys.executable, HELP_TO_MAN, PFPROF, "0", page] + ([cmd] if cmd else []),
                       capture_output=True, text=True)
    text = open(page, encoding="utf-8").read() if p.returncode == 0 else ""
    heads = [h for h in re.findall(r"^\.SH (.+)$", text, re.M) if cmd or h != "COMMANDS"]
    check(f"{name}(1): {', '.join(MAN_SECTIONS)}", heads == MAN_SECTIONS, f"{heads} {p.stderr}")
    if cmd:
        _, helptext, _ = run(cmd, "--help")
        longs = set(re.findall(r"^\s+(?:-\w, )?--([\w-]+)", helptext, re.M))
        in_man = set(re.findall(r"\\fB\\-\\-([\w\\-]+)\\fR", text))
        in_man = {o.replace("\\-", "-") for o in in_man}
        check(f"{name}(1) lists every option of --help", longs and longs <= in_man,
              str(longs - in_man))

print(f"1..{len(results)}")
failed = 0
for i, (name, ok, detail) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {name}")
    if not ok:
        failed += 1
        for line in str(detail).splitlines()[:20]:
            print(f"#   {line}")
sys.exit(1 if failed else 0)
