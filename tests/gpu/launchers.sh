#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/gpu/launchers.sh: the launch patterns besides torchrun
# (tests/gpu/ranks.sh has torchrun), on a machine with 2 or more GPUs.
#
# Run from the repository root with the build folder carried (default
# build-collector; PFPROF_BUILD to change), like ranks.sh:
#
#   bash tests/gpu/launchers.sh         # OUT=... for the results
#   DRY=1 bash tests/gpu/launchers.sh   # print what would run, run nothing
#
# Scenarios (each records samples/ddp_train.py, NCCL, rank 1's loader
# slowed by SLOW_MS, default 80, and reports over the traces):
#   mpirun      mpirun -np 2 pfprof record -o run-%h-%r.pfprof -- python3 ...
#               (Open MPI): one trace per rank named by host and rank, RANK,
#               LOCAL_RANK, WORLD_SIZE from OMPI_COMM_WORLD_*, rank 1 named
#   srun        the same under srun -n 2, on a one-node Slurm started from the
#               carried bundle (tests/gpu/slurm-local.sh; skipped without it;
#               .carry/slurm.tar.xz, which fits the carry limit better than
#               the folder, is unpacked first when the folder is missing)
#   two_hosts   rank 0 as usual; rank 1 in a UTS namespace of its own under
#               another host name, with its wall clock CLOCK_SHIFT_NS (default
#               3700000) ahead and, with CLOCK_DRIFT_PPM, running that many
#               millionths fast (tests/gpu/clockshift.c, LD_PRELOAD): two
#               "hosts" whose clocks disagree where the triples cannot see.
#               NCCL then treats them as two nodes and talks over sockets
#               on lo. The report must align rank 1 by the collectives.
# Prints a table last; exits 1 if a check failed. Into $OUT: launchers.txt,
# launchers-traces.tar.xz (every trace), launchers-logs.tar.xz (logs,
# reports, checks), two_hosts.png. Runs not started within BUDGET_S
# (default 400) seconds are skipped and say so. DDP_STEPS (20) sets the
# timed steps of every run.
set -u
shopt -s nullglob
root=$PWD
out=${OUT:-/tmp/pfprof-launchers-out}
work=${WORK:-/tmp/pfprof-launchers}
dry=${DRY:-0}
budget=${BUDGET_S:-400}
build=${PFPROF_BUILD:-build-collector}
checks=$root/tests/gpu/gpu_checks.py
train=$root/samples/ddp_train.py
slow_ms=${SLOW_MS:-80}
shift_ns=${CLOCK_SHIFT_NS:-3700000}
drift_ppm=${CLOCK_DRIFT_PPM:-0}
ddp_steps=${DDP_STEPS:-20}
bundle=${SLURM_BUNDLE:-$root/.carry/slurm}
# lib_start, row, in_budget, runlog, tracecheck, analyze
ROW_W=10 ROW_EXP_W=50
. "$root/tests/gpu/lib.sh"
lib_start

export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
if [ "$dry" = 1 ]; then
  pfprof=$root/$build/cli/pfprof
  n_gpus=2
  echo "DRY RUN: nothing is executed"
else
  . "$root/tests/gpu/env.sh"
  "$pfprof" --version || { echo "launchers: pfprof does not run here"; exit 2; }
  nvidia-smi -L
  n_gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
fi
export PFPROF=$pfprof
{
  for l in mpirun srun unshare gcc; do echo "$l: $(command -v "$l" || echo 'not installed')"; done
  command -v mpirun >/dev/null 2>&1 && mpirun --version 2>&1 | head -1
} >"$work/env.txt"
cat "$work/env.txt"


args=(--model resnet50 --batch 32 --steps "$ddp_steps" --warmup 6 --backend nccl --slow-rank 1 --slow-ms "$slow_ms")
steps_of() { [ "$dry" = 1 ] && echo "(dry)" || python3 "$checks" steps "$work/$1.log" | cut -d: -f2- | sed 's/^ *//'; }

