#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/gpu/try-call.sh: one GPU call of at most 520 s: tests/gpu/sites.sh's
# launch checks (python -m, torchrun, os.chdir, a custom batch type; about
# 70 s), then tests/gpu/try.sh (`pfprof try` on the samples with an
# automatic fix and two third-party programs) in what is left of TOTAL_S
# (default 490 s), less 15 s to pack the results.
#
#   tar xJf .carry/gpu.tar.xz -C .carry
#   PFPROF_BUILD=.carry/gpu bash tests/gpu/try-call.sh
#
# Into $OUT (default /tmp/pfprof-try-call), five files: summary.txt (what
# both scripts printed), try.tsv (one row per program), try.tar.gz (each
# try's JSON, stderr, the bare runs' output, and the logs, notes and step
# files of every run) and sites-launch.tar.gz (the launch checks' traces,
# reports and logs). Exits 1 if either script failed.
set -u
root=$PWD
out=${OUT:-/tmp/pfprof-try-call}
work=${WORK:-/tmp/pfprof-try-call-work}
mkdir -p "$out"
rm -rf "$work"
mkdir -p "$work/try" "$work/sites-launch"
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR"
rc=0
{
  echo "== try-call $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
  echo "== sites.sh launch checks"
  OUT=$work/sites-launch PHASES=launch bash "$root/tests/gpu/sites.sh" || rc=1
  echo "== sites.sh launch checks done at $SECONDS s"
  echo
  OUT=$work/try TSV_COPY=$out/try.tsv BUDGET_S=$((${TOTAL_S:-490} - SECONDS - 15)) \
    bash "$root/tests/gpu/try.sh" || rc=1
  echo "== try-call done in $SECONDS s, rc $rc"
} 2>&1 | tee "$out/summary.txt"
# Every run's folder (pfprof try keeps it under TMPDIR): logs, notes, step
# files; the traces of the first traced runs only when small.
find "$TMPDIR" -name '*.pfprof' -size +4M -delete 2>/dev/null
tar czf "$out/try.tar.gz" -C "$work" try tmp 2>/dev/null
tar czf "$out/sites-launch.tar.gz" -C "$work" sites-launch 2>/dev/null
grep -q ', rc 0$' "$out/summary.txt" || exit 1
exit 0
