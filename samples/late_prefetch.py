"""Late prefetch: the batch is copied on a side stream, but only when the
step that needs it begins, so the compute stream waits for the whole copy
every step (prefetch depth zero). The batches are normalized float32
images (154 MB at batch 256), pinned, from a pool made once; the model
trains at half resolution (a 2x average-pool on the GPU), so the copy is a
sizeable part of the step. --fix: issue the copy of batch N+1 before
running step N (the side-stream prefetcher of serialized_copies.py)."""
import torch
import torch.nn.functional as F

import sample_common as sc
from serialized_copies import SideStreamPrefetcher


def late_copies(loader):
    """Copy on a side stream, then wait for it at once: nothing overlaps."""
    stream = torch.cuda.Stream()
    for x, y in loader:
        with torch.cuda.stream(stream):
            xg, yg = x.to("cuda", non_blocking=True), y.to("cuda", non_blocking=True)
        torch.cuda.current_stream().wait_stream(stream)
        xg.record_stream(torch.cuda.current_stream())
        yg.record_stream(torch.cuda.current_stream())
        yield xg, yg


def main():
    args = sc.parser(__doc__).parse_args()
    model, opt = sc.make_model()
    ds = sc.SyntheticBatches(args.warmup + args.steps + 1, args.batch, args.res, pinned=True,
                             dtype=torch.float32)
    # num_workers=0: the pool is pinned already, the loader only hands it out.
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=0)
    batches = SideStreamPrefetcher(loader) if args.fix else late_copies(loader)
    timer = sc.StepTimer(args.warmup)
    for x, y in batches:
        timer.tick()
        x = F.avg_pool2d(x, 2).contiguous(memory_format=torch.channels_last)
        sc.train_step(model, opt, x, y)
    timer.report("late_prefetch", args.fix)


if __name__ == "__main__":
    main()
