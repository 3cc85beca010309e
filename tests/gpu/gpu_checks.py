#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gpu_checks.py COMMAND ...: the checks of tests/gpu/reliability.sh and
tests/gpu/ranks.sh, each printing short lines and exiting 1 when a check
failed (2 on bad usage).

  traces [--want N] [--checks "C ..."] [--json OUT] FILE...
      each trace through check_trace.py (with the CHECKs) and through
      `pfprof report --format json` (exit 0 or 1 is fine, 2 is not);
      --want: exactly N files.
  meta FILE...
      the meta keys of each trace that tell processes and ranks apart, as
      JSON lines.
  ranks --report R.json [--world N] [--slow RANK|none] [--uuids U,U,...]
        [--distinct-gpus | --same-gpu] [--export E.json] [--nccl]
        [--template T] FILE...
      a multi-rank run: one trace per rank with RANK/LOCAL_RANK/WORLD_SIZE
      in meta, no trace of a process without RANK among them, rank 0 under
      the name -o asked for; each rank's kernels on one GPU (from the
      export), the GPU nvidia-smi lists as LOCAL_RANK; the report's per-rank
      table, the rank-imbalance finding naming the slowed rank and no
      other; NCCL kernels in every rank's trace.
  clocks --report R.json [--shift NS] [--drift-ppm P] FILE...
      traces of two "hosts" whose wall clocks disagree: two host names in
      meta; the raw end times of the ranks' all-reduces (which end
      together) and the triples, to tell whether CUPTI's clock followed
      the shifted wall clock; in the report, the second host's trace moved
      by the collectives ("clock": "collectives") so that the all-reduces
      end within 50 us of each other; with a drift, the report's drift
      against a line fitted here through the raw end differences.
  steps LOG...
      the "median step X ms" lines of sample logs.
  overhead --bare LOG... --pfprof LOG...
      median step time with and without pfprof (the per-rank medians of
      each run, averaged), and the difference.

pfprof is $PFPROF (default build-collector/cli/pfprof). Traces are read
through tests/gpu/check_trace.py, pfprof itself, and (meta only) Python's
sqlite3: meta is a row table in trace formats 1 and 2.
"""
import argparse
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK_TRACE = os.path.join(HERE, "check_trace.py")


def pfprof():
    return os.environ.get("PFPROF", os.path.join(os.getcwd(), "build-collector/cli/pfprof"))


def check_one(path, checks):
    """check_trace.py's JSON for @path, or {"error": ...}."""
    p = subprocess.run([sys.executable, CHECK_TRACE, path] + checks, capture_output=True, text=True,
                       timeout=300)
    try:
        d = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"error": (p.stderr.strip().splitlines() or ["no output"])[-1][:200], "rc": p.returncode}
    d["rc"] = p.returncode
    return d


def report_json(paths, out=None):
    """(exit code, parsed JSON or None, first stderr line) of pfprof report."""
    p = subprocess.run([pfprof(), "report", "--format", "json", "-q"] + list(paths), capture_output=True,
                       text=True, timeout=300)
    if out:
        with open(out, "w") as f:
            f.write(p.stdout)
    try:
        d = json.loads(p.stdout)
    except ValueError:
        d = None
    return p.returncode, d, (p.stderr.strip().splitlines() or [""])[0][:200]


def cmd_traces(a):
    ok = True
    rows = []
    for path in a.files:
        c = check_one(path, a.checks.split())
        rc, _, err = report_json([path])
        m = c.get("metrics", {})
        good = "error" not in c and c["rc"] == 0 and rc in (0, 1)
        ok &= good
        rows.append({"trace": os.path.basename(path), "size": os.path.getsize(path), "check_rc": c.get("rc"),
                     "error": c.get("error"), "failed_checks": [k for k, v in c.get("checks", {}).items() if not v],
                     "complete": m.get("complete"), "kernels": m.get("kernels"), "dropped": m.get("dropped"),
                     "report_rc": rc, "report_error": err if rc not in (0, 1) else ""})
    if a.want is not None and len(a.files) != a.want:
        ok = False
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    for r in rows:
        print(f"  {r['trace']}: {r['size']} B, complete={r['complete']} kernels={r['kernels']} "
              f"dropped={r['dropped']} check_rc={r['check_rc']}"
              + (f" failed={','.join(r['failed_checks'])}" if r["failed_checks"] else "")
              + (f" error={r['error']}" if r["error"] else "")
              + f" report_rc={r['report_rc']}" + (f" ({r['report_error']})" if r["report_error"] else ""))
    summary = (f"{len(rows)} trace(s)" + (f" (want {a.want})" if a.want is not None else "")
               + "; complete " + ",".join(str(r["complete"]) for r in rows)
               + "; report rc " + ",".join(str(r["report_rc"]) for r in rows)
               + ("; no trace" if not rows else "; checks ok" if all(r["check_rc"] == 0 for r in rows)
                  else "; CHECK FAILED"))
    print(summary)
    return 0 if ok else 1


