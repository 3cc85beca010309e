#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The work pfprof does on fixed inputs, counted in instructions.

Runs a few commands of a built `pfprof` over committed samples and one
generated trace under valgrind's cachegrind (instructions only, no cache
simulation) and compares each count with bench/work-budget.json. Counting
instructions instead of timing makes the check repeatable on a loaded
2-core CI machine: the same binary on the same input executes the same
instructions whatever else runs. A case that grows past its budget by
more than the margin fails; a change that must cost more updates the
budget (--update) in the same commit and says so, measured, in NEWS.md.

    bench/work-budget.py BUILD/cli/pfprof            # check
    bench/work-budget.py BUILD/cli/pfprof --update   # write new budgets

The counts belong to one compiler and build type (CI's plain build:
Debian 12's gcc, meson's debugoptimized); the budget file records both
and the check skips, saying why, on another build type or without
valgrind.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUDGET = os.path.join(HERE, "work-budget.json")
MARGIN = 0.05
TRACES = os.path.join(ROOT, "samples", "traces")

# name -> argv after the binary; {gen} is the generated trace, {out} a
# scratch folder. Each case is one user-facing command on one input.
CASES = {
    "report-native": ["report", os.path.join(TRACES, "a_pageable.pfprof")],
    "report-json": ["report", "--format", "json", os.path.join(TRACES, "e_slow_loader.pfprof")],
    "report-kineto": ["report", os.path.join(TRACES, "kineto", "a_pageable.stack.pt.trace.json.gz")],
    "report-generated": ["report", "{gen}"],
    "diff-native": ["diff", os.path.join(TRACES, "a_pageable.pfprof"),
                    os.path.join(TRACES, "a_pageable_fix.pfprof")],
    "render-png": ["render", os.path.join(TRACES, "b_serialized.pfprof"), "-o", "{out}/b.png"],
}
GENERATED_EVENTS = "200000"


def build_type(pfprof):
    """meson's build type of the build folder that holds pfprof, if known."""
    build = os.path.dirname(os.path.dirname(os.path.abspath(pfprof)))
    info = os.path.join(build, "meson-info", "intro-buildoptions.json")
    try:
        with open(info) as fh:
            opts = {o["name"]: o["value"] for o in json.load(fh)}
    except (OSError, ValueError, KeyError):
        return None, None
    return opts.get("buildtype"), opts.get("b_sanitize")


def count(pfprof, argv, env):
    """Instructions executed by `pfprof ARGV`, from cachegrind's summary."""
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no",
           "--cachegrind-out-file=/dev/null", pfprof] + argv
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       env=env, timeout=900)
    err = r.stderr.decode(errors="replace")
    if r.returncode != 0:
        raise RuntimeError("exit %d: %s" % (r.returncode, " ".join(argv))
                           + "\n" + err[-2000:])
    m = re.search(r"I\s+refs:\s+([\d,]+)", err)
    if not m:
        raise RuntimeError("no instruction count from valgrind:\n" + err[-2000:])
    return int(m.group(1).replace(",", ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pfprof", help="the pfprof binary of a build folder")
    ap.add_argument("--update", action="store_true",
                    help="write the measured counts as the new budgets")
    ap.add_argument("--budget", default=BUDGET,
                    help="the budget file (default bench/work-budget.json)")
    ap.add_argument("--only", action="append", default=[],
                    help="measure only this case (repeatable)")
    args = ap.parse_args()

    if shutil.which("valgrind") is None:
        print("SKIP: valgrind is not installed")
        return 77
    btype, sanitize = build_type(args.pfprof)
    if sanitize not in (None, "none"):
        print("SKIP: a sanitizer build (%s) cannot run under valgrind" % sanitize)
        return 77
    try:
        with open(args.budget) as fh:
            budget = json.load(fh)
    except (OSError, ValueError):
        budget = {"buildtype": btype, "cases": {}}
    if not args.update and budget.get("buildtype") != btype:
        print("SKIP: budgets are for the %s build type, this build is %s"
              % (budget.get("buildtype"), btype))
        return 77

    env = dict(os.environ, LC_ALL="C", NO_COLOR="1")
    # meson test sets MALLOC_PERTURB_, which makes glibc fill every block
    # it hands out or takes back: work that is the test runner's, not ours.
    for var in ("PFPROF_CONFIG", "MALLOC_PERTURB_", "MALLOC_CHECK_"):
        env.pop(var, None)
    failed = []
    measured = {}
    with tempfile.TemporaryDirectory(prefix="pfprof-work-") as out:
        gen = os.path.join(out, "generated.pfprof")
        subprocess.run([args.pfprof, "generate", "--events", GENERATED_EVENTS, "-o", gen],
                       check=True, stdout=subprocess.DEVNULL, env=env)
        for name, argv in CASES.items():
            if args.only and name not in args.only:
                continue
            argv = [a.replace("{gen}", gen).replace("{out}", out) for a in argv]
            n = count(args.pfprof, argv, env)
            measured[name] = n
            limit = budget["cases"].get(name)
            if limit is None:
                verdict = "no budget"
                if not args.update:
                    failed.append(name)
            else:
                ratio = n / limit
                verdict = "%+.1f%%" % ((ratio - 1) * 100)
                if ratio > 1 + MARGIN and not args.update:
                    failed.append(name)
                    verdict += " over the %d%% margin" % round(MARGIN * 100)
            print("%-18s %15s instructions  budget %15s  %s"
                  % (name, format(n, ","), format(limit, ",") if limit else "-", verdict))
            sys.stdout.flush()

    if args.update:
        budget["buildtype"] = btype
        budget["cases"].update(measured)
        with open(args.budget, "w") as fh:
            json.dump(budget, fh, indent=2, sort_keys=True)
            fh.write("\n")
        print("wrote %s" % args.budget)
        return 0
    if failed:
        print("FAIL: over budget: %s (a change that must cost more runs "
              "bench/work-budget.py --update and says so in NEWS.md)" % ", ".join(failed))
        return 1
    print("ok: every case within %d%% of its budget" % round(MARGIN * 100))
    return 0


if __name__ == "__main__":
    sys.exit(main())
