#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/fetch-slurm-bundle.sh [DEST]: builds a Slurm that runs from a
# folder (default .carry/slurm), for tests/gpu/slurm-local.sh to start a
# one-node cluster on a machine where nothing may be installed (the
# borrowed GPU machine, Ubuntu 24.04).
#
# Runs on Debian 12 (bookworm): `apt-get download` fetches Debian's Slurm
# 22.05 packages and every shared library they need but glibc, and
# `dpkg-deb -x` unpacks them; nothing is installed, root is not needed.
# Docs, man pages, init scripts and static libraries are left out.  The
# last step runs ldd on every binary and plugin with only the bundle on
# LD_LIBRARY_PATH and fails if a library is missing or comes from the
# system other than glibc's and libstdc++ (for the Lua plugins, which the
# one-node cluster does not load).
#
# Why these libraries: the GPU machine may be a minimal image; Ubuntu
# 24.04 has all these sonames in its archive but not necessarily
# installed, so they are carried.  slurm-local.sh puts them on the
# library path of the Slurm daemons and commands only, never of the jobs.
set -euo pipefail

dest=${1:-.carry/slurm}

# munge is not carried: slurm-local.sh uses AuthType=auth/none, which
# Slurm 22.05 still has, so no key and no munged are needed.
packages=(
  slurmctld slurmd slurm-client slurm-wlm-basic-plugins
  libmunge2
  libhwloc15 libudev1 libnuma1
  liblz4-1 libzstd1 liblzma5 libbz2-1.0 zlib1g
  libjson-c5 libyaml-0-2 liblua5.1-0
  libdbus-1-3 libsystemd0 libcap2 libgcrypt20 libgpg-error0
  libpam0g libaudit1 libcap-ng0
  libreadline8 libtinfo6
)

if [ "$(. /etc/os-release && echo "$ID $VERSION_ID")" != "debian 12" ]; then
  echo "fetch-slurm-bundle: needs Debian 12 (its Slurm 22.05 packages)" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# _apt cannot write into a folder only root can read; 1777 lets it.
chmod 1777 "$work"
(cd "$work" && apt-get download "${packages[@]}" >/dev/null)

rm -rf "$dest"
mkdir -p "$dest"
for deb in "$work"/*.deb; do
  dpkg-deb -x "$deb" "$dest"
  dpkg-deb -W --showformat='${Package} ${Version}\n' "$deb" >> "$dest/PACKAGES"
done
sort -o "$dest/PACKAGES" "$dest/PACKAGES"

rm -rf "$dest"/usr/share "$dest"/etc "$dest"/lib/systemd "$dest"/usr/lib/systemd \
  "$dest"/usr/include "$dest"/lib/udev "$dest"/usr/lib/tmpfiles.d "$dest"/bin \
  "$dest"/sbin "$dest"/usr/libexec
# The PMIx plugins load a libpmix that is not carried; without them Slurm
# does not log an error for each at start (the one-node cluster uses
# MpiDefault=none).
rm -f "$dest"/usr/lib/x86_64-linux-gnu/slurm-wlm/mpi_pmix*.so
find "$dest" \( -name '*.a' -o -name '*.la' -o -name pkgconfig \) -prune \
  -exec rm -rf {} +

libs="$dest/usr/lib/x86_64-linux-gnu/slurm-wlm:$dest/usr/lib/x86_64-linux-gnu:$dest/lib/x86_64-linux-gnu"
bad=0
while IFS= read -r f; do
  out=$(LD_LIBRARY_PATH=$libs ldd "$f" 2>&1) || continue  # scripts, not ELF
  while read -r name _ path _; do
    case $name in
      linux-vdso.so.*|/lib64/ld-linux-x86-64.so.2|libc.so.6|libm.so.6|\
      libresolv.so.2|libpthread.so.0|libdl.so.2|librt.so.1|\
      libstdc++.so.6|libgcc_s.so.1) continue ;;
    esac
    case $path in
      "$dest"/*|"$PWD/$dest"/*) ;;
      *) echo "fetch-slurm-bundle: $f: $name -> $path" >&2; bad=1 ;;
    esac
  done < <(printf '%s\n' "$out" | grep '=>')
done < <(find "$dest" -type f \( -perm -u+x -o -name '*.so*' \))
if [ "$bad" -ne 0 ]; then
  echo "fetch-slurm-bundle: a library above is not in the bundle" >&2
  exit 1
fi
echo "fetch-slurm-bundle: $dest, $(du -sh "$dest" | cut -f1), $(wc -l < "$dest/PACKAGES") packages"
