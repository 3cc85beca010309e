#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every rule still fires with the collector's default kinds (suite `collector`).

Usage: test-default-kinds.py PFPROF SOURCE-ROOT WORK-DIR

The samples under samples/traces/ were recorded with every activity kind
on (RUNTIME and DRIVER included: every host API call). The collector now
records less by default: the kinds in `default_kinds` of
collector/pfprof-collector-cupti.c, and instead of the RUNTIME/DRIVER kinds
only the API calls whose names start with an entry of
`api_callback_names` in collector/pfprof-collector-api.c (made from CUPTI
callbacks). Both lists are read from those sources, so this test follows
any change to them.

For each sample this makes a copy (format 1 rows; a format-2 trace is
converted with `pfprof export --format sqlite`), removes from it what the default would
not have recorded (rows of the tables of kinds not in the default, API rows
of calls outside the callback set: launches, getters, event creation, ...),
and checks that `pfprof report --format json` yields the same rule ids on
the copy as on the original, and that the removal did remove something (so
the check is not vacuous). Samples recorded without RUNTIME/DRIVER
(meta.activity_kinds without them) are already in the default's shape:
only the comparison with themselves runs. Also checks that every API name
analyzer/model/pfprof-trace-index.c sorts into a class is in the callback set.
Prints TAP.
"""
import glob
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys

PFPROF, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(WORK, exist_ok=True)
results = []


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


cupti_c = read("collector/pfprof-collector-cupti.c")
api_c = read("collector/pfprof-collector-api.c")
m = re.search(r'default_kinds\[\]\s*=\s*"([^"]*)"', cupti_c)
default = m.group(1).split(",") if m else []
m = re.search(r"api_callback_names\[\]\s*=\s*\{(.*?)\};", api_c, re.S)
prefixes = re.findall(r'"([^"]+)"', m.group(1)) if m else []
check("default_kinds read from the collector source", bool(default))
check("api_callback_names read from the collector source", len(prefixes) >= 10, prefixes)
# Every API name the analyzer sorts into a class must be recorded by the
# callbacks, or a rule would silently lose its calls.
index_c = read("analyzer/model/pfprof-trace-index.c")
classified = re.findall(r'\{\s*"(cu[A-Za-z0-9]+)",\s*PFPROF_API_CLASS_', index_c)
classified += re.findall(r'g_str_has_prefix \(name, "(cu[A-Za-z0-9]+)"\)', index_c)
check(f"the analyzer's {len(classified)} classified API names are read", len(classified) >= 10, classified)
for name in classified:
    check(f"{name} (classified by the analyzer) is recorded from callbacks",
          any(name.startswith(p) for p in prefixes), prefixes)

# Kind name -> the table its records go to (pfprof-collector-cupti.c's
# convert_one); RUNTIME/DRIVER -> api_calls rows of that domain.
TABLE = {"kernel": "kernels", "memcpy": "memcpys", "memset": "memsets", "sync": "syncs",
         "cuda_event": "cuda_events", "stream": "streams", "memory2": "memory", "overhead": "overhead"}
DOMAIN = {"runtime": 5, "driver": 4}  # PfprofApiDomain


def wanted(name):
    return any(name.startswith(p) for p in prefixes)


def filter_trace(path):
    """Removes in place what the default set would not record. Returns the
    number of rows removed."""
    db = sqlite3.connect(path)
    removed = 0
    for kind, table in TABLE.items():
        if kind not in default and not (kind == "sync" and "api-callbacks" in default):
            removed += db.execute(f"DELETE FROM {table}").rowcount
    names = dict(db.execute("SELECT id, value FROM strings"))
    for kind, domain in DOMAIN.items():
        if kind in default:
            continue
        keep = "api-callbacks" in default
        ids = [i for i, n in names.items() if keep and wanted(n)]
        q = f"DELETE FROM api_calls WHERE domain = ? AND name_id NOT IN ({','.join('?' * len(ids))})" if ids \
            else "DELETE FROM api_calls WHERE domain = ?"
        removed += db.execute(q, [domain] + ids).rowcount
    if "sync" not in default and "api-callbacks" in default:
        # The synchronizing calls' callbacks write the sync rows: one per
        # recorded call, joined by correlation id.
        removed += db.execute("DELETE FROM syncs WHERE correlation_id NOT IN "
                              "(SELECT correlation_id FROM api_calls)").rowcount
    db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('activity_kinds', ?)", (",".join(default),))
    db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('launch_records', '0')")
    db.commit()
    db.execute("VACUUM")
    db.close()
    return removed


def rules_of(path):
    p = subprocess.run([PFPROF, "report", "-q", "--format", "json", path], capture_output=True, text=True,
                       timeout=600)
    if p.returncode not in (0, 1):  # 1: findings at --fail-on's level
        return None, p.stderr.strip()
    try:
        d = json.loads(p.stdout)
    except ValueError as e:
        return None, f"bad JSON: {e}"
    return sorted({f["rule"] for f in d["findings"]}), ""


def read_meta(path):
    try:
        db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
        meta = dict(db.execute("SELECT key, value FROM meta"))
        db.close()
        return meta
    except sqlite3.Error:
        return {}


def row_copy(path, copy):
    """A format-1 (row tables) copy of the trace at PATH in COPY: the file
    itself for format 1; for format 2 (event chunks) what `pfprof export
    --format sqlite` writes. Returns an error message or ""."""
    meta = read_meta(path)
    if meta.get("format_version", "1").split(".")[0] == "1":
        shutil.copyfile(path, copy)
        return ""
    if os.path.exists(copy):
        os.unlink(copy)
    p = subprocess.run([PFPROF, "export", "--format", "sqlite", path, "-o", copy], capture_output=True,
                       text=True, timeout=600)
    return "" if p.returncode == 0 else f"export --format sqlite: {p.stderr.strip()}"


traces = sorted(glob.glob(os.path.join(ROOT, "samples", "traces", "*.pfprof")))
fired = set()
for path in traces:
    base = os.path.basename(path)
    meta = read_meta(path)
    before, err = rules_of(path)
    if before is None:
        check(f"{base}: report runs on the sample", False, err)
        continue
    fired.update(before)
    kinds = meta.get("activity_kinds")
    if kinds is not None and not ({"runtime", "driver"} & set(kinds.split(","))):
        check(f"{base}: recorded with {kinds}; rules {before}", True)
        continue
    copy = os.path.join(WORK, base)
    err = row_copy(path, copy)
    if err:
        check(f"{base}: a row-table copy to filter", False, err)
        continue
    removed = filter_trace(copy)
    check(f"{base}: the default set records less ({removed} rows removed)", removed > 0)
    after, err = rules_of(copy)
    if after is None:
        check(f"{base}: report runs on the filtered copy", False, err)
        continue
    check(f"{base}: same rules with the default kinds ({', '.join(before) or 'none'})", after == before,
          f"all kinds: {before}; default kinds: {after}")
    os.unlink(copy)

# The samples exercise the must-have rules, so the comparison above means
# something for each of them.
for rule in ("pageable-transfer", "serialized-copy", "record-stream-stall", "input-starved", "sync-in-loop"):
    if traces:
        check(f"{rule} fires on some sample", rule in fired, sorted(fired))

if not traces:
    print("1..0 # SKIP no recorded sample traces under samples/traces")
    sys.exit(0)
print(f"1..{len(results)}")
for i, (name, ok, detail) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} {name}")
    if detail and not ok:
        print(f"# {detail}")
sys.exit(0 if all(ok for _, ok, _ in results) else 1)
