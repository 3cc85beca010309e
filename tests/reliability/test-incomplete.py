#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A trace cut short (meta.complete = 0) is said to be, in every report
format, with where its data ends (suite `reliability`).

Usage: test-incomplete.py PFPROF WORKDIR

Prints TAP.
"""
import json
import os
import shutil
import sys

from reltest import check, connect, finish, generate, run, setup

PFPROF, WORK, TMP = setup("tmp")
done = generate(PFPROF, os.path.join(WORK, "done.pfprof"), "--steps", "6")
cut = os.path.join(WORK, "cut.pfprof")
shutil.copyfile(done, cut)
c = connect(cut)
c.execute("UPDATE meta SET value = '0' WHERE key = 'complete'")
c.close()

for path, incomplete in ((cut, True), (done, False)):
    name = os.path.basename(path)
    for fmt in ("text", "markdown", "html"):
        r = run(PFPROF, ["report", "--format", fmt, path], TMP)
        text = r.out.decode("utf-8", "replace")
        says = "Incomplete trace" in text and " after its first event" in " ".join(text.split())
        check(f"{name}: report --format {fmt} {'says' if incomplete else 'does not say'} it was cut",
              r.rc in (0, 1) and says == incomplete, r.describe() + "\n" + text[:1500])
    r = run(PFPROF, ["report", "--format", "json", path], TMP)
    t = json.loads(r.out)["traces"][0]
    check(f"{name}: report --format json: complete is {not incomplete}",
          t.get("complete") is (not incomplete), str(t))
finish()
