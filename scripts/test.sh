#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs dependencies, builds pfprof twice (plain, and with ASan+UBSan)
# and runs the whole meson test suite in both. This is what CI runs
# (.ci/run, the test command in README's "Set up and test").
#
#   scripts/test.sh            # both builds
#   PFPROF_NO_ASAN=1 scripts/test.sh   # plain build only (quicker)
#   PFPROF_NO_PACKAGE=1: skip building and testing the .deb packages
#   PFPROF_NO_FUZZ=1, PFPROF_FUZZ_SECONDS=N: skip, or bound, the fuzzing
set -uo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh || exit 2

failed=0
total_pass=0
total_fail=0
total_skip=0

# Counts results from meson's JSON test log: meson 1.0's own summary is not
# a line CI tools recognise, so we print "N passed, N failed" ourselves.
count_results() {
  python3 - "$1" <<'PY'
import json, sys
p = f = s = 0
with open(sys.argv[1]) as log:
    for line in log:
        r = json.loads(line).get("result")
        if r in ("OK", "EXPECTEDFAIL"):
            p += 1
        elif r == "SKIP":
            s += 1
        else:
            f += 1
print(p, f, s)
PY
}

run_suite() {
  local dir=$1; shift
  echo "==> meson setup $dir $*"
  if [ ! -d "$dir" ]; then
    meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; failed=1; return; }
  fi
  echo "==> ninja -C $dir"
  if ! ninja -C "$dir" >"$dir.build.log" 2>&1; then
    tail -50 "$dir.build.log"; failed=1; return
  fi
  if grep -q "warning:" "$dir.build.log"; then
    echo "==> compiler warnings in $dir:"; grep "warning:" "$dir.build.log" | sort -u | head -20
  fi
  echo "==> meson test -C $dir"
  meson test -C "$dir" --print-errorlogs --num-processes 2 || failed=1
  if [ -f "$dir/meson-logs/testlog.json" ]; then
    read -r p f s < <(count_results "$dir/meson-logs/testlog.json")
    echo "==> $dir: $p passed, $f failed, $s skipped"
    total_pass=$((total_pass + p)); total_fail=$((total_fail + f)); total_skip=$((total_skip + s))
  fi
}

run_suite build-test
if [ -z "${PFPROF_NO_ASAN:-}" ]; then
  # b_lundef=false: the collector is a shared library and the sanitizer
  # runtime resolves its symbols at load time.
  run_suite build-test-asan -Db_sanitize=address,undefined -Db_lundef=false
fi

# The Debian packages, unpacked into a clean root and run from there.
if [ -z "${PFPROF_NO_PACKAGE:-}" ]; then
  echo "==> scripts/test-package.sh"
  if scripts/test-package.sh; then
    total_pass=$((total_pass + 1))
  else
    total_fail=$((total_fail + 1)); failed=1
  fi
fi

# Bounded fuzzing of the trace reader and analyzer (libFuzzer + ASan/UBSan).
if [ -z "${PFPROF_NO_FUZZ:-}" ]; then
  echo "==> tests/fuzz/run-fuzz.sh ${PFPROF_FUZZ_SECONDS:-60}"
  if tests/fuzz/run-fuzz.sh "${PFPROF_FUZZ_SECONDS:-60}"; then
    total_pass=$((total_pass + 1))
  else
    total_fail=$((total_fail + 1)); failed=1
  fi
fi

echo
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$failed" -eq 0 ] && [ "$total_fail" -eq 0 ]
