"""Host-bound: a model of many small heads, each run as its own few tiny
kernels from a Python loop (64 heads of a 64 -> 256 -> 64 MLP on a
512-sample batch), so every step is thousands of small kernel launches
and autograd nodes and the GPU waits for the host between them. The input
is clean: pinned batches from a pool made once, copied on a side stream
one step ahead. --fix: the same model, loss, backward and optimizer step
captured once in a CUDA graph (torch.cuda.CUDAGraph, static input
buffers) and replayed every step: the same kernels, one launch a step.
--fix-batched: the earlier fix, the heads as batched matrix products over
stacked weights (torch.bmm), a few large kernels a step; same math, same
initial weights, but other (and far less) GPU work."""
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


class GraphedStep:
    """One training step (forward, loss, backward, optimizer step) captured
    in a CUDA graph, as in PyTorch's whole-network capture example: warmed
    up on a side stream first, gradients set to None before the capture so
    backward allocates them from the graph's pool, the batch copied into
    static buffers before each replay."""

    def __init__(self, model, opt, x, y):
        self.x = torch.empty_like(x)
        self.y = torch.empty_like(y)
        self.x.copy_(x)
        self.y.copy_(y)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                opt.zero_grad(set_to_none=True)
                F.mse_loss(model(self.x), self.y).backward()
                opt.step()
        torch.cuda.current_stream().wait_stream(s)
        self.graph = torch.cuda.CUDAGraph()
        opt.zero_grad(set_to_none=True)
        with torch.cuda.graph(self.graph):
            self.loss = F.mse_loss(model(self.x), self.y)
            self.loss.backward()
            opt.step()

    def __call__(self, x, y):
        self.x.copy_(x, non_blocking=True)
        self.y.copy_(y, non_blocking=True)
        self.graph.replay()
        return self.loss


def main():
    p = sc.parser(__doc__)
    p.add_argument("--fix-batched", action="store_true",
                   help="the heads as torch.bmm over stacked weights instead of a CUDA graph")
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
    model = (BatchedHeads(w1, w2) if args.fix_batched else LoopHeads(w1, w2)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    ds = sc.SyntheticBatches(args.warmup + args.steps + 1, 1, 1, pool=1)
    pool = []
    for _ in range(4):
        pool.append((torch.randn(args.batch, H, D, generator=g).pin_memory(),
                     torch.randn(args.batch, H, D, generator=g).pin_memory()))
    ds.pool = pool
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=0)
    timer = sc.StepTimer(args.warmup)
    step = None
    loss = None
    for x, y in SideStreamPrefetcher(loader):
        timer.tick()
        if args.fix and not args.fix_batched:
            if step is None:
                step = GraphedStep(model, opt, x, y)
            loss = step(x, y)
            continue
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    how = "batched" if args.fix_batched else "one at a time, CUDA graph" if args.fix else "one at a time"
    timer.report("host_bound", args.fix or args.fix_batched, f"; {H} heads, {how}")


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
