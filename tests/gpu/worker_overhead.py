#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""worker_overhead.py DATA [--batches N (2)] [--rounds R (21)] [--batch B]
[--slow-iters K] [--samples S (600)] [--batch-pairs P (30)]: what recording inside the DataLoader
(cli/pfprof_workers.py) costs a worker of samples/jpeg_pipeline.py, in one
process, as bench/worker-cost.py measures it but with the real stages: the
worker's batch loop (indices got, each sample decoded from DATA's JPEGs and
passed through the sample's transforms, default_collate, the batch put),
recording off and on in turn for R rounds of N batches, the same indices
and the same random seed in both, one torch thread as in a worker. Times
are the thread's CPU time. Prints one `overhead:` line of JSON: ns per
batch off and on (the median of the rounds and the least), the difference
per batch and its share of the batch, and `share_paired`: the median over
rounds of each round's own difference (both runs of a round decode the
same crops), and `share_fine`, the figure the check reads: the median of
--samples pairs of one sample decoded off and on in a row, times the
batch, plus the median of --batch-pairs pairs of a batch's own work
(collate, got, put), over the batch's time off. Run from the repository root."""
import argparse
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def load_workers():
    spec = importlib.util.spec_from_file_location("pfprof_workers", os.path.join(ROOT, "cli", "pfprof_workers.py"))
    pw = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pw)
    return pw


class Queue:
    def put(self, r):
        pass


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("data")
    p.add_argument("--batches", type=int, default=2)
    p.add_argument("--rounds", type=int, default=21)
    p.add_argument("--batch", type=int, default=96)
    p.add_argument("--res", type=int, default=224)
    p.add_argument("--slow-iters", type=int, default=0)
    p.add_argument("--samples", type=int, default=600)
    p.add_argument("--batch-pairs", type=int, default=30)
    args = p.parse_args()
    sys.path.insert(0, os.path.join(ROOT, "samples"))
    import torch
    from torch.utils.data._utils.collate import default_collate
    import jpeg_pipeline as jp

    torch.set_num_threads(1)
    pw = load_workers()
    folder = tempfile.mkdtemp()
    plain = jp.make_dataset(args.data, args.res, args.slow_iters)
    recorded = jp.make_dataset(args.data, args.res, args.slow_iters)
    w = pw.Worker(pw.Sink(folder, os.getpid(), 1), 0)
    w.wrap_dataset(recorded)
    collate = w.wrap_collate(default_collate)
    q = Queue()
    n = len(plain)
    times = {"off": [], "on": []}
    for r in range(args.rounds + 1):
        idx = [[(r * 7919 + b * args.batch + i * 13) % n for i in range(args.batch)] for b in range(args.batches)]
        for name in (("off", "on") if r % 2 == 0 else ("on", "off")):
            torch.manual_seed(r)
            t0 = time.thread_time_ns()
            for b, batch in enumerate(idx):
                if name == "off":
                    q.put((b, default_collate([plain[i] for i in batch])))
                else:
                    req = (b, batch)
                    w.got(req)
                    out = (b, collate([recorded[i] for i in batch]))
                    q.put(out)
                    w.put(out, time.perf_counter_ns())
            if r > 0:  # the first round warms the page cache and the imports
                times[name].append((time.thread_time_ns() - t0) / args.batches)
    # Finer: each sample decoded twice in a row, recording off and on in
    # alternating order under one seed, so a pair differs by the recording
    # alone; then each batch's own work (collate, got, put) the same way on
    # samples decoded once. Thousands of pairs instead of 21 rounds.
    sample_diff, sample_off = [], []
    for k in range(args.samples):
        i = (k * 7919 + 13) % n
        t = {}
        for name in (("off", "on") if k % 2 == 0 else ("on", "off")):
            torch.manual_seed(100000 + k)
            t0 = time.thread_time_ns()
            (plain if name == "off" else recorded)[i]
            t[name] = time.thread_time_ns() - t0
        sample_diff.append(t["on"] - t["off"])
        sample_off.append(t["off"])
    batch_diff, batch_off = [], []
    for k in range(args.batch_pairs):
        batch = [(k * 31 + j) % n for j in range(args.batch)]
        torch.manual_seed(200000 + k)
        samples = [plain[i] for i in batch]
        t = {}
        for name in (("off", "on") if k % 2 == 0 else ("on", "off")):
            t0 = time.thread_time_ns()
            if name == "off":
                q.put((k, default_collate(samples)))
            else:
                w.got((k, batch))
                out = (k, collate(samples))
                q.put(out)
                w.put(out, time.perf_counter_ns())
            t[name] = time.thread_time_ns() - t0
        batch_diff.append(t["on"] - t["off"])
        batch_off.append(t["off"])
    fine_extra = statistics.median(sample_diff) * args.batch + statistics.median(batch_diff)
    fine_off = statistics.median(sample_off) * args.batch + statistics.median(batch_off)
    med = {k: statistics.median(v) for k, v in times.items()}
    least = {k: min(v) for k, v in times.items()}
    extra = med["on"] - med["off"]
    # Within a round both runs decode the same images with the same random
    # crops (one seed), in alternating order; across rounds the crops, and
    # with them the work, differ by ~10%. The cost is the median of the
    # rounds' own differences, not the difference of two medians.
    pairs = sorted((on - off) / off for on, off in zip(times["on"], times["off"]))
    paired = statistics.median(pairs)
    rows = os.path.getsize(os.path.join(folder, "%d.%d.rows" % (os.getpid(), os.getpid())))
    doc = {"batch": args.batch, "batches_per_round": args.batches, "rounds": args.rounds,
           "slow_iters": args.slow_iters,
           "off_ns": med["off"], "on_ns": med["on"], "off_least_ns": least["off"], "on_least_ns": least["on"],
           "extra_ns": extra, "extra_least_ns": least["on"] - least["off"],
           "share": extra / med["off"], "share_least": (least["on"] - least["off"]) / least["off"],
           "share_paired": paired,
           "fine_samples": args.samples, "fine_batches": args.batch_pairs,
           "fine_sample_extra_ns": statistics.median(sample_diff), "fine_batch_extra_ns": statistics.median(batch_diff),
           "fine_extra_ns": fine_extra, "fine_off_ns": fine_off, "share_fine": fine_extra / fine_off, "share_paired_p10": pairs[len(pairs) // 10],
           "share_paired_p90": pairs[(len(pairs) * 9) // 10],
           "row_bytes_per_batch": rows / ((args.rounds + 1) * args.batches)}
    print(f"worker batch of {args.batch}: off {med['off'] / 1e6:.2f} ms, on {med['on'] / 1e6:.2f} ms "
          f"(median of {args.rounds} rounds); recording {100 * paired:+.3f}% of a batch, the median of the "
          f"rounds' paired differences (p10 {100 * doc['share_paired_p10']:+.3f}%, p90 "
          f"{100 * doc['share_paired_p90']:+.3f}%)")
    print(f"sample by sample ({args.samples} pairs) and batch by batch ({args.batch_pairs} pairs): recording "
          f"{fine_extra / 1e3:.1f} us of a {fine_off / 1e6:.2f} ms batch, {100 * fine_extra / fine_off:+.3f}%")
    print("overhead: " + json.dumps(doc), flush=True)


if __name__ == "__main__":
    main()
