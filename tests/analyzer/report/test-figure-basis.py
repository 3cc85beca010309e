#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every figure says its basis and its filter (suite `analyzer`).

On the recorded a_pageable and e_slow_loader samples, as a user reads
them: no per-step figure of the text report leaves open whether it is a
mean or a median; pageable-transfer's count says the min-bytes threshold
that filters it, so that it is not read as the device summary's count of
every copy, in every format; the threshold follows the config; the step
line calls its parts medians of each part in text, Markdown and HTML.

Usage: test-figure-basis.py PFPROF SAMPLES WORKDIR   (TAP on stdout)
"""
import json
import os
import re
import sys

import analyzer_tap
from analyzer_tap import check, finish

PFPROF, SAMPLES, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(WORK, exist_ok=True)


def run(*args):
    return analyzer_tap.run(PFPROF, *args)


def report(fmt, trace, *extra):
    rc, out, err = run("report", "-q", "--format", fmt, "--width", "1000", *extra, trace)
    if rc != 0:
        raise SystemExit(f"Bail out! pfprof report --format {fmt} {trace}: {err}")
    return out


pageable = os.path.join(SAMPLES, "a_pageable.pfprof")
slow = os.path.join(SAMPLES, "e_slow_loader.pfprof")
PARTS = "Median of each part over the steady steps: "

for name, trace in (("a_pageable", pageable), ("e_slow_loader", slow)):
    text = report("text", trace)
    # "per step" alone, or "per-step", leaves the basis open; the per-rank
    # table's heading defines it ("per step = mean over its steps").
    bare = [m.group(0) for m in re.finditer(r".{0,40}\bper[ -]step\b(?! = mean).{0,20}", text)]
    check(f"{name}: every per-step figure says mean or median", bare == [], bare)
    check(f"{name}: savings and predictions per mean step",
          "per mean step: fix \u2192 ~" in text and "With every fix below: ~" in text
          and re.search(r"With every fix below: ~\S+ \S+ per mean step", text), text[:2000])
    for fmt in ("text", "markdown", "html"):
        out = report(fmt, trace)
        check(f"{name}: {fmt}: the step line's parts are medians of each part",
              PARTS in out and "Median step: " not in out, fmt)

js = json.loads(report("json", pageable))
finding = next(f for f in js["findings"] if f["rule"] == "pageable-transfer")
device = js["summary"]["devices"][0]
count = finding["count"]
check("a_pageable: the finding counts fewer copies than the device summary",
      0 < count < device["htod_count"], (count, device["htod_count"]))
title = f"{count} copies \u2265 64.0 KiB from/to pageable memory in the steady state"
check("JSON: the title names the min-bytes threshold", finding["title"] == title, finding["title"])
check("JSON: the message names it too",
      f"{count} host-to-device and 0 device-to-host copies \u2265 64.0 KiB used pageable"
      in finding["message"], finding["message"][:200])
text = report("text", pageable)
check("text: the device summary's count and the finding's threshold on one screen",
      f"({device['htod_count']} copies;" in text and title in text, text[:1500])
for fmt, escaped in (("markdown", title), ("html", title), ("junit", title)):
    out = report(fmt, pageable)
    check(f"{fmt}: the same title with its threshold", escaped in out, fmt)

# The threshold is the config's, and none is said when there is none.
conf = os.path.join(WORK, "min-bytes.conf")
with open(conf, "w") as f:
    f.write("[pageable-transfer]\nmin-bytes=1048576\n")
js = json.loads(report("json", pageable, "--config", conf))
titles = [f["title"] for f in js["findings"] if f["rule"] == "pageable-transfer"]
check("min-bytes=1048576: the title says \u2265 1.00 MiB",
      len(titles) == 1 and "copies \u2265 1.00 MiB from/to" in titles[0], titles)
with open(conf, "w") as f:
    f.write("[pageable-transfer]\nmin-bytes=0\n")
js = json.loads(report("json", pageable, "--config", conf))
titles = [f["title"] for f in js["findings"] if f["rule"] == "pageable-transfer"]
check("min-bytes=0: no threshold said, every pageable copy counted",
      len(titles) == 1 and "\u2265" not in titles[0] and titles[0].startswith("148 copies from/to"), titles)

finish()
