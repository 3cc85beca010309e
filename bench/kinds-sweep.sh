#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/kinds-sweep.sh [ROUNDS]: what each CUPTI activity kind costs the
# collector on a launch-bound loop, to choose the default set.
#
# Run on the GPU machine from the repository root with the build folder
# carried (PFPROF_BUILD, default build-collector). Runs
#   python3 bench/tiny_kernels.py --kernels 1000 --steps 200 --warmup 20
# bare and under `pfprof record` with the kind sets below (PFPROF_KINDS,
# the collector's hidden benchmark switch), every variant once per round,
# ROUNDS rounds (default 3), interleaved so drifts hit all alike; each
# round starts one variant later. Prints one line per run (median step,
# trace bytes, records written, dropped, the trace's meta.activity_kinds,
# API rows and how many copies join their API row) and a summary: the
# median of the per-run medians and the overhead over bare.
#
# SET=incremental runs, instead of removing one kind at a time from all ten,
# kernel+memcpy+memset (kmm), kmm+api-callbacks (kmm+cb) and kmm+cb plus one
# other kind each (+stream, +cuda_event, +memory2, +overhead; the default is
# kmm+cb+sync), and the default with `pfprof record --trace-launches`.
# VARIANTS="bare default ..." picks any variants named in the script
# (also k+memcpy, kmm+cb+runtime); BUDGET_S (default 350) stops
# starting new rounds when the next one would not fit. Logs and traces
# go to $OUT (or /tmp/pfprof-kinds-sweep); traces are deleted after they
# are measured unless KEEP_TRACES=1.
set -u
rounds=${1:-3}
. tests/gpu/env.sh
out=${OUT:-/tmp/pfprof-kinds-sweep}
mkdir -p "$out"
exec > >(tee "$out/sweep.txt") 2>&1
export PYTHONUNBUFFERED=1
budget=${BUDGET_S:-350}
workload=(python3 bench/tiny_kernels.py --kernels 1000 --steps 200 --warmup 20)
# WORKLOAD="CMD ARGS" replaces it (a dry run of this script without a GPU).
[ -z "${WORKLOAD:-}" ] || read -ra workload <<<"$WORKLOAD"

all10=kernel,memcpy,memset,sync,runtime,driver,cuda_event,stream,memory2,overhead
# all10 without the kinds named in $1 (comma list)
without() { python3 -c "import sys; drop=set(sys.argv[2].split(',')); print(','.join(k for k in sys.argv[1].split(',') if k not in drop))" "$all10" "$1"; }

declare -A kinds
kinds[all10]=$all10
kinds[kernel]=kernel
kinds[no-api]=$(without runtime,driver)
kinds[no-api+cb]=$(without runtime,driver),api-callbacks
kinds[no-cuda_event]=$(without cuda_event)
kinds[no-sync]=$(without sync)
kinds[no-memory2]=$(without memory2)
kinds[no-overhead]=$(without overhead)
kinds[default]=""   # no PFPROF_KINDS: what pfprof records by default
kinds[trace-launches]=""   # the default plus `pfprof record --trace-launches`
declare -A flags
flags[trace-launches]=--trace-launches
# Incremental: kinds added one at a time on top of kernels, copies and
# memsets (what the rules cannot do without) and the API callbacks.
kinds[k+memcpy]=kernel,memcpy
kinds[kmm]=kernel,memcpy,memset
kinds[kmm+cb]=kernel,memcpy,memset,api-callbacks
for k in sync stream cuda_event memory2 overhead runtime; do
  kinds[kmm+cb+$k]=kernel,memcpy,memset,api-callbacks,$k
done
case ${SET:-removal} in
  removal) preset="bare all10 kernel no-api no-api+cb no-cuda_event no-sync no-memory2 no-overhead default" ;;
  incremental) preset="bare kernel kmm kmm+cb kmm+cb+stream kmm+cb+cuda_event kmm+cb+memory2 kmm+cb+overhead default trace-launches" ;;
  *) echo "SET is removal or incremental" >&2; exit 2 ;;
esac
order=(${VARIANTS:-$preset})
for v in "${order[@]}"; do
  [ "$v" = bare ] || [ -n "${kinds[$v]+set}" ] || { echo "unknown variant $v" >&2; exit 2; }
done

