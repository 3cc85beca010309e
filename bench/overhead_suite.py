# SPDX-License-Identifier: MIT
"""overhead_suite.py [--steps-scale F] [--alt-pairs N] [--alt-block-s S]
WORKLOAD...: several workloads of the overhead benchmark in one process,
one after the other, each with its own warm-up, so that one process start
(torch import, CUDA and CUPTI set-up: 6-10 s on the GPU machine) serves
every workload of a variant and more rounds fit in one call. Run by
bench/collector-overhead.sh (workload `suite`), under each variant in turn.

Workloads (each runs its bench script in this process, with runpy):
  r50b256     bench/resnet50_step.py --batch 256 (GPU-bound)
  r50b32      bench/resnet50_step.py --batch 32 (host-bound)
  bert        bench/transformer_step.py (BERT-base shape, batch 32, 48
              tokens: host-bound)
  r50b256-alt, r50b32-alt, bert-alt, tiny-alt  the same with --alternate (the hook's cost
              in-process)
  tiny        bench/tiny_kernels.py --kernels 1000 (launch-bound)
  toitem      tests/gpu/hook_overhead.py --calls 200 (.to() and .item()
              100 times each a step)
  toitem-alt  the same with --alternate
  r50b32-palt, bert-palt, tiny-palt, toitem-palt, r50b256-palt  the same
              with --alternate pfprof: the whole profiler in-process,
              recording in one block of steps and paused in the next
              (bench/step_alternation.py), --alt-pairs block pairs
              (default 8) of --alt-block-s seconds (default 1) each; their
              --steps is not used
The -alt workloads need the Python hook and are skipped without it; the
-palt ones need a profiler that records every cudaProfilerStart-Stop
range (pfprof record --capture-range=cuda-profiler-api with
PFPROF_CAPTURE_REPEAT=1, or the CUPTI floor with the same two variables)
and are skipped without it.

Prints, after each workload's own lines:
  overhead-suite: NAME median step X ms
  overhead-suite: NAME alternating WHAT on/off, ...: median step on A ms,
    off B ms: cost +P% (N pairs, +L..+H%)   (one line; -alt and -palt)
(parsed by bench/overhead_stats.py), or `overhead-suite: NAME skipped
(REASON)`.

PFPROF_SUITE_DRY=1 runs no workload and prints made-up step times in the
same lines: a dry run of the benchmark's scripts on a machine without a
GPU or torch.
"""
import argparse
import contextlib
import gc
import io
import os
import re
import runpy
import sys
import time

from step_alternation import RESULT_RE, capture_problem

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# name -> (script, arguments, timed steps, warm-up steps)
WORKLOADS = {
    "r50b256": ("bench/resnet50_step.py", ["--batch", "256"], 30, 8),
    "r50b256-alt": ("bench/resnet50_step.py", ["--batch", "256", "--alternate"], 30, 8),
    "r50b32": ("bench/resnet50_step.py", ["--batch", "32"], 100, 20),
    "bert": ("bench/transformer_step.py", [], 100, 20),
    "bert-alt": ("bench/transformer_step.py", ["--alternate"], 100, 20),
    "tiny": ("bench/tiny_kernels.py", ["--kernels", "1000"], 200, 20),
    "toitem": ("tests/gpu/hook_overhead.py", ["--calls", "200"], 200, 20),
    "toitem-alt": ("tests/gpu/hook_overhead.py", ["--calls", "200", "--alternate"], 200, 20),
    "tiny-alt": ("bench/tiny_kernels.py", ["--kernels", "1000", "--alternate"], 200, 20),
    "r50b32-alt": ("bench/resnet50_step.py", ["--batch", "32", "--alternate"], 100, 20),
}
for _name in ("r50b32", "bert", "tiny", "toitem", "r50b256"):
    _script, _extra, _steps, _warmup = WORKLOADS[_name]
    WORKLOADS[_name + "-palt"] = (_script, _extra + ["--alternate", "pfprof"], _steps, _warmup)
STEP_RE = re.compile(r"median step ([0-9.]+) ms")


class Tee(io.TextIOBase):
    """Writes through to the real stdout and keeps a copy."""

    def __init__(self, out):
        self.out, self.buf = out, io.StringIO()

    def write(self, s):
        self.out.write(s)
        self.buf.write(s)
        return len(s)

    def flush(self):
        self.out.flush()


