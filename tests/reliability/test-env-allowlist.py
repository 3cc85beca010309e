#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The collector reads only allow-listed environment variables, and stores
only those marked stored (suite `reliability`).

Usage: test-env-allowlist.py SOURCE_ROOT [LIBPFPROF_COLLECTOR_SO]

Traces get shared in bug reports and CI artifacts, so the process's
environment (tokens, keys) must not end up in them. Without a GPU no trace
can be recorded here (tests/gpu/secret-env.sh does that on the GPU), so
this test checks the code that decides it:
  - every getenv() in collector/ and in `pfprof record` (cli/pfprof-cmd-
    record.c, cli/pfprof-record-*.c, the Python hook) names a variable
    listed in the allow-list table of docs/reliability.md; a getenv() of a
    parameter is followed to the literal names its callers pass;
  - a variable read through a helper that writes trace metadata
    (set_meta) is marked "yes" (stored) in that table;
  - nothing walks the whole environment: no `environ`, `__environ`,
    `/proc/self/environ`, `os.environ` iteration, getenv of a computed name;
  - every variable in the table is still read somewhere (the list stays
    true);
  - the built collector library imports no `environ` symbol.
Prints TAP.
"""
import glob
import os
import re
import shutil
import subprocess
import sys

from reltest import check, finish, note

ROOT = sys.argv[1]
SO = sys.argv[2] if len(sys.argv) > 2 else None
DOC = os.path.join(ROOT, "docs", "reliability.md")

C_SOURCES = sorted(glob.glob(os.path.join(ROOT, "collector", "*.[ch]"))
                   + [os.path.join(ROOT, "cli", "pfprof-cmd-record.c")]
                   + glob.glob(os.path.join(ROOT, "cli", "pfprof-record-*.c")))
C_SOURCES = [p for p in C_SOURCES if os.path.isfile(p)]
NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")


def strip_comments(src):
    """C source without comments (string literals kept)."""
    out, i, n = [], 0, len(src)
    while i < n:
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * src.count("\n", i, j))
            i = j
        elif src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src[i] == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            out.append(src[i:j + 1])
            i = j + 1
        else:
            out.append(src[i])
            i += 1
    return "".join(out)


def call_args(src, start):
    """The top-level comma-separated arguments of the call whose '(' is at
    @start, and the index just past its ')'."""
    depth, i, cur, args = 0, start, [], []
    in_str = False
    while i < len(src):
        ch = src[i]
        if in_str:
            cur.append(ch)
            if ch == "\\":
                cur.append(src[i + 1])
                i += 1
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
            cur.append(ch)
        elif ch == "(":
            depth += 1
            if depth > 1:
                cur.append(ch)
        elif ch == ")":
            depth -= 1
            if depth == 0:
                args.append("".join(cur).strip())
                return args, i + 1
            cur.append(ch)
        elif ch == "," and depth == 1:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
        i += 1
    return args, i


def functions(src):
    """(name, params, body start, body end) of each function definition in
    GNU style (name at column 0 followed by ' (')."""
    out = []
    for m in re.finditer(r"^([A-Za-z_]\w*) \(", src, re.M):
        args, end = call_args(src, m.end() - 1)
        rest = src[end:end + 200].lstrip()
        if not rest.startswith("{"):
            continue
        body_start = src.index("{", end)
        depth, j = 0, body_start
        while j < len(src):
            if src[j] == "{":
                depth += 1
            elif src[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        out.append((m.group(1), args, body_start, j))
    return out


GETENV = re.compile(r"\b(?:g_getenv|secure_getenv|getenv)\s*\(")
reads = {}        # name -> set of "file:function"
stored = set()    # names read through a helper that writes metadata
problems = []
sources = {p: strip_comments(open(p, encoding="utf-8").read()) for p in C_SOURCES}
all_funcs = {p: functions(s) for p, s in sources.items()}

for path, src in sources.items():
    rel = os.path.relpath(path, ROOT)
    code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', src)   # string literals blanked
    for bad in (r"\benviron\b", r"\b__environ\b", r"\bclearenv\b"):
        if re.search(bad, code):
            problems.append(f"{rel}: uses {bad.strip(chr(92) + 'b')}")
    for bad in (r"/proc/self/environ", r"/proc/%d/environ"):
        if re.search(bad, src):
            problems.append(f"{rel}: uses {bad.strip(chr(92) + 'b')}")
    for m in GETENV.finditer(src):
        args, _ = call_args(src, m.end() - 1)
        arg = args[0] if args else ""
        fn = next((f for f in all_funcs[path] if f[2] <= m.start() <= f[3]), None)
        where = f"{rel}:{fn[0] if fn else '?'}"
        lit = re.fullmatch(r'"([^"]*)"', arg)
        if lit:
            reads.setdefault(lit.group(1), set()).add(where)
            continue
        # getenv (param): follow the parameter to its callers' literals.
        if fn is None or not re.fullmatch(r"[A-Za-z_]\w*", arg):
            problems.append(f"{where}: getenv of a computed name ({arg!r})")
            continue
        idx = next((i for i, p in enumerate(fn[1]) if re.search(rf"\b{arg}$", p)), None)
        if idx is None:
            problems.append(f"{where}: getenv ({arg}) of something not a parameter")
            continue
        writes_meta = "set_meta" in src[fn[2]:fn[3]]
        callers = 0
        for p2, s2 in sources.items():
            for c in re.finditer(rf"\b{fn[0]}\s*\(", s2):
                if re.match(r"^[A-Za-z_]\w* \($", s2[s2.rfind("\n", 0, c.start()) + 1:c.end()]):
                    continue   # the definition itself
                cargs, _ = call_args(s2, c.end() - 1)
                if idx >= len(cargs):
                    continue
                clit = re.fullmatch(r'"([^"]*)"', cargs[idx])
                if not clit:
                    problems.append(f"{os.path.relpath(p2, ROOT)}: {fn[0]} called with a computed "
                                    f"name ({cargs[idx]!r})")
                    continue
                callers += 1
                reads.setdefault(clit.group(1), set()).add(f"{os.path.relpath(p2, ROOT)}:{fn[0]}")
                if writes_meta:
                    stored.add(clit.group(1))
        if callers == 0:
            note(f"{where}: helper {fn[0]} has no caller with a literal name")

# The Python hook that `pfprof record` injects into the program, and the
# fixes module `pfprof try` adds beside it.
for name in ("pfprof_sitecustomize.py", "pfprof_fixes.py"):
    hook = os.path.join(ROOT, "cli", name)
    if os.path.isfile(hook):
        text = open(hook, encoding="utf-8").read()
        for m in re.finditer(r"environ\.get\(\s*\\?['\"]([A-Za-z_0-9]+)", text):
            reads.setdefault(m.group(1), set()).add(f"cli/{name}:python")
        if re.search(r"environ\s*\.\s*(items|keys|values|copy)\b|dict\(\s*_?os\.environ|"
                     r"for \w+ in _?os\.environ", text):
            problems.append(f"cli/{name}: the Python hook walks os.environ")

check("sources scanned", len(sources) >= 3 and len(reads) >= 4,
      f"{len(sources)} files, {len(reads)} names")
check("nothing reads the whole environment or a computed name", not problems, "\n".join(problems))

# The allow-list: the table under "Environment variables" in docs/reliability.md:
# | `NAME` | stored | read by | purpose |
allow = {}
try:
    doc = open(DOC, encoding="utf-8").read()
    sec = doc[doc.index("## Environment variables"):]
    sec = sec[:sec.find("\n## ", 4)] if "\n## " in sec[4:] else sec
    for line in sec.splitlines():
        m = re.match(r"^\|\s*`([A-Z_][A-Z0-9_]*)`\s*\|\s*([^|]*?)\s*\|", line)
        if m:
            allow[m.group(1)] = m.group(2).lower().startswith("yes")
except (OSError, ValueError) as e:
    note(f"cannot read the allow-list: {e}")
check("docs/reliability.md has the environment allow-list", len(allow) >= 4, repr(allow))

for name in sorted(reads):
    ok = NAME.match(name) and name in allow
    check(f"{name} is allow-listed (read in {', '.join(sorted(reads[name]))})", ok,
          f"add `{name}` to the table in docs/reliability.md, or stop reading it")
for name in sorted(stored):
    check(f"{name} is stored in the trace and marked so", allow.get(name) is True,
          "mark it 'yes' in the stored column")
for name in sorted(allow):
    check(f"allow-listed {name} is still read", name in reads,
          "remove it from docs/reliability.md if nothing reads it")
note("stored in the trace: " + ", ".join(sorted(stored)))
note("read, never stored: " + ", ".join(sorted(set(reads) - stored)))

# The built library: no environ import (a getenv import is expected).
if SO and os.path.isfile(SO) and shutil.which("nm"):
    syms = subprocess.run(["nm", "-D", "--undefined-only", SO], capture_output=True, text=True).stdout
    imported = {l.split()[-1].split("@")[0] for l in syms.splitlines() if l.strip()}
    check("libpfprof-collector.so imports no environ", not ({"environ", "__environ", "_environ"}
                                                            & imported), sorted(imported)[:40])
    check("libpfprof-collector.so reads the environment only through getenv",
          "getenv" in imported and "secure_getenv" not in imported)
else:
    note("collector library not built here: symbol check skipped")

finish()
