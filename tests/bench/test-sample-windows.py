# SPDX-License-Identifier: MIT
"""test-sample-windows.py BENCH_DIR: bench/sample_windows.py on planted
steps and windows: which steps are in a window, in a pause or across a
switch, and the costs it prints against the pause's steps; and
bench/step_alternation.py's BENCH_STEPS_LOG, which it reads."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, sys.argv.pop(1))
import sample_windows  # noqa: E402
import step_alternation  # noqa: E402

MS = 1000000


class SampleWindows(unittest.TestCase):
    def test_classify(self):
        windows = [(100 * MS, 200 * MS), (400 * MS, 500 * MS)]
        steps = [(110 * MS, 10 * MS),    # in
                 (195 * MS, 10 * MS),    # across the end of the first
                 (250 * MS, 10 * MS),    # off
                 (395 * MS, 10 * MS),    # across the start of the second
                 (480 * MS, 20 * MS)]    # in, ending with the window
        inside, off, edge = sample_windows.classify(steps, windows)
        self.assertEqual((len(inside), len(off), len(edge)), (2, 1, 2))
        self.assertEqual(inside, [10 * MS, 20 * MS])

    def test_costs(self):
        # 10 ms steps in the pauses, 11 ms in the windows: +10% inside, and
        # for the run +10% times the share of the steps inside (about a
        # fifth: a quarter of the time, at 11 ms a step).
        windows = [(k * 400 * MS, k * 400 * MS + 100 * MS) for k in range(5)]
        steps, t = [], 0
        while t < 2000 * MS:
            inside = any(a <= t and t + 11 * MS <= b for a, b in windows)
            off = not any(a < t + 10 * MS and t < b for a, b in windows)
            d = 11 * MS if inside else 10 * MS
            if inside or off:
                steps.append((t, d))
            t += d
        line = sample_windows.summary("w", steps, windows)
        self.assertIn("mean step off 10.000 ms, in 11.000 ms (+10.00%)", line)
        cost = float(line.rsplit("program cost ", 1)[1].rstrip("%"))
        n_in = sum(d == 11 * MS for _, d in steps)
        self.assertTrue(0.15 < n_in / len(steps) < 0.3)
        self.assertAlmostEqual(cost, 10.0 * n_in / len(steps), delta=0.01)

    def test_too_few(self):
        self.assertIn("too few", sample_windows.summary("w", [(0, MS)], [(0, 10 * MS)]))

    def test_steps_log(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "steps")
            os.environ["BENCH_STEPS_LOG"] = path
            try:
                times = step_alternation.timed_steps(lambda i: None, 2, 5)
            finally:
                del os.environ["BENCH_STEPS_LOG"]
            with open(path) as f:
                rows = [tuple(int(v) for v in line.split()) for line in f]
        self.assertEqual(len(rows), 5)
        self.assertEqual(len(times), 5)
        self.assertTrue(all(b >= a for (a, _), (b, _) in zip(rows, rows[1:])))


if __name__ == "__main__":
    unittest.main()
