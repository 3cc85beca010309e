# SPDX-License-Identifier: MIT
"""capture_probe.py [--ranges N]: kernels that tell where a capture range
began and ended, for tests/gpu/capture.sh. Before the first
torch.cuda.profiler.start(): 5 multiplications and a pageable copy; in
each range i (of N): 7 sin kernels and i+1 pinned-memory copies; between
and after the ranges: 5 cos kernels and a pageable copy. Under `pfprof
record --capture-range=cuda-profiler-api` the trace must hold 7 sin
kernels, one copy and no mul or cos kernel (the first range only); with
PFPROF_CAPTURE_REPEAT=1, 7*N sin kernels and N*(N+1)/2 copies."""
import argparse

import torch


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--ranges", type=int, default=1)
    args = p.parse_args()
    x = torch.randn(1 << 16, device="cuda")
    pageable = torch.randn(1 << 16)
    pinned = torch.randn(1 << 16).pin_memory()
    for _ in range(5):
        x.mul_(1.0001)
    pageable.to("cuda")
    torch.cuda.synchronize()
    for i in range(args.ranges):
        torch.cuda.profiler.start()
        for _ in range(7):
            torch.sin(x)
        for _ in range(i + 1):
            pinned.to("cuda", non_blocking=True)
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
        for _ in range(5):
            torch.cos(x)
        pageable.to("cuda")
        torch.cuda.synchronize()
    print(f"capture_probe: {args.ranges} ranges done", flush=True)


if __name__ == "__main__":
    main()