# launched NAME EXPECTED EXIT CHECK-ARGS... -- TRACES...: the common checks.
launched() {
  local name=$1 exp=$2 r=$3
  shift 3
  local ca=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    ca+=("$1")
    shift
  done
  shift
  tracecheck "$name" 2 "complete no_drops gpu_kinds h200" "$@"
  analyze "$name" 1 "${ca[@]}" -- "$@"
  local v=ok names
  [ "$r" = 0 ] && [ "$tc_rc" = 0 ] && [ "$an_rc" = 0 ] || v=FAIL
  [ "$dry" = 1 ] && v=DRY
  names=$(for t in "$@"; do basename "$t"; done | paste -sd, -)
  row "$name" "$exp" "exit $r in ${secs}s; files $names; median step ms by rank: $(steps_of "$name"); $tc; $an_sum" $v
}

# launcher_run NAME EXPECTED DIR CMD...: CMD, a launcher whose two ranks
# record into DIR/run-%h-%r.pfprof (one node, each rank on GPU LOCAL_RANK),
# then the common checks.
launcher_run() {
  local name=$1 exp=$2 dir=$3
  shift 3
  mkdir -p "$dir"
  runlog "$name" 240 "$@"
  local tr=("$dir"/run-*.pfprof)
  [ "$dry" = 1 ] && tr=("$dir/run-h-0.pfprof" "$dir/run-h-1.pfprof")
  launched "$name" "$exp" "$rc" --world 2 --distinct-gpus --nccl --template "$dir/run-%h-%r.pfprof" -- "${tr[@]}"
}

if [ "$n_gpus" -lt 2 ]; then
  row all "2 GPUs" "only $n_gpus GPU(s): nothing run" SKIP
