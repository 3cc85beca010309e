"""Shared parts of the pfprof samples: a small ResNet on synthetic images,
one training step, and step timing. No downloads: data are random tensors.

Each sample reproduces one input-pipeline behaviour and has a --fix flag.
Timing: the host time of each loop iteration after warm-up; the loop never
synchronizes on its own (except where that is the behaviour shown), so in
steady state an iteration lasts as long as the slower of host and GPU. The
mean over the timed window (synchronized at both ends) is printed too.
"""
import argparse
import statistics
import time

import torch
import torch.nn.functional as F


def parser(description):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--fix", action="store_true", help="run the fixed variant")
    p.add_argument("--steps", type=int, default=100, help="timed steps")
    p.add_argument("--warmup", type=int, default=20, help="untimed steps first")
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--res", type=int, default=224, help="image side in pixels")
    return p


def make_model():
    import torchvision

    # fp32 with TF32 rather than bf16 autocast: fewer, longer kernels, so
    # that the GPU, not kernel launching, sets the pace on an H200.
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    model = torchvision.models.resnet18(num_classes=100)
    model = model.cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return model, opt


MEAN = None
STD = None


def normalize(x_uint8):
    """uint8 NCHW on the GPU -> normalized float, channels_last."""
    global MEAN, STD
    if MEAN is None:
        MEAN = torch.tensor([0.485, 0.456, 0.406], device="cuda").view(1, 3, 1, 1) * 255
        STD = torch.tensor([0.229, 0.224, 0.225], device="cuda").view(1, 3, 1, 1) * 255
    x = x_uint8.float().sub_(MEAN).div_(STD)
    return x.contiguous(memory_format=torch.channels_last)


def train_step(model, opt, x, y):
    out = model(x)
    loss = F.cross_entropy(out, y)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss


class SyntheticBatches(torch.utils.data.Dataset):
    """Whole batches (batch_size=None in the DataLoader), from a small pool
    made once, so the data source costs nothing. uint8 images by default;
    another dtype gives normalized images (randn) of that dtype."""

    def __init__(self, n, batch, res, pool=4, pinned=False, dtype=torch.uint8):
        self.n = n
        g = torch.Generator().manual_seed(0)
        self.pool = []
        for _ in range(pool):
            if dtype == torch.uint8:
                x = torch.randint(0, 256, (batch, 3, res, res), dtype=torch.uint8, generator=g)
            else:
                # already normalized on the CPU
                x = torch.randn((batch, 3, res, res), generator=g).to(dtype)
            y = torch.randint(0, 100, (batch,), generator=g)
            if pinned:
                x, y = x.pin_memory(), y.pin_memory()
            self.pool.append((x, y))

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return self.pool[i % len(self.pool)]


class StepTimer:
    def __init__(self, warmup):
        self.warmup = warmup
        self.step = 0
        self.last = None
        self.times = []
        self.t0 = None

    def tick(self):
        """Call once per step, at the start of the step."""
        now = time.perf_counter()
        if self.step == self.warmup:
            torch.cuda.synchronize()
            now = time.perf_counter()
            self.t0 = now
        elif self.step > self.warmup:
            self.times.append(now - self.last)
        self.last = now
        self.step += 1

    def report(self, name, fix, extra=""):
        torch.cuda.synchronize()
        total = time.perf_counter() - self.t0
        n = max(1, self.step - self.warmup)
        med = statistics.median(self.times) * 1e3 if self.times else float("nan")
        print(f"{name} {'--fix' if fix else '(no fix)'}: median step {med:.2f} ms, "
              f"mean {total / n * 1e3:.2f} ms over {n} timed steps{extra}", flush=True)
# SPDX-License-Identifier: MIT
