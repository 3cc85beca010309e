#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Strings from a trace are untrusted, in every output (suite `reliability`).

Usage: test-untrusted-strings.py PFPROF WORKDIR

Plants hostile text where a profiled program (or whoever sends a trace)
controls it: kernel, thread and device names, the NVTX step range name, the
recorded command line and host name, and the trace's own file name. The
text holds markup (<script>, &, quotes), Markdown syntax (|, `, *, _),
control characters, ANSI escape sequences (colour and OSC window title),
newlines and carriage returns, and, in some names, invalid UTF-8. Then:
  - text report and diff: no ESC byte or other control character reaches
    stdout (only pfprof's own colour codes with --color always);
  - JSON report, export and diff: valid UTF-8 that parses, and the planted
    text round-trips exactly;
  - Markdown: |, `, <, > from the trace are escaped, no injected line;
  - JUnit XML: parses, no raw <script>, round-trips (control characters,
    which XML 1.0 cannot carry, removed);
  - HTML: no raw <script> from the trace;
  - render PNG and SVG succeed (SVG parses as XML).
Each check also asserts that the planted text is shown at all, so that a
format that drops it cannot pass by accident. Prints TAP.
"""
import json
import os
import re
import shutil
import sys
import xml.etree.ElementTree as ET

from reltest import check, clear_dir, commands, connect, finish, generate, note, run

PFPROF, WORK = sys.argv[1], os.path.abspath(sys.argv[2])
os.makedirs(WORK, exist_ok=True)
TMP = os.path.join(WORK, "tmp")
OUT = os.path.join(WORK, "out")
clear_dir(TMP)
clear_dir(OUT)

MARK = "alert(1)"
EVIL = ("<script>alert(1)</script>&amp;&\"dq\"'sq'"
        "\x01\x07\x08\x7f\x1b[31mRED\x1b[0m\x1b]0;pwned-title\x07"
        "|pipe|`tick`*star*_u_\n# injected heading\r\nCR")
BAD_UTF8 = b"\xff\xfe\xc3\x28\xed\xa0\x80"
CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]")   # all but \t and \n
SGR = re.compile(rb"\x1b\[[0-9;]*m")

base = generate(PFPROF, os.path.join(WORK, "base.pfprof"), "--steps", "20", "--plant", "all")
# The file name itself is hostile too (any byte but / and NUL is allowed).
evil_dir = os.path.join(WORK, "traces")
clear_dir(evil_dir)
trace = os.path.join(evil_dir, "run<b>&'\"|`\x1b[32mG\x1b]0;t\x07\x01\nnl.pfprof")
shutil.copy(base, trace)
c = connect(trace)
# Kernel and device names: valid UTF-8, so they must round-trip exactly.
c.execute("UPDATE strings SET value = value || ?1 || id WHERE id IN"
          " (SELECT name_id FROM kernels UNION SELECT name_id FROM devices)", (EVIL,))
# Thread names: hostile and invalid UTF-8.
c.execute("UPDATE strings SET value = CAST(CAST(value || ?1 AS BLOB) || ?2 AS TEXT) WHERE id IN"
          " (SELECT name_id FROM threads)", (EVIL, BAD_UTF8))
# The step range name: the default step pattern still matches it, and the
# reports name the step range they used.
c.execute("UPDATE strings SET value = value || ?1 WHERE value = 'train_step'", (EVIL,))
c.execute("UPDATE meta SET value = value || ?1 WHERE key IN ('command_line', 'gpu_names')", (EVIL,))
c.execute("UPDATE meta SET value = CAST(CAST(value || ?1 AS BLOB) || ?2 AS TEXT) WHERE key = 'host'",
          (EVIL, BAD_UTF8))
command_line = c.execute("SELECT value FROM meta WHERE key = 'command_line'").fetchone()[0]
kernel_names = {r[0] for r in c.execute(
    "SELECT value FROM strings WHERE id IN (SELECT name_id FROM kernels)")}
c.close()
CMDS = commands(PFPROF, TMP)


def pf(*args):
    r = run(PFPROF, list(args), TMP)
    ok = r.rc in (0, 1) and not r.crashed()
    return r, ok


def strings_in(obj):
    """Every string value (and key) in a parsed JSON document."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from strings_in(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from strings_in(v)


def is_utf8(data):
    try:
        data.decode("utf-8", "strict")
        return True
    except UnicodeDecodeError as e:
        return False


def no_control(data):
    """No control character (\\t and \\n allowed) and no ESC."""
    m = CONTROL.search(data)
    return m is None, (f"control byte {m.group(0)!r} at {m.start()}: "
                       f"{data[max(0, m.start() - 60):m.start() + 20]!r}" if m else "")


# ---- text report ---------------------------------------------------------
for extra in ([], ["--summary"], ["--color", "never"]):
    r, ok = pf("report", *extra, trace)
    clean, where = no_control(r.out)
    check(f"text report {' '.join(extra) or '(default)'}: no control characters or escapes on stdout",
          ok and clean and MARK.encode() in r.out, where + "\n" + r.describe())
r, ok = pf("report", "--color", "always", trace)
stripped = SGR.sub(b"", r.out)
clean, where = no_control(stripped)
check("text report --color always: only pfprof's own colour codes (no OSC, no planted escape)",
      ok and clean and b"\x1b]" not in r.out and MARK.encode() in r.out, where + "\n" + r.describe())
check("text report: valid UTF-8", ok and is_utf8(r.out))

# ---- JSON report: parses and round-trips --------------------------------
r, ok = pf("report", "--format", "json", trace)
try:
    doc = json.loads(r.out)   # bytes: must be valid UTF-8
    vals = list(strings_in(doc))
    t0 = doc["traces"][0]
    check("json report: parses as UTF-8 JSON", ok)
    check("json report: the trace path round-trips", t0.get("path") == trace, repr(t0.get("path")))
    check("json report: the command line round-trips", t0.get("command_line") == command_line,
          repr(t0.get("command_line")))
    check("json report: the step range name round-trips",
          any(("train_step" + EVIL) in v for v in vals), "not found in any string")
except (ValueError, KeyError, IndexError) as e:
    check("json report: parses as UTF-8 JSON", False, f"{e}\n{r.describe()}")

# ---- Markdown -----------------------------------------------------------
r, ok = pf("report", "--format", "markdown", trace)
md = r.out
text = md.decode("utf-8", "replace")
clean, where = no_control(md)
check("markdown report: no control characters or escapes", ok and clean, where)
check("markdown report: valid UTF-8", ok and is_utf8(md))
check("markdown report: the planted file name is shown", "run" in text and "nl.pfprof" in text, text[:400])
for raw in ("<b>", "|`", "<script>"):
    check(f"markdown report: no raw {raw!r} from the trace", raw.encode() not in md,
          text[max(0, text.find(raw) - 100):text.find(raw) + 100])
check("markdown report: no injected line", not re.search(r"^#+ injected", text, re.M))
# Every row of a table has as many unescaped | as its header: a planted |
# would add a cell.
bad_rows, header = [], None
for line in text.splitlines() + [""]:
    if line.startswith("|"):
        n = len(re.findall(r"(?<!\\)\|", line))
        if header is None:
            header = n
        elif n != header:
            bad_rows.append(line)
    else:
        header = None
check("markdown report: table rows keep their column count",
      not bad_rows and "| " in text, "\n".join(bad_rows[:3]))

# ---- JUnit XML ----------------------------------------------------------
r, ok = pf("report", "--format", "junit", trace)
try:
    root = ET.fromstring(r.out)
    check("junit report: parses as XML", ok)
    check("junit report: no raw <script> or <b> from the trace",
          b"<script>" not in r.out and b"<b>" not in r.out)
    attrs = [v for el in root.iter() for v in list(el.attrib.values()) + [el.text or ""]]
    want = re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", "", trace)
    check("junit report: the trace path round-trips (control characters removed)",
          any(want.replace("\n", "") in re.sub(r"\s", "", v) or want in v for v in attrs)
          or any("run<b>&'\"|`" in v for v in attrs), repr([a for a in attrs if "run" in a][:3]))
except ET.ParseError as e:
    check("junit report: parses as XML", False, f"{e}\n{r.out[:2000]!r}")

# ---- HTML ---------------------------------------------------------------
if b"html" in run(PFPROF, ["report", "--help"], TMP).out:
    r, ok = pf("report", "--format", "html", trace)
    check("html report: written", ok and r.out.rstrip().endswith(b"</html>"), r.describe())
    check("html report: no raw <script>alert or <b> from the trace",
          b"<script>alert" not in r.out and b"run<b>" not in r.out)
    check("html report: the planted file name is shown escaped", b"run&lt;b&gt;&amp;" in r.out)
    clean, where = no_control(r.out)
    check("html report: no control characters or escapes", clean, where)
    check("html report: valid UTF-8", is_utf8(r.out))

# ---- render -------------------------------------------------------------
for ext in ("png", "svg"):
    out = os.path.join(OUT, "t." + ext)
    r, ok = pf("render", trace, "-o", out, "--force")
    check(f"render {ext}: succeeds", r.rc == 0 and not r.crashed() and os.path.getsize(out) > 0,
          r.describe())
    if ext == "svg" and r.rc == 0:
        try:
            ET.parse(out)
            check("render svg: parses as XML", True)
        except ET.ParseError as e:
            check("render svg: parses as XML", False, str(e))

# ---- export -------------------------------------------------------------
if "export" in CMDS:
    out = os.path.join(OUT, "e.json")
    r, ok = pf("export", trace, "-o", out, "--force")
    try:
        with open(out, "rb") as f:
            doc = json.loads(f.read())
        vals = set(strings_in(doc))
        check("export: parses as UTF-8 JSON", ok)
        missing = [k for k in kernel_names if k not in vals]
        check("export: every planted kernel name round-trips", not missing, repr(missing[:2]))
    except (OSError, ValueError) as e:
        check("export: parses as UTF-8 JSON", False, f"{e}\n{r.describe()}")

# ---- diff ---------------------------------------------------------------
if "diff" in CMDS:
    r, ok = pf("diff", base, trace)
    clean, where = no_control(r.out)
    check("diff text: no control characters or escapes on stdout", ok and clean,
          where + "\n" + r.describe())
    r, ok = pf("diff", "--format", "markdown", base, trace)
    check("diff markdown: no raw <b> or control characters",
          ok and b"<b>" not in r.out and no_control(r.out)[0], r.describe())
    r, ok = pf("diff", "--format", "json", base, trace)
    try:
        vals = list(strings_in(json.loads(r.out)))
        check("diff json: parses, the trace path round-trips", ok and any(trace in v for v in vals),
              repr([v for v in vals if "run" in v][:3]))
    except ValueError as e:
        check("diff json: parses, the trace path round-trips", False, f"{e}\n{r.describe()}")

# ---- error messages -----------------------------------------------------
# A hostile file name in an error line: still one line on stderr.
badpath = os.path.join(evil_dir, "bad\n\x1b]0;t\x07<b>.pfprof")
with open(badpath, "wb") as f:
    f.write(b"junk")
r = run(PFPROF, ["report", badpath], TMP)
check("error line for a hostile file name: exit 2, one line", r.rc == 2 and len(r.err_lines) == 1,
      r.describe())
check("error line for a hostile file name: no escape sequence on stderr", b"\x1b" not in r.err
      and b"\x07" not in r.err, repr(r.err[:200]))
# A merged result of a shared folder names itself: its errors too.
good = os.path.join(evil_dir, "good.json")
r = run(PFPROF, ["report", "--format", "json", "-o", good, trace], TMP)
evil_json = os.path.join(evil_dir, "rank-\x1b]0;t\x07\x1b[2J.json")
with open(evil_json, "w") as f:
    f.write('{"format": "pfprof-report/1"')
r = run(PFPROF, ["report", good, evil_json], TMP)
check("merge error for a hostile result name: exit 2, one line, no escape sequence",
      r.rc == 2 and len(r.err_lines) == 1 and b"\x1b" not in r.err and b"\x07" not in r.err, r.describe())

finish()