def dry_run(name, alt_pairs):
    import random
    ms = {"r50b256": 55.0, "r50b32": 25.0, "tiny": 6.7}.get(name.split("-")[0], 20.0) * random.uniform(0.98, 1.05)
    if name.endswith("alt"):
        palt = name.endswith("-palt")
        cost = [random.uniform(0.005, 0.04) for _ in range(alt_pairs if palt else 50)]
        cost.sort()
        how = f"blocks of {max(4, round(1000 / ms))} steps (2 not counted)" if palt else "every step"
        print(f"overhead-suite: {name} alternating {'pfprof' if palt else 'hook'} on/off, {how}: "
              f"median step on {ms * (1 + cost[len(cost) // 2]):.3f} ms, off {ms:.3f} ms: "
              f"cost {100 * cost[len(cost) // 2]:+.2f}% ({len(cost)} pairs, "
              f"{100 * cost[0]:+.2f}..{100 * cost[-1]:+.2f}%)", flush=True)
    print(f"overhead-suite: {name} median step {ms:.3f} ms (0.0 s, dry run)", flush=True)


def skip_reason(name):
    """Why workload @name cannot run under this process's profiler, or None."""
    if name.endswith("-palt"):
        return capture_problem()
    if name.endswith("-alt") and os.environ.get("PFPROF_PYTHON_HOOKS") != "1":
        return "--alternate needs the pfprof hook (pfprof record without --no-python-hooks)"
    return None


def run(name, a):
    why = skip_reason(name)
    if why:
        print(f"overhead-suite: {name} skipped ({why})", flush=True)
        return
    if os.environ.get("PFPROF_SUITE_DRY") == "1":
        return dry_run(name, a.alt_pairs)
    script, extra, steps, warmup = WORKLOADS[name]
    path = os.path.join(REPO, script)
    steps = max(2, int(steps * a.steps_scale))
    argv = [path, "--steps", str(steps), "--warmup", str(warmup)] + extra
    if name.endswith("-palt"):
        argv += ["--pairs", str(a.alt_pairs)]
        if a.alt_block_s is not None:
            argv += ["--block-s", str(a.alt_block_s)]
    tee = Tee(sys.stdout)
    t0 = time.perf_counter()
    saved_path = list(sys.path)
    sys.path.insert(0, os.path.dirname(path))
    saved_argv, sys.argv = sys.argv, argv
    try:
        with contextlib.redirect_stdout(tee):
            runpy.run_path(path, run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            print(f"overhead-suite: {name} skipped (exit {e.code})", flush=True)
            return
    except Exception as e:  # one broken workload must not stop the others
        print(f"overhead-suite: {name} skipped ({type(e).__name__}: {e})", flush=True)
        return
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path
        gc.collect()
        try:
            import torch
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
        except Exception:
            pass
    text = tee.buf.getvalue()
    m = list(RESULT_RE.finditer(text))
    if m:
        print(f"overhead-suite: {name} {m[-1].group(0)}", flush=True)
    m = STEP_RE.findall(text)
    if m:
        print(f"overhead-suite: {name} median step {m[-1]} ms ({time.perf_counter() - t0:.1f} s)", flush=True)
    else:
        print(f"overhead-suite: {name} skipped (no step time)", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps-scale", type=float, default=1.0,
                   help="the workloads' timed steps multiplied by F")
    p.add_argument("--alt-pairs", type=int, default=8,
                   help="on/off block pairs of the -palt workloads")
    p.add_argument("--alt-block-s", type=float,
                   help="seconds a block of the -palt workloads lasts (the scripts' default: 1; "
                        "0: every step, pairs of adjacent steps)")
    p.add_argument("workloads", nargs="*")
    a = p.parse_args()
    unknown = [w for w in a.workloads if w not in WORKLOADS]
    if not a.workloads or unknown:
        sys.exit(f"overhead_suite: name workloads from {', '.join(WORKLOADS)}"
                 + (f" (unknown: {', '.join(unknown)})" if unknown else ""))
    if a.steps_scale <= 0 or a.alt_pairs < 1 or (a.alt_block_s is not None and a.alt_block_s < 0):
        sys.exit("overhead_suite: need --steps-scale > 0, --alt-pairs >= 1, --alt-block-s >= 0")
    for name in a.workloads:
        run(name, a)
    # The floor's own line, which the floor library prints at exit, so that
    # a dry run of the floor variants reads as one that loaded it.
    if os.environ.get("PFPROF_SUITE_DRY") == "1" and os.environ.get("CUDA_INJECTION64_PATH"):
        print(f"pfprof-cupti-floor: pid {os.getpid()}: 0 records in 0 buffers discarded, 0 dropped, "
              f"kinds {os.environ.get('PFPROF_FLOOR_KINDS') or 'none'} (dry run)", flush=True)


if __name__ == "__main__":
    main()
