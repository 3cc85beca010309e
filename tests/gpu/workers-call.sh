#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/gpu/workers-call.sh: one GPU call (at most LIMIT_S, default 510 s)
# that checks what pfprof says inside the DataLoader against other tools,
# on samples/jpeg_pipeline.py (a generated JPEG ImageFolder, torchvision's
# RandomResizedCrop, flip, ToTensor, Normalize, ResNet-50):
#   sweep     for each of WORKERS (2 4 8 12): the sample under `pfprof
#             record` and bare, both under proc_sampler.py (/proc: each
#             process's utime+stime over wall, as top shows it)
#   resident  --gpu-resident bare: the step with one batch kept on the GPU
#   try       pfprof try --fix ideal-input (TRY_WORKERS, 2)
#   slow      --slow-transform under pfprof record (SLOW_WORKERS, 4)
#   cprofile  --cprofile-worker bare (CPROF_WORKERS, 2): cProfile's stage
#             totals inside worker 0
#   overhead  worker_overhead.py: the worker recording on and off in one
#             process, the real stages
#   digest    --digest under pfprof record, with --no-worker-hooks, and
#             bare: the batches got must be the same bytes
#   extra     bare runs at the worker counts pfprof predicted for and the
#             sweep did not run
#   saturate  --slow-transform of SAT_ITERS (200000) loop steps a sample
#             with SAT_WORKERS (16) workers, SAT_STEPS (100) steps, under
#             pfprof record: more busy workers than free cores
#   cprofile_slow, nohooks  --cprofile-worker with --slow-transform; the
#             sweep's first count under pfprof record --no-worker-hooks
# in that order, no run started after BUDGET_S (default 450), none past
# LIMIT_S. Then tests/gpu/workers_summary.py writes summary.md (each proof
# line: measured, expected, pass or fail) from runs.tsv. What pfprof
# should say, written from the source before any run:
# tests/gpu/WORKERS-EXPECTED.md. PHASES and ONLY (run names) pick runs;
# DRY=1 prints the commands and runs none; SAMPLE runs another program in
# the sample's place (tests/cli/test-workers-call.py: a stand-in). $OUT gets summary.md and
# call-N.tar (logs, reports, /proc samples, traces as xz; call_pack.py).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
source tests/gpu/env.sh
OUT=${OUT:-/tmp/pfprof-workers-call}
PHASES=${PHASES:-data sweep resident try slow cprofile overhead digest extra saturate cprofile_slow nohooks}
BUDGET_S=${BUDGET_S:-450}
LIMIT_S=${LIMIT_S:-510}
DATA=${DATA:-/tmp/pfprof-jpeg}
N_IMAGES=${N_IMAGES:-4800}
WORKERS=${WORKERS:-2 4 8 12}
STEPS=${STEPS:-40}
WARMUP=${WARMUP:-10}
TRY_WORKERS=${TRY_WORKERS:-2}
TRY_ROUNDS=${TRY_ROUNDS:-1}
SLOW_WORKERS=${SLOW_WORKERS:-4}
SAT_WORKERS=${SAT_WORKERS:-16}
SAT_ITERS=${SAT_ITERS:-200000}
SAT_STEPS=${SAT_STEPS:-100}
CPROF_WORKERS=${CPROF_WORKERS:-2}
DRY=${DRY:-0}
work=$OUT/work
mkdir -p "$work/logs" "$work/reports" "$work/proc" "$work/traces" "$work/cprofile"
manifest=$work/runs.tsv
printf "name\tkind\tworkers\tvariant\trc\tseconds\tlog\tjson\tproc\textra\n" >"$manifest"
t0=$SECONDS
sample=(python3 "${SAMPLE:-samples/jpeg_pipeline.py}" --data "$DATA" --steps "$STEPS" --warmup "$WARMUP")

