#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Memory a torch.profiler trace or a merged result may cost (suite
`reliability`).

Usage: test-json-memory.py PFPROF WORKDIR

A 40 MB top-level member the importer does not read (5,000,000 small
objects beside four kernels) is stepped over, not parsed into a document
of some 60 times its size: `import` finishes under a 600 MiB address
space limit (RLIMIT_AS), plain and gzip-compressed. A 1 MB gzip file
holding 1 GiB of white space inside an ignored member is inflated through
a bounded window, not whole: it imports under the same limit.

A trace is read through a window whichever its container: 700,000
operators (skipped) and 70,000 kernels (kept), 170 MB of plain JSON and
the same as gzip (stored blocks, so that the compressed file is as large
as the text), each import under a 128 MiB address space, less than the
file: what is held is the window and the events kept, not the file. The
same events compressed import under it too, and `report` of the plain
file as well.

Merged results (`pfprof report r0.json r1.json`) are read for their
per-rank figures only: a 60 MB result (its findings repeated) and one
holding ten million empty objects in a member the merge does not read
merge under a 160 MiB address space, a small multiple of the file (they
took 302 MiB and 2.3 GiB when parsed whole).

Skipped in a sanitizer build, whose shadow memory needs more address
space than that. Prints TAP.
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
EVENTS_LIMIT = 128 << 20
N_OPS, N_KERNELS = 700_000, 70_000

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


def events_limited():
    resource.setrlimit(resource.RLIMIT_AS, (EVENTS_LIMIT, EVENTS_LIMIT))


def real_events(f):
    """Writes a torch.profiler trace of N_OPS operators, one kernel after
    every tenth, to the text file @f, in pieces."""
    f.write('{"schemaVersion": 1, "traceEvents": [\n')
    out = []
    for i in range(N_OPS):
        ts = 1000 + 10 * i
        out.append('  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, '
                   f'"ts": {ts}, "dur": 4, "args": {{"External id": {i}, '
                   '"Input Dims": [[64, 512], [512, 512]], "Input type": ["float", "float"], '
                   f'"Sequence number": {i}}}}},\n')
        if i % (N_OPS // N_KERNELS) == 0:
            k = i // (N_OPS // N_KERNELS)
            out.append(f'  {{"ph": "X", "cat": "kernel", "name": "sgemm_{k % 50}", "pid": 0, '
                       f'"tid": 7, "ts": {ts + 2}, "dur": 5, '
                       f'"args": {{"device": 0, "stream": 7, "correlation": {k + 1}}}}},\n')
        if len(out) >= 10000:
            f.write("".join(out))
            out = []
    f.write("".join(out))
    f.write('  {"ph": "i", "name": "end", "pid": 1, "tid": 1, "ts": 1}\n]}\n')


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

big = os.path.join(WORK, "real-events.json")
with open(big, "w") as f:
    real_events(f)
stored = big + ".gz"
packed = os.path.join(WORK, "real-events-6.json.gz")
with open(big, "rb") as f, gzip.open(stored, "wb", compresslevel=0) as g0, \
        gzip.open(packed, "wb", compresslevel=6) as g6:
    while chunk := f.read(8 << 20):
        g0.write(chunk)
        g6.write(chunk)
for path in (big, stored, packed):
    name = os.path.basename(path)
    size = os.path.getsize(path)
    out = os.path.join(WORK, name + ".pfprof")
    p = subprocess.run([PFPROF, "import", path, "-o", out, "--force"], capture_output=True,
                       preexec_fn=events_limited, timeout=300)
    check(f"{name} ({size} bytes, {N_KERNELS} kernels kept): import under a 128 MiB address space",
          p.returncode == 0 and f"{N_KERNELS} events".encode() in p.stdout,
          f"rc {p.returncode}; {p.stdout[-200:]!r} {p.stderr[-300:]!r}")
    if os.path.exists(out):
        os.unlink(out)
check("the plain and stored-gzip files are larger than the limit",
      min(os.path.getsize(big), os.path.getsize(stored)) > EVENTS_LIMIT)
p = subprocess.run([PFPROF, "report", "-q", "--format", "json", big],
                   capture_output=True, preexec_fn=events_limited, timeout=300)
check("report of the plain file under the same limit", p.returncode == 0,
      f"rc {p.returncode}; {p.stderr[-300:]!r}")
for path in (big, stored, packed):
    os.unlink(path)

MERGE_LIMIT = 160 << 20


def merge_limited():
    resource.setrlimit(resource.RLIMIT_AS, (MERGE_LIMIT, MERGE_LIMIT))


results = []
for r in (0, 1):
    t = os.path.join(WORK, f"rank{r}.pfprof")
    subprocess.run([PFPROF, "generate", "--rank", str(r), "--host", f"n{r}", "--steps", "20",
                    "--plant", "all", "-o", t, "--force"], check=True, capture_output=True)
    results.append(os.path.join(WORK, f"rank{r}.json"))
    subprocess.run([PFPROF, "report", "-q", "--format", "json", "-o", results[-1], "--force", t],
                   check=True, capture_output=True)
with open(results[0]) as f:
    result = json.load(f)
findings = result["findings"]
repeated = os.path.join(WORK, "rank0-findings.json")
with open(repeated, "w") as f:
    result["findings"] = findings * (60_000_000 // len(json.dumps(findings)))
    json.dump(result, f)
result["findings"] = findings
empties = os.path.join(WORK, "rank0-empties.json")
with open(empties, "w") as f:
    text = json.dumps(result)
    f.write(text[:-1] + ', "extra": [' + ",".join(["{}"] * 10_000_000) + "]}")
for path in (repeated, empties):
    name = os.path.basename(path)
    p = subprocess.run([PFPROF, "report", "-q", path, results[1]], capture_output=True,
                       preexec_fn=merge_limited, timeout=300)
    check(f"{name} ({os.path.getsize(path)} bytes) merged under a 160 MiB address space",
          p.returncode == 0 and b"2 ranks" in p.stdout, f"rc {p.returncode}; {p.stderr[-300:]!r}")
    os.unlink(path)
finish()
