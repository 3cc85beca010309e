#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/gpu/slurm-local.sh [BUNDLE] -- COMMAND...: starts a one-node Slurm
# cluster from a carried folder, runs COMMAND (srun ...) in it, stops the
# cluster and exits with COMMAND's status.
#
#   bash tests/gpu/slurm-local.sh -- srun -n 2 bash -c 'echo rank=$SLURM_PROCID'
#
# BUNDLE (default .carry/slurm, or SLURM_BUNDLE) is what
# scripts/fetch-slurm-bundle.sh unpacks: Debian 12's Slurm 22.05 and the
# libraries it needs but glibc.  Nothing is installed: slurm.conf, state,
# spool, logs and pid files go to a temporary folder; the node is this
# machine (`hostname -s`, the CPU layout `slurmd -C` reads), reached on
# 127.0.0.1; AuthType=auth/none (no munge), ProctrackType=proctrack/linuxproc
# and TaskPlugin=task/none (no cgroup), no GPU gres.  Meant for root (the
# daemons run as the user who starts them, SlurmUser is that user).
#
# COMMAND runs with srun, sinfo, squeue, scontrol, sbatch... first on PATH
# and SLURM_CONF set.  Those commands get the bundle's libraries through the
# dynamic loader's --library-path, not LD_LIBRARY_PATH, so the jobs they
# start (which inherit srun's environment) see the machine's libraries only.
#
# Every wait is bounded: the cluster must be up within SLURM_LOCAL_START_S
# (60) seconds or the logs are printed and the exit status is 3; COMMAND is
# stopped (TERM, then KILL 10 s later) after SLURM_LOCAL_TIMEOUT_S (540)
# seconds, and exits 124 then.  SLURM_LOCAL_KEEP=1 keeps the temporary folder
# (its path is printed); SLURM_LOCAL_LOGS=DIR copies the daemons' logs there.
set -u

bundle=${SLURM_BUNDLE:-.carry/slurm}
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  bundle=$1
  shift
