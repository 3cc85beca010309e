# SPDX-License-Identifier: MIT
"""HookSwitch: the `pfprof record` Python hook's wrappers (the attributes
of torch it replaced, marked _pfprof) and the methods they wrap, to put
one set or the other in place between steps: the bench workloads'
--alternate, which measures the wrappers' cost in one process."""
import statistics

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

    def report(self, name, on, off):
        """Puts the wrappers back and prints the alternating steps' medians
        (seconds in @on, with the wrappers, and @off, without)."""
        self.set(True)
        a, b = statistics.median(on) * 1e3, statistics.median(off) * 1e3
        print(f"{name}: alternating steps: median step with the hook {a:.3f} ms, "
              f"without {b:.3f} ms: {100 * (a - b) / b:+.2f}%", flush=True)
