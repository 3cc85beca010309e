#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Traces whose ids are chosen to make pfprof's work grow faster than the
file (suite `reliability`).

Usage: test-hostile-scale.py PFPROF WORKDIR

- an Nsight Systems export whose 200,000 StringIds ids differ only above
  bit 31, and a torch.profiler trace whose 200,000 thread names have
  distinct pids and one tid: keys packed as (high << 32 | low) that a hash
  of the low half puts in one bucket (n² probes: minutes);
- 600,000 streams, one kernel each: the index's stream lookup was a scan
  per kernel (a minute);
- 60,000 devices with 8 kernels each: the rules, the step ledger and
  step detection passed over every record once per device (over a
  minute).
Each must be read and analysed in linear work. The bound is a hang guard
(the plain build takes well under a second for each; before, each took
a minute or more), not a timing. Prints TAP.
"""
import json
import os
import sqlite3
import sys
import time

from reltest import check, connect, finish, generate, note, run, setup
from reltest import nsys_schema as reltest_nsys_schema

PFPROF, WORK, OUT, TMP, SRC = setup("out", "tmp", "src")
nsys_schema = reltest_nsys_schema()
import kineto_schema  # noqa: E402 (tests/interop, on the path from nsys_schema())

# Far above what each input takes in linear work under ASan on a busy
# 2-core machine, far below what it took in quadratic work.
GUARD = 30

rows = generate(PFPROF, os.path.join(SRC, "rows.pfprof"), "--steps", "20")


def timed(what, args):
    r = run(PFPROF, args, TMP, timeout=GUARD)
    note(f"{what}: exit {r.rc} in {r.secs:.2f} s")
    check(f"{what}: read and analysed within {GUARD} s, exit 0", r.rc == 0 and not r.crashed(),
          r.describe())
    return r


# Nsight Systems: StringIds ids (i + 1) << 32.
nsys = os.path.join(SRC, "stringids.sqlite")
nsys_schema.convert(rows, nsys)
db = sqlite3.connect(nsys, isolation_level=None)
db.execute("BEGIN")
db.executemany("INSERT INTO StringIds (id, value) VALUES (?, ?)",
               (((i + 1) << 32, f"s{i}") for i in range(200000)))
db.execute("COMMIT")
db.close()
timed("nsys export with 200,000 StringIds ids apart only above bit 31", ["report", nsys])

# torch.profiler: 200,000 thread_name events of distinct pids, one tid.
kineto = os.path.join(SRC, "pids.json")
kineto_schema.convert(rows, kineto)
with open(kineto) as f:
    doc = json.load(f)
doc["traceEvents"] += [{"ph": "M", "name": "thread_name", "pid": 1000 + i, "tid": 7,
                        "args": {"name": f"t{i}"}} for i in range(200000)]
with open(kineto, "w") as f:
    json.dump(doc, f)
timed("torch.profiler trace with 200,000 thread names of distinct pids", ["report", kineto])

# 600,000 streams, one kernel on each.
streams = os.path.join(SRC, "streams.pfprof")
with open(rows, "rb") as a, open(streams, "wb") as b:
    b.write(a.read())
c = connect(streams)
t0 = c.execute("SELECT min(start_ns) FROM kernels").fetchone()[0]
k = list(c.execute("SELECT * FROM kernels LIMIT 1").fetchone())
N_STREAMS = 600000
c.execute("BEGIN")
c.executemany(f"INSERT INTO kernels VALUES ({','.join('?' * len(k))})",
              ([t0 + i * 1000, 500] + k[2:4] + [100 + i] + k[5:] for i in range(N_STREAMS)))
c.executemany("INSERT INTO streams VALUES (?, 1, 0, 0, 0, 0)", ((100 + i,) for i in range(N_STREAMS)))
c.execute("COMMIT")
c.close()
timed(f"{N_STREAMS:,} streams, one kernel each", ["report", "--format", "json", streams])

# 60,000 devices, 8 kernels each.
devices = os.path.join(SRC, "devices.pfprof")
with open(rows, "rb") as a, open(devices, "wb") as b:
    b.write(a.read())
c = connect(devices)
N_DEVICES, PER = 60000, 8
c.execute("BEGIN")
c.executemany(f"INSERT INTO kernels VALUES ({','.join('?' * len(k))})",
              ([t0 + (i * PER + j) * 100, 50, 100 + i] + k[3:]
               for i in range(N_DEVICES) for j in range(PER)))
c.execute("COMMIT")
c.close()
timed(f"{N_DEVICES:,} devices with {PER} kernels each", ["report", "--format", "json", devices])

finish()
