# SPDX-License-Identifier: MIT
"""Builds Nsight Systems SQLite exports for the import tests.

nsys cannot run on our machines (no GPU, and it is not redistributable),
so the tests write files in the schema its user guide documents ("SQLite
Schema Reference"): the column layout of schema 3.16 (Nsight Systems
2024.6) and of 3.28 (2026.4, which adds greenContextId, the
SYNCHRONIZATION eventSyncId/deprecatedSyncType columns and the
CUPTI_ACTIVITY_KIND_CUDA_EVENT table). The events come from a pfprof
trace (`pfprof generate --plant ...`), translated the way nsys records
the same CUDA activity: timestamps relative to the session start, global
ids (hwId << 56 | vmId << 48 | pid << 24 | tid), strings in StringIds,
NVTX domains as NvtxDomainCreate events, and nsys's own enumeration
numbering (memory kind 0 = pageable, 1 = pinned, ...; allocation 0,
deallocation 1), listed in its ENUM_* tables.
"""
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import pfprof_trace_rows  # noqa: E402  (tests/pfprof_trace_rows.py)

# CUPTI memory kind (pfprof numbering) -> nsys ENUM_CUDA_MEM_KIND id.
CUPTI_TO_NSYS_MEM = {1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 6, 0: 7}
NSYS_MEM_NAMES = {0: "PAGEABLE", 1: "PINNED", 2: "DEVICE", 3: "ARRAY", 4: "MANAGED",
                  5: "DEVICE_STATIC", 6: "MANAGED_STATIC", 7: "UNKNOWN"}
MEMCPY_NAMES = ["UNKNOWN", "HTOD", "DTOH", "HTOA", "ATOH", "ATOA", "ATOD", "DTOA", "DTOD",
                "HTOH", "PTOP", "UVM_HTOD", "UVM_DTOH", "UVM_DTOD"]
SYNC_NAMES = ["UNKNOWN", "EVENT_SYNCHRONIZE", "STREAM_WAIT_EVENT", "STREAM_SYNCHRONIZE",
              "CONTEXT_SYNCHRONIZE"]
NVTX_MARK, NVTX_PUSHPOP, NVTX_STARTEND, NVTX_DOMAIN_CREATE = 34, 59, 60, 75
HW_ID = 1  # a non-zero hardware id, so importers must mask it off


def schema(version):
    green = "greenContextId INTEGER," if version >= (3, 28) else ""
    sync_extra = ("deprecatedSyncType INTEGER, syncType INTEGER NOT NULL, eventId INTEGER NOT NULL,"
                  " eventSyncId INTEGER" if version >= (3, 28)
                  else "syncType INTEGER NOT NULL, eventId INTEGER NOT NULL")
    ddl = f"""
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT,
  busLocation TEXT, isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER,
  memoryBandwidth INTEGER, clockRate INTEGER, smCount INTEGER, pwGpuId INTEGER, uuid TEXT,
  luid INTEGER, chipName TEXT, cuDevice INTEGER, computeMajor INTEGER, computeMinor INTEGER);
CREATE TABLE TARGET_INFO_CUDA_CONTEXT_INFO (nullStreamId INTEGER NOT NULL, hwId INTEGER NOT NULL,
  vmId INTEGER NOT NULL, processId INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL);
CREATE TABLE TARGET_INFO_CUDA_STREAM (streamId INTEGER NOT NULL, hwId INTEGER NOT NULL,
  vmId INTEGER NOT NULL, processId INTEGER NOT NULL, contextId INTEGER NOT NULL,
  priority INTEGER NOT NULL, flag INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, {green} streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,
  shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER,
  registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL,
  gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,
  blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL,
  dynamicSharedMemory INTEGER NOT NULL, localMemoryPerThread INTEGER NOT NULL,
  localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER,
  graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, {green} streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL,
  deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER,
  srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER,
  graphNodeId INTEGER, virtualAddress INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, {green} streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL,
  graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,
  nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, {green} streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, {sync_extra});
CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (start INTEGER NOT NULL, globalPid INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, address INTEGER NOT NULL,
  pc INTEGER NOT NULL, bytes INTEGER NOT NULL, memKind INTEGER NOT NULL,
  memoryOperationType INTEGER NOT NULL, name TEXT, correlationId INTEGER, streamId INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER,
  int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER,
  floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_CUDA_DEV_MEM_EVENT_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_CUPTI_SYNC_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_NSYS_EVENT_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
"""
    if version >= (3, 28):
        ddl += f"""
CREATE TABLE CUPTI_ACTIVITY_KIND_CUDA_EVENT (timestamp INTEGER, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, {green} streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, eventId INTEGER NOT NULL, eventSyncId INTEGER);
"""
    return ddl


