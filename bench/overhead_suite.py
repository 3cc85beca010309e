# SPDX-License-Identifier: MIT
"""overhead_suite.py [--steps-scale F] WORKLOAD...: several workloads of the
overhead benchmark in one process, one after the other, each with its own
warm-up, so that one process start (torch import, CUDA and CUPTI set-up:
6-10 s on the GPU machine) serves every workload of a variant and more
rounds fit in one call. Run by bench/collector-overhead.sh (workload
`suite`), under each variant in turn.

Workloads (each runs its bench script in this process, with runpy):
  r50b256     bench/resnet50_step.py --batch 256 (GPU-bound)
  r50b32      bench/resnet50_step.py --batch 32 (host-bound)
  bert        bench/transformer_step.py (BERT-base shape, batch 32, 48
              tokens: host-bound)
  r50b256-alt, bert-alt  the same with --alternate (the hook's cost
              in-process)
  tiny        bench/tiny_kernels.py --kernels 1000 (launch-bound)
  toitem      tests/gpu/hook_overhead.py --calls 200 (.to() and .item()
              100 times each a step)
  toitem-alt  the same with --alternate
The -alt workloads need the Python hook and are skipped without it.

Prints, after each workload's own lines:
  overhead-suite: NAME median step X ms
  overhead-suite: NAME alternating with the hook A ms, without B ms
(parsed by bench/overhead_stats.py), or `overhead-suite: NAME skipped
(REASON)`.

PFPROF_SUITE_DRY=1 runs no workload and prints made-up step times in the
same lines: a dry run of the benchmark's scripts on a machine without a
GPU or torch.
"""
import contextlib
import gc
import io
import os
import re
import runpy
import sys
import time

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
}
STEP_RE = re.compile(r"median step ([0-9.]+) ms")
ALT_RE = re.compile(r"with the hook ([0-9.]+) ms, without ([0-9.]+) ms")


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


def dry_run(name):
    import random
    ms = {"r50b256": 55.0, "r50b32": 25.0, "tiny": 6.7}.get(name.split("-")[0], 20.0) * random.uniform(0.98, 1.05)
    if name.endswith("-alt"):
        if os.environ.get("PFPROF_PYTHON_HOOKS") != "1":
            print(f"overhead-suite: {name} skipped (exit 2)", flush=True)
            return
        print(f"overhead-suite: {name} alternating with the hook {ms * 1.01:.3f} ms, without {ms:.3f} ms", flush=True)
    print(f"overhead-suite: {name} median step {ms:.3f} ms (0.0 s, dry run)", flush=True)


def run(name, scale):
    if os.environ.get("PFPROF_SUITE_DRY") == "1":
        return dry_run(name)
    script, extra, steps, warmup = WORKLOADS[name]
    path = os.path.join(REPO, script)
    steps = max(2, int(steps * scale))
    argv = [path, "--steps", str(steps), "--warmup", str(warmup)] + extra
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
    m = ALT_RE.findall(text)
    if m:
        print(f"overhead-suite: {name} alternating with the hook {m[-1][0]} ms, without {m[-1][1]} ms", flush=True)
    m = STEP_RE.findall(text)
    if m:
        print(f"overhead-suite: {name} median step {m[-1]} ms ({time.perf_counter() - t0:.1f} s)", flush=True)
    else:
        print(f"overhead-suite: {name} skipped (no step time)", flush=True)


def main():
    args = sys.argv[1:]
    scale = 1.0
    if len(args) >= 2 and args[0] == "--steps-scale":
        scale = float(args[1])
        args = args[2:]
    unknown = [a for a in args if a not in WORKLOADS]
    if not args or unknown:
        sys.exit(f"overhead_suite: name workloads from {', '.join(WORKLOADS)}"
                 + (f" (unknown: {', '.join(unknown)})" if unknown else ""))
    for name in args:
        run(name, scale)


if __name__ == "__main__":
    main()
