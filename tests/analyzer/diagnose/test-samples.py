#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The rules judged on traces recorded on the H200 (suite `analyzer`).

Usage: test-samples.py PFPROF SAMPLES-TRACES-DIR

For every trace under samples/traces/ (recorded by `pfprof record` from a
script in samples/), the sample is recognized from the trace's command line
(or its file name) and `pfprof report --format json` must show:
  - each problem sample (no --fix) yields its rule;
  - its --fix variant does not;
  - the good prefetcher (side_stream_prefetch.py) yields none of the
    must-have rules and a copy/compute overlap near 1;
  - no sample yields pageable-transfer for its start-up weight copies: a
    pageable-transfer finding lies in the steady window and recurs every
    step, and samples whose batches are pinned (all but pageable_copies.py
    without --fix) have none;
  - item_sync.py's sync-in-loop estimate matches what its fix saved (see
    ITEM_SYNC_SAVED_NS);
  - the median step's compute is the GPU work the step launched, even where
    the host runs steps ahead of the GPU (record_stream_pressure.py: host
    steps under 1 ms, ~2.7 ms of kernels per step on the GPU);
  - without the kernel-launch and memset API records (the collector's
    default without --trace-launches), sample d's breakdown and sample f's
    sync-in-loop estimate are unchanged;
  - every step ledger sums to its step, and no finding saves more than the
    ledger buckets it names, on every sample;
  - the clean prefetcher (c) spends at least 90% of its mean step computing
    and has no input-pipeline finding;
  - the table "Predicted against measured" in samples/README.md holds: for
    each pair, the finding's predicted mean step and the _fix trace's
    measured mean step are what the reports say, and within 10% of each
    other unless the row marks the miss (rows whose traces are not under
    samples/traces/ yet are listed, not checked);
  - host_bound.py --fix, still waiting on a few launches, saves a tenth or
    less of what host-bound saved before it;
  - where a finding names the waits the GPU's host-bound idle follows (a
    pageable .cpu() a step, pinning in the loop, pageable batches, a slow
    loader), host-bound does not claim that idle again.
