#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""reliability_probe.py MODE [options]: small programs for
tests/gpu/reliability.sh, run with and without pfprof. Lines
starting "OUT:" are the program's output that must be the same either way
(no pids, no times in them); the exit codes are chosen so that a changed
one shows.

Modes:
  loop --ready F [--handle]  CUDA work until SIGINT; --handle catches
                             KeyboardInterrupt and exits 7
  dist --ready-dir D         a torchrun worker (gloo) looping until a
                             signal; no handler of its own
  dataloader                 DataLoader with 2 fork workers after CUDA init
  forkchild                  forks before CUDA: an os.fork child and a
                             multiprocessing fork child each initialize CUDA
  exec                       CUDA work, then os.execv of a CUDA program
  exec-target                that program
  spawn [N]                  a launcher without CUDA starting N CUDA
                             processes at once
  fill [N]                   N tiny kernels (a big trace); exits 3
  tiny                       a little CUDA work
  nocuda                     imports torch, never touches CUDA; exits 5
"""
import os
import subprocess
import sys
import time

import torch


def cuda_work(n=20, size=256):
    x = torch.randn(size, size, device="cuda")
    for _ in range(n):
        x = torch.tanh(x @ x / size)
    torch.cuda.synchronize()
    return x


def out(text):
    # One write per line: lines of processes sharing stdout (torchrun's
    # ranks) must not interleave inside a line.
    sys.stdout.write(f"OUT: {text}\n")
    sys.stdout.flush()


def touch(path):
    with open(path + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.replace(path + ".tmp", path)


def mode_loop(args):
    ready = args[args.index("--ready") + 1]
    handle = "--handle" in args
    out("loop started")
    t_end = time.monotonic() + 120
    try:
        i = 0
        while time.monotonic() < t_end:
            cuda_work(5)
            i += 1
            if i == 20:
                touch(ready)
            time.sleep(0.01)
        out("loop ran out of time (no signal came)")
        return 4
    except KeyboardInterrupt:
        if not handle:
            raise
        torch.cuda.synchronize()
        out("caught KeyboardInterrupt, saving and exiting 7")
        return 7


def mode_dist(args):
    import torch.distributed as dist

    ready_dir = args[args.index("--ready-dir") + 1]
    rank = int(os.environ["RANK"])
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")) % torch.cuda.device_count())
    dist.init_process_group("gloo")
    out(f"rank {rank} started")
    t = torch.ones(4)
    t_end = time.monotonic() + 120
    i = 0
    while time.monotonic() < t_end:
        cuda_work(5)
        dist.all_reduce(t)
        t.fill_(1)
        i += 1
        if i == 10:
            touch(os.path.join(ready_dir, f"ready-{rank}"))
        time.sleep(0.02)
    out(f"rank {rank} ran out of time (no signal came)")
    dist.destroy_process_group()
    return 4


class Numbers(torch.utils.data.Dataset):
    def __len__(self):
        return 24 * 16

    def __getitem__(self, i):
        return torch.full((64,), float(i))


def mode_dataloader(args):
    import multiprocessing

    w = torch.randn(64, 8, device="cuda")  # CUDA is up before the workers fork
    loader = torch.utils.data.DataLoader(Numbers(), batch_size=16, num_workers=2, pin_memory=True,
                                         multiprocessing_context=multiprocessing.get_context("fork"))
    total = 0.0
    n = 0
    for x in loader:
        y = x.to("cuda", non_blocking=True) @ w
        total += float(x.sum())
        n += 1
    torch.cuda.synchronize()
    del y
    out(f"dataloader: {n} batches from 2 fork workers, checksum {total:.0f}")
    return 0


def child_work(tag):
    cuda_work(20)
    out(f"{tag} child: CUDA ok")


def mode_forkchild(args):
    import multiprocessing

    # Nothing here has touched CUDA yet: the children may initialize it.
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            child_work("os.fork")
        except Exception as e:  # noqa: BLE001 - reported as the child's exit code
            print(f"os.fork child failed: {e}", file=sys.stderr)
            code = 1
        sys.exit(code)  # a normal interpreter exit: atexit handlers run
    p = multiprocessing.get_context("fork").Process(target=child_work, args=("multiprocessing",))
    p.start()  # ends with os._exit, as every multiprocessing child does
    cuda_work(20)
    _, status = os.waitpid(pid, 0)
    p.join()
    rcs = [os.waitstatus_to_exitcode(status), p.exitcode]
    out(f"parent: CUDA ok, children exited {rcs}")
    return max(rcs)


def mode_exec(args):
    cuda_work(200, 512)
    time.sleep(1.2)  # the collector commits every 0.5 s
    out("before exec")
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, os.path.abspath(__file__), "exec-target"])


def mode_exec_target(args):
    cuda_work(50)
    out("exec target: CUDA ok")
    return 0


def mode_spawn(args):
    n = int(args[0]) if args else 4
    code = "import torch; x = torch.randn(512, 512, device='cuda'); [x @ x for _ in range(50)]; " \
           "torch.cuda.synchronize(); print('OUT: spawned child ok', flush=True)"
    procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(n)]
    rcs = [p.wait() for p in procs]
    out(f"spawn: {n} children exited {rcs}")
    return max(rcs)


def mode_fill(args):
    n = int(args[0]) if args else 200000
    x = torch.zeros(16, device="cuda")
    for i in range(n):
        x.add_(1)
        if i % 20000 == 19999:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    out(f"fill: {n} kernels, x[0] = {float(x[0]):.0f}")
    return 3


def mode_tiny(args):
    cuda_work(20)
    out("tiny: CUDA ok")
    return 0


def mode_nocuda(args):
    y = torch.arange(10.0).sum()
    out(f"nocuda: sum {float(y):.0f}, CUDA initialized: {torch.cuda.is_initialized()}")
    return 5


MODES = {"loop": mode_loop, "dist": mode_dist, "dataloader": mode_dataloader, "forkchild": mode_forkchild,
         "exec": mode_exec, "exec-target": mode_exec_target, "spawn": mode_spawn, "fill": mode_fill,
         "tiny": mode_tiny, "nocuda": mode_nocuda}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in MODES:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(MODES[sys.argv[1]](sys.argv[2:]))