META_KEYS = ["pid", "host", "rank", "local_rank", "world_size", "cuda_visible_devices", "gpu_names", "gpu_uuids",
             "complete", "format_version", "clock_start_cupti_ns", "clock_start_realtime_ns"]


def read_meta(path):
    """The meta table of @path (a private copy, with its -wal and
    -journal), or {"error": ...} when it cannot be read as SQLite."""
    tmp = tempfile.mkdtemp()
    try:
        dst = os.path.join(tmp, "t.pfprof")
        shutil.copy(path, dst)
        for suffix in ("-wal", "-journal"):
            if os.path.exists(path + suffix):
                shutil.copy(path + suffix, dst + suffix)
        db = sqlite3.connect(dst)
        meta = dict(db.execute("SELECT key, value FROM meta"))
        db.close()
        return {k: meta.get(k) for k in META_KEYS}
    except (sqlite3.Error, OSError) as e:
        return {"error": f"{type(e).__name__}: {e}"}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def cmd_meta(a):
    bad = 0
    for path in a.files:
        m = read_meta(path)
        bad += "error" in m
        print(json.dumps({"trace": os.path.basename(path), **m}))
    return 1 if bad else 0


def strip_mangling(name):
    # "_Z38ncclDevKernel_AllReduce..." -> "ncclDevKernel_AllReduce..."
    return re.sub(r"^_Z\d+", "", name)


GPU_TRACK = re.compile(r"^GPU (\d+)\b.*\(pid (\d+)\)$")


def kernel_counts(export_path):
    """{(pid, device id): (nccl kernels, all kernels)} from a chrome-json
    export, whose GPU tracks are named "GPU N: NAME (pid P)"."""
    with open(export_path) as f:
        d = json.load(f)
    events = d["traceEvents"] if isinstance(d, dict) else d
    tracks = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            m = GPU_TRACK.match(str(e.get("args", {}).get("name", "")))
            if m:
                tracks[e.get("pid")] = (int(m.group(2)), int(m.group(1)))
    counts = {}
    for e in events:
        if e.get("ph") != "X" or "kernel" not in str(e.get("cat", "")).lower() or e.get("pid") not in tracks:
            continue
        key = tracks[e["pid"]]
        n, total = counts.get(key, (0, 0))
        counts[key] = (n + strip_mangling(str(e.get("name", ""))).lower().startswith("nccl"), total + 1)
    return counts


