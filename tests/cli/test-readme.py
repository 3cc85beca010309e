#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What a newcomer runs first from README.md (suite `cli`).

Usage: test-readme.py SOURCE_ROOT

README's "Set up and test" section comes before the usage and names the
set-up command and the test command; each is an executable file of the
checkout, and the test command runs scripts/test.sh as CI does. Every
comment in scripts/ and .ci/ that points at a README section names one
that exists. A command that needs root is not typed with sudo but said
to run "as root (or with sudo)". README stays short (at most 200 lines),
gives `pfprof try` a section of its own, and its documentation list
links every docs/*.md; every relative link in it leads to a file.
Prints TAP.
"""
import os
import re
import sys

ROOT = sys.argv[1]
results = []


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


readme = read("README.md")
headings = re.findall(r"^#+ (.+)$", readme, re.M)
section = re.search(r"^## Set up and test\n(.*?)^## ", readme, re.M | re.S)
check("README has a 'Set up and test' section", section, str(headings))
if section:
    first = headings.index("Set up and test")
    check("'Set up and test' comes before the usage", first <= 1, str(headings))
    commands = re.findall(r"^    (\S+)", section.group(1), re.M)
    check("it names scripts/quickstart.sh and .ci/run",
          commands[:2] == ["scripts/quickstart.sh", ".ci/run"], str(commands))
    for c in commands[:2]:
        path = os.path.join(ROOT, c)
        check(f"{c} is an executable file", os.path.isfile(path) and os.access(path, os.X_OK))
    check("it names the everyday test command, scripts/test.sh --quick",
          "`scripts/test.sh --quick`" in section.group(1))
    check("scripts/test.sh takes --quick", re.search(r"^  --quick\)", read("scripts/test.sh"), re.M))
n_lines = readme.count("\n")
check("README.md is at most 200 lines (the rest is in docs/)", n_lines <= 200, f"{n_lines} lines")
check("README has a section on `pfprof try`",
      any(h.startswith("`pfprof try`") for h in headings), str(headings))
doc_list = re.search(r"^## Documentation\n(.*?)(?=^## |\Z)", readme, re.M | re.S)
check("README has a 'Documentation' list", doc_list, str(headings))
if doc_list:
    for name in sorted(os.listdir(os.path.join(ROOT, "docs"))):
        if name.endswith(".md"):
            check(f"the documentation list links docs/{name}", f"(docs/{name})" in doc_list.group(1))
for link in sorted(set(re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", readme))):
    check(f"README's link {link} leads to a file", os.path.exists(os.path.join(ROOT, link)))
ci = read(".ci/run")
check(".ci/run runs scripts/test.sh", re.search(r"^exec scripts/test\.sh\b", ci, re.M), ci)

for d in ("scripts", ".ci"):
    for name in sorted(os.listdir(os.path.join(ROOT, d))):
        path = os.path.join(d, name)
        if not os.path.isfile(os.path.join(ROOT, path)):
            continue
        try:
            text = read(path)
        except UnicodeDecodeError:
            continue
        for ref in re.findall(r"README's \"([^\"]+)\"", text):
            check(f"{path}: README has the section \"{ref}\"", ref in headings)
        for ref in re.findall(r"README's (first|second|third|test) command", text):
            check(f"{path}: points at a named README section, not \"README's {ref} command\"", False)

docs = ["README.md", "samples/README.md"] + [
    os.path.join("docs", n) for n in sorted(os.listdir(os.path.join(ROOT, "docs"))) if n.endswith(".md")]
for doc in docs:
    text = read(doc)
    for line in re.findall(r"^    .*$", text, re.M):
        if not re.search(r"\bsudo\b", line.replace("as root (or with sudo)", "")):
            continue
        check(f"{doc}: says 'as root (or with sudo)' rather than typing sudo", False, line.strip())
    for m in re.finditer(r"^    (.*\b(meson install|apt install|apt-get install)\b.*)$", text, re.M):
        around = text[max(0, m.start() - 300):m.end() + 300]
        check(f"{doc}: '{m.group(2)}' is said to run as root (or with sudo)",
              "as root (or with sudo)" in around, m.group(1).strip())

print(f"1..{len(results)}")
for i, (name, ok, detail) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {name}")
    if not ok and detail:
        for line in str(detail).splitlines()[:10]:
            print(f"# {line}")
sys.exit(0 if all(ok for _, ok, _ in results) else 1)
