#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The set-up command in README's "Set up and test": install dependencies,
# build, and run pfprof's main job. With an NVIDIA GPU and PyTorch, it
# profiles a bundled sample training script; without, it reports on a
# trace recorded from that same script on an H200 (samples/traces/).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
if [ ! -d build ]; then
  meson setup build >/dev/null
fi
ninja -C build >/dev/null
pfprof=build/cli/pfprof

# README's examples type `pfprof`: the built one runs from the build tree
# (it finds the collector beside it), so PATH is all that is missing.
path_hint() {
  echo
  echo "==> pfprof is $PWD/$pfprof; to type \`pfprof\` as README does:"
  echo "    export PATH=\"$PWD/build/cli:\$PATH\""
}

sample=samples/pageable_copies.py
trace=samples/traces/a_pageable.pfprof

if [ -f build/collector/libpfprof-collector.so ] && command -v nvidia-smi >/dev/null 2>&1 \
   && nvidia-smi -L >/dev/null 2>&1 \
   && python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  echo "==> GPU found: pfprof -- python3 $sample"
  rc=0; "$pfprof" --force -o pfprof-quickstart.pfprof -- python3 "$sample" || rc=$?
  path_hint; exit "$rc"
fi

if [ -f "$trace" ]; then
  echo "==> no GPU here: pfprof report $trace (recorded on an H200 from $sample)"
  rc=0; "$pfprof" report "$trace" || rc=$?
  path_hint; exit "$rc"
fi

# A checkout without recorded samples: a synthetic trace with a planted
# pageable-copy problem.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$pfprof" generate --plant pageable -o "$tmp/synthetic.pfprof"
echo "==> no GPU and no recorded sample: pfprof report on a synthetic trace"
rc=0; "$pfprof" report "$tmp/synthetic.pfprof" || rc=$?
path_hint; exit "$rc"
