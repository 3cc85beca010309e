#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""torch.profiler (Kineto) Chrome-trace JSON read directly by pfprof.

Each synthetic trace (`pfprof generate --plant P`) is rewritten as the
file torch.profiler would write for the same CUDA activity
(kineto_schema.py: the current schema with baseTimeOffset and
deviceProperties, plain and gzip, and the torch 1.8 schema with
capitalised categories and whole microseconds). `pfprof report` must
reach the same findings, steps and per-step breakdown on the Kineto file
as on the native trace; times keep their nanoseconds, also as µs since the
epoch; displayTimeUnit does not scale times; what a Kineto trace cannot
show is said as a note; several ranks' files go through the rank table;
every command opens the file; bad files fail with one line and exit 2.

Usage: test-kineto-import.py PFPROF WORKDIR SOURCE_ROOT  (TAP on stdout)
"""
import gzip
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interop_util import (Env, Tap, export_chrome, finding_rules, renders_png,  # noqa: E402
                          table_count, trace_rows)
import kineto_schema  # noqa: E402

CALL_RULES = ("pageable-transfer", "serialized-copy", "sync-in-loop", "small-transfers",
              "pinned-alloc-in-loop", "record-stream-stall")
PLANTS = ["none", "pageable", "serialized", "record-stream", "input-starved", "late-prefetch",
          "sync-in-loop", "small-transfers", "pinned-alloc", "all"]


def summary(rep):
    """What must match between a native trace and its Kineto form (the
    step range's name differs: ProfilerStep#N)."""
    steps = rep["summary"]["steps"]
    return {
        "findings": sorted((f["rule"], f["severity"], f["count"]) for f in rep["findings"]),
        "steps": steps["count"],
        "warmup": steps["warmup"],
        "median_ns": steps["median_ns"],
        "breakdown": steps["median_breakdown"],
        "step_source": rep["traces"][0]["step_source"],
    }


def report(env, *paths):
    p = env.run("report", "--format", "json", "-q", *paths)
    return json.loads(p.stdout) if p.returncode == 0 else {"error": p.stderr, "rc": p.returncode}


def one_line_exit_2(p):
    return p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr


def main():
    env = Env(sys.argv)
    tap = Tap()

    # 1. Same findings, steps and breakdown as the native trace, per plant,
    # in the current schema (gzip) and, to the microsecond, the old one.
    for plant in PLANTS:
        native = env.generate(f"{plant}.pfprof", plant=plant, steps=40)
        kgz = kineto_schema.convert(native, env.path(f"{plant}.pt.trace.json.gz"))
        want = summary(env.report_json(native))
        rep = report(env, kgz)
        got = summary(rep) if "error" not in rep else rep
        expect = plant if plant not in ("none", "all") else None
        tap.ok(got == want and (expect is None or any(r[0].startswith(expect) for r in got["findings"])),
               f"Kineto (gzip) of --plant {plant}: same findings, steps and breakdown "
               f"({', '.join(r[0] for r in want['findings']) or 'no findings'})",
               f"native {want}\nkineto {got}")
        old = kineto_schema.convert(native, env.path(f"{plant}-old.json"), schema="old")
        rep = report(env, old)
        got = summary(rep) if "error" not in rep else rep
        tap.ok("error" not in rep and got["findings"] == want["findings"]
               and got["steps"] == want["steps"] and abs(got["median_ns"] - want["median_ns"]) <= 2000,
               f"torch 1.8 schema (Kernel, Memcpy, Runtime, whole µs) of --plant {plant}: same findings "
               "and steps, median within 2 µs", f"native {want}\nold    {got}")

    pageable = env.path("pageable.pfprof")
    want = summary(env.report_json(pageable))
    native_rep = env.report_json(pageable)

    # 2. Nanoseconds survive: relative to baseTimeOffset, and as µs since
    # the epoch (1.7e15 µs, beyond a double's nanoseconds).
    plain = kineto_schema.convert(pageable, env.path("pageable.json"))
    last = kineto_schema.convert(pageable, env.path("pageable-base-last.json"), base_key_last=True)
    absolute = kineto_schema.convert(pageable, env.path("pageable-epoch.json"), absolute=True)
    for path, what in ((plain, "ts relative to baseTimeNanoseconds"),
                       (last, "ts relative to a baseTimeOffset after the events"),
                       (absolute, "ts in µs since the epoch")):
        rep = report(env, path)
        tap.ok("error" not in rep and summary(rep) == want
               and rep["traces"][0]["start_ns"] == native_rep["traces"][0]["start_ns"]
               and rep["traces"][0]["end_ns"] == native_rep["traces"][0]["end_ns"],
               f"plain JSON, {what}: same result, start and end to the nanosecond",
               rep if "error" in rep else (rep["traces"][0]["start_ns"], native_rep["traces"][0]["start_ns"]))
    text = open(absolute).read()
    tap.ok('"ts": 17' in text and ".", "(the epoch file really holds 1.7e15 µs times)", text[:300])

    # 3. displayTimeUnit says how to show times, not their unit.
    for unit in ("ns", "us"):
        path = kineto_schema.convert(pageable, env.path(f"unit-{unit}.json"), display_unit=unit)
        rep = report(env, path)
        tap.ok("error" not in rep and summary(rep) == want,
               f"displayTimeUnit {unit}: times still read as µs, same result", rep)

    # 4. What the trace cannot show is said once, as notes.
    rep = report(env, plain)
    notes = rep["traces"][0]["notes"]
    tap.ok(rep["traces"][0]["source"] == "kineto-json" and any("with_stack" in n for n in notes)
           and any("return values" in n and "record-stream-stall" in n for n in notes),
           "notes: no Python stacks, no return values (record-stream-stall's pool growth)", notes)
    tap.ok(native_rep["traces"][0]["notes"] == [], "a pfprof trace has no notes",
           native_rep["traces"][0]["notes"])
    p = env.run("report", plain)
    tap.ok(p.returncode == 0 and p.stdout.count("Note: no Python stacks") == 1,
           "the text report prints each note once", p.stdout[:800])
    old = env.path("pageable-old.json")
    notes = report(env, old)["traces"][0]["notes"]
    tap.ok(any("no synchronization records" in n for n in notes),
           "torch 1.8 schema: the missing synchronization records are noted", notes)
    nokind = kineto_schema.convert(pageable, env.path("nokind.json"), memcpy_kinds=False)
    rep = report(env, nokind)
    tap.ok("error" not in rep and "pageable-transfer" not in finding_rules(rep)
           and any("pageable-transfer cannot judge" in n for n in rep["traces"][0]["notes"]),
           "copies without a memory kind in their name: pageable-transfer says it cannot judge",
           rep.get("traces", rep))
    noapi = kineto_schema.convert(env.path("sync-in-loop.pfprof"), env.path("noapi.json"), runtime=False)
    rep = report(env, noapi)
    tap.ok("error" not in rep and "sync-in-loop" not in finding_rules(rep)
           and any("sync-in-loop" in n and "cannot judge" in n for n in rep["traces"][0]["notes"]),
           "no cuda_runtime events: sync-in-loop and the others say they cannot judge",
           rep.get("traces", rep))

    # 5. Steps without ProfilerStep#N: the DataLoader waits; two steps only.
    nostep = kineto_schema.convert(env.path("input-starved.pfprof"), env.path("nostep.json"), steps="none",
                                   loader="_MultiProcessingDataLoaderIter")
    rep = report(env, nostep)
    tap.ok("error" not in rep and rep["traces"][0]["step_source"] == "dataloader"
           and rep["summary"]["steps"]["count"] >= 30 and "input-starved" in finding_rules(rep)
           and any("ProfilerStep" in n for n in rep["traces"][0]["notes"]),
           "no ProfilerStep#N ranges: steps from the _MultiProcessingDataLoaderIter.__next__ waits, "
           "input-starved found, noted", rep.get("traces", rep))
    # 5b. Training told from evaluation in a torch.profiler trace: the
    # autograd engine's operators mark backward passes. Two micro-batches
    # per optimizer step: each batch holds a backward pass, every other
    # one an Optimizer.step# range; the validation batches neither.
    ph = env.run("generate", "--plant", "phases", "--steps", "40", "-o", env.path("phases.pfprof"), "--force")
    acc = report(env, kineto_schema.convert(env.path("phases.pfprof"), env.path("accum.json"), steps="none",
                                            training_ops=True, optimizer_every=2))
    tr = acc.get("traces", [{}])[0]
    tap.ok(ph.returncode == 0 and "error" not in acc and tr["phases"]["training_steps"] == 20
           and tr["phases"]["evaluation_batches"] == 20 and tr["step_source"] == "optimizer",
           "torch.profiler: autograd operators mark the backward passes; 2 micro-batches a step make "
           "20 optimizer steps, the 20 validation batches evaluation",
           tr.get("phases", acc) if tr else acc)
    # 5c. prof.step() after each optimizer step: the validation pass
    # halfway lies inside one ProfilerStep, whose training batch comes
    # after it (the last pass follows the last step, outside them all).
    val = report(env, kineto_schema.convert(env.path("phases.pfprof"), env.path("inside.json"),
                                            steps="optimizer", training_ops=True))
    tr = val.get("traces", [{}])[0]
    led = tr.get("ledger", {})
    tap.ok("error" not in val and tr["step_source"] == "nvtx" and tr["phases"]["evaluation_batches"] == 10
           and tr["phases"]["training_steps"] == 39
           and abs(led["mean"]["step_ns"] - led["median"]["step_ns"]) <= 0.05 * led["median"]["step_ns"],
           "a ProfilerStep around a validation pass: its 10 batches are evaluation, the mean step "
           "within 5% of the median", (tr.get("phases"), led.get("mean", {}).get("step_ns"),
                                       led.get("median", {}).get("step_ns")))
    one = env.generate("one.pfprof", plant="none", steps=1)
    rep = report(env, kineto_schema.convert(one, env.path("one.json")))
    tr = rep.get("traces", [{}])[0]
    tap.ok("error" not in rep and tr.get("step_source") == "nvtx" and tr.get("steps") == 1
           and tr.get("step_name", "").startswith("ProfilerStep#"),
           "one ProfilerStep is one step, not the layers recurring inside it", tr)
    ten = report(env, kineto_schema.convert(pageable, env.path("named.json")))
    name = ten.get("traces", [{}])[0].get("step_name", "")
    tap.ok(name.startswith("ProfilerStep#") and "\u2013#" in name,
           "the step source names the range of steps (ProfilerStep#first\u2013#last)", name)
    two = env.generate("two.pfprof", plant="pageable", steps=2)
    rep = report(env, kineto_schema.convert(two, env.path("two.json")))
    tap.ok("error" not in rep and any("only 2 profiled steps" in n for n in rep["traces"][0]["notes"]),
           "a trace of two steps says it is too short to tell warm-up", rep.get("traces", rep))

    # A kernel's narrow fields are held at their bounds: torch.profiler
    # writes what CUPTI says, and a value past CUDA's limits (another
    # tool's file, a damaged one) is neither wrapped nor a trace the
    # reader then refuses.
    with open(env.path("one.json")) as f:
        doc = json.load(f)
    kernel = next(e for e in doc["traceEvents"] if e.get("cat") == "kernel")
    kernel["args"].update({"grid": [5, 70000, -3], "block": [2000000, 1, 1],
                           "registers per thread": 300000})
    with open(env.path("wide.json"), "w") as f:
        json.dump(doc, f)
    wide = env.path("wide.pfprof")
    p = env.run("import", env.path("wide.json"), "-o", wide, "--force")
    db = trace_rows(wide) if p.returncode == 0 else None
    rows = db.execute("SELECT grid_x, grid_y, grid_z, block_x, registers FROM kernels WHERE"
                      f" correlation_id = {kernel['args']['correlation']}").fetchall() if db else p.stderr
    tap.ok(rows == [(5, 65535, 0, 65535, 65535)] and report(env, wide).get("error") is None,
           "grid y and z, block sizes and registers past 0..65535 are kept at the bound, and the "
           "imported trace reads", rows)

    # 6. with_stack=True: the program's frames are kept, the library's not.
    stack = kineto_schema.convert(pageable, env.path("stack.json"), with_stack=True)
    rep = report(env, stack)
    imported = env.path("stack.pfprof")
    env.run("import", stack, "-o", imported, "--force")
    db = trace_rows(imported)
    frames = {r[0] for r in db.execute(
        "SELECT s.value FROM nvtx n JOIN strings s ON s.id = n.name_id JOIN strings d "
        "ON d.id = n.domain_id WHERE d.value = 'python'")}
    db.close()
    tap.ok("error" not in rep and summary(rep) == want
           and not any("with_stack" in n for n in rep["traces"][0]["notes"])
           and frames == {"train.py(57): train_step"},
           "with_stack=True: same result, the program's frames kept as ranges, torch's left out",
           f"{frames} {rep.get('traces', rep)}")
    whats = [e["event"] for f in rep.get("findings", []) if f["rule"] == "pageable-transfer"
             for e in f["evidence"]]
    tap.ok(len(whats) > 0 and all(w.endswith(", from train.py(57): train_step") for w in whats),
           "with_stack=True: each pageable copy of the finding names the program's source line", whats[:3])
    plain_whats = [e["event"] for f in native_rep["findings"] for e in f["evidence"]]
    tap.ok(not any("from train.py" in w for w in plain_whats),
           "(without Python frames no source line is named)", plain_whats[:3])

    # 7. with_stack=True gives the call sites (python_sites, python_calls)
    # the launcher's hook records: each recorded call of the native trace
    # written as torch.profiler writes a call (the entry point inside a
    # torch frame, inside the site's frame, inside its caller's). The same
    # analysis must name the same sites, in text, JSON and Markdown.
    ksites = kineto_schema.convert(pageable, env.path("sites.json.gz"), with_stack=True, sites=True)
    krep = report(env, ksites)

    def sites_of(rep):
        return [{k: v for k, v in site.items() if k != "calls"} for f in rep.get("findings", [])
                for site in f.get("sites") or []]

    want_sites = sites_of(native_rep)
    tap.ok("error" not in krep and len(want_sites) > 0 and sites_of(krep) == want_sites
           and summary(krep) == want,
           "with_stack=True: the same sites as the hook's (file, line, function, caller, count, time)",
           f"native {want_sites}\nkineto {sites_of(krep)}")
    imported = env.path("sites.pfprof")
    env.run("import", ksites, "-o", imported, "--force")
    db = trace_rows(imported)
    rows = list(db.execute(
        "SELECT a.value, f.value, p.line, fn.value, c.value, p.caller_line, p.calls FROM python_sites p "
        "JOIN strings a ON a.id = p.api_id JOIN strings f ON f.id = p.file_id "
        "JOIN strings fn ON fn.id = p.function_id JOIN strings c ON c.id = p.caller_file_id"))
    ncalls = db.execute("SELECT count(*) FROM python_calls").fetchone()[0]
    db.close()
    ndb = trace_rows(pageable)
    nrecorded = ndb.execute("SELECT count(*) FROM python_calls").fetchone()[0]
    ndb.close()
    tap.ok(sorted(rows) == sorted([("Tensor.cuda", "train.py", 57, "train_one_epoch", "train.py", 120, 19),
                                   ("Tensor.cuda", "train.py", 31, "build_model", "train.py", 120, 21)])
           and ncalls == nrecorded,
           "pfprof import keeps them as python_sites and python_calls rows, one call per recorded call",
           f"{rows} {ncalls} vs {nrecorded}")

    def where(text, start, end):
        lines = text.splitlines()
        i = next((k for k, line in enumerate(lines) if line.startswith(start)), None)
        return lines[i:i + next((k for k, line in enumerate(lines[i:]) if line.strip().startswith(end)), 0)] \
            if i is not None else None

    for fmt, start, end in (("text", "   Where in the Python code", "Fix:"),
                            ("markdown", "Where in the Python code", "<details>")):
        a = where(env.run("report", "-q", "--format", fmt, pageable).stdout, start, end)
        b = where(env.run("report", "-q", "--format", fmt, ksites).stdout, start, end)
        tap.ok(a is not None and len(a) > 1 and a == b,
               f"with_stack=True: the {fmt} report lists the sites as for the pfprof trace", f"{a}\n{b}")

    # A sync: each cudaStreamSynchronize inside `loss.item()` in the loop.
    item = ("<built-in method item of Tensor object at 0x7f0000002000>",
            "train.py(88): train_one_epoch", "train.py(120): main")
    sync = kineto_schema.convert(env.path("sync-in-loop.pfprof"), env.path("sync-stack.json"),
                                 with_stack=True, calls={"cudaStreamSynchronize": item})
    rep = report(env, sync)
    f = next((f for f in rep.get("findings", []) if f["rule"] == "sync-in-loop"), None)
    site = (f.get("sites") or [None])[0] if f else None
    tap.ok(site is not None and (site["file"], site["line"], site["function"], site["api"], site["kind"])
           == ("train.py", 88, "train_one_epoch", "Tensor.item", "sync")
           and site["caller"] == {"file": "train.py", "line": 120, "function": "main"}
           and site["count"] == f["count"] and not site["startup"],
           "with_stack=True: sync-in-loop's syncs name loss.item()'s site, its caller, all of them",
           site)
    p = env.run("report", "-q", sync)
    words = " ".join(p.stdout.split())
    tap.ok(p.returncode == 0 and "train.py:88 in train_one_epoch: Tensor.item:" in words
           and words.count("a call site's line is its function's") == 1,
           "the text report names it, with the entry point for the source text, and notes the line once",
           p.stdout[:1500])
    # Frames whose names cannot be a site: a line of 0, no line, a 10 MB
    # function name. The report goes on without their sites.
    for what, frame in (("a line of 0", "train.py(0): train_one_epoch"),
                        ("no line", "train.py(x): train_one_epoch"),
                        ("a 10 MB function name", "train.py(88): " + "f" * (10 << 20))):
        bad = kineto_schema.convert(env.path("sync-in-loop.pfprof"), env.path("sync-bad.json"),
                                    with_stack=True, calls={"cudaStreamSynchronize": (item[0], frame, item[2])})
        rep = report(env, bad)
        f = next((f for f in rep.get("findings", []) if f["rule"] == "sync-in-loop"), None)
        names = [(s["function"][:20], s["line"]) for s in (f.get("sites") or [])] if f else None
        tap.ok(f is not None and names is not None and all(n[1] > 0 and len(n[0]) < 20 for n in names),
               f"a python_function frame with {what}: the finding stands, no site from that frame",
               names if names is not None else rep)

    # Frames outside the program: the standard library (torch.profiler
    # shortens its paths: "threading.py(1010): run") and torch name no site.
    lib = env.path("sites-lib.json")
    doc = json.load(gzip.open(ksites, "rt"))
    for e in doc["traceEvents"]:
        if e.get("cat") == "python_function" and e["name"].startswith("train.py(57)"):
            e["name"] = "threading.py(1010): run"
    json.dump(doc, open(lib, "w"))
    rep = report(env, lib)
    found = [(site["function"], site["line"]) for f in rep.get("findings", []) for site in f.get("sites") or []]
    tap.ok("error" not in rep and ("run", 1010) not in found and ("main", 120) in found,
           "a standard-library frame is passed over: the call's site is the program frame around it",
           found)

    # 7. Missing fields: defaults, never a failure.
    doc = json.load(open(plain))
    n_kernels = 0
    dropped = 0
    for e in doc["traceEvents"]:
        if e.get("cat") == "kernel":
            n_kernels += 1
            if n_kernels % 2:
                del e["args"]  # device from pid, stream from tid
        if e.get("cat") == "user_annotation" and dropped == 0:
            del e["ts"]
            dropped += 1
        if e.get("cat") == "cuda_runtime":
            e.pop("dur", None)
    for k in ("deviceProperties", "traceName", "displayTimeUnit"):
        doc.pop(k)
    missing = env.path("missing.json")
    json.dump(doc, open(missing, "w"))
    rep = report(env, missing)
    tap.ok("error" not in rep and rep["traces"][0]["events"] > 4000
           and any("1 events without ts" in n for n in rep["traces"][0]["notes"])
           and len(rep["summary"]["steps"]) > 0,
           "missing args, ts, dur and deviceProperties: read with defaults, the skipped event noted",
           rep.get("traces", rep))

    # 8. Several ranks: distributedInfo gives each file its rank.
    r0 = env.generate("rank0.pfprof", plant="none", steps=40, seed=3, rank=0)
    r1 = env.generate("rank1.pfprof", plant="input-starved", steps=40, seed=4, rank=1)
    k0 = kineto_schema.convert(r0, env.path("rank-0.json.gz"),
                               distributed={"backend": "nccl", "rank": 0, "world_size": 2})
    k1 = kineto_schema.convert(r1, env.path("rank-1.json.gz"),
                               distributed={"backend": "nccl", "rank": 1, "world_size": 2})
    rep = report(env, k1, k0)
    ranks = [(r["rank"], os.path.basename(r["source"])) for r in rep.get("ranks", [])]
    tap.ok(ranks == [(0, "rank-0.json.gz"), (1, "rank-1.json.gz")] and "rank-imbalance" in rep["rules"],
           "two ranks' files: the rank table by distributedInfo's ranks, rank-imbalance judged",
           rep if "error" in rep else ranks)
    native2 = report(env, r1, r0)
    tap.ok("error" not in rep and sorted(f["rule"] for f in rep["findings"])
           == sorted(f["rule"] for f in native2["findings"]),
           "two ranks: the same findings as the two native traces",
           f"{[f['rule'] for f in rep.get('findings', [])]} {[f['rule'] for f in native2['findings']]}")

    # 8b. Eight ranks of one ProfilerStep each (a short torch.profiler
    # schedule on a DDP job): each rank's one step is its steady step, so
    # the per-rank table and rank-imbalance still judge them.
    eight = []
    for r in range(8):
        g = env.generate(f"r8-{r}.pfprof", plant="input-starved" if r == 5 else "none", steps=1,
                         seed=r + 1, rank=r)
        eight.append(kineto_schema.convert(g, env.path(f"r8-{r}.json"),
                                           distributed={"backend": "nccl", "rank": r, "world_size": 8}))
    rep = report(env, *eight)
    tr = rep.get("traces", [])
    tap.ok("error" not in rep and len(tr) == 8
           and all(t["steps"] == 1 and t["steady_steps"] == 1 and t["warmup_steps"] == 0 for t in tr)
           and [r["rank"] for r in rep.get("ranks", [])] == list(range(8)),
           "eight ranks of one ProfilerStep each: one steady step per rank, all eight in the rank table",
           rep if "error" in rep else [(t["steps"], t["steady_steps"]) for t in tr])
    imb = [f for f in rep.get("findings", []) if f["rule"] == "rank-imbalance"]
    tap.ok(len(imb) == 1 and "Rank 5" in imb[0]["message"],
           "eight ranks of one step: rank-imbalance names the slow rank 5",
           [f["rule"] for f in rep.get("findings", [])])

    # 9. [memory] events (profile_memory=True) become device allocations.
    rs = env.path("record-stream.pfprof")
    mem = kineto_schema.convert(rs, env.path("memory.json"), memory=True)
    imported = env.path("memory.pfprof")
    p = env.run("import", mem, "-o", imported, "--force")
    tap.ok(p.returncode == 0 and table_count(imported, "memory") == table_count(rs, "memory") > 0,
           "[memory] instants: one memory record per CUDA allocation or free",
           f"{p.stderr} {table_count(rs, 'memory')}")

    # 10. Every command opens the file.
    kall = env.path("all.pt.trace.json.gz")
    ok, err = renders_png(env, kall, env.path("all.png"))
    tap.ok(ok, "pfprof render draws a Kineto trace", err)
    p, _, kernels = export_chrome(env, kall, env.path("all-export.json"))
    tap.ok(p.returncode == 0 and kernels == table_count(env.path("all.pfprof"), "kernels"),
           "pfprof export converts a Kineto trace", p.stderr)
    p = env.run("diff", env.path("pageable.pt.trace.json.gz"), env.path("none.pt.trace.json.gz"),
                "--format", "json")
    d = json.loads(p.stdout) if p.returncode == 0 else {"findings": []}
    tap.ok(p.returncode == 0 and "pageable-transfer" in
           [f["rule"] for f in d["findings"] if f["status"] == "resolved"],
           "pfprof diff compares two Kineto traces", p.stderr)
    p = env.run("diff", pageable, env.path("pageable.pt.trace.json.gz"), "--format", "json")
    d = json.loads(p.stdout) if p.returncode == 0 else {"findings": [{"status": "error"}]}
    tap.ok(p.returncode == 0 and all(f["status"] == "unchanged" for f in d["findings"]),
           "pfprof diff of a pfprof trace against its Kineto form: nothing changed",
           p.stderr or [f["status"] for f in d["findings"]])
    imported = env.path("all-imported.pfprof")
    p = env.run("import", kall, "-o", imported, "--force")
    ok = p.returncode == 0
    tap.ok(ok and summary(env.report_json(imported)) == summary(env.report_json(env.path("all.pfprof"))),
           "pfprof import writes a pfprof trace with the same findings, steps and breakdown", p.stderr)
    db = trace_rows(imported) if ok else None
    meta = dict(db.execute("SELECT key, value FROM meta")) if db else {}
    threads = sorted(db.execute("SELECT t.tid, s.value FROM threads t JOIN strings s ON s.id = t.name_id")
                     ) if db else []
    if db:
        db.close()
    ndb = trace_rows(env.path("all.pfprof"))
    want_threads = sorted(ndb.execute("SELECT t.tid, s.value FROM threads t JOIN strings s "
                                      "ON s.id = t.name_id"))
    ndb.close()
    tap.ok(meta.get("source") == "kineto-json" and meta.get("pid") == "4242"
           and meta.get("process_name") == "python",
           "the imported trace says where it came from, and its process", meta)
    tap.ok(threads == want_threads, "thread names: the host process's, not the GPU's stream rows",
           f"{threads} vs {want_threads}")

    # The runtime queries torch.profiler records between the calls that
    # matter (a cudaStreamIsCapturing before each copy) are left out, as the
    # collector leaves them out, and counted.
    with gzip.open(kall, "rt") as f:
        doc = json.load(f)
    queries = []
    for e in doc["traceEvents"]:
        if e.get("cat") == "cuda_runtime" and "Memcpy" in e.get("name", ""):
            queries.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamIsCapturing",
                            "pid": e["pid"], "tid": e["tid"], "ts": e["ts"] - 0.5, "dur": 0.2,
                            "args": {"cbid": 317, "correlation": 0}})
    doc["traceEvents"] += queries
    noisy = env.path("all-queries.pt.trace.json")
    with open(noisy, "w") as f:
        json.dump(doc, f)
    noisy_imported = env.path("all-queries.pfprof")
    p = env.run("import", noisy, "-o", noisy_imported, "--force")
    ok = p.returncode == 0 and ok
    db = trace_rows(noisy_imported) if p.returncode == 0 else None
    nmeta = dict(db.execute("SELECT key, value FROM meta")) if db else {}
    if db:
        db.close()
    tap.ok(ok and len(queries) > 0 and nmeta.get("api_calls_left_out") == str(len(queries))
           and table_count(noisy_imported, "api_calls") == table_count(imported, "api_calls")
           and summary(env.report_json(noisy_imported)) == summary(env.report_json(imported)),
           f"{len(queries)} cudaStreamIsCapturing calls between the copies: left out and counted, "
           "the same findings", (p.stderr, nmeta.get("api_calls_left_out")))
    # pfprof-view's application with the scripted session of tests/gui.
    view = os.path.join(os.path.dirname(os.path.dirname(env.pfprof)), "tests", "gui", "pfprof-view-test")
    xvfb = shutil.which("xvfb-run")
    if os.path.exists(view) and xvfb:
        shown_file = env.path("view-report.txt")
        venv = dict(os.environ, LSAN_OPTIONS="detect_leaks=0", GSETTINGS_BACKEND="memory")
        v = subprocess.run([xvfb, "-a", view, "--report", shown_file, env.path("pageable.pt.trace.json.gz")],
                           capture_output=True, text=True, timeout=240, env=venv)
        shown = dict(line.split("=", 1) for line in open(shown_file).read().splitlines()
                     if "=" in line) if os.path.exists(shown_file) else {}
        tap.ok(v.returncode == 0 and shown.get("n_findings") == "1" and shown.get("error_dialog") == "0",
               "pfprof-view opens a Kineto trace (its finding listed, no error dialog)",
               f"{v.returncode} {v.stderr[-500:]} {shown}")
    else:
        tap.skip("pfprof-view opens a Kineto trace", "no GUI build or no xvfb-run")
    # A pfprof JSON result is still a result, not a trace.
    result = env.path("pageable-result.json")
    open(result, "w").write(env.run("report", "--format", "json", "-q", pageable).stdout)
    rep = report(env, result)
    tap.ok("error" not in rep and rep.get("results_merged") == 1,
           "a pfprof-report/1 result is still merged as a result", rep)

    # 11. Bad input: one line, exit 2, no output, never a crash.
    raw = gzip.open(kall).read()
    cases = []

    def bad(name, data, expect):
        path = env.path(name)
        open(path, "wb").write(data if isinstance(data, bytes) else data.encode())
        cases.append((name, path, expect))

    bad("truncated.json.gz", open(kall, "rb").read()[:20000], "truncated gzip")
    bad("garbage.json.gz", b"\x1f\x8b\x08\x00" + b"\x55" * 200, "gzip")
    bad("truncated.json", raw[: len(raw) // 2], "corrupt torch.profiler trace")
    # A JSON object that is not a result ("format" first) is a trace to
    # every command, told what it lacks as `import` tells it.
    bad("not-kineto.json", '{"foo": 1, "bar": [1, 2]}', "without traceEvents")
    bad("foreign-events.json", '{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2}]}',
        "not a torch.profiler trace")
    bad("array.json", '[{"ph": "X", "cat": "kernel", "ts": 1, "dur": 1}]', "not a pfprof-report/1 result")
    base = '{"traceEvents": [%s]}'
    kernel = '{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": %s, "dur": %s%s}'
    bad("huge-ts.json", base % (kernel % ("1e300", "1", "")), "out of range")
    bad("huge-int.json", base % (kernel % ("99999999999999999999999", "1", "")), "out of range")
    bad("huge-dur.json", base % (kernel % ("1", "9.1e15", "")), "out of range")
    bad("negative-dur.json", base % (kernel % ("1", "-5", "")), "negative dur")
    bad("string-ts.json", base % (kernel % ('"12"', "1", "")), "ts is not a number")
    bad("args-type.json", base % (kernel % ("1", "1", ', "args": [1]')), "args is not an object")
    bad("stream-range.json", base % (kernel % ("1", "1", ', "args": {"stream": 8589934592}')),
        "stream 8589934592 is out of range")
    bad("bytes-type.json", base % '{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "ts": 1, '
        '"dur": 1, "args": {"bytes": "many"}}', "bytes is not an integer")
    bad("events-type.json", '{"traceEvents": {"a": 1}}', "traceEvents is not an array")
    bad("event-type.json", '{"traceEvents": [1, 2]}', "not an object")
    bad("base-type.json", '{"traceEvents": [], "baseTimeOffset": "soon"}', "baseTimeOffset")
    bad("base-range.json", '{"baseTimeNanoseconds": 9223372036854775807, "traceEvents": []}',
        "baseTimeNanoseconds")
    bad("no-comma.json", '{"traceEvents": [{"ph": "M"} {"ph": "M"}]}', "expected ','")
    bad("empty-object.json", "{}", "without traceEvents")
    bad("other-object.json", '{"schemaVersion": 1, "x": 2}', "without traceEvents")
    bad("bom-only.json", b"\xef\xbb\xbf   {", "corrupt torch.profiler trace")
    # One JSON text, one event list; a release of INT64_MIN bytes has no size.
    bad("trailing-data.json", base % (kernel % ("1", "1", "")) + ' {"traceEvents": []}',
        "data after the top-level object")
    bad("two-event-lists.json", '{"traceEvents": [%s], "traceEvents": [%s]}'
        % (kernel % ("1", "1", ""), kernel % ("5", "1", "")), "a second traceEvents array")
    bad("bytes-min.json", base % '{"ph": "i", "name": "[memory]", "ts": 1, "args": {"Device Type": 1, '
        '"Device Id": 0, "Bytes": -9223372036854775808}}', "Bytes -9223372036854775808 is out of range")
    for name, path, expect in cases:
        p = env.run("report", "-q", path)
        tap.ok(one_line_exit_2(p) and expect in p.stderr and name in p.stderr,
               f"bad input {name}: one line saying '{expect}', exit 2", f"rc={p.returncode} {p.stderr[-600:]}")
    # A key given twice: the last wins on every path, the fast one that
    # skips operators included (its first "cat" would have skipped it).
    dup = env.path("duplicate-cat.json")
    open(dup, "w").write(base % ('{"ph": "X", "cat": "cpu_op", "name": "k", "pid": 0, "tid": 7, '
                                 '"ts": 1, "dur": 1, "cat": "kernel"}'))
    p = env.run("import", dup, "-o", env.path("duplicate-cat.pfprof"))
    tap.ok(p.returncode == 0, "a key given twice: the last value read (a kernel, not a skipped operator)",
           p.stderr)
    never = env.path("never.pfprof")
    p = env.run("import", env.path("truncated.json.gz"), "-o", never)
    tap.ok(p.returncode == 2 and not os.path.exists(never), "import of a truncated gzip: exit 2, no output",
           p.stderr)
    p = env.run("render", env.path("string-ts.json"), "-o", env.path("never.png"))
    tap.ok(one_line_exit_2(p) and not os.path.exists(env.path("never.png")),
           "render of a bad Kineto trace: one line, exit 2", p.stderr)

    # 12. torch.profiler traces of the samples recorded on the H200
    # (samples/traces/kineto/steps.tsv: each with the pfprof trace of the
    # same sample, the program's own median step in the torch.profiler run,
    # and where the two are known to differ): the same rules and the same
    # top finding as the pfprof trace, the host median step within 10% of the
    # program's own timer, each but for the differences listed (a
    # difference listed that is gone fails too); with with_stack=True, the
    # call sites of the pfprof trace with sites of the same sample.
    kdir = os.path.join(env.source, "samples", "traces", "kineto") if env.source else ""
    sdir = os.path.dirname(kdir)
    manifest = os.path.join(kdir, "steps.tsv")
    rows = [line.rstrip("\n").split("\t") for line in open(manifest)
            if line.strip() and not line.startswith("#")] if os.path.exists(manifest) else []
    if not rows:
        tap.skip("recorded samples: Kineto trace against the native one", "no samples/traces/kineto/")
    for names, natives, own_ms, differs in rows:
        name = names.split(",")[0]
        want = env.report_json(*[os.path.join(sdir, n) for n in natives.split(",")])
        got = report(env, *[os.path.join(kdir, n) for n in names.split(",")])
        if "error" in got:
            tap.ok(False, f"{name}: reads", got)
            continue
        notes = [] if differs == "-" else [d.strip().split(" ")[0] for d in differs.split(";")]
        plus = {d[1:] for d in notes if d.startswith("+")}
        minus = {d[1:] for d in notes if d.startswith("-")}
        want_rules = sorted((set(finding_rules(want)) - minus) | plus)
        top = got["findings"][0]["rule"] if got["findings"] else None
        native_top = want["findings"][0]["rule"] if want["findings"] else None
        same_top = top == native_top
        tap.ok(finding_rules(got) == want_rules and same_top != ("top" in notes),
               f"{name}: the rules of {natives} ({', '.join(finding_rules(want)) or 'none'})"
               f"{'; known: ' + differs if notes else ''}, "
               f"{'another' if 'top' in notes else 'the same'} top finding",
               f"kineto {top} {finding_rules(got)}\nnative {native_top} {finding_rules(want)}")
        # The program's timer reads the host's clock between its steps:
        # the host's side of the same steps (the median step is the GPU's,
        # which a host running ahead makes longer).
        med = got["summary"]["steps"]["host_median_ns"] / 1e6
        within = abs(med - float(own_ms)) <= 0.10 * float(own_ms)
        tap.ok(within != ("step" in notes),
               f"{name}: host median step {med:.2f} ms {'not ' if 'step' in notes else ''}within 10% "
               f"of the program's own {own_ms} ms", f"{med} vs {own_ms}")
        if ".stack." not in name:
            continue
        script = {"a": "pageable_copies.py", "f": "item_sync.py", "d": "record_stream_pressure.py"}[name[0]]
        calls = [f for f in got["findings"] if f["rule"] in CALL_RULES]
        events = [e["event"] for e in calls[0]["evidence"]] if calls else []
        tap.ok(len(events) > 0 and all(f"from {script}(" in e for e in events),
               f"{name}: with_stack=True names {script} on each piece of evidence of "
               f"{calls[0]['rule'] if calls else '?'}", events[:3])
        top_site = (calls[0].get("sites") or [None])[0] if calls else None
        tap.ok(top_site is not None and top_site["file"] == script and top_site["function"] == "main"
               and top_site["caller"]["function"] == "<module>" and not top_site["startup"]
               and top_site["source"] is None,
               f"{name}: its top site is in {script}'s main, called from <module> (no source text: "
               "the line is the frame's)", top_site)
        native_sites = os.path.join(sdir, name.split(".")[0] + "_sites.pfprof")
        if os.path.exists(native_sites):
            rule = calls[0]["rule"]
            nat = next((f for f in env.report_json(native_sites)["findings"] if f["rule"] == rule), None)
            nat_site = (nat.get("sites") or [None])[0] if nat else None
            keys = ("function", "api", "kind")
            tap.ok(nat_site is not None and top_site is not None
                   and os.path.basename(nat_site["file"]) == top_site["file"]
                   and all(nat_site[k] == top_site[k] for k in keys)
                   and nat_site["caller"]["function"] == top_site["caller"]["function"],
                   f"{name}: {rule}'s top site is the pfprof trace's ({script} in main, "
                   f"{nat_site['api'] if nat_site else '?'}) but for its line "
                   f"({nat_site['line'] if nat_site else '?'} there, "
                   f"{top_site['line'] if top_site else '?'} here)", f"{nat_site}\n{top_site}")

    # 13. A torch.profiler trace's times are since the epoch: its profiled
    # window tells traces of different runs apart; the two ranks of one
    # run overlap and are reported together.
    if rows:
        a, b = os.path.join(kdir, "a_pageable_fix.pt.trace.json.gz"), os.path.join(kdir, "b_serialized.pt.trace.json.gz")
        p = env.run("report", "-q", a, b)
        tap.ok(one_line_exit_2(p) and "recorded at different times" in p.stderr,
               "two samples' torch.profiler traces given as one run: refused, one line, exit 2", p.stderr)
        ranks = [os.path.join(kdir, f"g_ddp_even_rank{r}.pt.trace.json.gz") for r in (0, 1)]
        p = env.run("report", "-q", "--format", "json", *ranks)
        tap.ok(p.returncode == 0 and len(json.loads(p.stdout)["traces"]) == 2,
               "the two ranks of one DDP run: one report", p.stderr)

    # 14. What a torch.profiler trace cannot show stays said once it is
    # imported: the report of the pfprof trace has the original's notes,
    # and so has a copy of that trace exported again as SQLite.
    if rows:
        src = os.path.join(kdir, "a_pageable.stack.pt.trace.json.gz")
        imported, again = env.path("notes.pfprof"), env.path("notes-again.pfprof")
        env.run("import", src, "-o", imported, "--force")
        env.run("export", "--format", "sqlite", imported, "-o", again, "--force")

        def text_notes(path):
            p = env.run("report", path)
            return [line for line in p.stdout.splitlines() if "Note:" in line]

        want = report(env, src)["traces"][0]["notes"]
        for path, what in ((imported, "imported"), (again, "imported and exported again")):
            got = report(env, path)["traces"][0]["notes"]
            tap.ok(len(want) >= 4 and got == want and text_notes(path) == text_notes(src),
                   f"{what}: the report shows the torch.profiler trace's {len(want)} notes, once each",
                   f"original {want}\n{what} {got}")
        # The stored notes are the file's word: no control character
        # reaches the terminal.
        import sqlite3
        hostile = env.path("notes-hostile.pfprof")
        shutil.copyfile(imported, hostile)
        db = sqlite3.connect(hostile)
        db.execute("UPDATE meta SET value = ? WHERE key = 'notes'", ("clear\x1b[2Jscreen\nsecond",))
        db.commit()
        db.close()
        p = env.run("report", hostile)
        tap.ok(p.returncode == 0 and "\x1b" not in p.stdout and "clear?[2Jscreen" in p.stdout
               and "Note: second" in p.stdout,
               "a stored note with an escape sequence is printed without it", p.stdout[-600:])
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
