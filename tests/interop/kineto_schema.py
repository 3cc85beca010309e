# SPDX-License-Identifier: MIT
"""Builds torch.profiler (Kineto) Chrome-trace JSON for the import tests.

The events come from a pfprof trace (`pfprof generate --plant ...`),
written the way Kineto writes the same CUDA activity:
  current schema (torch 2.x): cat kernel, gpu_memcpy, gpu_memset,
    cuda_runtime, cuda_sync, cpu_op, user_annotation, python_function;
    ts/dur in µs with three decimals relative to baseTimeNanoseconds
    (written before the events; baseTimeOffset after them, on request);
    deviceProperties, distributedInfo; steps as ProfilerStep#N;
  old schema (torch 1.8-1.9): cat Kernel, Memcpy, Memset, Runtime,
    Operator; ts/dur whole µs since the epoch; tids as strings ("stream 7");
    no deviceProperties, no cuda_sync, no baseTimeOffset.
What Kineto does not record is left out: return values, CUDA event
records, NVTX categories and colours, CUPTI overhead.
"""
import gzip
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import pfprof_trace_rows  # noqa: E402  (tests/pfprof_trace_rows.py)

COPY = {1: "HtoD", 2: "DtoH", 8: "DtoD", 9: "HtoH", 10: "PtoP"}
MEM = {1: "Pageable", 2: "Pinned", 3: "Device", 4: "Array", 5: "Managed"}
SYNC = {1: "Event Sync", 2: "Stream Wait Event", 3: "Stream Sync", 4: "Context Sync"}
DATALOADER = "enumerate(DataLoader)#{}.__next__"


# Exact decimal numbers travel through json.dumps as marked strings.
_NUM = re.compile(r'"@@(-?[0-9.]+)@@"')


def _us(ns, whole):
    """ns as µs: whole µs (old schema) or with three decimals, exactly."""
    if whole:
        return ns // 1000
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    return f"@@{sign}{ns // 1000}.{ns % 1000:03d}@@"


