# SPDX-License-Identifier: MIT
"""Shared helpers of the analyzer suite's Python tests on the CLI.

Runs pfprof as a user would (the caller's COLUMNS left out, so the text
wraps as documented), records each check, and prints the results as TAP.
"""
import json
import os
import shutil
import subprocess
import sys

_results = []


def check(name, ok, detail=""):
    """Records one result; @detail is shown when it fails."""
    _results.append((name, bool(ok), detail))
    return bool(ok)


def run(pfprof, *args, timeout=300):
    """(exit status, stdout, stderr) of `pfprof ARGS...`."""
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    p = subprocess.run([pfprof, *args], capture_output=True, text=True, env=env, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def generate(pfprof, path, *args):
    """Writes `pfprof generate -o PATH ARGS...`; returns PATH."""
    rc, _, err = run(pfprof, "generate", "-o", path, *args)
    assert rc == 0, err
    return path


def report_json(pfprof, trace, *args):
    """(exit status, the JSON report or None, stderr) of `pfprof report
    --format json ARGS... TRACE`."""
    rc, out, err = run(pfprof, "report", "--format", "json", *args, trace)
    try:
        return rc, json.loads(out), err
    except ValueError:
        return rc, None, err


class Scratch:
    """A test's arguments, PFPROF WORK [SAMPLES], with WORK emptied, and
    generate and report bound to them."""

    def __init__(self, argv):
        self.pfprof, self.work = argv[1], argv[2]
        self.samples = argv[3] if len(argv) > 3 else None
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)

    def path(self, name):
        return os.path.join(self.work, name)

    def generate(self, name, *args):
        return generate(self.pfprof, self.path(name), *args)

    def report(self, trace, *args):
        return report_json(self.pfprof, trace, *args)


def finish():
    """Prints the plan and the results, failures with their details."""
    print(f"1..{len(_results)}")
    for i, (name, ok, detail) in enumerate(_results, 1):
        print(f"{'ok' if ok else 'not ok'} {i} {name}")
        if not ok and detail != "":
            for line in str(detail).splitlines()[:20]:
                print(f"# {line}")
    sys.exit(0)
