#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""call_pack.py --out DIR [--max-files N] [--max-mib M] GROUP=FOLDER...

Packs the files under each FOLDER (groups in priority order, files in name
order) into plain tar volumes DIR/call-1.tar, call-2.tar, ..., each at most
M MiB (default 15.5) and at most N of them (default 7), members named
GROUP/PATH. Files should be compact already (xz, gzip). What does not fit
is left out and listed. Prints one line per volume and one per file left
out; exits 0."""
import argparse
import os
import tarfile

HEADER = 1536  # a tar member's header and padding, at most, roughly


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--max-files", type=int, default=7)
    p.add_argument("--max-mib", type=float, default=15.5)
    p.add_argument("groups", nargs="+")
    a = p.parse_args()
    limit = int(a.max_mib * 1024 * 1024) - 20480  # tar's end blocks
    entries = []
    for g in a.groups:
        name, _, folder = g.partition("=")
        if not os.path.isdir(folder):
            continue
        for dirpath, _, files in sorted(os.walk(folder)):
            for f in sorted(files):
                path = os.path.join(dirpath, f)
                entries.append((os.path.join(name, os.path.relpath(path, folder)), path, os.path.getsize(path)))
    volumes = [[]]
    sizes = [0]
    left = []
    for arc, path, size in entries:
        need = size + HEADER
        if need > limit:
            left.append((arc, size, "larger than a volume"))
            continue
        if sizes[-1] + need > limit:
            if len(volumes) >= a.max_files:
                left.append((arc, size, "no volume left"))
                continue
            volumes.append([])
            sizes.append(0)
        volumes[-1].append((arc, path))
        sizes[-1] += need
    os.makedirs(a.out, exist_ok=True)
    for i, vol in enumerate(volumes, 1):
        if not vol:
            continue
        name = os.path.join(a.out, f"call-{i}.tar")
        with tarfile.open(name, "w", format=tarfile.GNU_FORMAT) as t:
            for arc, path in vol:
                t.add(path, arcname=arc, recursive=False)
        groups = sorted({arc.split("/", 1)[0] for arc, _ in vol})
        print(f"packed call-{i}.tar: {len(vol)} files, {os.path.getsize(name) / 2**20:.1f} MiB ({', '.join(groups)})")
    for arc, size, why in left:
        print(f"LEFT OUT {arc} ({size / 2**20:.1f} MiB): {why}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
