# SPDX-License-Identifier: MIT
"""Training-step workload of the overhead benchmark: torchvision ResNet-50 on synthetic
data, bf16 autocast, batch 256 at 224 px, SGD with momentum, and the next
batch copied ahead from pinned memory on a side stream.

Timing: host time of each step, from its start to a torch.cuda.synchronize()
at its end (one sync per step, as a per-step loss.item() would do). So a
step's time is the GPU's time for it plus whatever the host adds before
the GPU has work (launch latency at the start of the step, any profiler
cost that makes the host fall behind the GPU). The copy of the next batch,
issued at the start of a step on the side stream, overlaps that step's
compute; the compute stream waits on it (wait_stream) only when the batch
is used, one step later.

Prints `resnet50_step: median step X ms ...` (and the spread) like the
other bench scripts. --profiler torch runs the same loop (warm-up and timed
steps) inside torch.profiler.profile(activities=[CPU, CUDA]), exports its
default chrome trace to --trace-out and prints that file's size and its
number of events (len(traceEvents)). With --alternate [hook|pfprof]
(bench/step_alternation.py), under `pfprof record`, the timed steps
alternate in one process between the Python hook's wrappers and the
methods they wrap (hook), or between the whole profiler recording and
paused (pfprof, under --capture-range=cuda-profiler-api), and it also
prints `alternating WHAT on/off, ...: median step on A ms, off B ms: cost
+P% (N pairs, ...)`.
"""
import argparse
import statistics

import torch
import torch.nn.functional as F

import profiler_torch
import step_alternation


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=150, help="timed steps")
    p.add_argument("--warmup", type=int, default=20, help="untimed steps first")
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--res", type=int, default=224, help="image side in pixels")
    step_alternation.add_arguments(p)
    profiler_torch.add_arguments(p)
    args = p.parse_args()
    if args.steps < 1 or args.warmup < 0 or args.batch < 1 or args.res < 32:
        p.error("need --steps >= 1, --warmup >= 0, --batch >= 1, --res >= 32")
    return args


class PinnedPrefetcher:
    """Batches from a small pool of pinned host tensors; batch i+1 is copied
    on a side stream while step i computes. The device buffer is allocated
    on the compute stream and the side stream waits for the compute stream
    before writing it (no record_stream), so the caching allocator never
    hands the copy memory that compute still reads."""

    def __init__(self, batch, res, pool=2):
        g = torch.Generator().manual_seed(0)
        self.pool = []
        for _ in range(pool):
            x = torch.randint(0, 256, (batch, 3, res, res), dtype=torch.uint8, generator=g)
            y = torch.randint(0, 1000, (batch,), generator=g)
            self.pool.append((x.pin_memory(), y.pin_memory()))
        self.stream = torch.cuda.Stream()
        self.i = 0
        self.next = self._issue()

    def _issue(self):
        xh, yh = self.pool[self.i % len(self.pool)]
        self.i += 1
        compute = torch.cuda.current_stream()
        x = torch.empty(xh.shape, dtype=xh.dtype, device="cuda")
        y = torch.empty(yh.shape, dtype=yh.dtype, device="cuda")
        self.stream.wait_stream(compute)
        with torch.cuda.stream(self.stream):
            x.copy_(xh, non_blocking=True)
            y.copy_(yh, non_blocking=True)
        return x, y

    def get(self):
        """The batch copied during the previous step; starts the next copy."""
        torch.cuda.current_stream().wait_stream(self.stream)
        batch = self.next
        self.next = self._issue()
        return batch


def main():
    args = parse_args()
    alt = step_alternation.from_args(args, "resnet50_step")
    import torchvision

    torch.backends.cudnn.benchmark = True
    model = torchvision.models.resnet50(num_classes=1000)
    model = model.cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    mean = torch.tensor([0.485, 0.456, 0.406], device="cuda").view(1, 3, 1, 1) * 255
    std = torch.tensor([0.229, 0.224, 0.225], device="cuda").view(1, 3, 1, 1) * 255
    data = PinnedPrefetcher(args.batch, args.res)
    torch.cuda.synchronize()

    def step():
        x, y = data.get()
        x = x.float().sub_(mean).div_(std).contiguous(memory_format=torch.channels_last)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    times = []

    def timed_step(i):
        step()
        torch.cuda.synchronize()

    def loop():
        times.extend(step_alternation.timed_steps(timed_step, args.warmup, args.steps, alt))

    profiler_torch.run(loop, args)
    if alt is not None:
        alt.report()
    ms = sorted(t * 1e3 for t in times)
    q = statistics.quantiles(ms, n=10) if len(ms) >= 2 else [ms[0]] * 9
    print(f"resnet50_step: median step {statistics.median(ms):.3f} ms, mean {statistics.fmean(ms):.3f}, "
          f"p10 {q[0]:.3f}, p90 {q[8]:.3f}, min {ms[0]:.3f}, max {ms[-1]:.3f} over {len(ms)} steps "
          f"(batch {args.batch}, {args.res} px, bf16 autocast)", flush=True)
    profiler_torch.report(args)


if __name__ == "__main__":
    main()