fi
if [ "${1:-}" != "--" ] || [ $# -lt 2 ]; then
  echo "usage: slurm-local.sh [BUNDLE] -- COMMAND..." >&2
  exit 2
fi
shift
start_s=${SLURM_LOCAL_START_S:-60}
cmd_s=${SLURM_LOCAL_TIMEOUT_S:-540}

say () { echo "slurm-local: $*" >&2; }

abs=$(cd "$bundle" 2>/dev/null && pwd) || { say "no bundle folder $bundle (scripts/fetch-slurm-bundle.sh makes it)"; exit 2; }
bundle=$abs
sbin=$bundle/usr/sbin
plugins=$bundle/usr/lib/x86_64-linux-gnu/slurm-wlm
libs=$plugins:$bundle/usr/lib/x86_64-linux-gnu:$bundle/lib/x86_64-linux-gnu
loader=/lib64/ld-linux-x86-64.so.2
for f in "$sbin/slurmctld-wlm" "$sbin/slurmd-wlm" "$sbin/slurmstepd-wlm" \
         "$bundle/usr/bin/srun" "$plugins/libslurmfull.so" "$loader"; do
  [ -e "$f" ] || { say "missing $f"; exit 2; }
done

tmp=$(mktemp -d /tmp/slurm-local.XXXXXX) || exit 2
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/log" "$tmp/bin"
ctld_pid="" slurmd_pid="" cmd_pid=""

# The daemons get the bundle's libraries through LD_LIBRARY_PATH, which
# slurmstepd inherits from slurmd; a task's environment is srun's, not
# slurmstepd's, so it does not reach the jobs.
daemon_env=(env "LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "SLURM_CONF=$tmp/slurm.conf")

# stop PID NAME: TERM, up to 10 s, then KILL.
stop () {
  local pid=$1 i
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for i in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.2
  done
  say "$2 (pid $pid) still running after 10 s: KILL"
  kill -KILL "$pid" 2>/dev/null
}

# slurmstepd processes that this run's slurmd started (detached from it):
# found by their executable, this bundle's slurmstepd, and their SLURM_CONF.
stepds () {
  local p
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/exe" 2>/dev/null)" = "$sbin/slurmstepd-wlm" ] || continue
    tr '\0' '\n' < "$p/environ" 2>/dev/null | grep -qx "SLURM_CONF=$tmp/slurm.conf" \
      && echo "${p#/proc/}"
  done
}

cleanup () {
  local p
  stop "$cmd_pid" "the command"
  stop "$slurmd_pid" slurmd
  for p in $(stepds); do stop "$p" slurmstepd; done
  stop "$ctld_pid" slurmctld
  if [ -n "${SLURM_LOCAL_LOGS:-}" ]; then
    mkdir -p "$SLURM_LOCAL_LOGS" && cp "$tmp"/log/* "$tmp/slurm.conf" "$SLURM_LOCAL_LOGS"/ 2>/dev/null
  fi
  if [ "${SLURM_LOCAL_KEEP:-0}" = 1 ]; then
    say "kept $tmp"
  else
    rm -rf "$tmp"
  fi
}
trap cleanup EXIT
# A signal stops the command first (through timeout, which passes it on
# to srun, which cancels the job step), then the cluster.
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

show_logs () {
  local f
  for f in "$tmp"/log/*; do
    echo "----- $f (last 40 lines)" >&2
    tail -n 40 "$f" >&2
  done
}

# port_free PORT: nothing accepts a connection on 127.0.0.1:PORT.
port_free () { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=${SLURM_LOCAL_PORT:-16817}
for _ in $(seq 1 20); do
  port_free "$port" && port_free $((port + 1)) && break
  port=$((port + 2))
done

node=$(hostname -s)
# The node line as slurmd reads the hardware (CPUs, sockets, cores,
# threads); RealMemory is left out: a VM whose memory grows would read
# more later, and less than configured would drain the node.
hw=$(timeout 20 "${daemon_env[@]}" "$sbin/slurmd-wlm" -C 2>/dev/null | head -n 1)
hw=$(printf '%s\n' "$hw" | tr ' ' '\n' | grep -E '^(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=' | paste -sd' ')
[ -n "$hw" ] || hw="CPUs=$(nproc)"

cat > "$tmp/slurm.conf" <<EOF
# written by tests/gpu/slurm-local.sh
ClusterName=local
SlurmctldHost=$node(127.0.0.1)
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/none
CredType=cred/none
PluginDir=$plugins
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
EnforcePartLimits=ALL
NodeName=$node NodeAddr=127.0.0.1 $hw State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
# Without cgroup.conf, slurmd 22.05 autodetects the cgroup version and
# fails to start where no cgroup file system is mounted on /sys/fs/cgroup
# (seen in a chroot); cgroup/v1 named here only loads, and with
# proctrack/linuxproc and task/none nothing uses it.
echo "CgroupPlugin=cgroup/v1" > "$tmp/cgroup.conf"

for f in "$bundle"/usr/bin/s*; do
  n=$(basename "$f")
  printf '#!/bin/sh\nexec %s --library-path %s --argv0 %s %s "$@"\n' \
    "$loader" "$libs" "$n" "$f" > "$tmp/bin/$n"
  chmod +x "$tmp/bin/$n"
done
export PATH="$tmp/bin:$PATH" SLURM_CONF="$tmp/slurm.conf"

"${daemon_env[@]}" "$sbin/slurmctld-wlm" -D -c > "$tmp/log/slurmctld.out" 2>&1 &
ctld_pid=$!
"${daemon_env[@]}" "$sbin/slurmd-wlm" -D -N "$node" -d "$sbin/slurmstepd-wlm" \
  > "$tmp/log/slurmd.out" 2>&1 &
slurmd_pid=$!

state=""
deadline=$((SECONDS + start_s))
while [ $SECONDS -lt $deadline ]; do
  kill -0 "$ctld_pid" 2>/dev/null || { say "slurmctld exited"; break; }
  kill -0 "$slurmd_pid" 2>/dev/null || { say "slurmd exited"; break; }
  state=$(timeout 5 sinfo -h -n "$node" -o %T 2>/dev/null)
  [ "$state" = idle ] && break
  sleep 0.5
done
if [ "$state" != idle ]; then
  say "node $node not idle within ${start_s}s (state: ${state:-none})"
  show_logs
  exit 3
fi
say "node $node idle ($hw), ports $port-$((port + 1)), $(sinfo -V)"

# In the background so that a signal to this script is acted on at once
# (bash runs a trap only when a foreground command ends); stdin passed on
# explicitly, since a background command would get /dev/null.
timeout -k 10 "$cmd_s" "$@" <&0 &
cmd_pid=$!
wait "$cmd_pid"
rc=$?
cmd_pid=""
[ $rc -eq 124 ] && say "command stopped after ${cmd_s}s"
exit $rc
