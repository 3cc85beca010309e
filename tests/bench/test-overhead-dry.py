# SPDX-License-Identifier: MIT
"""test-overhead-dry.py SOURCE_ROOT WORK: bench/collector-overhead.sh
through its variants without a GPU, torch or collector: the suite's
dry run (PFPROF_SUITE_DRY=1, made-up step times) under a fake `pfprof`
(it sets what `pfprof record` sets in the program's environment, runs
the program and writes a trace holding only the meta keys the script
reads) and a fake floor library (a file CUDA never loads). Checks the
commands -n prints, the in-process variants' environment, the rows of
runs.tsv and the summary's in-process table."""
import os
import re
import shutil
import subprocess
import sys
import unittest

SRC, WORK = os.path.abspath(sys.argv.pop(1)), os.path.abspath(sys.argv.pop(1))

FAKE_PFPROF = r'''#!/usr/bin/env python3
import os, sqlite3, subprocess, sys
a = sys.argv[1:]
if a[:1] == ["--version"]:
    print("pfprof 0.0 (fake)")
    sys.exit(0)
assert a[0] == "record", a
env, out, i = dict(os.environ, PFPROF_PYTHON_HOOKS="1"), None, 1
while a[i] != "--":
    if a[i] == "--no-python-hooks":
        env["PFPROF_PYTHON_HOOKS"] = "0"
    elif a[i].startswith("--capture-range="):
        env["PFPROF_CAPTURE"] = a[i].split("=", 1)[1]
    elif a[i] == "-o":
        i += 1
        out = a[i]
    i += 1
print("fake-pfprof: PFPROF_CAPTURE=%s PFPROF_CAPTURE_REPEAT=%s PFPROF_PYTHON_HOOKS=%s"
      % (env.get("PFPROF_CAPTURE", ""), env.get("PFPROF_CAPTURE_REPEAT", ""), env["PFPROF_PYTHON_HOOKS"]),
      flush=True)
rc = subprocess.call(a[i + 1:], env=env)
db = sqlite3.connect(out)
db.execute("create table meta (key text, value text)")
db.executemany("insert into meta values (?, ?)", [("activity_kinds", "kernel,memcpy,memset,api-callbacks"),
                                                   ("complete", "1"), ("dropped_records", "0")])
db.commit()
sys.exit(rc)
'''

VARIANTS = "pfprof pfprof-alt nohooks-alt floor-alt pfprof-alt@1 floor-alt@1"
SUITE_ALT = "r50b32-palt tiny-palt"


class OverheadDryRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        shutil.rmtree(WORK, ignore_errors=True)
        build = os.path.join(WORK, "build")
        os.makedirs(os.path.join(build, "cli"))
        os.makedirs(os.path.join(build, "bench"))
        fake = os.path.join(build, "cli", "pfprof")
        with open(fake, "w") as f:
            f.write(FAKE_PFPROF)
        os.chmod(fake, 0o755)
        open(os.path.join(build, "bench", "libpfprof-cupti-floor.so"), "w").close()
        cls.out, cls.work = os.path.join(WORK, "out"), os.path.join(WORK, "work")
        env = dict(os.environ, PFPROF_BUILD=os.path.relpath(build, SRC), PFPROF_SUITE_DRY="1",
                   WORKLOADS="suite", VARIANTS=VARIANTS, SUITE="tiny r50b32-palt", SUITE_ALT=SUITE_ALT,
                   ALT_PAIRS="9", ALT_BLOCK_S="0.5", OVERHEAD_OUT=cls.out, OVERHEAD_WORK=cls.work,
                   PFPROF_COMMIT="test", ROTATE="0")
        for k in ("OUT", "CUDA_INJECTION64_PATH", "PFPROF_CAPTURE", "PFPROF_CAPTURE_REPEAT",
                  "PFPROF_PYTHON_HOOKS"):
            env.pop(k, None)
        script = os.path.join(SRC, "bench", "collector-overhead.sh")
        cls.dry = subprocess.run(["bash", script, "-n", "1"], cwd=SRC, env=env, capture_output=True, text=True)
        cls.real = subprocess.run(["bash", script, "1"], cwd=SRC, env=env, capture_output=True, text=True,
                                  timeout=300)

    def test_dry_run_prints_the_commands(self):
        self.assertEqual(self.dry.returncode, 0, self.dry.stderr)
        lines = {l.split(":", 1)[0]: l for l in self.dry.stdout.splitlines() if l.startswith("round ")}
        alt_suite = f"overhead_suite.py --alt-pairs 9 --alt-block-s 0.5 {SUITE_ALT}"
        p = lines["round 1 suite pfprof-alt"]
        self.assertIn("PFPROF_CAPTURE_REPEAT=1 ", p)
        self.assertIn("record --quiet --no-report --capture-range=cuda-profiler-api -o ", p)
        self.assertIn(alt_suite, p)
        n = lines["round 1 suite nohooks-alt"]
        self.assertIn("--capture-range=cuda-profiler-api --no-python-hooks", n)
        fl = lines["round 1 suite floor-alt"]
        self.assertIn("CUDA_INJECTION64_PATH=", fl)
        self.assertIn("PFPROF_FLOOR_CALLBACKS=cuda", fl)
        self.assertIn("PFPROF_CAPTURE=cuda-profiler-api PFPROF_CAPTURE_REPEAT=1", fl)
        self.assertIn(alt_suite, fl)
        self.assertTrue(lines["round 1 suite pfprof-alt@1"].startswith("round 1 suite pfprof-alt@1: taskset -c 0-0 "))
        self.assertIn("overhead_suite.py --steps-scale 1 tiny r50b32-palt", lines["round 1 suite pfprof"])

    def test_alt_variants_need_the_suite(self):
        env = dict(os.environ, WORKLOADS="tiny", VARIANTS="pfprof-alt")
        r = subprocess.run(["bash", os.path.join(SRC, "bench", "collector-overhead.sh"), "-n"], cwd=SRC,
                           env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("WORKLOADS=suite", r.stderr)

    def test_run_succeeds(self):
        self.assertEqual(self.real.returncode, 0, self.real.stdout[-3000:] + self.real.stderr[-3000:])

    def log(self, variant):
        with open(os.path.join(self.work, "logs", f"r1-suite-{variant}.log")) as f:
            return f.read()

    def test_environments(self):
        self.assertIn("fake-pfprof: PFPROF_CAPTURE=cuda-profiler-api PFPROF_CAPTURE_REPEAT=1 PFPROF_PYTHON_HOOKS=1",
                      self.log("pfprof-alt"))
        self.assertIn("fake-pfprof: PFPROF_CAPTURE=cuda-profiler-api PFPROF_CAPTURE_REPEAT=1 PFPROF_PYTHON_HOOKS=0",
                      self.log("nohooks-alt"))
        # The floor-alt suite ran its -palt workloads: the capture variables
        # reached it, and it took pfprof-alt's kinds.
        fl = self.log("floor-alt")
        self.assertIn("overhead-suite: r50b32-palt alternating pfprof on/off", fl)
        self.assertIn("kinds kernel,memcpy,memset,api-callbacks", fl)
        # Not under capture: the -palt workload says why it did not run.
        self.assertRegex(self.log("pfprof"), r"overhead-suite: r50b32-palt skipped \(--alternate pfprof needs "
                                             r".*--capture-range=cuda-profiler-api")

    def test_rows_keep_the_paired_cost(self):
        with open(os.path.join(self.out, "runs.tsv")) as f:
            rows = [l.rstrip("\n").split("\t") for l in f][1:]
        got = {(r[1], r[2]): r[9] for r in rows}
        for v in VARIANTS.split():
            if v == "pfprof":
                self.assertIn(("tiny", v), got)
                self.assertNotIn(("r50b32-palt", v), got)
                continue
            for w in SUITE_ALT.split():
                note = got[(w, v)]
                self.assertRegex(note, r"alt=pfprof alt_on_ms=[0-9.]+ alt_off_ms=[0-9.]+ "
                                       r"alt_cost_pct=[-+][0-9.]+ alt_pairs=9 alt_pair_range=[-+][0-9.]+\.\.[-+][0-9.]+")

    def test_summary_in_process_table(self):
        with open(os.path.join(self.out, "overhead.md")) as f:
            md = f.read()
        self.assertIn("| workload | variant | runs | median of the runs' paired cost | range | pairs a run |", md)
        self.assertRegex(md, r"\| r50b32-palt \| CUPTI floor, .* on 1 CPUs \(floor-alt@1\) \| 1 \| [-+][0-9.]+% \| "
                             r"[-+][0-9.]+\.\.[-+][0-9.]+% \| 9 \|")
        for v in VARIANTS.split()[1:]:
            self.assertRegex(self.real.stdout, rf"SUMMARY in-process tiny-palt {re.escape(v)}: pfprof [-+][0-9.]+% \(1 runs")


if __name__ == "__main__":
    unittest.main(verbosity=2)
