#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""proc_sampler.py --out FILE [--interval S] -- COMMAND [ARGS...]: runs
COMMAND and, while it runs, samples what `top` shows of its process tree
from /proc: every process under it (pid, parent, comm, utime+stime in
clock ticks, threads) and the machine's /proc/stat busy and total ticks,
every S seconds (default 0.2). Exits with COMMAND's status; SIGTERM and
SIGINT are passed on to it.

FILE, tab-separated: `#` lines first (clk_tck, cpu_count, affinity: the
CPUs the command may run on, cpu_max: the cgroup v2 quota or -), then per
sample a `S TIME` line (time.time()), a `P PID PPID COMM TICKS THREADS`
line per process of the tree, a `C BUSY TOTAL` line; and a `N PID
CMDLINE` line the first time a process is seen. tests/gpu/workers_summary.py
reads it."""
import os
import signal
import subprocess
import sys
import time


def cgroup_cpu_max():
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                parts = line.rstrip("\n").split(":", 2)
                if len(parts) == 3 and parts[0] == "0" and parts[1] == "":
                    with open("/sys/fs/cgroup" + parts[2].rstrip("/") + "/cpu.max") as g:
                        return g.read().strip().replace(" ", "/")
    except OSError:
        pass
    return "-"


def read_stat(pid):
    """(ppid, comm, ticks, threads) of PID, None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            s = f.read()
    except OSError:
        return None
    close = s.rfind(")")
    comm = s[s.find("(") + 1:close].replace("\t", " ")
    rest = s[close + 2:].split()
    # state ppid ... utime(14th field) stime(15th) ... num_threads(20th)
    return int(rest[1]), comm, int(rest[11]) + int(rest[12]), int(rest[17])


def machine_ticks():
    with open("/proc/stat") as f:
        cpu = [int(v) for v in f.readline().split()[1:]]
    idle = cpu[3] + (cpu[4] if len(cpu) > 4 else 0)
    return sum(cpu) - idle, sum(cpu)


def tree(root):
    """{pid: stat} of ROOT and every process under it."""
    stats = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = read_stat(int(name))
            if st is not None:
                stats[int(name)] = st
    children = {}
    for pid, st in stats.items():
        children.setdefault(st[0], []).append(pid)
    out, todo = {}, [root]
    while todo:
        pid = todo.pop()
        if pid in stats and pid not in out:
            out[pid] = stats[pid]
            todo.extend(children.get(pid, []))
    return out


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip().replace("\t", " ")
    except OSError:
        return ""


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit("usage: proc_sampler.py --out FILE [--interval S] -- COMMAND [ARGS...]")
    split = argv.index("--")
    opts, command = argv[:split], argv[split + 1:]
    out, interval = None, 0.2
    i = 0
    while i < len(opts):
        if opts[i] == "--out" and i + 1 < len(opts):
            out = opts[i + 1]
        elif opts[i] == "--interval" and i + 1 < len(opts):
            interval = float(opts[i + 1])
        else:
            sys.exit(f"proc_sampler.py: unknown option {opts[i]}")
        i += 2
    if out is None or not command:
        sys.exit("usage: proc_sampler.py --out FILE [--interval S] -- COMMAND [ARGS...]")
    f = open(out, "w")
    f.write(f"# clk_tck\t{os.sysconf('SC_CLK_TCK')}\n# cpu_count\t{os.cpu_count()}\n"
            f"# affinity\t{len(os.sched_getaffinity(0))}\n# cpu_max\t{cgroup_cpu_max()}\n")
    child = subprocess.Popen(command)

    def forward(sig, _frame):
        try:
            child.send_signal(sig)
        except OSError:
            pass
    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    seen = set()
    while True:
        t = time.time()
        procs = tree(child.pid)
        busy, total = machine_ticks()
        lines = [f"S\t{t:.3f}\n"]
        for pid, (ppid, comm, ticks, threads) in sorted(procs.items()):
            if pid not in seen:
                seen.add(pid)
                lines.append(f"N\t{pid}\t{cmdline(pid)}\n")
            lines.append(f"P\t{pid}\t{ppid}\t{comm}\t{ticks}\t{threads}\n")
        lines.append(f"C\t{busy}\t{total}\n")
        f.write("".join(lines))
        f.flush()
        try:
            rc = child.wait(timeout=max(0.0, interval - (time.time() - t)))
            break
        except subprocess.TimeoutExpired:
            continue
    f.close()
    return rc if rc >= 0 else 128 - rc


if __name__ == "__main__":
    sys.exit(main())
