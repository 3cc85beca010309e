#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs the speed benchmarks and writes their figures, with the date, the
commit and the machine, into the RESULTS files.

Each of bench/RESULTS-report.md, RESULTS-kineto.md and RESULTS-gui.md
holds one generated block, between

    <!-- bench/update-results.py: begin -->
    <!-- bench/update-results.py: end -->

which this script replaces with the figures of this run against the
targets; the prose around it (method, history) is written by hand. The
raw output of every command goes to bench/results/DATE-update-results.md
(DATE-update-results-PARTS.md for a run of some parts: it does not
replace the log the other RESULTS files link to).

    bench/update-results.py BUILD [--work DIR] [--only report,kineto,gui]
                                  [--runs N] [--check]

BUILD is a meson build of this tree (debugoptimized, no sanitizers, the
GUI and tests built: tests/gui/pfprof-view-test). The generated traces
are kept in DIR (default /tmp/pfprof-bench) and reused. --check writes
nothing and exits 1 when a RESULTS file has no block. The GUI figures
need Xvfb; without it that part is left out and said so.
"""
import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BEGIN = "<!-- bench/update-results.py: begin -->"
END = "<!-- bench/update-results.py: end -->"
FILES = {"report": "RESULTS-report.md", "kineto": "RESULTS-kineto.md", "gui": "RESULTS-gui.md"}
TIME_FMT = "%e %U %S %M"


def sh(argv, env=None, timeout=1800):
    p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def timed(argv, env=None):
    """Runs @argv under /usr/bin/time: (rc, wall s, user s, sys s, KiB, stdout, stderr)."""
    rc, out, err = sh(["/usr/bin/time", "-f", "TIME " + TIME_FMT, *argv], env=env)
    m = re.search(r"^TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)$", err, re.M)
    if not m:
        raise SystemExit(f"update-results: {' '.join(argv)}: no timing ({err.strip()[-300:]})")
    return rc, float(m[1]), float(m[2]), float(m[3]), int(m[4]), out, err


def load_average():
    with open("/proc/loadavg") as fh:
        return " ".join(fh.read().split()[:3])


def commit():
    rc, out, _ = sh(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"])
    if rc != 0:
        return "unknown"
    rc, dirty, _ = sh(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"])
    return out.strip() + ("+changes" if dirty.strip() else "")


def machine():
    cpus = os.cpu_count()
    model = ""
    try:
        with open("/proc/cpuinfo") as fh:
            m = re.search(r"^model name\s*:\s*(.+)$", fh.read(), re.M)
            model = m[1].strip() if m else ""
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as fh:
            kb = int(re.search(r"MemTotal:\s+(\d+)", fh.read())[1])
            mem = f", {kb / 1024 / 1024:.0f} GiB"
    except (OSError, TypeError):
        pass
    return f"{cpus} CPUs{' (' + model + ')' if model else ''}{mem}"


def phases(out):
    """pfprof-bench-report's lines: name -> (wall ms, cpu ms, peak MiB)."""
    got = {}
    for m in re.finditer(r"^(sqlite-scan|chunk-read|load|analyze|render json)\s+(\d+) ms wall\s+(\d+) ms cpu"
                         r".*?(?:peak (\d+) MiB)?$", out, re.M):
        got[m[1]] = (int(m[2]), int(m[3]), int(m[4]) if m[4] else None)
    return got


