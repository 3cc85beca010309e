#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`pfprof diff BEFORE AFTER`: synthetic before/after pairs (a planted
problem vs the clean baseline and the reverse), the figures checked
against `pfprof report` of each side, findings resolved/new/unchanged,
the --fail-if-slower gate both ways, rank sets, formats, -o, errors; and
recorded problem samples vs their --fix runs when committed.

Usage: test-diff.py PFPROF WORKDIR SOURCE_ROOT  (TAP on stdout)
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interop_util import Env, Tap, sample_pairs  # noqa: E402

BREAKDOWN = ["data_wait_ns", "copy_exposed_ns", "copy_hidden_ns", "compute_ns", "sync_wait_ns",
             "idle_ns"]


def diff_json(env, *args):
    p = env.run("diff", "--format", "json", *args)
    try:
        return p, json.loads(p.stdout)
    except json.JSONDecodeError:
        return p, None


def by_status(d, status):
    return sorted(f["rule"] for f in d["findings"] if f["status"] == status)


def main():
    env = Env(sys.argv)
    tap = Tap()

    clean = env.generate("clean.pfprof", plant="none", steps=40)
    pageable = env.generate("pageable.pfprof", plant="pageable", steps=40)
    pageable2 = env.generate("pageable2.pfprof", plant="pageable", steps=40, seed=7)
    rep_clean = env.report_json(clean)
    rep_pg = env.report_json(pageable)

    # 1. Fixing the planted pageable copies: resolved, faster, more overlap.
    p, d = diff_json(env, pageable, clean)
    tap.ok(p.returncode == 0 and d and d["format"] == "pfprof-diff/1", "diff exits 0 with JSON",
           p.stderr)
    tap.ok(by_status(d, "resolved") == ["pageable-transfer"] and not by_status(d, "new")
           and not by_status(d, "unchanged"),
           "pageable -> clean: pageable-transfer resolved, nothing new", d["findings"])
    f = d["findings"][0]
    tap.ok(f["count_before"] == sum(x["count"] for x in rep_pg["findings"]
                                    if x["rule"] == "pageable-transfer")
           and f["count_after"] == 0 and f["time_before_ns"] > 0,
           "the resolved finding carries its before count and time", f)
    med_pg = rep_pg["summary"]["steps"]["median_breakdown"]
    med_clean = rep_clean["summary"]["steps"]["median_breakdown"]
    tap.ok(all(d["before"]["median"][k] == med_pg[k] and d["after"]["median"][k] == med_clean[k]
               for k in BREAKDOWN)
           and d["before"]["median"]["step_ns"] == rep_pg["summary"]["steps"]["median_ns"]
           and d["after"]["median"]["step_ns"] == rep_clean["summary"]["steps"]["median_ns"],
           "both sides' median breakdowns equal `pfprof report` of each trace",
           f"{d['before']['median']} vs {med_pg}")
    tap.ok(all(d["delta"][k] == d["after"]["median"][k] - d["before"]["median"][k]
               for k in BREAKDOWN + ["step_ns"]),
           "deltas are after minus before", d["delta"])
    ov_pg = rep_pg["summary"]["devices"][0]["overlap_fraction"]
    ov_clean = rep_clean["summary"]["devices"][0]["overlap_fraction"]
    tap.ok(abs(d["before"]["overlap_fraction"] - ov_pg) < 1e-5
           and abs(d["after"]["overlap_fraction"] - ov_clean) < 1e-5
           and d["after"]["overlap_fraction"] > d["before"]["overlap_fraction"],
           "overlap fraction before/after (pageable copies are exposed)",
           f"{d['before']['overlap_fraction']} -> {d['after']['overlap_fraction']}")
    tap.ok(d["delta"]["step_change_pct"] < 0 and d["delta"]["copy_exposed_ns"] < 0,
           "the clean run's median step is shorter, exposed copy time drops", d["delta"])

    # 2. Reversed: the problem is new.
    p, r = diff_json(env, clean, pageable)
    tap.ok(p.returncode == 0 and by_status(r, "new") == ["pageable-transfer"]
           and not by_status(r, "resolved") and r["delta"]["step_change_pct"] > 0,
           "clean -> pageable: pageable-transfer is new, the step got slower", r and r["findings"])

    # 3. Same problem on both sides: unchanged.
    p, u = diff_json(env, pageable, pageable2)
    tap.ok(p.returncode == 0 and by_status(u, "unchanged") == ["pageable-transfer"],
           "pageable -> pageable (other seed): unchanged", u and u["findings"])

    # 4. The gate, both ways.
    slower = r["delta"]["step_change_pct"]
    low, high = max(slower / 2, 0.1), slower * 2 + 1
    p = env.run("diff", clean, pageable, "--fail-if-slower", f"{low:.2f}")
    tap.ok(p.returncode == 1 and "FAILED" in p.stdout,
           f"--fail-if-slower {low:.2f} with a {slower:.1f}% slower step exits 1", p.stdout[-300:])
    p = env.run("diff", clean, pageable, "--fail-if-slower", f"{high:.2f}")
    tap.ok(p.returncode == 0 and "passed" in p.stdout,
           f"--fail-if-slower {high:.2f} with a {slower:.1f}% slower step exits 0", p.stderr)
    p = env.run("diff", pageable, clean, "--fail-if-slower", "0")
    tap.ok(p.returncode == 0, "--fail-if-slower 0 passes when the step got faster", p.stderr)
    p, g = diff_json(env, clean, pageable, "--fail-if-slower", f"{low:.2f}")
    tap.ok(p.returncode == 1 and g["gate"]["failed"] is True
           and abs(g["gate"]["fail_if_slower_pct"] - low) < 0.01,
           "the JSON gate says failed", g and g["gate"])
    p, g = diff_json(env, pageable, clean)
    tap.ok(g["gate"] is None, "no gate: gate is null")

    # 4b. The steps as distributions, and a gate that holds up to noise.
    st = r["steps"]
    tap.ok(st["interval"] == "95% percentile bootstrap"
           and all(st[k]["low_pct"] <= st[k]["change_pct"] <= st[k]["high_pct"]
                   for k in ("mean", "median", "p90"))
           and st["median"]["before_ns"] == r["before"]["median"]["step_ns"]
           and abs(st["median"]["change_pct"] - r["delta"]["step_change_pct"]) < 1e-4,
           "mean, median and p90 each with an interval around the change; the median is "
           "the breakdown's", st)
    p, n = diff_json(env, pageable2, pageable, "--fail-if-slower", "0", "--fail-if-p90-slower", "0")
    noise = n and n["steps"]["median"]
    tap.ok(noise and noise["change_pct"] > 0 and noise["low_pct"] < 0,
           "two seeds of one program: the median moves, the interval holds zero", noise)
    tap.ok(p.returncode == 0 and n["gate"]["failed"] is False and n["gate"]["within_noise"] is True,
           "a slowdown within the noise does not fail the gate", n and n["gate"])
    p = env.run("diff", pageable2, pageable, "--fail-if-slower", "0")
    tap.ok(p.returncode == 0 and "within the noise" in p.stdout and "95% interval" in p.stdout,
           "the text says the change was within the noise, with its interval", p.stdout[-400:])
    p, t = diff_json(env, clean, pageable, "--fail-if-p90-slower", f"{low:.2f}")
    tap.ok(p.returncode == 1 and t["gate"]["failed_p90"] is True and t["gate"]["failed_median"] is False
           and t["gate"]["fail_if_slower_pct"] is None,
           "--fail-if-p90-slower gates on the slow tail alone", t and t["gate"])
    p = env.run("diff", clean, pageable, "--fail-if-p90-slower", "-1")
    tap.ok(p.returncode == 2 and "--fail-if-p90-slower takes a percentage" in p.stderr,
           "--fail-if-p90-slower refuses a negative limit", p.stderr)

    # 5. Rank sets: comma lists and repeated --before/--after agree.
    b0 = env.generate("b0.pfprof", plant="pageable", steps=20, rank=0)
    b1 = env.generate("b1.pfprof", plant="pageable", steps=20, rank=1)
    a0 = env.generate("a0.pfprof", plant="none", steps=20, rank=0)
    a1 = env.generate("a1.pfprof", plant="none", steps=20, rank=1)
    p1, s1 = diff_json(env, f"{b0},{b1}", f"{a0},{a1}")
    p2, s2 = diff_json(env, "--before", b0, "--before", b1, "--after", a0, "--after", a1)
    tap.ok(p1.returncode == 0 and p2.returncode == 0 and s1 == s2
           and len(s1["before"]["traces"]) == 2 and len(s1["after"]["traces"]) == 2,
           "BEFORE/AFTER as comma lists equals repeated --before/--after", p1.stderr + p2.stderr)
    rep_b = env.report_json(b0, b1)
    tap.ok(s1["before"]["steady_steps"] == rep_b["summary"]["steps"]["steady"]
           and s1["before"]["median"]["step_ns"] == rep_b["summary"]["steps"]["median_ns"]
           and by_status(s1, "resolved") == ["pageable-transfer"],
           "a rank set is analyzed as one run", s1["before"])

    # 6. Formats and output.
    p = env.run("diff", pageable, clean)
    tap.ok(p.returncode == 0 and "resolved" in p.stdout and "pageable-transfer" in p.stdout
           and "copy/compute overlap" in p.stdout and "\x1b" not in p.stdout,
           "text: breakdown, overlap and resolved findings, no colour on a pipe", p.stdout)
    p = env.run("diff", "--format", "markdown", pageable, clean)
    tap.ok(p.returncode == 0 and "| median step |" in p.stdout and "| resolved | `pageable-transfer`" in p.stdout,
           "markdown: tables of the breakdown and the findings", p.stdout)
    out = env.path("diff.json")
    p = env.run("diff", "--format", "json", "-o", out, pageable, clean)
    p2 = env.run("diff", "--format", "json", "-o", out, clean, pageable)
    tap.ok(p.returncode == 0 and p2.returncode == 3 and "--force" in p2.stderr
           and by_status(json.load(open(out)), "resolved") == ["pageable-transfer"],
           "-o writes the file, and refuses to replace it without --force", p.stderr + p2.stderr)
    p2 = env.run("diff", "--format", "json", "--force", "-o", out, clean, pageable)
    tap.ok(p2.returncode == 0 and p.stdout == ""
           and by_status(json.load(open(out)), "new") == ["pageable-transfer"],
           "-o --force replaces it atomically", p2.stderr)
    target = env.path("target.txt")
    open(target, "w").write("keep")
    os.symlink(target, env.path("link.md"))
    p = env.run("diff", "-o", env.path("link.md"), pageable, clean)
    tap.ok(p.returncode == 2 and open(target).read() == "keep", "-o never follows a symlink",
           p.stderr)

    # 7. Errors.
    p = env.run("diff", pageable)
    tap.ok(p.returncode == 2 and "BEFORE AFTER" in p.stderr, "one run only: usage error", p.stderr)
    bad = env.path("bad.pfprof")
    open(bad, "w").write("nope")
    p = env.run("diff", pageable, bad)
    tap.ok(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "bad.pfprof" in p.stderr,
           "an unreadable trace: one line naming it, exit 2", p.stderr)
    p = env.run("diff", pageable, clean, "--fail-if-slower", "fast")
    tap.ok(p.returncode == 2, "a malformed percentage is refused", p.stderr)
    p = env.run("diff", f"{pageable},", clean)
    tap.ok(p.returncode == 2 and "empty" in p.stderr, "an empty item in a list is refused", p.stderr)
    p = env.run("diff", pageable, clean, "--before", pageable)
    tap.ok(p.returncode == 2, "positional runs and --before together are refused", p.stderr)
    one = env.generate("one.pfprof", plant="none", steps=1)
    p, o = diff_json(env, one, clean, "--fail-if-slower", "5")
    tap.ok(p.returncode in (0, 1) and o["before"]["steady_steps"] == 1,
           "a run of one annotated step is one step, and the gate judges it", p.stderr)
    p = env.run("diff", one, clean, "--fail-if-slower", "5", "--step-pattern", "no-such-range")
    tap.ok(p.returncode == 2 and "no steps" in p.stderr,
           "--fail-if-slower with a side without steady steps: exit 2, says why", p.stderr)
    p = env.run("diff", "--help")
    tap.ok(p.returncode == 0 and "--fail-if-slower" in p.stdout and "r0.pfprof,r1.pfprof" in p.stdout,
           "--help documents the syntax and the gate")

    # 8. Recorded samples: each problem vs its --fix run.
    pairs = sample_pairs(env)
    if not pairs:
        tap.skip("recorded problem vs fixed samples", "no sample pairs under samples/traces yet")
    for script, rule, problem, fixed in pairs:
        p, d = diff_json(env, problem, fixed)
        p2, r = diff_json(env, fixed, problem)
        ok = (p.returncode == 0 and p2.returncode == 0 and rule in by_status(d, "resolved")
              and rule in by_status(r, "new"))
        tap.ok(ok, f"{script}: {rule} resolved by --fix, new in reverse",
               f"{d and d['findings']} {p.stderr}")
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
