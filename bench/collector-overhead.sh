#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/collector-overhead.sh [-n] [ROUNDS [WORKLOADS]]: the
# interleaved overhead benchmark. Run from the repository root on the GPU
# machine with the build folder carried (PFPROF_BUILD, default
# build-collector, made with the collector enabled and
# tests/gpu/pack-libs.sh run on it).
#
# For each round and each workload, one process per variant, in turn:
#   bare       the workload alone
#   pfprof     pfprof record --quiet --no-report -o TRACE (default settings)
#   torch      the workload's --profiler torch (CPU+CUDA, chrome export)
#   floor      CUDA_INJECTION64_PATH=BUILD/bench/libpfprof-cupti-floor.so with
#              PFPROF_FLOOR_KINDS = the kinds pfprof enabled (meta
#              activity_kinds of this workload's pfprof trace of this
#              round, or of the previous round when the rotation put the
#              floor first; all ten when the trace does not say)
#              (with api-callbacks: empty CUPTI callbacks for the calls
#              named in collector/pfprof-collector-api.c)
#   floor-all  the floor with all ten kinds
#   pfprof-launches  pfprof record --trace-launches (RUNTIME and DRIVER too)
#   nohooks    pfprof record --no-python-hooks (the hook's cost: against pfprof)
#   nice0      pfprof record with PFPROF_WRITER_NICE=0 (the writer thread at the
#              program's priority, as before it ran at nice 10)
#   kind-K     pfprof record with PFPROF_KINDS=K ('+' for ','): kind-kernel,
#              kind-memcpy+memset, kind-api-callbacks (each record kind alone)
#   base       pfprof record of another build (PFPROF_BASE, default
#              .carry/gpu/base: the build this one is compared with)
#   pfprof-alt   pfprof record --capture-range=cuda-profiler-api with
#              PFPROF_CAPTURE_REPEAT=1, running the SUITE_ALT workloads
#              (NAME-palt: bench/step_alternation.py's --alternate pfprof),
#              which record in one block of steps and pause in the next:
#              the whole profiler's cost measured in one process
#   nohooks-alt  the same with --no-python-hooks (the collector alone)
#   floor-alt  the floor as for floor, with PFPROF_CAPTURE=cuda-profiler-api
#              PFPROF_CAPTURE_REPEAT=1 (its kinds on in every other block),
#              running SUITE_ALT
# The last nine are not in the default list: VARIANTS="... nohooks".
# The -alt variants need WORKLOADS=suite; their figure is the in-process
# table (each run's paired cost: the median over its block pairs of
# on / off - 1), not a comparison with bare.
# Any variant may end in @N (bare@2, pfprof@4): the whole run, launcher and
# all, restricted to CPUs 0..N-1 with taskset; it is compared with bare@N.
# The order rotates by one variant each round (round 1: the order above),
# so no variant always runs first or right after torch.profiler.
#
# Workloads: resnet50 (bench/resnet50_step.py) and tiny
# (bench/tiny_kernels.py, 1,000 tiny kernels + one copy per step), each a
# process per run; and suite: bench/overhead_suite.py, the workloads named
# by SUITE one after the other in one process (one process start for all
# of them: more rounds fit), each reported as a workload of its own.
#
# -n  print the commands and exit (runs nothing, needs no GPU or build).
#
# Environment (defaults): ROUNDS (3), WORKLOADS ("resnet50 tiny"),
# VARIANTS ("bare pfprof torch floor floor-all"), RESNET_STEPS (100),
# RESNET_WARMUP (15), TINY_KERNELS (1000), TINY_STEPS (200), TINY_WARMUP
# (20), SUITE ("r50b32 bert tiny toitem r50b256 bert-alt toitem-alt"),
# SUITE_FLOOR (the suite of the floor variants: "r50b32 bert tiny"),
# SUITE_ALT (the suite of the -alt variants: "r50b32-palt bert-palt
# tiny-palt toitem-palt r50b256-palt"), ALT_PAIRS (8: on/off block pairs
# per -palt workload), ALT_BLOCK_S (1: seconds a block lasts),
# SUITE_SCALE (1: the suite's timed steps multiplied by it; the -palt
# workloads' length is ALT_PAIRS x 2 blocks instead), ROTATE (1),
# BUDGET_S (540: no new round starts unless the last round's duration
# still fits), RUN_TIMEOUT_S (240, per process),
# KEEP_TRACES (0: delete every trace once counted), PFPROF_COMMIT (the
# commit the build was made from, for the header; default: BUILD/COMMIT,
# which tests/gpu/pack-carry.sh writes, else git HEAD of the tree, which
# on the device machine can differ), OVERHEAD_OUT (the
# results folder: $OUT/overhead when $OUT is set, else
# /tmp/pfprof-overhead-out), OVERHEAD_WORK (traces and logs while it
# runs: /tmp/pfprof-overhead, emptied first).
#
# Results (four files, so they come back from the device machine):
#   overhead.md   the tables in Markdown (rewritten after every round)
#   overhead.log  everything printed here
#   runs.tsv      one row per run
#   logs.tar.gz   each run's log and each pfprof trace's counts (JSON)
set -u
dry=0
if [ "${1:-}" = -n ] || [ "${1:-}" = --dry-run ]; then dry=1; shift; fi
rounds=${1:-${ROUNDS:-3}}
workloads=${2:-${WORKLOADS:-resnet50 tiny}}
variants=${VARIANTS:-bare pfprof torch floor floor-all}
resnet_steps=${RESNET_STEPS:-100}
resnet_warmup=${RESNET_WARMUP:-15}
tiny_kernels=${TINY_KERNELS:-1000}
tiny_steps=${TINY_STEPS:-200}
tiny_warmup=${TINY_WARMUP:-20}
rotate=${ROTATE:-1}
budget_s=${BUDGET_S:-540}
run_timeout_s=${RUN_TIMEOUT_S:-240}
keep_traces=${KEEP_TRACES:-0}
if [ -n "${OUT:-}" ]; then out=${OVERHEAD_OUT:-$OUT/overhead}; else out=${OVERHEAD_OUT:-/tmp/pfprof-overhead-out}; fi
work=${OVERHEAD_WORK:-/tmp/pfprof-overhead}
build=${PFPROF_BUILD:-build-collector}
floor_lib=$PWD/$build/bench/libpfprof-cupti-floor.so
base_dir=${PFPROF_BASE:-$build/base}
suite=${SUITE:-r50b32 bert tiny toitem r50b256 bert-alt toitem-alt}
suite_floor=${SUITE_FLOOR:-r50b32 bert tiny}
suite_alt=${SUITE_ALT:-r50b32-palt bert-palt tiny-palt toitem-palt r50b256-palt}
alt_pairs=${ALT_PAIRS:-8}
alt_block_s=${ALT_BLOCK_S:-1}
suite_scale=${SUITE_SCALE:-1}
stats="python3 bench/overhead_stats.py"

