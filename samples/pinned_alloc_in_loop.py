"""Page-locking host memory every step: the loader hands out pageable
batches and the loop pins each one itself before copying it, registering
a fresh host buffer with CUDA (cudaHostRegister, then cudaHostUnregister
once its copy is done), as code that pins tensors "in place" does. Pinning
38.5 MB of pages costs milliseconds of host time a step, and unpinning
waits for the copy, so the host cannot run ahead of the GPU.
--fix: two pinned buffers allocated once and reused in turn (each batch
is copied into one, then sent with non_blocking=True; an event says when
a buffer's last copy is done).

--how pin_memory pins with x.pin_memory() every step instead: PyTorch's
caching host allocator usually absorbs that (it reuses freed pinned
blocks), which is why the default reproduces the problem with
cudaHostRegister; the fix is the same for both."""
import torch

import sample_common as sc


def main():
    p = sc.parser(__doc__)
    p.add_argument("--how", choices=["register", "pin_memory"], default="register",
                   help="how the loop pins each batch without --fix")
    args = p.parse_args()
    model, opt = sc.make_model()
    ds = sc.SyntheticBatches(args.warmup + args.steps, args.batch, args.res)
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=4, pin_memory=False,
                                         persistent_workers=True)
    cudart = torch.cuda.cudart()
    how = args.how
    if how == "register" and not hasattr(cudart, "cudaHostRegister"):
        print("pinned_alloc_in_loop: torch.cuda.cudart() has no cudaHostRegister; using --how pin_memory",
              flush=True)
        how = "pin_memory"
    pinned = None
    done = [None, None]
    timer = sc.StepTimer(args.warmup)
    for step, (x, y) in enumerate(loader):
        timer.tick()
        if args.fix:
            if pinned is None:
                pinned = [torch.empty_like(x).pin_memory() for _ in range(2)]
            k = step % 2
            if done[k] is not None:
                done[k].synchronize()  # the copy two steps back: long finished
            pinned[k].copy_(x)
            xg = pinned[k].to("cuda", non_blocking=True)
            done[k] = torch.cuda.Event()
            done[k].record()
        elif how == "register":
            host = torch.empty_like(x)
            host.copy_(x)
            nbytes = host.numel() * host.element_size()
            err = cudart.cudaHostRegister(host.data_ptr(), nbytes, 0)
            if int(err) != 0:
                print(f"pinned_alloc_in_loop: cudaHostRegister failed ({err}); using --how pin_memory", flush=True)
                how = "pin_memory"
                xg = x.pin_memory().to("cuda", non_blocking=True)
            else:
                xg = host.to("cuda", non_blocking=True)
                copied = torch.cuda.Event()
                copied.record()
                copied.synchronize()  # the pages must stay pinned until the copy is done
                cudart.cudaHostUnregister(host.data_ptr())
            del host
        else:
            xg = x.pin_memory().to("cuda", non_blocking=True)
        sc.train_step(model, opt, sc.normalize(xg), y.to("cuda", non_blocking=True))
    timer.report("pinned_alloc_in_loop", args.fix, "" if args.fix else f"; pinned with {how}")


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
