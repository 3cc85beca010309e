#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/gpu/record-force.sh: `pfprof record --force` and the end-of-run
# summary with a real CUDA program (the CI side, tests/reliability/
# test-record.py, uses fake programs).
#
# Run from the repository root on the GPU machine, with the build folder
# carried (default build-collector; PFPROF_BUILD to change), like
# tests/gpu/run-all.sh. Checks:
#   1. --force over an existing trace with a CUDA program: exit 0, the
#      new trace has the name (complete=1, kernels), no hidden file left;
#   2. --force over an existing trace with a program that fails before
#      CUDA (exit 3): the old trace unchanged;
#   3. a CUDA program killed with SIGKILL (an unfinished WAL trace) in a
#      folder made read-only afterwards: `pfprof report` reads it and says
#      it is incomplete; nothing is created beside it.
# Exits 0 when all hold, 1 otherwise, 2 when the run itself failed.
set -u
root=$PWD
work=${OUT:-/tmp/pfprof-record-force}
rm -rf "$work"; mkdir -p "$work"
. "$root/tests/gpu/env.sh"
"$pfprof" --version >/dev/null || { echo "record-force: pfprof does not run here"; exit 2; }
failed=0
say() { echo "record-force: $*"; }
fail() { say "FAIL: $*"; failed=1; }

cat >"$work/tiny.py" <<'PY'
import os, signal, sys, time
import torch
x = torch.randn(1024, 1024, device="cuda")
for _ in range(50):
    y = (x @ x).relu_()
torch.cuda.synchronize()
if len(sys.argv) > 1 and sys.argv[1] == "kill":
    time.sleep(1.5)   # the writer commits every 0.5 s
    os.kill(os.getpid(), signal.SIGKILL)
print("tiny: done")
PY

cd "$work" || exit 2
"$pfprof" generate --steps 2 -o old.pfprof >/dev/null || exit 2
old_sum=$(sha256sum old.pfprof | cut -d' ' -f1)

# 1. A new trace replaces the old one.
cp old.pfprof run.pfprof
"$pfprof" record --force --no-report -o run.pfprof -- python3 tiny.py >log1.txt 2>&1
rc=$?
[ $rc -eq 0 ] || fail "1: exit $rc ($(tail -3 log1.txt))"
[ "$(sha256sum run.pfprof | cut -d' ' -f1)" != "$old_sum" ] || fail "1: run.pfprof is still the old trace"
"$pfprof" report -f json run.pfprof | python3 -c 'import json,sys; t=json.load(sys.stdin)["traces"][0]; sys.exit(0 if t["complete"] and t["events"] > 0 else 1)' \
  || fail "1: the new trace is not complete or empty"
ls -A | grep -q '^\.run\.pfprof' && fail "1: a hidden file is left: $(ls -A)"

# 2. A program that fails before CUDA keeps the old trace.
cp old.pfprof run2.pfprof
"$pfprof" record --force --no-report -o run2.pfprof -- python3 -c 'import sys; sys.exit(3)' >log2.txt 2>&1
rc=$?
[ $rc -eq 3 ] || fail "2: exit $rc, want 3"
[ "$(sha256sum run2.pfprof | cut -d' ' -f1)" = "$old_sum" ] || fail "2: the old trace changed"

# 3. An unfinished trace in a read-only folder.
mkdir ro
"$pfprof" record --no-report -o ro/k.pfprof -- python3 tiny.py kill >log3.txt 2>&1
rc=$?
[ $rc -eq 137 ] || fail "3: exit $rc, want 137"
grep -q "cannot be read" log3.txt && fail "3: the summary could not read the trace: $(cat log3.txt)"
before=$(ls -A ro | tr '\n' ' ')
chmod a-w ro
if [ "$(id -u)" -eq 0 ]; then say "3: running as root, the folder is not really read-only"; fi
"$pfprof" report ro/k.pfprof >rep3.txt 2>&1 || [ $? -eq 1 ] || fail "3: report failed: $(cat rep3.txt)"
grep -q "Incomplete trace" rep3.txt || fail "3: the report does not say the trace is incomplete"
after=$(ls -A ro | tr '\n' ' ')
chmod u+w ro
[ "$before" = "$after" ] || fail "3: files changed beside the trace: '$before' -> '$after'"

[ $failed -eq 0 ] && say "ALL PASSED"
exit $failed
