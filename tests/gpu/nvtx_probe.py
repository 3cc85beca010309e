# SPDX-License-Identifier: MIT
"""NVTX through the collector: nested push/pop, a mark, a context-manager
range, from PyTorch's own binding."""
import torch

torch.cuda.nvtx.range_push("outer")
torch.cuda.nvtx.range_push("inner")
x = torch.ones(1 << 20, device="cuda")
torch.cuda.nvtx.mark("a-mark")
torch.cuda.nvtx.range_pop()
torch.cuda.nvtx.range_pop()
with torch.cuda.nvtx.range("ctx-range"):
    y = (x * 2).sum()
torch.cuda.synchronize()
print("nvtx-probe ok", float(y))
