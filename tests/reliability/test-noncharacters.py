#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Valid Unicode that drawing libraries refuse (suite `reliability`).

Usage: test-noncharacters.py PFPROF WORKDIR

Every string of a trace (thread, kernel, device names) gets the
noncharacters U+FFFE, U+FDD0 and U+1FFFE and the bidi override U+202E
appended. `render` must draw every format, `report --format html` must
embed the whole timeline, and text output must not carry U+202E (it
reorders the line where it is shown) in text, Markdown or HTML.
Prints TAP.
"""
import os
import sys
import xml.etree.ElementTree as ET

from reltest import check, connect, finish, generate, run, setup

PFPROF, WORK, OUT, TMP = setup("out", "tmp")
trace = generate(PFPROF, os.path.join(WORK, "t.pfprof"), "--steps", "6", "--plant", "pageable")
c = connect(trace)
c.execute("UPDATE strings SET value = value || ?", ("\ufffe\ufdd0\U0001fffe\u202e",))
c.close()

for ext in ("png", "svg", "pdf"):
    out = os.path.join(OUT, "t." + ext)
    r = run(PFPROF, ["render", trace, "-o", out], TMP)
    check(f"render {ext}: exit 0, no message", r.rc == 0 and r.err_lines == [], r.describe())
    check(f"render {ext}: a file", os.path.isfile(out) and os.path.getsize(out) > 0)
    if ext == "svg" and os.path.isfile(out):
        try:
            ET.parse(out)
            parsed = True
        except ET.ParseError as e:
            parsed = str(e)
        check("render svg: well-formed XML", parsed is True, str(parsed))

r = run(PFPROF, ["report", "--format", "html", trace], TMP)
html = r.out.decode("utf-8", "replace")
check("report --format html: exit 0 or 1, no message", r.rc in (0, 1) and r.err_lines == [],
      r.describe())
check("report --format html: the whole timeline embedded",
      'id="timeline-svg"' in html and "could not be drawn" not in html
      and html.count("<svg") == html.count("</svg>"), html[-2000:])
for fmt in ("text", "markdown", "html"):
    r = run(PFPROF, ["report", "--format", fmt, trace], TMP)
    check(f"report --format {fmt}: no U+202E in the output", "\u202e".encode() not in r.out,
          r.describe())
finish()
