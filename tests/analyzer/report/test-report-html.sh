#!/bin/sh
# SPDX-License-Identifier: MIT
# `pfprof report --format html`: one self-contained page, checked in a
# real browser. Headless Chromium (Debian's `chromium`) loads it with the
# network off, dumps the DOM and takes a screenshot; the test checks the
# summary, the findings with their fixes, the step chart and the SVG
# timeline are there and visible. Skips (77) only if chromium is missing.
# Usage: test-report-html.sh PFPROF PNG-COLOUR-COUNT
set -u
pfprof=$1
count=$2
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
  echo "1..0 # SKIP chromium is not installed"
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pfprof-html.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }

"$pfprof" generate --steps 40 --plant pageable -o "$tmp/t.pfprof" >/dev/null || { echo "Bail out! generate"; exit 1; }
"$pfprof" report --format html -o "$tmp/r.html" "$tmp/t.pfprof"
check "report written" '[ $? -eq 0 ] && [ -s "$tmp/r.html" ]'
# Self-contained: no script, no stylesheet or image to fetch.
check "no scripts" '! grep -qi "<script" "$tmp/r.html"'
check "nothing fetched" '! grep -Eqi "(src|href)=\"(https?:|//)|@import|url\((https?:|//)|<link" "$tmp/r.html"'

run_browser() {
  # Network off (--proxy to nowhere), no GPU, no first-run dialogs.
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions \
    --proxy-server=127.0.0.1:9 --user-data-dir="$tmp/profile" "$@" "file://$tmp/r.html" 2>"$tmp/browser.log"
}
run_browser --dump-dom >"$tmp/dom.html"
check "browser loaded the page" '[ -s "$tmp/dom.html" ] && grep -q "pfprof report" "$tmp/dom.html"'
check "summary table" 'grep -q "id=\"summary\"" "$tmp/dom.html" && grep -q "Copy/compute overlap" "$tmp/dom.html"'
check "finding with its fix" 'grep -q "data-rule=\"pageable-transfer\"" "$tmp/dom.html" && grep -q "pin_memory" "$tmp/dom.html"'
check "step breakdown chart" 'grep -q "id=\"steps-svg\"" "$tmp/dom.html" && [ "$(grep -o "<rect" "$tmp/dom.html" | wc -l)" -gt 40 ]'
check "SVG timeline" 'grep -q "id=\"timeline-svg\"" "$tmp/dom.html"'

run_browser --screenshot="$tmp/shot.png" --window-size=1300,4000 --hide-scrollbars >/dev/null
check "screenshot taken" '[ -s "$tmp/shot.png" ]'
# What must be visible: the compute colour (chart and timeline kernels),
# the pageable copy colour and the warning colour of the finding marker.
check "not blank" '[ "$("$count" "$tmp/shot.png" distinct)" -gt 50 ]'
check "kernels / compute visible" '[ "$("$count" "$tmp/shot.png" 3b82f6 12)" -gt 500 ]'
check "pageable copies visible" '[ "$("$count" "$tmp/shot.png" f97316 12)" -gt 200 ]'
check "findings visible (warning colour: panel border, timeline markers)" '[ "$("$count" "$tmp/shot.png" f59e0b 12)" -gt 50 ]'
echo "1..$n"
exit $fail
