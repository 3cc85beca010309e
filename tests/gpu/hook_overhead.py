"""hook_overhead.py [--steps N] [--calls N]: the loop the Python hook costs
most on: every step makes CALLS wrapped calls, half `.to("cuda")` of a
small pinned tensor, half `.item()` of a reduction (a sync each), then
a little compute. Prints "median step X ms" for tests/gpu/sites.sh to
compare with hooks on and off."""
import argparse
import statistics
import time

import torch


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--calls", type=int, default=200, help="wrapped calls per step")
    args = p.parse_args()
    x = torch.randn(1024).pin_memory()
    w = torch.randn(1024, 1024, device="cuda")
    times = []
    for step in range(args.warmup + args.steps):
        t0 = time.perf_counter()
        acc = 0.0
        for _ in range(args.calls // 2):
            y = x.to("cuda", non_blocking=True)
            acc += (w @ y).sum().item()
        if step >= args.warmup:
            times.append(time.perf_counter() - t0)
    torch.cuda.synchronize()
    print(f"hook_overhead: median step {statistics.median(times) * 1e3:.3f} ms "
          f"over {len(times)} steps ({args.calls} wrapped calls a step, acc {acc:.1f})", flush=True)


if __name__ == "__main__":
    main()
