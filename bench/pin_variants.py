# SPDX-License-Identifier: MIT
"""How fast can batches that arrive pageable be pinned beside the loop?
samples/side_stream_pageable.py's step (154 MB float32 batches, copied on a
side stream one step ahead, ResNet-18 at 112 px) fed in turn, in one
process, by each way of pinning, so that the comparison is free of what
differs between processes (on the H200 a bare run of this step moves by
±15% from one process to the next):

  own             the pool pinned once when it is made (the sample's --fix):
                  no pin on any thread during the loop
  tNdD            a thread pinning each batch with x.pin_memory(), N intra-op
                  threads, D batches ahead (t<loop's>d1 is `pfprof try`'s
                  pin-memory thread on a DataLoader without workers)
  2x tN d1        two such threads, taking every other batch

It prints first the time one pin_memory() of a batch takes, and a copy_
into one pinned buffer made once, alone, for 1 to 16 intra-op threads;
then each variant's median step, the median of ROTATIONS blocks of STEPS
steps each (after WARMUP steps per block), the variants' order reversed
every other rotation.

    python3 bench/pin_variants.py [--rotations 6] [--steps 27] [--warmup 8]

Needs torch, torchvision and a GPU; run from the repository root."""
import argparse
import queue
import statistics
import sys
import threading
import time

sys.path.insert(0, "samples")
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import sample_common as sc  # noqa: E402
from serialized_copies import SideStreamPrefetcher  # noqa: E402


def pin_alone(pool):
    loop_threads = torch.get_num_threads()
    buf = torch.empty_like(pool[0][0]).pin_memory()
    for k in (1, 2, 4, 8, 16):
        torch.set_num_threads(k)
        pins, copies = [], []
        for i in range(8):
            t = time.perf_counter()
            p = pool[i % len(pool)][0].pin_memory()
            pins.append(time.perf_counter() - t)
            del p
            t = time.perf_counter()
            buf.copy_(pool[i % len(pool)][0])
            copies.append(time.perf_counter() - t)
        print(f"{k:2d} threads: pin_memory() {statistics.median(pins[2:]) * 1e3:.2f} ms, "
              f"copy_ into a pinned buffer {statistics.median(copies[2:]) * 1e3:.2f} ms", flush=True)
    torch.set_num_threads(loop_threads)


def pinned_once(pinned, n):
    for i in range(n):
        yield pinned[i % len(pinned)]


def pinned_by_threads(pool, n, threads, depth, workers=1):
    queues = [queue.Queue(maxsize=depth) for _ in range(workers)]

    def run(j):
        torch.set_num_threads(threads)
        torch.cuda.set_device(0)
        for i in range(j, n, workers):
            x, y = pool[i % len(pool)]
            queues[j].put((x.pin_memory(), y.pin_memory()))

    for j in range(workers):
        threading.Thread(target=run, args=(j,), daemon=True).start()
    for i in range(n):
        yield queues[i % workers].get()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rotations", type=int, default=6)
    p.add_argument("--steps", type=int, default=27, help="timed steps per block")
    p.add_argument("--warmup", type=int, default=8, help="untimed steps per block")
    args = p.parse_args()
    g = torch.Generator().manual_seed(0)
    pool = [(torch.randn((256, 3, 224, 224), generator=g), torch.randint(0, 100, (256,), generator=g))
            for _ in range(4)]
    pinned = [(x.pin_memory(), y.pin_memory()) for x, y in pool]
    t = torch.get_num_threads()
    print(f"the loop's intra-op threads: {t}", flush=True)
    pin_alone(pool)
    variants = {
        "own": lambda n: pinned_once(pinned, n),
        f"t{t}d1": lambda n: pinned_by_threads(pool, n, t, 1),
        "t8d1": lambda n: pinned_by_threads(pool, n, 8, 1),
        "t4d1": lambda n: pinned_by_threads(pool, n, 4, 1),
        f"t{t}d2": lambda n: pinned_by_threads(pool, n, t, 2),
        "2x t8 d1": lambda n: pinned_by_threads(pool, n, 8, 1, 2),
        "2x t4 d1": lambda n: pinned_by_threads(pool, n, 4, 1, 2),
    }
    model, opt = sc.make_model()
    blocks = {name: [] for name in variants}
    n = args.warmup + args.steps
    for rotation in range(-1, args.rotations):   # -1: a rotation to warm up
        order = list(variants.items())
        for name, make in (order if rotation % 2 else reversed(order)):
            timer = sc.StepTimer(args.warmup)
            for x, y in SideStreamPrefetcher(make(n)):
                timer.tick()
                x = F.avg_pool2d(x, 2).contiguous(memory_format=torch.channels_last)
                sc.train_step(model, opt, x, y)
            torch.cuda.synchronize()
            if rotation >= 0:
                blocks[name].append(statistics.median(timer.times) * 1e3)
    for name, v in blocks.items():
        print(f"{name:9s} median step {statistics.median(v):6.2f} ms; blocks "
              + " ".join(f"{b:.2f}" for b in v), flush=True)


if __name__ == "__main__":
    main()