case $rounds in ''|*[!0-9]*) echo "collector-overhead: ROUNDS must be a number, not '$rounds'" >&2; exit 2;; esac
for w in $workloads; do
  case $w in resnet50|tiny|suite) ;; *) echo "collector-overhead: unknown workload '$w' (resnet50, tiny, suite)" >&2; exit 2;; esac
done
for v in $variants; do
  case ${v%@*} in bare|pfprof|pfprof-launches|torch|floor|floor-all|nohooks|nice0|base|kind-?*) ;;
    pfprof-alt|nohooks-alt|floor-alt)
      [ "$workloads" = suite ] || { echo "collector-overhead: $v runs the suite only: WORKLOADS=suite" >&2; exit 2; } ;;
    *) echo "collector-overhead: unknown variant '$v'" >&2; exit 2;; esac
  case $v in *@*) case ${v#*@} in ''|*[!0-9]*|0) echo "collector-overhead: '$v': @ takes a number of CPUs" >&2; exit 2;; esac;; esac
  case " $workloads " in *" suite "*) [ "${v%@*}" != torch ] || { echo "collector-overhead: no torch variant with the suite" >&2; exit 2; };; esac
done
read -r -a vlist <<<"$variants"
nv=${#vlist[@]}
[ "$nv" -gt 0 ] || { echo "collector-overhead: no variants" >&2; exit 2; }

# The workload's command for variant $2 (the floor and the -alt variants
# run their own suites).
workload_cmd() {
  local v=${2:-}
  case $1 in
    suite)
      case ${v%@*} in
        *-alt) echo "python3 bench/overhead_suite.py --alt-pairs $alt_pairs --alt-block-s $alt_block_s $suite_alt" ;;
        floor*) echo "python3 bench/overhead_suite.py --steps-scale $suite_scale $suite_floor" ;;
        *) echo "python3 bench/overhead_suite.py --steps-scale $suite_scale $suite" ;; esac ;;
    resnet50) echo "python3 bench/resnet50_step.py --steps $resnet_steps --warmup $resnet_warmup" ;;
    tiny) echo "python3 bench/tiny_kernels.py --kernels $tiny_kernels --steps $tiny_steps --warmup $tiny_warmup" ;;
  esac
}

