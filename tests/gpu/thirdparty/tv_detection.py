"""torchvision detection, trained from scratch on synthetic images:
fasterrcnn_resnet50_fpn(weights=None, weights_backbone=None), batches of a
list of float images and a list of target dicts (boxes, labels), from a
DataLoader with the reference scripts' collate_fn (tuple(zip(*batch))),
pin_memory=True, copied with non_blocking=True on the compute stream, as
torchvision's references/detection/train.py does."""
import torch

import tp_common as tp


class Shapes(torch.utils.data.Dataset):
    def __init__(self, n, h, w, pool=8):
        self.n = n
        g = torch.Generator().manual_seed(0)
        self.pool = []
        for i in range(pool):
            img = torch.rand(3, h, w, generator=g)
            nb = 2 + i % 4
            xy = torch.rand(nb, 2, generator=g) * torch.tensor([w * 0.6, h * 0.6])
            wh = 16 + torch.rand(nb, 2, generator=g) * torch.tensor([w * 0.3, h * 0.3])
            boxes = torch.cat([xy, xy + wh], dim=1)
            labels = torch.randint(1, 91, (nb,), generator=g)
            self.pool.append((img, {"boxes": boxes, "labels": labels}))

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return self.pool[i % len(self.pool)]


def collate_fn(batch):
    return tuple(zip(*batch))


def main():
    p = tp.parser(__doc__, steps=30, warmup=8, batch=4)
    p.add_argument("--height", type=int, default=480)
    p.add_argument("--width", type=int, default=640)
    p.add_argument("--min-size", type=int, default=800, help="the model's resize (torchvision's default)")
    p.add_argument("--max-size", type=int, default=1333)
    args = p.parse_args()
    tv = tp.need("torchvision")
    import sample_common as sc

    model = tv.models.detection.fasterrcnn_resnet50_fpn(weights=None, weights_backbone=None,
                                                        num_classes=91, min_size=args.min_size,
                                                        max_size=args.max_size).cuda()
    model.train()
    params = [q for q in model.parameters() if q.requires_grad]
    opt = torch.optim.SGD(params, lr=0.005, momentum=0.9, weight_decay=1e-4)
    ds = Shapes((args.warmup + args.steps) * args.batch, args.height, args.width)
    loader = torch.utils.data.DataLoader(ds, batch_size=args.batch, shuffle=True, num_workers=args.workers,
                                         pin_memory=True, collate_fn=collate_fn,
                                         persistent_workers=args.workers > 0)
    timer = sc.StepTimer(args.warmup)
    pinned = None
    for images, targets in loader:
        timer.tick()
        if pinned is None:
            pinned = (images[0].is_pinned(), targets[0]["boxes"].is_pinned())
        images = [img.to("cuda", non_blocking=True) for img in images]
        targets = [{k: v.to("cuda", non_blocking=True) for k, v in t.items()} for t in targets]
        loss_dict = model(images, targets)
        losses = sum(loss for loss in loss_dict.values())
        opt.zero_grad()
        losses.backward()
        opt.step()
    timer.report("tv_detection", False, f"; batch {args.batch}; pinned (image, boxes): {pinned}")


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
