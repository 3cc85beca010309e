"""(c) The good baseline: pinned batches copied on a side stream one step
ahead (the apex/timm prefetcher pattern), with plenty of GPU memory. The
copies overlap compute; nothing waits. --fix is accepted and changes
nothing (this is already the fix)."""
import torch

import sample_common as sc
from serialized_copies import SideStreamPrefetcher


def main():
    args = sc.parser(__doc__).parse_args()
    model, opt = sc.make_model()
    ds = sc.SyntheticBatches(args.warmup + args.steps + 1, args.batch, args.res)
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=4, pin_memory=True,
                                         persistent_workers=True)
    timer = sc.StepTimer(args.warmup)
    for x, y in SideStreamPrefetcher(loader):
        timer.tick()
        sc.train_step(model, opt, sc.normalize(x), y)
    timer.report("side_stream_prefetch", args.fix)


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
