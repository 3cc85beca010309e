#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/fuzz/fuzz-call.sh DIR SECS [JOBS]: runs the four libFuzzer
# harnesses side by side for SECS seconds on a machine of many cores, and
# prints each one's executions, coverage and peak memory, and their total.
# DIR holds what tests/fuzz/pack-fuzz.sh packed: fuzz/ (the harnesses of
# build-fuzz), libs/ (the shared libraries they link), corpus-{trace,chunks,
# json,kineto}/ and the dictionaries. JOBS (default: the cores) are shared
# out: a third to the chunk codec (fast), the rest evenly. Crashes, leaks,
# sanitizer reports and timeouts land in DIR/artifacts; the script exits 1
# when there is one, with the log's tail.
set -uo pipefail
dir=$1
secs=$2
jobs=${3:-$(nproc)}
export LD_LIBRARY_PATH="$dir/libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"
mkdir -p "$dir/artifacts" "$dir/logs"
chunk_jobs=$(( jobs / 3 > 0 ? jobs / 3 : 1 ))
rest=$(( (jobs - chunk_jobs) / 3 > 0 ? (jobs - chunk_jobs) / 3 : 1 ))
# harness corpus max_len jobs [flags]
plan=(
  "pfprof-fuzz-chunk corpus-chunks 200000 $chunk_jobs"
  "pfprof-fuzz-trace corpus-trace 4000000 $rest"
  "pfprof-fuzz-json corpus-json 20000 $rest -dict=$dir/pfprof-fuzz-json.dict"
  "pfprof-fuzz-kineto corpus-kineto 200000 $(( jobs - chunk_jobs - 2 * rest > 0 ? jobs - chunk_jobs - 2 * rest : 1 )) -dict=$dir/pfprof-fuzz-kineto.dict"
)
pids=()
for p in "${plan[@]}"; do
  set -- $p
  h=$1 corpus=$2 max_len=$3 n=$4
  shift 4
  for j in $(seq 1 "$n"); do
    "$dir/fuzz/$h" "$@" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len="$max_len" \
      -print_final_stats=1 -artifact_prefix="$dir/artifacts/$h-$j-" "$dir/$corpus" \
      >"$dir/logs/$h-$j.log" 2>&1 &
    pids+=($!)
  done
done
failed=0
for pid in "${pids[@]}"; do
  wait "$pid" || failed=1
done
total=0
for p in "${plan[@]}"; do
  set -- $p
  h=$1
  execs=0 rss=0 cov=""
  for log in "$dir/logs/$h"-*.log; do
    e=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    r=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
    execs=$(( execs + ${e:-0} ))
    [ "${r:-0}" -gt "$rss" ] && rss=${r:-0}
    c=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)
    cov=${c:-$cov}
  done
  total=$(( total + execs ))
  echo "$h: $(ls "$dir/logs/$h"-*.log | wc -l) jobs, $execs executions, last $cov, peak ${rss} MB"
done
echo "total: $total executions in ${secs} s"
if [ "$failed" -ne 0 ] || [ -n "$(ls -A "$dir/artifacts")" ]; then
  for log in "$dir"/logs/*.log; do
    grep -qE "ERROR: libFuzzer|ERROR: AddressSanitizer|runtime error|SUMMARY: " "$log" && { echo "== $log"; tail -30 "$log"; }
  done
  echo "fuzz-call: a harness found a problem: $(ls "$dir/artifacts" | head -5)" >&2
  exit 1
fi
