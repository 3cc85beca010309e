# SPDX-License-Identifier: MIT
"""StepAlternation: a bench workload's timed steps alternating, in one
process, between "on" and "off", so that a cost is measured free of what
differs between two processes (GPU clocks, the cores the scheduler picks),
which moves the bare step of a host-bound workload by more than the costs
to be measured. The bench scripts' `--alternate [hook|pfprof]`:

  hook    on: the `pfprof record` Python hook's wrappers in place (the
          attributes of torch it replaced, marked _pfprof); off: the
          methods they wrap. Needs the hook.
  pfprof  on: the collector recording (torch.cuda.profiler.start(), that
          is cudaProfilerStart) and the hook's wrappers where the hook is
          there; off: torch.cuda.profiler.stop() and the bare methods.
          Needs a profiler that records every such range: `pfprof record
          --capture-range=cuda-profiler-api` with PFPROF_CAPTURE_REPEAT=1,
          or the CUPTI floor with PFPROF_CAPTURE=cuda-profiler-api
          PFPROF_CAPTURE_REPEAT=1.

Steps alternate in blocks of about --block-s seconds (steps per block from
the warm-up's median step, on or off whichever is slower, at least
--skip + 2): the
collector's writer wakes every 500 ms, so a switch every step would spread
its work over both arms. The first --skip steps of each block are not
counted (clocks ramping, the type caches missing after methods are
swapped). At each switch: torch.cuda.synchronize() (a block's GPU work
runs in its own state), the switch, then 0.1 s untimed (the writer
drains the block that ended). The warm-up's first half runs on, its
second half off, so one-time costs of the first recording fall in no
timed block. --block-s 0 switches every step, with no sync, pause or
skip: the hook's default, whose cost is all on the program's thread.

BENCH_STEPS_LOG=PATH (without --alternate) writes each timed step's
wall-clock start and duration in ns to PATH, one "START DUR" line a step
(bench/sample_windows.py reads it beside a trace's recording windows).

Statistics: each on-block is paired with the off-block after it; per block
the median of its counted steps; the cost is the median over the pairs of
(on / off - 1), printed with the lowest and highest pair and the medians
of all counted steps on and off:

  NAME: alternating pfprof on/off, blocks of K steps (S not counted):
  median step on A ms, off B ms: cost +P% (N pairs, +L..+H%)

on one line (RESULT_RE, which bench/overhead_suite.py and
bench/overhead_stats.py parse). Importing this module does not import
torch (overhead_stats.py reads RESULT_RE on machines without it).
"""
import os
import re
import statistics
import time

NAMES = ("to", "cuda", "cpu", "item", "pin_memory", "record_stream", "synchronize", "empty")
WHATS = ("hook", "pfprof")
PAUSE_S = 0.1
RESULT_RE = re.compile(
    r"alternating (hook|pfprof) on/off, [^:\n]*: median step on ([0-9.]+) ms, off ([0-9.]+) ms: "
    r"cost ([-+][0-9.]+)% \((\d+) pairs, ([-+][0-9.]+)\.\.([-+][0-9.]+)%\)")


def capture_problem(environ=None):
    """Why --alternate pfprof cannot run in this environment, or None."""
    env = os.environ if environ is None else environ
    capture, repeat = env.get("PFPROF_CAPTURE", ""), env.get("PFPROF_CAPTURE_REPEAT", "")
    if capture == "cuda-profiler-api" and repeat == "1":
        return None
    return ("--alternate pfprof needs a profiler that records every range from "
            "torch.cuda.profiler.start() to stop(): pfprof record --capture-range=cuda-profiler-api "
            "with PFPROF_CAPTURE_REPEAT=1, or the CUPTI floor with PFPROF_CAPTURE=cuda-profiler-api "
            f"PFPROF_CAPTURE_REPEAT=1 (here PFPROF_CAPTURE={capture!r}, PFPROF_CAPTURE_REPEAT={repeat!r})")


