#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/gpu/secret-env.sh: a recorded trace holds no secret from the
# environment, and --redact-args drops the command's arguments.
#
# Run from the repository root on the GPU machine, with the build folder
# carried (default build-collector; PFPROF_BUILD to change), like
# tests/gpu/run-all.sh. Records a tiny PyTorch program three times:
#   1. FAKE_TOKEN (and look-alikes of real credentials) in the environment:
#      none of their values may appear anywhere in the trace's bytes;
#   2. a secret passed as an argument, without --redact-args: it must
#      appear (meta.command_line), which shows the byte search works;
#   3. the same with --redact-args: it must not appear.
# Exits 0 when all hold, 1 otherwise, 2 when the run itself failed.
set -u
root=$PWD
work=${OUT:-/tmp/pfprof-secret}
rm -rf "$work"; mkdir -p "$work"
. "$root/tests/gpu/env.sh"
"$pfprof" --version >/dev/null || { echo "secret-env: pfprof does not run here"; exit 2; }

cat >"$work/tiny.py" <<'EOF'
import sys
import torch
x = torch.randn(1024, 1024, device="cuda")
for _ in range(20):
    y = (x @ x).relu_()
torch.cuda.synchronize()
print("tiny: done", float(y.sum()) != 0.0, len(sys.argv))
EOF

env_secret=pfprof-secret-1234
arg_secret=pfprof-argsecret-5678
failed=0

# found PATTERN FILES...: whether PATTERN's bytes occur in any of FILES.
found() {
  local pat=$1; shift
  for f in "$@"; do
    [ -f "$f" ] && grep -a -q -F -- "$pat" "$f" && return 0
  done
  return 1
}

verdict() { # NAME OK-or-FAIL DETAIL
  printf '%-46s %-4s %s\n' "$1" "$2" "$3"
  [ "$2" = ok ] || failed=1
}

# 1. Secrets in the environment.
t1=$work/env.pfprof
FAKE_TOKEN=$env_secret HF_TOKEN=hf_${env_secret} AWS_SECRET_ACCESS_KEY=aws-${env_secret} \
  WANDB_API_KEY=wandb-${env_secret} \
  "$pfprof" record -o "$t1" -- python3 "$work/tiny.py" >"$work/env.log" 2>&1
rc=$?
if [ $rc -ne 0 ] || [ ! -s "$t1" ]; then
  cat "$work/env.log"; echo "secret-env: the recording failed (exit $rc)"; exit 2
fi
if found "$env_secret" "$t1" "$t1-wal" "$t1-shm" "$t1-journal"; then
  verdict "environment secret absent from the trace" FAIL "found $env_secret in $t1"
else
  verdict "environment secret absent from the trace" ok "$(stat -c %s "$t1") bytes searched"
fi

# 2. A secret argument without --redact-args: stored (the search works).
t2=$work/args.pfprof
"$pfprof" record -o "$t2" -- python3 "$work/tiny.py" --token "$arg_secret" >"$work/args.log" 2>&1
if [ ! -s "$t2" ]; then
  cat "$work/args.log"; echo "secret-env: the recording failed"; exit 2
fi
if found "$arg_secret" "$t2"; then
  verdict "argument stored without --redact-args" ok "(the byte search finds what is there)"
else
  verdict "argument stored without --redact-args" FAIL "the search or the command_line is broken"
fi

# 3. The same with --redact-args.
t3=$work/redacted.pfprof
"$pfprof" record --redact-args -o "$t3" -- python3 "$work/tiny.py" --token "$arg_secret" \
  >"$work/redacted.log" 2>&1
if [ ! -s "$t3" ]; then
  cat "$work/redacted.log"; echo "secret-env: the recording failed"; exit 2
fi
if found "$arg_secret" "$t3" "$t3-wal" "$t3-shm" "$t3-journal"; then
  verdict "argument absent with --redact-args" FAIL "found $arg_secret in $t3"
else
  verdict "argument absent with --redact-args" ok \
    "command_line: $(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"select value from meta where key='command_line'\").fetchone())" "$t3")"
fi

[ $failed -eq 0 ] && echo "secret-env: ALL PASSED" || echo "secret-env: FAILED"
exit $failed
