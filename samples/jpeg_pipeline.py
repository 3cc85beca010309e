"""A real input pipeline: JPEG files read from an ImageFolder (make one with
`python3 tests/gpu/make_imagefolder.py DIR 4800 64`), decoded by Pillow and
passed through torchvision's RandomResizedCrop, RandomHorizontalFlip,
ToTensor and Normalize on the DataLoader's workers (2 by default, batch
96, pinned), into a ResNet-50 training step. With 2 workers the loop waits
in next() while the GPU idles. --fix: 12 workers.

--slow-transform: a SlowTransform (this file) after the flip, a pure-Python
loop of --slow-iters steps per sample (no sleep: it keeps a core busy),
which then takes most of the workers' time.
--gpu-resident: one batch made by the pipeline once, kept on the GPU and
trained on every step: the step with free input, the ceiling of any input
fix.
--cprofile-worker FILE: cProfile inside worker 0 (its fetcher patched
before the workers fork; worker_init_fn is not used), the whole of every
batch it fetches after its first --cprofile-skip, and after each such
batch, the totals of each stage written to FILE (JSON): the fetch, the
dataset's loader (decoding), each transform of the Compose, collate_fn.
--digest: prints the SHA-256 of every batch the loop got (a run with
pfprof's worker recording and one without must print the same).

Prints the step timer's line (median and mean step) and `window: START
END`, the timed steps' start and end in time.time() seconds."""
import hashlib
import json
import os
import sys
import time

import torch
import torchvision
import torchvision.transforms as T

import sample_common as sc

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)


class SlowTransform:
    """A deliberately slow augmentation: ITERS steps of a pure-Python loop
    per sample, the image returned unchanged."""

    def __init__(self, iters):
        self.iters = iters

    def __call__(self, img):
        acc = 1
        for _ in range(self.iters):
            acc = (acc * 1103515245 + 12345) & 0x7FFFFFFF
        return img


def make_dataset(root, res, slow_iters=0):
    """The ImageFolder of ROOT/train through the transforms, a SlowTransform
    of SLOW_ITERS steps after the flip when SLOW_ITERS > 0."""
    train = os.path.join(root, "train")
    if not os.path.isdir(train):
        sys.exit(f"jpeg_pipeline: {train} is missing; make it with "
                 f"python3 tests/gpu/make_imagefolder.py {root} 4800 64")
    steps = [T.RandomResizedCrop(res), T.RandomHorizontalFlip()]
    if slow_iters > 0:
        steps.append(SlowTransform(slow_iters))
    steps += [T.ToTensor(), T.Normalize(MEAN, STD)]
    return torchvision.datasets.ImageFolder(train, transform=T.Compose(steps))


def make_model(name, classes):
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    model = getattr(torchvision.models, name)(num_classes=classes)
    model = model.cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return model, opt


def stage_name(obj):
    """The name pfprof's worker recording gives a stage: module and
    qualified name of a function, or of an object's class."""
    obj = getattr(obj, "_pfprof_stage", obj)
    target = obj if hasattr(obj, "__code__") or isinstance(obj, type) else type(obj)
    module = getattr(target, "__module__", "") or ""
    qual = getattr(target, "__qualname__", repr(target))
    return module + "." + qual if module and module != "builtins" else qual


def stage_code(obj):
    """The code object cProfile files a stage's own time under: the
    function itself, a module's forward, or an object's __call__."""
    obj = getattr(obj, "_pfprof_stage", obj)
    if hasattr(obj, "__code__"):
        return obj.__code__
    fn = type(obj).forward if isinstance(obj, torch.nn.Module) else type(obj).__call__
    return getattr(fn, "__code__", None)


