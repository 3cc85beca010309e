#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/gpu/ddp-overhead-kinds.sh [ROUNDS]: where pfprof's cost goes in a
# host-bound DDP step (ResNet-50, batch 32, NCCL, 2 GPUs), by switching
# parts of the collector off one at a time. Run from the repository root
# on a machine with 2 GPUs, build folder carried (PFPROF_BUILD).
# Variants, interleaved, each round rotated by one:
#   bare        torchrun alone
#   default     pfprof record (default kinds + API callbacks + Python hook)
#   nohooks     default without the Python hook (--no-python-hooks)
#   kmms        PFPROF_KINDS=kernel,memcpy,memset,sync (no API callbacks)
#   kernel      PFPROF_KINDS=kernel
# VARIANTS="bare default" runs a subset.
# Prints each run's per-rank median step and a summary (median over the
# runs' rank medians, and the change over bare). Logs to $OUT/ddpk.
set -u
rounds=${1:-2}
. tests/gpu/env.sh
out=${OUT:-/tmp}/ddpk
work=/tmp/ddpk
mkdir -p "$out" "$work"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
tr=(torchrun --standalone --nproc_per_node 2 samples/ddp_train.py --model resnet50 --batch 32 --steps 20 --warmup 6
    --backend nccl)
variants=(${VARIANTS:-bare default nohooks kmms kernel})
n=${#variants[@]}
: >"$out/ms.txt"
for r in $(seq 1 "$rounds"); do
  for i in $(seq 0 $((n - 1))); do
    v=${variants[$(((i + r - 1) % n))]}
    log=$out/$v-r$r.log
    rm -f "$work"/*.pfprof
    case $v in
      bare) timeout 150 "${tr[@]}" >"$log" 2>&1 ;;
      default) timeout 150 "$pfprof" record --quiet --no-report -o "$work/t-%r.pfprof" -- "${tr[@]}" >"$log" 2>&1 ;;
      nohooks) timeout 150 "$pfprof" record --quiet --no-report --no-python-hooks -o "$work/t-%r.pfprof" -- "${tr[@]}" \
        >"$log" 2>&1 ;;
      kmms) PFPROF_KINDS=kernel,memcpy,memset,sync timeout 150 "$pfprof" record --quiet --no-report \
        -o "$work/t-%r.pfprof" -- "${tr[@]}" >"$log" 2>&1 ;;
      kernel) PFPROF_KINDS=kernel timeout 150 "$pfprof" record --quiet --no-report -o "$work/t-%r.pfprof" -- \
        "${tr[@]}" >"$log" 2>&1 ;;
    esac
    ms=$(grep -o 'median step [0-9.]*' "$log" | awk '{print $3}' | paste -sd' ')
    echo "$v $ms" >>"$out/ms.txt"
    echo "round $r $v: rank medians ${ms:-none} ms; traces: $(ls "$work" 2>/dev/null | paste -sd' ')"
  done
done
python3 - "$out/ms.txt" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    v, *ms = line.split()
    runs.setdefault(v, []).extend(float(x) for x in ms)
bare = statistics.median(runs["bare"]) if runs.get("bare") else None
for v, ms in runs.items():
    m = statistics.median(ms) if ms else float("nan")
    pct = f"{(m / bare - 1) * 100:+.1f}%" if bare and ms else "-"
    print(f"SUMMARY {v:<8} {m:8.2f} ms {pct:>7}  ({len(ms)} rank medians)")
PY
