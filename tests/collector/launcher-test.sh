#!/bin/sh
# SPDX-License-Identifier: MIT
# launcher-test.sh PFPROF SCRATCH-DIR
#
# `pfprof record` on a machine without a GPU: usage errors are exit 2 with
# one "pfprof:" line; the program's exit code and signal death pass
# through; -o never replaces a file without --force and never writes
# through a symlink; the Python hook chains to the user's sitecustomize
# and does nothing without torch.
set -u
# meson passes paths relative to the build folder.
pfprof=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
dir=$(cd "$2" && pwd)/launcher-test.$$
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
fail=0

# expect WANT-RC WANT-STDERR-SUBSTRING -- ARGS...
expect() {
  want=$1; msg=$2; shift 3
  "$pfprof" "$@" >out.txt 2>err.txt
  rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: pfprof $* -> rc $rc, want $want; stderr: $(cat err.txt)"
    fail=1
  elif [ -n "$msg" ] && ! grep -q -- "$msg" err.txt; then
    echo "FAIL: pfprof $* -> stderr lacks '$msg': $(cat err.txt)"
    fail=1
  fi
}

expect 3 "no CUDA process was traced" -- record -- sh -c 'exit 3'
expect 0 "" -- record --quiet -- true
[ -s err.txt ] && { echo "FAIL: --quiet printed: $(cat err.txt)"; fail=1; }
expect 143 "" -- record -- sh -c 'kill -TERM $$'
expect 137 "" -- record -- sh -c 'kill -KILL $$'
expect 5 "" -- -- sh -c 'exit 5'
expect 2 "no program given" -- record
expect 2 "no program given" -- record --
expect 2 "put the program after" -- record python3 train.py
expect 2 "expects a number of seconds" -- record --delay soon -- true
expect 2 "expects a number of seconds" -- record --duration -1 -- true
expect 2 "Unknown option" -- record --bogus -- true
expect 127 "cannot run" -- record -- ./no-such-program
expect 2 "contradict" -- record --trace-launches --skip-launches -- true
expect 2 "unknown --capture-range 'nvtx'" -- record --capture-range=nvtx -- true
expect 2 "cannot be combined with --delay" -- record --capture-range=cuda-profiler-api --delay 5 -- true
expect 2 "cannot be combined with --delay" -- record --capture-range=cuda-profiler-api --duration 5 -- true
expect 2 "cannot be combined with --delay, --duration or --sample" -- record --capture-range=cuda-profiler-api --sample 1/4 -- true
expect 2 "expects ON/EVERY" -- record --sample 4/1 -- true
expect 2 "expects ON/EVERY" -- record --sample 1 -- true
expect 2 "expects ON/EVERY" -- record --sample 0/4 -- true
expect 2 "expects ON/EVERY" -- record --sample 1/4x -- true
# --sample reaches the collector as PFPROF_SAMPLE.
expect 0 "" -- record --quiet --sample 0.5/2 -- sh -c 'test "$PFPROF_SAMPLE" = 0.5/2'
# --capture-range reaches the collector as PFPROF_CAPTURE.
expect 0 "" -- record --quiet --capture-range=cuda-profiler-api -- sh -c 'test "$PFPROF_CAPTURE" = cuda-profiler-api'
expect 1 "" -- record --quiet -- sh -c 'test -n "${PFPROF_CAPTURE:-}"'
# --trace-launches reaches the collector as PFPROF_TRACE_LAUNCHES=1.
expect 0 "" -- record --quiet --trace-launches -- sh -c 'test "$PFPROF_TRACE_LAUNCHES" = 1'
expect 1 "" -- record --quiet -- sh -c 'test "${PFPROF_TRACE_LAUNCHES:-0}" = 1'
expect 0 "" -- record --help
grep -q "Usage" out.txt && grep -q "PFPROF_OUTPUT" out.txt || { echo "FAIL: --help does not document PFPROF_OUTPUT"; fail=1; }

echo keep >existing.pfprof
expect 3 "exists; use --force" -- record -o existing.pfprof -- true
[ "$(cat existing.pfprof)" = keep ] || { echo "FAIL: existing file changed"; fail=1; }
echo target >target.txt
ln -s target.txt link.pfprof
expect 2 "symbolic link" -- record --force -o link.pfprof -- true
[ "$(cat target.txt)" = target ] || { echo "FAIL: symlink target changed"; fail=1; }
# No trace was written: --force keeps the old file.
expect 0 "" -- record --force -o existing.pfprof -- true
[ "$(cat existing.pfprof)" = keep ] || { echo "FAIL: --force lost the old file though no trace was written"; fail=1; }

# A missing collector is said plainly, before the program runs.
PFPROF_COLLECTOR=$dir/missing.so "$pfprof" record -- sh -c 'echo ran' >out.txt 2>err.txt
rc=$?
if [ $rc -ne 2 ] || grep -q ran out.txt || ! grep -q "cannot be loaded" err.txt; then
  echo "FAIL: missing collector: rc $rc, $(cat err.txt)"
  fail=1
fi

# The program sees the injection variables and the hook.
"$pfprof" record -- sh -c 'echo "$CUDA_INJECTION64_PATH|$NVTX_INJECTION64_PATH|$PFPROF_OUTPUT"' >out.txt 2>err.txt
case "$(cat out.txt)" in
  */libpfprof-collector.so\|*/libpfprof-collector.so\|"$dir"/pfprof-%h-%p.pfprof) ;;
  *) echo "FAIL: environment: $(cat out.txt)"; fail=1 ;;
esac

if command -v python3 >/dev/null 2>&1; then
  mkdir site
  echo 'import os; os.environ["USER_SITE_RAN"] = "1"' >site/sitecustomize.py
  PYTHONPATH=$dir/site "$pfprof" record -- python3 -c '
import os, sys
assert os.environ.get("USER_SITE_RAN") == "1", "user sitecustomize did not run"
assert not any("pfprof-" in p for p in sys.path), sys.path
assert "torch" not in sys.modules, "the hook imported torch"
print("hook-ok")' >out.txt 2>err.txt
  rc=$?
  if [ $rc -ne 0 ] || ! grep -q hook-ok out.txt; then
    echo "FAIL: python hook: rc $rc $(cat out.txt err.txt)"
    fail=1
  fi
  # A sitecustomize-less Python runs unchanged, exit code included.
  "$pfprof" record -- python3 -c 'import sys; sys.exit(7)' >out.txt 2>err.txt
  [ $? -eq 7 ] || { echo "FAIL: python exit code"; fail=1; }
  # os._exit is wrapped (to finish the trace first) and keeps its status;
  # without the collector loaded in the process it just exits.
  "$pfprof" record -- python3 -c '
import os
assert getattr(os._exit, "_pfprof", False), "os._exit not wrapped"
os._exit(9)' >out.txt 2>err.txt
  rc=$?
  [ $rc -eq 9 ] || { echo "FAIL: os._exit under the hook: rc $rc $(cat err.txt)"; fail=1; }
  "$pfprof" record --no-python-hooks -- python3 -c '
import os
assert not getattr(os._exit, "_pfprof", False), "os._exit wrapped with hooks off"' >out.txt 2>err.txt
  [ $? -eq 0 ] || { echo "FAIL: --no-python-hooks still wraps os._exit: $(cat err.txt)"; fail=1; }
fi

cd / && rm -rf "$dir"
[ $fail -eq 0 ] && echo "ok: launcher behaves"
exit $fail
