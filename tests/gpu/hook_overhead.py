# SPDX-License-Identifier: MIT
"""hook_overhead.py [--steps N] [--calls N]: the loop the Python hook costs
most on: every step makes CALLS wrapped calls, half `.to("cuda")` of a
small pinned tensor, half `.item()` of a reduction (a sync each), then
a little compute. Prints "median step X ms" for tests/gpu/sites.sh to
compare with hooks on and off. With --alternate, under the hook, steps
alternate between the hook's wrappers and the methods they wrap (their
__wrapped__), in one process, and it prints both medians: the hook's cost
free of what differs between two processes (GPU clocks, the CPU the
scheduler picks)."""
import argparse
import statistics
import time

import torch


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--calls", type=int, default=200, help="wrapped calls per step")
    p.add_argument("--alternate", action="store_true",
                   help="alternate steps with and without the hook's wrappers")
    args = p.parse_args()
    names = ("to", "item")
    wrapped = {n: getattr(torch.Tensor, n) for n in names}
    bare = {n: getattr(m, "__wrapped__", m) for n, m in wrapped.items()}
    hooked = all(getattr(m, "_pfprof", False) for m in wrapped.values())
    if args.alternate and not hooked:
        p.error("--alternate needs the pfprof hook (pfprof record without --no-python-hooks)")
    x = torch.randn(1024).pin_memory()
    w = torch.randn(1024, 1024, device="cuda")
    times, on, off = [], [], []
    for step in range(args.warmup + args.steps):
        use_hook = not args.alternate or step % 2 == 0
        if args.alternate:
            for n in names:
                setattr(torch.Tensor, n, (wrapped if use_hook else bare)[n])
        t0 = time.perf_counter()
        acc = 0.0
        for _ in range(args.calls // 2):
            y = x.to("cuda", non_blocking=True)
            acc += (w @ y).sum().item()
        if step >= args.warmup:
            times.append(time.perf_counter() - t0)
            (on if use_hook else off).append(times[-1])
    torch.cuda.synchronize()
    if args.alternate:
        for n in names:  # the hook's wrappers back, for whatever runs next
            setattr(torch.Tensor, n, wrapped[n])
        a, b = statistics.median(on) * 1e3, statistics.median(off) * 1e3
        print(f"hook_overhead: alternating steps: median step with the hook {a:.3f} ms, "
              f"without {b:.3f} ms: {100 * (a - b) / b:+.2f}% "
              f"({args.calls} wrapped calls a step)", flush=True)
    print(f"hook_overhead: median step {statistics.median(times) * 1e3:.3f} ms "
          f"over {len(times)} steps ({args.calls} wrapped calls a step, acc {acc:.1f})", flush=True)


if __name__ == "__main__":
    main()
