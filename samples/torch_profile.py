"""Runs a training script under torch.profiler without editing it, and
writes one Kineto trace (gzip Chrome-trace JSON) per process:

    python3 samples/torch_profile.py [--with-stack] [--skip-first K] [--wait W]
        [--warmup U] [--active N] --out DIR -- SCRIPT ARGS...
    torchrun --standalone --nproc_per_node 2 samples/torch_profile.py --out DIR -- samples/ddp_train.py ...

The script runs as __main__ (runpy, sys.argv = [SCRIPT, ARGS...], its
folder first on sys.path), inside torch.profiler.profile(activities=[CPU,
CUDA], schedule=torch.profiler.schedule(skip_first, wait, warmup, active,
repeat=1), on_trace_ready=tensorboard_trace_handler(DIR, worker_name,
use_gzip=True), with_stack=...). Each training step ends with
prof.step(), which also marks the ProfilerStep#N ranges: after every
optimizer step (torch.optim.optimizer.register_optimizer_step_post_hook,
for every optimizer of the process), or, in a script that never steps an
optimizer, at every DataLoader batch (a wrapped __next__ of PyTorch's
DataLoader iterators); --step-on picks one.

The window: the steps the samples time. When SCRIPT ARGS hold --warmup W
and --steps S (the samples' flags), the profiler skips the first W steps
(skip_first + wait + warmup = W) and records S steps (--active S),
unless told otherwise. Under torchrun the worker name holds the rank:
HOST_rankR_PID.pt.trace.json.gz."""
import argparse
import os
import runpy
import socket
import sys


def script_flag(argv, name):
    """The integer value of --name in the script's own arguments, or None."""
    for i, a in enumerate(argv):
        if a == name and i + 1 < len(argv):
            v = argv[i + 1]
        elif a.startswith(name + "="):
            v = a.split("=", 1)[1]
        else:
            continue
        try:
            return int(v)
        except ValueError:
            return None
    return None


def parse_args(argv):
    if "--" not in argv:
        raise SystemExit("torch_profile: usage: torch_profile.py [options] --out DIR -- SCRIPT ARGS...")
    cut = argv.index("--")
    own, rest = argv[:cut], argv[cut + 1:]
    if not rest:
        raise SystemExit("torch_profile: no script after --")
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="folder for the traces")
    p.add_argument("--with-stack", action="store_true", help="with_stack=True (Python file, line, function)")
    p.add_argument("--memory", action="store_true", help="profile_memory=True")
    p.add_argument("--shapes", action="store_true", help="record_shapes=True")
    p.add_argument("--skip-first", type=int, default=None,
                   help="steps not profiled at all (default: the script's --warmup minus wait and warmup)")
    p.add_argument("--wait", type=int, default=1)
    p.add_argument("--warmup", type=int, default=1, help="profiler warm-up steps (traced, then discarded)")
    p.add_argument("--active", type=int, default=None, help="steps recorded (default: the script's --steps, else 10)")
    p.add_argument("--step-on", choices=["auto", "optimizer", "next"], default="auto",
                   help="what ends a step: an optimizer step, a DataLoader batch, or (auto) the first that occurs")
    args = p.parse_args(own)
    w = script_flag(rest, "--warmup")
    s = script_flag(rest, "--steps")
    if args.skip_first is None:
        args.skip_first = max(0, (w or 0) - args.wait - args.warmup)
    if args.active is None:
        args.active = s if s else 10
    return args, rest


class Stepper:
    """Calls prof.step() once per training step, from an optimizer hook or
    from DataLoader.__next__, whichever the script uses (auto: an
    optimizer step seen before the third batch means optimizer steps)."""

    def __init__(self, prof, mode):
        self.prof = prof
        self.mode = None if mode == "auto" else mode
        self.batches = 0
        self.opt_steps = 0
        self.steps = 0

    def step(self):
        self.steps += 1
        self.prof.step()

    def on_optimizer_step(self, optimizer, args, kwargs):
        self.opt_steps += 1
        if self.mode is None:
            self.mode = "optimizer"
        if self.mode == "optimizer":
            self.step()

    def on_batch(self):
        self.batches += 1
        if self.mode is None and self.batches >= 3 and self.opt_steps == 0:
            self.mode = "next"
            # the two batch boundaries before this one
            self.step()
            self.step()
        elif self.mode == "next" and self.batches > 1:
            self.step()


def install_hooks(stepper):
    import torch.optim.optimizer as optimizer
    from torch.utils.data import dataloader as dl

    handle = None
    reg = getattr(optimizer, "register_optimizer_step_post_hook", None)
    if reg is not None:
        handle = reg(stepper.on_optimizer_step)
    elif stepper.mode in (None, "optimizer"):
        print("torch_profile: no register_optimizer_step_post_hook in this torch; stepping on DataLoader batches",
              file=sys.stderr, flush=True)
        stepper.mode = "next"
    base = dl._BaseDataLoaderIter
    orig = base.__next__

    def __next__(self):
        item = orig(self)
        stepper.on_batch()
        return item

    base.__next__ = __next__
    return handle, (base, orig)


def main():
    args, rest = parse_args(sys.argv[1:])
    import torch
    from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler

    os.makedirs(args.out, exist_ok=True)
    rank = os.environ.get("RANK")
    worker = f"{socket.gethostname()}_{'rank' + rank + '_' if rank is not None else ''}{os.getpid()}"
    sched = schedule(skip_first=args.skip_first, wait=args.wait, warmup=args.warmup, active=args.active, repeat=1)
    activities = [ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(ProfilerActivity.CUDA)
    print(f"torch_profile: {' '.join(rest)}: skip_first {args.skip_first}, wait {args.wait}, "
          f"warmup {args.warmup}, active {args.active}, with_stack {args.with_stack}, "
          f"step on {args.step_on}; traces to {args.out} as {worker}", file=sys.stderr, flush=True)
    script = rest[0]
    sys.argv = list(rest)
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    code = 0
    prof = profile(activities=activities, schedule=sched,
                   on_trace_ready=tensorboard_trace_handler(args.out, worker_name=worker, use_gzip=True),
                   with_stack=args.with_stack, record_shapes=args.shapes, profile_memory=args.memory)
    stepper = Stepper(prof, args.step_on)
    handle, (base, orig) = install_hooks(stepper)
    prof.start()
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        code = e.code
    finally:
        prof.stop()
        if handle is not None:
            handle.remove()
        base.__next__ = orig
    files = sorted(f for f in os.listdir(args.out) if worker in f)
    print(f"torch_profile: {stepper.steps} steps (on {stepper.mode or 'nothing'}; {stepper.opt_steps} optimizer "
          f"steps, {stepper.batches} batches); wrote {', '.join(files) or 'NO TRACE'}", file=sys.stderr, flush=True)
    if stepper.steps < args.skip_first + args.wait + args.warmup + 1:
        print("torch_profile: the script ended before the profiled window began: no steps recorded",
              file=sys.stderr, flush=True)
    sys.exit(code)


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