want() { [[ " $PHASES " == *" $1 "* ]]; }
chosen() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }
# run NAME KIND WORKERS VARIANT JSON PROC EXTRA TIMEOUT CMD...: logs/NAME.log,
# a manifest row (paths relative to $work, '-' for none); not started when
# ONLY leaves it out or the budget is spent (rc "budget").
run() {
  local name=$1 kind=$2 workers=$3 variant=$4 json=$5 proc=$6 extra=$7 t=$8 left s rc
  shift 8
  chosen "$name" || return 0
  left=$((LIMIT_S - (SECONDS - t0)))
  if [ $((SECONDS - t0)) -ge "$BUDGET_S" ] || [ "$left" -le 20 ]; then
    printf "%s\t%s\t%s\t%s\tbudget\t-\t-\t-\t-\t-\n" "$name" "$kind" "$workers" "$variant" >>"$manifest"
    echo "== $name: not run, budget spent"
    return 0
  fi
  [ "$t" -gt $((left - 10)) ] && t=$((left - 10))
  if [ "$DRY" = 1 ]; then
    echo "== $name ($t s): $*"
    printf "%s\t%s\t%s\t%s\tdry\t0\tlogs/%s.log\t%s\t%s\t%s\n" "$name" "$kind" "$workers" "$variant" \
      "$name" "$json" "$proc" "$extra" >>"$manifest"
    return 0
  fi
  s=$SECONDS
  timeout -k 5 "$t" "$@" >"$work/logs/$name.log" 2>&1
  rc=$?
  printf "%s\t%s\t%s\t%s\t%s\t%s\tlogs/%s.log\t%s\t%s\t%s\n" "$name" "$kind" "$workers" "$variant" "$rc" \
    "$((SECONDS - s))" "$name" "$json" "$proc" "$extra" >>"$manifest"
  echo "== $name rc=$rc $((SECONDS - s))s: $(grep -E 'median step|overhead' "$work/logs/$name.log" | tail -1 | cut -c1-150)"
}
# rec NAME WORKERS VARIANT TIMEOUT ARGS...: the sample under pfprof record
# and proc_sampler.py, then pfprof report (text and JSON).
rec() {
  local name=$1 workers=$2 variant=$3 t=$4 flags=()
  shift 4
  [[ $variant == *nohooks ]] && flags=(--no-worker-hooks)
  run "$name" rec "$workers" "$variant" "reports/$name.json" "proc/$name.tsv" - "$t" \
    python3 tests/gpu/proc_sampler.py --out "$work/proc/$name.tsv" -- \
    "$pfprof" record --no-report "${flags[@]}" -o "$work/traces/$name.pfprof" --force -- "${sample[@]}" --workers "$workers" "$@"
  if [ -f "$work/traces/$name.pfprof" ]; then
    "$pfprof" report "$work/traces/$name.pfprof" >"$work/reports/$name.txt" 2>&1
    "$pfprof" report --format json "$work/traces/$name.pfprof" >"$work/reports/$name.json" 2>>"$work/logs/$name.log"
  fi
}
# bare NAME WORKERS VARIANT TIMEOUT ARGS...: the sample alone, under proc_sampler.py.
bare() {
  local name=$1 workers=$2 variant=$3 t=$4
  shift 4
  run "$name" bare "$workers" "$variant" - "proc/$name.tsv" - "$t" \
    python3 tests/gpu/proc_sampler.py --out "$work/proc/$name.tsv" -- "${sample[@]}" --workers "$workers" "$@"
}

{ echo "commit: $(cat "${PFPROF_BUILD:-build-collector}/COMMIT" 2>/dev/null || git rev-parse --short HEAD 2>/dev/null)"
  echo "pfprof: $("$pfprof" --version 2>&1 | head -1)"
  echo "nproc: $(nproc)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1
  python3 -c 'import torch, torchvision, PIL; print("torch", torch.__version__, "torchvision", torchvision.__version__, "PIL", PIL.__version__)' 2>&1
  lscpu 2>/dev/null | grep -E '^(Model name|Thread|Core|Socket)'
} >"$work/logs/machine.txt"