def convert(trace, out, version=(3, 28), enums="standard", extra_process=False):
    """Writes the events of pfprof trace @trace as an nsys export @out.

    enums: "standard" (nsys's numbering, listed in ENUM_* tables),
    "none" (no ENUM_* tables: readers must assume nsys's numbering), or
    "permuted" (memory kinds, copy kinds and sync types renumbered, the
    ENUM_* tables saying so: readers must use the tables).
    extra_process: adds a second, smaller process whose kernels must not
    be mixed in.
    """
    src = pfprof_trace_rows.connect(trace)
    db = sqlite3.connect(out)
    db.executescript(schema(version))
    meta = dict(src.execute("SELECT key, value FROM meta"))
    pid = int(meta.get("pid", "4242"))
    strings = dict(src.execute("SELECT id, value FROM strings"))
    t0 = min(r[0] for r in src.execute(
        "SELECT min(start_ns) FROM kernels UNION ALL SELECT min(start_ns) FROM api_calls "
        "UNION ALL SELECT min(start_ns) FROM nvtx UNION ALL SELECT min(ts_ns) FROM memory")
        if r[0] is not None) - 1000

    def rel(t):
        return t - t0

    gpid = (HW_ID << 56) | (pid << 24)

    def gtid(tid):
        return gpid | tid

    # Enumerations.
    mem_ids = dict(CUPTI_TO_NSYS_MEM)
    copy_ids = {i: i for i in range(len(MEMCPY_NAMES))}
    sync_ids = {i: i for i in range(len(SYNC_NAMES))}
    if enums == "permuted":
        mem_ids = {c: (n + 3) % 8 + 20 for c, n in CUPTI_TO_NSYS_MEM.items()}
        copy_ids = {i: 40 + (i * 5) % 14 for i in range(len(MEMCPY_NAMES))}
        sync_ids = {i: 60 + (4 - i) for i in range(len(SYNC_NAMES))}
    if enums != "none":
        for cupti, nsys_id in mem_ids.items():
            name = NSYS_MEM_NAMES[CUPTI_TO_NSYS_MEM[cupti]]
            db.execute("INSERT INTO ENUM_CUDA_MEM_KIND VALUES (?,?,?)",
                       (nsys_id, f"CUDA_MEMOPR_MEMORY_KIND_{name}", name.title()))
        for i, name in enumerate(MEMCPY_NAMES):
            db.execute("INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (?,?,?)",
                       (copy_ids[i], f"CUDA_MEMCPY_KIND_{name}", name))
        for i, name in enumerate(SYNC_NAMES):
            db.execute("INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES (?,?,?)",
                       (sync_ids[i], f"CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_{name}", name))
        db.executemany("INSERT INTO ENUM_CUDA_DEV_MEM_EVENT_OPER VALUES (?,?,?)",
                       [(0, "CUDA_DEV_MEM_EVENT_OPR_ALLOCATION", "Allocation"),
                        (1, "CUDA_DEV_MEM_EVENT_OPR_DEALLOCATION", "Deallocation")])
        db.executemany("INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES (?,?,?)",
                       [(NVTX_MARK, "NvtxMark", "NvtxMark"),
                        (NVTX_PUSHPOP, "NvtxPushPopRange", "NvtxPushPopRange"),
                        (NVTX_STARTEND, "NvtxStartEndRange", "NvtxStartEndRange"),
                        (NVTX_DOMAIN_CREATE, "NvtxDomainCreate", "NvtxDomainCreate")])
    else:
        for t in ("ENUM_CUDA_MEMCPY_OPER", "ENUM_CUDA_MEM_KIND", "ENUM_CUDA_DEV_MEM_EVENT_OPER",
                  "ENUM_CUPTI_SYNC_TYPE", "ENUM_NSYS_EVENT_TYPE"):
            db.execute(f"DROP TABLE {t}")

    db.executemany("INSERT INTO META_DATA_EXPORT VALUES (?,?)", [
        ("EXPORT_SCHEMA_VERSION", ".".join(map(str, version)) + ".0"),
        ("EXPORT_PRODUCT_VERSION", "2026.4.1.1" if version >= (3, 28) else "2024.6.2.225")])

    # StringIds: nsys interns names; ids need not match pfprof's.
    sid = {}

    def string_id(text):
        if text not in sid:
            sid[text] = len(sid) + 100
            db.execute("INSERT INTO StringIds VALUES (?,?)", (sid[text], text))
        return sid[text]

    def name(i):
        return strings.get(i, "")

    green = [0] if version >= (3, 28) else []
    kernels = src.execute("SELECT start_ns, dur_ns, device_id, context_id, stream_id, correlation_id,"
                          " name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z,"
                          " shared_mem_bytes, registers FROM kernels").fetchall()
    for (s, d, dev, ctx, st, corr, nid, gx, gy, gz, bx, by, bz, shm, reg) in kernels:
        n = string_id(name(nid))
        db.execute(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ({','.join('?' * (27 + len(green)))})",
                   [rel(s), rel(s + d), dev, ctx, *green, st, corr, gpid, n, n, None, 0, 0, reg,
                    gx, gy, gz, bx, by, bz, shm, 0, 0, 0, corr, None, None, None])
    if extra_process:
        other = (HW_ID << 56) | ((pid + 1000) << 24)
        n = string_id("other_process_kernel")
        for (s, d, dev, ctx, st, corr, *_rest) in kernels[:len(kernels) // 4]:
            db.execute(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ({','.join('?' * (27 + len(green)))})",
                       [rel(s), rel(s + d) + 5_000_000, dev, ctx, *green, 99, 0, other, n, n, None, 0,
                        0, 32, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, None, None, None])
        db.execute("INSERT INTO PROCESSES VALUES (?,?,?)", (other, pid + 1000, "other"))

    for (s, d, b, dev, ctx, st, corr, rc, ck, sk, dk, fl, ch) in src.execute("SELECT * FROM memcpys"):
        db.execute(f"INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES ({','.join('?' * (19 + len(green)))})",
                   [rel(s), rel(s + d), dev, ctx, *green, st, corr, gpid, b, copy_ids[ck], None,
                    mem_ids[sk], mem_ids[dk], dev, ctx, dev, ctx, None, None, None])
    for (s, d, b, dev, ctx, st, corr, val, mk, fl) in src.execute("SELECT * FROM memsets"):
        db.execute(f"INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES ({','.join('?' * (11 + len(green)))})",
                   [rel(s), rel(s + d), dev, ctx, *green, st, corr, gpid, val, b, None, mem_ids[mk]])
    for (s, d, tid, corr, cbid, nid, ret, dom) in src.execute("SELECT * FROM api_calls"):
        # nsys keeps the versioned entry point name.
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,?,?,?,?)",
                   (rel(s), rel(s + d), 0, gtid(tid), corr, string_id(name(nid) + "_v7000"), ret, None))
    for (s, d, ctx, st, corr, ev, esid, ty) in src.execute("SELECT * FROM syncs"):
        if version >= (3, 28):
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                       (rel(s), rel(s + d), 0, ctx, 0, st, corr, gpid, None, sync_ids[ty], ev, esid))
        else:
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (?,?,?,?,?,?,?,?,?)",
                       (rel(s), rel(s + d), 0, ctx, st, corr, gpid, sync_ids[ty], ev))
    if version >= (3, 28):
        for (ts, esid, dev, ctx, st, ev, corr) in src.execute("SELECT * FROM cuda_events"):
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT VALUES (?,?,?,?,?,?,?,?,?)",
                       (rel(ts) if ts else 0, dev, ctx, 0, st, corr, gpid, ev, esid))
    for (ts, addr, b, dev, ctx, st, corr, op, mk, pool) in src.execute("SELECT * FROM memory"):
        db.execute("INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                   (rel(ts), gpid, dev, ctx, addr, 0, b, mem_ids[mk], op - 1, None, corr,
                    None if st == 0xFFFFFFFF else st))

    # NVTX: one NvtxDomainCreate per named domain; range names alternate
    # between inline text and registered strings (textId), as nsys does.
    domains = {}
    for (s, d, tid, dom, nid, cat, color, depth, kind) in src.execute("SELECT * FROM nvtx"):
        domain_id = 0
        if dom != 0xFFFFFFFF:
            dname = name(dom)
            if dname not in domains:
                domains[dname] = len(domains) + 1
                db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId)"
                           " VALUES (?,?,?,?,?,?)", (0, None, NVTX_DOMAIN_CREATE, dname, gtid(tid),
                                                     domains[dname]))
            domain_id = domains[dname]
        text, text_id = (name(nid), None) if domain_id == 0 else (None, string_id(name(nid)))
        if kind == 2:
            db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, text, textId, globalTid,"
                       " domainId, category, color) VALUES (?,?,?,?,?,?,?,?,?)",
                       (rel(s), None, NVTX_MARK, text, text_id, gtid(tid), domain_id, cat, color))
        else:
            db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, text, textId, globalTid,"
                       " domainId, category, color) VALUES (?,?,?,?,?,?,?,?,?)",
                       (rel(s), rel(s + d), NVTX_PUSHPOP, text, text_id, gtid(tid), domain_id, cat,
                        color))

    for (dev, nid, uid, ccmaj, ccmin, sms, mem) in src.execute("SELECT * FROM devices"):
        db.execute("INSERT INTO TARGET_INFO_GPU (vmId, id, name, uuid, computeMajor, computeMinor,"
                   " smCount, totalMemory) VALUES (0,?,?,?,?,?,?,?)",
                   (dev, name(nid), name(uid), ccmaj, ccmin, sms, mem))
    for (ctx, dev, null) in src.execute("SELECT * FROM contexts"):
        db.execute("INSERT INTO TARGET_INFO_CUDA_CONTEXT_INFO VALUES (?,?,?,?,?,?)",
                   (null, HW_ID, 0, pid, dev, ctx))
    for (st, ctx, dev, flags, prio, corr) in src.execute("SELECT * FROM streams"):
        db.execute("INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (?,?,?,?,?,?,?)",
                   (st, HW_ID, 0, pid, ctx, prio, flags))
    for (tid, nid) in src.execute("SELECT * FROM threads"):
        db.execute("INSERT INTO ThreadNames VALUES (?,?,?)", (string_id(name(nid)), 0, gtid(tid)))
    db.execute("INSERT INTO PROCESSES VALUES (?,?,?)", (gpid, pid, "python3"))
    db.commit()
    db.close()
    src.close()
