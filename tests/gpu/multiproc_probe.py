# SPDX-License-Identifier: MIT
"""A launcher process without CUDA that starts two CUDA processes: each
must write its own trace."""
import subprocess
import sys

code = "import torch; x = torch.ones(1000, device='cuda'); torch.cuda.synchronize(); print('child ok')"
rcs = [subprocess.run([sys.executable, "-c", code]).returncode for _ in range(2)]
print("multiproc-probe", rcs)
sys.exit(max(rcs))
