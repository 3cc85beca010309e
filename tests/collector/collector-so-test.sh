#!/bin/sh
# SPDX-License-Identifier: MIT
# collector-so-test.sh LIBPFPROF-COLLECTOR.SO
#
# What a profiled program sees of the collector: it exports the two
# injection entry points and the finish and call-site functions of the
# Python hook, nothing
# else (no SQLite, no trace writer), and
# it depends on no GLib, GTK or shared SQLite, which could clash with the
# program's own.
set -u
lib=$1
fail=0

exports=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort | tr '\n' ' ')
if [ "$exports" != "InitializeInjection InitializeInjectionNvtx2 pfprof_collector_finish pfprof_collector_python_call pfprof_collector_python_site pfprof_collector_python_worker_event " ]; then
  echo "FAIL: exports are '$exports'"
  fail=1
fi

needed=$(readelf -d "$lib" | awk '/NEEDED/ {print $5}' | tr -d '[]' | tr '\n' ' ')
for bad in glib gobject gio gtk cairo sqlite; do
  case "$needed" in
    *$bad*) echo "FAIL: depends on $bad ($needed)"; fail=1 ;;
  esac
done
case "$needed" in
  *libcupti*) ;;
  *) echo "FAIL: does not link libcupti ($needed)"; fail=1 ;;
esac

# Unloading would unmap code CUPTI and NVTX still call into.
if ! readelf -d "$lib" | grep -q 'NODELETE'; then
  echo "FAIL: not linked with -z nodelete"
  fail=1
fi

[ $fail -eq 0 ] && echo "ok: exports [$exports], needs [$needed]"
exit $fail
