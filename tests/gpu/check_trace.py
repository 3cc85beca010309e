#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_trace.py TRACE [CHECK...] -- checks one pfprof trace, prints one
JSON line of metrics and checks, exits 1 if a check failed.

Reads the trace with Python's sqlite3 only (no pfprof code), so it checks
the file format independently of our reader: format 2's event chunks are
decoded by tests/pfprof_trace_rows.py (sqlite3 and plain Python). CHECK
names are in CHECKS.
"""
import json
import os
import sys

# tests/pfprof_trace_rows.py, from this checkout.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import pfprof_trace_rows  # noqa: E402

MEMORY_PAGEABLE, MEMORY_PINNED = 1, 2
COPY_HTOD = 1
SYNC_EVENT, SYNC_STREAM_WAIT, SYNC_STREAM, SYNC_CONTEXT = 1, 2, 3, 4
BIG = 1 << 20


def open_trace(path):
    # Row tables of format 1 or 2. A killed writer leaves PATH-wal beside
    # the file; the module reads a private copy then, so this check never
    # changes the evidence.
    return pfprof_trace_rows.connect(path)


def metrics(db):
    q = lambda sql, *a: db.execute(sql, a).fetchone()[0]
    m = {}
    meta = dict(db.execute("SELECT key, value FROM meta"))
    m["complete"] = meta.get("complete")
    m["dropped"] = int(meta.get("dropped_records", -1))
    m["invalid"] = int(meta.get("records_invalid", -1))
    for t in ["kernels", "memcpys", "memsets", "syncs", "cuda_events", "api_calls", "nvtx", "memory",
              "overhead", "devices", "contexts", "streams", "threads"]:
        m[t] = q(f"SELECT count(*) FROM {t}")
    s = "(SELECT id FROM strings WHERE value = ?)"
    # API names are CUPTI's, with a version suffix: "cudaMemcpyAsync_v3020".
    api_ids = "(SELECT id FROM strings WHERE value = :n OR value LIKE :n || '\\_%' ESCAPE '\\')"
    # Steady state: after the first DataLoader batch (the model's weights
    # are copied from pageable memory once at start-up, by design).
    first = db.execute(f"SELECT min(start_ns) FROM nvtx WHERE name_id = {s}", ("DataLoader.next",)).fetchone()[0]
    steady = f"start_ns >= {first or 0}"
    m["device_name"] = db.execute(
        "SELECT s.value FROM devices d JOIN strings s ON s.id = d.name_id LIMIT 1").fetchone()
    m["device_name"] = m["device_name"][0] if m["device_name"] else None
    big = f"copy_kind = {COPY_HTOD} AND bytes >= {BIG} AND {steady}"
    m["big_htod"] = q(f"SELECT count(*) FROM memcpys WHERE {big}")
    m["big_htod_pageable"] = q(f"SELECT count(*) FROM memcpys WHERE {big} AND src_kind = {MEMORY_PAGEABLE}")
    m["big_htod_pinned"] = q(f"SELECT count(*) FROM memcpys WHERE {big} AND src_kind = {MEMORY_PINNED}")
    # The stream that ran most kernels is the compute stream.
    row = db.execute("SELECT stream_id, count(*) c FROM kernels GROUP BY stream_id ORDER BY c DESC LIMIT 1"
                     ).fetchone()
    m["compute_stream"] = row[0] if row else None
    m["big_htod_on_compute"] = q(f"SELECT count(*) FROM memcpys WHERE {big} AND stream_id = ?",
                                 m["compute_stream"])
    m["copy_streams"] = [r[0] for r in db.execute(f"SELECT DISTINCT stream_id FROM memcpys WHERE {big}")]
    for t, name in [(SYNC_EVENT, "sync_event"), (SYNC_STREAM_WAIT, "sync_stream_wait"),
                    (SYNC_STREAM, "sync_stream"), (SYNC_CONTEXT, "sync_context")]:
        m[name] = q("SELECT count(*) FROM syncs WHERE type = ?", t)
    for api in ["cudaEventSynchronize", "cudaEventQuery", "cudaStreamSynchronize", "cudaMalloc", "cudaFree",
                "cudaMemcpyAsync", "cudaLaunchKernel"]:
        m[api] = db.execute(f"SELECT count(*) FROM api_calls WHERE name_id IN {api_ids}", {"n": api}).fetchone()[0]
    # After warm-up (cuDNN autotuning synchronizes too): from the 10th batch.
    tenth = db.execute(f"SELECT start_ns FROM nvtx WHERE name_id = {s} ORDER BY start_ns LIMIT 1 OFFSET 9",
                       ("DataLoader.next",)).fetchone()
    tenth = tenth[0] if tenth else 0
    m["steady_steps"] = q(f"SELECT count(*) FROM nvtx WHERE name_id = {s} AND start_ns >= ?", "DataLoader.next",
                          tenth)
    m["steady_stream_syncs"] = q(f"SELECT count(*) FROM syncs WHERE type = {SYNC_STREAM} AND start_ns >= ?", tenth)
    m["mem_alloc"] = q("SELECT count(*) FROM memory WHERE operation = 1")
    m["mem_release"] = q("SELECT count(*) FROM memory WHERE operation = 2")
    m["dl_next"] = q(f"SELECT count(*) FROM nvtx WHERE domain_id = {s} AND name_id = {s}",
                     "pfprof", "DataLoader.next")
    m["dl_next_ms"] = (q(f"SELECT coalesce(sum(dur_ns), 0) FROM nvtx WHERE name_id = {s}",
                         "DataLoader.next") / 1e6)
    m["span_ms"] = (q("SELECT coalesce(max(start_ns + dur_ns) - min(start_ns), 0) FROM kernels") / 1e6)
    m["last_api_ns"] = q("SELECT coalesce(max(start_ns + dur_ns), 0) FROM api_calls")
    m["api_tids"] = q("SELECT count(DISTINCT tid) FROM api_calls")
    m["threads_named"] = q("SELECT count(*) FROM threads t JOIN strings s ON s.id = t.name_id WHERE s.value != '?'")
    m["nvtx_names"] = sorted({r[0] for r in db.execute(
        "SELECT s.value FROM nvtx n JOIN strings s ON s.id = n.name_id")})[:20]
    m["nvtx_max_depth"] = q("SELECT coalesce(max(depth), -1) FROM nvtx")
    m["clock_start_offset_ms"] = (int(meta.get("clock_start_cupti_ns", 0))
                                  - int(meta.get("clock_start_realtime_ns", 0))) / 1e6
    m["command_line"] = meta.get("command_line")
    # CUPTI gives each API call its own correlation id, and the kernels a
    # call launches that id: records that share one with an earlier
    # record of the same thread (API) or with another kernel (0 is "none").
    m["api_ids_shared"] = q("SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) n FROM api_calls "
                            "GROUP BY tid, correlation_id)")
    m["kernel_ids_shared"] = q("SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) n FROM kernels "
                               "WHERE correlation_id != 0 GROUP BY correlation_id)")
    return m


CHECKS = {
    "complete": lambda m: m["complete"] == "1",
    "incomplete": lambda m: m["complete"] == "0",
    "no_drops": lambda m: m["dropped"] == 0,
    "gpu_kinds": lambda m: all(m[t] > 0 for t in ["kernels", "api_calls", "devices", "contexts", "threads"]),
    "kinds": lambda m: all(m[t] > 0 for t in ["kernels", "memcpys", "api_calls", "devices", "contexts",
                                                "threads"]),
    "h200": lambda m: m["device_name"] is not None and "H200" in m["device_name"],
    "dl_nvtx": lambda m: m["dl_next"] >= 20,
    "pageable": lambda m: m["big_htod"] > 0 and m["big_htod_pageable"] == m["big_htod"],
    "pinned": lambda m: m["big_htod"] > 0 and m["big_htod_pinned"] == m["big_htod"],
    "copy_on_compute": lambda m: m["big_htod"] > 0 and m["big_htod_on_compute"] >= 0.9 * m["big_htod"],
    "copy_on_side": lambda m: m["big_htod"] > 0 and m["big_htod_on_compute"] == 0 and m["sync_stream_wait"] > 0,
    # Releases: MEMORY2 records, or, since the default kinds leave MEMORY2
    # out by default, the cudaFree calls behind them.
    "event_syncs": lambda m: m["cudaEventSynchronize"] >= 10 and max(m["mem_release"], m["cudaFree"]) >= 10,
    "no_event_syncs": lambda m: m["cudaEventSynchronize"] == 0,
    "stream_syncs": lambda m: m["steady_stream_syncs"] >= 0.9 * m["steady_steps"] > 0,
    "few_stream_syncs": lambda m: m["steady_stream_syncs"] <= 0.2 * m["steady_steps"],
    "named_threads": lambda m: m["threads_named"] >= 1,
    "clock_aligned": lambda m: abs(m["clock_start_offset_ms"]) < 1000,
    "distinct_ids": lambda m: m["api_calls"] > 0 and m["kernels"] > 0 and m["api_ids_shared"] == 0
    and m["kernel_ids_shared"] == 0,
}


def main():
    path, names = sys.argv[1], sys.argv[2:]
    m = metrics(open_trace(path))
    results = {n: bool(CHECKS[n](m)) for n in names}
    print(json.dumps({"trace": os.path.basename(path), "size": os.path.getsize(path), "metrics": m,
                      "checks": results}))
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
