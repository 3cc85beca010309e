# SPDX-License-Identifier: MIT
"""torch.profiler inside a process the collector already traces: the
program must run unchanged and exit 0."""
import torch
from torch.profiler import ProfilerActivity, profile

x = torch.randn(1024, 1024, device="cuda")
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(20):
        y = x @ x
    torch.cuda.synchronize()
n_cuda = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
print(f"profiler-probe ok: {len(prof.events())} events, {n_cuda} on the GPU")
