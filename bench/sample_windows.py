# SPDX-License-Identifier: MIT
"""What `pfprof record --sample ON/EVERY` costs a program, from one run:
the step log a bench workload wrote (BENCH_STEPS_LOG, bench/step_alternation.py:
each timed step's wall-clock start and duration) set beside the recording
windows of the trace that run wrote (its `windows` table, read through
`pfprof export --format sqlite`). Each step is "in" (whole inside a
window), "off" (whole inside a pause) or "edge" (across a switch). With
the collector paused the program runs as untraced, so the off steps are
the baseline:

  in-window cost  mean in-step / mean off-step - 1
  program cost    mean of every step / mean off-step - 1: what the whole
                  run paid, switches and the writer's flush in the pauses
                  included

Usage: python3 bench/sample_windows.py [--pfprof PFPROF] [--name NAME] TRACE STEPLOG

Prints one line:

  NAME: --sample windows W, steps S (in I, off O, edge E): mean step off A ms,
  in B ms (+P%), all C ms: program cost +Q%
"""
import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile


def windows_of(trace, pfprof):
    with tempfile.TemporaryDirectory() as d:
        rows = os.path.join(d, "rows.sqlite")
        subprocess.run([pfprof, "export", "--format", "sqlite", "-o", rows, trace], check=True,
                       stdout=subprocess.DEVNULL)
        db = sqlite3.connect(rows)
        try:
            return sorted((s, s + d) for s, d in db.execute("SELECT start_ns, dur_ns FROM windows"))
        finally:
            db.close()


def classify(steps, windows):
    """(in, off, edge) lists of durations: whole inside a window, whole
    inside a pause, across a switch."""
    inside, off, edge = [], [], []
    for start, dur in steps:
        end = start + dur
        w = [x for x in windows if x[0] < end and start < x[1]]
        if not w:
            off.append(dur)
        elif len(w) == 1 and w[0][0] <= start and end <= w[0][1]:
            inside.append(dur)
        else:
            edge.append(dur)
    return inside, off, edge


def summary(name, steps, windows):
    inside, off, edge = classify(steps, windows)
    if not off or not inside:
        return f"{name}: --sample windows {len(windows)}, steps {len(steps)}: too few steps in or off a window"
    every = [d for _, d in steps]
    base = statistics.fmean(off)
    m_in, m_all = statistics.fmean(inside), statistics.fmean(every)
    return (f"{name}: --sample windows {len(windows)}, steps {len(steps)} (in {len(inside)}, off {len(off)}, "
            f"edge {len(edge)}): mean step off {base / 1e6:.3f} ms, in {m_in / 1e6:.3f} ms "
            f"({100 * (m_in / base - 1):+.2f}%), all {m_all / 1e6:.3f} ms: program cost "
            f"{100 * (m_all / base - 1):+.2f}%")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pfprof", default=os.environ.get("PFPROF", "pfprof"))
    p.add_argument("--name", default="run")
    p.add_argument("trace")
    p.add_argument("steplog")
    a = p.parse_args()
    with open(a.steplog) as f:
        steps = [tuple(int(v) for v in line.split()) for line in f if line.strip()]
    windows = windows_of(a.trace, a.pfprof)
    if not windows:
        sys.exit(f"{a.trace}: no recording windows (not recorded with --sample)")
    print(summary(a.name, steps, windows), flush=True)


if __name__ == "__main__":
    main()
