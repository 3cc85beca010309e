# SPDX-License-Identifier: MIT
"""Pageable host-to-device copies from one known line (the one marked
PAGEABLE COPY), for tests/gpu/sites.sh's launch checks: the report's
pageable-transfer finding must name this file at that line however the
program was started (`python -m sitespkg.pageable_loop`, torchrun, a
script that calls os.chdir first: --chdir DIR). A DataLoader without
pin_memory hands out a 64 MiB float32 batch from a pool made once, an MLP
trains on it."""
import argparse
import os

import torch


def train(steps, chdir):
    if chdir:
        os.chdir(chdir)   # relative paths the hook saw at start now point elsewhere
    torch.backends.cuda.matmul.allow_tf32 = True
    model = torch.nn.Sequential(torch.nn.Linear(4096, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-4)
    g = torch.Generator().manual_seed(0)
    pool = [(torch.randn(4096, 4096, generator=g), torch.randn(4096, 1, generator=g)) for _ in range(2)]
    loader = torch.utils.data.DataLoader([pool[i % 2] for i in range(steps)], batch_size=None, num_workers=0)
    for x, y in loader:
        x = x.to("cuda", non_blocking=True)  # PAGEABLE COPY
        y = y.to("cuda", non_blocking=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    print(f"pageable_loop: {steps} steps, cwd {os.getcwd()}, rank {os.environ.get('RANK', '-')}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--chdir", default=None, help="os.chdir(DIR) before the loop")
    args = p.parse_args()
    train(args.steps, args.chdir)


if __name__ == "__main__":
    main()
