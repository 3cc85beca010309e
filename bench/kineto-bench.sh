#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Times `pfprof report` on a generated torch.profiler (Kineto) trace of 1M
# events, plain and gzip (bench/kineto_trace.py), by phase
# (bench/pfprof-bench-report: load = the Kineto importer) and end to end
# (/usr/bin/time). Results: bench/RESULTS-kineto.md. The traces are kept in
# WORK-DIR and reused.
#   bench/kineto-bench.sh [BUILD-DIR] [WORK-DIR] [EVENTS]
set -euo pipefail
build=${1:-build}
work=${2:-/tmp/pfprof-kineto-bench}
n=${3:-1000000}
mkdir -p "$work"
json="$work/kineto-$n.pt.trace.json"
[ -f "$json" ] || python3 "$(dirname "$0")/kineto_trace.py" "$n" "$json"
[ -f "$json.gz" ] || gzip -1 -k "$json"
for t in "$json" "$json.gz"; do
  echo "== $(basename "$t"): $(stat -L -c %s "$t") bytes, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  "$build/bench/pfprof-bench-report" "$t"
  for fmt in text json; do
    /usr/bin/time -f "pfprof report --format $fmt: %e s wall, %U s user, %S s sys, %M KiB max RSS" \
      "$build/cli/pfprof" report -q --format "$fmt" "$t" >/dev/null
  done
done
