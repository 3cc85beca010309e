#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Enforces DESIGN.md's dependency rules on the sources and on the built
# binaries, checks that DESIGN.md describes exactly the folders in the
# tree, that every source file carries its licence line, and that
# tests/analyzer/ mirrors analyzer/'s rooms.
# Usage: check-design.sh SOURCE_ROOT BUILD_ROOT
set -u
src=$1
build=$2
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# 1. Includes: what each folder may use.
check_includes() {
  local folder=$1 pattern=$2 why=$3
  local hits
  hits=$(grep -rnE "#[[:space:]]*include[[:space:]]*<($pattern)" "$src/$folder" --include='*.c' --include='*.h' 2>/dev/null)
  [ -z "$hits" ] || bad "$folder/ must not include $why:"$'\n'"$hits"
}
# The rooms, lowest first: each may use only the rooms before it.
layers="trace analyzer/read analyzer/base analyzer/model analyzer/loop analyzer/diagnose analyzer/render analyzer/report"
# trace/ is what the collector links into the profiled program: no GLib in
# the whole folder (reading a trace with GLib is analyzer/read/'s).
check_includes trace 'glib|gio|gtk|gdk|cairo' 'GLib, GTK or cairo'
check_includes collector 'glib|gio|gtk|gdk|cairo' 'GLib, GTK or cairo'
for d in analyzer/read analyzer/base analyzer/model analyzer/loop analyzer/diagnose; do
  check_includes "$d" 'gtk|gdk|cairo' 'GTK or cairo'
done
check_includes analyzer/report 'gtk|gdk' 'GTK'
check_includes analyzer/render 'gtk|gdk' 'GTK'
check_includes cli 'gtk|gdk' 'GTK'
# GTK is gui/'s, and tests/gui/'s, which drives gui/'s widgets and builds
# pfprof-view-test (the app with a scripted session) from them.
hits=$(cd "$src" && grep -rnE '#[[:space:]]*include[[:space:]]*<(gtk|gdk)/' . --include='*.c' --include='*.h' \
  --exclude-dir='.git' --exclude-dir='build*' 2>/dev/null | grep -vE '^\./(gui|tests/gui)/')
[ -z "$hits" ] || bad "only gui/ and tests/gui/ may include GTK:"$'\n'"$hits"

# 1b. Project headers: arrows only go down the layers
#     trace <- read <- base <- model <- loop <- diagnose <- render <- report <- {cli, gui}
#     (the analyzer's rooms under analyzer/); the collector uses trace/
#     only. Headers are included by bare name, so each is found by the
#     room it lives in.
# Ranks and rooms by table lookups and bash's own matching: a subshell or a
# sed per include line made this check take most of a minute on a busy
# 2-core machine.
declare -A rank
i=0
for l in $layers; do rank[$l]=$i; i=$((i + 1)); done
rank[cli]=99
rank[gui]=99
rank[collector]=0
declare -A home
while IFS= read -r h; do
  case $h in
    analyzer/*) r=${h#analyzer/}; r="analyzer/${r%%/*}" ;;
    *) r=${h%%/*} ;;
  esac
  home[${h##*/}]=$r
done < <(cd "$src" && git ls-files 2>/dev/null | grep -E '^(trace|analyzer|cli|gui|collector)/.*\.h$')
include_re='#[[:space:]]*include[[:space:]]*"([^"]*)"'
for folder in $layers cli gui collector; do
  mine=${rank[$folder]}
  while IFS=: read -r file line inc; do
    [ -n "$file" ] || continue
    [[ $inc =~ $include_re ]] || continue
    h=${BASH_REMATCH[1]}
    owner=${home[$h]:-}
    [ -n "$owner" ] && [ "$owner" != "$folder" ] || continue
    case $h in
      *-private.h) bad "$h is private to $owner/: $file:$line includes it"; continue ;;
    esac
    theirs=${rank[$owner]:--1}
    if [ "$folder" = collector ]; then
      [ "$owner" = trace ] || bad "collector/ may use trace/ only: $file:$line includes $owner/$h"
    elif [ "$theirs" -ge "$mine" ]; then
      bad "$folder/ may not use $owner/ (arrows go down): $file:$line includes $h"
    fi
  done < <(grep -rnE '#[[:space:]]*include[[:space:]]*"' "$src/$folder" --include='*.c' --include='*.h' 2>/dev/null)
done

