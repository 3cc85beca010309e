#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/gpu/sites.sh: the Python call sites on the GPU, and what they cost.
#
# Run from the repository root with the build folder carried (env.sh).
#  1. samples/pageable_copies.py and samples/item_sync.py under
#     `pfprof record`: the report's pageable-transfer finding must name
#     pageable_copies.py at the line of `x.to("cuda", ...)`, and its
#     sync-in-loop finding item_sync.py at the line of `loss.item()`
#     (the lines are found in the scripts, not written here); the text
#     report must show them under "Where in the Python code".
#  2. The hook's cost, interleaved: hook_overhead.py (200 wrapped calls a
#     step, half .to(), half .item()) under `pfprof record` with hooks on
#     and with --no-python-hooks, ROUNDS times each, alternating; prints
#     each run's median step and the overhead of the median of medians;
#     then twice hook_overhead.py --alternate (steps with and without the
#     wrappers in one process), and bench/hook-cost.py: the hook's cost
#     per call on this CPU.
#  3. The launch patterns (tests/gpu/sitespkg/pageable_loop.py, whose
#     pageable copy is the line marked PAGEABLE COPY): run as
#     `python3 -m sitespkg.pageable_loop` from tests/gpu, as a script
#     through `torchrun --standalone --nproc_per_node=1`, and as a script
#     that calls os.chdir("/") before its loop (started from tests/gpu by
#     a relative path); each report, made from the repository root, must
#     name that file (the real path) at that line, with its source text;
#     and samples/custom_batch.py (its batches from DataLoader workers, of
#     a type without pin_memory()): the pageable finding's fix must name
#     DetectionBatch's own to() at its copy line.
# PHASES picks the parts (default "samples overhead launch"; the steps
# above are samples, overhead and launch). Traces, reports and logs go to
# $OUT (default /tmp/pfprof-gpu-sites). Exits 1 if a check failed.
set -u
root=$PWD
out=${OUT:-/tmp/pfprof-gpu-sites}
rounds=${ROUNDS:-5}
mkdir -p "$out"
. "$root/tests/gpu/env.sh"
"$pfprof" --version || { echo "pfprof does not run here"; exit 1; }
export PYTHONUNBUFFERED=1
phases=${PHASES:-samples overhead launch}
failed=0
has() { case " $phases " in *" $1 "*) return 0 ;; esac; return 1; }

# check NAME SCRIPT RULE PATTERN: the first site of RULE's finding in
# NAME's JSON report is SCRIPT at the first line matching PATTERN.
check() {
  local name=$1 script=$2 rule=$3 pattern=$4 want
  want=$(grep -n -F -- "$pattern" "$root/samples/$script" | head -1 | cut -d: -f1)
  if python3 - "$out/$name.json" "$script" "$rule" "$want" <<'PY'
import json, os, sys
path, script, rule, want = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
doc = json.load(open(path))
f = next((f for f in doc["findings"] if f["rule"] == rule), None)
sites = f["sites"] if f else []
print(f"{rule}: " + "; ".join(f"{os.path.basename(s['file'])}:{s['line']} {s['api']} "
                               f"count={s['count']} calls={s['calls']} per_step={s['per_step_ns']} "
                               f"source={s['source']!r}" for s in sites))
ok = bool(sites) and os.path.basename(sites[0]["file"]) == script and sites[0]["line"] == want
print(("ok" if ok else "FAIL") + f": want {script}:{want}")
sys.exit(0 if ok else 1)
PY
  then echo "ok   $name"; else echo "FAIL $name"; failed=1; fi
  grep -q "Where in the Python code" "$out/$name.txt" || { echo "FAIL $name: text has no sites"; failed=1; }
}

run_sample() {
  local name=$1; shift
  (cd "$root/samples" && "$pfprof" record --force --no-report -o "$out/$name.pfprof" -- "$@") \
    >"$out/$name.log" 2>&1 || { echo "FAIL $name: record rc $?"; failed=1; return; }
  (cd "$root/samples" && "$pfprof" report --format json "$out/$name.pfprof") >"$out/$name.json"
  (cd "$root/samples" && "$pfprof" report --width 200 "$out/$name.pfprof") >"$out/$name.txt"
}

if has samples; then
run_sample pageable python3 pageable_copies.py --steps 40 --warmup 10
check pageable pageable_copies.py pageable-transfer 'x.to("cuda", non_blocking=True)'
run_sample item python3 item_sync.py --steps 40 --warmup 10
check item item_sync.py sync-in-loop 'logged = loss.item()'
fi

