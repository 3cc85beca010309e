#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/gpu/loop-call.sh: one GPU call (at most LIMIT_S, default 560 s)
# that records the training programs the loop model is checked on, each
# under `pfprof record` (trace, report text and JSON) and bare (the
# program's own step times):
#   apex       apex's examples/imagenet/main_amp.py (APEX_DIR/main_amp.py,
#              never committed) for one epoch with validation on a
#              generated JPEG ImageFolder (3,840 train and 1,280 val images
#              of 320x320: 30 training steps and 10 validation batches of
#              128), 12 workers, resnet50; and the same with
#              pin_memory=False (a copy edited at call time)
#   examples   pytorch/examples' imagenet/main.py (EXAMPLES_DIR/main.py)
#              with --dummy, its FakeData cut to 40 training and 10
#              validation batches at call time; pinned and pageable
#   timm       timm's train.py (TIMM_DIR/train.py, never committed):
#              resnet50, one epoch with validation, AMP, its prefetcher
#   lightning  tests/gpu/thirdparty/pl_imagefolder.py: Lightning's
#              Trainer, resnet18, sanity check, one epoch, validation
#   thirdparty tests/gpu/thirdparty/: hf_trainer.py (Hugging Face's
#              Trainer, gradient accumulation, evaluation each epoch) and
#              the loops of tv_detection, hf_bert, ta_speech, pyg_gcn
#   ours       samples/train_validate.py and samples/grad_accum.py, with
#              and without --fix, natively and under samples/torch_profile.py
#              (kineto/NAME/ and kineto/NAME_fix/)
#   workers    samples/slow_dataloader.py with 2 and 8 workers, under
#              pfprof record and bare (what the hook records inside the
#              DataLoader's workers)
#   try        pfprof try --fix ideal-input on slow_dataloader.py (2
#              workers), when this pfprof has it
# TRAIN_IMAGES and VAL_IMAGES size the ImageFolder (default 3840 and
# 1280); APEX_TAG is appended to the apex runs' names (e.g. _long for an
# epoch on a larger ImageFolder).
# PHASES (default "data apex examples ours"), ONLY (run names), BUDGET_S
# (no run starts after it, default 480). Everything goes to $OUT: logs/,
# traces/ (xz), kineto/, summary.tsv (name, rc, seconds, the program's
# last line). Expected diagnoses, written from the programs' source before
# any run: tests/gpu/LOOP-EXPECTED.md.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tests/gpu/env.sh
OUT=${OUT:-/tmp/pfprof-loop-call}
PHASES=${PHASES:-data apex examples ours workers try}
BUDGET_S=${BUDGET_S:-480}
LIMIT_S=${LIMIT_S:-560}
DATA=${DATA:-/tmp/pfprof-imagefolder}
mkdir -p "$OUT/logs" "$OUT/traces" "$OUT/kineto"
summary=$OUT/summary.tsv
printf "name\trc\tseconds\tlast line\n" >"$summary"
t0=$SECONDS

want() { [[ " $PHASES " == *" $1 "* ]]; }
# run NAME TIMEOUT CMD...: logs/NAME.log, a summary row; skipped when ONLY
# leaves it out or the budget is spent.
run() {
  local name=$1 t=$2 left
  shift 2
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then return 0; fi
  left=$((LIMIT_S - (SECONDS - t0)))
  if [ $((SECONDS - t0)) -ge "$BUDGET_S" ] || [ "$left" -le 20 ]; then
    printf "%s\t-\t-\tnot run: budget spent\n" "$name" >>"$summary"
    return 0
  fi
  [ "$t" -gt $((left - 10)) ] && t=$((left - 10))
  local s=$SECONDS
  timeout -k 5 "$t" "$@" >"$OUT/logs/$name.log" 2>&1
  local rc=$?
  printf "%s\t%s\t%s\t%s\n" "$name" "$rc" "$((SECONDS - s))" \
    "$(grep -v '^\s*$' "$OUT/logs/$name.log" | tail -1 | cut -c1-200)" >>"$summary"
  echo "== $name rc=$rc $((SECONDS - s))s"
}
# rec NAME TIMEOUT CMD...: the same under pfprof record, then its reports.
rec() {
  local name=$1 t=$2
  shift 2
  run "r_$name" "$t" "$pfprof" record -o "$OUT/traces/$name.pfprof" --force -- "$@"
  if [ -f "$OUT/traces/$name.pfprof" ]; then
    "$pfprof" report "$OUT/traces/$name.pfprof" >"$OUT/logs/r_$name.report.txt" 2>&1
    "$pfprof" report --format json "$OUT/traces/$name.pfprof" >"$OUT/logs/r_$name.report.json" 2>/dev/null
  fi
}