echo "kinds-sweep: $rounds rounds, variants: ${order[*]}"
echo "collector: $($pfprof --version 2>&1 | head -1), build $build"
for v in "${order[@]}"; do
  [ "$v" = bare ] || echo "  $v: PFPROF_KINDS=${kinds[$v]:-(unset)} ${flags[$v]:-}"
done

# Facts about one trace from its meta (and, for v1 row tables, the API
# rows and the copies whose correlation id finds one).
trace_facts() {
  python3 - "$1" <<'EOF'
import sqlite3, sys
try:
    db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    meta = dict(db.execute("select key, value from meta"))
except Exception as e:
    print(f"records=? dropped=? kinds=? (cannot read: {e})")
    sys.exit(0)
api = joined = copies = "?"
try:
    api = db.execute("select count(*) from api_calls").fetchone()[0]
    copies = db.execute("select count(*) from memcpys").fetchone()[0]
    joined = db.execute("select count(*) from memcpys where correlation_id in "
                        "(select correlation_id from api_calls)").fetchone()[0]
except Exception:
    pass  # not a v1 row-table trace
drop = int(meta.get("dropped_records", 0) or 0) + int(meta.get("api_callback_dropped", 0) or 0)
print(f"records={meta.get('records_written', '?')} dropped={drop} api={api} copies_joined={joined}/{copies} "
      f"cb_ids={meta.get('api_callbacks_enabled', '-')} kinds={meta.get('activity_kinds', '?')}")
EOF
}

# run VARIANT ROUND: one run; appends "VARIANT MS" to $out/ms.txt
run_one() {
  local v=$1 r=$2 log=$out/$1-r$2.log f=$out/$1-r$2.pfprof ms facts="" size=0 t0=$SECONDS
  if [ "$v" = bare ]; then
    "${workload[@]}" >"$log" 2>&1
  else
    rm -f "$f"
    if [ -n "${kinds[$v]}" ]; then
      PFPROF_KINDS=${kinds[$v]} "$pfprof" record --quiet --no-report -o "$f" -- "${workload[@]}" >"$log" 2>&1
    else
      env -u PFPROF_KINDS "$pfprof" record --quiet --no-report ${flags[$v]:-} -o "$f" -- "${workload[@]}" >"$log" 2>&1
    fi
    size=$(stat -c %s "$f" 2>/dev/null || echo 0)
    facts=$(trace_facts "$f")
    [ "${KEEP_TRACES:-0}" = 1 ] || rm -f "$f" "$f-wal" "$f-shm"
  fi
  ms=$(grep -o 'median step [0-9.]*' "$log" | awk '{print $3}')
  echo "$v ${ms:-nan}" >>"$out/ms.txt"
  printf 'round %d %-14s %8s ms  %10s B  %3d s  %s\n' "$r" "$v" "${ms:-nan}" "$size" $((SECONDS - t0)) "$facts"
}

: >"$out/ms.txt"
start=$SECONDS
n=${#order[@]}
for r in $(seq 1 "$rounds"); do
  if [ "$r" -gt 1 ]; then
    per_round=$(((SECONDS - start) / (r - 1)))
    if [ $((SECONDS - start + per_round)) -gt "$budget" ]; then
      echo "stopping after $((r - 1)) rounds: another (~${per_round} s) would pass BUDGET_S=$budget"
      break
    fi
  fi
  for i in $(seq 0 $((n - 1))); do
    run_one "${order[$(((i + r - 1) % n))]}" "$r"
  done
done
echo "elapsed $((SECONDS - start)) s"

python3 - "$out/ms.txt" "${order[@]}" <<'EOF'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    v, ms = line.split()
    if ms != "nan":
        runs.setdefault(v, []).append(float(ms))
order = sys.argv[2:]
bare = statistics.median(runs["bare"]) if runs.get("bare") else None
print(f"SUMMARY {'variant':<14} {'median ms':>10} {'vs bare':>8}  runs")
for v in order:
    if not runs.get(v):
        print(f"SUMMARY {v:<14} {'-':>10} {'-':>8}  (no run)")
        continue
    m = statistics.median(runs[v])
    pct = f"{(m / bare - 1) * 100:+.1f}%" if bare else "-"
    print(f"SUMMARY {v:<14} {m:>10.3f} {pct:>8}  {' '.join(f'{x:.3f}' for x in runs[v])}")
EOF