# The variants of round $1 in their order.
round_variants() {
  local off=0 i
  [ "$rotate" = 1 ] && off=$((($1 - 1) % nv))
  for ((i = 0; i < nv; i++)); do echo "${vlist[(i + off) % nv]}"; done
}

# The command line of one run (for -n and for the log); FLOOR_KINDS stands
# for the list read at run time.
show_cmd() {
  local r=$1 w=$2 v=$3 cmd pre=""
  cmd=$(workload_cmd "$w" "$v")
  case $v in *@*) pre="taskset -c 0-$((${v#*@} - 1)) " ;; esac
  echo -n "$pre"
  case ${v%@*} in
    bare) echo "$cmd" ;;
    nohooks) echo "$pfprof record --quiet --no-report --no-python-hooks -o $work/$v-r$r-$w.pfprof -- $cmd" ;;
    nice0) echo "PFPROF_WRITER_NICE=0 $pfprof record --quiet --no-report -o $work/$v-r$r-$w.pfprof -- $cmd" ;;
    kind-*) echo "PFPROF_KINDS=$(echo "${v%@*}" | sed 's/^kind-//; s/+/,/g') $pfprof record --quiet --no-report -o $work/$v-r$r-$w.pfprof -- $cmd" ;;
    base) echo "$base_dir/cli/pfprof record --quiet --no-report -o $work/$v-r$r-$w.pfprof -- $cmd" ;;
    pfprof) echo "$pfprof record --quiet --no-report -o $work/$v-r$r-$w.pfprof -- $cmd" ;;
    pfprof-launches) echo "$pfprof record --quiet --no-report --trace-launches -o $work/pfprof-launches-r$r-$w.pfprof -- $cmd" ;;
    torch) echo "$cmd --profiler torch --trace-out $work/torch-r$r-$w.json" ;;
    floor) echo "CUDA_INJECTION64_PATH=$floor_lib PFPROF_FLOOR_KINDS=\${kinds from pfprof trace} PFPROF_FLOOR_CALLBACKS=$callbacks $cmd" ;;
    floor-all) echo "CUDA_INJECTION64_PATH=$floor_lib PFPROF_FLOOR_KINDS=$all_kinds $cmd" ;;
    pfprof-alt) echo "PFPROF_CAPTURE_REPEAT=1 $pfprof record --quiet --no-report --capture-range=cuda-profiler-api -o $work/$v-r$r-$w.pfprof -- $cmd" ;;
    nohooks-alt) echo "PFPROF_CAPTURE_REPEAT=1 $pfprof record --quiet --no-report --capture-range=cuda-profiler-api --no-python-hooks -o $work/$v-r$r-$w.pfprof -- $cmd" ;;
    floor-alt) echo "CUDA_INJECTION64_PATH=$floor_lib PFPROF_FLOOR_KINDS=\${kinds from pfprof trace} PFPROF_FLOOR_CALLBACKS=$callbacks $capture_env $cmd" ;;
  esac
}

all_kinds=kernel,memcpy,memset,sync,runtime,driver,cuda_event,stream,memory2,overhead
# What makes the collector and the floor record every cudaProfilerStart-Stop
# range, as the -palt workloads' blocks need.
capture_env="PFPROF_CAPTURE=cuda-profiler-api PFPROF_CAPTURE_REPEAT=1"
# The calls the collector's api-callbacks intercept, read from its source
# so that the floor's empty callbacks cover the same calls.
callbacks=$(sed -n '/api_callback_names\[\] = {/,/};/p' collector/pfprof-collector-api.c 2>/dev/null \
  | grep -o '"[A-Za-z0-9_]*"' | tr -d '"' | paste -sd, -)

if [ $dry = 1 ]; then
  pfprof=$PWD/$build/cli/pfprof
  echo "# $rounds round(s) x workloads ($workloads) x variants ($variants); results in $out"
  for ((r = 1; r <= rounds; r++)); do
    for w in $workloads; do
      for v in $(round_variants $r); do
        echo "round $r $w $v: $(show_cmd $r $w $v)"
      done
    done
  done
  exit 0
