#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/gpu/ranks.sh: several processes and ranks on the GPU machine
# (on one GPU or two).
#
# Run from the repository root with the build folder carried (default
# build-collector; PFPROF_BUILD to change), like run-all.sh:
#
#   bash tests/gpu/ranks.sh           # OUT=... for the results
#   DRY=1 bash tests/gpu/ranks.sh     # print what would run, run nothing
#
# With 2 or more GPUs visible:
#   ddp_even, ddp_slow  pfprof record -o run-%r.pfprof -- torchrun --standalone
#                       --nproc_per_node 2 samples/ddp_train.py (NCCL, each rank
#                       its own GPU), ranks alike, then rank 1's loader slowed
#                       (--slow-rank 1): one trace per rank with RANK,
#                       LOCAL_RANK, WORLD_SIZE and its GPU's UUID in meta, NCCL
#                       kernels, `pfprof report` with the per-rank table and a
#                       rank-imbalance finding naming rank 1 in the slowed run
#                       and none in the even run; `pfprof render` of each run
#   overhead            the even run bare and under pfprof, interleaved, 2 each:
#                       per-rank median step times
# Always:
#   two_procs           two independent processes (RANK=0 and RANK=1 set by
#                       hand, no torchrun) sharing GPU 0, each under its own
#                       `pfprof record -o two-%p.pfprof`, rank 1 with a slowed
#                       loader: `pfprof report` over both names rank 1
# With one GPU visible (or GLOO=1; GLOO=0 never):
#   gloo_one_gpu        the torchrun run with gloo, both ranks on GPU 0
#
# Prints a table last (scenario, expected, observed, result); exits 1 if a
# check failed. Into $OUT: ranks.txt (table and check details),
# ddp-traces.tar.xz (the DDP traces, for samples/traces/), ddp_even.png,
# ddp_slow.png, ranks-logs.tar.xz (logs, reports, the other traces). Runs
# not started within BUDGET_S seconds (default 260) are skipped and say so.
# DDP_MODEL (resnet50), DDP_BATCH (32), DDP_STEPS (20), DDP_WARMUP (6),
# SLOW_MS (80) change the DDP runs.
set -u
shopt -s nullglob
root=$PWD
out=${OUT:-/tmp/pfprof-ranks-out}
work=${WORK:-/tmp/pfprof-ranks}
dry=${DRY:-0}
budget=${BUDGET_S:-260}
build=${PFPROF_BUILD:-build-collector}
checks=$root/tests/gpu/gpu_checks.py
train=$root/samples/ddp_train.py
model=${DDP_MODEL:-resnet50}
batch=${DDP_BATCH:-32}
steps=${DDP_STEPS:-20}
warmup=${DDP_WARMUP:-6}
slow_ms=${SLOW_MS:-80}
# lib_start, row, in_budget, runlog, tracecheck, analyze (this table's columns are narrower)
ROW_W=14 ROW_EXP_W=50
. "$root/tests/gpu/lib.sh"
lib_start

# NVLink multicast off, as the machine sets it (its notes ask to keep these).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
if [ "$dry" = 1 ]; then
  pfprof=$root/$build/cli/pfprof
  n_gpus=${DRY_GPUS:-2}
  uuids="GPU-dry-0,GPU-dry-1"
  echo "DRY RUN: nothing is executed (DRY_GPUS=$n_gpus)"
else
  . "$root/tests/gpu/env.sh"
  "$pfprof" --version || { echo "ranks: pfprof does not run here"; exit 2; }
  nvidia-smi -L
  n_gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
  uuids=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | paste -sd,)
fi
export PFPROF=$pfprof
torchrun=(torchrun)
command -v torchrun >/dev/null 2>&1 || torchrun=(python3 -m torch.distributed.run)
{
  env | grep -E '^(NCCL|CUDA_VISIBLE|TORCH_NCCL|TORCH_SYMM|NVSHMEM)' | sort
  for l in srun mpirun; do echo "$l: $(command -v "$l" || echo 'not installed')"; done
} >"$work/env.txt"


steps_of() { [ "$dry" = 1 ] && echo "(dry)" || python3 "$checks" steps "$work/$1.log" | cut -d: -f2- | sed 's/^ *//'; }

# Is rank-imbalance in this pfprof? (a stale build would fail every check)
if [ "$dry" != 1 ] && ! "$pfprof" report --list-rules 2>/dev/null | grep -q rank-imbalance; then
  row preflight "pfprof with the rank-imbalance rule" "$("$pfprof" --version 2>&1) has no rank-imbalance rule: rebuild $build" FAIL
fi

ddp_args=(--model "$model" --batch "$batch" --steps "$steps" --warmup "$warmup")
tr2=("${torchrun[@]}" --standalone --nproc_per_node 2)

