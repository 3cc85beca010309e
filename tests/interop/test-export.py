#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`pfprof export --format chrome-json`: the output checked against the
Trace Event Format's rules (JSON object form, every event with ph/ts/pid/
tid, complete events with dur >= 0, flow start/finish pairs with one id
and "bp":"e" binding to slices, metadata naming every track, findings as
instant events with their text), on synthetic traces with planted
patterns and on the recorded samples when present; plus output-file
safety and error handling.

Usage: test-export.py PFPROF WORKDIR SOURCE_ROOT  (TAP on stdout)
"""
import bisect
import gzip
import json
import os
import sqlite3
import subprocess
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interop_util import Env, Tap, dir_listing, finding_rules, table_count, trace_rows  # noqa: E402

PHASES = {"X", "M", "s", "f", "i"}


def structure_problems(doc):
    """Every rule of the format the export relies on; returns a list of
    problems (empty when the document is well-formed)."""
    problems = []
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return ["not a JSON object with a traceEvents array"]
    if doc.get("displayTimeUnit") not in ("ms", "ns"):
        problems.append(f"displayTimeUnit {doc.get('displayTimeUnit')!r}")
    events = doc["traceEvents"]
    process_names, thread_names = set(), set()
    slices = defaultdict(list)
    flows = defaultdict(list)
    for n, e in enumerate(events):
        for key in ("ph", "ts", "pid", "tid", "name"):
            if key not in e:
                problems.append(f"event {n} has no {key}: {e}")
        ph = e.get("ph")
        if ph not in PHASES:
            problems.append(f"event {n}: unexpected ph {ph!r}")
        if not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
            problems.append(f"event {n}: pid/tid not integers")
        if not isinstance(e.get("ts"), (int, float)):
            problems.append(f"event {n}: ts not a number")
        if ph == "M":
            if e["name"] == "process_name":
                process_names.add(e["pid"])
            elif e["name"] == "thread_name":
                thread_names.add((e["pid"], e["tid"]))
            elif not e["name"].endswith("_sort_index"):
                problems.append(f"event {n}: unknown metadata {e['name']}")
            if not isinstance(e.get("args"), dict):
                problems.append(f"event {n}: metadata without args")
        elif ph == "X":
            if not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0:
                problems.append(f"event {n}: X without dur >= 0: {e}")
            else:
                slices[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"]))
        elif ph in ("s", "f"):
            if "id" not in e:
                problems.append(f"event {n}: flow without id")
            flows[e.get("id")].append(e)
            if ph == "f" and e.get("bp") != "e":
                problems.append(f"event {n}: flow end without bp=e")
        elif ph == "i":
            if e.get("s") not in ("g", "p", "t"):
                problems.append(f"event {n}: instant scope {e.get('s')!r}")
    for n, e in enumerate(events):
        if e.get("ph") in ("X", "i", "s", "f") and e.get("pid") not in process_names:
            problems.append(f"event {n}: pid {e.get('pid')} has no process_name")
            break
    for key in slices:
        if key not in thread_names:
            problems.append(f"track {key} has slices but no thread_name")
    # Per track: starts sorted, and the latest end among slices starting
    # at or before each, so "some slice contains ts" is one bisection.
    reach = {}
    for key, spans in slices.items():
        spans.sort()
        starts, ends, latest = [], [], float("-inf")
        for a, b in spans:
            latest = max(latest, b)
            starts.append(a)
            ends.append(latest)
        reach[key] = (starts, ends)

    def inside_slice(x):
        starts, ends = reach.get((x["pid"], x["tid"]), ([], []))
        i = bisect.bisect_right(starts, x["ts"]) - 1
        return i >= 0 and ends[i] >= x["ts"]

    for fid, pair in flows.items():
        phases = sorted(x["ph"] for x in pair)
        if phases != ["f", "s"]:
            problems.append(f"flow {fid}: phases {phases}")
            continue
        start = next(x for x in pair if x["ph"] == "s")
        end = next(x for x in pair if x["ph"] == "f")
        if start["ts"] > end["ts"]:
            problems.append(f"flow {fid}: starts after it ends")
        # Binding: each flow event lies inside a slice of its own track.
        for x in (start, end):
            if not inside_slice(x):
                problems.append(f"flow {fid}: {x['ph']} at {x['ts']} binds to no slice")
                break
        if len(problems) > 50:
            break
    return problems


def nesting_violations(doc):
    """Complete events that Perfetto's importer drops: on one track (pid,
    tid) an X event must nest in the one open before it or start after it
    ends (slice_drop_overlapping_complete_event). Times in whole ns."""
    tracks = {}
    for e in doc.get("traceEvents", []):
        if e.get("ph") == "X":
            start = round(e["ts"] * 1000)
            tracks.setdefault((e["pid"], e["tid"]), []).append((start, -round(e.get("dur", 0) * 1000), e))
    bad = []
    for key, evs in tracks.items():
        evs.sort(key=lambda x: (x[0], x[1]))
        stack = []
        for start, neg_dur, e in evs:
            end = start - neg_dur
            while stack and stack[-1] <= start:
                stack.pop()
            if stack and end > stack[-1]:
                bad.append((key, e["name"], start))
                continue
            stack.append(end)
    return bad


def export(env, traces, out, *extra):
    p = env.run("export", "--format", "chrome-json", *traces, "-o", out, *extra)
    return p


def main():
    env = Env(sys.argv)
    tap = Tap()

    # 1. Every planted pattern at once, and each alone.
    all_trace = env.generate("all.pfprof", plant="all", steps=40)
    out = env.path("all.json")
    p = export(env, [all_trace], out)
    tap.ok(p.returncode == 0 and p.stdout == "", "export of a trace with every plant exits 0",
           p.stderr)
    doc = json.load(open(out))
    problems = structure_problems(doc)
    tap.ok(not problems, "structure follows the Trace Event Format", "\n".join(problems[:20]))
    events = doc["traceEvents"]
    cats = Counter(e.get("cat") for e in events if e["ph"] == "X")
    tap.ok(cats["kernel"] == table_count(all_trace, "kernels")
           and cats["memcpy"] == table_count(all_trace, "memcpys")
           and cats["memset"] == table_count(all_trace, "memsets")
           and cats["cuda_api"] == table_count(all_trace, "api_calls"),
           "every kernel, copy, memset and API call is a complete event",
           f"{cats} vs kernels={table_count(all_trace, 'kernels')}")

    # Times: microseconds from otherData.clock_origin_ns, nanosecond decimals.
    db = trace_rows(all_trace)
    k_start, k_dur = db.execute(
        "SELECT start_ns, dur_ns FROM kernels ORDER BY start_ns LIMIT 1").fetchone()
    n_threads = db.execute(
        "SELECT count(DISTINCT tid) FROM (SELECT tid FROM api_calls UNION SELECT tid FROM nvtx)"
    ).fetchone()[0]
    db.close()
    origin = doc["otherData"]["clock_origin_ns"]
    first_kernel = min((e for e in events if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    tap.ok(abs(first_kernel["ts"] - (k_start - origin) / 1000) < 0.0015
           and abs(first_kernel["dur"] - k_dur / 1000) < 0.0015,
           "ts and dur are microseconds from the clock origin",
           f"{first_kernel} vs start {k_start} dur {k_dur} origin {origin}")

    names = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    gpu_tracks = {n for n in names if n.startswith("GPU 0 stream ")}
    tap.ok({"GPU 0 stream 7", "GPU 0 stream 13", "GPU 0 stream 14"} <= gpu_tracks,
           "GPU streams are named tracks ('GPU 0 stream 13')", sorted(names))
    pnames = [e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"]
    tap.ok(any(n.startswith("pid 4242") for n in pnames)
           and any(n.startswith("GPU 0") for n in pnames),
           "the process and its GPU are named processes", pnames)
    host_tracks = {(e["pid"], e["tid"]) for e in events
                   if e["ph"] == "X" and e.get("cat") in ("cuda_api", "nvtx")}
    tap.ok(len(host_tracks) == n_threads, "each host thread with API calls or NVTX is a track",
           f"{host_tracks} vs {n_threads}")

    n_launch = sum(1 for e in events if e["ph"] == "s")
    n_gpu = cats["kernel"] + cats["memcpy"] + cats["memset"]
    tap.ok(n_launch >= 0.9 * n_gpu, "flow arrows join API calls to the GPU work they launched",
           f"{n_launch} flows for {n_gpu} GPU events")
    # A launch arrow goes from a cudaLaunchKernel slice to a kernel slice.
    by_track = defaultdict(list)
    for e in events:
        if e["ph"] == "X":
            by_track[(e["pid"], e["tid"])].append(e)
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    ends = {e["id"]: e for e in events if e["ph"] == "f"}
    fid = next(iter(starts))

    def slice_at(ev):
        inside = [x for x in by_track[(ev["pid"], ev["tid"])]
                  if x["ts"] <= ev["ts"] <= x["ts"] + x["dur"]]
        return min(inside, key=lambda x: x["dur"]) if inside else None

    src, dst = slice_at(starts[fid]), slice_at(ends[fid])
    tap.ok(src is not None and dst is not None and src["cat"] == "cuda_api"
           and dst["cat"] in ("kernel", "memcpy", "memset")
           and src["args"]["correlation_id"] == dst["args"]["correlation_id"],
           "a flow binds an API call to GPU work with the same correlation id", f"{src} -> {dst}")

    report = env.report_json(all_trace)
    globals_ = [e for e in events if e["ph"] == "i" and e.get("s") == "g"]
    tap.ok(sorted(e["args"]["rule"] for e in globals_) == sorted(f["rule"] for f in report["findings"])
           and len(report["findings"]) >= 6,
           "each finding of the report is a global instant event",
           f"{[e['args']['rule'] for e in globals_]} vs {finding_rules(report)}")
    by_rule = {f["rule"]: f for f in report["findings"]}
    tap.ok(all(e["args"]["message"] == by_rule[e["args"]["rule"]]["message"]
               and e["args"]["fix"] == by_rule[e["args"]["rule"]]["fix"]
               and e["args"]["severity"] == by_rule[e["args"]["rule"]]["severity"]
               for e in globals_),
           "finding instants carry the report's message, fix and severity")
    occ = Counter(e["args"]["rule"] for e in events if e["ph"] == "i" and e.get("cat") == "finding"
                  and e.get("s") != "g")
    tap.ok(all(occ[r] >= 1 for r in by_rule), "each finding has occurrence instants on its rows",
           occ)
    steps = [e for e in events if e.get("cat") == "step"]
    tap.ok(len(steps) == report["traces"][0]["steps"]
           and sum(1 for s in steps if s["args"]["warmup"]) == report["traces"][0]["warmup_steps"],
           "detected steps are slices on the 'pfprof steps' track",
           f"{len(steps)} vs {report['traces'][0]['steps']}")

    for plant in ("pageable", "serialized", "sync-in-loop"):
        t = env.generate(f"{plant}.pfprof", plant=plant, steps=30)
        o = env.path(f"{plant}.json")
        p = export(env, [t], o)
        d = json.load(open(o)) if p.returncode == 0 else {}
        rules = sorted(e["args"]["rule"] for e in d.get("traceEvents", [])
                       if e["ph"] == "i" and e.get("s") == "g")
        tap.ok(p.returncode == 0 and not structure_problems(d)
               and rules == finding_rules(env.report_json(t)) and rules,
               f"--plant {plant}: well-formed, its findings exported", f"{rules} {p.stderr}")

    # 2. Two ranks: one file, two processes, pids kept apart.
    r0 = env.generate("rank0.pfprof", plant="pageable", steps=20, rank=0)
    r1 = env.generate("rank1.pfprof", plant="none", steps=20, rank=1)
    o = env.path("ranks.json")
    p = export(env, [r0, r1], o)
    d = json.load(open(o))
    pn = [e["args"]["name"] for e in d["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"]
    tap.ok(p.returncode == 0 and not structure_problems(d) and len(pn) == 4
           and len({e["pid"] for e in d["traceEvents"] if e["ph"] == "M"}) == 4,
           "two rank traces: two processes and two GPUs, distinct pids", pn)

    # 3. Untrusted names are escaped and round-trip exactly.
    evil = env.path("evil.pfprof")
    with open(all_trace, "rb") as src_f, open(evil, "wb") as dst_f:
        dst_f.write(src_f.read())
    nasty = 'k"\\<script>\n\t\x1b[31m\x01\u00e9\u2603'
    rows = trace_rows(evil)
    kid = rows.execute("SELECT name_id FROM kernels LIMIT 1").fetchone()[0]
    rows.close()
    db = sqlite3.connect(evil)
    db.execute("UPDATE strings SET value = ? WHERE id = ?", (nasty, kid))
    db.commit()
    db.close()
    o = env.path("evil.json")
    p = export(env, [evil], o)
    raw = open(o, "rb").read()
    d = json.loads(raw)
    tap.ok(p.returncode == 0 and b"\x1b" not in raw and b"\x01" not in raw
           and any(e["name"] == nasty for e in d["traceEvents"]),
           "kernel names with quotes, newlines and escapes are escaped and round-trip", p.stderr)

    # 4. Output safety.
    before = open(out, "rb").read()
    p = export(env, [all_trace], out)
    tap.ok(p.returncode == 3 and "exists" in p.stderr and open(out, "rb").read() == before,
           "an existing output is refused without --force (exit 3)", p.stderr)
    pg = env.generate("pg.pfprof", plant="pageable", steps=10)
    p = export(env, [pg], out, "--force")
    tap.ok(p.returncode == 0 and open(out, "rb").read() != before, "--force replaces it", p.stderr)
    target = env.path("target.txt")
    open(target, "w").write("keep me")
    link = env.path("link.json")
    os.symlink(target, link)
    p = export(env, [pg], link, "--force")
    tap.ok(p.returncode == 2 and "symbolic link" in p.stderr and open(target).read() == "keep me"
           and os.path.islink(link), "a symlink at -o is refused, never followed", p.stderr)
    listing = dir_listing(env.work)
    tap.ok(not any(n.startswith(".") for n in listing), "no temporary files are left behind",
           listing)
    bad = env.path("bad.pfprof")
    open(bad, "w").write("not a trace")
    p = export(env, [bad], env.path("bad.json"))
    tap.ok(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1
           and not os.path.exists(env.path("bad.json")),
           "an unreadable trace: one error line, exit 2, no output file", p.stderr)
    p = env.run("export", "--format", "svg", pg, "-o", env.path("x.json"))
    tap.ok(p.returncode == 2 and "unknown format" in p.stderr, "an unknown format is refused",
           p.stderr)
    p = env.run("export", pg)
    tap.ok(p.returncode == 0 and json.loads(p.stdout)["traceEvents"],
           "without -o the JSON goes to standard output", p.stderr)
    if os.path.exists("/dev/full"):
        with open("/dev/full", "w") as full:
            q = subprocess.run([env.pfprof, "export", all_trace], stdout=full,
                               stderr=subprocess.PIPE, text=True)
        tap.ok(q.returncode == 2 and "standard output" in q.stderr
               and len(q.stderr.strip().splitlines()) == 1,
               "a full disk on standard output: one error line, exit 2", q.stderr)
    gz, plain = env.path("all.json.gz"), env.path("all-plain.json")
    export(env, [all_trace], plain)
    p = export(env, [all_trace], gz)
    raw = open(gz, "rb").read() if os.path.exists(gz) else b""
    try:
        unzipped = json.loads(gzip.decompress(raw))
    except (OSError, ValueError):
        unzipped = None
    tap.ok(p.returncode == 0 and raw[:2] == b"\x1f\x8b" and unzipped == json.load(open(plain)),
           "-o NAME.json.gz writes gzip that decompresses to the same JSON", p.stderr)
    p = env.run("export", "--help")
    tap.ok(p.returncode == 0 and "chrome-json" in p.stdout and "perfetto" in p.stdout.lower(),
           "--help documents the format", p.stdout)

    # 4b. Inside the DataLoader (worker_events): a lane per worker under the
    # process with its batches, fetch, stages and collate_fn; the pin
    # thread's lane; a flow from each batch to the step that got it. The
    # generator's batch N is made by worker N % 2 and got by step N.
    dl = env.generate("dataloader.pfprof", plant="input-starved", steps=12)
    out = env.path("dataloader.json")
    p = export(env, [dl], out, "--force")
    d = json.load(open(out))
    evs = d["traceEvents"]
    db = trace_rows(dl)
    n_batches = db.execute("SELECT count(*) FROM worker_events WHERE kind = 2").fetchone()[0]
    wpids = [r[0] for r in db.execute("SELECT DISTINCT pid FROM worker_events WHERE kind = 2 ORDER BY worker_id")]
    db.close()
    lanes = {(e["pid"], e["tid"]): e["args"]["name"] for e in evs if e["ph"] == "M" and e["name"] == "thread_name"}
    host = next(e["pid"] for e in evs if e.get("cat") == "nvtx")
    tap.ok([lanes.get((host, w)) for w in wpids] == [f"DataLoader worker {i} (pid {w})" for i, w in enumerate(wpids)]
           and any(n.startswith("DataLoader pin-memory thread") for (pid, _), n in lanes.items() if pid == host),
           "a named lane per DataLoader worker and the pin thread's, under the process", lanes)
    batches = {e["name"]: e for e in evs if e["ph"] == "X" and e.get("cat") == "dataloader"
               and e["name"].startswith("batch ")}
    tap.ok(len(batches) == n_batches and all(e["tid"] == wpids[int(n.split()[1]) % 2] for n, e in batches.items()),
           "each batch is a slice on its worker's lane", (len(batches), n_batches))

    def inside(e, outer):
        return outer["ts"] <= e["ts"] and e["ts"] + e.get("dur", 0) <= outer["ts"] + outer["dur"] + 0.0015

    parts = [e for e in evs if e["ph"] == "X" and e.get("cat") == "dataloader" and not e["name"].startswith(("batch", "pin"))]
    names = Counter(e["name"].rsplit(".", 1)[-1] for e in parts)
    tap.ok(names["fetch"] == n_batches and names["collate_fn"] == n_batches
           and names["default_loader"] == n_batches and names["RandomResizedCrop"] == n_batches
           and all(any(inside(e, b) for b in batches.values() if b["tid"] == e["tid"]) for e in parts),
           "fetch, each stage and collate_fn are slices inside their batch", names)
    tap.ok(not nesting_violations(d), "no DataLoader slice Perfetto would drop", nesting_violations(d)[:3])
    steps = [e for e in evs if e["ph"] == "X" and e.get("cat") == "step"]
    starts = {e["id"]: e for e in evs if e["ph"] == "s" and e.get("cat") == "batch"}
    ends = {e["id"]: e for e in evs if e["ph"] == "f" and e.get("cat") == "batch"}
    linked = []
    for fid, st in starts.items():
        batch = next((b for b in batches.values() if b["tid"] == st["tid"] and inside(st, b)), None)
        step = next((x for x in steps if fid in ends and x["tid"] == ends[fid]["tid"]
                     and x["ts"] <= ends[fid]["ts"] < x["ts"] + x["dur"]), None)
        if batch and step:
            linked.append((batch["name"].split()[1], step["name"].split()[1]))
    tap.ok(len(linked) >= n_batches - 1 and all(b == s for b, s in linked),
           "a flow joins each batch to the step that got it (batch N to step N)", linked[:5])

    # 5. Recorded samples (committed by the collector work).
    samples = env.sample_traces()
    if not samples:
        tap.skip("recorded samples export", "no samples/traces/*.pfprof committed yet")
    for s in samples:
        o = env.path(os.path.basename(s) + ".json")
        p = export(env, [s], o, "--force")
        d = json.load(open(o)) if p.returncode == 0 else {}
        problems = structure_problems(d) if d else [p.stderr]
        rep = env.report_json(s)
        rules = sorted(e["args"]["rule"] for e in d.get("traceEvents", [])
                       if e["ph"] == "i" and e.get("s") == "g")
        kernels = sum(1 for e in d.get("traceEvents", []) if e.get("cat") == "kernel")
        tap.ok(not problems and rules == sorted(f["rule"] for f in rep["findings"])
               and kernels == table_count(s, "kernels"),
               f"recorded sample {os.path.basename(s)}: well-formed, all kernels and findings",
               "\n".join(problems[:10]))
        bad = nesting_violations(d)
        tap.ok(d and not bad, f"recorded sample {os.path.basename(s)}: no slice Perfetto would drop "
               "(complete events on a track nest or are disjoint)",
               f"{len(bad)} overlapping, e.g. {bad[:3]}")
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
