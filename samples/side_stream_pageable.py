"""Side-stream copies from pageable memory: the batch is copied on a side
stream one step ahead (the prefetcher of serialized_copies.py), but it is
not pinned, so each copy is staged by the driver through a pinned buffer
while the host waits, and the prefetch hides nothing. The batches are
normalized float32 images (154 MB at batch 256) from a pool made once (as
DataLoader(pin_memory=False) hands them out); the model trains at half
resolution (a 2x average-pool on the GPU), so the copy is a sizeable part
of the step. --fix: the pool is pinned when it is made, so the batches
arrive pinned and the same prefetcher overlaps the copy with compute.
--fix-loader: the pool stays pageable and DataLoader(pin_memory=True)
pins each batch as it hands it out: with no workers, on the loop's own
thread, a host copy of the 154 MB batch every step."""
import torch
import torch.nn.functional as F

import sample_common as sc
from serialized_copies import SideStreamPrefetcher


def main():
    p = sc.parser(__doc__)
    p.add_argument("--fix-loader", action="store_true",
                   help="pageable pool, DataLoader(pin_memory=True) pins each batch")
    args = p.parse_args()
    model, opt = sc.make_model()
    ds = sc.SyntheticBatches(args.warmup + args.steps + 1, args.batch, args.res, pinned=args.fix,
                             dtype=torch.float32)
    # num_workers=0: the pool is made once; only its pinning differs.
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=0, pin_memory=args.fix_loader)
    timer = sc.StepTimer(args.warmup)
    for x, y in SideStreamPrefetcher(loader):
        timer.tick()
        x = F.avg_pool2d(x, 2).contiguous(memory_format=torch.channels_last)
        sc.train_step(model, opt, x, y)
    timer.report("side_stream_pageable", args.fix or args.fix_loader, " (--fix-loader)" if args.fix_loader else "")


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
