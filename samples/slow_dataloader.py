"""(e) A DataLoader too slow for the GPU: every sample goes through an
expensive CPU transform and only two workers share the work, so the
training loop waits in next() while the GPU idles. --fix: more workers
(persistent, deeper prefetch)."""
import numpy as np
import torch

import sample_common as sc


class SlowImages(torch.utils.data.Dataset):
    def __init__(self, n, res, work):
        self.n, self.res, self.work = n, res, work
        rng = np.random.default_rng(0)
        self.pool = [rng.integers(0, 256, (res, res, 3), dtype=np.uint8) for _ in range(8)]

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        img = self.pool[i % len(self.pool)]
        # Stand-in for decode + augmentation: a few full-image passes.
        f = img.astype(np.float32)
        for _ in range(self.work):
            f = np.sqrt(f * 1.0001 + 1.0)
        img = np.clip(f, 0, 255).astype(np.uint8)
        return torch.from_numpy(img).permute(2, 0, 1).contiguous(), i % 100


def main():
    p = sc.parser(__doc__)
    p.add_argument("--work", type=int, default=3, help="CPU passes per image")
    p.add_argument("--workers", type=int, default=None)
    p.set_defaults(batch=128)
    args = p.parse_args()
    model, opt = sc.make_model()
    workers = args.workers or (12 if args.fix else 2)
    ds = SlowImages((args.warmup + args.steps) * args.batch, args.res, args.work)
    loader = torch.utils.data.DataLoader(ds, batch_size=args.batch, num_workers=workers, pin_memory=True,
                                         persistent_workers=True,
                                         prefetch_factor=4 if args.fix else 2)
    timer = sc.StepTimer(args.warmup)
    for x, y in loader:
        timer.tick()
        x = sc.normalize(x.to("cuda", non_blocking=True))
        sc.train_step(model, opt, x, y.to("cuda", non_blocking=True))
    timer.report("slow_dataloader", args.fix, f"; {workers} workers")


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
