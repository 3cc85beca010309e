#!/bin/bash
# bench/collector-overhead.sh [RUNS [WORKLOAD]]: step time with and without pfprof
# record, interleaved (bare, pfprof, bare, pfprof, ...) on one machine so
# drifts hit both alike. Run from the repository root on the GPU machine
# with the build folder carried (PFPROF_BUILD, default build-collector).
# Prints one line per run and a summary (median of the per-run medians).
set -u
runs=${1:-3}
only=${2:-}
. tests/gpu/env.sh
tmp=/tmp/pfprof-bench; rm -rf $tmp; mkdir -p $tmp
export PYTHONUNBUFFERED=1

median_of() { python3 -c "import statistics,sys; v=[float(x) for x in sys.argv[1:]]; print(f'{statistics.median(v):.3f}')" "$@"; }

# One run of "$@" under pfprof with the options in $mode_opts; prints
# "STEP_MS BYTES EVENTS".
profiled() {
  local f=$tmp/run-$RANDOM.pfprof
  "$pfprof" record --quiet --no-report $mode_opts -o "$f" -- "$@" >"$f.log" 2>&1
  local ms=$(grep -o 'median step [0-9.]*' "$f.log" | awk '{print $3}')
  local ev=$(python3 -c "
import sqlite3; db=sqlite3.connect('file:$f?mode=ro', uri=True)
print(sum(db.execute(f'select count(*) from {t}').fetchone()[0] for t in ['kernels','memcpys','memsets','syncs','cuda_events','api_calls','nvtx','memory','overhead']))" 2>/dev/null)
  echo "${ms:-nan} $(stat -c %s "$f" 2>/dev/null || echo 0) ${ev:-0}"
}

# bench LABEL -- COMMAND: per run, bare then each pfprof mode, interleaved.
bench() {
  local label=$1; shift 2
  local -A ms
  for i in $(seq 1 "$runs"); do
    b=$("$@" 2>/dev/null | grep -o 'median step [0-9.]*' | awk '{print $3}')
    ms[bare]+=" ${b:-nan}"
    line="$label run $i: bare ${b} ms"
    for mode in default skip-launches; do
      mode_opts=""; [ $mode = skip-launches ] && mode_opts=--skip-launches
      read -r p size events < <(profiled "$@")
      ms[$mode]+=" $p"
      line+="; $mode ${p} ms (${size} B, ${events} events, $((size / (events > 0 ? events : 1))) B/event)"
    done
    echo "$line"
  done
  mb=$(median_of ${ms[bare]})
  for mode in default skip-launches; do
    mp=$(median_of ${ms[$mode]})
    echo "SUMMARY $label $mode: bare ${mb} ms, pfprof ${mp} ms, overhead $(python3 -c "print(f'{($mp/$mb-1)*100:+.1f}%')")"
  done
}

[ -z "$only" ] || [ "$only" = resnet18_prefetch ] && bench resnet18_prefetch -- python3 samples/side_stream_prefetch.py --steps 100 --warmup 20
[ -z "$only" ] || [ "$only" = tiny_kernels ] && bench tiny_kernels -- python3 bench/tiny_kernels.py --kernels 1000 --steps 200 --warmup 20
