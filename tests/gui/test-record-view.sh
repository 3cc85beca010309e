#!/bin/sh
# SPDX-License-Identifier: MIT
# test-record-view.sh PFPROF: `pfprof record --view` opens the timeline app
# on the trace while the program still runs, in a session of its own, and
# leaves it open when the program ends. No GPU: the program stands in for
# the collector (it writes the trace and the status file the collector
# would). Run under xvfb-run-test.sh (a display for the window).
set -u
pfprof=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/pfprof-record-view.XXXXXX") || exit 1
trace="$dir/live.pfprof"
echo "1..2"
cat >"$dir/fake.sh" <<'SH'
# What the collector does in a traced process: the trace, and the status.
status="$PFPROF_STATUS_DIR/$$.status"
"$PFPROF_BIN" generate --steps 200 -o "$PFPROF_OUTPUT" >/dev/null || exit 9
printf 'pid=%s\ntrace=%s\nstate=tracing\n' $$ "$PFPROF_OUTPUT" >"$status"
i=0
while [ $i -lt 100 ]; do
  if pgrep -f -- "pfprof-view $PFPROF_OUTPUT" >/dev/null; then
    : >"$PFPROF_OUTPUT.seen"
    break
  fi
  sleep 0.1
  i=$((i + 1))
done
printf 'pid=%s\ntrace=%s\nstate=complete\n' $$ "$PFPROF_OUTPUT" >"$status"
SH
PFPROF_BIN=$pfprof "$pfprof" record --view --no-report -q -o "$trace" -- sh "$dir/fake.sh"
rc=$?
if [ $rc -eq 0 ] && [ -e "$trace.seen" ]; then
  echo "ok 1 - the window opened on the trace while the program ran"
else
  echo "not ok 1 - the window opened on the trace while the program ran (rc $rc)"
fi
sleep 0.5
view=$(pgrep -f -- "pfprof-view $trace" | head -1)
if [ -n "$view" ] && [ "$(ps -o sid= -p "$view" | tr -d ' ')" = "$view" ]; then
  echo "ok 2 - it stays open after the program, in a session of its own"
else
  echo "not ok 2 - it stays open after the program, in a session of its own"
fi
[ -n "$view" ] && kill "$view"
rm -rf "$dir"
