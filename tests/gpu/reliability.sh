#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/gpu/reliability.sh: faults in the profiled program that
# tests/gpu/run-all.sh does not try, on the GPU machine.
#
# Run from the repository root with the build folder carried (default
# build-collector; PFPROF_BUILD to change), like run-all.sh:
#
#   bash tests/gpu/reliability.sh          # OUT=... for the results
#   DRY=1 bash tests/gpu/reliability.sh    # print what would run, run nothing
#
# Each scenario runs a small program from tests/gpu/reliability_probe.py
# twice, bare and under `pfprof record`, and compares the program's own
# output (its "OUT:" lines, sorted) and exit code; then checks every trace
# written with check_trace.py and `pfprof report` (exit 0 or 1, never 2):
#
#   sigint          SIGINT to `pfprof record`; the program catches
#                   KeyboardInterrupt and exits 7
#   sigint_uncaught the same, not caught (Python dies of SIGINT: 130)
#   torchrun_int    SIGINT to `pfprof record -o r-%r.pfprof -- torchrun
#   torchrun_term   --standalone --nproc_per_node 2 ...` (gloo), and SIGTERM
#   dataloader      DataLoader with 2 fork workers after CUDA init
#   forkchild       an os.fork child and a multiprocessing fork child that
#                   initialize CUDA themselves
#   exec            a CUDA program that os.execv's another CUDA program
#   spawn           4 CUDA processes started at once by a launcher
#   fill            trace folder on a 2 MiB tmpfs that fills during the run
#   injector        CUDA_INJECTION64_PATH already set to another library
#                   (FLOOR_LIB, default BUILD/bench/libpfprof-cupti-floor.so;
#                   skipped when absent)
#   nocuda          a program that never initializes CUDA (exit 5)
#
# Prints a table last (scenario, expected, observed, result); exits 1 if a
# check failed. Logs and small traces: $OUT/reliability.tar.xz, the table:
# $OUT/reliability.txt. Scenarios not started within BUDGET_S seconds
# (default 240) are skipped and say so; ONLY="sigint exec ..." runs only
# those.
set -u
shopt -s nullglob # a glob of no trace is no argument
root=$PWD
out=${OUT:-/tmp/pfprof-rel-out}
work=${WORK:-/tmp/pfprof-rel}
dry=${DRY:-0}
budget=${BUDGET_S:-240}
build=${PFPROF_BUILD:-build-collector}
probe=${PROBE:-$root/tests/gpu/reliability_probe.py}
checks=$root/tests/gpu/gpu_checks.py
floor=${FLOOR_LIB:-$root/$build/bench/libpfprof-cupti-floor.so}
failed=0
t_start=$SECONDS
rm -rf "$work"
mkdir -p "$work" "$out"
table=$work/table.txt
: >"$table"

if [ "$dry" = 1 ]; then
  pfprof=$root/$build/cli/pfprof
  echo "DRY RUN: nothing is executed"
else
  . "$root/tests/gpu/env.sh"
  "$pfprof" --version || { echo "reliability: pfprof does not run here"; exit 2; }
  nvidia-smi --query-gpu=index,name,uuid --format=csv,noheader
fi
export PFPROF=$pfprof PYTHONUNBUFFERED=1
# NVLink multicast off, as the machine sets it (its notes ask to keep these).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
torchrun=(torchrun)
command -v torchrun >/dev/null 2>&1 || torchrun=(python3 -m torch.distributed.run)

# row, in_budget, runlog, tracecheck
. "$root/tests/gpu/lib.sh"

