#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs two pfprof binaries over every committed sample trace and diffs what
# they write: reports in every format, the diff of each sample pair, the
# Chrome/Perfetto export and an SVG render. A restructure must leave every
# byte the same; a change that alters output on purpose says so in NEWS.md.
#
#   scripts/compare-outputs.sh OLD_PFPROF NEW_PFPROF [OUTDIR]
#
# Exit 0 when everything is the same, 1 with the differing files listed.
set -uo pipefail
old=$1 new=$2
out=${3:-$(mktemp -d)}
root=$(cd "$(dirname "$0")/.." && pwd)
traces=("$root"/samples/traces/*.pfprof)

run_all() {
  local bin=$1 dir=$2
  mkdir -p "$dir"
  for t in "${traces[@]}"; do
    local n
    n=$(basename "$t" .pfprof)
    for f in text json markdown junit html; do
      "$bin" report -q --format "$f" "$t" >"$dir/$n.report.$f" 2>"$dir/$n.report.$f.err"
      echo "exit $?" >>"$dir/$n.report.$f.err"
    done
    "$bin" export "$t" >"$dir/$n.export.json" 2>"$dir/$n.export.err"
    "$bin" render -o "$dir/$n.svg" "$t" >/dev/null 2>"$dir/$n.render.err"
    local fix=${t%.pfprof}_fix.pfprof
    if [ -f "$fix" ]; then
      "$bin" diff "$t" "$fix" >"$dir/$n.diff.txt" 2>&1
      echo "exit $?" >>"$dir/$n.diff.txt"
    fi
  done
  # The multi-rank pair, as one run.
  "$bin" report -q "$root"/samples/traces/g_ddp_slow_rank*.pfprof >"$dir/g_ddp_slow.ranks.text" 2>&1
  "$bin" report -q --format json "$root"/samples/traces/g_ddp_slow_rank*.pfprof \
    >"$dir/g_ddp_slow.ranks.json" 2>&1
}

run_all "$old" "$out/old"
run_all "$new" "$out/new"
# The traces' paths are the same for both; render output names differ only
# by folder, which SVGs do not contain.
if diff -rq "$out/old" "$out/new" >"$out/differences.txt"; then
  echo "compare-outputs: $(ls "$out/new" | wc -l) files, all the same ($out)"
  exit 0
fi
echo "compare-outputs: differences ($out/differences.txt):"
cat "$out/differences.txt"
exit 1
