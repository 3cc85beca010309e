#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hook-cost.py HOOK [--calls N]: what the Python start-up hook of `pfprof
record` costs per wrapped call, on the CPU, against a fake torch module.

Loads HOOK (cli/pfprof_sitecustomize.py) as `pfprof record` would
(PFPROF_PYTHON_HOOKS=1, a collector path that is not loaded, so rows are
kept and never handed over, as before CUDA starts), patches a fake torch
whose Tensor.to and Tensor.item are C methods doing next to nothing, and times the loop of
tests/gpu/hook_overhead.py (x.to("cuda", non_blocking=True) then .item())
with the hook's wrappers, with wrappers that only pass the call on, and
with the original methods. Prints ns per call for each (the least of 7
interleaved rounds: the one least disturbed by other work on the
machine): what the hook costs, and how much of it is more than the
Python call any wrapper costs; and what it costs on .item() alone, a
call without keyword arguments. Times are the thread's CPU time
(time.thread_time_ns), which other processes on a shared machine disturb
less than the wall clock.
"""
import argparse
import importlib.util
import os
import sys
import tempfile
import time
import types


def fake_torch(where):
    pkg = os.path.join(where, "torch")
    os.makedirs(pkg, exist_ok=True)
    with open(os.path.join(pkg, "__init__.py"), "w") as f:
        # C methods that take what .to("cuda", non_blocking=True) and
        # .item() get; a Tensor is a str here.
        f.write("class Tensor(str):\n"
                "    to = str.format\n"
                "    item = str.__len__\n"
                "    cuda = cpu = pin_memory = record_stream = list.copy\n"
                "class _Cuda: pass\n"
                "cuda = _Cuda()\n"
                "cuda.synchronize = len\n"
                "def empty(*a, **k): return Tensor()\n")
    return pkg


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("hook")
    p.add_argument("--calls", type=int, default=200000)
    args = p.parse_args()
    tmp = tempfile.mkdtemp()
    fake_torch(tmp)
    sys.path.insert(0, tmp)
    os.environ["PFPROF_PYTHON_HOOKS"] = "1"
    os.environ["CUDA_INJECTION64_PATH"] = os.path.join(tmp, "libnot-loaded.so")
    os.environ.pop("PFPROF_HOOK_DIR", None)
    import torch
    orig_to, orig_item = torch.Tensor.to, torch.Tensor.item
    spec = importlib.util.spec_from_file_location("pfprof_hook", args.hook)
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    wrapped_to, wrapped_item = torch.Tensor.to, torch.Tensor.item
    assert getattr(wrapped_to, "_pfprof", False), "the hook did not wrap Tensor.to"
    x = t = torch.Tensor("")

    def loop(to, item, n):
        t0 = time.thread_time_ns()
        for _ in range(n // 2):
            to(x, "cuda", non_blocking=True)
            item(t)
        return (time.thread_time_ns() - t0) / n

    def loop_item(item, n):
        t0 = time.thread_time_ns()
        for _ in range(n):
            item(t)
        return (time.thread_time_ns() - t0) / n

    # The least any Python-level wrapper costs: one that only passes on.
    def passing(orig):
        def wrapper(*args, **kwargs):
            return orig(*args, **kwargs)
        return wrapper

    pass_to, pass_item = passing(orig_to), passing(orig_item)
    on, off, bare, item_on, item_off = [], [], [], [], []
    loop(wrapped_to, wrapped_item, args.calls)  # the first calls of each site
    for _ in range(7):
        on.append(loop(wrapped_to, wrapped_item, args.calls))
        off.append(loop(orig_to, orig_item, args.calls))
        bare.append(loop(pass_to, pass_item, args.calls))
        item_on.append(loop_item(wrapped_item, args.calls))
        item_off.append(loop_item(orig_item, args.calls))
    on_ns, off_ns, pass_ns = (min(v) for v in (on, off, bare))
    print(f"python {sys.version.split()[0]}: hook {on_ns:.0f} ns, pass-through wrapper {pass_ns:.0f} ns, "
          f"unwrapped {off_ns:.0f} ns a call: the hook costs {on_ns - off_ns:.0f} ns a call, "
          f"{on_ns - pass_ns:.0f} ns of it beyond a pass-through wrapper; .item() alone (no keyword "
          f"arguments): {min(item_on) - min(item_off):.0f} ns a call")


if __name__ == "__main__":
    main()