# launch CMD...: CMD in a process group of its own with SIGINT and SIGTERM
# at their defaults (a non-interactive shell starts background commands
# with SIGINT ignored, which would hide the program's KeyboardInterrupt).
# Called as `launch ... &`: exec makes $! the program's own pid.
launch() {
  exec python3 -c 'import os, signal, sys
os.setpgid(0, 0)
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

# signal_run NAME SIG READYDIR NREADY CMD...: starts CMD, waits until
# READYDIR holds NREADY files named ready*, sends SIG to CMD's process (not
# its group), waits for it (60 s at most, then SIGKILL to the group); sets
# rc and ready_s.
signal_run() {
  local name=$1 sig=$2 rd=$3 n=$4
  shift 4
  if [ "$dry" = 1 ]; then
    echo "+ $* >$name.log 2>&1 &   # own process group; wait for $n ready file(s) in $rd; kill -$sig PID; wait"
    rc=0 ready_s=0
    return
  fi
  rm -rf "$rd"
  mkdir -p "$rd"
  launch "$@" >"$work/$name.log" 2>&1 &
  local pid=$! i=0
  while [ "$(find "$rd" -name 'ready*' ! -name '*.tmp' | wc -l)" -lt "$n" ] && [ $i -lt 900 ]; do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
    i=$((i + 1))
  done
  ready_s=$((i / 10))
  sleep 1
  echo "reliability: kill -$sig $pid after ${ready_s}s" >>"$work/$name.signal"
  kill -"$sig" "$pid" 2>/dev/null
  i=0
  while kill -0 "$pid" 2>/dev/null && [ $i -lt 600 ]; do
    sleep 0.1
    i=$((i + 1))
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "reliability: still running 60 s after SIG$sig; SIGKILL to its group" >>"$work/$name.signal"
    kill -KILL -- "-$pid" 2>/dev/null
  fi
  wait "$pid"
  rc=$?
  sleep 0.5
  kill -KILL -- "-$pid" 2>/dev/null # leftovers (workers) of the group
}

# outlines NAME: the program's own output lines, sorted.
outlines() { grep -a '^OUT:' "$work/$1.log" 2>/dev/null | sort; }

# same_output A B: "same output" or "output differs" (details in the log).
same_output() {
  if [ "$dry" = 1 ]; then
    echo "(dry)"
  elif [ "$(outlines "$1")" = "$(outlines "$2")" ] && [ -n "$(outlines "$1")" ]; then
    echo "same output"
  else
    {
      echo "--- $1"
      outlines "$1"
      echo "--- $2"
      outlines "$2"
    } >>"$work/output-diff.txt"
    echo "OUTPUT DIFFERS"
  fi
}


# pfmsg NAME: pfprof's own stderr lines of a run, joined (for the table).
pfmsg() { grep -a '^pfprof: ' "$work/$1.log" 2>/dev/null | grep -v '^pfprof:   ' | cut -c1-160 | paste -sd '~' | sed 's/~/ ~ /g'; }

py=(python3 "$probe")

# --- SIGINT to pfprof record, the program catches KeyboardInterrupt --------
sc_sigint() {
  local s=$1 flag=$2 want=$3 exp=$4
  in_budget "$s" "$exp" || return
  mkdir -p "$work/$s"
  signal_run "${s}_bare" INT "$work/$s/rd-bare" 1 "${py[@]}" loop --ready "$work/$s/rd-bare/ready" $flag
  local rb=$rc
  signal_run "${s}_pf" INT "$work/$s/rd-pf" 1 "$pfprof" record -o "$work/$s/sigint-%p.pfprof" -- \
    "${py[@]}" loop --ready "$work/$s/rd-pf/ready" $flag
  local rp=$rc
  tracecheck "$s" 1 "" "$work/$s"/*.pfprof
  local so v=ok
  so=$(same_output "${s}_bare" "${s}_pf")
  [ "$rb" = "$want" ] && [ "$rp" = "$rb" ] && [ "$so" != "OUTPUT DIFFERS" ] && [ "$tc_rc" = 0 ] || v=FAIL
  [ "$dry" = 1 ] && v=DRY
  row "$s" "$exp" "exit bare $rb, pfprof $rp; $so; $tc" $v
}

# --- SIGINT / SIGTERM to pfprof record -- torchrun --------------------------
sc_torchrun() {
  local sig=$1 s=torchrun_${1,,}
  local exp="exit as bare torchrun; 2 traces (r-0, r-1) complete or readable"
  in_budget "$s" "$exp" || return
  mkdir -p "$work/$s"
  local tr=("${torchrun[@]}" --standalone --nproc_per_node 2)
  signal_run "${s}_bare" "$sig" "$work/$s/rd-bare" 2 "${tr[@]}" "$probe" dist --ready-dir "$work/$s/rd-bare"
  local rb=$rc
  signal_run "${s}_pf" "$sig" "$work/$s/rd-pf" 2 "$pfprof" record -o "$work/$s/r-%r.pfprof" -- \
    "${tr[@]}" "$probe" dist --ready-dir "$work/$s/rd-pf"
  local rp=$rc
  tracecheck "$s" 2 "" "$work/$s"/*.pfprof
  local so v=ok
  so=$(same_output "${s}_bare" "${s}_pf")
  [ "$rp" = "$rb" ] && [ "$tc_rc" = 0 ] || v=FAIL
  [ "$dry" = 1 ] && v=DRY
  row "$s" "$exp" "exit bare $rb, pfprof $rp (ready after ${ready_s}s); $so; $tc" $v
}

# plain NAME EXPECTED WANT-RC WANT-TRACES CHECKS TIMEOUT PROG-ARGS...: bare
# and under pfprof record -o NAME/NAME-%p.pfprof; program output, exit
# codes, trace count and checks. Sets rb, rp for extra checks.
plain() {
  local s=$1 exp=$2 want=$3 ntr=$4 c=$5 t=$6
  shift 6
  rb='' rp=''
  in_budget "$s" "$exp" || return 1
  mkdir -p "$work/$s"
  runlog "${s}_bare" "$t" "$@"
  rb=$rc
  runlog "${s}_pf" "$t" "$pfprof" record -o "$work/$s/$s-%p.pfprof" -- "$@"
  rp=$rc
  tracecheck "$s" "$ntr" "$c" "$work/$s"/*.pfprof
  local so
  so=$(same_output "${s}_bare" "${s}_pf")
  plain_v=ok
  [ "$rb" = "$want" ] && [ "$rp" = "$rb" ] && [ "$so" != "OUTPUT DIFFERS" ] && [ "$tc_rc" = 0 ] || plain_v=FAIL
  [ "$dry" = 1 ] && plain_v=DRY
  plain_obs="exit bare $rb, pfprof $rp; $so; $tc"
  return 0
}

sc_dataloader() {
  local exp="exit 0; 1 trace (none per worker), complete, DataLoader.next ranges"
  plain dataloader "$exp" 0 1 "complete no_drops gpu_kinds dl_nvtx" 120 "${py[@]}" dataloader || return
  row dataloader "$exp" "$plain_obs" $plain_v
}

sc_forkchild() {
  local exp="exit 0; 3 traces (parent, os.fork child, multiprocessing child), none corrupt"
  plain forkchild "$exp" 0 3 "gpu_kinds" 120 "${py[@]}" forkchild || return
  row forkchild "$exp" "$plain_obs" $plain_v
}

sc_exec() {
  local exp="exit 0; 2 traces (before and after execv), none corrupt"
  plain exec "$exp" 0 2 "gpu_kinds" 120 "${py[@]}" exec || return
  row exec "$exp" "$plain_obs; pfprof said: $(pfmsg exec_pf)" $plain_v
}

sc_spawn() {
  local exp="exit 0; 4 traces, complete"
  plain spawn "$exp" 0 4 "complete no_drops gpu_kinds" 120 "${py[@]}" spawn 4 || return
  row spawn "$exp" "$plain_obs" $plain_v
}

sc_nocuda() {
  local exp="exit 5 both; 'no CUDA process was traced'; no trace"
  in_budget nocuda "$exp" || return
  mkdir -p "$work/nocuda"
  runlog nocuda_bare 60 "${py[@]}" nocuda
  local rb=$rc
  runlog nocuda_pf 60 "$pfprof" record -o "$work/nocuda/nocuda-%p.pfprof" -- "${py[@]}" nocuda
  local rp=$rc n
  n=$(ls "$work/nocuda" | wc -l)
  local so v=ok
  so=$(same_output nocuda_bare nocuda_pf)
  [ "$rb" = 5 ] && [ "$rp" = 5 ] && [ "$n" = 0 ] && grep -q 'no CUDA process was traced' "$work/nocuda_pf.log" \
    && [ "$so" = "same output" ] || v=FAIL
  [ "$dry" = 1 ] && v=DRY
  row nocuda "$exp" "exit bare $rb, pfprof $rp; $so; $n files; pfprof said: $(pfmsg nocuda_pf)" $v
}

sc_injector() {
  local exp="1 warning line; exit and output as with the other injector alone; 1 complete trace"
  in_budget injector "$exp" || return
  if [ ! -f "$floor" ] && [ "$dry" != 1 ]; then
    row injector "$exp" "not run: $floor is absent (set FLOOR_LIB)" SKIP
    return
  fi
  mkdir -p "$work/injector"
  runlog injector_bare 60 env CUDA_INJECTION64_PATH="$floor" "${py[@]}" tiny
  local rb=$rc
  runlog injector_pf 60 env CUDA_INJECTION64_PATH="$floor" "$pfprof" record -o "$work/injector/inj-%p.pfprof" -- \
    "${py[@]}" tiny
  local rp=$rc
  tracecheck injector 1 "complete no_drops gpu_kinds" "$work/injector"/*.pfprof
  local nwarn
  nwarn=$(grep -c 'CUDA_INJECTION64_PATH was set' "$work/injector_pf.log" 2>/dev/null)
  local so v=ok
  so=$(same_output injector_bare injector_pf)
  [ "$rp" = "$rb" ] && [ "$rb" = 0 ] && [ "$nwarn" = 1 ] && [ "$tc_rc" = 0 ] && [ "$so" = "same output" ] || v=FAIL
  [ "$dry" = 1 ] && v=DRY
  row injector "$exp" "exit bare $rb, pfprof $rp; $so; $nwarn warning line(s): $(grep -m1 'CUDA_INJECTION64_PATH was set' "$work/injector_pf.log" 2>/dev/null | cut -c1-120); $tc" $v
}

sc_fill() {
  local exp="exit 3 both, same output; a line says the disk filled; what was written reads"
  in_budget fill "$exp" || return
  local small=$work/small
  mkdir -p "$small" "$work/fill"
  if [ "$dry" = 1 ]; then
    echo "+ mount -t tmpfs -o size=2m pfprof-small $small"
  elif ! mount -t tmpfs -o size=2m pfprof-small "$small" 2>"$work/fill-mount.log"; then
    row fill "$exp" "not run: cannot mount a tmpfs: $(head -1 "$work/fill-mount.log")" SKIP
    return
  fi
  runlog fill_bare 120 "${py[@]}" fill 200000
  local rb=$rc
  runlog fill_pf 120 "$pfprof" record -o "$small/fill-%p.pfprof" -- "${py[@]}" fill 200000
  local rp=$rc
  local used
  used=$(df -k --output=used,size "$small" 2>/dev/null | tail -1 | awk '{print $1 " of " $2 " KiB used"}')
  ls -la "$small" >"$work/fill-files.txt" 2>&1
  cp -a "$small"/. "$work/fill/" 2>/dev/null
  [ "$dry" = 1 ] || umount "$small" 2>/dev/null
  tracecheck fill "" "" "$work/fill"/*.pfprof
  local said
  said=$(pfmsg fill_pf)
  local so v=ok
  so=$(same_output fill_bare fill_pf)
  [ "$rb" = 3 ] && [ "$rp" = 3 ] && [ "$so" = "same output" ] \
    && grep -q '^pfprof: .*\(full\|space\|cannot write\)' "$work/fill_pf.log" \
    && [ -n "$(ls "$work/fill")" ] && [ "$tc_rc" = 0 ] || v=FAIL
  [ "$dry" = 1 ] && v=DRY
  row fill "$exp" "exit bare $rb, pfprof $rp; $so; tmpfs $used; pfprof said: $said; $tc" $v
}

# Most telling first: a short budget skips the end of the list.
sc_sigint sigint --handle 7 "exit 7 both (caught KeyboardInterrupt), same output; 1 complete trace"
sc_sigint sigint_uncaught "" 130 "exit 130 both (uncaught KeyboardInterrupt), same output; 1 trace readable"
sc_torchrun INT
sc_torchrun TERM
sc_fill
sc_exec
sc_forkchild
sc_dataloader
sc_spawn
sc_injector
sc_nocuda

echo
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | sed 's/^ *//' | paste -sd,)
echo "== pfprof reliability on the GPU ($(date -u +%FT%TZ), $((SECONDS - t_start)) s, GPUs: ${gpus:-none})"
printf '%-16s | %-52s | %-s | %s\n' SCENARIO EXPECTED OBSERVED RESULT
cat "$table"
[ $failed -eq 0 ] && echo "reliability: NO CHECK FAILED" || echo "reliability: SOME CHECKS FAILED"

# Bring back: the table, and logs plus traces under 4 MB in one archive.
cp "$table" "$out/reliability.txt"
(cd "$work" && find . -type f \( -name '*.log' -o -name '*.txt' -o -name '*.json' -o -name '*.signal' \
  -o \( -name '*.pfprof*' -size -4M \) \) -print0 | tar --null -T - -cJf "$out/reliability.tar.xz" 2>/dev/null)
exit $failed
