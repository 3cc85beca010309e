"""(b) Pinned copies on the compute stream: the batch is pinned, but it is
copied on the same stream that runs the model, so the copy cannot overlap
any kernel. --fix: copy the next batch on a side stream while the current
one computes (the consumer waits on the copy stream, and the batch is
marked used on the compute stream)."""
import torch

import sample_common as sc


class SideStreamPrefetcher:
    def __init__(self, loader):
        self.it = iter(loader)
        self.stream = torch.cuda.Stream()
        self.next = None
        self.preload()

    def preload(self):
        try:
            x, y = next(self.it)
        except StopIteration:
            self.next = None
            return
        with torch.cuda.stream(self.stream):
            self.next = (x.to("cuda", non_blocking=True), y.to("cuda", non_blocking=True))

    def __iter__(self):
        return self

    def __next__(self):
        if self.next is None:
            raise StopIteration
        torch.cuda.current_stream().wait_stream(self.stream)
        x, y = self.next
        x.record_stream(torch.cuda.current_stream())
        y.record_stream(torch.cuda.current_stream())
        self.preload()
        return x, y


def main():
    args = sc.parser(__doc__).parse_args()
    model, opt = sc.make_model()
    ds = sc.SyntheticBatches(args.warmup + args.steps + 1, args.batch, args.res)
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=4, pin_memory=True,
                                         persistent_workers=True)
    timer = sc.StepTimer(args.warmup)
    if args.fix:
        batches = SideStreamPrefetcher(loader)
    else:
        batches = ((x.to("cuda", non_blocking=True), y.to("cuda", non_blocking=True)) for x, y in loader)
    for x, y in batches:
        timer.tick()
        sc.train_step(model, opt, sc.normalize(x), y)
    timer.report("serialized_copies", args.fix)


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