# ddp NAME PF(0|1) EXTRA-ARGS...: one torchrun run, NCCL, one GPU per rank.
ddp() {
  local name=$1 pf=$2
  shift 2
  mkdir -p "$work/$name"
  if [ "$pf" = 1 ]; then
    runlog "$name" 150 "$pfprof" record -o "$work/$name/run-%r.pfprof" -- "${tr2[@]}" "$train" "${ddp_args[@]}" \
      --backend nccl "$@"
  else
    runlog "$name" 150 "${tr2[@]}" "$train" "${ddp_args[@]}" --backend nccl "$@"
  fi
}

ddp_recorded() { # NAME SLOW(1|none) EXTRA-ARGS...
  local name=$1 slow=$2
  shift 2
  local exp="exit 0; one complete trace per rank (run-0, run-1), each rank on its own GPU; NCCL kernels; "
  if [ "$slow" = none ]; then exp+="no rank-imbalance"; else exp+="rank-imbalance names rank 1"; fi
  in_budget "$name" "$exp" || return 1
  ddp "$name" 1 "$@"
  local r=$rc s=$secs
  local traces=("$work/$name"/run-*.pfprof)
  [ "$dry" = 1 ] && traces=("$work/$name/run-0.pfprof" "$work/$name/run-1.pfprof")
  tracecheck "$name" 2 "complete no_drops gpu_kinds h200" "${traces[@]}"
  local uu=()
  [ -z "${CUDA_VISIBLE_DEVICES:-}" ] && uu=(--uuids "$uuids")
  analyze "$name" "$slow" --world 2 --distinct-gpus --nccl --template "$work/$name/run-%r.pfprof" "${uu[@]}" \
    -- "${traces[@]}"
  local v=ok
  [ "$r" = 0 ] && [ "$tc_rc" = 0 ] && [ "$an_rc" = 0 ] || v=FAIL
  [ "$dry" = 1 ] && v=DRY
  local sizes
  sizes=$(for t in "${traces[@]}"; do [ -f "$t" ] && echo "$(basename "$t") $(($(stat -c %s "$t") / 1024)) KiB"; done | paste -sd, -)
  row "$name" "$exp" "exit $r in ${s}s; median step ms by rank: $(steps_of "$name"); $tc; $sizes; $an_sum" $v
  # render both ranks on one time axis
  if [ "$dry" = 1 ]; then
    echo "+ pfprof render ${traces[*]} -o $out/$name.png"
  else
    rm -f "$out/$name.png"
    "$pfprof" render "${traces[@]}" -o "$out/$name.png" >"$work/$name.render.log" 2>&1
    local rr=$?
    local rv=ok
    [ "$rr" = 0 ] && [ -s "$out/$name.png" ] || rv=FAIL
    row "${name}_png" "pfprof render of both ranks: exit 0, a PNG" "exit $rr; $([ -f "$out/$name.png" ] && stat -c %s "$out/$name.png") bytes; $(head -c 150 "$work/$name.render.log" | tr '\n' ' ')" $rv
  fi
  return 0
}

if [ "$n_gpus" -ge 2 ]; then
  ddp_recorded ddp_even none
  ddp_recorded ddp_slow 1 --slow-rank 1 --slow-ms "$slow_ms"
fi

# --- (a) two independent processes sharing GPU 0 ----------------------------
two_exp="2 traces (RANK 0, 1) on one GPU; report names rank 1 (slowed)"
if in_budget two_procs "$two_exp"; then
  mkdir -p "$work/two"
  two_args=(--model resnet18 --batch 64 --steps 30 --warmup 10)
  if [ "$dry" = 1 ]; then
    echo "+ RANK=0 CUDA_VISIBLE_DEVICES=0 pfprof record -o $work/two/two-%p.pfprof -- python3 $train ${two_args[*]} --slow-rank 1 &"
    echo "+ RANK=1 CUDA_VISIBLE_DEVICES=0 pfprof record -o $work/two/two-%p.pfprof -- python3 $train ${two_args[*]} --slow-rank 1 --slow-ms $slow_ms &"
    r0=0 r1=0
  else
    t0=$SECONDS
    RANK=0 CUDA_VISIBLE_DEVICES=0 timeout -k 10 180 "$pfprof" record -o "$work/two/two-%p.pfprof" -- \
      python3 "$train" "${two_args[@]}" --slow-rank 1 >"$work/two_rank0.log" 2>&1 &
    p0=$!
    RANK=1 CUDA_VISIBLE_DEVICES=0 timeout -k 10 180 "$pfprof" record -o "$work/two/two-%p.pfprof" -- \
      python3 "$train" "${two_args[@]}" --slow-rank 1 --slow-ms "$slow_ms" >"$work/two_rank1.log" 2>&1 &
    p1=$!
    wait $p0
    r0=$?
    wait $p1
    r1=$?
    secs=$((SECONDS - t0))
  fi
  traces=("$work/two"/two-*.pfprof)
  [ "$dry" = 1 ] && traces=("$work/two/two-A.pfprof" "$work/two/two-B.pfprof")
  tracecheck two_procs 2 "complete no_drops gpu_kinds h200 dl_nvtx" "${traces[@]}"
  analyze two_procs 1 --same-gpu -- "${traces[@]}"
  v=ok
  [ "$r0" = 0 ] && [ "$r1" = 0 ] && [ "$tc_rc" = 0 ] && [ "$an_rc" = 0 ] || v=FAIL
  [ "$dry" = 1 ] && v=DRY
  row two_procs "$two_exp" "exit $r0,$r1; median step ms rank 0: $(steps_of two_rank0), rank 1: $(steps_of two_rank1); $tc; $an_sum" $v
