#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test-python-sites-abi.py LIBPFPROF-COLLECTOR.SO

The collector's call-site and worker-event functions as the Python hook
calls them (ctypes, the hook's argument types: cli/pfprof_sitecustomize.py,
cli/pfprof_workers.py), in a process where CUDA never
started: they exist, take the hook's arguments (None for a missing
caller, a 10 MB name), and answer 1, "not tracing yet" (the hook keeps
its rows and tries again later), without crashing or writing anything.
"""
import ctypes
import os
import sys

lib = ctypes.CDLL(os.path.abspath(sys.argv[1]))
site, call = lib.pfprof_collector_python_site, lib.pfprof_collector_python_call
u32, i32, i64, u64, s = ctypes.c_uint32, ctypes.c_int32, ctypes.c_int64, ctypes.c_uint64, ctypes.c_char_p
site.argtypes = [u32, u32, s, s, i32, s, s, i32, s, u64]
call.argtypes = [u32, u32, i64, i64]
site.restype = call.restype = ctypes.c_int
event = lib.pfprof_collector_python_worker_event
event.argtypes = [u32, u32, u32, u32, i64, i64, i64, i64, i64]
event.restype = ctypes.c_int
fail = 0
for name, rc in [
    ("site", site(1, 1, b"Tensor.cuda", b"/x/train.py", 57, b"train", None, 0, None, 1)),
    ("site with a 10 MB name", site(2, 1, b"Tensor.to", b"/x/t.py", 1, b"f" * (10 << 20), b"/x/t.py", 2,
                                    b"main", 1)),
    ("call", call(1, os.getpid(), 1, 2)),
    ("call with reversed times", call(1, os.getpid(), 5, 2)),
    ("worker event", event(2, 1, os.getpid(), 4, 7, 10, 20, 12, 18)),
    ("worker event of an unknown kind", event(99, 1, 1, 0, 0, 10, 20, 0, 0)),
]:
    if rc != 1:
        print(f"FAIL: {name}: {rc}, want 1 (not tracing yet)")
        fail = 1
if os.path.exists("pfprof-%s-%d.pfprof" % (os.uname().nodename, os.getpid())):
    print("FAIL: a trace was written")
    fail = 1
print("ok: call-site functions answer 'not yet' before CUDA starts" if not fail else "FAIL")
sys.exit(fail)
