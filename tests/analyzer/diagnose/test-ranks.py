#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`pfprof report` on several ranks of one run (suite `analyzer`).

Generates per-rank traces with `pfprof generate --rank N` (each rank its own
seed, as real ranks differ a little), then checks what a user would look
at: the rank-imbalance finding names the slow rank, its host and pid; ranks
that are alike give no finding; a config threshold just above the measured
excess silences it and one just below fires it (the borderline); the
per-rank table is in the text and JSON reports; a single trace gives no
table and no rank-imbalance finding; traces of the same rank are refused.

Usage: test-ranks.py PFPROF WORKDIR   (TAP on stdout)
"""
import json
import os
import subprocess
import sys

PFPROF, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
results = []


def run(*args):
    e = dict(os.environ)
    e.pop("COLUMNS", None)
    p = subprocess.run([PFPROF, *args], capture_output=True, text=True, env=e, timeout=120)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


def gen(rank, plant="none", seed=None):
    path = os.path.join(WORK, f"rank{rank}-{plant}-{seed}.pfprof")
    rc, out, err = run("generate", "-o", path, "--rank", str(rank), "--plant", plant,
                       "--seed", str(seed if seed is not None else rank + 1), "--steps", "60", "-f")
    if rc != 0:
        raise SystemExit(f"Bail out! pfprof generate --rank {rank} failed: {err}")
    return path


def report_json(*args):
    rc, out, err = run("report", "--format", "json", *args)
    return rc, (json.loads(out) if rc in (0, 1) else None), err


def imbalance(d):
    return [f for f in d["findings"] if f["rule"] == "rank-imbalance"]


clean = [gen(r) for r in range(4)]
skewed = clean[:2] + [gen(2, "input-starved")] + clean[3:]

# Positive: rank 2's loader is slow.
rc, d, err = report_json(*skewed)
fs = imbalance(d) if d else []
check("skewed: one rank-imbalance finding", rc == 0 and len(fs) == 1, d and d["findings"])
if fs:
    f = fs[0]
    check("names rank 2, its host and pid",
          "Rank 2 " in f["message"] and "synthetic-node-2" in f["message"]
          and f["pid"] == 4244 and "pid 4244" in f["message"], f["message"])
    check("other ranks not named", all(f"Rank {r} " not in f["message"] for r in (0, 1, 3)))
    r = {x["rank"]: x for x in d["ranks"]}
    slow = r[2]["data_wait_per_step_ns"] + r[2]["copy_exposed_per_step_ns"]
    others = sorted(r[k]["data_wait_per_step_ns"] + r[k]["copy_exposed_per_step_ns"] for k in (0, 1, 3))
    excess = slow - others[1]
    check("savings = slow rank's excess per step over the others' median",
          f["est_savings_ns"] == excess and excess > 1_000_000, (f["est_savings_ns"], excess))
    check("fix names the DataLoader knobs", "num_workers" in f["fix"] and "persistent_workers" in f["fix"])
    # The slow rank waits ~150x the others: said as a ratio, not "15000% more".
    ratio = slow / others[1]
    want = f"{ratio:.0f} times the median" if ratio >= 10 else "% more than the median"
    check("the message compares with the others' median in words that read",
          want in f["message"] and "of the other 3 ranks." in f["message"], (ratio, f["message"]))

    # Borderline: the same excess against thresholds just above and just below it.
    conf = os.path.join(WORK, "border.conf")
    share = excess / others[1] if others[1] else 0
    for name, ms, want in (("just above the excess: silent", excess / 1e6 * 1.01, 0),
                           ("just below the excess: fires", excess / 1e6 * 0.99, 1)):
        with open(conf, "w") as fh:
            fh.write(f"[rank-imbalance]\nmin-excess-ms={ms:.6f}\nmin-excess-share={share * 0.5:.6f}\n")
        rc, d2, err = report_json("--config", conf, *skewed)
        check(f"borderline ms, {name}", rc == 0 and len(imbalance(d2)) == want, d2 and imbalance(d2))
    for name, sh, want in (("just above the share: silent", share * 1.01, 0),
                           ("just below the share: fires", share * 0.99, 1)):
        with open(conf, "w") as fh:
            fh.write(f"[rank-imbalance]\nmin-excess-ms=0\nmin-excess-share={sh:.9f}\n")
        rc, d2, err = report_json("--config", conf, *skewed)
        check(f"borderline share, {name}", rc == 0 and len(imbalance(d2)) == want, d2 and imbalance(d2))

# Negative: four alike ranks (different seeds) give no finding, but a table.
rc, d, err = report_json(*clean)
check("alike ranks: no rank-imbalance", rc == 0 and imbalance(d) == [], d and imbalance(d))
check("alike ranks: JSON ranks[] has ranks 0-3",
      d is not None and [x["rank"] for x in d.get("ranks", [])] == [0, 1, 2, 3], d and d.get("ranks"))
if d and d.get("ranks"):
    x = d["ranks"][0]
    check("ranks[] fields", set(x) >= {"rank", "trace", "host", "pid", "steps", "step_median_ns",
                                       "data_wait_per_step_ns", "copy_exposed_per_step_ns",
                                       "idle_per_step_ns", "findings"}
          and x["host"] == "synthetic-node-0" and x["pid"] == 4242 and x["steps"] > 0
          and x["step_median_ns"] > 0, x)
check("format unchanged", d and d["format"] == "pfprof-report/1")

# Table in the text report, with the slow rank's figures and finding count.
rc, out, err = run("report", *skewed)
lines = out.splitlines()
hdr = [i for i, l in enumerate(lines) if l.startswith("Per rank")]
check("text: per-rank table", rc == 0 and len(hdr) == 1 and "data wait" in lines[hdr[0] + 1], out[:2000])
if hdr:
    rows = [l.split() for l in lines[hdr[0] + 2:hdr[0] + 6]]
    check("text: one row per rank, host and pid",
          [r[0] for r in rows] == ["0", "1", "2", "3"] and rows[2][1] == "synthetic-node-2"
          and rows[2][2] == "4244", rows)
    check("text: rank 2 has the findings", rows[2][-1] != "0" and rows[0][-1] == "0", rows)
check("text: rank-imbalance finding shown", "rank-imbalance" in out and "Rank 2 " in out)

# A single trace: no table, no rank-imbalance.
rc, d, err = report_json(skewed[2])
check("single trace: no ranks[], no rank-imbalance",
      rc == 0 and "ranks" not in d and imbalance(d) == [], d and d.get("ranks"))
rc, out, err = run("report", skewed[2])
check("single trace: no text table", rc == 0 and "Per rank" not in out)

# Two traces of the same rank are two runs, not ranks of one: refused
# with one line that names both, rather than pooled into one median.
first, second = gen(0, "none", 7), gen(0, "input-starved", 8)
rc, out, err = run("report", first, second)
check("same rank twice: refused, exit 2, one line naming both",
      rc == 2 and out == "" and err.count("\n") == 1 and first in err and second in err
      and "same rank" in err, (rc, err))

print(f"1..{len(results)}")
for i, (name, ok, detail) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} {name}")
    if not ok and detail != "":
        print("# " + str(detail).replace("\n", "\n# ")[:2000])
sys.exit(0 if all(ok for _, ok, _ in results) else 1)