def cmd_ranks(a):
    results = []
    failed = []

    def check(name, ok, detail):
        results.append(ok)
        if not ok:
            failed.append(name)
        print(f"  {'ok  ' if ok else 'FAIL'} {name}: {detail}")

    metas = [(p, read_meta(p)) for p in a.files]
    unreadable = [os.path.basename(p) for p, m in metas if "error" in m]
    check("meta readable", not unreadable, ", ".join(unreadable) or "all")
    by_rank = {}
    dup = []
    unranked = []
    for p, m in metas:
        if "error" in m:
            continue
        try:
            r = int(m["rank"])
        except (TypeError, ValueError):
            unranked.append((p, m))
            continue
        if r in by_rank:
            dup.append(r)
        by_rank[r] = (p, m)
    world = a.world
    want_ranks = list(range(world)) if world else sorted(by_rank)
    check("one trace per rank", sorted(by_rank) == want_ranks and not dup and len(by_rank) >= 2,
          ", ".join(f"{os.path.basename(p)}: rank={m.get('rank')} local_rank={m.get('local_rank')} "
                    f"world_size={m.get('world_size')}" for p, m in metas))
    # A process without RANK (the launcher: torchrun initializes CUDA) also
    # writes a trace; %r makes its name the one rank 0 should have had.
    check("no trace without RANK among the run's files", not unranked,
          "; ".join(f"{os.path.basename(p)} (pid {m.get('pid')})" for p, m in unranked) or "none")
    if by_rank.get(0) and "%r" in (a.template or ""):
        want0 = os.path.basename(a.template.replace("%r", "0").replace("%h", str(by_rank[0][1].get("host"))))
        got0 = os.path.basename(by_rank[0][0])
        check("rank 0's trace has the name -o asked for", got0 == want0, f"{got0} (asked {want0})")
    if world:
        # One node (torchrun --standalone): LOCAL_RANK equals RANK.
        okw = all(str(m.get("world_size")) == str(world) and str(m.get("local_rank")) == str(r)
                  for r, (_, m) in by_rank.items())
        check("LOCAL_RANK = RANK, WORLD_SIZE in meta", okw,
              f"world_size {world} and local_rank = rank on every trace" if okw else "mismatch")
    check("GPU UUIDs in meta", all((m.get("gpu_uuids") or "").startswith("GPU-") for _, m in by_rank.values()),
          "; ".join(f"rank {r}: {m.get('gpu_uuids')}" for r, (_, m) in sorted(by_rank.items())))

    counts = None
    if a.export:
        try:
            counts = kernel_counts(a.export)
        except (OSError, ValueError, KeyError) as e:
            check("export readable", False, str(e))
    if counts is not None:
        # meta.gpu_uuids lists every device the process saw, in device id
        # order; the rank's GPU is the one its kernels ran on.
        gpu = {}
        for r, (_, m) in by_rank.items():
            pid = int(m.get("pid") or -1)
            devs = sorted(d for (p, d), (_, t) in counts.items() if p == pid and t > 0)
            listed = (m.get("gpu_uuids") or "").split(",")
            gpu[r] = [listed[d] if d < len(listed) else f"device {d}" for d in devs]
        detail = "; ".join(f"rank {r}: kernels on {', '.join(u) or 'no GPU'}" for r, u in sorted(gpu.items()))
        check("each rank's kernels on one GPU", all(len(u) == 1 for u in gpu.values()), detail)
        used = {u[0] for u in gpu.values() if len(u) == 1}
        if a.same_gpu:
            check("all ranks on one GPU", len(used) == 1, detail)
        if a.distinct_gpus:
            check("each rank on its own GPU", len(used) == len(gpu), detail)
        if a.uuids:
            smi = [u.strip() for u in a.uuids.split(",") if u.strip()]
            bad = []
            for r, (_, m) in by_rank.items():
                try:
                    want = smi[int(m.get("local_rank")) % len(smi)]
                except (TypeError, ValueError, ZeroDivisionError):
                    want = None
                if gpu[r] != [want]:
                    bad.append(f"rank {r}: {gpu[r]} != nvidia-smi GPU {m.get('local_rank')} {want}")
            check("rank's GPU is nvidia-smi's GPU LOCAL_RANK", not bad, "; ".join(bad) or "all match")
        per = "; ".join(f"rank {r}: {sum(n for (p, _), (n, _) in counts.items() if p == int(m.get('pid') or -1))} "
                        f"of {sum(t for (p, _), (_, t) in counts.items() if p == int(m.get('pid') or -1))}"
                        for r, (_, m) in sorted(by_rank.items()))
        if a.nccl:
            ok = all(sum(n for (p, _), (n, _) in counts.items() if p == int(m.get("pid") or -1)) > 0
                     for _, m in by_rank.values())
            check("NCCL kernels (name nccl...) in every rank's trace", ok, per)
        else:
            print(f"  kernels whose name starts with nccl: {per}")

    try:
        with open(a.report) as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        check("report JSON", False, str(e))
        rep = {}
    ranks = rep.get("ranks") or []
    check("per-rank table (JSON ranks[])", sorted(r["rank"] for r in ranks) == sorted(by_rank),
          "; ".join(f"rank {r['rank']}: step {r['step_median_ns'] / 1e6:.1f} ms, data wait "
                    f"{r['data_wait_per_step_ns'] / 1e6:.2f} ms, exposed copy {r['copy_exposed_per_step_ns'] / 1e6:.2f} "
                    f"ms, idle {r['idle_per_step_ns'] / 1e6:.2f} ms" for r in ranks) or "no ranks[] in the JSON")
    pid_rank = {t.get("pid"): t.get("rank") for t in rep.get("traces", [])}
    imb = [f for f in rep.get("findings", []) if f.get("rule") == "rank-imbalance"]
    named = sorted({pid_rank.get(f.get("pid")) for f in imb}, key=str)
    titles = " | ".join(f.get("title", "") for f in imb) or "none"
    if a.slow is not None and a.slow != "none":
        want = int(a.slow)
        ok = named == [want] and all(f.get("title", "").startswith(f"Rank {want} ") for f in imb)
        check(f"rank-imbalance names rank {want} only", ok, titles)
    elif a.slow == "none":
        check("no rank-imbalance finding", not imb, titles)
    print(f"  findings: {', '.join(f.get('rule', '?') + ' (rank ' + str(pid_rank.get(f.get('pid'))) + ')' for f in rep.get('findings', [])) or 'none'}")
    ok = all(results)
    if ok:
        print(f"all {len(results)} checks passed")
    else:
        print(f"{len(failed)} of {len(results)} checks FAILED: {'; '.join(failed)}")
    return 0 if ok else 1


