# SPDX-License-Identifier: MIT
"""hook_overhead.py [--steps N] [--calls N]: the loop the Python hook costs
most on: every step makes CALLS wrapped calls, half `.to("cuda")` of a
small pinned tensor, half `.item()` of a reduction (a sync each), then
a little compute. Prints "median step X ms" for tests/gpu/sites.sh to
compare with hooks on and off. With --alternate [hook|pfprof]
(bench/step_alternation.py), under the hook, steps alternate in one
process between the hook's wrappers and the methods they wrap (hook), or
between the whole profiler recording and paused (pfprof, under
--capture-range=cuda-profiler-api), and it prints both medians and their
paired cost: the cost free of what differs between two processes (GPU
clocks, the CPU the scheduler picks)."""
import argparse
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import step_alternation  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--calls", type=int, default=200, help="wrapped calls per step")
    step_alternation.add_arguments(p)
    args = p.parse_args()
    alt = step_alternation.from_args(args, "hook_overhead")
    x = torch.randn(1024).pin_memory()
    w = torch.randn(1024, 1024, device="cuda")
    acc = 0.0

    def step(i):
        nonlocal acc
        acc = 0.0
        for _ in range(args.calls // 2):
            y = x.to("cuda", non_blocking=True)
            acc += (w @ y).sum().item()

    times = step_alternation.timed_steps(step, args.warmup, args.steps, alt)
    torch.cuda.synchronize()
    if alt is not None:
        alt.report()
    print(f"hook_overhead: median step {statistics.median(times) * 1e3:.3f} ms "
          f"over {len(times)} steps ({args.calls} wrapped calls a step, acc {acc:.1f})", flush=True)


if __name__ == "__main__":
    main()