def convert(trace, out, schema="current", absolute=False, gz=None, steps="profiler",
            with_stack=False, display_unit="ms", distributed=None, memory=False, syncs=True,
            runtime=True, memcpy_kinds=True, extra_top=None, loader="_SingleProcessDataLoaderIter",
            base_key_last=False, sites=False, calls=None, training_ops=False, optimizer_every=1):
    """Writes @trace as Kineto JSON to @out (gzip when @gz, or when @out
    ends in .gz). @steps: "profiler" (ProfilerStep#N), "keep" (the trace's
    own range names), "none" (step ranges left out) or "optimizer"
    (ProfilerStep#N from one optimizer step to the next, as prof.step()
    after each optimizer step makes them: a validation pass between two
    lies inside one). @absolute: times
    since the epoch instead of relative to baseTimeOffset. @distributed:
    dict for distributedInfo (current schema). @sites (with @with_stack):
    the Python frames come from the trace's call sites instead: each
    python_calls row as torch.profiler records the call, the entry point
    (`<built-in method cuda of Tensor object at 0x...>`) inside a torch
    frame inside the site's frame inside its caller's, each frame named
    "file(line): function" with the site's line. @training_ops: the
    trace's training marks as torch.profiler records the same work: each
    backward pass as a run of autograd engine operators
    (`autograd::engine::evaluate_function: ...Backward0`), every
    @optimizer_every-th optimizer step as an `Optimizer.step#SGD.step`
    range (the others left out, as if the micro-batches between them
    accumulated gradients)."""
    old = schema == "old"
    src = pfprof_trace_rows.connect(trace)
    meta = dict(src.execute("SELECT key, value FROM meta"))
    strings = dict(src.execute("SELECT id, value FROM strings"))
    pid = int(meta.get("pid", 1))
    times = [r[0] for r in src.execute(
        "SELECT min(start_ns) FROM kernels UNION ALL SELECT min(start_ns) FROM api_calls "
        "UNION ALL SELECT min(start_ns) FROM nvtx") if r[0] is not None]
    base = 0 if (old or absolute) else (min(times) // 1000) * 1000 - 1000
    events = []

    def name(i):
        return strings.get(i, "")

    def t(ns):
        return _us(ns - base, old)

    def dur(s, d):
        return (s + d - base) // 1000 - (s - base) // 1000 if old else _us(d, False)

    def tid_of(x):
        return str(x) if old else x

    def stream_tid(st):
        return f"stream {st}" if old else st

    def x(cat, nm, p, td, s, d, args):
        events.append({"ph": "X", "cat": cat, "name": nm, "pid": p, "tid": td, "ts": t(s),
                       "dur": dur(s, d), "args": args})

    cats = ({"kernel": "Kernel", "memcpy": "Memcpy", "memset": "Memset", "runtime": "Runtime",
             "driver": "Runtime", "cpu_op": "Operator", "annotation": "Operator"} if old else
            {"kernel": "kernel", "memcpy": "gpu_memcpy", "memset": "gpu_memset",
             "runtime": "cuda_runtime", "driver": "cuda_driver", "cpu_op": "cpu_op",
             "annotation": "user_annotation"})

    for (s, d, dev, ctx, st, corr, nid, gx, gy, gz_, bx, by, bz, shm, regs) in src.execute(
            "SELECT start_ns, dur_ns, device_id, context_id, stream_id, correlation_id, name_id,"
            " grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_mem_bytes, registers"
            " FROM kernels"):
        x(cats["kernel"], name(nid), dev, stream_tid(st), s, d,
          {"queued": 0, "device": dev, "context": ctx, "stream": st, "correlation": corr,
           "registers per thread": regs, "shared memory": shm, "grid": [gx, gy, gz_],
           "block": [bx, by, bz]})
    for (s, d, b, dev, ctx, st, corr, rc, ck, sk, dk, fl, ch) in src.execute("SELECT * FROM memcpys"):
        kinds = f" ({MEM.get(sk, 'Unknown')} -> {MEM.get(dk, 'Unknown')})" if memcpy_kinds else ""
        x(cats["memcpy"], f"Memcpy {COPY.get(ck, 'Unknown')}{kinds}", dev, stream_tid(st), s, d,
          {"device": dev, "context": ctx, "stream": st, "correlation": corr, "bytes": b,
           "memory bandwidth (GB/s)": round(b / max(d, 1), 3)})
    for (s, d, b, dev, ctx, st, corr, val, mk, fl) in src.execute("SELECT * FROM memsets"):
        x(cats["memset"], f"Memset ({MEM.get(mk, 'Unknown')})", dev, stream_tid(st), s, d,
          {"device": dev, "context": ctx, "stream": st, "correlation": corr, "bytes": b})
    if runtime:
        for (s, d, tid, corr, cbid, nid, ret, dom) in src.execute("SELECT * FROM api_calls"):
            x(cats["runtime"] if dom == 5 else cats["driver"], name(nid), pid, tid_of(tid), s, d,
              {"cbid": cbid, "correlation": corr})
            if with_stack and calls and name(nid) in calls:
                entry, frame, caller = calls[name(nid)]
                for k, nm in enumerate((caller, frame, entry)):
                    x("python_function", nm, pid, tid_of(tid), s - 3000 + 1000 * k,
                      d + 6000 - 2000 * k, {"Python id": 10 + k})
            elif with_stack and not sites:
                # The program's frame around each call, under a library one.
                x("python_function", "train.py(57): train_step", pid, tid_of(tid), s - 2000,
                  d + 4000, {"Python id": 1})
                x("python_function", "torch/nn/modules/module.py(1501): _call_impl", pid,
                  tid_of(tid), s - 1000, d + 2000, {"Python id": 2})
    if with_stack and sites:
        rows = {r[0]: r for r in src.execute("SELECT * FROM python_sites")}
        for (s, d, tid, site) in src.execute("SELECT * FROM python_calls"):
            (_, kind, api, f, line, fn, cf, cl, cfn, _calls) = rows[site]
            owner, method = name(api).split(".", 1)
            entry = (f"<built-in method {method} of Tensor object at 0x7f0000001000>"
                     if owner == "Tensor" else "<built-in function _cuda_synchronize>")
            if cl > 0:
                x("python_function", f"{name(cf)}({cl}): {name(cfn)}", pid, tid_of(tid), s - 4000,
                  d + 8000, {"Python id": 1})
            x("python_function", f"{name(f)}({line}): {name(fn)}", pid, tid_of(tid), s - 3000, d + 6000,
              {"Python id": 2})
            x("python_function", "torch/_tensor.py(1): _call_impl", pid, tid_of(tid), s - 1000,
              d + 2000, {"Python id": 3})
            x("python_function", entry, pid, tid_of(tid), s, d, {"Python id": 4})
    if syncs and not old:
        for (s, d, ctx, st, corr, ev, esid, ty) in src.execute("SELECT * FROM syncs"):
            x("cuda_sync", SYNC.get(ty, "Unknown"), 0, st if st < 2**32 - 1 else 0, s, d,
              {"device": 0, "context": ctx, "stream": -1 if st >= 2**32 - 1 else st,
               "correlation": corr})
    step = 0
    n_opt = 0
    if steps == "optimizer":
        marks = [r[0] for r in src.execute(
            "SELECT n.start_ns FROM nvtx n JOIN strings d ON d.id = n.domain_id JOIN strings m ON m.id = n.name_id"
            " WHERE d.value = 'pfprof' AND m.value = 'Optimizer.step' ORDER BY n.start_ns")]
        for k in range(len(marks) - 1):
            x(cats["annotation"], f"ProfilerStep#{k}", pid, tid_of(pid), marks[k], marks[k + 1] - marks[k], {})
    for (s, d, tid, dom, nid, cat, color, depth, kind) in src.execute("SELECT * FROM nvtx ORDER BY start_ns"):
        dname, nm = strings.get(dom), name(nid)
        if kind != 1 and training_ops and dname == "pfprof" and nm == "backward":
            for k, op in enumerate(("NllLossBackward0", "AddmmBackward0", "ConvolutionBackward0",
                                    "torch::autograd::AccumulateGrad")):
                x(cats["cpu_op"], f"autograd::engine::evaluate_function: {op}", pid, tid_of(tid + 1),
                  s + 30000 * k, 20000, {})
        elif kind != 1 and training_ops and dname == "pfprof" and nm == "Optimizer.step":
            n_opt += 1
            if n_opt % optimizer_every == 0:
                x(cats["annotation"], "Optimizer.step#SGD.step", pid, tid_of(tid), s - 100000, 100000, {})
        if kind != 1:
            continue
        if dname == "pfprof" and nm == "DataLoader.next":
            x(cats["cpu_op"], DATALOADER.format(loader), pid, tid_of(tid), s, d, {})
        elif nm in ("train_step",) or nm.lower().startswith("step"):
            if steps in ("none", "optimizer"):
                continue
            nm = f"ProfilerStep#{step}" if steps == "profiler" else nm
            step += 1
            x(cats["annotation"], nm, pid, tid_of(tid), s, d, {})
        else:
            x(cats["annotation"], nm, pid, tid_of(tid), s, d, {})
    if memory:
        for (ts, addr, b, dev, ctx, st, corr, op, mk, pool) in src.execute("SELECT * FROM memory"):
            events.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]",
                           "pid": pid, "tid": pid, "ts": t(ts),
                           "args": {"Device Type": 1, "Device Id": dev, "Addr": addr,
                                    "Bytes": b if op == 1 else -b, "Total Allocated": 0}})
    for (tid, nid) in src.execute("SELECT * FROM threads"):
        events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid_of(tid),
                       "args": {"name": name(nid)}})
    events.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                   "args": {"name": "python"}})
    # The GPU's rows are named too (pid = device, tid = stream).
    for (st, ctx, dev, flags, prio, corr) in src.execute("SELECT * FROM streams"):
        events.append({"ph": "M", "name": "thread_name", "pid": dev, "tid": stream_tid(st),
                       "args": {"name": f"stream {st}"}})
    events.append({"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}})
    # A flow per launch, as Kineto writes them (the importer ignores them).
    events.append({"ph": "s", "id": 1, "pid": pid, "tid": tid_of(pid), "ts": t(min(times)),
                   "cat": "ac2g", "name": "ac2g"})
    events.sort(key=lambda e: float(str(e.get("ts", 0)).strip("@")))

    doc = {"schemaVersion": 1}
    if not old:
        devs = [{"id": dev, "name": name(nid), "totalGlobalMem": mem, "computeMajor": ma,
                 "computeMinor": mi, "numSms": sms}
                for (dev, nid, uid, ma, mi, sms, mem) in src.execute("SELECT * FROM devices")]
        doc["deviceProperties"] = devs
        if distributed is not None:
            doc["distributedInfo"] = distributed
        doc["record_shapes"] = 0
        doc["with_stack"] = 1 if with_stack else 0
        # Kineto writes the base time before the events (baseTimeNanoseconds);
        # some versions wrote it last, as baseTimeOffset.
        doc["displayTimeUnit"] = display_unit
        if base and not base_key_last:
            doc["baseTimeNanoseconds"] = base
    doc["traceEvents"] = events
    if not old:
        doc["traceName"] = os.path.basename(out)
        if base and base_key_last:
            doc["baseTimeOffset"] = base
    if extra_top:
        doc.update(extra_top)
    src.close()
    text = _NUM.sub(r"\1", json.dumps(doc, indent=None if old else 1))
    if gz is None:
        gz = out.endswith(".gz")
    with (gzip.open(out, "wt") if gz else open(out, "w")) as f:
        f.write(text)
    return out
