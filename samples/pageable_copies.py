"""(a) Pageable host-to-device copies: the DataLoader does not pin memory,
so every batch copy is staged by the driver through a pinned buffer and the
host waits for it. --fix: pin_memory=True, then non_blocking copies are
real asynchronous DMA from pinned memory."""
import torch

import sample_common as sc


def main():
    args = sc.parser(__doc__).parse_args()
    model, opt = sc.make_model()
    ds = sc.SyntheticBatches(args.warmup + args.steps, args.batch, args.res)
    loader = torch.utils.data.DataLoader(ds, batch_size=None, shuffle=False, num_workers=4,
                                         pin_memory=args.fix, persistent_workers=True)
    timer = sc.StepTimer(args.warmup)
    for x, y in loader:
        timer.tick()
        x = sc.normalize(x.to("cuda", non_blocking=True))
        y = y.to("cuda", non_blocking=True)
        sc.train_step(model, opt, x, y)
    timer.report("pageable_copies", args.fix)


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
