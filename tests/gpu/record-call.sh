#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/gpu/record-call.sh: the samples' traces, in one call of the 1-GPU
# machine.
#
# Run from the repository root with the build folder carried (default
# build-collector; PFPROF_BUILD to change), like run-all.sh:
#
#   PFPROF_BUILD=build-gpu bash tests/gpu/record-call.sh      # OUT=... for the results
#   DRY=1 bash tests/gpu/record-call.sh                       # print every command, run none
#
# In this order, each phase with and without --fix, starting nothing new
# once BUDGET_S seconds (default 480) have passed, and giving each run at
# most RUN_S seconds (default 120) and never past LIMIT_S (default 520):
#   pfprof   the new samples under `pfprof record` (--steps 60 --warmup 15),
#            then `pfprof report --format json` of each trace
#   bare     the new samples without any profiler: the step timer's figures
#   kineto-new  the new samples under samples/torch_profile.py, without
#            and with --with-stack (--steps KINETO_STEPS, default 10,
#            --warmup 15: the profiler records the timed steps after the
#            same 15 warm-up steps)
#   thirdparty  tests/gpu/thirdparty/*.py under `pfprof record` (a missing
#            library: exit 77, SKIP)
#   kineto-old  the same for the committed samples, and the DDP sample
#            under torchrun, 2 ranks sharing the GPU (gloo): one trace per rank
#   old      the committed samples (a to f) under `pfprof record` again
# All of them take more than one call: PHASES="pfprof bare kineto-new" for
# a first call, PHASES="thirdparty kineto-old old" for a second;
# KINETO_FIXES ("0 1") and KINETO_STACKS ("0 1") choose the kineto variants.
# PHASES="pfprof bare" runs only those phases; ONLY="late_prefetch custom_batch"
# only those samples (by script name without .py, or thirdparty name).
#
# Into $OUT (at most 8 files, each under 16 MiB): summary.txt (the table
# below), call-1.tar ... call-7.tar (plain tar of compact files: pfprof
# traces xz-compressed, Kineto traces gzip as written, logs and report
# JSON in logs/, in priority order: logs, pfprof-new, thirdparty,
# kineto-new, kineto-old, pfprof-old; what did not fit is listed in
# summary.txt). A failing run is logged and the next one starts. Prints
# the table last; exits 1 if a run failed.
set -u
shopt -s nullglob
root=$PWD
out=${OUT:-/tmp/pfprof-record-out}
work=${WORK:-/tmp/pfprof-record}
dry=${DRY:-0}
budget=${BUDGET_S:-480}
limit=${LIMIT_S:-520}
run_s=${RUN_S:-120}
phases=${PHASES:-pfprof bare kineto-new thirdparty kineto-old old}
kineto_steps=${KINETO_STEPS:-10}
build=${PFPROF_BUILD:-build-collector}
. "$root/tests/gpu/lib.sh"
lib_start
mkdir -p "$work/logs" "$work/pfprof-new" "$work/pfprof-old" "$work/thirdparty" "$work/kineto-new" \
  "$work/kineto-old"
manifest=$work/logs/manifest.tsv
: >"$manifest"

export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
# Nothing can be fetched there: transformers must not try the hub.
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
if [ "$dry" = 1 ]; then
  pfprof=$root/$build/cli/pfprof
  echo "DRY RUN: nothing is executed"
else
  . "$root/tests/gpu/env.sh"
  "$pfprof" --version || { echo "record-call: pfprof does not run here"; exit 2; }
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch, torchvision; print("torch", torch.__version__, "torchvision", torchvision.__version__)'
fi
torchrun=(torchrun)
command -v torchrun >/dev/null 2>&1 || torchrun=(python3 -m torch.distributed.run)

new_samples="late_prefetch small_transfers pinned_alloc_in_loop side_stream_pageable cpu_per_step host_bound custom_batch"
old_samples="pageable_copies serialized_copies side_stream_prefetch record_stream_pressure slow_dataloader item_sync"
thirdparty="tv_detection hf_bert ta_speech pyg_gcn"
steps=(--steps 60 --warmup 15)
ksteps=(--steps "$kineto_steps" --warmup 15)
# The committed traces' names (samples/README.md) for the old samples.
declare -A old_name=([pageable_copies]=a_pageable [serialized_copies]=b_serialized
  [side_stream_prefetch]=c_side_stream [record_stream_pressure]=d_record_stream
  [slow_dataloader]=e_slow_loader [item_sync]=f_item)