else
  # --- mpirun (Open MPI) ------------------------------------------------------
  exp="exit 0; run-<host>-0/1.pfprof; ranks from OMPI_*; rank 1 named"
  if in_budget mpirun "$exp"; then
    if [ "$dry" != 1 ] && ! command -v mpirun >/dev/null 2>&1; then
      row mpirun "$exp" "mpirun not installed" SKIP
    else
      # As root Open MPI wants both of these; -x passes the variables on.
      launcher_run mpirun "$exp" "$work/mpi" env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        mpirun -np 2 --bind-to none -x PATH -x LD_LIBRARY_PATH -x PYTHONUNBUFFERED -x NCCL_NVLS_ENABLE \
        -x TORCH_SYMM_MEM_DISABLE_MULTICAST -x NVSHMEM_DISABLE_NVLS -x MASTER_ADDR=127.0.0.1 -x MASTER_PORT=29531 \
        "$pfprof" record -o "$work/mpi/run-%h-%r.pfprof" -- python3 "$train" "${args[@]}"
    fi
  fi

  # --- srun on a one-node Slurm from the carried bundle ---------------------
  exp="exit 0; run-<host>-0/1.pfprof; ranks from SLURM_*; rank 1 named"
  if in_budget srun "$exp"; then
    if [ "$dry" != 1 ] && [ ! -d "$bundle" ] && [ -f "$bundle.tar.xz" ]; then
      tar -xJf "$bundle.tar.xz" -C "$(dirname "$bundle")"
    fi
    if [ "$dry" != 1 ] && [ ! -d "$bundle" ]; then
      row srun "$exp" "no Slurm bundle at $bundle (scripts/fetch-slurm-bundle.sh makes it)" SKIP
    else
      launcher_run srun "$exp" "$work/slurm" env SLURM_BUNDLE="$bundle" MASTER_ADDR=127.0.0.1 MASTER_PORT=29532 \
        bash "$root/tests/gpu/slurm-local.sh" -- \
        srun -n 2 "$pfprof" record -o "$work/slurm/run-%h-%r.pfprof" -- python3 "$train" "${args[@]}"
    fi
  fi

  # --- two "hosts": a UTS namespace and a wall clock off by shift_ns -------
  exp="2 hosts in meta; rank 1 aligned by collectives; rank 1 named"
  if in_budget two_hosts "$exp"; then
    mkdir -p "$work/hosts"
    shim=$work/clockshift.so
    if [ "$dry" = 1 ]; then
      echo "+ gcc -shared -fPIC -O2 -o $shim tests/gpu/clockshift.c -ldl"
    else
      gcc -shared -fPIC -O2 -o "$shim" "$root/tests/gpu/clockshift.c" -ldl >"$work/clockshift.log" 2>&1
    fi
    # Two nodes to NCCL: sockets over lo, no InfiniBand.
    common=(WORLD_SIZE=2 LOCAL_WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=29533
            NCCL_SOCKET_IFNAME=lo NCCL_IB_DISABLE=1)
    rec=("$pfprof" record -o "$work/hosts/run-%h-%r.pfprof" -- python3 "$train" "${args[@]}")
    if [ "$dry" = 1 ]; then
      echo "+ env RANK=0 CUDA_VISIBLE_DEVICES=0 ${common[*]} ${rec[*]} &"
      echo "+ unshare --uts sh -c 'hostname pfprof-host-b && exec \"\$@\"' sh env RANK=1 CUDA_VISIBLE_DEVICES=1 ${common[*]} LD_PRELOAD=$shim PFPROF_TEST_CLOCK_SHIFT_NS=$shift_ns PFPROF_TEST_CLOCK_DRIFT_PPM=$drift_ppm ${rec[*]}"
      r0=0 r1=0 secs=0
    else
      t0=$SECONDS
      timeout -k 10 200 env RANK=0 CUDA_VISIBLE_DEVICES=0 "${common[@]}" "${rec[@]}" >"$work/two_hosts_rank0.log" 2>&1 &
      p0=$!
      timeout -k 10 200 unshare --uts sh -c 'hostname pfprof-host-b && exec "$@"' sh \
        env RANK=1 CUDA_VISIBLE_DEVICES=1 "${common[@]}" LD_PRELOAD="$shim" PFPROF_TEST_CLOCK_SHIFT_NS="$shift_ns" \
        PFPROF_TEST_CLOCK_DRIFT_PPM="$drift_ppm" \
        "${rec[@]}" >"$work/two_hosts_rank1.log" 2>&1 &
      p1=$!
      wait $p0
      r0=$?
      wait $p1
      r1=$?
      secs=$((SECONDS - t0))
      cat "$work/two_hosts_rank0.log" "$work/two_hosts_rank1.log" >"$work/two_hosts.log"
    fi
    tr=("$work/hosts"/run-*.pfprof)
    [ "$dry" = 1 ] && tr=("$work/hosts/run-a-0.pfprof" "$work/hosts/run-b-1.pfprof")
    launched two_hosts "$exp" "$((r0 | r1))" --nccl -- "${tr[@]}"
    if [ "$dry" = 1 ]; then
      echo "+ gpu_checks.py clocks --report two_hosts.report.json --shift $shift_ns --drift-ppm $drift_ppm ${tr[*]}"
    else
      python3 "$checks" clocks --report "$work/two_hosts.report.json" --shift "$shift_ns" --drift-ppm "$drift_ppm" \
        "${tr[@]}" \
        >"$work/two_hosts.clocks.txt" 2>&1
      crc=$?
      { echo "### two_hosts clocks"; cat "$work/two_hosts.clocks.txt"; echo; } >>"$details"
      v=ok
      [ "$crc" = 0 ] || v=FAIL
      row two_clock "rank 1 moved by the collectives; ends line up" "$(tail -1 "$work/two_hosts.clocks.txt")" $v
      "$pfprof" render "${tr[@]}" -o "$out/two_hosts.png" >"$work/two_hosts.render.log" 2>&1
    fi
  fi
fi

echo
{
  echo "== pfprof launchers on the GPU ($(date -u +%FT%TZ), $((SECONDS - t_start)) s; $(paste -sd' ' "$work/env.txt"))"
  printf "%-${ROW_W}s | %-${ROW_EXP_W}s | %-s | %s\n" SCENARIO EXPECTED OBSERVED RESULT
  cat "$table"
  [ $failed -eq 0 ] && echo "launchers: NO CHECK FAILED" || echo "launchers: SOME CHECKS FAILED"
} >"$work/summary.txt"
cat "$details" "$work/summary.txt" >"$out/launchers.txt"
cat "$work/summary.txt"
(cd "$work" && tar -cJf "$out/launchers-traces.tar.xz" mpi slurm hosts 2>/dev/null)
(cd "$work" && find . -type f \( -name '*.log' -o -name '*.txt' -o -name '*.report.json' -o -name '*.err' \) -print0 \
  | tar --null -T - -cJf "$out/launchers-logs.tar.xz" 2>/dev/null)
exit $failed
