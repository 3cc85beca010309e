#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/gpu/pack-carry.sh BUILD [BASE]: makes .carry/gpu.tar.xz, what a
# GPU call untars to .carry/gpu (PFPROF_BUILD=.carry/gpu), from BUILD, a
# build with -Dcollector=enabled:
#   gpu/cli/pfprof, gpu/collector/libpfprof-collector.so
#   gpu/bench/libpfprof-cupti-floor.so   (bench/collector-overhead.sh's floor)
#   gpu/bench/pfprof-bench-cupti-calls   (the callback path's costs, if built)
#   gpu/COMMIT                           (the commit BUILD was made from)
#   gpu/gpu-libs/                        (tests/gpu/pack-libs.sh BUILD)
#   gpu/base/cli/pfprof, gpu/base/collector/libpfprof-collector.so
#                                        (only with BASE: the build to compare
#                                        with, PFPROF_BASE=.carry/gpu/base)
# Debug sections are stripped, so the archive stays small (it prints its
# size; the device tree carries 64 MiB in all).
set -eu
build=${1:?usage: tests/gpu/pack-carry.sh BUILD [BASE]}
base=${2:-}
for f in "$build/cli/pfprof" "$build/collector/libpfprof-collector.so" "$build/bench/libpfprof-cupti-floor.so"; do
  [ -f "$f" ] || { echo "pack-carry: $f is missing (meson setup $build -Dcollector=enabled; ninja -C $build)" >&2; exit 2; }
done
if [ -n "$base" ]; then
  for f in "$base/cli/pfprof" "$base/collector/libpfprof-collector.so"; do
    [ -f "$f" ] || { echo "pack-carry: $f is missing" >&2; exit 2; }
  done
fi
sh tests/gpu/pack-libs.sh "$build" >/dev/null
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/gpu/cli" "$stage/gpu/collector" "$stage/gpu/bench"
strip --strip-debug -o "$stage/gpu/cli/pfprof" "$build/cli/pfprof"
strip --strip-debug -o "$stage/gpu/collector/libpfprof-collector.so" "$build/collector/libpfprof-collector.so"
strip --strip-debug -o "$stage/gpu/bench/libpfprof-cupti-floor.so" "$build/bench/libpfprof-cupti-floor.so"
# Where the build has it (a CUDA stub library to link it with).
if [ -f "$build/bench/pfprof-bench-cupti-calls" ]; then
  strip --strip-debug -o "$stage/gpu/bench/pfprof-bench-cupti-calls" "$build/bench/pfprof-bench-cupti-calls"
fi
cp -r "$build/gpu-libs" "$stage/gpu/gpu-libs"
# The commit the build was made from (with "+dirty" for uncommitted
# changes), which the GPU machine's copy of the tree cannot tell: its
# scripts read gpu/COMMIT (bench/collector-overhead.sh's header).
echo "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- 2>/dev/null || echo +dirty)" \
  >"$stage/gpu/COMMIT"
if [ -n "$base" ]; then
  mkdir -p "$stage/gpu/base/cli" "$stage/gpu/base/collector"
  strip --strip-debug -o "$stage/gpu/base/cli/pfprof" "$base/cli/pfprof"
  strip --strip-debug -o "$stage/gpu/base/collector/libpfprof-collector.so" "$base/collector/libpfprof-collector.so"
  echo "$(git -C "$base" rev-parse --short HEAD 2>/dev/null || echo unknown)" >"$stage/gpu/base/COMMIT"
fi
mkdir -p .carry
tar -C "$stage" -cJf .carry/gpu.tar.xz.tmp gpu
mv .carry/gpu.tar.xz.tmp .carry/gpu.tar.xz
echo "pack-carry: .carry/gpu.tar.xz, $(wc -c <.carry/gpu.tar.xz) bytes:"
tar tJf .carry/gpu.tar.xz | grep -v '/$' | grep -v gpu-libs/ | sed 's/^/  /'
echo "  gpu/gpu-libs/: $(ls "$build/gpu-libs" | wc -l) libraries"
