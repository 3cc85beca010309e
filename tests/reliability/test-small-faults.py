#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Smaller faults a hostile pass found (suite `reliability`).

Usage: test-small-faults.py PFPROF WORKDIR

- `report -o -` is standard output, not a file named '-';
- `-o` naming an input of the command is refused even with --force,
  a torch.profiler input as a native one;
- a 250-byte output name works (the temporary name is cut to fit);
- `view` without a display: exit 2 and one line;
- `render --from/--to` outside the trace, `--step -1`: exit 2;
- `--help`/`--version` into /dev/full: exit 2;
- a JSON array, and a result behind a byte-order mark, are judged as
  JSON results, not called damaged traces;
- a torch.profiler trace whose traceEvents comes late, after a first
  key Kineto does not write, is read by `report` as by `import`;
- RANK=-1 is "not a rank", not "not set";
- DataLoader stage times near INT64_MAX add up without overflow (held at
  the largest time) where the fuzzer found a signed overflow.
Prints TAP.
"""
import json
import os
import shutil
import sys

from reltest import (check, clear_dir, connect, env_for, file_digest, finish, generate, listdir_all,
                     run, setup)

PFPROF, WORK, D, TMP = setup("d", "tmp")
trace = generate(PFPROF, os.path.join(WORK, "t.pfprof"), "--steps", "6")


def one_line(r, needle=b""):
    return r.rc == 2 and len(r.err_lines) == 1 and r.err_lines[0].startswith(b"pfprof") \
        and needle in r.err_lines[0]


# -o -
r = run(PFPROF, ["report", "--format", "json", trace, "-o", "-"], TMP)
check("report -o -: the report on stdout", r.rc in (0, 1) and r.out.startswith(b"{"), r.describe())
check("report -o -: no file named '-'", not os.path.exists(os.path.join(TMP, "-"))
      and not os.path.exists("-"))

# -o the input itself
victim = os.path.join(D, "in.pfprof")
for cmd in (["report", "--format", "json", victim, "-o", victim, "--force"],
            ["render", victim, "-o", os.path.join(D, "link.png"), "--force"],
            ["export", victim, "-o", victim, "--force"],
            ["diff", "-b", victim, "-a", victim, "-o", victim, "--force"]):
    clear_dir(D)
    shutil.copyfile(trace, victim)
    if cmd[0] == "render":  # a hard link to the input, named like an image
        os.link(victim, os.path.join(D, "link.png"))
    before = file_digest(victim)
    r = run(PFPROF, cmd, TMP)
    check(f"{cmd[0]} -o its own input --force: refused", one_line(r, b"is an input"), r.describe())
    check(f"{cmd[0]} -o its own input --force: the trace unchanged", file_digest(victim) == before)

# -o a torch.profiler input: refused too, whatever the input's format
TINY = json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "GPU"}], "traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10.0, "dur": 5.0,
     "args": {"device": 0, "stream": 7, "correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 8.0,
     "dur": 1.0, "args": {"correlation": 1}}]})
kin = os.path.join(D, "k.json")
for cmd in (["import", kin, "-o", kin, "--force"],
            ["report", "--format", "json", kin, "-o", kin, "--force"],
            ["export", kin, "-o", kin, "--force"],
            ["diff", "-b", kin, "-a", kin, "-o", kin, "--force"]):
    clear_dir(D)
    with open(kin, "w") as f:
        f.write(TINY)
    r = run(PFPROF, cmd, TMP)
    check(f"{cmd[0]} -o its own torch.profiler input --force: refused", one_line(r, b"is an input"),
          r.describe())
    check(f"{cmd[0]} -o its own torch.profiler input --force: the trace unchanged",
          open(kin).read() == TINY)

# 250-byte names
name = "n" * 245
for cmd, ext in ((["report", "--format", "json", trace, "-o"], ".json"), (["render", trace, "-o"], ".png"),
                 (["export", trace, "-o"], ".json"),
                 (["export", "--format", "sqlite", trace, "-o"], ".pfprof")):
    clear_dir(D)
    out = os.path.join(D, name + ext)
    r = run(PFPROF, cmd + [out], TMP)
    check(f"{cmd[0]} {' '.join(cmd[1:3])}: a {len(name + ext)}-byte file name works",
          r.rc in (0, 1) and listdir_all(D) == [name + ext], r.describe())

# view without a display
env = env_for(TMP)
for k in ("DISPLAY", "WAYLAND_DISPLAY", "GDK_BACKEND"):
    env.pop(k, None)
import subprocess  # noqa: E402
p = subprocess.run([PFPROF, "view", trace], capture_output=True, env=env, timeout=60)
lines = [l for l in p.stderr.split(b"\n") if l]
check("view without a display: exit 2, one line saying so", p.returncode == 2 and len(lines) == 1
      and b"display" in lines[0], f"rc {p.returncode}; {p.stderr!r}")

# render ranges
for args, what in ((["--from", "100s", "--to", "200s"], "--from/--to outside the trace"),
                   (["--step", "-1"], "--step -1")):
    clear_dir(D)
    r = run(PFPROF, ["render", trace, "-o", os.path.join(D, "x.png"), *args], TMP)
    check(f"render {what}: exit 2, one line, no image", one_line(r) and listdir_all(D) == [],
          r.describe())

# stdout that cannot be written
for args in (["--help"], ["--version"], ["report", "--help"], ["report", trace]):
    with open("/dev/full", "wb") as full:
        p = subprocess.run([PFPROF, *args], stdout=full, stderr=subprocess.PIPE, env=env_for(TMP),
                           timeout=60)
    lines = [l for l in p.stderr.split(b"\n") if l]
    check(f"pfprof {' '.join(args[:2]).replace(trace, 'TRACE')} > /dev/full: exit 2, one line",
          p.returncode == 2 and len(lines) == 1 and b"standard output" in lines[0],
          f"rc {p.returncode}; {p.stderr!r}")

# JSON that is not a result, and a result behind a BOM
result = os.path.join(WORK, "r.json")
run(PFPROF, ["report", "--format", "json", trace, "-o", result, "--force"], TMP)
arr = os.path.join(WORK, "array.json")
with open(arr, "w") as f:
    f.write("[1, 2, 3]\n")
bom = os.path.join(WORK, "bom.json")
with open(result, "rb") as f, open(bom, "wb") as g:
    g.write(b"\xef\xbb\xbf" + f.read())
r = run(PFPROF, ["report", arr], TMP)
check("report of a JSON array: refused as not a result, not as a trace",
      one_line(r, b"not a pfprof-report/1 result") and b"damaged" not in r.err_lines[0]
      and b"corrupt" not in r.err_lines[0], r.describe())
r = run(PFPROF, ["report", bom], TMP)
check("report of a result behind a byte-order mark: read", r.rc in (0, 1) and r.err_lines == [],
      r.describe())

# One sniffing rule: report takes for a trace every JSON object import reads
events = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1 + 10 * i, "dur": 5,
           "args": {"device": 0, "stream": 7, "correlation": i + 1}} for i in range(4)]
late = os.path.join(WORK, "late.json")
with open(late, "w") as f:
    json.dump({"padding": "x" * 5000, "traceEvents": events}, f)
r = run(PFPROF, ["import", late, "-o", os.path.join(D, "late.pfprof"), "--force"], TMP)
check("import of a trace whose traceEvents starts after byte 5000: read", r.rc == 0, r.describe())
r = run(PFPROF, ["report", late], TMP)
check("report of the same trace: read as a trace too", r.rc in (0, 1) and r.err_lines == [],
      r.describe())

# RANK=-1
norank = os.path.join(WORK, "norank.pfprof")
shutil.copyfile(trace, norank)
c = connect(norank)
c.execute("DELETE FROM meta WHERE key = 'rank'")
c.close()
env = env_for(TMP)
for k in ("SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK"):
    env.pop(k, None)
env["RANK"] = "-1"
p = subprocess.run([PFPROF, "report", norank, "-o", os.path.join(D, "r-%r.txt")],
                   capture_output=True, env=env, timeout=60)
check("RANK=-1: said to be not a rank", p.returncode == 2 and b"RANK=-1 is not a rank" in p.stderr,
      f"rc {p.returncode}; {p.stderr!r}")
# Worker stage rows whose times sum past INT64_MAX (a fuzzed trace did).
huge = generate(PFPROF, os.path.join(WORK, "huge-stage.pfprof"), "--steps", "20", "--plant", "input-starved")
c = connect(huge)
n = c.execute("UPDATE worker_events SET value_a = 8646911295069569375 WHERE kind = 4").rowcount
c.close()
r = run(PFPROF, ["report", "--format", "json", huge], TMP)
stages = []
if r.rc in (0, 1):
    doc = json.loads(r.out)
    stages = [st["time_ns"] for f in doc["findings"] for st in (f.get("input_pipeline") or {}).get("stages", [])]
check(f"stage times near INT64_MAX ({n} rows): reported, held at the largest time, never negative",
      r.rc in (0, 1) and n > 1 and stages and all(0 <= t <= 2**63 - 1 for t in stages)
      and max(stages) == 2**63 - 1, (r.describe(), stages[:4]))
finish()
