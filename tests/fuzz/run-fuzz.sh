#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fuzzes the trace reader and the analyzer for a bounded time, then the
# chunk codec, the JSON results' reader and merge, and the torch.profiler
# importer for a third of it each.
#   tests/fuzz/run-fuzz.sh [SECONDS]     (default 60: 60 + 20 + 20 + 20 s)
# Builds build-fuzz with clang, libFuzzer, ASan and UBSan; seeds the corpus
# with a small generated trace and the recorded samples; fails when the
# fuzzer finds a crash, a leak, a sanitizer report or a hang.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-60}
dir=build-fuzz

if ! command -v clang >/dev/null 2>&1; then
  echo "run-fuzz: clang not installed (scripts/install-deps.sh installs it)" >&2
  exit 2
fi
if [ ! -d "$dir" ]; then
  CC=clang meson setup "$dir" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
    -Dcollector=disabled -Dgui=disabled -Dbuildtype=debugoptimized >/dev/null
fi
ninja -C "$dir" >/dev/null

corpus="$dir/fuzz-corpus"
mkdir -p "$corpus" "$dir/fuzz-artifacts"
if [ -z "$(ls -A "$corpus")" ]; then
  for t in samples/traces/*.pfprof; do
    [ -f "$t" ] || continue
    # Large seeds slow every execution; keep the small ones.
    [ "$(stat -c %s "$t")" -le 2000000 ] && cp "$t" "$corpus/"
  done
fi
# Generated seeds, added to an older corpus too: format 2 (event chunks,
# what pfprof writes; one small trace whose chunks hold a few records and
# one with full 8192-record chunks) and the same as format 1 rows (export
# --format sqlite). The recorded samples above are format 1.
[ -f "$corpus/generated.pfprof" ] ||
  "$dir/cli/pfprof" generate --steps 6 --plant pageable -o "$corpus/generated.pfprof" --force
[ -f "$corpus/generated-v2-tiny.pfprof" ] ||
  "$dir/cli/pfprof" generate --steps 1 --plant none -o "$corpus/generated-v2-tiny.pfprof" --force
[ -f "$corpus/generated-v2-full-chunks.pfprof" ] ||
  "$dir/cli/pfprof" generate --steps 250 --plant all -o "$corpus/generated-v2-full-chunks.pfprof" --force
[ -f "$corpus/generated-v1-rows.pfprof" ] ||
  "$dir/cli/pfprof" export --format sqlite -o "$corpus/generated-v1-rows.pfprof" --force \
    "$corpus/generated.pfprof"
# UBSan reports only print by default; here each one is a crash.
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"

# fuzz WHAT HARNESS SECS MAX_LEN CORPUS LOG [FLAGS...]: runs HARNESS for
# SECS over CORPUS, its output in LOG; exits 1 with LOG's tail when it
# found a problem, else prints its last statistics.
fuzz() {
  local what=$1 harness=$2 s=$3 max_len=$4 corp=$5 log=$6
  shift 6
  echo "==> fuzzing $what for ${s}s ($(ls "$corp" | wc -l) seeds)"
  "$dir/tests/fuzz/$harness" "$@" -max_total_time="$s" -timeout=20 -rss_limit_mb=2048 -max_len="$max_len" \
    -print_final_stats=1 -artifact_prefix="$dir/fuzz-artifacts/" "$corp" 2>"$log" \
    || { tail -40 "$log"; echo "run-fuzz: $harness found a problem; see $dir/fuzz-artifacts" >&2; exit 1; }
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb|cov:" "$log" | tail -3
}

fuzz "the trace reader and analyzer" pfprof-fuzz-trace "$secs" 4000000 "$corpus" "$dir/fuzz.log"

# The chunk codec alone, seeded with the chunks of the format 2 seeds
# (byte 0: table, bytes 1-2: record count, then the blob), for a third of
# the time again.
chunks="$dir/fuzz-corpus-chunks"
mkdir -p "$chunks"
if [ -z "$(ls -A "$chunks")" ]; then
  python3 - "$chunks" "$corpus"/generated-v2-*.pfprof samples/traces/g_ddp_even_rank0.pfprof <<'PY'
import sqlite3, sys
order = ["kernels", "memcpys", "memsets", "syncs", "cuda_events", "api_calls", "nvtx", "memory", "overhead"]
out, k = sys.argv[1], 0
for path in sys.argv[2:]:
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        rows = db.execute("SELECT table_name, n, data FROM chunks WHERE n <= 4096").fetchall()
    except sqlite3.Error:
        continue
    for name, n, data in rows[:40]:
        if name in order:
            open(f"{out}/seed-{k}", "wb").write(bytes([order.index(name), n & 255, n >> 8]) + data)
            k += 1
PY
fi
csecs=$(( (secs + 2) / 3 ))
fuzz "the chunk codec" pfprof-fuzz-chunk "$csecs" 200000 "$chunks" "$dir/fuzz-chunk.log"

# The JSON reader and the merge of per-rank results (pfprof report
# rank-*.json), a third of the time too, seeded with real results: the
# DDP traces recorded on the H200s and generated ranks, written by
# pfprof report --format json, alone and as pairs (a NUL byte between two
# results makes the harness merge them with each other).
jcorpus="$dir/fuzz-corpus-json"
mkdir -p "$jcorpus"
if [ -z "$(ls -A "$jcorpus")" ]; then
  work="$dir/fuzz-json-work"
  mkdir -p "$work"
  for t in samples/traces/g_ddp_*.pfprof; do
    [ -f "$t" ] || continue
    "$dir/cli/pfprof" report -q --format json -o "$jcorpus/$(basename "$t" .pfprof).json" --force "$t"
  done
  "$dir/cli/pfprof" generate --rank 2 --host node-b --steps 30 --plant input-starved -o "$work/r2.pfprof" --force >/dev/null
  "$dir/cli/pfprof" generate --rank 3 --host node-b --steps 12 --plant pageable,nccl -o "$work/r3.pfprof" --force >/dev/null
  "$dir/cli/pfprof" generate --rank 5 --steps 1 --plant none -o "$work/r5.pfprof" --force >/dev/null
  for r in 2 3 5; do
    "$dir/cli/pfprof" report -q --format json -o "$jcorpus/generated-rank$r.json" --force "$work/r$r.pfprof"
  done
  # A merged result (its traces[] is empty: refused, but a good shape).
  "$dir/cli/pfprof" report -q --format json -o "$jcorpus/merged.json" --force \
    "$jcorpus"/generated-rank2.json "$jcorpus"/generated-rank3.json
  for pair in "g_ddp_slow_rank0 g_ddp_slow_rank1" "generated-rank2 generated-rank3" "g_ddp_even_rank0 generated-rank5"; do
    set -- $pair
    { cat "$jcorpus/$1.json"; printf '\0'; cat "$jcorpus/$2.json"; } >"$jcorpus/pair-$1-$2"
  done
fi
jsecs=$(( (secs + 2) / 3 ))
fuzz "the JSON reader and the merge of results" pfprof-fuzz-json "$jsecs" 20000 "$jcorpus" "$dir/fuzz-json.log" \
  -dict=tests/fuzz/pfprof-fuzz-json.dict

# The torch.profiler (Kineto) importer, a third of the time too, seeded
# with generated traces written as Kineto JSON in both schemas (byte 0:
# even = plain, odd = gzip the rest; tests/fuzz/pfprof-fuzz-kineto.c).
kcorpus="$dir/fuzz-corpus-kineto"
mkdir -p "$kcorpus"
if [ -z "$(ls -A "$kcorpus")" ]; then
  work="$dir/fuzz-kineto-work"
  mkdir -p "$work"
  "$dir/cli/pfprof" generate --steps 3 --plant all -o "$work/k.pfprof" --force >/dev/null
  "$dir/cli/pfprof" generate --steps 2 --plant pageable -o "$work/k2.pfprof" --force >/dev/null
  python3 - "$kcorpus" "$work" <<'PY'
import os, sys
sys.path.insert(0, "tests/interop")
import kineto_schema
out, work = sys.argv[1], sys.argv[2]
for i, (src, kw) in enumerate([("k", {}), ("k", {"schema": "old"}), ("k2", {"with_stack": True, "memory": True}),
                               ("k2", {"absolute": True, "steps": "none",
                                       "distributed": {"rank": 1, "world_size": 2}}),
                               ("k2", {"with_stack": True, "sites": True})]):
    tmp = os.path.join(work, f"seed-{i}.json")
    kineto_schema.convert(os.path.join(work, src + ".pfprof"), tmp, **kw)
    data = open(tmp, "rb").read()
    open(os.path.join(out, f"seed-{i}"), "wb").write(bytes([2 * i]) + data)
    open(os.path.join(out, f"seed-{i}-gz"), "wb").write(bytes([2 * i + 1]) + data[:3000])
PY
fi
ksecs=$(( (secs + 2) / 3 ))
fuzz "the torch.profiler importer" pfprof-fuzz-kineto "$ksecs" 200000 "$kcorpus" "$dir/fuzz-kineto.log" \
  -dict=tests/fuzz/pfprof-fuzz-kineto.dict
echo "run-fuzz: no crash in ${secs}s + ${csecs}s + ${jsecs}s + ${ksecs}s"
