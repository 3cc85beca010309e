#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The documentation quotes what pfprof prints now (suite `cli`).

Usage: test-docs-output.py SOURCE_ROOT PFPROF WORKDIR

scripts/update-docs.py regenerates, into WORKDIR, every output and figure
that README.md, docs/*.md and samples/README.md mark as a command's
(`<!-- output: ... -->`, `<!-- figures: ... -->`), with the built PFPROF
on the committed sample traces; each committed document must be the
same, and a difference is named by file and line. Every quoted command
output (a ``` block that starts with "$ pfprof") is so marked, and the
check itself notices a quoted line that drifted. Prints TAP.
"""
import difflib
import glob
import os
import re
import shutil
import subprocess
import sys

ROOT, PFPROF, WORK = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
SCRIPT = os.path.join(ROOT, "scripts", "update-docs.py")
results = []


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


def documents():
    docs = ["README.md"] + sorted(
        os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
    return docs + ["samples/README.md"]


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
out = os.path.join(WORK, "regenerated")
p = subprocess.run([sys.executable, SCRIPT, "--pfprof", PFPROF, "--output-dir", out],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
check("scripts/update-docs.py regenerates the documents", p.returncode == 0, p.stderr)

markers = 0
for doc in documents():
    with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
        committed = f.read()
    markers += len(re.findall(r"^<!-- (?:output|figures): ", committed, re.M))
    lines = committed.split("\n")
    # Every quoted command output is generated: its block has a marker.
    for i, line in enumerate(lines):
        if line.startswith("$ pfprof") and i >= 1 and lines[i - 1].startswith("```"):
            marked = i >= 2 and lines[i - 2].strip().endswith("-->")
            check(f"{doc}:{i + 1}: the quoted output of `{line[2:]}` is generated", marked,
                  "put <!-- output: COMMAND --> above its ``` block")
    regenerated = os.path.join(out, doc)
    if not os.path.isfile(regenerated):
        check(f"{doc}: regenerated", False, p.stderr)
        continue
    with open(regenerated, encoding="utf-8") as f:
        new = f.read().split("\n")
    sm = difflib.SequenceMatcher(a=lines, b=new, autojunk=False)
    drift = []
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag != "equal":
            drift.append(f"{doc}:{i1 + 1}: quoted output differs from what the command prints now")
            drift += [f"  - {x}" for x in lines[i1:i2]] + [f"  + {x}" for x in new[j1:j2]]
    check(f"{doc}: every quoted output is what pfprof prints now", not drift,
          "\n".join(drift[:40]) + "\n(scripts/update-docs.py regenerates them)")

check("the documents mark quoted outputs and figures", markers >= 3, f"{markers} markers")

# The check notices a drifted line, and names the file and line.
fake = os.path.join(WORK, "drift.md")
with open(fake, "w", encoding="utf-8") as f:
    f.write("# A document\n\n"
            "<!-- output: pfprof report samples/traces/a_pageable.pfprof\n"
            "     keep /^\\d+ steps/ +1 -->\n"
            "```\n$ pfprof report samples/traces/a_pageable.pfprof\n...\n"
            "76 steps, 75 after warm-up, median 99.9 ms\n```\n")
p = subprocess.run([sys.executable, SCRIPT, "--pfprof", PFPROF, "--check", fake],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
check("--check fails on a quoted line that drifted", p.returncode == 1, p.stderr)
check("... naming the file and the line", "drift.md:8:" in p.stderr, p.stderr)
with open(fake, "w", encoding="utf-8") as f:
    f.write("<!-- figures: pfprof report samples/traces/a_pageable.pfprof\n"
            "     /median step was (\\S+ ms)/ /median (\\S+ ms)/ -->\n"
            "The median step was\n99.9 ms there.\n")
p = subprocess.run([sys.executable, SCRIPT, "--pfprof", PFPROF, "--check", fake],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
check("--check fails on a figure in prose that drifted", p.returncode == 1 and "drift.md:4:" in p.stderr
      and "99.9 ms" in p.stderr, p.stderr)

print(f"1..{len(results)}")
for i, (name, ok, detail) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {name}")
    if not ok and detail:
        for line in str(detail).splitlines()[:50]:
            print(f"# {line}")
sys.exit(0 if all(ok for _, ok, _ in results) else 1)