# launch NAME DIR ARGS...: ARGS recorded from DIR (traces $out/NAME-*.pfprof),
# reported from the root; the pageable finding's first site must be
# sitespkg/pageable_loop.py at its PAGEABLE COPY line, with that text.
launch() {
  local name=$1 dir=$2 traces
  shift 2
  (cd "$dir" && timeout 90 "$pfprof" record --force --no-report -o "$out/$name-%p.pfprof" -- "$@") \
    >"$out/$name.log" 2>&1 || { echo "FAIL $name: record rc $?"; tail -5 "$out/$name.log"; failed=1; return; }
  traces=$(ls "$out/$name"-*.pfprof 2>/dev/null)
  [ -n "$traces" ] || { echo "FAIL $name: no trace"; failed=1; return; }
  # shellcheck disable=SC2086
  "$pfprof" report --format json $traces >"$out/$name.json" 2>"$out/$name.err"
  if python3 - "$out/$name.json" "$root/tests/gpu/sitespkg/pageable_loop.py" <<'PY'
import json, os, sys
path, script = sys.argv[1], sys.argv[2]
lines = open(script).read().splitlines()
want = next(i for i, l in enumerate(lines, 1) if l.rstrip().endswith("# PAGEABLE COPY"))
doc = json.load(open(path))
f = next((f for f in doc["findings"] if f["rule"] == "pageable-transfer"), None)
sites = f["sites"] if f else []
print("pageable-transfer: " + ("; ".join(f"{s['file']}:{s['line']} {s['function']} {s['api']} count={s['count']} "
                                       f"source={s['source']!r}" for s in sites) or "no finding or no site"))
ok = bool(sites) and os.path.realpath(sites[0]["file"]) == os.path.realpath(script) \
    and sites[0]["line"] == want and sites[0]["source"] == lines[want - 1].strip()
print(("ok" if ok else "FAIL") + f": want {script}:{want}")
sys.exit(0 if ok else 1)
PY
  then echo "ok   $name"; else echo "FAIL $name"; failed=1; fi
}

if has launch; then
  command -v torchrun >/dev/null 2>&1 && torchrun=(torchrun) || torchrun=(python3 -m torch.distributed.run)
  launch module "$root/tests/gpu" python3 -m sitespkg.pageable_loop --steps 40
  launch torchrun "$root/tests/gpu" "${torchrun[@]}" --standalone --nproc_per_node=1 \
    sitespkg/pageable_loop.py --steps 40
  launch chdir "$root/tests/gpu" python3 sitespkg/pageable_loop.py --steps 40 --chdir /
  # A custom batch type, from DataLoader workers: the fix names the type.
  (cd "$root/samples" && timeout 90 "$pfprof" record --force --no-report -o "$out/custom.pfprof" -- \
     python3 custom_batch.py --steps 20 --warmup 5) >"$out/custom.log" 2>&1 || echo "FAIL custom: record rc $?"
  (cd "$root/samples" && "$pfprof" report --format json "$out/custom.pfprof") >"$out/custom.json" 2>&1
  want=$(grep -n -F 'img.to(device, non_blocking=True)' "$root/samples/custom_batch.py" | head -1 | cut -d: -f1)
  if python3 - "$out/custom.json" "$want" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
f = next((f for f in doc["findings"] if f["rule"] == "pageable-transfer"), None)
fix = f["fix"] if f else ""
print("custom_batch pageable-transfer sites: " + (", ".join(f"{s['file'].split('/')[-1]}:{s['line']} {s['function']}"
                                                        for s in f["sites"]) if f else "no finding"))
print("fix: " + fix[:200].replace("\n", " "))
sys.exit(0 if fix.startswith(f"The copies at custom_batch.py:{sys.argv[2]} are made by `DetectionBatch`'s own to()")
         else 1)
PY
  then echo "ok   custom"; else echo "FAIL custom"; failed=1; fi
fi

has overhead || { [ $failed -eq 0 ] && echo "ok: sites.sh" || echo "FAIL: sites.sh"; exit $failed; }
# The overhead, interleaved: on, off, on, off, ...
: >"$out/overhead.txt"
for i in $(seq "$rounds"); do
  for mode in on off; do
    flag=""
    [ $mode = off ] && flag=--no-python-hooks
    ms=$("$pfprof" record --quiet --no-report --force $flag -o "$out/overhead-$mode.pfprof" -- \
         python3 "$root/tests/gpu/hook_overhead.py" 2>&1 | grep -o 'median step [0-9.]*' | awk '{print $3}')
    echo "$mode $ms" | tee -a "$out/overhead.txt"
  done
done
python3 - "$out/overhead.txt" <<'PY'
import statistics, sys
runs = {"on": [], "off": []}
for line in open(sys.argv[1]):
    mode, _, ms = line.partition(" ")
    if ms.strip():
        runs[mode].append(float(ms))
on, off = statistics.median(runs["on"]), statistics.median(runs["off"])
# Runs of one process differ by more than the hook costs (GPU clocks,
# where the scheduler puts the process): each round's on/off pair is
# compared too, and the median of those differences printed.
pairs = [100 * (a - b) / b for a, b in zip(runs["on"], runs["off"])]
print(f"hook_overhead.py, 200 wrapped calls a step: hooks on {on:.3f} ms, off {off:.3f} ms "
      f"(medians of {len(runs['on'])} and {len(runs['off'])} interleaved runs): "
      f"{100 * (on - off) / off:+.2f}%; per round " + ", ".join(f"{p:+.1f}%" for p in pairs)
      + f"; median of the rounds {statistics.median(pairs):+.2f}%")
PY
# In one process, steps alternating with and without the wrappers: the
# hook's cost without what differs between processes.
for i in 1 2; do
  "$pfprof" record --quiet --no-report --force -o "$out/overhead-alt.pfprof" -- \
    python3 "$root/tests/gpu/hook_overhead.py" --alternate 2>&1 | grep 'alternating' | tee -a "$out/overhead.txt"
done
# The hook's cost per call on this machine's CPU and Python, against a
# fake torch (no GPU): what the loop above pays per wrapped call.
python3 "$root/bench/hook-cost.py" "$root/cli/pfprof_sitecustomize.py" | tee -a "$out/overhead.txt"
[ $failed -eq 0 ] && echo "ok: sites.sh" || echo "FAIL: sites.sh"
exit $failed
