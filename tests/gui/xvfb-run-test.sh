#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs a command in a private X server (Xvfb) with GTK set for a headless
# test: X11 backend, the cairo renderer, no accessibility bus, a private
# data folder (recent files). Exit 77 (skip) only if Xvfb is not installed.
# Usage: xvfb-run-test.sh COMMAND [ARGS...]
set -u
if ! command -v Xvfb >/dev/null 2>&1; then
  echo "1..0 # SKIP Xvfb is not installed"
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pfprof-xvfb.XXXXXX") || exit 1
# -displayfd: Xvfb picks a free display and writes its number when ready.
Xvfb -displayfd 3 -screen 0 1600x1000x24 -nolisten tcp 3>"$tmp/display" >"$tmp/xvfb.log" 2>&1 &
xvfb=$!
i=0
while [ ! -s "$tmp/display" ] && [ $i -lt 100 ]; do
  kill -0 "$xvfb" 2>/dev/null || break
  sleep 0.1
  i=$((i + 1))
done
if [ ! -s "$tmp/display" ]; then
  echo "Bail out! Xvfb did not start:"
  cat "$tmp/xvfb.log"
  kill "$xvfb" 2>/dev/null
  rm -rf "$tmp"
  exit 1
fi
DISPLAY=":$(cat "$tmp/display")"
export DISPLAY
export GDK_BACKEND=x11 GSK_RENDERER=cairo NO_AT_BRIDGE=1 GTK_A11Y=none GSETTINGS_BACKEND=memory
export XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
unset DBUS_SESSION_BUS_ADDRESS
"$@"
rc=$?
kill "$xvfb" 2>/dev/null
wait "$xvfb" 2>/dev/null
rm -rf "$tmp"
exit $rc
