#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""worker-cost.py WORKERS [--batches N] [--batch-size B]: what recording
inside the DataLoader (cli/pfprof_workers.py) costs a worker, on the CPU.

In one process, a worker's batch loop as torch runs it (indices got, each
sample loaded and passed through a Compose of 4 transforms, collate_fn,
the batch put on the queue), with every stage doing next to nothing, so
what is measured is the recording alone: the loop with the wrappers and
the per-batch row write (a file in a temporary folder, as a worker's), and
the same loop unwrapped. Prints ns per batch for each (the least of 7
interleaved rounds) and the difference per batch and per stage call. The
worst case: a real stage (decoding a JPEG, a crop) costs microseconds to
milliseconds, so the same ns are a far smaller share of it. Times are the
thread's CPU time (time.thread_time_ns).
"""
import argparse
import importlib.util
import os
import tempfile
import time


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


class Step:
    def __call__(self, x):
        return x


def load(i):
    return i


class Dataset:
    def __init__(self):
        self.loader = load
        self.transform = Compose([Step(), Step(), Step(), Step()])

    def __getitem__(self, i):
        return self.transform(self.loader(i))


class Queue:
    def put(self, r):
        pass


def loop(dataset, collate, batches, size, got=None, put=None):
    q = Queue()
    for b in range(batches):
        r = (b, list(range(b * size, b * size + size)))
        if got is not None:
            got(r)
        data = collate([dataset[i] for i in r[1]])
        q.put((b, data))
        if put is not None:
            put((b, data), time.perf_counter_ns())


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("workers")
    p.add_argument("--batches", type=int, default=2000)
    p.add_argument("--batch-size", type=int, default=32)
    args = p.parse_args()
    spec = importlib.util.spec_from_file_location("pfprof_workers", args.workers)
    pw = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pw)
    folder = tempfile.mkdtemp()
    plain, recorded = Dataset(), Dataset()
    w = pw.Worker(pw.Sink(folder, os.getpid(), 1), 0)
    w.wrap_dataset(recorded)
    collate = list
    wrapped_collate = w.wrap_collate(list)
    best = {"off": None, "on": None}
    for _ in range(7):
        for name in ("off", "on"):
            t0 = time.thread_time_ns()
            if name == "off":
                loop(plain, collate, args.batches, args.batch_size)
            else:
                loop(recorded, wrapped_collate, args.batches, args.batch_size, w.got, w.put)
            t = (time.thread_time_ns() - t0) / args.batches
            best[name] = t if best[name] is None else min(best[name], t)
    stages = args.batch_size * 5 + 1  # loader, 4 transforms a sample; collate
    extra = best["on"] - best["off"]
    size = os.path.getsize(os.path.join(folder, "%d.%d.rows" % (os.getpid(), os.getpid())))
    print(f"batch of {args.batch_size} samples, 5 stages a sample ({stages} stage calls a batch):")
    print(f"  unrecorded {best['off'] / 1000:.1f} us a batch, recorded {best['on'] / 1000:.1f} us a batch")
    print(f"  recording: {extra / 1000:.1f} us a batch, {extra / stages:.0f} ns a stage call;"
          f" {size / (7 * args.batches):.0f} bytes of rows a batch")


if __name__ == "__main__":
    main()
