#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Adds the project's licence line (meson.build declares MIT) to every
# tracked source file that lacks it: C sources and headers get a first
# line `/* SPDX-License-Identifier: MIT */`; Python, shell and meson files
# `# SPDX-License-Identifier: MIT`, after the shebang line when there is
# one. A file that already names a licence in its first three lines is
# left alone, so running it again changes nothing; run it after merging
# branches that add files. Files under samples/ and tests/gpu/thirdparty/
# get it as their last line instead: recorded traces quote their lines. tests/design/check-design.sh checks the result.
#
#   scripts/add-spdx.sh            # from anywhere in the checkout
#
# Prints each file it changed.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
tag='SPDX-License-Identifier: MIT'

# The training scripts' line numbers are quoted by the traces recorded
# from them (call sites, evidence): their line goes last, so no line moves.
at_end() { case $1 in samples/*|tests/gpu/thirdparty/*) return 0 ;; esac; return 1; }

git ls-files -z -- '*.c' '*.h' '*.py' '*.sh' 'meson.build' '*/meson.build' |
while IFS= read -r -d '' f; do
  [ -f "$f" ] && [ ! -L "$f" ] || continue
  head -n 3 -- "$f" | grep -q 'SPDX-License-Identifier:' && continue
  tail -n 1 -- "$f" | grep -q 'SPDX-License-Identifier:' && continue
  case $f in
    *.c|*.h) line="/* $tag */" ;;
    *) line="# $tag" ;;
  esac
  tmp=$(mktemp "$f.spdx.XXXXXX")
  if at_end "$f"; then
    { cat -- "$f"; printf '%s\n' "$line"; } > "$tmp"
  elif head -n 1 -- "$f" | grep -q '^#!'; then
    { head -n 1 -- "$f"; printf '%s\n' "$line"; tail -n +2 -- "$f"; } > "$tmp"
  else
    { printf '%s\n' "$line"; cat -- "$f"; } > "$tmp"
  fi
  chmod --reference="$f" "$tmp"
  mv -- "$tmp" "$f"
  echo "$f"
done
