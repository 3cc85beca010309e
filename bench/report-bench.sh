#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Times `pfprof report` on generated traces of 1M and 10M events, by phase
# (bench/pfprof-bench-report) and end to end (/usr/bin/time), against the
# floor: reading the same events out of SQLite and nothing else (format 2,
# what `pfprof generate` writes: every chunk's blob, nothing decoded).
# Method and figures: bench/RESULTS-report.md. The traces are kept in WORK-DIR and
# reused; delete them after a change of the trace format.
#   bench/report-bench.sh [BUILD-DIR] [WORK-DIR]
set -euo pipefail
build=${1:-build}
work=${2:-/tmp/pfprof-report-bench}
mkdir -p "$work"
for n in 1000000 10000000; do
  t="$work/bench-$n.pfprof"
  [ -f "$t" ] || "$build/cli/pfprof" generate --events "$n" -o "$t" >/dev/null
  echo "== $n events ($(stat -L -c %s "$t") bytes, format $(python3 -c "import sqlite3,sys; print(sqlite3.connect('file:'+sys.argv[1]+'?mode=ro', uri=True).execute(\"SELECT value FROM meta WHERE key='format_version'\").fetchone()[0])" "$t")), load average $(cut -d' ' -f1-3 /proc/loadavg)"
  "$build/bench/pfprof-bench-report" "$t"
  for fmt in text json; do
    /usr/bin/time -f "pfprof report --format $fmt: %e s wall, %U s user, %S s sys, %M KiB max RSS" \
      "$build/cli/pfprof" report -q --format "$fmt" "$t" >/dev/null
  done
done
