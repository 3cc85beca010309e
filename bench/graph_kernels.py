# SPDX-License-Identifier: MIT
"""Kernel-record rate beyond what Python can launch: a CUDA graph of
--kernels tiny element-wise kernels, captured once and replayed --replays
times, so the GPU runs kernels back to back at its own pace (a few
microseconds each) and CUPTI delivers a record per kernel. For finding
where, if anywhere, the collector starts to drop records (meta
dropped_records) or falls behind. Prints the kernels run, the seconds the
replays took and the kernel rate."""
import argparse
import time

import torch

p = argparse.ArgumentParser()
p.add_argument("--kernels", type=int, default=1000, help="kernels per graph")
p.add_argument("--replays", type=int, default=2000)
args = p.parse_args()
if args.kernels < 1 or args.replays < 1:
    p.error("need --kernels >= 1 and --replays >= 1")

x = torch.zeros(256, device="cuda")
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(3):
        x.add_(1.0)  # warm-up outside the capture
torch.cuda.current_stream().wait_stream(s)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    for _ in range(args.kernels):
        x.add_(1.0)
torch.cuda.synchronize()
t0 = time.perf_counter()
for _ in range(args.replays):
    g.replay()
torch.cuda.synchronize()
dt = time.perf_counter() - t0
n = args.kernels * args.replays
print(f"graph_kernels: {n} kernels in {dt:.3f} s, {n / dt / 1e3:.0f}k kernels/s "
      f"({args.kernels} per graph, {args.replays} replays)", flush=True)