phase_on() { [[ " $phases " == *" $1 "* ]]; }
sample_on() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }

# go NAME: false once the budget is spent (the run is listed as SKIP).
go() {
  if [ $((SECONDS - t_start)) -ge "$budget" ]; then
    echo "-- $1: not started, budget of ${budget}s spent"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" skipped budget - 0 budget 0 - /dev/null - >>"$manifest"
    return 1
  fi
  echo "-- $1 ($((SECONDS - t_start))s)"
  return 0
}

# run NAME GROUP KIND SAMPLE FIX TRACE DIR CMD...: CMD in DIR, its output in
# logs/NAME.log, bounded by RUN_S and LIMIT_S; a line in the manifest.
run() {
  local name=$1 group=$2 kind=$3 sample=$4 fix=$5 trace=$6 dir=$7
  shift 7
  go "$name" || return 0
  local log=$work/logs/$name.log report=-
  local t=$((limit - (SECONDS - t_start)))
  [ "$t" -gt "$run_s" ] && t=$run_s
  [ "$t" -lt 10 ] && t=10
  if [ "$dry" = 1 ]; then
    echo "+ (cd $dir && timeout -k 5 $t $*) >$log 2>&1"
    rc=dry secs=0
  else
    local t0=$SECONDS
    (cd "$dir" && timeout -k 5 "$t" "$@") >"$log" 2>&1
    rc=$? secs=$((SECONDS - t0))
  fi
  if [ "$kind" = pfprof ] && [ "$trace" != - ]; then
    report=${trace%.pfprof}.report.json
    if [ "$dry" = 1 ]; then
      echo "+ pfprof report --format json -q $trace >$report"
    elif [ -f "$trace" ]; then
      timeout 60 "$pfprof" report --format json -q "$trace" >"$report" 2>"$work/logs/$name.report.err"
    fi
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$group" "$kind" "$sample" "$fix" "$rc" "$secs" \
    "$trace" "$log" "$report" >>"$manifest"
  case $rc in 0|77|dry) ;; *) failed=1; echo "   $name: exit $rc (see logs/$name.log)" ;; esac
}

fixflag() { [ "$1" = 1 ] && echo --fix; }
sfx() { [ "$1" = 1 ] && echo _fix; }

# record GROUP NAME SCRIPT FIX ARGS...: the sample under pfprof record.
record() {
  local group=$1 name=$2 script=$3 fix=$4
  shift 4
  local tr=$work/$group/$name.pfprof
  run "$name" "$group" pfprof "${script%.py}" "$fix" "$tr" "$root/samples" \
    "$pfprof" record -o "$tr" -- python3 "$script" $(fixflag "$fix") "$@"
}

# kineto GROUP SAMPLE FIX STACK: the sample under torch_profile.py.
kineto() {
  local group=$1 s=$2 fix=$3 stack=$4 kind=kineto opt=()
  [ "$stack" = 1 ] && kind=kineto-stack opt=(--with-stack)
  # host_bound.py --fix steps its optimizer only inside the CUDA graph it
  # captures (replays call no Python optimizer step): step on batches.
  [ "$s" = host_bound ] && opt+=(--step-on next)
  local name=k-$s$(sfx "$fix")
  [ "$stack" = 1 ] && name=ks-$s$(sfx "$fix")
  local dir=$work/$group/$name
  if [ "$s" = ddp_train ]; then
    run "$name" "$group" "$kind" "$s" "$fix" "$dir" "$root/samples" \
      "${torchrun[@]}" --standalone --nproc_per_node 2 torch_profile.py "${opt[@]}" --out "$dir" -- \
      ddp_train.py --model resnet18 --batch 32 --steps "$kineto_steps" --warmup 6 --workers 2
  else
    local a=("${ksteps[@]}")
    [ "$s" = slow_dataloader ] && a=(--steps "$kineto_steps" --warmup 10)
    run "$name" "$group" "$kind" "$s" "$fix" "$dir" "$root/samples" \
      python3 torch_profile.py "${opt[@]}" --out "$dir" -- "$s.py" $(fixflag "$fix") "${a[@]}"
  fi
}

