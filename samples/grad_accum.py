"""(q) Gradient accumulation: four micro-batches per optimizer step, so
one training step (what the user counts and the learning-rate schedule
sees) is four loader batches. Each micro-batch is copied from pageable
memory on the compute stream, exposed. --fix: the DataLoader pins the
batches and they are copied with non_blocking=True on a side stream. pfprof must count one
step per optimizer step, not per micro-batch."""
import torch
import torch.nn.functional as F

import sample_common as sc

ACCUMULATE = 4


def main():
    p = sc.parser(__doc__)
    p.set_defaults(steps=30, warmup=5, batch=64)
    args = p.parse_args()
    model, opt = sc.make_model()
    n = (args.warmup + args.steps) * ACCUMULATE
    ds = sc.SyntheticBatches(n, args.batch, args.res)
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=2, pin_memory=args.fix)
    copy_stream = torch.cuda.Stream() if args.fix else None
    timer = sc.StepTimer(args.warmup)
    it = iter(loader)
    for step in range(args.warmup + args.steps):
        timer.tick()
        for micro in range(ACCUMULATE):
            x, y = next(it)
            if copy_stream is not None:
                with torch.cuda.stream(copy_stream):
                    x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
                torch.cuda.current_stream().wait_stream(copy_stream)
                x.record_stream(torch.cuda.current_stream())
                y.record_stream(torch.cuda.current_stream())
            else:
                x, y = x.to("cuda"), y.to("cuda")
            loss = F.cross_entropy(model(sc.normalize(x)), y) / ACCUMULATE
            loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    timer.report("grad_accum", args.fix, f"; {ACCUMULATE} micro-batches a step")


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
