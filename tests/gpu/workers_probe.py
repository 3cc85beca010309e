# SPDX-License-Identifier: MIT
"""workers_probe.py START_METHOD: a small training loop whose DataLoader
has 2 workers started by START_METHOD, a Compose of two transforms (one
slow on purpose), pin_memory=True, on the GPU; run under `pfprof record`
by tests/gpu/workers.sh. Prints a digest of the batches it got, so a run
with the worker recording and one without can be compared."""
import hashlib
import sys
import time

import torch
import torch.utils.data as tud


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


class Scale:
    def __call__(self, x):
        return x * 0.5


class SlowNoise:
    """About 2 ms of CPU a sample, no sleep."""

    def __call__(self, x):
        end = time.perf_counter() + 0.002
        while time.perf_counter() < end:
            pass
        return x + 1


class Items(tud.Dataset):
    def __init__(self, n):
        self.n = n
        self.transform = Compose([Scale(), SlowNoise()])

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return self.transform(torch.rand(3, 64, 64, generator=g)), i % 10


def main():
    method = sys.argv[1]
    loader = tud.DataLoader(Items(512), batch_size=16, num_workers=2, pin_memory=True,
                            multiprocessing_context=method, persistent_workers=True)
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 64 * 64, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    digest = hashlib.sha256()
    for epoch in range(2):
        for x, y in loader:
            digest.update(x.numpy().tobytes())
            x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    torch.cuda.synchronize()
    print(digest.hexdigest())


if __name__ == "__main__":
    main()
