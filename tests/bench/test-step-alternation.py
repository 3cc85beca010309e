# SPDX-License-Identifier: MIT
"""test-step-alternation.py BENCH_DIR: bench/step_alternation.py against a
fake torch and a fake clock, with planted step times: the blocks, the
steps not counted, the pairing of each on-block with the off-block after
it, the syncs and pauses at the switches, the refusals, and the line
bench/overhead_suite.py parses."""
import io
import contextlib
import sys
import types
import unittest

sys.path.insert(0, sys.argv.pop(1))
import step_alternation  # noqa: E402
from step_alternation import RESULT_RE, StepAlternation  # noqa: E402

CAPTURE = {"PFPROF_CAPTURE": "cuda-profiler-api", "PFPROF_CAPTURE_REPEAT": "1"}
# Very different from one pair to the next, so that pairing an on-block
# with any block but the off-block after it gives no steady ratio.
BASES_MS = [10.0, 31.0, 7.0, 22.0, 45.0, 13.0, 28.0, 9.0, 17.0, 38.0, 11.0, 26.0]


class Fake:
    """torch with the hook's wrappers on Tensor.to and torch.cuda.synchronize
    (or none), a profiler that counts its ranges, and a clock that only
    the planted steps and the pauses move."""

    def __init__(self, hook=True):
        self.now = 0.0
        self.events = []
        self.recording = False
        self.ranges = 0
        self.since_switch = 0

        def to(self_, *a):
            return self_

        def sync():
            self.events.append("sync")

        self.bare_to, self.bare_sync = to, sync
        tensor = type("Tensor", (), {"to": to})
        cuda = types.SimpleNamespace(synchronize=sync,
                                     profiler=types.SimpleNamespace(start=self._start, stop=self._stop))
        self.torch = types.SimpleNamespace(Tensor=tensor, cuda=cuda)
        if hook:
            for owner, name, bare in ((tensor, "to", to), (cuda, "synchronize", sync)):
                def wrapper(*a, _bare=bare):
                    return _bare(*a)
                wrapper._pfprof = True
                wrapper.__wrapped__ = bare
                setattr(owner, name, wrapper)
        self.wrappers = {"to": tensor.__dict__["to"], "synchronize": cuda.synchronize}

    def _start(self):
        assert not self.recording, "start() while recording"
        self.recording = True
        self.ranges += 1
        self.since_switch = 0
        self.events.append("start")

    def _stop(self):
        assert self.recording, "stop() while paused"
        self.recording = False
        self.since_switch = 0
        self.events.append("stop")

    def hooked(self):
        return getattr(self.torch.Tensor.__dict__["to"], "_pfprof", False)

    def clock(self):
        return self.now

    def sleep(self, s):
        self.events.append("sleep")
        self.now += s