Prints TAP; skips when no trace has been recorded yet.
"""
import glob
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

# tests/pfprof_trace_rows.py: traces of format 1 or 2 as SQL row tables.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import pfprof_trace_rows  # noqa: E402

PFPROF, DIR = sys.argv[1], sys.argv[2]
MUST_HAVE = {"pageable-transfer", "serialized-copy", "record-stream-stall", "input-starved"}
SAMPLES = {
    "pageable_copies.py": "pageable-transfer",
    "serialized_copies.py": "serialized-copy",
    "record_stream_pressure.py": "record-stream-stall",
    "slow_dataloader.py": "input-starved",
    "item_sync.py": "sync-in-loop",
    "side_stream_prefetch.py": None,
    "late_prefetch.py": "late-prefetch",
    "small_transfers.py": "small-transfers",
    "pinned_alloc_in_loop.py": "pinned-alloc-in-loop",
    "side_stream_pageable.py": "pageable-transfer",
    "cpu_per_step.py": "pageable-transfer",
    "host_bound.py": "host-bound",
    "custom_batch.py": "pageable-transfer",
}
# Samples whose fix leaves a smaller case of the same problem.
STILL_HOST_BOUND = {"host_bound.py"}
# Samples whose GPU idles, with nothing queued, only in the refill after the
# waits their finding names (a pageable .cpu() a step, a pinning loop):
# host-bound must leave that idle to it.
NOT_HOST_BOUND = {"cpu_per_step.py", "pinned_alloc_in_loop.py", "pageable_copies.py", "slow_dataloader.py"}
fixed_saving = {}
unfixed_saving = {}
# The samples whose batches (or per-step copies) come from pageable memory
# without --fix; every other sample pins them.
PAGEABLE = {"pageable_copies.py", "side_stream_pageable.py", "cpu_per_step.py", "custom_batch.py"}
# The samples that train a torchvision ResNet (its weights are copied from
# pageable memory at start-up).
RESNET = {"pageable_copies.py", "serialized_copies.py", "side_stream_prefetch.py", "slow_dataloader.py",
          "item_sync.py", "late_prefetch.py", "pinned_alloc_in_loop.py", "side_stream_pageable.py",
          "cpu_per_step.py", "custom_batch.py"}
FILE_PREFIX = {"a_": "pageable_copies.py", "b_": "serialized_copies.py", "c_": "side_stream_prefetch.py",
               "d_": "record_stream_pressure.py", "e_": "slow_dataloader.py", "f_": "item_sync.py"}

# bench/results/2026-11-29-samples.md: item_sync.py's mean step under pfprof, 30.11 ms, and
# with --fix, 28.99 ms: the fix saved 1.12 ms per step in the runs the
# traces come from (bare runs: 29.41 -> 28.78 ms, 0.63 ms, the launches
# that refill the GPU's queue after each sync being faster without the
# profiler). The estimate is read from the trace, so it is held to the
# traced runs' difference.
ITEM_SYNC_SAVED_NS = 1.12e6
ITEM_SYNC_TOLERANCE = 0.25



def without_launch_records(path, tmp):
    """A copy of a format-1 trace without its launch and memset API records,
    as the collector records by default; None for other formats."""
    out = os.path.join(tmp, "nolaunch-" + os.path.basename(path))
    shutil.copyfile(path, out)
    db = sqlite3.connect(out)
    try:
        db.execute("DELETE FROM api_calls WHERE name_id IN (SELECT id FROM strings WHERE "
                   "value LIKE '%Launch%' OR value LIKE 'cudaMemset%' OR value LIKE 'cuMemset%')")
        db.commit()
    except sqlite3.DatabaseError:
        return None
    finally:
        db.close()
    return out


def report_json(path):
    p = subprocess.run([PFPROF, "report", "-q", "--format", "json", path], capture_output=True, text=True,
                       timeout=600)
    return json.loads(p.stdout) if p.returncode == 0 else None


tmp_dir = tempfile.mkdtemp(prefix="pfprof-samples-")
traces = sorted(glob.glob(os.path.join(DIR, "*.pfprof")))
results = []
startup_copies = []


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


for path in traces:
    base = os.path.basename(path)
    p = subprocess.run([PFPROF, "report", "-q", "--format", "json", path], capture_output=True, text=True,
                       timeout=600)
    if p.returncode != 0:
        check(f"{base}: report runs", False, p.stderr)
        continue
    d = json.loads(p.stdout)
    cmd = d["traces"][0].get("command_line") or ""
    script = next((s for s in SAMPLES if s in cmd), None)
    if script is None:
        script = next((s for pre, s in FILE_PREFIX.items() if base.startswith(pre)), None)
    if script is None:
        continue  # a probe, not a sample
    fix = "--fix" in cmd or base.endswith("_fix.pfprof")
    rules = {f["rule"] for f in d["findings"]}
    summary = "; ".join(f"{f['rule']} {f['est_savings_ns'] / 1e6:.2f} ms/step" for f in d["findings"])
    want = SAMPLES[script]
    if want and not fix:
        check(f"{base}: {script} yields {want}", want in rules, summary or "no findings")
    elif want and fix and script in STILL_HOST_BOUND:
        # host_bound.py --fix (a CUDA graph replay of the same step; the
        # committed trace: the earlier batched fix, a handful of large
        # kernels in a 1.2 ms step) still waits for a few launches, but
        # for a tenth of the time or less.
        saving = sum(f["est_savings_ns"] for f in d["findings"] if f["rule"] == want)
        fixed_saving[script] = saving
    elif want and fix:
        check(f"{base}: {script} --fix does not yield {want}", want not in rules, summary)
    else:
        check(f"{base}: good prefetcher yields no must-have rule", not (rules & MUST_HAVE), summary)
        # Overlap needs kernels to overlap with: judged when the GPU is busy
        # most of the steady state (a host-bound run has no kernel beside
        # its copies however well it prefetches).
        for dv in d["summary"]["devices"]:
            if dv["overlap_fraction"] is not None and dv["idle_fraction"] < 0.5:
                check(f"{base}: good prefetcher overlap near 1", dv["overlap_fraction"] >= 0.9,
                      dv["overlap_fraction"])
    if script in NOT_HOST_BOUND and not fix:
        check(f"{base}: no host-bound beside {want} (the idle after its waits is {want}'s)",
              "host-bound" not in rules, summary)
    if script in STILL_HOST_BOUND and not fix:
        unfixed_saving[script] = sum(f["est_savings_ns"] for f in d["findings"] if f["rule"] == want)
    # The fix's saving was measured against the runs of f_item.pfprof;
    # other recordings of item_sync.py (other step counts, other
    # collector) are not held to it.
    if script == "item_sync.py" and not fix and base == "f_item.pfprof":
        est = next((f["est_savings_ns"] for f in d["findings"] if f["rule"] == "sync-in-loop"), 0)
        check(f"{base}: sync-in-loop estimate within {ITEM_SYNC_TOLERANCE:.0%} of the "
              f"{ITEM_SYNC_SAVED_NS / 1e6:.2f} ms/step its fix saved",
              abs(est - ITEM_SYNC_SAVED_NS) <= ITEM_SYNC_TOLERANCE * ITEM_SYNC_SAVED_NS,
              f"estimate {est / 1e6:.3f} ms/step")
    costs = [[e["cost_ns"] for e in f["evidence"]] for f in d["findings"]]
    check(f"{base}: each finding's examples are its costliest, costliest first, with their share",
          all(c == sorted(c, reverse=True) for c in costs)
          and all(0 <= e["share"] <= 1 for f in d["findings"] for e in f["evidence"]), costs)
    if script == "slow_dataloader.py" and not fix:
        # The waits that starve the GPU are ~100 ms; the first waits of the
        # steady state are ~0.1 ms: the examples must be the long ones.
        tr = d["traces"][0]
        db = pfprof_trace_rows.connect(path)
        longest = db.execute(
            "SELECT max(n.dur_ns) FROM nvtx n JOIN strings s ON s.id = n.name_id "
            "WHERE s.value = 'DataLoader.next' AND n.start_ns >= ? AND n.start_ns < ?",
            (tr["steady_start_ns"], tr["steady_end_ns"])).fetchone()[0]
        ev = next((f["evidence"] for f in d["findings"] if f["rule"] == "input-starved"), [])
        check(f"{base}: input-starved's first example is the longest DataLoader wait ({(longest or 0) / 1e6:.1f} ms)",
              ev and longest and ev[0]["cost_ns"] == longest and ev[0]["name"] == "DataLoader.next",
              [(e["cost_ns"], e.get("name")) for e in ev])
    med = d["summary"]["steps"]["median_breakdown"]
    check(f"{base}: median step computes", med["compute_ns"] > 0, med)
    if script == "record_stream_pressure.py":
        st = d["summary"]["steps"]
        check(f"{base}: host runs ahead: the median step is the GPU's (>= 1 ms, compute inside it), "
              f"the host's under 1 ms",
              1e6 <= med["compute_ns"] <= st["median_ns"] and st["host_median_ns"] < 1e6 and st["host_ahead"],
              f"median step {st['median_ns']} ns, host {st['host_median_ns']} ns, {med}")
    if script in ("record_stream_pressure.py", "item_sync.py"):
        # The text report says when the host's steps are not the GPU's.
        txt = subprocess.run([PFPROF, "report", "-q", path], capture_output=True, text=True,
                             timeout=600).stdout
        ahead = "The host runs ahead of the GPU" in " ".join(txt.split())
        check(f"{base}: text report says whether the host runs ahead of the GPU",
              ahead == (script == "record_stream_pressure.py"), "said so" if ahead else "did not")
    if base in ("d_record_stream.pfprof", "f_item.pfprof"):
        bare = without_launch_records(path, tmp_dir)
        b = report_json(bare) if bare else None
        if bare is not None:
            same = b is not None and b["summary"]["steps"]["median_breakdown"] == med
            if same and script == "item_sync.py":
                ests = [[f["est_savings_ns"] for f in x["findings"] if f["rule"] == "sync-in-loop"] for x in (d, b)]
                same = ests[0] == ests[1] and len(ests[0]) == 1
            check(f"{base}: same breakdown and estimates without launch records", same,
                  b and b["summary"]["steps"]["median_breakdown"])
    if base == "e_slow_loader.pfprof":
        # Without launch records and without the Python hook's DataLoader
        # ranges (--no-python-hooks, a custom loader), the thread feeding
        # the GPU is still found (from its copies' API records), so the
        # starved GPU is still reported.
        bare = without_launch_records(path, tmp_dir)
        if bare is not None:
            db = sqlite3.connect(bare)
            db.execute("DELETE FROM nvtx")
            db.commit()
            db.close()
            b = report_json(bare)
            check(f"{base}: input-starved without launch records or DataLoader ranges",
                  b is not None and any(f["rule"] == "input-starved" for f in b["findings"]),
                  b and [f["rule"] for f in b["findings"]])
    # Start-up weight copies (pageable, before the first steps) are never
    # flagged: every pageable-transfer finding lies in the steady window and
    # recurs in most steps.
    steady_start = d["traces"][0]["steady_start_ns"]
    steady_steps = d["traces"][0]["steps"] - d["traces"][0]["warmup_steps"]
    for f in d["findings"]:
        if f["rule"] == "pageable-transfer":
            check(f"{base}: pageable-transfer judges the steady state only",
                  f["first_ns"] >= steady_start and f["count"] >= steady_steps // 2,
                  f"first {f['first_ns']} steady {steady_start} count {f['count']} steps {steady_steps}")
    # The weights really were copied from pageable memory before the
    # steady state (CUPTI srcKind 1), so the checks above are exercised.
    db = pfprof_trace_rows.connect(path)
    n_startup = db.execute("SELECT count(*) FROM memcpys WHERE copy_kind = 1 AND src_kind = 1 "
                           "AND bytes >= 65536 AND start_ns < ?", (steady_start,)).fetchone()[0]
    db.close()
    if script in RESNET:
        startup_copies.append(n_startup)
    pinned = script not in PAGEABLE or fix
    if pinned:
        check(f"{base}: no pageable-transfer (batches pinned)", "pageable-transfer" not in rules, summary)

if startup_copies:
    # ResNet-18: ~20 of its parameter tensors are 64 KiB or more.
    check("the model samples copy their weights from pageable memory at start-up (>= 10 copies each)",
          min(startup_copies) >= 10, startup_copies)

for script, saving in fixed_saving.items():
    check(f"{script} --fix: {SAMPLES[script]} saves a tenth or less of what it saved before the fix",
          saving <= 0.1 * unfixed_saving.get(script, 0), f"{saving / 1e6:.2f} vs {unfixed_saving.get(script, 0) / 1e6:.2f} ms")

# The step ledger on every sample.
INPUT_RULES = {"input-starved", "pageable-transfer", "serialized-copy", "late-prefetch", "small-transfers",
               "pinned-alloc-in-loop", "record-stream-stall"}
BUCKETS = ["copy_hidden_ns", "compute_ns", "comm_ns", "copy_exposed_pageable_compute_stream_ns",
           "copy_exposed_pageable_side_stream_ns", "copy_exposed_pinned_compute_stream_ns",
           "copy_exposed_pinned_side_stream_ns", "gpu_other_ns", "data_wait_ns", "sync_copy_ns",
           "sync_stream_ns", "sync_device_ns", "sync_event_ns", "alloc_ns", "pageable_call_ns", "host_bound_ns",
           "other_idle_ns"]
# Each rule's buckets (docs/report-format.md, "Findings and the ledger").
RULE_BUCKETS = {
    "input-starved": ["data_wait_ns", "host_bound_ns", "other_idle_ns"],
    "pageable-transfer": ["copy_exposed_pageable_compute_stream_ns", "copy_exposed_pageable_side_stream_ns",
                          "sync_copy_ns", "pageable_call_ns", "host_bound_ns"],
    "serialized-copy": ["copy_exposed_pinned_compute_stream_ns", "copy_exposed_pinned_side_stream_ns",
                        "sync_copy_ns", "host_bound_ns"],
    "record-stream-stall": ["alloc_ns", "sync_event_ns", "copy_exposed_pinned_side_stream_ns",
                            "copy_exposed_pinned_compute_stream_ns", "host_bound_ns", "other_idle_ns"],
    "late-prefetch": ["copy_exposed_pinned_side_stream_ns", "copy_exposed_pageable_side_stream_ns",
                      "other_idle_ns"],
    "sync-in-loop": ["data_wait_ns", "sync_stream_ns", "sync_device_ns", "host_bound_ns"],
    "host-bound": ["host_bound_ns"],
    "small-transfers": ["copy_exposed_pinned_compute_stream_ns", "copy_exposed_pinned_side_stream_ns",
                        "copy_exposed_pageable_compute_stream_ns", "copy_exposed_pageable_side_stream_ns",
                        "host_bound_ns"],
    "pinned-alloc-in-loop": ["alloc_ns", "data_wait_ns", "host_bound_ns"],
}
reports = {}
for path in traces:
    d = report_json(path)
    if d is None:
        continue
    base = os.path.basename(path)
    reports[base] = d
    for tr in d["traces"]:
        led = tr["ledger"]
        for basis in ("mean", "median"):
            total = sum(led[basis][k] for k in BUCKETS)
            check(f"{base}: {basis} ledger sums to its step", total == led[basis]["step_ns"],
                  f"{total} vs {led[basis]['step_ns']}")
    for f in d["findings"]:
        tr = d["traces"][0]
        if f["rule"] in RULE_BUCKETS and tr["ledger"]["steps"] > 0:
            bucket = sum(tr["ledger"]["mean"][k] for k in RULE_BUCKETS[f["rule"]])
            check(f"{base}: {f['rule']} saves no more than its buckets ({bucket / 1e6:.2f} ms)",
                  f["est_savings_ns"] <= bucket, f"{f['est_savings_ns'] / 1e6:.2f} ms")
        if f["material"] is False:
            check(f"{base}: immaterial {f['rule']} is info", f["severity"] == "info", f["severity"])
c = reports.get("c_side_stream.pfprof")
if c is not None:
    m = c["summary"]["ledger"]["mean"]
    share = (m["compute_ns"] + m["copy_hidden_ns"]) / m["step_ns"]
    check("c_side_stream: the ledger shows >= 90% of the mean step computing", share >= 0.9, f"{share:.3f}")
    check("c_side_stream: no input-pipeline finding",
          not ({f["rule"] for f in c["findings"]} & INPUT_RULES), [f["rule"] for f in c["findings"]])

# samples/README.md, "Predicted against measured": each row
# | `X.pfprof` → `X_fix.pfprof` | `rule` | mean step | saving | predicted | measured | error |
readme = os.path.join(DIR, "..", "README.md")
rows = []
if os.path.exists(readme):
    with open(readme) as fh:
        for line in fh:
            cells = [x.strip() for x in line.strip().strip("|").split("|")]
            if len(cells) == 7 and "→" in cells[0] and cells[0].startswith("`"):
                rows.append(cells)


def ms(cell):
    return float(cell.replace("ms", "").strip())


missing = []
for cells in rows:
    before, after = [x.strip().strip("`") for x in cells[0].split("→")]
    rule = cells[1].strip("`")
    if before not in reports or after not in reports:
        # A pair recorded but not (yet) committed under samples/traces/.
        missing.append(cells[0])
        continue
    d, dfix = reports[before], reports[after]
    f = next((x for x in d["findings"] if x["rule"] == rule), None)
    if f is None:
        check(f"table: {before} yields {rule}", False, [x["rule"] for x in d["findings"]])
        continue
    mean = d["summary"]["ledger"]["mean"]["step_ns"] / 1e6
    pred = f["predicted_step_ns"] / 1e6
    meas = dfix["summary"]["ledger"]["mean"]["step_ns"] / 1e6
    err = 100 * (pred - meas) / meas
    got = [mean, f["est_savings_ns"] / 1e6, pred, meas]
    want = [ms(x) for x in cells[2:6]]
    # A miss beyond 10% is marked "✗" in the table (and explained below it).
    marked = "✗" in cells[6]
    table_err = float(cells[6].replace("✗", "").replace("%", "").replace("−", "-").replace("+", "").strip())
    check(f"table: {before}: {rule} figures match the reports",
          all(abs(g - w) <= 0.006 for g, w in zip(got, want)) and abs(err - table_err) <= 0.06,
          f"report: {' / '.join(f'{x:.2f}' for x in got)} ms, {err:+.1f}%")
    check(f"table: {before}: predicted within 10% of {after}'s measured mean step, or marked a miss",
          (abs(err) <= 10) != marked, f"{pred:.2f} vs {meas:.2f} ms ({err:+.1f}%), marked {marked}")
if reports:
    check("samples/README.md has the predicted-against-measured table", len(rows) >= 5, len(rows))
    if missing:
        print(f"# table rows whose traces are not under samples/traces: {', '.join(missing)}")

shutil.rmtree(tmp_dir, ignore_errors=True)
if not results:
    print("1..0 # SKIP no recorded sample traces under samples/traces yet")
    sys.exit(0)
print(f"1..{len(results)}")
for i, (name, ok, detail) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} {name}")
    if detail:
        print(f"# {detail}")
sys.exit(0 if all(ok for _, ok, _ in results) else 1)
