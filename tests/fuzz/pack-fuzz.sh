#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/fuzz/pack-fuzz.sh [BUILD]: packs the libFuzzer harnesses of BUILD
# (default build-fuzz, made by tests/fuzz/run-fuzz.sh, which also makes
# its corpora), the shared libraries they link (all but glibc's), the
# corpora and the dictionaries into .carry/fuzz.tar.xz, for
# tests/fuzz/fuzz-call.sh on a machine of many cores:
#   mkdir -p .carry && tar -xJf .carry/fuzz.tar.xz -C .carry &&
#     bash tests/fuzz/fuzz-call.sh .carry/fuzz 420
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-fuzz}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
d="$out/fuzz"
mkdir -p "$d/fuzz" "$d/libs"
for h in chunk trace json kineto; do
  cp "$build/tests/fuzz/pfprof-fuzz-$h" "$d/fuzz/"
  strip --strip-debug "$d/fuzz/pfprof-fuzz-$h"
  for l in $(ldd "$build/tests/fuzz/pfprof-fuzz-$h" | awk '$3 ~ /^\// {print $3}'); do
    case $(basename "$l") in
      libc.so*|libm.so*|libpthread*|libdl*|librt*|ld-linux*) ;;
      *) cp -L "$l" "$d/libs/" ;;
    esac
  done
done
cp -r "$build/fuzz-corpus" "$d/corpus-trace"
cp -r "$build/fuzz-corpus-chunks" "$d/corpus-chunks"
cp -r "$build/fuzz-corpus-json" "$d/corpus-json"
cp -r "$build/fuzz-corpus-kineto" "$d/corpus-kineto"
cp tests/fuzz/pfprof-fuzz-json.dict tests/fuzz/pfprof-fuzz-kineto.dict "$d/"
git rev-parse --short HEAD >"$d/COMMIT"
mkdir -p .carry
tar -C "$out" -cJf .carry/fuzz.tar.xz fuzz
echo "pack-fuzz: .carry/fuzz.tar.xz, $(du -h .carry/fuzz.tar.xz | cut -f1)"