fi

. tests/gpu/env.sh
export PYTHONUNBUFFERED=1
rm -rf "$work"; mkdir -p "$work/logs" "$out"
rm -f "$out/overhead.md" "$out/overhead.log" "$out/runs.tsv" "$out/logs.tar.gz"
exec > >(tee "$out/overhead.log") 2>&1
tee_pid=$!
tsv=$out/runs.tsv
t_start=$SECONDS

if ! "$pfprof" --version >/dev/null 2>&1; then
  echo "collector-overhead: $pfprof does not run; pfprof variants will fail"
fi
if case " $variants " in *" base"[\ @]*) true;; *) false;; esac && ! "$base_dir/cli/pfprof" --version >/dev/null 2>&1; then
  echo "collector-overhead: $base_dir/cli/pfprof does not run (PFPROF_BASE); base variants skipped"
  variants=$(for v in $variants; do [ "${v%@*}" = base ] || echo "$v"; done | paste -sd' ')
  read -r -a vlist <<<"$variants"; nv=${#vlist[@]}
fi
for v in $variants; do
  case $v in *@*) [ "${v#*@}" -le "$(nproc)" ] || echo "collector-overhead: $v asks for more CPUs than the $(nproc) there are";; esac
done
if [ ! -f "$floor_lib" ]; then
  echo "collector-overhead: $floor_lib is missing (build with -Dcollector=enabled); floor variants skipped"
  variants=$(for v in $variants; do case $v in floor*) ;; *) echo "$v" ;; esac; done | paste -sd' ')
  read -r -a vlist <<<"$variants"; nv=${#vlist[@]}
  [ "$nv" -gt 0 ] || { echo "collector-overhead: no variant left to run"; exit 2; }
fi

machine=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
torchv=$(python3 -c "import torch, torchvision; print(f'torch {torch.__version__}, torchvision {torchvision.__version__}, CUDA {torch.version.cuda}')" 2>/dev/null)
header="Machine: ${machine:-no nvidia-smi}; $(nproc) CPUs; ${torchv:-no torch}; $("$pfprof" --version 2>/dev/null | head -1); commit ${PFPROF_COMMIT:-$(cat "$build/COMMIT" 2>/dev/null || echo "$(git rev-parse --short HEAD 2>/dev/null || echo unknown) (git HEAD of this tree; set PFPROF_COMMIT to name the build)")}; $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "$header"
echo "rounds $rounds; workloads: $workloads; variants: $variants; resnet50 $resnet_steps+$resnet_warmup steps; tiny $tiny_kernels kernels x $tiny_steps+$tiny_warmup steps; suite: $suite (floor: $suite_floor), steps x $suite_scale; -alt suite: $suite_alt, $alt_pairs pairs of ${alt_block_s}s blocks; budget ${budget_s}s"

declare -A pfprof_kinds     # workload -> "round kinds source" of its latest pfprof trace
# One run: round, workload, variant.
run_one() {
  local r=$1 w=$2 v=$3 cmd log t0 rc kinds="" src kr trace="" bv=${3%@*} pin=()
  cmd=$(workload_cmd "$w" "$v")
  log=$work/logs/r$r-$w-$v.log
  case $v in *@*) pin=(taskset -c "0-$((${v#*@} - 1))") ;; esac
  t0=${EPOCHREALTIME/,/.}
  case $bv in
    bare)
      env -u CUDA_INJECTION64_PATH timeout "$run_timeout_s" "${pin[@]}" $cmd >"$log" 2>&1 ;;
    pfprof|pfprof-launches|nohooks|nice0|kind-*|base|pfprof-alt|nohooks-alt)
      local opts=() envs=() bin=$pfprof
      trace=$work/$v-r$r-$w.pfprof
      case $bv in
        pfprof-launches) opts=(--trace-launches) ;;
        nohooks) opts=(--no-python-hooks) ;;
        pfprof-alt) opts=(--capture-range=cuda-profiler-api); envs=(PFPROF_CAPTURE_REPEAT=1) ;;
        nohooks-alt) opts=(--capture-range=cuda-profiler-api --no-python-hooks); envs=(PFPROF_CAPTURE_REPEAT=1) ;;
        nice0) envs=(PFPROF_WRITER_NICE=0) ;;
        kind-*) envs=("PFPROF_KINDS=$(echo "${bv#kind-}" | tr + ,)") ;;
        base) bin=$PWD/$base_dir/cli/pfprof ;;
      esac
      rm -f "$trace"
      env -u CUDA_INJECTION64_PATH "${envs[@]}" timeout "$run_timeout_s" "${pin[@]}" \
        "$bin" record --quiet --no-report "${opts[@]}" -o "$trace" -- $cmd >"$log" 2>&1 ;;
    torch)
      env -u CUDA_INJECTION64_PATH timeout "$run_timeout_s" "${pin[@]}" \
        $cmd --profiler torch --trace-out "$work/torch-r$r-$w.json" >"$log" 2>&1 ;;
    floor|floor-all|floor-alt)
      local envs=()
      [ $bv != floor-alt ] || read -r -a envs <<<"$capture_env"
      if [ $bv != floor-all ]; then
        if [ -n "${pfprof_kinds[$w]:-}" ]; then
          read -r kr kinds src <<<"${pfprof_kinds[$w]}"
          [ "$kr" = "$r" ] || src="$src, round $kr: pfprof has not run yet in round $r"
        else
          kinds=$all_kinds; src="all ten: no pfprof trace of $w yet"
        fi
        echo "floor kinds: $kinds ($src)" >"$log"
      else
        kinds=$all_kinds; : >"$log"
      fi
      env CUDA_INJECTION64_PATH="$floor_lib" PFPROF_FLOOR_KINDS="$kinds" PFPROF_FLOOR_CALLBACKS="$callbacks" "${envs[@]}" \
        timeout "$run_timeout_s" "${pin[@]}" \
        $cmd >>"$log" 2>&1 ;;
  esac
  rc=$?
  if [ $bv = pfprof ] || [ $bv = pfprof-alt ]; then
    read -r kinds src < <($stats kinds "$trace")
    [ -n "$kinds" ] || { kinds=$all_kinds; src="all ten: overhead_stats.py kinds failed"; }
    pfprof_kinds[$w]="$r $kinds $src"
  fi
  $stats record --tsv "$tsv" --round "$r" --workload "$w" --variant "$v" --log "$log" \
    --wall "$(awk "BEGIN {print ${EPOCHREALTIME/,/.} - $t0}")" --rc $rc ${trace:+--trace "$trace"} ${kinds:+--kinds "$kinds"}
  if [ "$keep_traces" != 1 ]; then
    [ -z "$trace" ] || rm -f "$trace" "$trace"-*
    [ $bv != torch ] || rm -f "$work/torch-r$r-$w.json"
  fi
}

