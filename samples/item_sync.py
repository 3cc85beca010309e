"""(f) A .item() every step: logging the loss as a Python float copies it
to the host and synchronizes the stream each step, so the CPU can never
queue the next step ahead of the GPU. --fix: keep the running loss on the
GPU and read it once every 50 steps."""
import torch

import sample_common as sc


def main():
    args = sc.parser(__doc__).parse_args()
    model, opt = sc.make_model()
    ds = sc.SyntheticBatches(args.warmup + args.steps, args.batch, args.res)
    # Pinned and copied asynchronously: only the .item() is wrong here.
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=4, pin_memory=True,
                                         persistent_workers=True)
    timer = sc.StepTimer(args.warmup)
    running = torch.zeros((), device="cuda")
    logged = 0.0
    for step, (x, y) in enumerate(loader):
        timer.tick()
        x = sc.normalize(x.to("cuda", non_blocking=True))
        loss = sc.train_step(model, opt, x, y.to("cuda", non_blocking=True))
        if args.fix:
            running += loss.detach()
            if step % 50 == 49:
                logged = running.item() / 50
                running.zero_()
        else:
            logged = loss.item()
    timer.report("item_sync", args.fix, f"; last logged loss {logged:.3f}")


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
