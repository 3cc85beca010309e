"""(g) Data-parallel training (DDP), one process per rank, for the
multi-rank samples. Every rank trains a torchvision model on whole
synthetic batches from its own DataLoader and all-reduces its gradients
with the others each step. --slow-rank R makes rank R's input pipeline
slower: each of its loader workers sleeps --slow-ms per batch (a busy
host, a slow disk), so R waits in the DataLoader and every other rank
waits for R at the all-reduce.

    torchrun --standalone --nproc_per_node 2 samples/ddp_train.py [--slow-rank 1]
    mpirun -np 2 python3 samples/ddp_train.py        (or srun -n 2 ...)

Ranks take GPU LOCAL_RANK; when there are fewer GPUs than local ranks
they share them (all on cuda:0 with one GPU) and the backend is gloo,
since NCCL refuses two ranks on one GPU. Without torchrun (no WORLD_SIZE)
the script trains alone, without DDP; RANK, if set, still selects
--slow-rank. Prints one line per rank: "median step X ms, mean Y ms",
host time per step after warm-up, as the other samples do."""
import argparse
import os
import statistics
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F

import sample_common as sc


class Batches(sc.SyntheticBatches):
    """Whole batches from a small pool; @delay_s of sleep per batch, in the
    loader worker that makes it."""

    def __init__(self, n, batch, res, delay_s):
        super().__init__(n, batch, res, pool=2)
        self.delay_s = delay_s

    def __getitem__(self, i):
        if self.delay_s > 0:
            time.sleep(self.delay_s)
        return super().__getitem__(i)


# Where Slurm's srun and MPI launchers (Open MPI, MPICH/Hydra) put what
# torchrun calls RANK, WORLD_SIZE, LOCAL_RANK and LOCAL_WORLD_SIZE.
LAUNCHER_VARS = {
    "RANK": ("SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK"),
    "WORLD_SIZE": ("SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"),
    "LOCAL_RANK": ("SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"),
    "LOCAL_WORLD_SIZE": ("SLURM_NTASKS_PER_NODE", "OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"),
}


def launcher_env():
    """Under srun or mpirun (no torchrun), fills torchrun's variables from
    the launcher's, so that init_process_group(env://) works unchanged.
    MASTER_ADDR defaults to this host and MASTER_PORT to 29500: right for
    one node; on several nodes, export MASTER_ADDR (the first node) first."""
    if "RANK" in os.environ:
        return
    for want, names in LAUNCHER_VARS.items():
        for n in names:
            v = os.environ.get(n)
            if v:
                # SLURM_NTASKS_PER_NODE may read "2(x3)"
                os.environ[want] = v.split("(")[0]
                break
    if "RANK" in os.environ:
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29500")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=30, help="timed steps")
    p.add_argument("--warmup", type=int, default=10, help="untimed steps first")
    p.add_argument("--batch", type=int, default=32, help="batch per rank")
    p.add_argument("--res", type=int, default=224, help="image side in pixels")
    p.add_argument("--model", default="resnet50", help="torchvision model name (resnet50, resnet18, ...)")
    p.add_argument("--slow-rank", type=int, default=-1, help="rank whose input pipeline is slowed (-1: none)")
    p.add_argument("--slow-ms", type=float, default=80.0, help="sleep per batch in the slowed rank's workers")
    p.add_argument("--workers", type=int, default=2, help="DataLoader workers per rank")
    p.add_argument("--backend", default="auto", choices=["auto", "nccl", "gloo"],
                   help="auto: nccl when every local rank has its own GPU, else gloo")
    p.add_argument("--cudnn-benchmark", action="store_true", help="let cuDNN autotune convolutions")
    return p.parse_args()


def main():
    args = parse_args()
    if args.steps < 1 or args.warmup < 0:
        raise SystemExit("ddp_train: --steps must be at least 1 and --warmup at least 0")
    launcher_env()
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    local_world = int(os.environ.get("LOCAL_WORLD_SIZE", str(world)))
    n_gpus = torch.cuda.device_count()
    if n_gpus == 0:
        raise SystemExit("ddp_train: no CUDA device")
    dev = torch.device("cuda", local % n_gpus)
    torch.cuda.set_device(dev)
    backend = args.backend
    if backend == "auto":
        backend = "nccl" if n_gpus >= local_world else "gloo"
    distributed = world > 1
    if distributed:
        dist.init_process_group(backend=backend)

    import torchvision

    # No autotuning by default: it adds seconds at start and thousands of
    # trial kernels to a short trace.
    torch.backends.cudnn.benchmark = args.cudnn_benchmark
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    torch.manual_seed(0)
    model = torchvision.models.get_model(args.model, num_classes=100)
    model = model.to(dev).to(memory_format=torch.channels_last)
    if distributed:
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[dev.index],
                                                          gradient_as_bucket_view=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    slowed = rank == args.slow_rank
    ds = Batches(args.warmup + args.steps, args.batch, args.res, args.slow_ms / 1e3 if slowed else 0.0)
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=args.workers, pin_memory=True,
                                         persistent_workers=args.workers > 0)
    timer = sc.StepTimer(args.warmup)
    loss = None
    for x, y in loader:
        timer.tick()
        x = sc.normalize(x.to(dev, non_blocking=True))
        y = y.to(dev, non_blocking=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    total = time.perf_counter() - timer.t0
    n = max(1, timer.step - args.warmup)
    med = statistics.median(timer.times) * 1e3 if timer.times else float("nan")
    what = f"{args.model}, {backend if distributed else 'single process'}, batch {args.batch}, GPU {dev.index}"
    if slowed:
        what += f", input slowed {args.slow_ms:g} ms per batch"
    print(f"ddp_train rank {rank}/{world} ({what}): median step {med:.2f} ms, mean {total / n * 1e3:.2f} ms "
          f"over {n} timed steps; last loss {loss.item():.3f}", flush=True)
    if distributed:
        dist.barrier()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