if want data; then
  run data 180 python3 tests/gpu/make_imagefolder.py "$DATA" "${TRAIN_IMAGES:-3840}" "${VAL_IMAGES:-1280}"
  nproc >"$OUT/logs/nproc.txt"
fi

if want apex && [ -f "${APEX_DIR:-}/main_amp.py" ]; then
  cp "$APEX_DIR/main_amp.py" /tmp/main_amp.py
  sed 's/pin_memory=True/pin_memory=False/g' "$APEX_DIR/main_amp.py" >/tmp/main_amp_pageable.py
  args=(-a resnet50 -b 128 -j 12 --epochs 1 --print-freq 10 "$DATA")
  tag=${APEX_TAG:-}
  rec "apex$tag" 200 python3 /tmp/main_amp.py "${args[@]}"
  rec "apex_pageable$tag" 200 python3 /tmp/main_amp_pageable.py "${args[@]}"
  run "b_apex$tag" 150 python3 /tmp/main_amp.py "${args[@]}"
  run "b_apex_pageable$tag" 150 python3 /tmp/main_amp_pageable.py "${args[@]}"
fi

if want examples && [ -f "${EXAMPLES_DIR:-}/main.py" ]; then
  # FakeData sized to 40 training and 10 validation batches of 64.
  sed -e 's/FakeData(1281167,/FakeData(2560,/' -e 's/FakeData(50000,/FakeData(640,/' \
    "$EXAMPLES_DIR/main.py" >/tmp/examples_main.py
  sed 's/pin_memory=True/pin_memory=False/g' /tmp/examples_main.py >/tmp/examples_main_pageable.py
  args=(--dummy -a resnet18 -b 64 -j 4 --epochs 1 --print-freq 10 --gpu 0)
  rec examples 120 python3 /tmp/examples_main.py "${args[@]}"
  rec examples_pageable 120 python3 /tmp/examples_main_pageable.py "${args[@]}"
fi

if want timm && [ -f "${TIMM_DIR:-}/train.py" ]; then
  python3 -c 'import timm; print("timm", timm.__version__)' >"$OUT/logs/timm_version.txt" 2>&1
  rec timm 240 python3 "$TIMM_DIR/train.py" --data-dir "$DATA" --model resnet50 -b 128 -j 12 \
    --epochs 1 --amp --log-interval 10 --input-size 3 224 224 --num-classes 10 --output /tmp/timm-out
fi

if want lightning; then
  rec lightning 180 python3 tests/gpu/thirdparty/pl_imagefolder.py "$DATA"
fi

if want thirdparty; then
  for s in hf_trainer tv_detection hf_bert ta_speech pyg_gcn; do
    rec "tp_$s" 120 python3 "tests/gpu/thirdparty/$s.py"
  done
fi

if want ours; then
  for s in train_validate grad_accum; do
    rec "$s" 90 python3 "samples/$s.py"
    rec "${s}_fix" 90 python3 "samples/$s.py" --fix
    run "b_$s" 60 python3 "samples/$s.py"
    run "b_${s}_fix" 60 python3 "samples/$s.py" --fix
    run "k_$s" 90 python3 samples/torch_profile.py --out "$OUT/kineto/$s" -- "samples/$s.py"
    run "k_${s}_fix" 90 python3 samples/torch_profile.py --out "$OUT/kineto/${s}_fix" -- "samples/$s.py" --fix
  done
fi
if want workers; then
  for w in 2 8; do
    rec "slow_w$w" 90 python3 samples/slow_dataloader.py --workers "$w" --steps 40 --warmup 5
    run "b_slow_w$w" 60 python3 samples/slow_dataloader.py --workers "$w" --steps 40 --warmup 5
  done
fi

if want try && "$pfprof" try --help 2>&1 | grep -q ideal-input; then
  run try_ideal 200 "$pfprof" try --fix ideal-input --steps 30 --rounds 2 \
    -- python3 samples/slow_dataloader.py --steps 30 --warmup 5
fi

ls -la "$OUT/traces" >"$OUT/logs/traces.txt"
for f in "$OUT"/traces/*.pfprof; do [ -f "$f" ] && xz -T0 -1 "$f"; done
echo "loop-call: $((SECONDS - t0)) s"
cat "$summary"
# A lent machine brings back at most 8 files: one archive in volumes of
# 15 MiB (join with cat call.tar.* | tar -x).
tar -C "$OUT" -cf - summary.tsv logs traces kineto | split -b 15M -d - "$OUT/call.tar."
rm -rf "$OUT/logs" "$OUT/traces" "$OUT/kineto"
