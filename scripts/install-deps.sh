#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what pfprof needs to build and test on Debian 12 or Ubuntu 22.04+.
# Run as root or with sudo. CUDA/CUPTI is not installed here: the collector
# is built when /usr/local/cuda has CUPTI, and skipped otherwise.
set -euo pipefail

packages=(
  gcc meson ninja-build pkg-config
  libglib2.0-dev libsqlite3-dev libcairo2-dev libgtk-4-dev
  libiberty-dev libjansson-dev zlib1g-dev
  sqlite3 python3 python3-pyflakes xvfb xauth
  libxtst6
  clang libclang-rt-14-dev
  valgrind
  shared-mime-info libglib2.0-bin
)
# valgrind: bench/work-budget.py counts the instructions of fixed commands
# (the `bench` suite's work-budget test).
# python3-pyflakes: lints the Python start-up hook (tests/cli).
# libxtst6: the GUI tests inject real pointer and key input into Xvfb
# through XTEST (tests/gui/test-timeline-widget.c loads it at run time).
# Only the HTML report's browser test uses it (it skips without); Ubuntu's
# chromium package is a snap wrapper, so a failure here is not fatal.
optional=(chromium)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "install-deps: run as root or install sudo" >&2
    exit 2
  fi
fi

missing=()
missing_optional=()
for p in "${optional[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing_optional+=("$p")
done
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ] && [ "${#missing_optional[@]}" -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ "${#missing_optional[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing_optional[*]} (optional)"
  $SUDO apt-get install -y -qq "${missing_optional[@]}" >/dev/null \
    || echo "install-deps: ${missing_optional[*]} not installed; the tests that need it will skip"
fi
