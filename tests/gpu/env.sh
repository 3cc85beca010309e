# SPDX-License-Identifier: MIT
# tests/gpu/env.sh: sourced by the GPU scripts. The pfprof binary is built
# on Debian 12 and carried; libraries it needs that the GPU machine lacks
# (GLib, cairo, ...) travel in $build/gpu-libs (make them with
# tests/gpu/pack-libs.sh) and only the missing ones are put on the path.
# Sets $pfprof.
build=${PFPROF_BUILD:-build-collector}
pfprof=$PWD/$build/cli/pfprof
if ! "$pfprof" --version >/dev/null 2>&1; then
  mkdir -p /tmp/pfprof-libs
  for l in "$PWD/$build"/gpu-libs/*; do
    ldconfig -p | grep -q "$(basename "$l")" || ln -sf "$l" /tmp/pfprof-libs/
  done
  export LD_LIBRARY_PATH=/tmp/pfprof-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
