#!/bin/sh
# SPDX-License-Identifier: MIT
# `pfprof render` from the command line: formats, options, and what it
# must never do (overwrite without --force, follow a symlink, leave a
# half-written file, crash on bad input). Usage: test-render-cli.sh PFPROF
set -u
pfprof=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pfprof-render-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; fail=1; }
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }

# Runs pfprof, keeping exit code in $rc and stderr in $tmp/err.
run() { "$pfprof" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
one_line_error() { [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^pfprof: ' "$tmp/err"; }
png_width() { od -An -tu1 -j16 -N4 "$1" | awk '{print $1*16777216 + $2*65536 + $3*256 + $4}'; }

trace=$tmp/t.pfprof
"$pfprof" generate --steps 30 --plant pageable -o "$trace" >/dev/null || { echo "Bail out! generate failed"; exit 1; }

run render "$trace" -o "$tmp/a.png"
check "png written" '[ "$rc" -eq 0 ] && [ "$(head -c 4 "$tmp/a.png" | od -An -c | tr -d " ")" = "211PNG" ]'
check "png default width 1600" '[ "$(png_width "$tmp/a.png")" -eq 1600 ]'
run render "$trace" -o "$tmp/a.svg" --width 900
check "svg written" '[ "$rc" -eq 0 ] && grep -q "<svg" "$tmp/a.svg" && grep -q "width=\"900" "$tmp/a.svg"'
run render "$trace" -o "$tmp/a.PDF"
check "pdf written" '[ "$rc" -eq 0 ] && [ "$(head -c 5 "$tmp/a.PDF")" = "%PDF-" ]'
run render "$trace" -o "$tmp/step.png" --step 3 --width 800
check "--step 3" '[ "$rc" -eq 0 ] && [ "$(png_width "$tmp/step.png")" -eq 800 ]'
run render "$trace" -o "$tmp/range.png" --from 200ms --to 0.3s
check "--from/--to" '[ "$rc" -eq 0 ] && [ -s "$tmp/range.png" ]'
# A DataLoader trace: each worker's batch ends in a collate_fn slice
# (the colour of "collate_fn" in the legend, rgb 0.122 0.420 0.306), drawn
# on the lanes as well as in the legend.
"$pfprof" generate --steps 12 --plant input-starved -o "$tmp/dl.pfprof" >/dev/null
run render "$tmp/dl.pfprof" -o "$tmp/dl.svg" --step 4
check "collate_fn slices" '[ "$rc" -eq 0 ] && [ "$(grep -c "fill:rgb(12.2%,42%,30.6%)" "$tmp/dl.svg")" -ge 2 ]'
run render "$trace" -o "$tmp/rows.png" --rows gpu
run render "$trace" -o "$tmp/all.png"
check "--rows gpu draws fewer rows" '[ "$rc" -eq 0 ] && [ "$(od -An -tu1 -j20 -N4 "$tmp/rows.png" | awk "{print \$4+256*\$3}")" -lt "$(od -An -tu1 -j20 -N4 "$tmp/all.png" | awk "{print \$4+256*\$3}")" ]'

# The steady state by default; --whole-run draws what --from 0 does.
run render "$trace" -o "$tmp/whole.png" --whole-run
check "--whole-run" '[ "$rc" -eq 0 ] && ! cmp -s "$tmp/all.png" "$tmp/whole.png"'
run render "$trace" -o "$tmp/from0.png" --from 0
check "--whole-run is the run from its start" '[ "$rc" -eq 0 ] && cmp -s "$tmp/whole.png" "$tmp/from0.png"'

# Refusals, each one line and exit 2 (3 for an existing output), nothing
# written.
cp "$tmp/a.png" "$tmp/keep.png"
run render "$trace" -o "$tmp/a.png" --width 700
check "existing output refused without --force (exit 3)" '[ "$rc" -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "--force" "$tmp/err" && cmp -s "$tmp/a.png" "$tmp/keep.png"'
run render "$trace" -o "$tmp/a.png" --width 700 --force
check "--force replaces it" '[ "$rc" -eq 0 ] && [ "$(png_width "$tmp/a.png")" -eq 700 ]'
echo precious >"$tmp/target"
ln -s "$tmp/target" "$tmp/link.png"
run render "$trace" -o "$tmp/link.png" --force
check "symlink never followed" 'one_line_error && [ "$(cat "$tmp/target")" = precious ] && [ -L "$tmp/link.png" ]'
run render "$tmp/missing.pfprof" -o "$tmp/m.png"
check "missing trace" 'one_line_error && [ ! -e "$tmp/m.png" ]'
head -c 3000 "$trace" >"$tmp/cut.pfprof"
run render "$tmp/cut.pfprof" -o "$tmp/c.png"
check "corrupt trace" 'one_line_error && [ ! -e "$tmp/c.png" ]'
run render "$trace" -o "$tmp/x.gif"
check "unknown format" 'one_line_error'
run render "$trace"
check "no output" 'one_line_error'
run render -o "$tmp/y.png"
check "no trace" 'one_line_error'
run render "$trace" -o "$tmp/s.png" --step 100000
check "step out of range" 'one_line_error && [ ! -e "$tmp/s.png" ]'
run render "$trace" -o "$tmp/s.png" --from 2s --to 1s
check "--to before --from" 'one_line_error'
run render "$trace" -o "$tmp/s.png" --from soon
check "bad time" 'one_line_error'
run render "$trace" -o "$tmp/s.png" --rows "no-such-row"
check "--rows matching nothing" 'one_line_error'
run render "$trace" -o "$tmp/s.png" --width 5
check "width out of range" 'one_line_error'
mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
if [ "$(id -u)" -ne 0 ]; then
  run render "$trace" -o "$tmp/ro/x.png"
  check "unwritable folder" 'one_line_error && [ -z "$(ls -A "$tmp/ro")" ]'
else
  ok "unwritable folder # SKIP running as root"
fi
check "no temporary files left" '[ -z "$(ls -A "$tmp" | grep "^\.")" ]'
run view "$tmp/missing.pfprof"
check "view: missing trace" 'one_line_error'
run view --help
check "view --help" '[ "$rc" -eq 0 ] && grep -q "pfprof view" "$tmp/out"'

echo "1..$n"
exit $fail