# The samples' own lines ("ddp_train rank 0/2 (...): median step 12.34 ms"),
# not pfprof's report text.
STEP_RE = re.compile(r"^(?!pfprof)[^\n]*?: median step ([0-9.]+) ms", re.M)


def medians(path):
    try:
        with open(path, errors="replace") as f:
            return [float(x) for x in STEP_RE.findall(f.read())]
    except OSError:
        return []


def line_fit(xs, ys):
    """Least squares y = a + b (x - mean x), refitted once without the pairs
    ten times further off the line than the median; (b, residual median)."""
    pts = list(zip(xs, ys))
    for _ in range(2):
        mx = statistics.fmean(x for x, _ in pts)
        my = statistics.fmean(y for _, y in pts)
        sxx = sum((x - mx) ** 2 for x, _ in pts) or 1.0
        b = sum((x - mx) * (y - my) for x, y in pts) / sxx
        res = [abs(y - (my + b * (x - mx))) for x, y in pts]
        cut = 10 * (statistics.median(res) or 1.0)
        pts = [p for p, r in zip(pts, res) if r <= cut]
    return b, statistics.median(res)


def allreduce_ends(path):
    """End times of the trace's all-reduce/all-gather/reduce-scatter
    kernels, in order of start (what pfprof pairs)."""
    sys.path.insert(0, os.path.join(HERE, ".."))
    import pfprof_trace_rows
    db = pfprof_trace_rows.connect(path)
    rows = db.execute("SELECT k.start_ns + k.dur_ns, s.value FROM kernels k JOIN strings s ON s.id = k.name_id "
                      "ORDER BY k.start_ns").fetchall()
    return [e for e, n in rows if "nccl" in n and "Generic" not in n
            and any(c in n for c in ("AllReduce", "AllGather", "ReduceScatter"))]


def cmd_clocks(a):
    results = []

    def check(name, ok, detail):
        results.append(ok)
        print(f"  {'ok  ' if ok else 'FAIL'} {name}: {detail}")

    metas = sorted(((read_meta(p), p) for p in a.files), key=lambda mp: str(mp[0].get("rank")))
    hosts = [m.get("host") for m, _ in metas]
    check("two hosts in meta", len(metas) == 2 and len(set(hosts)) == 2, ", ".join(map(str, hosts)))
    if len(metas) != 2:
        return 1
    for m, p in metas:
        try:
            tri = int(m["clock_start_realtime_ns"]) - int(m["clock_start_cupti_ns"])
            print(f"  rank {m.get('rank')} ({m.get('host')}): realtime - cupti at start {tri} ns")
        except (KeyError, TypeError, ValueError):
            print(f"  rank {m.get('rank')}: no clock triple")
    e0, e1 = allreduce_ends(metas[0][1]), allreduce_ends(metas[1][1])
    n = min(len(e0), len(e1))
    raw = statistics.median(y - x for x, y in zip(e0, e1)) if n else None
    check("the same number of all-reduces", len(e0) == len(e1) and n >= 8, f"{len(e0)} and {len(e1)}")
    if n >= 8:
        slope, res = line_fit([float(x) for x in e0[:n]], [float(y - x) for x, y in zip(e0, e1)])
        print(f"  raw end differences: a line through them gains {slope * 1e6:.1f} ppm (residual median "
              f"{res:.0f} ns); wall clock drift planted: {a.drift_ppm} ppm")
    if raw is not None:
        # With a drift the difference grows from the shift on: judge by the slope.
        if a.drift_ppm:
            followed = n >= 8 and abs(slope * 1e6 - a.drift_ppm) <= 0.1 * abs(a.drift_ppm)
        else:
            followed = a.shift is not None and abs(raw - a.shift) < 200000
        print(f"  raw median end difference rank1 - rank0: {raw:.0f} ns (wall clock shift {a.shift}): CUPTI's "
              f"clock {'followed' if followed else 'did not follow'} the shifted wall clock")
    try:
        with open(a.report) as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        check("report JSON", False, str(e))
        return 1
    tr = {t.get("pid"): t for t in rep.get("traces", [])}
    t0, t1 = tr.get(int(metas[0][0].get("pid") or -1), {}), tr.get(int(metas[1][0].get("pid") or -1), {})
    keys = ("clock", "clock_offset_ns", "clock_collectives", "clock_collectives_ns", "clock_spread_ns",
            "clock_drift_ppm")
    for name, t in (("rank 0", t0), ("rank 1", t1)):
        print(f"  report, {name}: " + ", ".join(f"{k}={t.get(k)}" for k in keys))
    # Rank 0's host is the reference: rank 1 moves onto it.
    check("rank 0 the reference, rank 1 aligned by the collectives",
          t0.get("clock") == "aligned" and t0.get("clock_offset_ns") == 0 and t1.get("clock") == "collectives",
          f"rank 0 {t0.get('clock')}, rank 1 {t1.get('clock')}")
    if raw is not None and t1.get("clock") == "collectives":
        left = raw + t1.get("clock_offset_ns", 0) - t0.get("clock_offset_ns", 0)
        check("all-reduces end together after alignment", abs(left) <= 50000,
              f"median end difference {left:.0f} ns after moving rank 1 by {t1.get('clock_offset_ns')} ns "
              f"({t1.get('clock_collectives')} collectives, spread {t1.get('clock_spread_ns')} ns)")
    if a.drift_ppm and n >= 8 and t1.get("clock") == "collectives":
        got = t1.get("clock_drift_ppm") or 0.0
        check("the report's drift is the raw differences' slope", abs(got - slope * 1e6) <= 0.1 * abs(slope * 1e6) + 1,
              f"report {got:.1f} ppm, fitted here {slope * 1e6:.1f} ppm, planted {a.drift_ppm} ppm")
    ok = all(results)
    print(f"all {len(results)} checks passed" if ok else f"{results.count(False)} of {len(results)} checks FAILED")
    return 0 if ok else 1