if phase_on pfprof; then
  for s in $new_samples; do
    sample_on "$s" || continue
    for fix in 0 1; do
      record pfprof-new "$s$(sfx $fix)" "$s.py" "$fix" "${steps[@]}"
    done
  done
fi

if phase_on bare; then
  for s in $new_samples; do
    sample_on "$s" || continue
    for fix in 0 1; do
      run "bare-$s$(sfx $fix)" bare bare "$s" "$fix" - "$root/samples" python3 "$s.py" $(fixflag $fix) "${steps[@]}"
    done
  done
fi

if phase_on kineto-new; then
  for s in $new_samples; do
    sample_on "$s" || continue
    for fix in ${KINETO_FIXES:-0 1}; do
      for stack in ${KINETO_STACKS:-0 1}; do kineto kineto-new "$s" "$fix" "$stack"; done
    done
  done
fi

if phase_on thirdparty; then
  for s in $thirdparty; do
    sample_on "$s" || continue
    tr=$work/thirdparty/tp_$s.pfprof
    run "tp_$s" thirdparty pfprof "$s" 0 "$tr" "$root/tests/gpu/thirdparty" \
      "$pfprof" record -o "$tr" -- python3 "$s.py"
  done
fi

if phase_on kineto-old; then
  for s in $old_samples ddp_train; do
    sample_on "$s" || continue
    fixes=${KINETO_FIXES:-0 1}
    case $s in side_stream_prefetch|ddp_train) fixes=0 ;; esac
    for fix in $fixes; do
      for stack in ${KINETO_STACKS:-0 1}; do kineto kineto-old "$s" "$fix" "$stack"; done
    done
  done
fi

if phase_on old; then
  for s in $old_samples; do
    sample_on "$s" || continue
    fixes="0 1"
    [ "$s" = side_stream_prefetch ] && fixes=0
    a=("${steps[@]}")
    [ "$s" = slow_dataloader ] && a=(--steps 40 --warmup 10)
    for fix in $fixes; do
      record pfprof-old "${old_name[$s]}$(sfx $fix)" "$s.py" "$fix" "${a[@]}"
    done
  done
fi

# Pack: pfprof traces xz-compressed (in parallel), then everything into
# at most 7 volumes under 16 MiB.
summary=$work/summary.txt
if [ "$dry" = 1 ]; then
  echo "+ xz -6 $work/{pfprof-new,pfprof-old,thirdparty}/*.pfprof (parallel)"
  echo "+ call_pack.py --out $out logs=$work/logs pfprof-new=... thirdparty=... kineto-new=... kineto-old=... pfprof-old=..."
  python3 "$root/tests/gpu/call_summary.py" "$manifest" | tee "$summary"
  exit 0
fi
ls "$work"/pfprof-new/*.pfprof "$work"/pfprof-old/*.pfprof "$work"/thirdparty/*.pfprof 2>/dev/null |
  xargs -r -P 8 -n 1 xz -6 -f
# The report JSON belongs with the logs (small, read first).
for f in "$work"/pfprof-new/*.report.json "$work"/pfprof-old/*.report.json "$work"/thirdparty/*.report.json; do
  mv "$f" "$work/logs/"
done
sed -i 's/\.pfprof\t/.pfprof.xz\t/' "$manifest"
sed -i 's#\(/pfprof-[a-z]*/\|/thirdparty/\)\([^\t]*\)\.report\.json$#/logs/\2.report.json#' "$manifest"
{
  echo "== pfprof record-call ($(date -u +%FT%TZ), $((SECONDS - t_start)) s, $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1))"
  python3 "$root/tests/gpu/call_summary.py" "$manifest"
} >"$summary" 2>&1
cp "$summary" "$work/logs/"
python3 "$root/tests/gpu/call_pack.py" --out "$out" logs="$work/logs" pfprof-new="$work/pfprof-new" \
  thirdparty="$work/thirdparty" kineto-new="$work/kineto-new" kineto-old="$work/kineto-old" \
  pfprof-old="$work/pfprof-old" >>"$summary" 2>&1
cp "$summary" "$out/summary.txt"
cat "$summary"
[ "$failed" = 0 ] && echo "record-call: NO RUN FAILED" || echo "record-call: SOME RUNS FAILED"
exit "$failed"
