#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the Debian packages, unpacks them into a clean folder root (no
# build tree on the path), and runs the installed tool there: --version,
# report and render on a bundled sample trace, and `record`'s lookup of the
# collector relative to the installed binary.
set -euo pipefail
cd "$(dirname "$0")/.."
debs=$(scripts/make-deb.sh build-deb)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
for deb in $debs; do
  dpkg-deb -x "$deb" "$root"
done
pfprof="$root/usr/bin/pfprof"
fail=0
check() { if "$@"; then echo "ok: ${*:2}"; else echo "FAIL: $*"; fail=1; fi; }

"$pfprof" --version | grep -q "^pfprof " && echo "ok: installed pfprof --version" || { echo "FAIL: --version"; fail=1; }
sample=$(ls samples/traces/*.pfprof 2>/dev/null | head -1 || true)
if [ -z "$sample" ]; then
  sample="$root/synthetic.pfprof"
  "$pfprof" generate --plant pageable -o "$sample" >/dev/null
fi
cp "$sample" "$root/sample.pfprof"
(cd "$root" && "$pfprof" report --format json -o report.json sample.pfprof) \
  && python3 -c "import json,sys; d=json.load(open('$root/report.json')); sys.exit(0 if d['format']=='pfprof-report/1' else 1)" \
  && echo "ok: installed pfprof report on $(basename "$sample")" || { echo "FAIL: report"; fail=1; }
(cd "$root" && "$pfprof" render sample.pfprof -o timeline.png) && [ -s "$root/timeline.png" ] \
  && echo "ok: installed pfprof render" || { echo "FAIL: render"; fail=1; }
[ -f "$root/usr/lib/pfprof/libpfprof-collector.so" ] || [ ! -f /usr/local/cuda/include/cupti.h ] \
  && echo "ok: collector in the private folder (or not built)" || { echo "FAIL: collector not in /usr/lib/pfprof"; fail=1; }
if [ -f "$root/usr/lib/pfprof/libpfprof-collector.so" ]; then
  # No CUDA here: record must find the collector and say nothing was traced,
  # not that the collector is missing.
  out=$(cd "$root" && "$pfprof" record -o "$root/none.pfprof" -- true 2>&1 || true)
  if echo "$out" | grep -q "cannot find libpfprof-collector"; then
    echo "FAIL: installed pfprof record does not find its collector: $out"; fail=1
  else
    echo "ok: installed pfprof record finds its collector"
  fi
fi
for f in pfprof.1.gz pfprof-report.1.gz; do
  [ -f "$root/usr/share/man/man1/$f" ] && echo "ok: man page $f" || { echo "FAIL: no $f"; fail=1; }
done
[ -f "$root/usr/share/bash-completion/completions/pfprof" ] && echo "ok: bash completion" || { echo "FAIL: completion"; fail=1; }
bash -c "source '$root/usr/share/bash-completion/completions/pfprof' && PATH='$root/usr/bin':\$PATH && COMP_WORDS=(pfprof rep) COMP_CWORD=1 && _pfprof && [ \"\${COMPREPLY[*]}\" = report ]" \
  && echo "ok: completion of 'pfprof rep' is 'report'" || { echo "FAIL: completion"; fail=1; }
# The mime entry: a file manager must see a trace as a pfprof trace, by its
# name and, renamed, by the application id in its SQLite header.
if command -v update-mime-database >/dev/null && command -v gio >/dev/null; then
  mime=$(mktemp -d)
  mkdir -p "$mime/mime/packages"
  cp "$root/usr/share/mime/packages/pfprof.xml" "$mime/mime/packages/"
  update-mime-database "$mime/mime" >/dev/null 2>&1
  cp "$root/sample.pfprof" "$mime/renamed"
  for f in "$root/sample.pfprof" "$mime/renamed"; do
    type=$(XDG_DATA_HOME="$mime" XDG_DATA_DIRS="$mime:/usr/share" gio info -a standard::content-type "$f" 2>/dev/null | sed -n 's/.*content-type: //p')
    [ "$type" = application/x-pfprof-trace ] && echo "ok: mime type of $(basename "$f") is $type" \
      || { echo "FAIL: mime type of $(basename "$f") is '$type'"; fail=1; }
  done
  rm -rf "$mime"
fi
# The GUI tests' pfprof-view-test stays in the build tree, and the app
# installed has none of its options.
if [ -z "$(find "$root" -name 'pfprof-view-test*')" ] \
   && ! strings -a "$root/usr/bin/pfprof-view" | grep -qE 'select-finding|error-screenshot|then-open'; then
  echo "ok: no test mode installed"
else
  echo "FAIL: the GUI tests' test mode is installed"; fail=1
fi
grep -q '^MimeType=application/x-pfprof-trace;' "$root/usr/share/applications/pfprof-view.desktop" \
  && echo "ok: the desktop entry opens pfprof traces" || { echo "FAIL: desktop entry MimeType"; fail=1; }
exit $fail
