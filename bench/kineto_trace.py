#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a torch.profiler (Kineto) trace of about N events for the import
benchmark, shaped like a real one (torch 2.x, with_stack=False): per step a
ProfilerStep#N range, a DataLoader __next__ wait, two pageable HtoD copies
with their cudaMemcpyAsync, and operators (cpu_op) each launching a kernel
(cudaLaunchKernel, and the ac2g flow pair from launch to kernel), with a
cudaStreamSynchronize at the end; ~250 bytes per
event as Kineto writes them (one member per line, indented).

    bench/kineto_trace.py N OUT.json[.gz]
"""
import gzip
import sys

OPS_PER_STEP = 120


def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    f = gzip.open(out, "wt", compresslevel=1) if out.endswith(".gz") else open(out, "w")
    w = f.write
    w('{\n  "schemaVersion": 1,\n  "deviceProperties": [\n    {"id": 0, "name": "NVIDIA H200", '
      '"totalGlobalMem": 150754820096, "computeMajor": 9, "computeMinor": 0, "numSms": 132}\n  ],\n'
      '  "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},\n'
      '  "displayTimeUnit": "ms", "baseTimeNanoseconds": 1767225600000000000,\n'
      '  "traceEvents": [\n')
    pid, tid, stream = 4242, 4242, 7
    t = 1000.0  # µs after baseTimeNanoseconds
    corr = 0
    events = 0
    step = 0
    first = True

    def ev(cat, name, p, td, ts, dur, args):
        nonlocal first, events
        a = ", ".join(f'"{k}": {v}' for k, v in args.items())
        w(("" if first else ",\n") +
          f'  {{\n    "ph": "X", "cat": "{cat}", "name": "{name}", "pid": {p}, "tid": {td},\n'
          f'    "ts": {ts:.3f}, "dur": {dur:.3f},\n    "args": {{\n      {a}\n    }}\n  }}')
        first = False
        events += 1

    def flow(i, ts, td, ph):
        nonlocal events
        p = pid if ph == "s" else 0
        extra = ', "bp": "e"' if ph == "f" else ""
        w(f',\n  {{\n    "ph": "{ph}", "id": {i}, "pid": {p}, "tid": {td},\n    "ts": {ts:.3f},\n'
          f'    "cat": "ac2g", "name": "ac2g"{extra}\n  }}')
        events += 1

    while events < n:
        start = t
        ev("user_annotation", f"ProfilerStep#{step}", pid, tid, start, 9000.0, {"External id": events})
        ev("cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", pid, tid,
           t + 1, 2000.0, {"External id": events})
        t += 2002
        for _ in range(2):
            corr += 1
            ev("cuda_runtime", "cudaMemcpyAsync", pid, tid, t, 40.0, {"cbid": 41, "correlation": corr})
            ev("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, stream, t + 5, 300.0,
               {"device": 0, "context": 1, "stream": stream, "correlation": corr,
                "bytes": 4194304, "memory bandwidth (GB/s)": 13.98})
            t += 310
        for i in range(OPS_PER_STEP):
            corr += 1
            ev("cpu_op", "aten::convolution", pid, tid, t, 30.0,
               {"External id": events, "Record function id": 0, "Ev Idx": i})
            ev("cuda_runtime", "cudaLaunchKernel", pid, tid, t + 10, 6.0,
               {"cbid": 211, "correlation": corr, "External id": events})
            flow(corr, t + 10, tid, "s")
            flow(corr, t + 20, stream, "f")
            ev("kernel", "void cudnn::conv_fwd_kernel<float, 128>(float const*, float*)", 0, stream,
               t + 20, 25.0,
               {"queued": 0, "device": 0, "context": 1, "stream": stream, "correlation": corr,
                "registers per thread": 64, "shared memory": 16384, "blocks per SM": 1.2,
                "warps per SM": 8.0, "grid": "[128, 1, 1]", "block": "[256, 1, 1]",
                "est. achieved occupancy %": 50})
            t += 50
        corr += 1
        ev("cuda_runtime", "cudaStreamSynchronize", pid, tid, t, 300.0, {"cbid": 131, "correlation": corr})
        ev("cuda_sync", "Stream Sync", 0, stream, t + 1, 298.0,
           {"device": 0, "context": 1, "stream": stream, "correlation": corr})
        t = start + 9010
        step += 1
        if events >= n:
            break
    w('\n  ],\n  "traceName": "bench"\n}\n')
    f.close()
    print(f"{out}: {events} events, {step} steps")


if __name__ == "__main__":
    main()
