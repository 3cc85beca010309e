# SPDX-License-Identifier: MIT
"""Launch-bound loop for collector overhead: each step launches --kernels
tiny element-wise kernels and one small host-to-device copy, then reads
nothing back. Prints the median host step time (no sync inside the loop;
the launch queue fills within the warm-up, so a step lasts as long as its
launches).

--profiler torch runs the same loop (warm-up and timed steps) inside
torch.profiler.profile(activities=[CPU, CUDA]), exports its default chrome
trace to --trace-out and prints the file's size and number of events."""
import argparse
import statistics
import time

import torch

import profiler_torch

p = argparse.ArgumentParser()
p.add_argument("--kernels", type=int, default=1000)
p.add_argument("--steps", type=int, default=200)
p.add_argument("--warmup", type=int, default=20)
profiler_torch.add_arguments(p)
args = p.parse_args()
if args.kernels < 1 or args.steps < 1 or args.warmup < 0:
    p.error("need --kernels >= 1, --steps >= 1, --warmup >= 0")

x = torch.zeros(256, device="cuda")
host = torch.ones(256).pin_memory()
times = []


def loop():
    for step in range(args.warmup + args.steps):
        t0 = time.perf_counter()
        for _ in range(args.kernels):
            x.add_(1.0)
        x.copy_(host, non_blocking=True)
        if step >= args.warmup:
            times.append(time.perf_counter() - t0)
    torch.cuda.synchronize()


profiler_torch.run(loop, args)
print(f"tiny_kernels: median step {statistics.median(times) * 1e3:.3f} ms over {args.steps} steps, "
      f"{args.kernels} kernels/step", flush=True)
profiler_torch.report(args)
