#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/gpu/try.sh: `pfprof try` on the GPU, on every sample whose finding
# has a fix the hook applies, and on two training programs of libraries
# pfprof's team did not write (tests/gpu/thirdparty/). For each: the
# measured step with and without the fix (pfprof try's medians), pfprof's
# prediction for it (the predicted_step_ns of the finding the fix
# addresses, from the first traced run's report), and the program's own
# fix run once, bare (its own step timer's median), beside them.
#
#   sample / program          pfprof try            own fix, bare
#   pageable_copies.py        auto (pin-memory...)  --fix (pin_memory=True)
#   slow_dataloader.py        auto (workers=N...)   --fix (12 workers)
#   serialized_copies.py      auto (prefetch)       --fix (side-stream prefetcher)
#   thirdparty/ta_speech.py   auto (workers=N...)   --workers 14
#   thirdparty/tv_detection.py  --fix prefetch      none (the library's syncs
#                                                   need a code change)
#   side_stream_pageable.py   auto (pin-memory...)  --fix (pinned batches)
#   custom_batch.py           auto (pin-memory...)  --fix (a pin_memory() method);
#                             the hook must report the batch type unpinnable
#   slow_dataloader.py        --fix ideal-input     --fix (12 workers): the
#                             step with free input, which the own input fix
#                             should not beat
# "auto" is `pfprof try` without --fix: a first traced run picks the fixes
# from its findings (and gives the prediction). The samples without an
# automatic fix (late_prefetch, small_transfers, pinned_alloc_in_loop,
# cpu_per_step, host_bound, item_sync, record_stream_pressure) need a code
# change and are not run. ROUNDS (default 2) rounds each, the program's
# last STEPS (20) steps measured. Everything ends within BUDGET_S (400)
# seconds: a program starts only with 50 s left, its try is cut at TRY_S
# (90) or what is left less 10 s, its own fix at 40 s or what is left.
# OWN_ROUNDS (default 1) bare runs of the own fix, one after another; the
# table has the median of their medians, as pfprof try has of its rounds.
#
# Run from the repository root with the build carried (env.sh,
# PFPROF_BUILD), in that order. Prints one table last (TSV in
# $OUT/try.tsv, copied after each program to TSV_COPY when set); the JSON
# results, logs and the bare runs' output go to $OUT (default
# /tmp/pfprof-gpu-try). Exits 1 when a `pfprof try` failed, was
# abandoned, or custom_batch's type was not reported. DRY=1: print the
# commands, run nothing. ONLY="NAME ...": only those programs.
set -u
root=$PWD
out=${OUT:-/tmp/pfprof-gpu-try}
rounds=${ROUNDS:-2}
steps=${STEPS:-20}
budget=${BUDGET_S:-400}
try_s=${TRY_S:-90}
dry=${DRY:-0}
mkdir -p "$out"
if [ "$dry" = 1 ]; then
  pfprof=${PFPROF:-$root/build/cli/pfprof}
else
  . "$root/tests/gpu/env.sh"
  "$pfprof" --version || { echo "pfprof does not run here"; exit 1; }
fi
export PYTHONUNBUFFERED=1
failed=0
start=$SECONDS
: >"$out/try.tsv"

# one NAME FIX OWN -- ARGS...: pfprof try (FIX "auto": without --fix) on
# python3 ARGS, then python3 ARGS OWN once, bare (OWN "-": none).
left() { echo $((budget - (SECONDS - start))); }
one() {
  local name=$1 fix=$2 own=$3 rc fixarg=() cut
  shift 4
  # ONLY="tv_detection custom_batch": just those programs.
  [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $name "* ]] || return 0
  if [ "$(left)" -lt 50 ]; then
    echo "== $name: not run ($((SECONDS - start)) s spent of $budget)"
    printf '%s\tnot run (budget)\n' "$name" >>"$out/try.tsv"
    return
  fi
  cut=$(($(left) - 10))
  [ "$cut" -le "$try_s" ] || cut=$try_s
  [ "$fix" = auto ] || fixarg=(--fix "$fix")
  echo "== $name: pfprof try ${fixarg[*]} --steps $steps --rounds $rounds --format json -- python3 $*"
  if [ "$dry" = 1 ]; then
    [ "$own" = - ] || echo "== $name: bare: python3 $* $own"
    return
  fi
  timeout "$cut" "$pfprof" try "${fixarg[@]}" --steps "$steps" --rounds "$rounds" --format json \
    -- python3 "$@" >"$out/$name.txt" 2>"$out/$name.err"
  rc=$?
  [ "$rc" = 0 ] || { echo "$name: pfprof try exited $rc"; tail -3 "$out/$name.err"; failed=1; }
  : >"$out/$name-own.txt"
  [ "$own" = - ] || for _ in $(seq "${OWN_ROUNDS:-1}"); do
    cut=$(left)
    [ "$cut" -le 40 ] || cut=40
    [ "$cut" -gt 5 ] || break
    # shellcheck disable=SC2086
    timeout "$cut" python3 "$@" $own >>"$out/$name-own.txt" 2>&1
    tail -1 "$out/$name-own.txt"
  done
  python3 "$root/tests/gpu/try_row.py" "$name" "$out/$name.txt" "$out/$name-own.txt" >>"$out/try.tsv" \
    || failed=1
  tail -1 "$out/try.tsv"
  [ -z "${TSV_COPY:-}" ] || cp "$out/try.tsv" "$TSV_COPY"
}

s=(--steps "$steps" --warmup 5)
one pageable auto --fix -- samples/pageable_copies.py "${s[@]}"
one slow_loader auto --fix -- samples/slow_dataloader.py "${s[@]}"
one serialized auto --fix -- samples/serialized_copies.py "${s[@]}"
one ta_speech auto "--workers 14" -- tests/gpu/thirdparty/ta_speech.py "${s[@]}"
one tv_detection prefetch - -- tests/gpu/thirdparty/tv_detection.py "${s[@]}"
one side_stream_pageable auto --fix -- samples/side_stream_pageable.py "${s[@]}"
one custom_batch auto --fix -- samples/custom_batch.py "${s[@]}"
one slow_loader_ideal ideal-input --fix -- samples/slow_dataloader.py "${s[@]}"
[ "$dry" = 1 ] && exit 0
if grep '^custom_batch	' "$out/try.tsv" | grep -v -q 'not run' && \
   ! grep '^custom_batch	' "$out/try.tsv" | grep -q unpinnable; then
  echo "FAIL custom_batch: the hook did not report its batch type as unpinnable"
  failed=1
fi
grep -q 'abandoned' "$out/try.tsv" && failed=1
echo
echo "== pfprof try on the H200 ($rounds rounds, the last $steps steps of each run; $((SECONDS - start)) s)"
python3 "$root/tests/gpu/try_row.py" --table "$out/try.tsv"
exit $failed
