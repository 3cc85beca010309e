#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs dependencies, builds pfprof twice (plain, and with ASan+UBSan)
# and runs the whole meson test suite in both. This is what CI runs
# (.ci/run, the test command in README's "Set up and test").
#
#   scripts/test.sh            # everything CI runs
#   scripts/test.sh --quick    # the plain build's suite only, for every day
#   PFPROF_NO_ASAN=1: skip the ASan+UBSan build
#   PFPROF_NO_PACKAGE=1: skip building and testing the .deb packages
#   PFPROF_NO_FUZZ=1, PFPROF_FUZZ_SECONDS=N: skip, or bound, the fuzzing
#
# --quick sets the three PFPROF_NO_* variables. Logs go under each build
# folder's meson-logs/ (pfprof-setup.log, pfprof-build.log, testlog.txt).
set -uo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
  --quick) export PFPROF_NO_ASAN=1 PFPROF_NO_PACKAGE=1 PFPROF_NO_FUZZ=1 ;;
  "") ;;
  *) echo "usage: scripts/test.sh [--quick]" >&2; exit 2 ;;
esac

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
  local logs=$dir/meson-logs
  if [ ! -d "$dir" ]; then
    # meson setup makes the folder, so its output waits in a temporary file.
    local setup_log
    setup_log=$(mktemp) || { failed=1; return; }
    if ! meson setup "$dir" "$@" >"$setup_log" 2>&1; then
      cat "$setup_log"; rm -f "$setup_log"; failed=1; return
    fi
    mkdir -p "$logs" && mv "$setup_log" "$logs/pfprof-setup.log"
  fi
  mkdir -p "$logs"
  echo "==> ninja -C $dir"
  if ! ninja -C "$dir" >"$logs/pfprof-build.log" 2>&1; then
    tail -50 "$logs/pfprof-build.log"; failed=1; return
  fi
  if grep -q "warning:" "$logs/pfprof-build.log"; then
    echo "==> compiler warnings in $dir:"; grep "warning:" "$logs/pfprof-build.log" | sort -u | head -20
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
