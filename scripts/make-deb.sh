#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds Debian packages from the meson install:
#   pfprof       the CLI, the collector (private folder), man pages,
#                bash completion, mime type; CUPTI recommended
#   pfprof-view  the GTK 4 timeline app, its desktop entry and icon
#
#   scripts/make-deb.sh [OUTDIR]      (default: build-deb/)
# Runtime dependencies are computed from the ELF files' NEEDED entries and
# the packages that own those libraries here (dpkg -S).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-build-deb}")
build=build-deb-tree
version=$(sed -n "s/^  version: '\(.*\)',/\1/p" meson.build)
arch=$(dpkg --print-architecture)

[ -d "$build" ] || meson setup "$build" --prefix=/usr --buildtype=release >/dev/null
ninja -C "$build" >/dev/null
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
DESTDIR="$stage/all" meson install -C "$build" --no-rebuild >/dev/null

# Split the staged tree into the two packages.
mkdir -p "$stage/pfprof" "$stage/pfprof-view"
(cd "$stage/all" && find . -type f -o -type l) | while read -r f; do
  case $f in
    ./usr/bin/pfprof-view|./usr/share/applications/*|./usr/share/icons/*|*/man1/pfprof-view.1*) pkg=pfprof-view ;;
    *) pkg=pfprof ;;
  esac
  mkdir -p "$stage/$pkg/$(dirname "$f")"
  cp -a "$stage/all/$f" "$stage/$pkg/$f"
done

# Debian policy: compressed man pages.
find "$stage"/pfprof*/usr/share/man -name '*.1' -exec gzip -9n {} \; 2>/dev/null || true

depends_of() {
  local root=$1 lib path pkg ver
  find "$root" -type f \( -perm -u+x -o -name '*.so*' \) -exec sh -c \
      'readelf -d "$1" 2>/dev/null | sed -n "s/.*Shared library: \[\(.*\)\]/\1/p"' _ {} \; | sort -u |
  while read -r lib; do
    case $lib in libcupti*) continue ;; esac
    path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64|64bit/ {print $NF; exit}')
    [ -n "$path" ] || continue
    pkg=$(dpkg -S "$(realpath "$path")" 2>/dev/null | head -1 | cut -d: -f1 || true)
    [ -n "$pkg" ] || pkg=$(dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1 || true)
    [ -n "$pkg" ] || continue
    ver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null | sed 's/-[^-]*$//')
    echo "$pkg (>= $ver)"
  done | sort -u | paste -sd, - | sed 's/,/, /g'
}

control() {
  local pkg=$1 depends=$2 extra=$3 desc=$4
  mkdir -p "$stage/$pkg/DEBIAN"
  cat >"$stage/$pkg/DEBIAN/control" <<CTL
Package: $pkg
Version: $version
Architecture: $arch
Maintainer: pfprof developers <pfprof@localhost>
Section: devel
Priority: optional
Depends: $depends
$extra
Description: $desc
CTL
  sed -i '/^$/d' "$stage/$pkg/DEBIAN/control"
}

control pfprof "$(depends_of "$stage/pfprof")" \
  "Recommends: python3
Suggests: pfprof-view" \
  "finds why a GPU waits on the input pipeline of PyTorch training
 pfprof records a training run through CUPTI with no code change, reports
 copy/compute overlap, per-step breakdowns and input-pipeline findings with
 their fixes, and draws timelines. Recording needs CUDA's CUPTI
 (libcupti.so.13, from the CUDA toolkit); report and render do not."
control pfprof-view "$(depends_of "$stage/pfprof-view"), pfprof (= $version)" "" \
  "timeline viewer for pfprof traces (GTK 4)
 Shows GPU streams and host threads of pfprof traces with the findings
 marked, and lists the findings with their fixes."

mkdir -p "$out"
for pkg in pfprof pfprof-view; do
  dpkg-deb --root-owner-group --build "$stage/$pkg" "$out/${pkg}_${version}_${arch}.deb" >/dev/null
  echo "$out/${pkg}_${version}_${arch}.deb"
done
