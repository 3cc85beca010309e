# SPDX-License-Identifier: MIT
"""Shared helpers of the interop tests: TAP output, running pfprof,
generating synthetic traces, reading a pfprof trace with sqlite3."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys

# tests/pfprof_trace_rows.py: traces of format 1 or 2 as SQL row tables.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import pfprof_trace_rows  # noqa: E402


class Tap:
    """Minimal TAP producer: ok/not ok lines, plan at the end."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, detail=""):
        self.n += 1
        if cond:
            print(f"ok {self.n} - {name}")
        else:
            self.failed += 1
            print(f"not ok {self.n} - {name}")
            for line in str(detail).splitlines()[:40]:
                print(f"#   {line}")
        sys.stdout.flush()
        return cond

    def skip(self, name, why):
        self.n += 1
        print(f"ok {self.n} - {name} # SKIP {why}")

    def done(self):
        print(f"1..{self.n}")
        return 1 if self.failed else 0


class Env:
    def __init__(self, argv):
        self.pfprof = os.path.abspath(argv[1])
        self.work = os.path.abspath(argv[2])
        self.source = os.path.abspath(argv[3]) if len(argv) > 3 else None
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)

    def path(self, name):
        return os.path.join(self.work, name)

    def run(self, *args, check=None):
        env = dict(os.environ)
        env.pop("PFPROF_REDACT_ARGS", None)
        p = subprocess.run([self.pfprof, *map(str, args)], capture_output=True, text=True,
                           env=env, timeout=240)
        return p

    def generate(self, name, plant="none", steps=40, seed=1, rank=None):
        path = self.path(name)
        args = ["generate", "--plant", plant, "--steps", steps, "--seed", seed, "-o", path,
                "--force"]
        if rank is not None:
            args += ["--rank", rank]
        p = self.run(*args)
        if p.returncode != 0:
            raise RuntimeError(f"generate failed: {p.stderr}")
        return path

    def report_json(self, *traces):
        p = self.run("report", "--format", "json", "-q", *traces)
        if p.returncode != 0:
            raise RuntimeError(f"report failed ({p.returncode}): {p.stderr}")
        return json.loads(p.stdout)

    def sample_traces(self):
        """Recorded sample traces committed under samples/traces, if any."""
        if not self.source:
            return []
        d = os.path.join(self.source, "samples", "traces")
        if not os.path.isdir(d):
            return []
        return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".pfprof"))


def renders_png(env, trace, png):
    """(ok, stderr): `pfprof render TRACE -o PNG` wrote a PNG."""
    p = env.run("render", trace, "-o", png)
    return p.returncode == 0 and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n", p.stderr


def export_chrome(env, trace, out):
    """(process, document, kernels): `pfprof export TRACE -o OUT`, the
    Trace Event document it wrote and its kernel events."""
    p = env.run("export", trace, "-o", out)
    doc = json.load(open(out)) if p.returncode == 0 else {"traceEvents": []}
    return p, doc, sum(1 for e in doc["traceEvents"] if e.get("cat") == "kernel")


def finding_rules(report):
    return sorted({f["rule"] for f in report["findings"]})


def trace_rows(trace):
    """An sqlite3 connection on which pfprof trace @trace (format 1 or 2)
    has plain row tables (tests/pfprof_trace_rows.py)."""
    return pfprof_trace_rows.connect(trace)


def table_count(trace, table):
    counts = pfprof_trace_rows.count_events(trace)
    if table in counts:
        return counts[table]
    db = sqlite3.connect(f"file:{trace}?mode=ro", uri=True)
    try:
        return db.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
    finally:
        db.close()


def dir_listing(path):
    return sorted(os.listdir(path))


# Recorded samples: which script a trace came from, and whether it ran
# with --fix (same conventions as tests/analyzer/diagnose/test-samples.py).
SAMPLE_RULES = {
    "pageable_copies.py": "pageable-transfer",
    "serialized_copies.py": "serialized-copy",
    "record_stream_pressure.py": "record-stream-stall",
    "slow_dataloader.py": "input-starved",
    "item_sync.py": "sync-in-loop",
}
SAMPLE_PREFIX = {"a_": "pageable_copies.py", "b_": "serialized_copies.py",
                 "d_": "record_stream_pressure.py", "e_": "slow_dataloader.py",
                 "f_": "item_sync.py"}


def sample_pairs(env):
    """[(script, rule, problem_trace, fixed_trace)] among the recorded
    samples, one pair per script that has both variants."""
    found = {}
    for path in env.sample_traces():
        try:
            rep = env.report_json(path)
        except RuntimeError:
            continue
        cmd = rep["traces"][0].get("command_line") or ""
        base = os.path.basename(path)
        script = next((s for s in SAMPLE_RULES if s in cmd), None)
        if script is None:
            script = next((s for pre, s in SAMPLE_PREFIX.items() if base.startswith(pre)), None)
        if script is None:
            continue
        fix = "--fix" in cmd or base.endswith("_fix.pfprof")
        found.setdefault(script, {}).setdefault(fix, path)
    return [(s, SAMPLE_RULES[s], v[False], v[True]) for s, v in sorted(found.items())
            if False in v and True in v]
