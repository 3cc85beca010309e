"""What the third-party training loops share: the samples' step timer
(samples/sample_common.py), the --steps/--warmup flags, and a clean skip
(exit 77, one line) when a library is missing."""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "samples"))

SKIP = 77


def parser(description, steps=40, warmup=10, batch=8):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--steps", type=int, default=steps, help="timed steps")
    p.add_argument("--warmup", type=int, default=warmup, help="untimed steps first")
    p.add_argument("--batch", type=int, default=batch)
    p.add_argument("--workers", type=int, default=2, help="DataLoader workers")
    return p


def need(module):
    """Imports MODULE, or says it is missing and exits with SKIP."""
    import importlib

    try:
        return importlib.import_module(module)
    except Exception as e:  # ImportError, or a library that fails to load
        print(f"SKIP: {module} not usable here ({type(e).__name__}: {e})", flush=True)
        sys.exit(SKIP)
# SPDX-License-Identifier: MIT