def add_arguments(parser):
    parser.add_argument("--alternate", nargs="?", const="hook", choices=WHATS,
                        help="alternate timed steps in one process with and without the pfprof "
                             "hook's wrappers (hook, the default) or the whole profiler (pfprof)")
    parser.add_argument("--block-s", type=float, metavar="S",
                        help="with --alternate: seconds a block lasts (default 1 for pfprof; "
                             "0, every step, for hook)")
    parser.add_argument("--pairs", type=int, default=0, metavar="N",
                        help="with --alternate: on/off block pairs to time (default: as many as "
                             "--steps make)")
    parser.add_argument("--skip", type=int, metavar="N",
                        help="with --alternate in blocks: steps not counted at the start of "
                             "each block (default 2)")


def from_args(args, name):
    """The StepAlternation the script's arguments ask for, or None."""
    if not args.alternate:
        return None
    if (args.block_s is not None and args.block_s < 0) or args.pairs < 0 or \
            (args.skip is not None and args.skip < 0):
        raise SystemExit(f"{name}: --block-s, --pairs and --skip cannot be negative")
    return StepAlternation(args.alternate, name, block_s=args.block_s, skip=args.skip,
                           pairs=args.pairs)


def timed_steps(step, warmup, steps, alt=None, clock=time.perf_counter):
    """The bench scripts' loop: step(i) for @warmup untimed steps, then
    @steps timed ones; returns their seconds. With @alt (a
    StepAlternation), its alternating run instead: the counted steps'
    seconds, on and off (alt.report() prints the result)."""
    if alt is not None:
        return alt.run(step, warmup, steps)
    times = []
    log = os.environ.get("BENCH_STEPS_LOG")
    starts = []
    for i in range(warmup + steps):
        wall = time.time_ns()
        t0 = clock()
        step(i)
        if i >= warmup:
            times.append(clock() - t0)
            starts.append(wall)
    if log:
        # Wall-clock starts (CLOCK_REALTIME, the clock of CUPTI's
        # timestamps on Linux) and durations, for bench/sample_windows.py.
        with open(log, "w") as f:
            for w, t in zip(starts, times):
                f.write(f"{w} {int(t * 1e9)}\n")
    return times


def hook_slots(torch):
    """(owner, name, wrapper, wrapped) for each of the hook's wrappers in
    place on torch."""
    slots = []
    for owner in (torch.Tensor, torch.cuda, torch):
        for name in NAMES:
            m = owner.__dict__.get(name) if isinstance(owner, type) else getattr(owner, name, None)
            if m is not None and getattr(m, "_pfprof", False):
                slots.append((owner, name, m, m.__wrapped__))
    return slots


