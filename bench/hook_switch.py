# SPDX-License-Identifier: MIT
"""HookSwitch: the `pfprof record` Python hook's wrappers (the attributes
of torch it replaced, marked _pfprof) and the methods they wrap, to put
one set or the other in place between steps: the bench workloads'
--alternate, which measures the wrappers' cost in one process."""
import torch

NAMES = ("to", "cuda", "cpu", "item", "pin_memory", "record_stream", "synchronize", "empty")


class HookSwitch:
    def __init__(self):
        self.slots = []
        for owner in (torch.Tensor, torch.cuda, torch):
            for name in NAMES:
                m = owner.__dict__.get(name) if isinstance(owner, type) else getattr(owner, name, None)
                if m is not None and getattr(m, "_pfprof", False):
                    self.slots.append((owner, name, m, m.__wrapped__))

    def set(self, on):
        for owner, name, wrapped, bare in self.slots:
            setattr(owner, name, wrapped if on else bare)
