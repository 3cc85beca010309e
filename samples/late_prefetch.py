"""Late prefetch: the batch is copied on a side stream, but only when the
step that needs it begins. The copy stream first waits for the compute
stream (so that the new buffer is written only after the work queued
before it, the usual safe pattern), then the compute stream waits for the
copy: the copy overlaps nothing, and the GPU idles for it every step,
however far the host runs ahead. The batches are normalized float32
images (154 MB at batch 256), pinned, from a pool made once; the model
trains at half resolution (a 2x average-pool on the GPU), so the copy is
a sizeable part of the step. --fix: the same copy, issued one step ahead
(batch N+1's copy is queued before step N's kernels, so it runs beside
them)."""
import torch
import torch.nn.functional as F

import sample_common as sc


class Copier:
    def __init__(self):
        self.stream = torch.cuda.Stream()

    def to_gpu(self, batch):
        """Queues the copy of a pinned (x, y) on the side stream."""
        compute = torch.cuda.current_stream()
        gpu = [torch.empty_like(t, device="cuda") for t in batch]
        self.stream.wait_stream(compute)
        with torch.cuda.stream(self.stream):
            for g, t in zip(gpu, batch):
                g.copy_(t, non_blocking=True)
        return gpu

    def ready(self):
        torch.cuda.current_stream().wait_stream(self.stream)


def late(loader, c):
    for batch in loader:
        x, y = c.to_gpu(batch)   # copied only now that the step needs it
        c.ready()
        yield x, y


def ahead(loader, c):
    it = iter(loader)
    try:
        nxt = c.to_gpu(next(it))
    except StopIteration:
        return
    for batch in it:
        c.ready()
        cur, nxt = nxt, c.to_gpu(batch)   # batch N+1's copy, queued before step N
        yield cur
    c.ready()
    yield nxt


def main():
    args = sc.parser(__doc__).parse_args()
    model, opt = sc.make_model()
    ds = sc.SyntheticBatches(args.warmup + args.steps, args.batch, args.res, pinned=True,
                             dtype=torch.float32)
    # num_workers=0: the pool is pinned already, the loader only hands it out.
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=0)
    c = Copier()
    timer = sc.StepTimer(args.warmup)
    for x, y in (ahead if args.fix else late)(loader, c):
        timer.tick()
        x = F.avg_pool2d(x, 2).contiguous(memory_format=torch.channels_last)
        sc.train_step(model, opt, x, y)
    timer.report("late_prefetch", args.fix)


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
