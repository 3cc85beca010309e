"""Many small host-to-device copies a step: a tabular batch as a dict of
one pinned tensor per feature column (768 columns of 4096 float32 values,
16 KiB each, as a per-column collate makes them), each copied on its own,
so the host spends the step issuing copies and the GPU waits between
them. The model is an MLP over the stacked columns. --fix: the loader
hands out one pinned (batch, columns) tensor, copied once; same model,
same numbers."""
import torch
import torch.nn.functional as F

import sample_common as sc


class Columns(sc.SyntheticBatches):
    """Whole batches from a pool made once: a dict of columns, or (--fix)
    one tensor holding the same columns side by side (SyntheticBatches hands
    them out)."""

    def __init__(self, n, batch, columns, fused, pool=2):
        self.n = n
        g = torch.Generator().manual_seed(0)
        self.pool = []
        for _ in range(pool):
            x = torch.randn(batch, columns, generator=g)
            y = torch.randn(batch, 1, generator=g)
            if fused:
                item = (x.pin_memory(), y.pin_memory())
            else:
                item = ({f"f{i}": x[:, i].contiguous().pin_memory() for i in range(columns)}, y.pin_memory())
            self.pool.append(item)


def main():
    p = sc.parser(__doc__)
    p.add_argument("--columns", type=int, default=768, help="feature columns (one copy each without --fix)")
    p.add_argument("--hidden", type=int, default=4096)
    p.set_defaults(batch=4096)
    args = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = True
    model = torch.nn.Sequential(
        torch.nn.Linear(args.columns, args.hidden), torch.nn.ReLU(),
        torch.nn.Linear(args.hidden, args.hidden), torch.nn.ReLU(),
        torch.nn.Linear(args.hidden, 1)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    ds = Columns(args.warmup + args.steps, args.batch, args.columns, args.fix)
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=0)
    timer = sc.StepTimer(args.warmup)
    for cols, y in loader:
        timer.tick()
        if args.fix:
            x = cols.to("cuda", non_blocking=True)
        else:
            parts = [cols[f"f{i}"].to("cuda", non_blocking=True) for i in range(args.columns)]
            x = torch.stack(parts, dim=1)
        y = y.to("cuda", non_blocking=True)
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    timer.report("small_transfers", args.fix, f"; {1 if args.fix else args.columns} input copies per step")


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
