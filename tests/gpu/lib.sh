# SPDX-License-Identifier: MIT
# tests/gpu/lib.sh: the shell helpers the GPU scripts share (ranks.sh,
# reliability.sh, launchers.sh source it after setting these variables):
#   work   folder for logs         table  the result table being built
#   dry    1: print, run nothing   budget seconds after t_start to start runs
#   checks tests/gpu/gpu_checks.py details (optional) file the checks' output
#                                         is appended to
# ROW_W and ROW_EXP_W set the table's first two column widths (16, 52);
# ONLY="a b" runs only those scenarios. Each helper documents what it sets.

# lib_start: a fresh $work (removed first) and $out, an empty $table and
# $details in $work, failed=0, t_start now. Needs work and out.
lib_start() {
  failed=0
  t_start=$SECONDS
  rm -rf "$work"
  mkdir -p "$work" "$out"
  table=$work/table.txt
  details=$work/details.txt
  : >"$table"
  : >"$details"
}

# row SCENARIO EXPECTED OBSERVED RESULT: a line of the table; FAIL sets
# failed=1.
row() {
  printf "%-${ROW_W:-16}s | %-${ROW_EXP_W:-52}s | %-s | %s\n" "$1" "$2" "$3" "$4" >>"$table"
  [ "$4" = FAIL ] && failed=1
  echo "== $1: $4: $3"
}

# in_budget SCENARIO EXPECTED: false (and a SKIP row) once the budget is
# spent; false, silently, for a scenario ONLY leaves out.
in_budget() {
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $1 "* ]]; then
    return 1
  fi
  if [ $((SECONDS - t_start)) -ge "$budget" ]; then
    row "$1" "$2" "not run: time budget of ${budget}s spent" SKIP
    return 1
  fi
  echo "-- $1 ($((SECONDS - t_start))s)"
  return 0
}

# runlog NAME TIMEOUT CMD...: stdout+stderr in $work/NAME.log; sets rc and
# secs.
runlog() {
  local name=$1 t=$2
  shift 2
  if [ "$dry" = 1 ]; then
    echo "+ $* >$name.log 2>&1"
    rc=0 secs=0
    return
  fi
  local t0=$SECONDS
  timeout -k 10 "$t" "$@" >"$work/$name.log" 2>&1
  rc=$?
  secs=$((SECONDS - t0))
}

# tracecheck NAME WANT CHECKS FILES...: gpu_checks.py traces (WANT may be
# empty: any number of traces); sets tc (its last line) and tc_rc.
tracecheck() {
  local name=$1 want=$2 c=$3
  shift 3
  if [ "$dry" = 1 ]; then
    echo "+ gpu_checks.py traces --want $want --checks '$c' $*"
    tc="(dry)" tc_rc=0
    return
  fi
  python3 "$checks" traces ${want:+--want "$want"} --checks "$c" --json "$work/$name.traces.json" "$@" \
    >"$work/$name.traces.txt" 2>&1
  tc_rc=$?
  tc=$(tail -1 "$work/$name.traces.txt")
  if [ -n "${details:-}" ]; then
    {
      echo "### $name traces:"
      cat "$work/$name.traces.txt"
      echo
    } >>"$details"
  fi
}

# analyze NAME SLOW CHECK-ARGS... -- TRACES...: pfprof report (JSON, text),
# export, and gpu_checks.py ranks with CHECK-ARGS (needs $pfprof and
# $details); sets an_rc and an_sum.
analyze() {
  local name=$1 slow=$2
  shift 2
  local args=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    args+=("$1")
    shift
  done
  shift
  if [ "$dry" = 1 ]; then
    echo "+ pfprof report --format json $* >$name.report.json; pfprof report $* >$name.report.txt"
    echo "+ pfprof export $* -o $name.export.json"
    echo "+ gpu_checks.py ranks --report $name.report.json --slow $slow ${args[*]} --export $name.export.json $*"
    an_rc=0 an_sum="(dry)"
    return
  fi
  "$pfprof" report --format json -q "$@" >"$work/$name.report.json" 2>"$work/$name.report.err"
  local rj=$?
  "$pfprof" report --color never --width 100 -q "$@" >"$work/$name.report.txt" 2>&1
  "$pfprof" export -o "$work/$name.export.json" "$@" >"$work/$name.export.log" 2>&1
  python3 "$checks" ranks --report "$work/$name.report.json" --slow "$slow" "${args[@]}" \
    --export "$work/$name.export.json" "$@" >"$work/$name.ranks.txt" 2>&1
  an_rc=$?
  [ "$rj" = 0 ] || [ "$rj" = 1 ] || an_rc=1
  local table_note="per-rank table in the text report"
  grep -q '^Per rank' "$work/$name.report.txt" || { an_rc=1 table_note="NO per-rank table in the text report"; }
  {
    echo "### $name: pfprof report exit $rj; checks:"
    cat "$work/$name.ranks.txt"
    echo
  } >>"$details"
  an_sum="report exit $rj; $table_note; $(tail -1 "$work/$name.ranks.txt"); $(grep -m1 'rank-imbalance' "$work/$name.ranks.txt" | sed 's/^ *//' | cut -c1-170)"
}