fi

# --- overhead: the even DDP run bare and under pfprof, interleaved ------------
if [ "$n_gpus" -ge 2 ]; then
  ov_exp="median step per rank, bare vs pfprof (ddp_even is pfprof run 1)"
  if in_budget overhead "$ov_exp"; then
    ddp ddp_bare1 0
    b1=$rc
    ddp ddp_pf2 1
    p2=$rc
    ddp ddp_bare2 0
    b2=$rc
    if [ "$dry" = 1 ]; then
      row overhead "$ov_exp" "(dry)" DRY
    else
      python3 "$checks" overhead --bare "$work/ddp_bare1.log" "$work/ddp_bare2.log" \
        --pfprof "$work/ddp_even.log" "$work/ddp_pf2.log" >"$work/overhead.txt" 2>&1
      orc=$?
      { echo "### overhead"; cat "$work/overhead.txt"; echo; } >>"$details"
      v=ok
      [ "$orc" = 0 ] && [ "$b1" = 0 ] && [ "$p2" = 0 ] && [ "$b2" = 0 ] || v=FAIL
      row overhead "$ov_exp" "exits $b1,$p2,$b2; $(paste -sd ';' "$work/overhead.txt")" $v
    fi
  fi
fi

# --- (b) torchrun with gloo, both ranks on GPU 0 -------------------------------
if [ "${GLOO:-}" = 1 ] || { [ "${GLOO:-}" != 0 ] && [ "$n_gpus" -lt 2 ]; }; then
  gl_exp="exit 0; 2 traces, both on GPU 0; rank-imbalance names rank 1"
  if in_budget gloo_one_gpu "$gl_exp"; then
    mkdir -p "$work/gloo"
    runlog gloo_one_gpu 180 env CUDA_VISIBLE_DEVICES=0 "$pfprof" record -o "$work/gloo/run-%r.pfprof" -- \
      "${tr2[@]}" "$train" --model resnet18 --batch 64 --steps 30 --warmup 10 --backend gloo \
      --slow-rank 1 --slow-ms "$slow_ms"
    r=$rc
    traces=("$work/gloo"/run-*.pfprof)
    [ "$dry" = 1 ] && traces=("$work/gloo/run-0.pfprof" "$work/gloo/run-1.pfprof")
    tracecheck gloo_one_gpu 2 "complete no_drops gpu_kinds h200" "${traces[@]}"
    analyze gloo_one_gpu 1 --world 2 --same-gpu --template "$work/gloo/run-%r.pfprof" -- "${traces[@]}"
    v=ok
    [ "$r" = 0 ] && [ "$tc_rc" = 0 ] && [ "$an_rc" = 0 ] || v=FAIL
    [ "$dry" = 1 ] && v=DRY
    row gloo_one_gpu "$gl_exp" "exit $r in ${secs}s; median step ms by rank: $(steps_of gloo_one_gpu); $tc; $an_sum" $v
  fi
fi

echo
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | sed 's/^ *//' | paste -sd,)
{
  echo "== pfprof ranks on the GPU ($(date -u +%FT%TZ), $((SECONDS - t_start)) s, GPUs: ${gpus:-none}; $(paste -sd' ' "$work/env.txt"))"
  printf '%-14s | %-50s | %-s | %s\n' SCENARIO EXPECTED OBSERVED RESULT
  cat "$table"
  [ $failed -eq 0 ] && echo "ranks: NO CHECK FAILED" || echo "ranks: SOME CHECKS FAILED"
} >"$work/summary.txt"
cat "$details" "$work/summary.txt" >"$out/ranks.txt"
cat "$work/summary.txt"

# Bring back: the DDP traces (to commit), and the rest (logs, reports,
# checks, the other traces under 4 MB) in one archive each.
(cd "$work" && tar -cJf "$out/ddp-traces.tar.xz" ddp_even/run-*.pfprof ddp_slow/run-*.pfprof 2>/dev/null)
(cd "$work" && find . -type f \( -name '*.log' -o -name '*.txt' -o -name '*.report.json' -o -name '*.err' \
  -o \( -path './two/*' -name '*.pfprof' -size -4M \) -o \( -path './gloo/*' -name '*.pfprof' -size -4M \) \) -print0 \
  | tar --null -T - -cJf "$out/ranks-logs.tar.xz" 2>/dev/null)
exit $failed
