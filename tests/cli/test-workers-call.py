#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test-workers-call.py SOURCE_ROOT WORK: tests/gpu/workers-call.sh end to
end without a GPU or torch: a stand-in `pfprof` (record runs the program
and writes as its "trace" the report JSON a real one would give; report
prints it; try runs the program and prints a try result) and a stand-in
program named jpeg_pipeline.py (SAMPLE) whose workers are child
processes and which prints the sample's lines. Checks that every run of
the phases is made with its files where runs.tsv says, that the worker
count pfprof predicted for and the sweep did not run gets a bare run,
that summary.md has each proof line's verdict, that $OUT holds no more
than the 8 files a lent machine brings back, and that the archive,
extracted, gives the same summary again."""
import os
import shutil
import subprocess
import sys
import tarfile
import unittest

SRC, WORK = os.path.abspath(sys.argv.pop(1)), os.path.abspath(sys.argv.pop(1))

PFPROF = r'''#!/bin/sh
# A stand-in pfprof: see test-workers-call.py.
helper=$(dirname "$0")/helper.py
case "$1" in
  --version) echo "pfprof 0.0 (stand-in)"; exit 0 ;;
  record)
    shift
    out=
    while [ "$1" != "--" ]; do
      [ "$1" = -o ] && { out=$2; shift; }
      shift
    done
    shift
    "$@"
    rc=$?
    python3 "$helper" trace "$out" "$@"
    exit $rc ;;
  report)
    if [ "$2" = --format ]; then cat "$4"; else echo "stand-in report of $2"; fi
    exit 0 ;;
  try)
    while [ "$1" != "--" ]; do shift; done
    shift
    "$@"
    python3 "$helper" try
    exit 0 ;;
esac
exit 2
'''

HELPER = r'''import json, os, sys

SOURCE = os.environ["STANDIN_SOURCE"]


def arg(args, name, default):
    return type(default)(args[args.index(name) + 1]) if name in args else default


def step(workers, slow, resident=False):
    """The stand-in's step, ms: a 30 ms GPU, batches every 240 (400 with
    SlowTransform) ms over the workers."""
    return 30.0 if resident else max(30.0, (400.0 if slow else 240.0) / max(workers, 1))


def report(args):
    w, slow = arg(args, "--workers", 2), "--slow-transform" in args
    if not slow and 240.0 / w < 30.0:
        return {"format": "pfprof-report/1", "findings": []}
    line = next(i for i, l in enumerate(open(SOURCE), 1) if l.startswith("class SlowTransform"))
    stages = [("torchvision.datasets.folder.default_loader", "loader", "folder.py", 262, 0.5),
              ("torchvision.transforms.transforms.RandomResizedCrop", "transform", "transforms.py", 913, 0.15),
              ("torchvision.transforms.transforms.ToTensor", "transform", "transforms.py", 112, 0.12),
              ("torchvision.transforms.transforms.Normalize", "transform", "transforms.py", 241, 0.05),
              ("torchvision.transforms.transforms.RandomHorizontalFlip", "transform", "transforms.py", 675, 0.01)]
    if slow:
        stages = [("__main__.SlowTransform", "transform", "/x/samples/jpeg_pipeline.py", line, 0.6)] + \
            [(n, a, f, l, s / 3) for n, a, f, l, s in stages]
    first = stages[0]
    return {"format": "pfprof-report/1", "findings": [{
        "rule": "input-starved", "severity": "error", "title": "GPU starved of input", "est_savings_ns": 10 ** 7,
        "message": "Inside the DataLoader, its %d workers spent %d%% of their time in %s (%s, %s:%d)."
                   % (w, 100 * first[4], first[0], first[1], os.path.basename(first[2]), first[3]),
        "predicted_step_ns": int(step(2 * w, slow) * 1e6),
        "input_pipeline": {"workers": w, "cores": 16.0, "worker_cores": 0.01, "cpu_per_wall": 0.01,
                           "saturated": False, "collate_share": 0.04 if slow else 0.12,
                           "predicted_workers": 2 * w,
                           "stages": [{"attr": a, "function": n, "file": f, "line": l, "share": s}
                                      for n, a, f, l, s in stages]}}]}


if sys.argv[1] == "trace":
    with open(sys.argv[2], "w") as f:
        json.dump(report(sys.argv[3:]), f)
elif sys.argv[1] == "try":
    print(json.dumps({"format": "pfprof-try/1", "a": {"median_ns": 120 * 10 ** 6}, "b": {"median_ns": 31 * 10 ** 6},
                      "ideal_input": {"step_ns": 31 * 10 ** 6, "change_pct": -74.2}}, separators=(",", ":")))
elif sys.argv[1] == "sample":
    import time
    args = sys.argv[2:]
    w, slow, resident = arg(args, "--workers", 2), "--slow-transform" in args, "--gpu-resident" in args
    kids = []
    for _ in range(0 if resident else w):
        pid = os.fork()
        if pid == 0:
            time.sleep(1.5)
            os._exit(0)
        kids.append(pid)
    time.sleep(0.2)
    t0 = time.time()
    time.sleep(1.0)  # the summary wants /proc samples 0.5 s apart in the window
    m = step(w, slow, resident)
    print("jpeg_pipeline (no fix): median step %.2f ms, mean %.2f ms over 40 timed steps" % (m, m * 1.01))
    print("window: %.3f %.3f" % (t0, time.time()))
    if "--digest" in args:
        print("digest: " + "ab" * 32)
    if "--cprofile-worker" in args:
        doc = report(args)["findings"][0]["input_pipeline"]
        fetch = 10 ** 9
        with open(arg(args, "--cprofile-worker", ""), "w") as f:
            json.dump({"fetch_ns": fetch, "batches": 20, "samples": 1920,
                       "stages": [{"attr": s["attr"], "name": s["function"], "ns": int((s["share"] + 0.01) * fetch),
                                   "calls": 1920} for s in doc["stages"]],
                       "collate": {"name": "torch.utils.data._utils.collate.default_collate",
                                   "ns": int(doc["collate_share"] * fetch), "calls": 20}}, f)
    for k in kids:
        os.waitpid(k, 0)
'''

# Runs the helper's "sample" in this process: its command line must name
# jpeg_pipeline.py, as the sample's does.
SAMPLE = '''import os, sys
sys.argv = [sys.argv[0], "sample"] + sys.argv[1:]
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "cli", "helper.py")) as f:
    exec(f.read())
'''


class WorkersCall(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        shutil.rmtree(WORK, ignore_errors=True)
        build = os.path.join(WORK, "build")
        os.makedirs(os.path.join(build, "cli"))
        for name, text in (("cli/pfprof", PFPROF), ("cli/helper.py", HELPER), ("jpeg_pipeline.py", SAMPLE)):
            with open(os.path.join(build, name), "w") as f:
                f.write(text)
        os.chmod(os.path.join(build, "cli", "pfprof"), 0o755)
        os.makedirs(os.path.join(WORK, "data", "train"))
        cls.out = os.path.join(WORK, "out")
        env = dict(os.environ, PFPROF_BUILD=os.path.relpath(build, SRC), OUT=cls.out,
                   SAMPLE=os.path.join(build, "jpeg_pipeline.py"), DATA=os.path.join(WORK, "data"),
                   STANDIN_SOURCE=os.path.join(SRC, "samples", "jpeg_pipeline.py"), WORKERS="2 4 8 12",
                   PHASES="data sweep resident try slow cprofile digest extra saturate cprofile_slow nohooks")
        cls.p = subprocess.run(["bash", os.path.join(SRC, "tests", "gpu", "workers-call.sh")], cwd=SRC, env=env,
                               capture_output=True, text=True, timeout=600)
        with open(os.path.join(cls.out, "summary.md")) as f:
            cls.summary = f.read()
        cls.rows = {}
        for line in cls.summary.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 5 and cells[4] in ("ok", "FAIL", "n/a"):
                cls.rows[(cells[0], cells[1])] = (cells[2], cells[4])

    def test_verdicts(self):
        # The overhead phase (real torch) was left out: its line alone
        # has no verdict, so the call fails.
        fails = [k for k, v in self.rows.items() if v[1] == "FAIL"]
        self.assertEqual(fails, [("worker recording overhead", "-")], self.summary + self.p.stdout + self.p.stderr)
        self.assertEqual(self.p.returncode, 1)
        for key in [("stage shares vs cProfile", "plain, 2 workers (cProfile: 2)"),
                    ("stage shares vs cProfile", "slow, 4 workers (cProfile: 4)"),
                    ("CPU saturation vs /proc", "plain, 2 workers"),
                    ("predicted step", "plain, 2 workers"),
                    ("predicted step", "plain, 4 workers"),
                    ("ideal-input vs GPU-resident", "2 workers"),
                    ("slow transform named first", "slow, 4 workers"),
                    ("slow transform named first", "slow-sat, 16 workers"),
                    ("batches bit-identical", "hooks on, --no-worker-hooks, bare")]:
            self.assertEqual(self.rows.get(key, ("missing", "missing"))[1], "ok", (key, self.summary))

    def test_extra_run(self):
        # The 8-worker run predicted a step for 16, which the sweep did not
        # run: the call measured it.
        self.assertEqual(self.rows[("predicted step", "plain, 8 workers")],
                         ("16 workers: predicted 30.00 ms, measured 30.30 ms mean (-1.0%)", "ok"))

    def test_files_back(self):
        self.assertEqual(sorted(os.listdir(self.out)), ["call-1.tar", "pack.txt", "summary.md"])
        with tarfile.open(os.path.join(self.out, "call-1.tar")) as t:
            names = set(t.getnames())
        for name in ("meta/runs.tsv", "meta/summary.md", "logs/machine.txt", "logs/rec_w2.log", "reports/rec_w2.json",
                     "reports/rec_w2.txt", "proc/rec_w2.tsv", "cprofile/cprofile_w2.json",
                     "traces/rec_w2.pfprof.xz", "logs/try_ideal.log", "logs/bare_w16.log", "proc/rec_slow_w16.tsv"):
            self.assertIn(name, names)

    def test_summary_again(self):
        again = os.path.join(WORK, "again")
        shutil.rmtree(again, ignore_errors=True)
        with tarfile.open(os.path.join(self.out, "call-1.tar")) as t:
            t.extractall(again)
        p = subprocess.run([sys.executable, os.path.join(SRC, "tests", "gpu", "workers_summary.py"), again],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.stdout, self.summary)


if __name__ == "__main__":
    unittest.main(verbosity=2)