class StepAlternation:
    def __init__(self, what, name, block_s=None, skip=None, pairs=0, torch_module=None,
                 environ=None, clock=time.perf_counter, sleep=time.sleep):
        if what not in WHATS:
            raise ValueError(f"what must be one of {WHATS}, not {what!r}")
        if torch_module is None:
            import torch as torch_module
        self.torch, self.what, self.name = torch_module, what, name
        self.block_s = (1.0 if what == "pfprof" else 0.0) if block_s is None else block_s
        self.skip = 0 if self.block_s <= 0 else (2 if skip is None else skip)
        self.pairs_asked = pairs
        self.clock, self.sleep = clock, sleep
        self.slots = hook_slots(torch_module)
        if what == "hook" and not self.slots:
            raise SystemExit(f"{name}: --alternate hook needs the pfprof hook "
                             "(pfprof record without --no-python-hooks)")
        if what == "pfprof":
            problem = capture_problem(environ)
            if problem:
                raise SystemExit(f"{name}: {problem}")
        self.on = None          # the state in place; None before the first switch
        self.block_steps = 1
        self.blocks = []        # (on, [counted step seconds]) in the order run

    def _set(self, on):
        if on == self.on:
            return
        recording = self.what == "pfprof"
        if recording and not on and self.on:
            self.torch.cuda.profiler.stop()
        for owner, name, wrapper, bare in self.slots:
            setattr(owner, name, wrapper if on else bare)
        if recording and on:
            self.torch.cuda.profiler.start()
        self.on = on

    def switch(self, on):
        """Puts state @on in place between blocks, outside any timing."""
        if on == self.on:
            return
        self.torch.cuda.synchronize()
        self._set(on)
        self.sleep(PAUSE_S)

    def _time(self, step, i):
        t0 = self.clock()
        step(i)
        return self.clock() - t0

    def run(self, step, warmup, steps):
        """Runs @warmup untimed steps, then the alternating timed ones;
        step(i) runs step i, whatever sync the workload's timing needs
        included. Returns the counted steps' seconds, on and off."""
        try:
            if self.block_s <= 0:
                self._run_every_step(step, warmup, steps)
            else:
                self._run_blocks(step, warmup, steps)
        except BaseException:
            # The workloads after this one in the process (the suite's)
            # start from the profiler's own state.
            self.finish()
            raise
        return [t for _, ts in self.blocks for t in ts]

    def _run_every_step(self, step, warmup, steps):
        self.block_steps = 1
        n = 2 * self.pairs_asked if self.pairs_asked else steps
        for i in range(warmup + n):
            # Timed steps start on, so step k on pairs with step k + 1 off.
            on = (i - warmup) % 2 == 0
            self._set(on)
            t = self._time(step, i)
            if i >= warmup:
                self.blocks.append((on, [t]))

    def _run_blocks(self, step, warmup, steps):
        if warmup < 2:
            raise SystemExit(f"{self.name}: --alternate in blocks needs --warmup >= 2 "
                             "(the block length comes from the warm-up's step time)")
        half = (warmup + 1) // 2
        warm = []
        for i in range(warmup):
            self.switch(i < half)
            warm.append(self._time(step, i))
        # The slower half's median, so that no block lasts much longer than
        # asked whichever state is the slower one.
        per = max(statistics.median(warm[:half]), statistics.median(warm[half:]))
        self.block_steps = max(self.skip + 2, round(self.block_s / per) if per > 0 else 0)
        pairs = self.pairs_asked or max(1, round(steps / (2 * self.block_steps)))
        i = warmup
        for _ in range(pairs):
            for on in (True, False):
                self.switch(on)
                counted = []
                for j in range(self.block_steps):
                    t = self._time(step, i)
                    i += 1
                    if j >= self.skip:
                        counted.append(t)
                self.blocks.append((on, counted))

    def finish(self):
        """Leaves the process as the profiler left it before the first
        switch: the hook's wrappers in place, the collector paused."""
        self.torch.cuda.synchronize()
        if self.what == "pfprof" and self.on:
            self.torch.cuda.profiler.stop()
        for owner, name, wrapper, _ in self.slots:
            setattr(owner, name, wrapper)
        self.on = None

    def result(self):
        """{on_ms, off_ms, costs} with costs the per-pair fractions."""
        on_all, off_all, costs, last_on = [], [], [], None
        for on, ts in self.blocks:
            (on_all if on else off_all).extend(ts)
            if on:
                last_on = ts
            elif last_on and ts:
                costs.append(statistics.median(last_on) / statistics.median(ts) - 1)
                last_on = None
        return {"on_ms": statistics.median(on_all) * 1e3 if on_all else None,
                "off_ms": statistics.median(off_all) * 1e3 if off_all else None,
                "costs": costs}

    def line(self):
        r = self.result()
        how = (f"blocks of {self.block_steps} steps ({self.skip} not counted)"
               if self.block_s > 0 else "every step")
        head = f"{self.name}: alternating {self.what} on/off, {how}"
        if not r["costs"]:
            return f"{head}: no on/off pair counted"
        c = sorted(100 * x for x in r["costs"])
        return (f"{head}: median step on {r['on_ms']:.3f} ms, off {r['off_ms']:.3f} ms: "
                f"cost {statistics.median(c):+.2f}% ({len(c)} pairs, {c[0]:+.2f}..{c[-1]:+.2f}%)")

    def report(self):
        """finish(), then prints the result line."""
        self.finish()
        print(self.line(), flush=True)
