"""(p) Train and validate every epoch, as real training programs do: a
validation pass with its own loader after each epoch (model.eval(),
torch.no_grad(), a larger eval batch, so cuDNN's autotuning with
cudnn.benchmark=True runs again for the new shapes). The training loop
itself has no input problem; the batches come from pageable memory and
are copied on the compute stream (copies exposed every step). --fix: a
side-stream prefetcher of batches the DataLoader pins (apex's data_prefetcher), so the
copies overlap the previous step's kernels. pfprof must judge the
training steps alone and report validation as its own phase."""
import time

import torch

import sample_common as sc


class Prefetcher:
    """Copies the next batch on a side stream while this one trains."""

    def __init__(self, loader):
        self.it = iter(loader)
        self.stream = torch.cuda.Stream()
        self.preload()

    def preload(self):
        try:
            x, y = next(self.it)
        except StopIteration:
            self.next = None
            return
        with torch.cuda.stream(self.stream):
            self.next = (x.cuda(non_blocking=True), y.cuda(non_blocking=True))

    def __iter__(self):
        return self

    def __next__(self):
        torch.cuda.current_stream().wait_stream(self.stream)
        if self.next is None:
            raise StopIteration
        x, y = self.next
        x.record_stream(torch.cuda.current_stream())
        y.record_stream(torch.cuda.current_stream())
        self.preload()
        return x, y


def batches(loader, prefetch):
    if prefetch:
        return Prefetcher(loader)
    return ((x.to("cuda", non_blocking=True), y.to("cuda", non_blocking=True)) for x, y in loader)


def validate(model, loader, prefetch):
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in batches(loader, prefetch):
            out = model(sc.normalize(x))
            correct += (out.argmax(1) == y).sum()
    model.train()
    return correct.item()


def main():
    p = sc.parser(__doc__)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--val-steps", type=int, default=10, help="validation batches per epoch")
    p.set_defaults(steps=40, warmup=5, batch=128)
    args = p.parse_args()
    model, opt = sc.make_model()
    per_epoch = (args.warmup + args.steps) // args.epochs
    train_ds = sc.SyntheticBatches(per_epoch, args.batch, args.res)
    val_ds = sc.SyntheticBatches(args.val_steps, args.batch * 2, args.res)
    train_loader = torch.utils.data.DataLoader(train_ds, batch_size=None, num_workers=2,
                                               pin_memory=args.fix)
    val_loader = torch.utils.data.DataLoader(val_ds, batch_size=None, num_workers=2,
                                             pin_memory=args.fix)
    timer = sc.StepTimer(args.warmup)
    val_s = 0.0
    for epoch in range(args.epochs):
        for x, y in batches(train_loader, args.fix):
            timer.tick()
            sc.train_step(model, opt, sc.normalize(x), y)
        torch.cuda.synchronize()
        t = time.perf_counter()
        validate(model, val_loader, args.fix)
        val_s += time.perf_counter() - t
        # The validation pass is no training step: restart the step clock.
        timer.last = time.perf_counter()
    timer.report("train_validate", args.fix, f"; validation {val_s * 1e3:.0f} ms in all")


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