class PfprofBlocks(unittest.TestCase):
    def run_planted(self, hook=True, pairs=6, skip=None, extra_ms=50.0):
        """On-blocks 5% slower than the off-block of the same pair; the two
        steps after each switch @extra_ms slower (a fixed amount, so that
        counting them moves the ratio)."""
        f = Fake(hook)

        def step(i):
            if hook:
                self.assertEqual(f.hooked(), f.recording, "the hook's wrappers follow the recording")
            base = BASES_MS[(f.ranges - 1) % len(BASES_MS)] if f.ranges else BASES_MS[0]
            ms = base * (1.05 if f.recording else 1.0)
            if f.since_switch < 2:
                ms += extra_ms
            f.since_switch += 1
            f.now += ms / 1e3
            f.events.append("step")

        alt = StepAlternation("pfprof", "t", block_s=0.04, skip=skip, pairs=pairs, torch_module=f.torch,
                              environ=CAPTURE, clock=f.clock, sleep=f.sleep)
        counted = alt.run(step, warmup=8, steps=0)
        return f, alt, counted

    def test_planted_five_percent(self):
        f, alt, counted = self.run_planted()
        # Blocks of 0.04 s: the floor of skip + 2 = 4 steps.
        self.assertEqual(alt.block_steps, 4)
        r = alt.result()
        self.assertEqual(len(r["costs"]), 6)
        for c in r["costs"]:
            self.assertAlmostEqual(c, 0.05, places=9)
        self.assertEqual(len(counted), 6 * 2 * (4 - 2))
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            alt.report()
        line = buf.getvalue().strip()
        m = RESULT_RE.search(line)
        self.assertIsNotNone(m, line)
        what, on, off, cost, n, lo, hi = m.groups()
        self.assertEqual((what, cost, n, lo, hi), ("pfprof", "+5.00", "6", "+5.00", "+5.00"), line)
        self.assertIn("blocks of 4 steps (2 not counted)", line)

    def test_counting_the_first_steps_would_show(self):
        # The same run with nothing skipped: the planted extra time of the
        # first steps after a switch moves every pair off 5%.
        _, alt, _ = self.run_planted(skip=0)
        self.assertTrue(all(abs(c - 0.05) > 0.005 for c in alt.result()["costs"]))

    def test_pairing_with_the_block_before_would_show(self):
        # An off-block compared with the on-block after it (the wrong
        # pairing) gives ratios far from 5%: the planted bases differ.
        _, alt, _ = self.run_planted()
        blocks = alt.blocks
        self.assertEqual([on for on, _ in blocks], [True, False] * 6)
        import statistics
        wrong = [statistics.median(blocks[k + 1][1]) / statistics.median(blocks[k][1]) - 1
                 for k in range(1, len(blocks) - 1, 2)]
        self.assertTrue(all(abs(c - 0.05) > 0.05 for c in wrong), wrong)

    def test_switches_sync_first_and_pause_after(self):
        f, alt, _ = self.run_planted(pairs=3)
        ev = f.events
        for k, e in enumerate(ev):
            if e in ("start", "stop"):
                self.assertEqual(ev[k - 1], "sync", ev[k - 3:k + 3])
                self.assertEqual(ev[k + 1], "sleep", ev[k - 3:k + 3])
        # Warm-up: one range; then one per pair.
        self.assertEqual(f.ranges, 1 + 3)
        alt.finish()
        self.assertFalse(f.recording)
        self.assertIs(f.torch.Tensor.__dict__["to"], f.wrappers["to"])
        self.assertIs(f.torch.cuda.synchronize, f.wrappers["synchronize"])

    def test_without_the_hook(self):
        # The CUPTI floor or --no-python-hooks: only the recording switches.
        f, alt, _ = self.run_planted(hook=False)
        self.assertEqual(alt.slots, [])
        for c in alt.result()["costs"]:
            self.assertAlmostEqual(c, 0.05, places=9)

    def test_pairs_from_steps(self):
        f = Fake()
        alt = StepAlternation("pfprof", "t", block_s=0.04, torch_module=f.torch, environ=CAPTURE,
                              clock=f.clock, sleep=f.sleep)

        def step(i):
            f.now += 0.01

        alt.run(step, warmup=4, steps=40)
        self.assertEqual(alt.block_steps, 4)
        self.assertEqual(len(alt.result()["costs"]), 5)


    def test_blocks_sized_by_the_slower_state(self):
        f = Fake()
        alt = StepAlternation("pfprof", "t", block_s=0.2, torch_module=f.torch, environ=CAPTURE,
                              clock=f.clock, sleep=f.sleep)

        def step(i):
            f.now += 0.02 if f.recording else 0.01

        alt.run(step, warmup=6, steps=0)
        self.assertEqual(alt.block_steps, 10)


class HookEveryStep(unittest.TestCase):
    def test_planted_ten_percent(self):
        f = Fake()
        n = {"i": 0}

        def step(i):
            # Steps i and i + 1 of a pair share a base; the hook adds 10%.
            base = BASES_MS[(i // 2) % len(BASES_MS)]
            f.now += base * (1.1 if f.hooked() else 1.0) / 1e3
            n["i"] += 1

        alt = StepAlternation("hook", "t", torch_module=f.torch, environ={}, clock=f.clock, sleep=f.sleep)
        counted = alt.run(step, warmup=4, steps=20)
        self.assertEqual(n["i"], 24)
        self.assertEqual(len(counted), 20)
        self.assertNotIn("sleep", f.events)
        self.assertNotIn("start", f.events)
        costs = alt.result()["costs"]
        self.assertEqual(len(costs), 10)
        for c in costs:
            self.assertAlmostEqual(c, 0.10, places=9)
        self.assertIn("every step", alt.line())
        alt.finish()
        self.assertIs(f.torch.Tensor.__dict__["to"], f.wrappers["to"])


class Refusals(unittest.TestCase):
    def test_pfprof_needs_capture_every_range(self):
        f = Fake()
        for env in ({}, {"PFPROF_CAPTURE": "cuda-profiler-api"}, {"PFPROF_CAPTURE_REPEAT": "1"}):
            with self.assertRaises(SystemExit) as e:
                StepAlternation("pfprof", "t", torch_module=f.torch, environ=env)
            self.assertIn("--capture-range=cuda-profiler-api", str(e.exception.code))
            self.assertIn("PFPROF_CAPTURE_REPEAT=1", str(e.exception.code))

    def test_hook_needs_the_hook(self):
        with self.assertRaises(SystemExit) as e:
            StepAlternation("hook", "t", torch_module=Fake(hook=False).torch, environ={})
        self.assertIn("--no-python-hooks", str(e.exception.code))

    def test_blocks_need_a_warmup(self):
        f = Fake()
        alt = StepAlternation("pfprof", "t", torch_module=f.torch, environ=CAPTURE, clock=f.clock,
                              sleep=f.sleep)
        with self.assertRaises(SystemExit):
            alt.run(lambda i: None, warmup=1, steps=10)

    def test_arguments(self):
        import argparse
        p = argparse.ArgumentParser()
        step_alternation.add_arguments(p)
        self.assertEqual(p.parse_args(["--alternate"]).alternate, "hook")
        self.assertEqual(p.parse_args(["--alternate", "pfprof"]).alternate, "pfprof")
        self.assertIsNone(p.parse_args([]).alternate)
        self.assertIsNone(step_alternation.from_args(p.parse_args([]), "t"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