def cmd_steps(a):
    for path in a.files:
        print(f"{os.path.basename(path)}: {' '.join(f'{m:.2f}' for m in medians(path)) or 'none'}")
    return 0


def cmd_overhead(a):
    bare = [medians(p) for p in a.bare]
    pf = [medians(p) for p in a.pfprof]
    allb = [m for ms in bare for m in ms]
    allp = [m for ms in pf for m in ms]
    print("bare runs, per-rank median step ms: " + " | ".join(" ".join(f"{m:.2f}" for m in ms) or "none"
                                                              for ms in bare))
    print("pfprof runs, per-rank median step ms: " + " | ".join(" ".join(f"{m:.2f}" for m in ms) or "none"
                                                                for ms in pf))
    if not allb or not allp:
        print("overhead: not enough runs")
        return 1
    mb, mp = statistics.mean(allb), statistics.mean(allp)
    print(f"overhead: bare {mb:.2f} ms, pfprof {mp:.2f} ms per step (mean of {len(allb)} and {len(allp)} "
          f"per-rank medians): {100 * (mp / mb - 1):+.1f}%")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("traces")
    t.add_argument("--want", type=int)
    t.add_argument("--checks", default="")
    t.add_argument("--json")
    t.add_argument("files", nargs="*")
    m = sub.add_parser("meta")
    m.add_argument("files", nargs="*")
    r = sub.add_parser("ranks")
    r.add_argument("--report", required=True)
    r.add_argument("--world", type=int)
    r.add_argument("--slow")
    r.add_argument("--uuids")
    r.add_argument("--distinct-gpus", action="store_true")
    r.add_argument("--same-gpu", action="store_true")
    r.add_argument("--export")
    r.add_argument("--nccl", action="store_true")
    r.add_argument("--template", help="the -o template of the run (checks rank 0's file name)")
    r.add_argument("files", nargs="*")
    c = sub.add_parser("clocks")
    c.add_argument("--report", required=True)
    c.add_argument("--shift", type=int)
    c.add_argument("--drift-ppm", type=float, default=0.0)
    c.add_argument("files", nargs="*")
    s = sub.add_parser("steps")
    s.add_argument("files", nargs="*")
    o = sub.add_parser("overhead")
    o.add_argument("--bare", nargs="+", default=[])
    o.add_argument("--pfprof", nargs="+", default=[])
    a = p.parse_args()
    return {"traces": cmd_traces, "meta": cmd_meta, "ranks": cmd_ranks, "steps": cmd_steps, "clocks": cmd_clocks,
            "overhead": cmd_overhead}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