def profile_worker(path, skip):
    """Patches the map-style fetcher so that worker 0 runs each batch it
    fetches (after its first SKIP) under one cProfile.Profile, and writes
    the stage totals to PATH after each. Must run before the workers
    fork."""
    import cProfile
    from torch.utils.data._utils import fetch as fetch_module

    cls = fetch_module._MapDatasetFetcher
    orig = cls.fetch
    state = {"prof": None, "seen": 0, "batches": 0, "samples": 0, "fetch_ns": 0}

    def dump(fetcher):
        prof = state["prof"]
        prof.create_stats()
        stats = prof.stats
        ds = fetcher.dataset

        def total(obj):
            code = stage_code(obj)
            if code is None:
                return 0, 0
            entry = stats.get((code.co_filename, code.co_firstlineno, code.co_name))
            return (int(entry[3] * 1e9), entry[1]) if entry else (0, 0)

        stages = []
        loader = getattr(ds, "loader", None)
        if loader is not None:
            ns, calls = total(loader)
            stages.append({"attr": "loader", "name": stage_name(loader), "ns": ns, "calls": calls})
        for t in getattr(getattr(ds, "transform", None), "transforms", None) or []:
            ns, calls = total(t)
            stages.append({"attr": "transform", "name": stage_name(t), "ns": ns, "calls": calls})
        ns, calls = total(fetcher.collate_fn)
        doc = {"worker": 0, "batches": state["batches"], "samples": state["samples"],
               "fetch_ns": state["fetch_ns"], "stages": stages,
               "collate": {"name": stage_name(fetcher.collate_fn), "ns": ns, "calls": calls}}
        with open(path + ".tmp", "w") as f:
            json.dump(doc, f, indent=1)
        os.replace(path + ".tmp", path)

    def fetch(self, index):
        info = torch.utils.data.get_worker_info()
        if info is None or info.id != 0:
            return orig(self, index)
        state["seen"] += 1
        if state["seen"] <= skip:
            return orig(self, index)
        if state["prof"] is None:
            state["prof"] = cProfile.Profile()
        # Since Python 3.12 cProfile sees every thread of the process: let
        # the queue's feeder thread send the last batch first.
        time.sleep(0.005)
        t0 = time.perf_counter_ns()
        state["prof"].enable()
        try:
            return orig(self, index)
        finally:
            state["prof"].disable()
            state["fetch_ns"] += time.perf_counter_ns() - t0
            state["batches"] += 1
            state["samples"] += len(index)
            dump(self)

    cls.fetch = fetch


def main():
    p = sc.parser(__doc__)
    p.set_defaults(batch=96, steps=40, warmup=10)
    p.add_argument("--data", default=os.environ.get("PFPROF_JPEG_DATA", "/tmp/pfprof-jpeg"),
                   help="ImageFolder root (DATA/train/CLASS/*.jpg)")
    p.add_argument("--workers", type=int, default=None, help="DataLoader workers (2; 12 with --fix)")
    p.add_argument("--model", default="resnet50", help="a torchvision.models name")
    p.add_argument("--slow-transform", action="store_true", help="add SlowTransform to the Compose")
    p.add_argument("--slow-iters", type=int, default=60000, help="SlowTransform's loop steps per sample")
    p.add_argument("--gpu-resident", action="store_true", help="train on one batch kept on the GPU")
    p.add_argument("--cprofile-worker", metavar="FILE", help="cProfile worker 0, stage totals to FILE")
    p.add_argument("--cprofile-skip", type=int, default=2, help="worker 0's batches before profiling")
    p.add_argument("--digest", action="store_true", help="print the SHA-256 of the batches got")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    workers = args.workers if args.workers is not None else (12 if args.fix else 2)
    torch.manual_seed(args.seed)
    ds = make_dataset(args.data, args.res, args.slow_iters if args.slow_transform else 0)
    if args.cprofile_worker:
        profile_worker(args.cprofile_worker, args.cprofile_skip)
    model, opt = make_model(args.model, len(ds.classes))
    total = (args.warmup + args.steps) * args.batch
    sampler = torch.utils.data.RandomSampler(ds, num_samples=total,
                                             generator=torch.Generator().manual_seed(args.seed))
    loader = torch.utils.data.DataLoader(ds, batch_size=args.batch, sampler=sampler, drop_last=True,
                                         num_workers=workers, pin_memory=True,
                                         generator=torch.Generator().manual_seed(args.seed + 1))
    print(f"pipeline: {len(ds)} images in {len(ds.classes)} classes, batch {args.batch}, {workers} workers, "
          f"{args.model}, transforms {[stage_name(t) for t in ds.transform.transforms]}", flush=True)
    timer = sc.StepTimer(args.warmup)
    digest = hashlib.sha256() if args.digest else None
    if args.gpu_resident:
        x, y = next(iter(torch.utils.data.DataLoader(ds, batch_size=args.batch, sampler=sampler)))
        x = x.to("cuda").contiguous(memory_format=torch.channels_last)
        y = y.to("cuda")
        for _ in range(args.warmup + args.steps):
            timer.tick()
            sc.train_step(model, opt, x, y)
    else:
        for x, y in loader:
            timer.tick()
            if digest is not None:
                digest.update(x.numpy().tobytes())
                digest.update(y.numpy().tobytes())
            x = x.to("cuda", non_blocking=True).contiguous(memory_format=torch.channels_last)
            sc.train_step(model, opt, x, y.to("cuda", non_blocking=True))
    what = "GPU-resident batch" if args.gpu_resident else f"{workers} workers"
    if args.slow_transform:
        what += ", SlowTransform"
    timer.report("jpeg_pipeline", args.fix, f"; {what}")
    end_wall, end_perf = time.time(), time.perf_counter()
    print(f"window: {end_wall - (end_perf - timer.t0):.3f} {end_wall:.3f}", flush=True)
    if digest is not None:
        print(f"digest: {digest.hexdigest()}", flush=True)


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
