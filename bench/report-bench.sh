#!/usr/bin/env bash
# Times `pfprof report` on generated traces of 1M and 10M events, by phase
# (bench/pfprof-bench-report) and end to end (/usr/bin/time), against a
# plain SQLite scan of the same tables. Results: bench/RESULTS-report.md.
#   bench/report-bench.sh [BUILD-DIR] [WORK-DIR]
set -euo pipefail
build=${1:-build}
work=${2:-/tmp/pfprof-report-bench}
mkdir -p "$work"
for n in 1000000 10000000; do
  t="$work/bench-$n.pfprof"
  [ -f "$t" ] || "$build/cli/pfprof" generate --events "$n" -o "$t" >/dev/null
  echo "== $n events ($(stat -L -c %s "$t") bytes), load average $(cut -d' ' -f1-3 /proc/loadavg)"
  "$build/bench/pfprof-bench-report" "$t"
  for fmt in text json; do
    /usr/bin/time -f "pfprof report --format $fmt: %e s wall, %U s user, %S s sys, %M KiB max RSS" \
      "$build/cli/pfprof" report -q --format "$fmt" "$t" >/dev/null
  done
done
