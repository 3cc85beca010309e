# SPDX-License-Identifier: MIT
"""`--profiler torch` for the bench workloads (resnet50_step.py,
tiny_kernels.py): run the workload's loop inside
torch.profiler.profile(activities=[CPU, CUDA]) with its defaults, export the
default chrome trace and print its size and number of events, so pfprof's
bytes per event can be set beside torch.profiler's for the same steps.

Printed line (parsed by bench/overhead_stats.py):
  torch.profiler trace: PATH BYTES bytes, EVENTS events (X complete), B/event,
  stop S s, export S s
"""
import json
import os
import tempfile
import time

_state = {}


def add_arguments(parser):
    parser.add_argument("--profiler", choices=["none", "torch"], default="none",
                        help="run the loop inside torch.profiler (CPU and CUDA activities)")
    parser.add_argument("--trace-out", metavar="PATH",
                        help="where --profiler torch exports its chrome trace "
                             "(default: torch-trace-PID.json in the temporary folder)")


def run(loop, args):
    """Calls loop() bare, or inside torch.profiler when --profiler torch."""
    if args.profiler != "torch":
        loop()
        return
    import torch
    from torch.profiler import ProfilerActivity, profile

    path = args.trace_out or os.path.join(tempfile.gettempdir(), f"torch-trace-{os.getpid()}.json")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        loop()
        torch.cuda.synchronize()
        t_end = time.perf_counter()
    t_stopped = time.perf_counter()
    prof.export_chrome_trace(path)
    t_exported = time.perf_counter()
    _state.update(path=path, stop_s=t_stopped - t_end, export_s=t_exported - t_stopped)


def report(args):
    """Prints the exported trace's bytes and events (after the step line)."""
    if args.profiler != "torch" or "path" not in _state:
        return
    path = _state["path"]
    size = os.path.getsize(path)
    t0 = time.perf_counter()
    with open(path, "rb") as f:
        trace = json.load(f)
    events = trace.get("traceEvents", []) if isinstance(trace, dict) else trace
    complete = sum(1 for e in events if isinstance(e, dict) and e.get("ph") == "X")
    n = len(events)
    print(f"torch.profiler trace: {path} {size} bytes, {n} events ({complete} complete), "
          f"{size / max(n, 1):.1f} B/event, stop {_state['stop_s']:.1f} s, "
          f"export {_state['export_s']:.1f} s, count {time.perf_counter() - t0:.1f} s", flush=True)
