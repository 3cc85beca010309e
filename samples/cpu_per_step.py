"""A per-step .cpu() of a sizeable tensor: each step the dense per-pixel
predictions of a metrics head (256 x 8 x 112 x 112 float32, 103 MB) are
copied to the host with .cpu() for a metric, into pageable memory: the
host waits until the GPU has run everything queued, then for the copy, so
it never runs ahead. --fix: copy them on a side stream with
non_blocking=True into one of two pinned buffers made once, record an
event, and read that buffer one step later (after the event)."""
import torch
import torch.nn.functional as F

import sample_common as sc


def main():
    p = sc.parser(__doc__)
    p.add_argument("--pred-channels", type=int, default=8, help="channels of the per-pixel predictions")
    args = p.parse_args()
    model, opt = sc.make_model()
    head = torch.nn.Conv2d(3, args.pred_channels, 3, padding=1).cuda().to(memory_format=torch.channels_last)
    ds = sc.SyntheticBatches(args.warmup + args.steps, args.batch, args.res)
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=4, pin_memory=True,
                                         persistent_workers=True)
    copy_stream = torch.cuda.Stream()
    pinned = [None, None]
    ready = [None, None]   # event: buffer k holds step's predictions
    keep = [None, None]    # the device tensor, alive until its copy is done
    metric = 0.0
    timer = sc.StepTimer(args.warmup)
    for step, (x, y) in enumerate(loader):
        timer.tick()
        x = sc.normalize(x.to("cuda", non_blocking=True))
        with torch.no_grad():
            pred = head(F.avg_pool2d(x, 2)).contiguous()
        if args.fix:
            k = step % 2
            prev = 1 - k
            if ready[prev] is not None:
                ready[prev].synchronize()
                metric = float(pinned[prev][:, 0, 0, 0].sum())
                keep[prev] = None
            if pinned[k] is None:
                pinned[k] = torch.empty(pred.shape, dtype=pred.dtype, pin_memory=True)
            copy_stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(copy_stream):
                pinned[k].copy_(pred, non_blocking=True)
                ready[k] = torch.cuda.Event()
                ready[k].record(copy_stream)
            keep[k] = pred
        else:
            host = pred.cpu()
            metric = float(host[:, 0, 0, 0].sum())
        del pred
        sc.train_step(model, opt, x, y.to("cuda", non_blocking=True))
    timer.report("cpu_per_step", args.fix, f"; last metric {metric:.3f}")


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
