#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Memory a torch.profiler trace may cost (suite `reliability`).

Usage: test-json-memory.py PFPROF WORKDIR

A 40 MB top-level member the importer does not read (5,000,000 small
objects beside four kernels) is stepped over, not parsed into a document
of some 60 times its size: `import` finishes under a 600 MiB address
space limit (RLIMIT_AS), plain and gzip-compressed. A 1 MB gzip file
holding 1 GiB of white space inside an ignored member is inflated through
a bounded window, not whole: it imports under the same limit. Skipped in a
sanitizer build, whose shadow memory needs more address space than that.
Prints TAP.
"""
import gzip
import json
import os
import resource
import subprocess
import sys

from reltest import check, finish, setup

PFPROF, WORK = setup()
LIMIT = 600 << 20

events = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1 + 10 * i, "dur": 5,
           "args": {"device": 0, "stream": 7, "correlation": i + 1}} for i in range(4)]
plain = os.path.join(WORK, "ignored-member.json")
with open(plain, "w") as f:
    f.write('{"traceEvents": ' + json.dumps(events) + ', "extra": [')
    f.write(",".join(['{"a": 1}'] * 5_000_000))
    f.write("]}")
packed = plain + ".gz"
with open(plain, "rb") as f, gzip.open(packed, "wb", compresslevel=6) as g:
    g.write(f.read())
padded = os.path.join(WORK, "padded-member.json.gz")
with gzip.open(padded, "wb", compresslevel=9) as g:
    g.write(('{"traceEvents": ' + json.dumps(events) + ', "pad": [').encode())
    chunk = b" " * (64 << 20)
    for _ in range(16):
        g.write(chunk)
    g.write(b"]}")


def limited():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


with open(PFPROF, "rb") as f:
    if b"__asan_init" in f.read():
        print("1..0 # SKIP sanitizer build")
        sys.exit(0)
for path in (plain, packed, padded):
    name = os.path.basename(path)
    out = os.path.join(WORK, name + ".pfprof")
    p = subprocess.run([PFPROF, "import", path, "-o", out, "--force"], capture_output=True,
                       preexec_fn=limited, timeout=300)
    check(f"{name} ({os.path.getsize(path)} bytes): import under a 600 MiB address space",
          p.returncode == 0 and b"4 events" in p.stdout, f"rc {p.returncode}; {p.stderr[-300:]!r}")
finish()
