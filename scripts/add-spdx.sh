#!/usr/bin/env bash
# Adds the project's licence line (meson.build declares MIT) to every
# tracked source file that lacks it: C sources and headers get a first
# line `/* SPDX-License-Identifier: MIT */`; Python, shell and meson files
# `# SPDX-License-Identifier: MIT`, after the shebang line when there is
# one. A file that already names a licence in its first three lines is
# left alone, so running it again changes nothing; run it after merging
# branches that add files. tests/design/check-design.sh checks the result.
#
#   scripts/add-spdx.sh            # from anywhere in the checkout
#
# Prints each file it changed.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
tag='SPDX-License-Identifier: MIT'

git ls-files -z -- '*.c' '*.h' '*.py' '*.sh' 'meson.build' '*/meson.build' |
while IFS= read -r -d '' f; do
  [ -f "$f" ] && [ ! -L "$f" ] || continue
  head -n 3 -- "$f" | grep -q 'SPDX-License-Identifier:' && continue
  case $f in
    *.c|*.h) line="/* $tag */" ;;
    *) line="# $tag" ;;
  esac
  tmp=$(mktemp "$f.spdx.XXXXXX")
  if head -n 1 -- "$f" | grep -q '^#!'; then
    { head -n 1 -- "$f"; printf '%s\n' "$line"; tail -n +2 -- "$f"; } > "$tmp"
  else
    { printf '%s\n' "$line"; cat -- "$f"; } > "$tmp"
  fi
  chmod --reference="$f" "$tmp"
  mv -- "$tmp" "$f"
  echo "$f"
done
