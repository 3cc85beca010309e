#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Issue 8 through `pfprof report` (suite `analyzer`).

- NCCL kernels (`pfprof generate --plant nccl`: DDP's gradient all-reduce)
  are communication: `comm_ns` per device and per step, not in kernel_ns
  or compute, not GPU idle; the text report says so.
- Clock alignment: ranks on two hosts whose CUPTI clocks differ by a
  planted offset line up through their clock triples; on one host
  nothing moves.
- Scale past one machine: per-rank JSON results written where each trace
  lives (`-o rank-%r.json`, %r from the trace or the launcher's
  environment) merge into the per-rank table and the rank-imbalance
  finding; the merge of real results equals the report on the traces
  together; 512 synthetic results with one slow rank name that rank, and
  the text and Markdown tables show the ranks that matter (--all-ranks:
  every rank);
  bad results and traces mixed with results fail with one line, exit 2.

Usage: test-multirank-cli.py PFPROF WORKDIR SAMPLE_TRACE   (TAP on stdout)
"""
import copy
import glob
import json
import os
import random
import shutil
import subprocess
import sys

PFPROF, WORK, SAMPLE = sys.argv[1], sys.argv[2], sys.argv[3]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
results = []
ENV_RANK = ("RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK")


def run(*args, env=None, cwd=None):
    e = {k: v for k, v in os.environ.items() if k not in ENV_RANK and k != "COLUMNS"}
    e.update(env or {})
    p = subprocess.run([PFPROF, *args], capture_output=True, text=True, env=e, timeout=300,
                       cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


def gen(name, *args):
    path = os.path.join(WORK, name)
    rc, out, err = run("generate", "-o", path, "-f", *args)
    if rc != 0:
        raise SystemExit(f"Bail out! pfprof generate {args} failed: {err}")
    return path


def report_json(*args, env=None):
    rc, out, err = run("report", "--format", "json", *args, env=env)
    return rc, (json.loads(out) if rc in (0, 1) and out else None), err


def imbalance(d):
    return [f for f in d["findings"] if f["rule"] == "rank-imbalance"]


def median(v):
    """The integer median pfprof_quantile_median_i64 computes (lower + half the gap)."""
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else v[len(v) // 2 - 1] + (v[len(v) // 2] - v[len(v) // 2 - 1]) // 2


# ---- NCCL kernels are communication ------------------------------------
nccl = gen("nccl.pfprof", "--plant", "nccl", "--steps", "40", "--seed", "5")
base = gen("base.pfprof", "--steps", "40", "--seed", "5")
rc, dn, err = report_json(nccl)
rc2, db, err2 = report_json(base)
if dn and db:
    dev, devb = dn["summary"]["devices"][0], db["summary"]["devices"][0]
    window = dev["steady_end_ns"] - dev["steady_start_ns"]
    steady = dn["summary"]["steps"]["steady"]
    med = dn["summary"]["steps"]["median_breakdown"]
    check("nccl: comm_ns counts the 2-3 ms all-reduce of every step",
          dev["comm_ns"] >= 2_000_000 * steady and dev["comm_ns"] < window, dev)
    check("nccl: median step has >= 2 ms communication, apart from compute",
          med["comm_ns"] >= 2_000_000 and med["compute_ns"] + med["comm_ns"] > 0, med)
    check("nccl: the GPU communicating is not idle", dev["idle_fraction"] < 0.05, dev["idle_fraction"])
    check("nccl: kernel_ns leaves the all-reduce out (compute + comm > compute)",
          dev["kernel_ns"] + dev["comm_ns"] > window * 0.99 and dev["kernel_ns"] < window - 2_000_000 * steady,
          (dev["kernel_ns"], dev["comm_ns"], window))
    check("baseline: its short collectives are communication too, far less of it",
          0 < devb["comm_ns"] < dev["comm_ns"] / 3, (devb["comm_ns"], dev["comm_ns"]))
    check("nccl: compute stream is still the compute one (13)", dev["compute_stream"] == 13, dev)
    check("nccl: no rule mistakes the all-reduce for a problem", dn["findings"] == [],
          [f["rule"] for f in dn["findings"]])
else:
    check("nccl: reports", False, (err, err2))
rc, out, err = run("report", nccl)
check("nccl: text names the communication, not counted as compute",
      rc == 0 and "Communication (NCCL kernels, not counted as compute)" in out
      and "Communication (NCCL)" in " ".join(out.split()), out[:1500])
rc, out, err = run("report", SAMPLE)
check("no NCCL kernel (H200 sample): no communication line", rc == 0 and "Communication" not in out)
# Recorded on two H200s (DDP over NCCL, samples/traces/g_ddp_*): NCCL's
# kernels there are mangled ("_Z31ncclDevKernel_Broadcast_RING_LL24...").
ddp = [os.path.join(os.path.dirname(SAMPLE), f"g_ddp_slow_rank{r}.pfprof") for r in (0, 1)]
if all(os.path.exists(p) for p in ddp):
    rc, d, err = report_json(*ddp)
    devs = d["summary"]["devices"] if d else []
    check("DDP on H200: both ranks have NCCL communication time",
          len(devs) == 2 and all(x["comm_ns"] > 10_000_000 for x in devs), devs)
    check("DDP on H200: rank 0's all-reduce waits are communication, not idle",
          len(devs) == 2 and devs[0]["comm_ns"] > 0.3 * (devs[0]["steady_end_ns"] - devs[0]["steady_start_ns"]),
          devs)

# ---- Clock alignment ----------------------------------------------------
# The same simulated run (same seed) on two hosts; host-b's CUPTI clock runs
# 5 s ahead of its wall clock. Aligned, both ranks' events coincide.
a0 = gen("clk-a0.pfprof", "--rank", "0", "--host", "host-a", "--steps", "20", "--seed", "9")
b1 = gen("clk-b1.pfprof", "--rank", "1", "--host", "host-b", "--steps", "20", "--seed", "9",
         "--clock-offset", "5000000000")
b2 = gen("clk-b2.pfprof", "--rank", "2", "--host", "host-b", "--steps", "20", "--seed", "9",
         "--clock-offset", "5000000000")
c3 = gen("clk-c3.pfprof", "--rank", "3", "--host", "host-c", "--steps", "20", "--seed", "9",
         "--clock-offset", "-2500000")
rc, d, err = report_json(a0, b1, b2, c3)
if d:
    t = d["traces"]
    # The triples place each host; the simulated all-reduces (the same
    # seed: the same run) then find nothing left to correct.
    check("clock: every trace aligned by its host's triple, then checked on the collectives",
          [x["clock"] for x in t] == ["aligned"] + ["collectives"] * 3
          and [x.get("clock_collectives_ns") for x in t[1:]] == [0, 0, 0]
          and all(x.get("clock_collectives", 0) >= 8 for x in t[1:]), t)
    check("clock: offsets undo the planted ones",
          [x["clock_offset_ns"] for x in t] == [0, -5_000_000_000, -5_000_000_000, 2_500_000],
          [x["clock_offset_ns"] for x in t])
    check("clock: the same moment lands at the same aligned time",
          len({x["start_ns"] for x in t}) == 1 and len({x["steady_start_ns"] for x in t}) == 1,
          [(x["start_ns"], x["steady_start_ns"]) for x in t])
else:
    check("clock: report", False, err)
rc, out, err = run("report", a0, b1)
check("clock: text says which host moved and by how much",
      rc == 0 and "host host-b: times moved -5.00 s onto the reference host's clock: -5.00 s by the clock triples, "
      "+0 ns measured on" in out, out[:800])
# One host: the processes share its clock; nothing moves, even when the
# triples (here planted) disagree.
s1 = gen("clk-same1.pfprof", "--rank", "1", "--host", "host-a", "--steps", "20", "--seed", "9",
         "--clock-offset", "5000000000")
rc, d, err = report_json(a0, s1)
check("clock: one host, times as recorded",
      d is not None and [x["clock"] for x in d["traces"]] == ["shared", "shared"]
      and d["traces"][1]["start_ns"] - d["traces"][0]["start_ns"] == 5_000_000_000,
      d and [(x["clock"], x["start_ns"]) for x in d["traces"]])

# `pfprof render` of ranks of two hosts: one aligned picture.
png = os.path.join(WORK, "ranks.png")
rc, out, err = run("render", a0, b1, "-o", png)
with open(png, "rb") as fh:
    head = fh.read(24) if rc == 0 else b""
check("render: two hosts' ranks into one PNG",
      rc == 0 and head[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(head[16:20], "big") > 0, err)

# ---- Per-rank results where each trace lives, merged ---------------------
ranks_dir = os.path.join(WORK, "job")
os.makedirs(ranks_dir)
traces = []
for r in range(4):
    plant = "input-starved" if r == 2 else "none"
    traces.append(gen(f"job/run-node{r // 2}-{r}.pfprof", "--rank", str(r), "--plant", plant,
                      "--seed", str(r + 1), "--steps", "40", "--host", f"node{r // 2}"))
# As `srun pfprof report --format json -o rank-%r.json run-%h-%r.pfprof`
# would: the launcher says the rank, the host name is faked by the path.
for r in range(4):
    rc, out, err = run("report", "--format", "json", "-o", "rank-%r.json",
                       f"run-node{r // 2}-%r.pfprof", env={"SLURM_PROCID": str(r)}, cwd=ranks_dir)
    check(f"srun-style: rank {r} writes rank-{r}.json", rc == 0 and out == ""
          and os.path.exists(os.path.join(ranks_dir, f"rank-{r}.json")), err)
rc, out, err = run("report", "--format", "json", "-o", "from-meta-%r-%h-%p.json", traces[3],
                   cwd=ranks_dir)
check("-o %r %h %p from the trace's metadata",
      rc == 0 and os.path.exists(os.path.join(ranks_dir, "from-meta-3-node1-4245.json")), err)
os.remove(os.path.join(ranks_dir, "from-meta-3-node1-4245.json"))
rc, out, err = run("report", "--format", "json", "-o", "x-%r.json", SAMPLE, cwd=ranks_dir)
check("-o %r with no rank anywhere: exit 2, one line",
      rc == 2 and err.count("\n") == 1 and "%r" in err and not glob.glob(ranks_dir + "/x-*"), err)
rc, out, err = run("report", "--format", "json", "-o", "x-%q.json", traces[0], cwd=ranks_dir)
check("-o unknown %-sequence: exit 2", rc == 2 and err.count("\n") == 1, err)

results_json = sorted(glob.glob(os.path.join(ranks_dir, "rank-*.json")))
rc, merged, err = report_json(*results_json)
rc2, together, err2 = report_json(*traces)
if merged and together:
    strip = lambda rs: [{k: v for k, v in x.items() if k not in ("trace", "source")} for x in rs]
    check("merge: results_merged and the ranks' table", merged.get("results_merged") == 4
          and [x["rank"] for x in merged["ranks"]] == [0, 1, 2, 3] and merged["traces"] == [],
          merged.get("ranks"))
    check("merge: per-rank figures equal the report on the traces together",
          strip(merged["ranks"]) == strip(together["ranks"]),
          (strip(merged["ranks"]), strip(together["ranks"])))
    fm, ft = imbalance(merged), imbalance(together)
    check("merge: the same rank-imbalance finding (rank 2, same saving)",
          len(fm) == 1 and len(ft) == 1 and fm[0]["est_savings_ns"] == ft[0]["est_savings_ns"]
          and "Rank 2 " in fm[0]["message"] and "node1" in fm[0]["message"]
          and fm[0]["pid"] == 4244, (fm, ft))
    check("merge: only rank-imbalance ran", merged["rules"] == ["rank-imbalance"], merged["rules"])
else:
    check("merge: reports", False, (err, err2))
rc, out, err = run("report", *results_json)
check("merge: text table and finding",
      rc == 0 and "4 pfprof-report/1 results merged, 4 ranks" in out and "Per rank" in out
      and "Rank 2 is input-bound" in out, out[:1500])
rc, out, err = run("report", "--format", "markdown", *results_json)
rows = [l for l in out.splitlines() if l.startswith("| ") and l[2:3].isdigit()]
check("merge: markdown has the rank table (every rank of 4), no empty device table",
      rc == 0 and "| Rank | Host |" in out and len(rows) == 4 and "| 2 | node1 |" in out
      and "| Trace | Device |" not in out and "Shown as" not in out and "more rank" not in out,
      out[:800])
rc, out, err = run("report", "--format", "markdown", *traces)
check("traces together: markdown has the device and the rank tables",
      rc == 0 and "| Rank | Host |" in out and "| Trace | Device |" in out, out[:800])
rc, out, err = run("report", "--fail-on", "warning", *results_json)
check("merge: --fail-on gates on the merged finding", rc == 1, rc)
rc, out, err = run("report", "--format", "junit", *results_json)
check("merge: junit has the rank-imbalance case", rc == 0 and 'name="rank-imbalance"' in out, out[:500])

# ---- 512 ranks: synthetic results from a real one, one slow rank ------
with open(results_json[0]) as fh:
    template = json.load(fh)
big = os.path.join(WORK, "big")
os.makedirs(big)
N, SLOW = 512, 337
inputs, step_med, data_wait = {}, {}, {}
for r in range(N):
    d = copy.deepcopy(template)
    t = d["traces"][0]
    t.update(rank=r, host=f"gpu-node-{r // 8:03d}", pid=10000 + r, path=f"/scratch/run-{r}.pfprof",
             step_median_ns=15_000_000 + (r * 7919) % 400_000,
             data_wait_per_step_ns=150_000 + (r * 104729) % 60_000,
             copy_exposed_per_step_ns=(r * 31) % 20_000, idle_per_step_ns=(r * 17) % 5_000,
             findings=0, steady_steps=39)
    if r == SLOW:
        t.update(data_wait_per_step_ns=9_000_000, step_median_ns=24_000_000, findings=1)
    inputs[r] = t["data_wait_per_step_ns"] + t["copy_exposed_per_step_ns"]
    step_med[r], data_wait[r] = t["step_median_ns"], t["data_wait_per_step_ns"]
    with open(os.path.join(big, f"rank-{r:04d}.json"), "w") as fh:
        json.dump(d, fh)
big_files = sorted(glob.glob(os.path.join(big, "rank-*.json")))
rc, d, err = report_json(*big_files)
if d:
    fs = imbalance(d)
    med = median([v for k, v in inputs.items() if k != SLOW])
    check("512 ranks: all in the table, by rank",
          [x["rank"] for x in d["ranks"]] == list(range(N)) and d["results_merged"] == N,
          len(d.get("ranks", [])))
    check("512 ranks: one finding, the planted slow rank, its host",
          len(fs) == 1 and f"Rank {SLOW} " in fs[0]["message"] and "gpu-node-042" in fs[0]["message"]
          and fs[0]["pid"] == 10000 + SLOW, fs)
    check("512 ranks: saving = its excess over the other 511 ranks' median",
          fs and fs[0]["est_savings_ns"] == inputs[SLOW] - med, (fs and fs[0]["est_savings_ns"], inputs[SLOW] - med))
else:
    check("512 ranks: report", False, err)


def text_rows(out):
    """Rank numbers of the text table's rows, and its '... N more ranks' line."""
    rows = [int(l.split()[0]) for l in out.splitlines() if l[:7].strip().isdigit()]
    more = [l for l in out.splitlines() if l.startswith("  ... ")]
    return rows, more


def md_rows(out):
    return [int(l.split("|")[1]) for l in out.splitlines() if l.startswith("| ") and l[2:3].isdigit()]


# A thousand-row table buries the answer: past 16 ranks the text and
# Markdown tables show the ranks that matter and sum up the rest.
rc, out, err = run("report", *big_files)
rows, more = text_rows(out)
by_input = sorted(range(N), key=lambda r: (-inputs[r], r))
by_step = sorted(range(N), key=lambda r: (-step_med[r], r))
slow_line = [l for l in out.splitlines() if l[:7].strip() == str(SLOW)]
check("512 ranks, text: the planted slow rank is in the short table, marked rank-imbalance",
      rc == 0 and SLOW in rows and slow_line and "rank-imbalance" in slow_line[0], slow_line)
check("512 ranks, text: the 5 slowest inputs and the 5 longest steps are shown",
      set(by_input[:5]) <= set(rows) and set(by_step[:5]) <= set(rows),
      (rows, by_input[:5], by_step[:5]))
check("512 ranks, text: at most 16 rows, by rank, none twice",
      2 <= len(rows) <= 16 and rows == sorted(set(rows)), rows)
hidden = [r for r in range(N) if r not in rows]
exp_med = median([step_med[r] for r in hidden])
exp_dw = (min(data_wait[r] for r in hidden), max(data_wait[r] for r in hidden))
check("512 ranks, text: one line counts the hidden ranks and gives their median step",
      len(more) == 1 and more[0].startswith(f"  ... {N - len(rows)} more ranks: median step "
                                            f"{exp_med / 1e6:.1f} ms")
      and f"data wait {exp_dw[0] / 1e3:.1f} µs to {exp_dw[1] / 1e3:.1f} µs per step" in more[0]
      and "--all-ranks" in more[0] and f"{len(rows)} of {N} ranks" in out,
      (more, N - len(rows), exp_med, exp_dw))
rc, md, err = run("report", "--format", "markdown", *big_files)
check("512 ranks, markdown: the same rows as the text, and the same summary line",
      rc == 0 and md_rows(md) == rows and f"_... {N - len(rows)} more ranks: median step" in md
      and "| Shown as |" in md, (md_rows(md), rows))
rc, out, err = run("report", "--all-ranks", *big_files)
rows_all, more = text_rows(out)
check("512 ranks, --all-ranks: text has every rank, no summary line",
      rc == 0 and rows_all == list(range(N)) and more == [] and "shown as" not in out, len(rows_all))
rc, md, err = run("report", "--format", "markdown", "--all-ranks", *big_files)
check("512 ranks, --all-ranks: markdown has every rank",
      rc == 0 and md_rows(md) == list(range(N)) and "more ranks" not in md, len(md_rows(md)))
rc, out16, err = run("report", *big_files[:16])
rc2, out17, err2 = run("report", *big_files[:17])
r16, m16 = text_rows(out16)
r17, m17 = text_rows(out17)
check("16 ranks: every row; 17 ranks: shortened, shown + hidden = 17",
      rc == 0 and rc2 == 0 and r16 == list(range(16)) and m16 == [] and len(r17) < 17
      and len(m17) == 1 and m17[0].startswith(f"  ... {17 - len(r17)} more rank"), (r16, r17, m17))
rc, out, err = run("report", "--help")
check("report --help lists --all-ranks", rc == 0 and "--all-ranks" in out, out[-1500:])
# No slow rank: no finding.
with open(big_files[SLOW]) as fh:
    d = json.load(fh)
d["traces"][0].update(data_wait_per_step_ns=160_000, step_median_ns=15_000_000)
with open(big_files[SLOW], "w") as fh:
    json.dump(d, fh)
rc, d, err = report_json(*big_files)
check("512 alike ranks: no rank-imbalance", d is not None and imbalance(d) == [], d and imbalance(d))

# ---- Bad results: one line, exit 2, nothing written ----------------------
good = results_json[0]
bad_cases = {
    "truncated": open(good).read()[:200],
    "trailing-garbage": open(good).read() + "}",
    "not-json": "{this is not json",
    "empty-object": "{}",
    "other-format": json.dumps({"format": "pfprof-diff/1", "traces": []}),
    "no-traces": json.dumps({"format": "pfprof-report/1"}),
    "older-pfprof": json.dumps({"format": "pfprof-report/1", "traces": [
        {k: v for k, v in template["traces"][0].items() if k != "steady_steps"}]}),
    "no-rank": json.dumps({"format": "pfprof-report/1", "traces": [
        dict(template["traces"][0], rank=-1)]}),
    "negative-figure": json.dumps({"format": "pfprof-report/1", "traces": [
        dict(template["traces"][0], data_wait_per_step_ns=-5)]}),
    "huge-rank": json.dumps({"format": "pfprof-report/1", "traces": [
        dict(template["traces"][0], rank=1e300)]}),
    "deep-nesting": '{"format":"pfprof-report/1","x":' + "[" * 100000 + "]" * 100000 + "}",
    "bad-utf8": None,
    "lone-surrogate": '{"format":"pfprof-report/1","traces":[{"host":"\\ud800"}]}',
    "duplicate-rank": None,
}
for name, text in bad_cases.items():
    path = os.path.join(WORK, f"bad-{name}.json")
    if name == "bad-utf8":
        with open(path, "wb") as fh:
            fh.write(b'{"format":"pfprof-report/1","traces":[{"host":"\xff\xfe"}]}')
    elif name == "duplicate-rank":
        shutil.copy(good, path)
    else:
        with open(path, "w") as fh:
            fh.write(text)
    out_path = os.path.join(WORK, f"out-{name}.json")
    args = [path, *results_json[1:]] if name != "duplicate-rank" else [path, *results_json]
    rc, out, err = run("report", "--format", "json", "-o", out_path, *args)
    check(f"bad result {name}: exit 2, one line naming the file, no output",
          rc == 2 and err.count("\n") == 1 and err.startswith("pfprof: ") and path in err
          and out == "" and not os.path.exists(out_path), (rc, err[:300]))

# Mutated results (bytes flipped, cut, duplicated): merged or refused
# with one line, never a crash (the suite also runs under ASan/UBSan).
rng = random.Random(8)
raw = open(good, "rb").read()
crashes = []
for i in range(120):
    b = bytearray(raw)
    for _ in range(rng.randint(1, 6)):
        op, at = rng.randint(0, 2), rng.randrange(len(b))
        if op == 0:
            b[at] = rng.randrange(256)
        elif op == 1:
            del b[at:at + rng.randint(1, 40)]
        else:
            b[at:at] = b[at:at + rng.randint(1, 40)]
    path = os.path.join(WORK, "mutated.json")
    with open(path, "wb") as fh:
        fh.write(bytes(b))
    rc, out, err = run("report", "--format", "json", path, *results_json[1:])
    if rc not in (0, 1, 2) or (rc == 2 and err.count("\n") != 1) or "Sanitizer" in err:
        crashes.append((i, rc, err[-300:]))
check("120 mutated results: merged or one-line exit 2, no crash", crashes == [], crashes[:3])

# ---- 18 ranks' traces given together: the same short table ----------------
# (findings point at traces here, not at merged rows.)
many = [gen(f"many-{r:02d}.pfprof", "--rank", str(r), "--steps", "20", "--seed", str(r + 1),
            "--plant", "input-starved" if r == 11 else "none", "--host", f"h{r // 8}")
        for r in range(18)]
rc, out, err = run("report", *many)
rows, more = text_rows(out)
line11 = [l for l in out.splitlines() if l[:7].strip() == "11"]
check("18 traces together: rank 11 (slow DataLoader) in the short table as rank-imbalance",
      rc == 0 and "Rank 11 is input-bound" in out and line11 and "rank-imbalance" in line11[0]
      and len(rows) < 18 and len(more) == 1 and more[0].startswith(f"  ... {18 - len(rows)} more rank"),
      out[-2500:])
rc, out, err = run("report", "--all-ranks", *many)
check("18 traces together, --all-ranks: every rank", rc == 0 and text_rows(out)[0] == list(range(18)),
      text_rows(out))

# ---- Traces and results mixed: refused clearly ----------------------------
rc, out, err = run("report", traces[0], results_json[1])
check("trace + JSON result: exit 2, says not both",
      rc == 2 and err.count("\n") == 1 and "not both" in err and out == "", err)
rc, out, err = run("report", "--format", "html", *results_json)
check("html of merged results: exit 2", rc == 2 and err.count("\n") == 1 and out == "", err)

print(f"1..{len(results)}")
for i, (name, ok, detail) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} {name}")
    if not ok and detail != "":
        print("# " + str(detail).replace("\n", "\n# ")[:2000])
sys.exit(0 if all(ok for _, ok, _ in results) else 1)
