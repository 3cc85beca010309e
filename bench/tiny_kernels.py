# SPDX-License-Identifier: MIT
"""Launch-bound loop for collector overhead: each step launches --kernels
tiny element-wise kernels and one small host-to-device copy, then reads
nothing back. Prints the median host step time (no sync inside the loop;
the launch queue fills within the warm-up, so a step lasts as long as its
launches).

--profiler torch runs the same loop (warm-up and timed steps) inside
torch.profiler.profile(activities=[CPU, CUDA]), exports its default chrome
trace to --trace-out and prints the file's size and number of events.
With --alternate [hook|pfprof] (bench/step_alternation.py) the timed steps
alternate in one process between the hook's wrappers in place and not
(hook), or between the whole profiler recording and paused (pfprof, under
--capture-range=cuda-profiler-api), and it also prints `alternating WHAT
on/off, ...: median step on A ms, off B ms: cost +P% (N pairs, ...)`."""
import argparse
import statistics

import torch

import profiler_torch
import step_alternation

p = argparse.ArgumentParser()
p.add_argument("--kernels", type=int, default=1000)
p.add_argument("--steps", type=int, default=200)
p.add_argument("--warmup", type=int, default=20)
profiler_torch.add_arguments(p)
step_alternation.add_arguments(p)
args = p.parse_args()
if args.kernels < 1 or args.steps < 1 or args.warmup < 0:
    p.error("need --kernels >= 1, --steps >= 1, --warmup >= 0")
alt = step_alternation.from_args(args, "tiny_kernels")

x = torch.zeros(256, device="cuda")
host = torch.ones(256).pin_memory()
times = []


def step(i):
    for _ in range(args.kernels):
        x.add_(1.0)
    x.copy_(host, non_blocking=True)


def loop():
    times.extend(step_alternation.timed_steps(step, args.warmup, args.steps, alt))
    torch.cuda.synchronize()


profiler_torch.run(loop, args)
if alt is not None:
    alt.report()
print(f"tiny_kernels: median step {statistics.median(times) * 1e3:.3f} ms over {len(times)} steps, "
      f"{args.kernels} kernels/step", flush=True)
profiler_torch.report(args)
