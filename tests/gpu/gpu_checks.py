#!/usr/bin/env python3
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
        [--distinct-gpus | --same-gpu] [--export E.json] [--nccl] FILE...
      a multi-rank run: one trace per rank with RANK/LOCAL_RANK/WORLD_SIZE
      and GPU UUID in meta, the report's per-rank table, the rank-imbalance
      finding naming the slowed rank and no other, NCCL kernels.
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
             "complete", "format_version"]


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


def nccl_counts(export_path):
    """{pid label: (nccl kernels, all kernels)} from a chrome-json export:
    events on GPU tracks whose category says kernel."""
    with open(export_path) as f:
        d = json.load(f)
    events = d["traceEvents"] if isinstance(d, dict) else d
    names = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            names[e.get("pid")] = e.get("args", {}).get("name", str(e.get("pid")))
    counts = {}
    for e in events:
        if e.get("ph") != "X" or "kernel" not in str(e.get("cat", "")).lower():
            continue
        key = names.get(e.get("pid"), str(e.get("pid")))
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
    world = a.world
    check("one trace per rank", world is None or len(a.files) == world,
          f"{len(a.files)} trace(s)" + (f", world {world}" if world else ""))
    unreadable = [os.path.basename(p) for p, m in metas if "error" in m]
    check("meta readable", not unreadable, ", ".join(unreadable) or "all")
    by_rank = {}
    for p, m in metas:
        if "error" in m:
            continue
        try:
            by_rank[int(m["rank"])] = (p, m)
        except (TypeError, ValueError):
            pass
    want_ranks = list(range(world)) if world else sorted(by_rank)
    check("ranks in meta", sorted(by_rank) == want_ranks and len(by_rank) == len(a.files),
          ", ".join(f"{os.path.basename(p)}: rank={m.get('rank')} local_rank={m.get('local_rank')} "
                    f"world_size={m.get('world_size')}" for p, m in metas))
    if world:
        # One node (torchrun --standalone): LOCAL_RANK equals RANK.
        okw = all(str(m.get("world_size")) == str(world) and str(m.get("local_rank")) == str(r)
                  for r, (_, m) in by_rank.items())
        check("LOCAL_RANK = RANK, WORLD_SIZE in meta", okw,
              f"world_size {world} and local_rank = rank on every trace" if okw else "mismatch")
    uuids = {r: (m.get("gpu_uuids") or "") for r, (_, m) in by_rank.items()}
    check("GPU UUID in meta", all(u.startswith("GPU-") for u in uuids.values()),
          "; ".join(f"rank {r}: {u}" for r, u in sorted(uuids.items())))
    if a.same_gpu:
        check("all ranks on one GPU", len(set(uuids.values())) == 1,
              f"{len(set(uuids.values()))} distinct UUID(s) for {len(uuids)} rank(s)")
    if a.distinct_gpus:
        check("each rank on its own GPU", len(set(uuids.values())) == len(uuids),
              f"{len(set(uuids.values()))} distinct UUID(s) for {len(uuids)} rank(s)")
    if a.uuids:
        smi = [u.strip() for u in a.uuids.split(",") if u.strip()]
        bad = []
        for r, (_, m) in by_rank.items():
            try:
                want = smi[int(m.get("local_rank")) % len(smi)]
            except (TypeError, ValueError, ZeroDivisionError):
                want = None
            if uuids[r] != want:
                bad.append(f"rank {r}: {uuids[r]} != nvidia-smi {want}")
        check("UUID is nvidia-smi's GPU LOCAL_RANK", not bad, "; ".join(bad) or "all match")

    try:
        with open(a.report) as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        check("report JSON", False, str(e))
        rep = {}
    ranks = rep.get("ranks") or []
    check("per-rank table", len(ranks) == len(a.files),
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
    if a.export:
        try:
            counts = nccl_counts(a.export)
        except (OSError, ValueError, KeyError) as e:
            counts = None
            check("NCCL kernels", False, f"export unreadable: {e}")
        if counts is not None:
            per = "; ".join(f"{k}: {n} of {t}" for k, (n, t) in sorted(counts.items()))
            if a.nccl:
                gpus_with = sum(1 for n, _ in counts.values() if n > 0)
                check("NCCL kernels on every rank's GPU", gpus_with >= len(a.files), per or "no kernel events")
            else:
                print(f"  kernels whose name starts with nccl: {per}")
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
    r.add_argument("files", nargs="*")
    s = sub.add_parser("steps")
    s.add_argument("files", nargs="*")
    o = sub.add_parser("overhead")
    o.add_argument("--bare", nargs="+", default=[])
    o.add_argument("--pfprof", nargs="+", default=[])
    a = p.parse_args()
    return {"traces": cmd_traces, "meta": cmd_meta, "ranks": cmd_ranks, "steps": cmd_steps,
            "overhead": cmd_overhead}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
