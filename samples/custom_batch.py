"""A custom batch type that PyTorch cannot pin: a collate_fn returns a
DetectionBatch holding a list of image tensors and a list of dicts of
targets (boxes, labels), as detection code does. DataLoader(pin_memory=True)
pins tensors, sequences and mappings, and otherwise calls the batch's own
pin_memory() if it has one; this class has none, so nothing is pinned and
every image and target is copied from pageable memory: each copy is
staged through a driver buffer while the host waits. --fix: the same class
with a pin_memory() method (pins every tensor it holds and returns
itself), which the DataLoader's pin thread calls."""
import torch
import torch.nn.functional as F

import sample_common as sc


class DetectionBatch:
    """A list of (3, H, W) uint8 images and a list of target dicts."""

    def __init__(self, images, targets):
        self.images = images
        self.targets = targets

    def to(self, device):
        return ([img.to(device, non_blocking=True) for img in self.images],
                [{k: v.to(device, non_blocking=True) for k, v in t.items()} for t in self.targets])


class PinnableDetectionBatch(DetectionBatch):
    def pin_memory(self):
        self.images = [img.pin_memory() for img in self.images]
        self.targets = [{k: v.pin_memory() for k, v in t.items()} for t in self.targets]
        return self


def collate(samples):
    return DetectionBatch([s[0] for s in samples], [s[1] for s in samples])


def collate_pinnable(samples):
    return PinnableDetectionBatch([s[0] for s in samples], [s[1] for s in samples])


class Images(sc.SyntheticBatches):
    """(image, {"boxes": (N, 4) float, "labels": (N,) int64}) samples from a
    pool (SyntheticBatches hands them out)."""

    def __init__(self, n, res, pool=8):
        self.n = n
        g = torch.Generator().manual_seed(0)
        self.pool = []
        for i in range(pool):
            img = torch.randint(0, 256, (3, res, res), dtype=torch.uint8, generator=g)
            nb = 3 + i % 5
            xy = torch.rand(nb, 2, generator=g) * res * 0.5
            boxes = torch.cat([xy, xy + res * 0.25], dim=1)
            labels = torch.randint(0, 100, (nb,), generator=g)
            self.pool.append((img, {"boxes": boxes, "labels": labels}))


def main():
    p = sc.parser(__doc__)
    p.set_defaults(batch=32, res=512)
    args = p.parse_args()
    model, opt = sc.make_model()
    ds = Images((args.warmup + args.steps) * args.batch, args.res)
    loader = torch.utils.data.DataLoader(ds, batch_size=args.batch, num_workers=4, pin_memory=True,
                                         persistent_workers=True,
                                         collate_fn=collate_pinnable if args.fix else collate)
    timer = sc.StepTimer(args.warmup)
    n_boxes = 0
    for batch in loader:
        timer.tick()
        images, targets = batch.to("cuda")
        x = sc.normalize(torch.stack(images))
        # image-level label: the first box's class (a detector would use all)
        y = torch.stack([t["labels"][0] for t in targets])
        n_boxes = sum(int(t["boxes"].shape[0]) for t in targets)
        sc.train_step(model, opt, x, y)
    pinned = bool(batch.images[0].is_pinned()) if hasattr(batch, "images") else False
    timer.report("custom_batch", args.fix, f"; images pinned: {pinned}; {n_boxes} boxes in the last batch")


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
