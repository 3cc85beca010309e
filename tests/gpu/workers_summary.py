#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""workers_summary.py [--out FILE] [--source PY] DIR: the proof lines of
tests/gpu/workers-call.sh from its folder DIR (runs.tsv, or meta/runs.tsv
in the extracted archive, and the logs, reports, /proc samples and
cProfile totals it names). Writes Markdown to FILE (default: stdout):
each check with what was measured, what was expected, ok/FAIL/n/a; then
the runs and the stage shares side by side. Exits 1 when a check failed,
a run did (not one skipped for the budget), or a proof line got a
verdict from no configuration.

workers_summary.py --predicted-workers DIR: the worker counts pfprof
predicted a step for (input-starved's predicted_workers, plain runs)
that no bare run measured, space-separated.

PY (default samples/jpeg_pipeline.py of this tree) is read for the line
of `class SlowTransform`, which pfprof must name."""
import json
import os
import re
import statistics
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
STEP = re.compile(r"^jpeg_pipeline .*median step ([0-9.]+) ms, mean ([0-9.]+) ms", re.M)
WINDOW = re.compile(r"^window: ([0-9.]+) ([0-9.]+)$", re.M)
DIGEST = re.compile(r"^digest: ([0-9a-f]{64})$", re.M)
SLOW_PHRASE = re.compile(r"[0-9]+% of their time in __main__\.SlowTransform \(transform, jpeg_pipeline\.py:([0-9]+)\)")

# The bounds of the proof (tests/gpu/WORKERS-EXPECTED.md).
SHARE_POINTS = 10.0       # stage share, pfprof against cProfile, in points
PREDICTED_REL = 0.15      # predicted step against the measured one
IDEAL_REL = 0.05          # ideal-input's step against the GPU-resident one
OVERHEAD_SHARE = 0.01     # the recording's share of a worker's batch
CORES_REL, CORES_ABS = 0.15, 0.5  # worker cores, pfprof against /proc
SATURATED_SHARE = 0.9     # pfprof-input-pipeline.c: busy + 1 >= 0.9 x cores
# The variants of recorded runs judged for saturation and predictions:
# the pipeline as it is, with SlowTransform, and with a slower one on more
# workers than free cores (its shares are not cProfile's slow run's).
JUDGED = ("plain", "slow", "slow-sat")
PROOF_LINES = ("stage shares vs cProfile", "CPU saturation vs /proc", "predicted step",
               "ideal-input vs GPU-resident", "slow transform named first", "worker recording overhead",
               "batches bit-identical")


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


class Run:
    def __init__(self, d, row):
        (self.name, self.kind, workers, self.variant, self.rc, self.seconds,
         log, js, proc, extra) = row[:10]
        self.workers = int(workers) if workers.isdigit() else None
        path = lambda p: None if p in ("-", "") else os.path.join(d, p)  # noqa: E731
        self.log_path, self.json_path = path(log), path(js)
        self.proc_path, self.extra_path = path(proc), path(extra)
        self.log = read(self.log_path) if self.log_path else ""
        steps = STEP.findall(self.log)
        self.median, self.mean = (float(steps[-1][0]), float(steps[-1][1])) if steps else (None, None)
        m = WINDOW.findall(self.log)
        self.window = (float(m[-1][0]), float(m[-1][1])) if m else None
        m = DIGEST.findall(self.log)
        self.digest = m[-1] if m else None
        self.doc = None
        if self.json_path and self.kind == "rec":
            self.doc = load_json(self.json_path)
        elif self.json_path and self.kind == "try":
            self.doc = try_result(read(self.json_path) or self.log)
        elif self.kind == "try":
            self.doc = try_result(self.log)

    @property
    def ran(self):
        return self.rc not in ("budget", "dry")

    @property
    def ok(self):
        return self.rc == "0"

    def finding(self):
        if not self.doc:
            return None
        return next((f for f in self.doc.get("findings", []) if f.get("rule") == "input-starved"), None)

    def pipeline(self):
        f = self.finding()
        return f.get("input_pipeline") if f else None


def try_result(text):
    at = text.rfind('{"format":"pfprof-try/1"')
    if at < 0:
        return None
    try:
        return json.JSONDecoder().raw_decode(text[at:])[0]
    except ValueError:
        return None


def load_runs(d):
    for p in (os.path.join(d, "runs.tsv"), os.path.join(d, "meta", "runs.tsv")):
        if os.path.exists(p):
            rows = [line.rstrip("\n").split("\t") for line in open(p)]
            return [Run(d, r) for r in rows[1:] if len(r) >= 10]
    sys.exit(f"workers_summary.py: no runs.tsv in {d}")


def proc_window(path, window):
    """What /proc says of the program's timed window: worker cores (each
    worker's utime+stime over wall, summed), the main process's, the
    cores allowed, the machine's busy share; None without two samples in
    the window."""
    meta, samples, cmd = {}, [], {}
    for line in read(path).splitlines():
        p = line.split("\t")
        if p[0].startswith("# ") and len(p) == 2:
            meta[p[0][2:]] = p[1]
        elif p[0] == "S" and len(p) == 2:
            samples.append([float(p[1]), {}, None])
        elif p[0] == "N" and len(p) >= 3:
            cmd[int(p[1])] = p[2]
        elif p[0] == "P" and len(p) == 6 and samples:
            samples[-1][1][int(p[1])] = (int(p[2]), int(p[4]))
        elif p[0] == "C" and len(p) == 3 and samples:
            samples[-1][2] = (int(p[1]), int(p[2]))
    if window is None or not samples:
        return None
    inside = [s for s in samples if window[0] <= s[0] <= window[1]]
    if len(inside) < 2 or inside[-1][0] - inside[0][0] < 0.5:
        return None
    a, b = inside[0], inside[-1]
    hz = float(meta.get("clk_tck", 100))
    span = b[0] - a[0]
    # The program's python and its forked workers (pfprof record, above
    # them, names the script too).
    progs = [pid for pid in b[1] if "jpeg_pipeline.py" in cmd.get(pid, "")
             and os.path.basename((cmd[pid].split() or [""])[0]).startswith("python")]
    mains = [pid for pid in progs if b[1][pid][0] not in progs]
    if not mains:
        return None
    main = min(mains)
    cores = lambda pid: (b[1][pid][1] - a[1][pid][1]) / hz / span  # noqa: E731
    workers = sorted(pid for pid in b[1] if b[1][pid][0] == main and pid in a[1])
    per = [cores(pid) for pid in workers]
    allowed = float(meta.get("affinity") or meta.get("cpu_count") or 0)
    quota = meta.get("cpu_max", "-").split("/")
    if len(quota) == 2 and quota[0] != "max":
        try:
            allowed = min(allowed, max(1.0, int(quota[0]) / int(quota[1])))
        except ValueError:
            pass
    busy = None
    if a[2] and b[2] and b[2][1] > a[2][1]:
        busy = (b[2][0] - a[2][0]) / (b[2][1] - a[2][1])
    return {"workers": len(workers), "worker_cores": sum(per), "per_worker": per,
            "main_cores": cores(main), "allowed": allowed, "machine_busy": busy, "span": span,
            "saturated": allowed > 0 and sum(per) + 1.0 >= SATURATED_SHARE * allowed}


def slow_line(source):
    for i, line in enumerate(read(source).splitlines(), 1):
        if line.startswith("class SlowTransform"):
            return i
    return None


class Checks:
    def __init__(self):
        self.rows = []

    def add(self, check, config, measured, expected, result):
        self.rows.append((check, config, measured, expected, result))

    @property
    def failed(self):
        return any(r[4] == "FAIL" for r in self.rows)


def verdict(ok):
    return "ok" if ok else "FAIL"


def fmt_ms(v):
    return "-" if v is None else f"{v:.2f}"


def check_shares(checks, runs, share_rows):
    cprofiles = [r for r in runs if r.kind == "cprofile" and r.ran]
    for c in cprofiles:
        doc = load_json(c.extra_path) if c.extra_path else None
        if not c.ok or not doc or not doc.get("fetch_ns"):
            checks.add("stage shares vs cProfile", f"{c.variant}, {c.workers} workers", f"no cProfile totals ({c.name} rc={c.rc})",
                       f"within {SHARE_POINTS:.0f} points", "FAIL")
            continue
        fetch = doc["fetch_ns"]
        ref = {}
        for s in doc["stages"]:
            ref[s["name"]] = ref.get(s["name"], 0.0) + s["ns"] / fetch
        ref["collate_fn"] = doc["collate"]["ns"] / fetch
        recs = [r for r in runs if r.kind == "rec" and r.variant == c.variant and r.ran]
        for r in sorted(recs, key=lambda r: r.workers or 0):
            p = r.pipeline()
            config = f"{c.variant}, {r.workers} workers (cProfile: {c.workers})"
            if p is None:
                checks.add("stage shares vs cProfile", config, "pfprof reports no stage shares (no input-starved finding)",
                           f"within {SHARE_POINTS:.0f} points", "n/a")
                continue
            mine = {}
            for s in p["stages"]:
                mine[s["function"]] = mine.get(s["function"], 0.0) + s["share"]
            mine["collate_fn"] = p.get("collate_share", 0.0)
            diffs = {k: 100 * (mine.get(k, 0.0) - v) for k, v in ref.items()}
            worst = max(diffs, key=lambda k: abs(diffs[k]))
            share_rows.append((r.name, c.name, ref, mine, diffs))
            checks.add("stage shares vs cProfile", config,
                       f"largest gap {diffs[worst]:+.1f} points ({worst.rsplit('.', 1)[-1]}); {len(ref)} stages",
                       f"every stage within {SHARE_POINTS:.0f} points", verdict(abs(diffs[worst]) <= SHARE_POINTS))


def check_saturation(checks, runs):
    for r in sorted((r for r in runs if r.kind == "rec" and r.ran and r.proc_path and r.variant in JUDGED),
                    key=lambda r: (r.variant, r.workers or 0)):
        config = f"{r.variant}, {r.workers} workers"
        pr = proc_window(r.proc_path, r.window)
        p = r.pipeline()
        if pr is None:
            checks.add("CPU saturation vs /proc", config, "no /proc samples in the timed window", "same verdict",
                       "FAIL" if r.ok else "n/a")
            continue
        proc_txt = (f"/proc: {pr['worker_cores']:.2f} worker cores of {pr['allowed']:.0f} "
                    f"({'saturated' if pr['saturated'] else 'not saturated'})")
        if p is None:
            checks.add("CPU saturation vs /proc", config, proc_txt + "; pfprof: no input-starved finding",
                       "same verdict", "n/a")
            continue
        pf_txt = (f"pfprof: {p['worker_cores']:.2f} of {p.get('cores') or 0:.0f} "
                  f"({'saturated' if p['saturated'] else 'not saturated'})")
        checks.add("CPU saturation vs /proc", config, f"{pf_txt}; {proc_txt}", "same verdict",
                   verdict(bool(p["saturated"]) == pr["saturated"]))
        gap = abs(p["worker_cores"] - pr["worker_cores"])
        checks.add("worker cores vs /proc", config,
                   f"pfprof {p['worker_cores']:.2f}, /proc {pr['worker_cores']:.2f} (CPU/wall a worker: pfprof "
                   f"{p.get('cpu_per_wall') or 0:.2f}, /proc {statistics.mean(pr['per_worker'] or [0]):.2f})",
                   f"within {100 * CORES_REL:.0f}% or {CORES_ABS} core",
                   verdict(gap <= max(CORES_ABS, CORES_REL * pr["worker_cores"])))


def bare_steps(runs, variant="plain"):
    return {r.workers: r for r in runs if r.kind == "bare" and r.variant == variant and r.ok and r.mean}


def check_predictions(checks, runs):
    bare = bare_steps(runs)
    for r in sorted((r for r in runs if r.kind == "rec" and r.ran and r.variant in JUDGED),
                    key=lambda r: (r.variant, r.workers or 0)):
        f = r.finding()
        config = f"{r.variant}, {r.workers} workers"
        if f is None or not f.get("input_pipeline"):
            if r.ok and r.doc is not None and r.variant == "plain":
                checks.add("predicted step", config, "no input-starved finding: no prediction", "-", "n/a")
            continue
        nxt = f["input_pipeline"].get("predicted_workers")
        pred = f.get("predicted_step_ns")
        if not nxt or not pred:
            checks.add("predicted step", config, "saturated: no worker count predicted", "-", "n/a")
            continue
        pred /= 1e6
        m = bare.get(nxt) if r.variant == "plain" else None
        if m is None:
            checks.add("predicted step", config, f"{nxt} workers: {pred:.2f} ms predicted, not measured", "-", "n/a")
            continue
        err = (pred - m.mean) / m.mean
        checks.add("predicted step", config,
                   f"{nxt} workers: predicted {pred:.2f} ms, measured {m.mean:.2f} ms mean ({100 * err:+.1f}%)",
                   f"within {100 * PREDICTED_REL:.0f}%", verdict(abs(err) <= PREDICTED_REL))


def check_ideal(checks, runs):
    t = next((r for r in runs if r.kind == "try" and r.ran), None)
    res = next((r for r in runs if r.kind == "bare" and r.variant == "resident" and r.ran), None)
    if t is None or res is None:
        return
    ideal = None
    if t.doc:
        ideal = (t.doc.get("ideal_input") or {}).get("step_ns") or (t.doc.get("b") or {}).get("median_ns")
    if not ideal or not res.median:
        checks.add("ideal-input vs GPU-resident", f"{t.workers} workers",
                   f"missing: try {'ok' if ideal else 'no result'}, resident {'ok' if res.median else 'no step'}",
                   f"within {100 * IDEAL_REL:.0f}%", "FAIL")
        return
    ideal /= 1e6
    err = (ideal - res.median) / res.median
    checks.add("ideal-input vs GPU-resident", f"{t.workers} workers",
               f"ideal-input {ideal:.2f} ms, GPU-resident {res.median:.2f} ms median ({100 * err:+.1f}%)",
               f"within {100 * IDEAL_REL:.0f}%", verdict(abs(err) <= IDEAL_REL))


def check_slow(checks, runs, line):
    for r in sorted((r for r in runs if r.kind == "rec" and r.variant.startswith("slow") and r.ran),
                    key=lambda r: r.workers or 0):
        config = f"{r.variant}, {r.workers} workers"
        p = r.pipeline()
        if p is None or not p.get("stages"):
            checks.add("slow transform named first", config, "no input-starved finding with stages",
                       f"__main__.SlowTransform at jpeg_pipeline.py:{line}", "FAIL")
            continue
        s = p["stages"][0]
        message = r.finding().get("message", "")
        m = SLOW_PHRASE.search(message)
        # The first stage the message names is the one "of their time in".
        first = m is not None and m.start() <= message.find("% of their time in ") < m.end()
        ok = (s["function"] == "__main__.SlowTransform" and s["file"].endswith("jpeg_pipeline.py") and s["line"] == line
              and first and int(m.group(1)) == line)
        checks.add("slow transform named first", config,
                   f"first stage {s['function']} ({os.path.basename(s['file'])}:{s['line']}, {100 * s['share']:.0f}%); "
                   f"message {'names it first' if first else 'does not name it first'}",
                   f"__main__.SlowTransform at jpeg_pipeline.py:{line}", verdict(ok))


def check_overhead(checks, runs):
    o = next((r for r in runs if r.kind == "overhead" and r.ran), None)
    if o is not None:
        m = re.search(r"^overhead: (\{.*\})$", o.log, re.M)
        doc = json.loads(m.group(1)) if m else None
        if doc is None:
            checks.add("worker recording overhead", "in one process", f"no result (rc={o.rc})",
                       f"<= {100 * OVERHEAD_SHARE:.0f}% of a worker's batch", "FAIL")
        else:
            # The rounds' paired differences when the run has them (both
            # runs of a round decode the same crops); older runs: the
            # difference of the medians.
            share = doc.get("share_fine", doc.get("share_paired", doc["share"]))
            how = (f"sample by sample ({doc['fine_samples']} pairs) and batch by batch ({doc['fine_batches']} "
                   f"pairs) {doc['fine_extra_ns'] / 1e3:+.1f} us of {doc['fine_off_ns'] / 1e6:.2f} ms "
                   f"({100 * doc['share_fine']:+.3f}%); " if "share_fine" in doc else "")
            how += (f"median of the rounds' paired differences {100 * doc['share_paired']:+.3f}% (p10 "
                    f"{100 * doc['share_paired_p10']:+.3f}%, p90 {100 * doc['share_paired_p90']:+.3f}%); "
                    if "share_paired" in doc else "")
            checks.add("worker recording overhead", "in one process",
                       f"{how}{doc['extra_ns'] / 1e3:+.1f} us on {doc['off_ns'] / 1e6:.2f} ms a batch "
                       f"between the medians ({100 * doc['share']:+.3f}%; least of rounds "
                       f"{100 * doc['share_least']:+.3f}%)",
                       f"<= {100 * OVERHEAD_SHARE:.0f}% of a worker's batch", verdict(share <= OVERHEAD_SHARE))
    off = next((r for r in runs if r.kind == "rec" and r.variant == "nohooks" and r.ok and r.mean), None)
    if off is not None:
        on = next((r for r in runs if r.kind == "rec" and r.variant == "plain" and r.workers == off.workers
                   and r.ok and r.mean), None)
        if on is not None:
            checks.add("worker recording overhead", f"end to end, {off.workers} workers",
                       f"hooks on {on.mean:.2f} ms, off {off.mean:.2f} ms mean ({100 * (on.mean - off.mean) / off.mean:+.1f}%, "
                       "one run each)", "information: run-to-run noise is larger", "n/a")


def check_digest(checks, runs):
    ds = [r for r in runs if r.variant.startswith("digest") and r.ran]
    if not ds:
        return
    got = {r.name: r.digest for r in ds}
    ok = all(got.values()) and len(set(got.values())) == 1 and len(got) >= 2
    checks.add("batches bit-identical", "hooks on, --no-worker-hooks, bare",
               ", ".join(f"{k} {(v or 'none')[:12]}" for k, v in got.items()), "one digest", verdict(ok))


def predicted_workers(runs):
    bare = {r.workers for r in runs if r.kind == "bare" and r.variant == "plain" and r.ran}
    want = set()
    for r in runs:
        f = r.finding() if r.kind == "rec" and r.variant == "plain" else None
        n = f and (f.get("input_pipeline") or {}).get("predicted_workers")
        if n and n not in bare and n <= 32:
            want.add(n)
    return sorted(want)


def markdown(runs, checks, share_rows, d):
    out = ["# samples/jpeg_pipeline.py: what pfprof says inside the DataLoader, checked", ""]
    machine = read(os.path.join(d, "logs", "machine.txt")).strip()
    if machine:
        out += ["```", machine, "```", ""]
    n_fail = sum(1 for r in checks.rows if r[4] == "FAIL")
    n_ok = sum(1 for r in checks.rows if r[4] == "ok")
    out += [f"{n_ok} ok, {n_fail} failed, {len(checks.rows) - n_ok - n_fail} not applicable "
            "(bounds: tests/gpu/WORKERS-EXPECTED.md).", "",
            "| check | configuration | measured | expected | result |", "|---|---|---|---|---|"]
    for row in checks.rows:
        out.append("| " + " | ".join(str(c).replace("|", "/") for c in row) + " |")
    out += ["", "## Runs", "", "| run | rc | s | median / mean step ms | pfprof (input-starved) |", "|---|---|---|---|---|"]
    for r in runs:
        f = r.finding()
        p = f and f.get("input_pipeline")
        if r.kind == "try" and r.doc:
            note = f"A {fmt_ms((r.doc.get('a') or {}).get('median_ns', 0) / 1e6)} ms, B (ideal-input) " \
                   f"{fmt_ms((r.doc.get('b') or {}).get('median_ns', 0) / 1e6)} ms"
        elif f:
            note = f"{f.get('severity')}, saving {f.get('est_savings_ns', 0) / 1e6:.2f} ms"
            if p and p.get("predicted_workers") and f.get("predicted_step_ns"):
                note += f", predicted {f['predicted_step_ns'] / 1e6:.2f} ms with {p['predicted_workers']} workers"
            elif p and p.get("saturated"):
                note += ", CPU saturated"
            if p:
                note += f"; worker cores {p['worker_cores']:.2f} of {p.get('cores') or 0:.0f}"
        elif r.doc is not None and r.kind == "rec":
            note = "no input-starved finding"
        else:
            note = "-"
        pr = proc_window(r.proc_path, r.window) if r.proc_path else None
        if pr:
            note += f"; /proc: workers {pr['worker_cores']:.2f} cores, main {pr['main_cores']:.2f}"
            if pr["machine_busy"] is not None:
                note += f", machine {100 * pr['machine_busy']:.0f}% busy"
        out.append(f"| {r.name} | {r.rc} | {r.seconds} | {fmt_ms(r.median)} / {fmt_ms(r.mean)} | {note} |")
    for rec, cp, ref, mine, diffs in share_rows:
        out += ["", f"## Stage shares: {rec} (pfprof) and {cp} (cProfile in worker 0)", "",
                "| stage | pfprof | cProfile | gap (points) |", "|---|---|---|---|"]
        for k in ref:
            out.append(f"| {k} | {100 * mine.get(k, 0):.1f}% | {100 * ref[k]:.1f}% | {diffs[k]:+.1f} |")
    return "\n".join(out) + "\n"


def main():
    args = sys.argv[1:]
    out, source, mode = None, os.path.join(ROOT, "samples", "jpeg_pipeline.py"), "summary"
    while args and args[0].startswith("--"):
        if args[0] == "--predicted-workers":
            mode = "predicted"
            args = args[1:]
        elif args[0] in ("--out", "--source") and len(args) > 1:
            if args[0] == "--out":
                out = args[1]
            else:
                source = args[1]
            args = args[2:]
        else:
            sys.exit(f"workers_summary.py: unknown option {args[0]}")
    if len(args) != 1 or not os.path.isdir(args[0]):
        sys.exit("usage: workers_summary.py [--out FILE] [--source PY] DIR | --predicted-workers DIR")
    d = args[0]
    runs = load_runs(d)
    if mode == "predicted":
        print(" ".join(str(n) for n in predicted_workers(runs)))
        return 0
    checks, share_rows = Checks(), []
    for r in runs:
        if r.ran and not r.ok:
            checks.add("run finished", r.name, f"exit {r.rc} after {r.seconds} s", "exit 0", "FAIL")
    check_shares(checks, runs, share_rows)
    check_saturation(checks, runs)
    check_predictions(checks, runs)
    check_ideal(checks, runs)
    check_slow(checks, runs, slow_line(source))
    check_overhead(checks, runs)
    check_digest(checks, runs)
    # Each proof line needs a verdict from at least one configuration.
    for name in PROOF_LINES:
        if not any(r[0] == name and r[4] in ("ok", "FAIL") for r in checks.rows):
            checks.add(name, "-", "no configuration gave a verdict", "at least one", "FAIL")
    text = markdown(runs, checks, share_rows, d)
    if out:
        with open(out, "w") as f:
            f.write(text)
    sys.stdout.write(text)
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
