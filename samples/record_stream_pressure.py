"""(d) A record_stream prefetcher under memory pressure. Each step copies a
large pinned batch on a side stream and calls record_stream on the compute
stream; the CPU runs ahead of the GPU. The caching allocator cannot reuse a
freed batch until its recorded event completes, so under a memory limit it
synchronizes every outstanding event, frees its cache and allocates again
(torch.cuda.memory_stats: num_alloc_retries, num_sync_all_streams).
--fix: no record_stream and no allocation per step: two device buffers
made once, used in turn; the copy into one waits only for the event that
marks the end of the step that last read it, so copies still overlap
compute. (Allocating on the compute stream and making the copy stream
wait_stream the compute stream also ends the stalls, but it serializes
each copy after all earlier compute.)"""
import torch

import sample_common as sc


def main():
    p = sc.parser(__doc__)
    p.add_argument("--fraction", type=float, default=0.005,
                   help="torch.cuda.set_per_process_memory_fraction")
    p.add_argument("--mib", type=int, default=148, help="batch size in MiB")
    p.add_argument("--matmuls", type=int, default=12, help="matrix products per step")
    p.add_argument("--dim", type=int, default=2048, help="matrix side")
    args = p.parse_args()
    torch.cuda.set_per_process_memory_fraction(args.fraction)
    n = args.mib * 1024 * 1024 // 4
    ds = sc.SyntheticBatches(args.warmup + args.steps, 1, 1, pool=1)
    # Whole pinned batches from the loader (made once: a real pipeline pins
    # in its worker threads).
    pinned = [torch.randn(n).pin_memory() for _ in range(2)]
    ds.pool = [(pinned[0], 0), (pinned[1], 1)]
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=0)
    copy_stream = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    d = args.dim
    w = torch.randn(d, d, device="cuda") / d ** 0.5
    acc = torch.zeros(d, d, device="cuda")
    buffers = [torch.empty(n, device="cuda") for _ in range(2)] if args.fix else []
    released = [None, None]  # event: the last step that read buffer k ended
    timer = sc.StepTimer(args.warmup)
    for step, (host, _) in enumerate(loader):
        timer.tick()
        if args.fix:
            k = step % 2
            if released[k] is not None:
                copy_stream.wait_event(released[k])
            dev = buffers[k]
            with torch.cuda.stream(copy_stream):
                dev.copy_(host, non_blocking=True)
            compute.wait_stream(copy_stream)
        else:
            with torch.cuda.stream(copy_stream):
                dev = host.to("cuda", non_blocking=True)
            compute.wait_stream(copy_stream)
            dev.record_stream(compute)
        # The "model": reads the batch, then matrix work.
        a = dev[: d * d].view(d, d)
        for _ in range(args.matmuls):
            a = torch.tanh(a @ w)
        acc += a
        if args.fix:
            released[k] = torch.cuda.Event()
            released[k].record(compute)
        del dev, a
    s = torch.cuda.memory_stats()
    extra = (f"; alloc retries {s['num_alloc_retries']}, syncs of all streams "
             f"{s.get('num_sync_all_streams', 'n/a')}, cudaMalloc {s.get('num_device_alloc', 'n/a')}, "
             f"cudaFree {s.get('num_device_free', 'n/a')}")
    timer.report("record_stream_pressure", args.fix, extra)


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
