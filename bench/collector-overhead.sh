#!/bin/bash
# bench/collector-overhead.sh [RUNS]: step time with and without pfprof
# record, interleaved (bare, pfprof, bare, pfprof, ...) on one machine so
# drifts hit both alike. Run from the repository root on the GPU machine
# with the build folder carried (PFPROF_BUILD, default build-collector).
# Prints one line per run and a summary (median of the per-run medians).
set -u
runs=${1:-3}
build=${PFPROF_BUILD:-build-collector}
pfprof=$PWD/$build/cli/pfprof
tmp=/tmp/pfprof-bench; rm -rf $tmp; mkdir -p $tmp
export PYTHONUNBUFFERED=1

median_of() { python3 -c "import statistics,sys; v=[float(x) for x in sys.argv[1:]]; print(f'{statistics.median(v):.3f}')" "$@"; }

bench() {
  local label=$1; shift
  local bare=() prof=() sizes=()
  for i in $(seq 1 "$runs"); do
    b=$("$@" 2>/dev/null | grep -o 'median step [0-9.]*' | awk '{print $3}')
    "$pfprof" record --quiet --no-report -o $tmp/$label-$i.pfprof -- "$@" >$tmp/$label-$i.log 2>&1
    p=$(grep -o 'median step [0-9.]*' $tmp/$label-$i.log | awk '{print $3}')
    events=$(python3 -c "
import sqlite3; db=sqlite3.connect('$tmp/$label-$i.pfprof')
print(sum(db.execute(f'select count(*) from {t}').fetchone()[0] for t in ['kernels','memcpys','memsets','syncs','cuda_events','api_calls','nvtx','memory','overhead']))")
    size=$(stat -c %s $tmp/$label-$i.pfprof)
    echo "$label run $i: bare ${b} ms, pfprof ${p} ms, trace ${size} bytes, ${events} events"
    bare+=("$b"); prof+=("$p"); sizes+=("$((size / events))")
  done
  mb=$(median_of "${bare[@]}"); mp=$(median_of "${prof[@]}")
  echo "SUMMARY $label: bare ${mb} ms, pfprof ${mp} ms, overhead $(python3 -c "print(f'{($mp/$mb-1)*100:+.1f}%')"), bytes/event $(median_of "${sizes[@]}")"
}

bench resnet18_prefetch python3 samples/side_stream_prefetch.py --steps 100 --warmup 20
bench tiny_kernels python3 bench/tiny_kernels.py --kernels 1000 --steps 200 --warmup 20
