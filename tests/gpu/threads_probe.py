#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""threads_probe.py [--seconds S]: CUDA work from two threads at once, for
tests/gpu/sample.sh's correlation-id check under `pfprof record --sample`.

The main thread launches small kernels and reads a result back
(.item(): a synchronous copy); a second thread, on its own stream,
multiplies large matrices and waits for each (cudaStreamSynchronize), so
that at almost any instant one of the two is inside a CUDA call, as
autograd's backward thread is. Each API call and the kernels it launches
must carry their own correlation id, in every recording window.
"""
import argparse
import threading
import time

import torch


def worker(stop, counts):
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x = torch.randn(4096, 4096, device="cuda")
        while not stop.is_set():
            y = x @ x
            s.synchronize()
            del y
            counts[1] += 1


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=6.0)
    a = p.parse_args()
    stop = threading.Event()
    counts = [0, 0]
    a_ = torch.randn(1024, device="cuda")
    t = threading.Thread(target=worker, args=(stop, counts), name="probe-worker")
    t.start()
    end = time.monotonic() + a.seconds
    while time.monotonic() < end:
        z = a_
        for _ in range(10):
            z = z + 1
        z.sum().item()
        counts[0] += 1
    stop.set()
    t.join()
    print(f"threads_probe: main {counts[0]} loops, worker {counts[1]} matmuls")


if __name__ == "__main__":
    main()
