"""Host-bound: a model of many small heads, each run as its own few tiny
kernels from a Python loop (64 heads of a 64 -> 256 -> 64 MLP on a
512-sample batch), so every step is thousands of small kernel launches
and autograd nodes and the GPU waits for the host between them. The input
is clean: pinned batches from a pool made once, copied on a side stream
one step ahead. --fix: the same heads as batched matrix products over
stacked weights (torch.bmm), a few large kernels a step; same math, same
initial weights."""
import torch
import torch.nn.functional as F

import sample_common as sc
from serialized_copies import SideStreamPrefetcher


class LoopHeads(torch.nn.Module):
    def __init__(self, w1, w2):
        super().__init__()
        self.w1 = torch.nn.ParameterList([torch.nn.Parameter(w.clone()) for w in w1])
        self.w2 = torch.nn.ParameterList([torch.nn.Parameter(w.clone()) for w in w2])

    def forward(self, x):                  # x: (B, H, D)
        outs = []
        for h in range(len(self.w1)):
            outs.append(torch.tanh(x[:, h] @ self.w1[h]) @ self.w2[h])
        return torch.stack(outs, dim=1)    # (B, H, D)


class BatchedHeads(torch.nn.Module):
    def __init__(self, w1, w2):
        super().__init__()
        self.w1 = torch.nn.Parameter(w1.clone())   # (H, D, F)
        self.w2 = torch.nn.Parameter(w2.clone())   # (H, F, D)

    def forward(self, x):                  # x: (B, H, D)
        xh = x.transpose(0, 1)             # (H, B, D)
        return torch.bmm(torch.tanh(torch.bmm(xh, self.w1)), self.w2).transpose(0, 1)


def main():
    p = sc.parser(__doc__)
    p.add_argument("--heads", type=int, default=64)
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--hidden", type=int, default=256)
    p.set_defaults(batch=512)
    args = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = True
    H, D, Fh = args.heads, args.dim, args.hidden
    g = torch.Generator().manual_seed(0)
    w1 = torch.randn(H, D, Fh, generator=g) / D ** 0.5
    w2 = torch.randn(H, Fh, D, generator=g) / Fh ** 0.5
    model = (BatchedHeads(w1, w2) if args.fix else LoopHeads(w1, w2)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    ds = sc.SyntheticBatches(args.warmup + args.steps + 1, 1, 1, pool=1)
    pool = []
    for _ in range(4):
        pool.append((torch.randn(args.batch, H, D, generator=g).pin_memory(),
                     torch.randn(args.batch, H, D, generator=g).pin_memory()))
    ds.pool = pool
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=0)
    timer = sc.StepTimer(args.warmup)
    loss = None
    for x, y in SideStreamPrefetcher(loader):
        timer.tick()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    timer.report("host_bound", args.fix, f"; {H} heads, {'batched' if args.fix else 'one at a time'}")


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