if want data; then
  if [ -d "$DATA/train" ]; then
    echo "== data: $DATA is there"
  else
    run data data - - - - - 120 python3 tests/gpu/make_imagefolder.py "$DATA" "$N_IMAGES" 64
  fi
fi
if want sweep; then
  for w in $WORKERS; do
    rec "rec_w$w" "$w" plain 120
    bare "bare_w$w" "$w" plain 90
  done
fi
want resident && bare resident 0 resident 90 --gpu-resident
if want try; then
  run try_ideal try "$TRY_WORKERS" ideal - - - 200 \
    "$pfprof" try --fix ideal-input --rounds "$TRY_ROUNDS" --format json -- "${sample[@]}" --workers "$TRY_WORKERS"
fi
want slow && rec "rec_slow_w$SLOW_WORKERS" "$SLOW_WORKERS" slow 150 --slow-transform
if want cprofile; then
  run "cprofile_w$CPROF_WORKERS" cprofile "$CPROF_WORKERS" plain - - "cprofile/cprofile_w$CPROF_WORKERS.json" 90 \
    "${sample[@]}" --workers "$CPROF_WORKERS" --cprofile-worker "$work/cprofile/cprofile_w$CPROF_WORKERS.json"
fi
if want overhead; then
  run overhead overhead 1 plain - - - 90 python3 tests/gpu/worker_overhead.py "$DATA"
fi
if want digest; then
  # Few steps: hashing 58 MB a batch slows the loop; only the bytes matter.
  dg=(--steps 6 --warmup 2 --digest)
  rec digest_rec 2 digest 90 "${dg[@]}"
  rec digest_nohooks 2 digest-nohooks 90 "${dg[@]}"
  bare digest_bare 2 digest 60 "${dg[@]}"
fi
if want extra && [ "$DRY" != 1 ]; then
  # The worker counts pfprof predicted a step for that the sweep did not run.
  for p in $(python3 tests/gpu/workers_summary.py --predicted-workers "$work"); do
    bare "bare_w$p" "$p" plain 90
  done
fi
# More steps: the window must hold several of each worker's long batches.
want saturate && rec "rec_slow_w$SAT_WORKERS" "$SAT_WORKERS" slow-sat 150 --slow-transform --slow-iters "$SAT_ITERS" \
  --steps "$SAT_STEPS"
if want cprofile_slow; then
  run "cprofile_slow_w$SLOW_WORKERS" cprofile "$SLOW_WORKERS" slow - - "cprofile/cprofile_slow_w$SLOW_WORKERS.json" 120 \
    "${sample[@]}" --workers "$SLOW_WORKERS" --slow-transform \
    --cprofile-worker "$work/cprofile/cprofile_slow_w$SLOW_WORKERS.json"
fi
if want nohooks; then
  w1=${WORKERS%% *}
  rec "rec_nohooks_w$w1" "$w1" nohooks 120
fi
[ "$DRY" = 1 ] && { cat "$manifest"; exit 0; }

echo "workers-call: $((SECONDS - t0)) s"
python3 tests/gpu/workers_summary.py --out "$OUT/summary.md" "$work"
status=$?
for f in "$work"/traces/*.pfprof; do [ -f "$f" ] && xz -T0 -1 "$f"; done
# A lent machine brings back at most 8 files: summary.md, pack.txt and 6 volumes
# that, extracted into one folder, are $work again (workers_summary.py
# reads it: xz -d traces/*.xz first for the traces).
mkdir -p "$work/meta"
cp "$manifest" "$OUT/summary.md" "$work/meta/" 2>/dev/null
python3 tests/gpu/call_pack.py --out "$OUT" --max-files 6 meta="$work/meta" logs="$work/logs" \
  reports="$work/reports" cprofile="$work/cprofile" proc="$work/proc" traces="$work/traces" >"$OUT/pack.txt"
cat "$OUT/pack.txt"
rm -rf "$work"
exit $status