finish() {
  $stats summary --tsv "$tsv" --md "$out/overhead.md" --header "$header" >"$work/summary.txt" 2>&1
  tar -C "$work" -czf "$out/logs.tar.gz.tmp" logs && mv "$out/logs.tar.gz.tmp" "$out/logs.tar.gz"
}

last_round_s=0
done_rounds=0
for ((r = 1; r <= rounds; r++)); do
  elapsed=$((SECONDS - t_start))
  if [ $r -gt 1 ] && [ $((elapsed + last_round_s)) -gt "$budget_s" ]; then
    echo "stopping after $done_rounds round(s): ${elapsed}s elapsed, a round takes ~${last_round_s}s, budget ${budget_s}s"
    break
  fi
  t_round=$SECONDS
  for w in $workloads; do
    for v in $(round_variants $r); do
      run_one $r $w $v
    done
  done
  last_round_s=$((SECONDS - t_round))
  done_rounds=$r
  finish
  echo "round $r done in ${last_round_s}s (elapsed $((SECONDS - t_start))s; $rounds rounds need ~$((SECONDS - t_start + (rounds - r) * last_round_s))s, budget ${budget_s}s)"
done

finish
cat "$work/summary.txt"
[ "$keep_traces" = 1 ] || rm -f "$work"/*.pfprof "$work"/*.json
echo "elapsed $((SECONDS - t_start))s for $done_rounds round(s); results in $out"
failed=$(awk -F'\t' 'NR > 1 && ($4 == "nan" || $10 ~ /exit|not loaded|no trace/)' "$tsv" | wc -l)
[ "$failed" = 0 ] || echo "collector-overhead: $failed run(s) failed or reported nothing: see the note column of $tsv"
# Let tee write the last lines before the script ends.
exec >&- 2>&-
wait "$tee_pid" 2>/dev/null || true
[ "$failed" = 0 ]