def median(xs):
    s = sorted(xs)
    return s[len(s) // 2] if s else None


def fmt_range(xs, unit, digits=2):
    lo, hi = min(xs), max(xs)
    if f"{lo:.{digits}f}" == f"{hi:.{digits}f}":
        return f"{lo:.{digits}f} {unit}"
    return f"{lo:.{digits}f}-{hi:.{digits}f} {unit}"


class Run:
    def __init__(self, build, work, runs):
        self.build, self.work, self.runs = build, work, runs
        self.pfprof = os.path.join(build, "cli", "pfprof")
        self.log = []

    def note(self, title, text):
        self.log.append(f"### {title}\n\n```\n{text.rstrip()}\n```\n")

    def generated(self, n):
        os.makedirs(self.work, exist_ok=True)
        t = os.path.join(self.work, f"bench-{n}.pfprof")
        if not os.path.exists(t):
            rc, _, err = sh([self.pfprof, "generate", "--events", str(n), "-o", t])
            if rc != 0:
                raise SystemExit(f"update-results: generate: {err.strip()}")
        return t

    def report(self):
        t = self.generated(10000000)
        # Twice, the phases from the second: the first process after the
        # machine has idled is slower at everything (on the development
        # VM the blob-read floor itself takes 1.7x), and a cold floor
        # would flatter the ratio below.
        for i in range(2):
            rc, out, err = sh([os.path.join(self.build, "bench", "pfprof-bench-report"), t])
            self.note(f"pfprof-bench-report {t} (run {i + 1}{', warm-up' if i == 0 else ''})",
                      out + err)
        ph = phases(out)
        walls, cpus, rss = [], [], []
        for i in range(self.runs):
            rc, wall, user, sys_, kib, _, err = timed([self.pfprof, "report", "-q", t])
            self.note(f"pfprof report -q {t} (run {i + 1}, load {load_average()})",
                      f"rc {rc}: {wall} s wall, {user} s user, {sys_} s sys, {kib} KiB max RSS")
            walls.append(wall)
            cpus.append(user + sys_)
            rss.append(kib / 1024)
        floor = ph.get("sqlite-scan")
        rows = [
            ("`pfprof report -q` wall", fmt_range(walls, "s"), "≤ 1 s"),
            ("its CPU time (user + sys)", fmt_range(cpus, "s"), ""),
            ("peak RSS", fmt_range(rss, "MiB", 0), "≤ 600 MiB"),
        ]
        if "load" in ph and "analyze" in ph:
            rows.append(("`pfprof-bench-report`: load / analyze (CPU)",
                         f"{ph['load'][1] / 1000:.2f} / {ph['analyze'][1] / 1000:.2f} s", ""))
        if floor and floor[1] > 0:
            rows.append(("report CPU over the blob-read floor's",
                         f"{median(cpus) * 1000 / floor[1]:.1f}x", "≤ 15x"))
        return "`pfprof generate --events 10000000`", rows

    def kineto(self):
        n = 1000000
        os.makedirs(self.work, exist_ok=True)
        j = os.path.join(self.work, f"kineto-{n}.pt.trace.json")
        if not os.path.exists(j):
            rc, _, err = sh([sys.executable, os.path.join(HERE, "kineto_trace.py"), str(n), j])
            if rc != 0:
                raise SystemExit(f"update-results: kineto_trace.py: {err.strip()}")
        walls, rss = [], []
        for i in range(self.runs):
            rc, wall, user, sys_, kib, _, err = timed([self.pfprof, "report", "-q", j])
            self.note(f"pfprof report -q {j} (run {i + 1}, load {load_average()})",
                      f"rc {rc}: {wall} s wall, {user} s user, {sys_} s sys, {kib} KiB max RSS")
            walls.append(wall)
            rss.append(kib / 1024)
        return f"`bench/kineto_trace.py {n}` (plain JSON)", [
            ("`pfprof report -q` wall", fmt_range(walls, "s"), "≤ 3 s"),
            ("peak RSS", fmt_range(rss, "MiB", 0), "≤ 1 GB"),
        ]

    def gui(self):
        app = os.path.join(self.build, "tests", "gui", "pfprof-view-test")
        xvfb = shutil.which("Xvfb")
        if not os.path.exists(app) or xvfb is None:
            return None, [("not measured", "no Xvfb or no tests/gui/pfprof-view-test in BUILD", "")]
        t = self.generated(10000000)
        display = ":%d" % (60 + os.getpid() % 30)
        x = subprocess.Popen([xvfb, display, "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(1.5)
            env = dict(os.environ, DISPLAY=display, GDK_BACKEND="x11", GSK_RENDERER="cairo",
                       NO_AT_BRIDGE="1", GSETTINGS_BACKEND="memory")
            first, timeline, found = [], [], []
            for i in range(self.runs):
                rep = os.path.join(self.work, f"gui-{i}.txt")
                rc, wall, user, sys_, kib, out, err = timed([app, "--bench", "--report", rep, t], env=env)
                text = open(rep).read() if os.path.exists(rep) else ""
                self.note(f"pfprof-view-test --bench {t} (run {i + 1}, load {load_average()})",
                          f"rc {rc}: {wall} s wall, {kib} KiB max RSS\n{text}")
                kv = dict(re.findall(r"^(\w+)=(\S+)$", text, re.M))
                # The first frame that shows the trace: its sketch (from
                # the chunk index, while the events load), or the
                # timeline when that came first.
                frames = [float(kv[k]) / 1000 for k in ("sketch_frame_ms", "first_frame_ms") if k in kv]
                if frames:
                    first.append(min(frames))
                if "first_frame_ms" in kv:
                    timeline.append(float(kv["first_frame_ms"]) / 1000)
                if "analysed_ms" in kv:
                    found.append(float(kv["analysed_ms"]) / 1000)
        finally:
            x.terminate()
            x.wait()
        rows = []
        if first:
            rows.append(("first frame (from process start; the sketch)", fmt_range(first, "s"), "≤ 0.5 s"))
        if timeline:
            rows.append(("timeline drawn", fmt_range(timeline, "s"), ""))
        if found:
            rows.append(("findings shown", fmt_range(found, "s"), "≤ 1.5 s"))
        return "`pfprof generate --events 10000000` in `pfprof-view-test --bench`", rows or [
            ("not measured", "the app wrote no figures (see the dated log)", "")]


def part_suffix(only):
    """'' for every part, else '-' and the parts run: a run of some parts
    keeps its own log."""
    return "" if set(only) == set(FILES) else "-" + "-".join(w for w in FILES if w in only)


def block(what, trace, rows, stamp):
    lines = [BEGIN, "",
             f"Generated by `bench/update-results.py` on {stamp['date']}, commit `{stamp['commit']}`, "
             f"{stamp['machine']}, load average {stamp['load']} at the start; "
             f"input: {trace or '-'}; log: [{stamp['log']}](results/{stamp['log']}).", "",
             "| figure | measured | target |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    lines += ["", END]
    return "\n".join(lines)


def replace_block(path, new):
    text = open(path).read()
    i, j = text.find(BEGIN), text.find(END)
    if i < 0 or j < i:
        raise SystemExit(f"update-results: {path} has no generated block ({BEGIN} ... {END})")
    text = text[:i] + new + text[j + len(END):]
    with open(path + ".tmp", "w") as fh:
        fh.write(text)
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build")
    ap.add_argument("--work", default="/tmp/pfprof-bench")
    ap.add_argument("--only", default="report,kineto,gui")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    if a.check:
        bad = [f for f in FILES.values()
               if BEGIN not in open(os.path.join(HERE, f)).read() or END not in open(os.path.join(HERE, f)).read()]
        for f in bad:
            print(f"update-results: bench/{f} has no generated block", file=sys.stderr)
        return 1 if bad else 0
    if a.runs < 1:
        raise SystemExit("update-results: --runs must be at least 1")
    only = [w for w in a.only.split(",") if w]
    for w in only:
        if w not in FILES:
            raise SystemExit(f"update-results: --only: unknown part '{w}' (report, kineto, gui)")
    if not os.access(os.path.join(a.build, "cli", "pfprof"), os.X_OK):
        raise SystemExit(f"update-results: {a.build}/cli/pfprof not built")
    today = datetime.date.today().isoformat()
    stamp = {"date": today, "commit": commit(), "machine": machine(), "load": load_average(),
             "log": f"{today}-update-results{part_suffix(only)}.md"}
    run = Run(a.build, a.work, a.runs)
    blocks = {}
    for w in only:
        trace, rows = getattr(run, w)()
        blocks[w] = block(w, trace, rows, stamp)
    log = os.path.join(HERE, "results", stamp["log"])
    with open(log, "w") as fh:
        fh.write(f"# {today}: bench/update-results.py {' '.join(sys.argv[1:])}\n\n"
                 f"Commit `{stamp['commit']}`, {stamp['machine']}, load average {stamp['load']} "
                 f"at the start.\n\n" + "\n".join(run.log))
    for w, b in blocks.items():
        replace_block(os.path.join(HERE, FILES[w]), b)
        print(b)
    return 0


if __name__ == "__main__":
    sys.exit(main())