# 2. Linkage of what was built.
needed() { readelf -d "$1" 2>/dev/null | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'; }
pfprof="$build/cli/pfprof"
if [ -x "$pfprof" ]; then
  needed "$pfprof" | grep -qE '^libgtk|^libgdk' && bad "cli/pfprof links GTK: pfprof report must run without a display"
  ldd "$pfprof" 2>/dev/null | grep -qE 'libgtk|libgdk' && bad "cli/pfprof pulls in GTK through a dependency"
  echo "ok: pfprof links: $(needed "$pfprof" | tr '\n' ' ')"
else
  bad "no $pfprof"
fi
view="$build/gui/pfprof-view"
if [ -x "$view" ]; then
  # The GUI tests' scripted session is tests/gui/pfprof-view-test's: the
  # shipped app carries none of it, neither its code nor its options.
  leaked=$( { nm "$view" 2>/dev/null | awk '{print $NF}'; strings -a "$view"; } \
    | grep -E '^(test_advance|on_watchdog|report_kv|opt_report|opt_bench)$|select-finding|select-evidence-event|error-screenshot|then-open|search-next' \
    | sort -u | tr '\n' ' ')
  [ -z "$leaked" ] && echo "ok: pfprof-view carries no test mode" \
    || bad "the shipped pfprof-view carries the test mode (tests/gui/pfprof-view-test.c): $leaked"
else
  echo "note: pfprof-view not built (no GTK 4): it is not checked"
fi
collector="$build/collector/libpfprof-collector.so"
if [ -f "$collector" ]; then
  needed "$collector" | grep -qE '^libglib|^libgio|^libgobject|^libgtk|^libcairo' \
    && bad "the collector links GLib/GTK/cairo"
  echo "ok: collector links: $(needed "$collector" | tr '\n' ' ')"
  # Nothing but tracing is injected: no test generator, no GLib symbol.
  syms=$( (nm "$collector" 2>/dev/null; nm -D "$collector" 2>/dev/null) | awk '{print $NF}')
  grep -q 'pfprof_trace_generator' <<<"$syms" && bad "the collector carries the test trace generator"
  grep -qE '^g_|^glib_' <<<"$syms" && bad "the collector carries GLib symbols"
else
  echo "note: collector not built (no CUPTI): its linkage is not checked"
fi

# 3. DESIGN.md has one "## folder/" section per top-level folder and per
#    room of analyzer/, and no section for a folder that does not exist.
design="$src/DESIGN.md"
[ -f "$design" ] || { bad "no DESIGN.md"; exit 1; }
documented=$(sed -n 's/^## \([a-z._/-]*[a-z._-]\)\/.*/\1/p' "$design" | sort -u)
# Folders git tracks (a clean checkout); outside git, what is on disk.
actual=$(cd "$src" && git ls-files 2>/dev/null | sed -n -e 's|^\(analyzer/[^/]*\)/.*|\1|p' -e 's|^\([^./][^/]*\)/.*|\1|p' | sort -u)
[ -n "$actual" ] || actual=$(cd "$src" && { find . -mindepth 1 -maxdepth 1 -type d ! -name '.*' ! -name 'build*' -printf '%f\n';
  find analyzer -mindepth 1 -maxdepth 1 -type d -printf 'analyzer/%f\n' 2>/dev/null; } | sort)
for d in $actual; do
  echo "$documented" | grep -qx "$d" || bad "folder $d/ is not described in DESIGN.md"
done
for d in $documented; do
  [ -d "$src/$d" ] || bad "DESIGN.md describes $d/, which does not exist"
done

# 4. Every source file carries the licence meson.build declares, in its
#    first three lines (scripts/add-spdx.sh adds it); the training scripts
#    under samples/ and tests/gpu/thirdparty/ in their last line, since
#    recorded traces quote their line numbers.
sources=$(cd "$src" && git ls-files -- '*.c' '*.h' '*.py' '*.sh' 'meson.build' '*/meson.build' 2>/dev/null)
[ -n "$sources" ] || sources=$(cd "$src" && find . \( -name '.*' -o -name 'build*' \) -prune -o -type f \
  \( -name '*.[ch]' -o -name '*.py' -o -name '*.sh' -o -name meson.build \) -printf '%P\n')
# One python3 for every file: a head and a grep per file took seconds.
unlicensed=$(cd "$src" && printf '%s\n' $sources | python3 -c '
import sys
tag = "SPDX-License-Identifier: MIT"
for f in sys.stdin.read().split():
    try:
        with open(f, errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        continue
    last = f.startswith(("samples/", "tests/gpu/thirdparty/")) and lines and tag in lines[-1]
    if not any(tag in l for l in lines[:3]) and not last:
        print(f)
')
[ -z "$unlicensed" ] || bad "no 'SPDX-License-Identifier: MIT' line (run scripts/add-spdx.sh):"$'\n'"$unlicensed"

# 5. tests/ mirrors the rooms: each room of analyzer/ has its folder of
#    tests under tests/analyzer/, each such folder is a room's and is
#    added by tests/analyzer/meson.build, and tests/analyzer/ itself holds
#    only the helpers its rooms' tests share.
files=$(cd "$src" && git ls-files -- analyzer tests/analyzer 2>/dev/null)
[ -n "$files" ] || files=$(cd "$src" && find analyzer tests/analyzer -type f 2>/dev/null)
rooms=$(sed -n 's|^analyzer/\([^/]*\)/.*|\1|p' <<<"$files" | sort -u)
mirrored=$(sed -n 's|^tests/analyzer/\([^/]*\)/.*|\1|p' <<<"$files" | sort -u)
for r in $rooms; do
  grep -qx "$r" <<<"$mirrored" || bad "analyzer/$r/ has no tests/analyzer/$r/"
done
for d in $mirrored; do
  grep -qx "$d" <<<"$rooms" || bad "tests/analyzer/$d/ mirrors no room of analyzer/"
  grep -q "^subdir('$d')" "$src/tests/analyzer/meson.build" \
    || bad "tests/analyzer/meson.build does not add tests/analyzer/$d/"
done
loose=$(grep -E '^tests/analyzer/test-[^/]*$' <<<"$files")
[ -z "$loose" ] || bad "a room's test belongs in its room's folder under tests/analyzer/:"$'\n'"$loose"

[ "$fail" -eq 0 ] && echo "design rules hold"
exit "$fail"
