#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/gpu/pack-libs.sh [BUILD]: copies the shared libraries the pfprof
# binary links (all but glibc's) into BUILD/gpu-libs, to carry to the GPU
# machine with the build folder.
build=${1:-build-collector}
rm -rf "$build/gpu-libs"
mkdir -p "$build/gpu-libs"
for l in $(ldd "$build/cli/pfprof" | awk '$3 ~ /^\// {print $3}'); do
  case $(basename "$l") in
    libc.so*|libm.so*|libpthread*|libdl*|librt*|ld-linux*) ;;
    *) cp -L "$l" "$build/gpu-libs/" ;;
  esac
done
ls "$build/gpu-libs"
