#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test-sitecustomize.py HOOK [PFPROF]

Unit tests of `pfprof record`'s Python start-up hook
(cli/pfprof_sitecustomize.py), run with the system python3 and a fake
torch package written here, so no torch or GPU is needed. Each test runs
a fresh interpreter the way the launcher does: the hook as sitecustomize.py
in a folder first on PYTHONPATH, PFPROF_HOOK_DIR naming that folder. With
PFPROF (the built binary) it also checks that `pfprof record` writes the
hook byte for byte as the source file holds it.
"""
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

HOOK = os.path.abspath(sys.argv[1])
PFPROF = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
del sys.argv[1:]

# The parts of torch the hook touches. nvtx.range_push/pop log into
# torch.cuda.nvtx.log; the DataLoader iterator yields the items it is given.
FAKE_TORCH = {
    # Tensor's methods stand for the C ones; `raise_on_item` makes .item()
    # fail as a real one can.
    "torch/__init__.py": textwrap.dedent("""\
        from . import cuda
        from . import autograd
        from . import optim

        class Tensor:
            raise_on_item = False
            def __init__(self, v=0):
                self.v = v
            def to(self, *a, **k):
                return Tensor(self.v)
            def cuda(self, *a, **k):
                return Tensor(self.v)
            def cpu(self):
                return Tensor(self.v)
            def item(self):
                if Tensor.raise_on_item:
                    raise RuntimeError("CUDA error: device-side assert")
                return self.v
            def pin_memory(self):
                return Tensor(self.v)
            def record_stream(self, s):
                return None
            def backward(self, gradient=None):
                autograd.backward(self, gradient)

        def empty(*size, pin_memory=False):
            return Tensor(len(size))

        def _move_all(ts):
            return [t.to("cuda") for t in ts]
        """),
    "torch/cuda/__init__.py": textwrap.dedent("""\
        synced = 0
        def synchronize(device=None):
            global synced
            synced += 1
        """),
    "torch/cuda/nvtx.py": textwrap.dedent("""\
        log = []
        fail = False
        def range_push(msg):
            if fail:
                raise RuntimeError("nvtx broken")
            log.append(("push", msg))
        def range_pop():
            log.append(("pop",))
        def mark(msg):
            log.append(("mark", msg))
        """),
    # Optimizer.step runs the global post-hooks after the step, as
    # torch.optim does; autograd.backward is what Tensor.backward calls.
    "torch/autograd/__init__.py": textwrap.dedent("""\
        calls = []
        def backward(tensors, grad_tensors=None, **kwargs):
            calls.append("backward")
        """),
    # As torch's: the submodule's name is deleted from the package.
    "torch/optim/__init__.py": "from .optimizer import Optimizer\ndel optimizer\n",
    "torch/optim/optimizer.py": textwrap.dedent("""\
        _post = []
        def register_optimizer_step_post_hook(hook):
            _post.append(hook)
        class Optimizer:
            steps = 0
            def step(self):
                Optimizer.steps += 1
                for h in _post:
                    h(self, (), {})
        """),
    "torch/utils/__init__.py": "",
    "torch/utils/data/__init__.py": "from .dataloader import DataLoader\n",
    "torch/utils/data/dataloader.py": textwrap.dedent("""\
        class _BaseDataLoaderIter:
            def __init__(self, items):
                self._items = list(items)
            def __iter__(self):
                return self
            def __next__(self):
                if not self._items:
                    raise StopIteration
                item = self._items.pop(0)
                if isinstance(item, BaseException):
                    raise item
                return item

        class DataLoader:
            def __init__(self, items):
                self.items = items
            def __iter__(self):
                return _BaseDataLoaderIter(self.items)
        """),
}


# The longest run of calls a wrapper counts without looking
# (_PfprofSites.SAMPLE * 3 // 2).
SAMPLE_MAX = 96

# Stands for the collector's exported functions (ctypes.CDLL of
# CUDA_INJECTION64_PATH): logs each call; prints the log as JSON at exit,
# after the hook's own exit handler (atexit runs the last registered first).
# FAKE_COLLECTOR: ok, missing-then-ok (not loaded for the first 3 tries),
# later (not tracing for the first 3 calls), dead (-1), raise.
FAKE_COLLECTOR = textwrap.dedent("""\
    import atexit, ctypes, json, os
    LOG = []
    MODE = os.environ.get("FAKE_COLLECTOR", "ok")
    class Fn:
        def __init__(self, name):
            self.name, self.argtypes, self.restype = name, None, None
        def __call__(self, *a):
            LOG.append([self.name] + [x.decode() if isinstance(x, bytes) else x for x in a])
            if MODE == "raise":
                raise ValueError("collector broken")
            if MODE == "dead":
                return -1
            if MODE == "later" and len(LOG) <= 3:
                return 1
            return 0
    class Lib:
        loads = 0
        def __init__(self, path, mode=0):
            assert mode == os.RTLD_NOLOAD
            Lib.loads += 1
            if MODE == "missing-then-ok" and Lib.loads <= 3:
                raise OSError("not loaded")
            self.pfprof_collector_python_site = Fn("site")
            self.pfprof_collector_python_call = Fn("call")
        def pfprof_collector_finish(self):
            LOG.append(["finish"])
    ctypes.CDLL = Lib
    atexit.register(lambda: print(json.dumps(LOG), flush=True))
    """)

# The user's program: each wrapped entry point from a known line.
TRAIN = textwrap.dedent("""\
    import fake_collector
    import os, threading, time, torch
    from torch.utils.data import DataLoader

    def train_one_epoch(loader, n):
        for batch in loader:                             # line 6
            x = torch.Tensor(batch)
            for _ in range(n):
                y = x.cuda(non_blocking=True)            # line 9
            x.to("cuda"); x.cpu()                        # line 10
            y.item()                                     # line 11
            torch.cuda.synchronize()                     # line 12
            torch.empty(4, pin_memory=True)              # line 13
            torch.empty(4)                               # line 14: not a site
            x.pin_memory().record_stream(None)           # line 15
            torch._move_all([x, x])                      # line 16: through torch
        print(json.dumps({"tid": threading.get_native_id(), "t": time.time_ns()}))

    def main():
        train_one_epoch(DataLoader([1, 2]), int(os.environ.get("N", "20")))   # line 20

    import json
    main()
    """)


class HookTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="sitecustomize-test.")
        self.dir = self.tmp.name
        self.hook_dir = os.path.join(self.dir, "pfprof-hook")
        os.mkdir(self.hook_dir)
        with open(HOOK, encoding="utf-8") as f:
            self.hook_text = f.read()
        with open(os.path.join(self.hook_dir, "sitecustomize.py"), "w", encoding="utf-8") as f:
            f.write(self.hook_text)
        self.torch_dir = os.path.join(self.dir, "site")
        for path, text in FAKE_TORCH.items():
            full = os.path.join(self.torch_dir, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write(text)

    def tearDown(self):
        self.tmp.cleanup()

    def run_py(self, code, torch=True, hooks="1", env=None, args=(), want_rc=0, lines=False):
        """Runs CODE in a fresh python3 under the hook (a file name in ARGS
        runs that file instead); returns what it printed as the last line
        (every line with LINES), parsed as JSON."""
        e = {k: v for k, v in os.environ.items() if not k.startswith("PFPROF_")}
        e.pop("CUDA_INJECTION64_PATH", None)
        path = [self.hook_dir] + ([self.torch_dir] if torch else [])
        e.update(PYTHONPATH=os.pathsep.join(path), PFPROF_HOOK_DIR=self.hook_dir,
                 PFPROF_PYTHON_HOOKS=hooks, PYTHONDONTWRITEBYTECODE="1")
        e.update(env or {})
        cmd = [sys.executable, *args] + (["-c", textwrap.dedent(code)] if code else [])
        p = subprocess.run(cmd, env=e, cwd=self.dir, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, want_rc, p.stderr)
        out = p.stdout.strip().splitlines()
        if lines:
            return [json.loads(o) for o in out]
        return json.loads(out[-1]) if out else None

    def run_train(self, env=None, want_rc=0):
        """Runs TRAIN as train.py with the fake collector; returns its
        thread and time, the collector's log and the sites by line."""
        with open(os.path.join(self.torch_dir, "fake_collector.py"), "w") as f:
            f.write(FAKE_COLLECTOR)
        with open(os.path.join(self.dir, "train.py"), "w") as f:
            f.write(TRAIN)
        e = {"CUDA_INJECTION64_PATH": "/x/libpfprof-collector.so"}
        e.update(env or {})
        out = self.run_py(None, args=["train.py"], env=e, want_rc=want_rc, lines=True)
        info, log = out[0], out[-1]
        sites = {}
        for row in log:
            if row[0] == "site":
                sid, kind, api, file, line, fn, cfile, cline, cfn, calls = row[1:]
                sites.setdefault(sid, {}).update(kind=kind, api=api, file=file, line=line,
                                                 function=fn, caller=[cfile, cline, cfn])
                sites[sid].setdefault("rows", []).append(calls)
        for row in log:
            if row[0] == "call" and row[1] in sites:
                sites[row[1]].setdefault("calls", []).append(row[2:])
        return info, log, {(s["line"], s["api"]): s for s in sites.values()}

    def test_no_torch_is_untouched(self):
        r = self.run_py("""
            import json, os, sys
            print(json.dumps({"torch": "torch" in sys.modules,
                              "path": any("pfprof-hook" in p for p in sys.path)}))
            """, torch=False)
        self.assertEqual(r, {"torch": False, "path": False})

    def test_import_of_torch_alone_patches_nothing(self):
        r = self.run_py("""
            import json, sys, torch
            print(json.dumps({"dataloader": "torch.utils.data.dataloader" in sys.modules,
                              "nvtx": "torch.cuda.nvtx" in sys.modules}))
            """)
        self.assertEqual(r, {"dataloader": False, "nvtx": False})

    def test_dataloader_next_is_an_nvtx_range(self):
        r = self.run_py("""
            import json
            from torch.utils.data import DataLoader
            from torch.utils.data.dataloader import _BaseDataLoaderIter
            import torch.cuda.nvtx as nvtx
            items = list(DataLoader([1, 2, 3]))
            print(json.dumps({"items": items, "log": nvtx.log,
                              "marked": getattr(_BaseDataLoaderIter.__next__, "_pfprof", False),
                              "name": _BaseDataLoaderIter.__next__.__wrapped__.__qualname__}))
            """)
        self.assertEqual(r["items"], [1, 2, 3])
        # Three batches and the StopIteration call: four balanced ranges.
        self.assertEqual(r["log"], [["push", "pfprof:DataLoader.next"], ["pop"]] * 4)
        self.assertTrue(r["marked"])
        self.assertEqual(r["name"], "_BaseDataLoaderIter.__next__")

    def test_training_steps_are_marked(self):
        r = self.run_py("""
            import json, torch
            import torch.cuda.nvtx as nvtx
            from torch.optim import Optimizer
            opt = Optimizer()
            for step in range(2):
                loss = torch.Tensor(1.0)
                loss.backward()
                opt.step()
            torch.autograd.backward([torch.Tensor(2.0)])
            print(json.dumps({"log": nvtx.log, "backward": torch.autograd.calls,
                              "steps": Optimizer.steps,
                              "wrapped": torch.autograd.backward.__wrapped__.__module__}))
            """)
        marks = [e for e in r["log"] if e[0] == "mark"]
        # A backward mark as each pass starts, an optimizer mark after each step.
        self.assertEqual(marks, [["mark", "pfprof:backward"], ["mark", "pfprof:Optimizer.step"]] * 2
                         + [["mark", "pfprof:backward"]])
        self.assertEqual(r["backward"], ["backward"] * 3)
        self.assertEqual(r["steps"], 2)
        self.assertEqual(r["wrapped"], "torch.autograd")

    def test_no_python_hooks_marks_nothing(self):
        r = self.run_py("""
            import json, torch
            import torch.cuda.nvtx as nvtx
            from torch.optim import Optimizer
            torch.Tensor(1.0).backward()
            Optimizer().step()
            print(json.dumps({"log": nvtx.log,
                              "plain": not hasattr(torch.autograd.backward, "__wrapped__")}))
            """, env={"PFPROF_PYTHON_HOOKS": "0"})
        self.assertEqual(r, {"log": [], "plain": True})

    def test_dataloader_imported_before_the_hook(self):
        # python3 -S skips site: the hook runs after the module exists.
        r = self.run_py("""
            import json, os, runpy, sys
            sys.path.insert(0, os.environ["FAKE_TORCH"])
            import torch.utils.data.dataloader as dl
            runpy.run_path(os.environ["HOOK"], run_name="sitecustomize")
            import torch.cuda.nvtx as nvtx
            print(json.dumps({"items": list(dl.DataLoader([5])), "log": nvtx.log}))
            """, args=["-S"], env={"FAKE_TORCH": self.torch_dir, "HOOK": HOOK, "PFPROF_HOOK_DIR": ""})
        self.assertEqual(r["items"], [5])
        self.assertEqual(len(r["log"]), 4)

    def test_patched_once(self):
        r = self.run_py("""
            import json, os, runpy
            from torch.utils.data.dataloader import DataLoader
            runpy.run_path(os.environ["HOOK"], run_name="again")
            import torch.cuda.nvtx as nvtx
            list(DataLoader([1]))
            print(json.dumps(nvtx.log))
            """, env={"HOOK": HOOK})
        self.assertEqual(len(r), 4)

    def test_user_exceptions_pass_through_and_ranges_close(self):
        r = self.run_py("""
            import json
            from torch.utils.data import DataLoader
            import torch.cuda.nvtx as nvtx
            it = iter(DataLoader([1, KeyError("batch"), 2]))
            got = [next(it)]
            try:
                next(it)
            except KeyError as e:
                got.append("KeyError " + str(e))
            got.append(next(it))
            print(json.dumps({"got": got, "log": nvtx.log}))
            """)
        self.assertEqual(r["got"], [1, "KeyError 'batch'", 2])
        self.assertEqual(r["log"], [["push", "pfprof:DataLoader.next"], ["pop"]] * 3)

    def test_broken_nvtx_never_raises(self):
        r = self.run_py("""
            import json
            import torch.cuda.nvtx as nvtx
            nvtx.fail = True
            from torch.utils.data import DataLoader
            print(json.dumps(list(DataLoader([1, 2]))))
            """)
        self.assertEqual(r, [1, 2])

    def test_missing_nvtx_never_raises(self):
        os.remove(os.path.join(self.torch_dir, "torch/cuda/nvtx.py"))
        r = self.run_py("""
            import json
            from torch.utils.data import DataLoader
            print(json.dumps(list(DataLoader([1, 2]))))
            """)
        self.assertEqual(r, [1, 2])

    def test_hooks_off(self):
        r = self.run_py("""
            import json, os
            from torch.utils.data.dataloader import _BaseDataLoaderIter
            print(json.dumps([getattr(_BaseDataLoaderIter.__next__, "_pfprof", False),
                              getattr(os._exit, "_pfprof", False)]))
            """, hooks="0")
        self.assertEqual(r, [False, False])

    def test_user_sitecustomize_still_runs(self):
        user = os.path.join(self.dir, "user")
        os.mkdir(user)
        with open(os.path.join(user, "sitecustomize.py"), "w") as f:
            f.write("import os\nos.environ['USER_SITE_RAN'] = '1'\n")
        for hooks in ("1", "0"):
            r = self.run_py("""
                import json, os, sys
                print(json.dumps([os.environ.get("USER_SITE_RAN"),
                                  any("pfprof-hook" in p for p in sys.path)]))
                """, hooks=hooks, env={"PYTHONPATH": self.hook_dir + os.pathsep + user})
            self.assertEqual(r, ["1", False], hooks)

    def test_os_exit_finishes_the_collector_and_keeps_the_status(self):
        # The collector is found among the loaded libraries; a stand-in
        # records the call.
        r = self.run_py("""
            import ctypes, json, os
            calls = []
            class Lib:
                def __init__(self, path, mode=0):
                    assert mode == os.RTLD_NOLOAD, mode
                    self.path = path
                def pfprof_collector_finish(self):
                    calls.append(self.path)
                    print(json.dumps(calls), flush=True)
                    return 0
            ctypes.CDLL = Lib
            os._exit(9)
            """, env={"CUDA_INJECTION64_PATH": "/x/libpfprof-collector.so"}, want_rc=9)
        self.assertEqual(r, ["/x/libpfprof-collector.so"])

    def test_os_exit_without_a_collector(self):
        self.run_py("import os; os._exit(7)", env={"CUDA_INJECTION64_PATH": "/no/such.so"}, want_rc=7)
        r = self.run_py("""
            import json, os
            print(json.dumps(getattr(os._exit, "_pfprof", False)))
            """)
        self.assertFalse(r, "os._exit wrapped without CUDA_INJECTION64_PATH")

    def test_hook_is_valid_python_and_imports_nothing_at_top(self):
        compile(self.hook_text, HOOK, "exec")
        r = self.run_py("""
            import json, sys
            print(json.dumps(sorted(m for m in ("ctypes", "importlib.util", "torch") if m in sys.modules)))
            """)
        self.assertNotIn("torch", r)
        self.assertNotIn("ctypes", r)

    def test_each_entry_point_is_a_site_of_the_users_line(self):
        info, log, sites = self.run_train()
        train = os.path.join(self.dir, "train.py")
        want = {(6, "DataLoader.__next__"): 5, (9, "Tensor.cuda"): 1, (10, "Tensor.to"): 1,
                (10, "Tensor.cpu"): 1, (11, "Tensor.item"): 2, (12, "torch.cuda.synchronize"): 2,
                (13, "torch.empty"): 4, (15, "Tensor.pin_memory"): 4,
                (15, "Tensor.record_stream"): 3, (16, "Tensor.to"): 1}
        self.assertEqual({k: s["kind"] for k, s in sites.items()}, want)
        for (line, api), s in sites.items():
            self.assertEqual(os.path.realpath(s["file"]), os.path.realpath(train), api)
            self.assertEqual(s["function"], "train_one_epoch", api)
            self.assertEqual(s["caller"][1:], [20, "main"], api)
        # Three DataLoader calls (two batches, then StopIteration); two
        # epochs' worth of everything else, 20 .cuda() calls a batch.
        self.assertEqual(sites[(6, "DataLoader.__next__")]["rows"][-1], 3)
        self.assertTrue(40 <= sites[(9, "Tensor.cuda")]["rows"][-1] <= 40 + SAMPLE_MAX)
        self.assertEqual(sites[(16, "Tensor.to")]["rows"][-1], 4)
        self.assertEqual(sites[(13, "torch.empty")]["rows"][-1], 2)

    def sites_of(self, args, files):
        """Writes FILES ({path: text}) under the test folder and runs
        python3 ARGS there with the fake collector; the sites by line and
        entry point."""
        with open(os.path.join(self.torch_dir, "fake_collector.py"), "w") as f:
            f.write(FAKE_COLLECTOR)
        for path, text in files.items():
            full = os.path.join(self.dir, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(textwrap.dedent(text))
        log = self.run_py(None, args=args, env={"CUDA_INJECTION64_PATH": "/x/libpfprof-collector.so"},
                          lines=True)[-1]
        return {(r[5], r[3]): {"file": r[4], "function": r[6], "caller": r[7:10]} for r in log if r[0] == "site"}

    def test_sites_of_a_module_run_with_dash_m(self):
        sites = self.sites_of(["-m", "pkg.train"], {"pkg/__init__.py": "", "pkg/train.py": TRAIN})
        train = os.path.join(self.dir, "pkg", "train.py")
        self.assertIn((9, "Tensor.cuda"), sites)
        for key, s in sites.items():
            self.assertEqual(os.path.realpath(s["file"]), os.path.realpath(train), key)
        self.assertEqual(sites[(9, "Tensor.cuda")]["function"], "train_one_epoch")

    def test_sites_of_a_program_that_changes_directory(self):
        # Code compiled under a relative file name (as exec(compile(...))
        # launchers run scripts) keeps it in its frames; the program then
        # leaves the folder it is relative to.
        sites = self.sites_of(["main.py"], {
            "lib/steps.py": """\
                def copy(x):
                    return x.cuda(non_blocking=True)

                def run(x):
                    return copy(x)
                """,
            "main.py": """\
                import fake_collector
                import os, torch
                steps = {}
                exec(compile(open("lib/steps.py").read(), "lib/steps.py", "exec"), steps)
                os.chdir("/")
                for _ in range(3):
                    steps["run"](torch.Tensor(1))
                """})
        steps = os.path.join(self.dir, "lib", "steps.py")
        s = sites[(2, "Tensor.cuda")]
        self.assertEqual(os.path.realpath(s["file"]), os.path.realpath(steps))
        self.assertEqual(s["function"], "copy")
        self.assertEqual(os.path.realpath(s["caller"][0]), os.path.realpath(steps))
        self.assertEqual(s["caller"][1:], [5, "run"])

    def test_first_16_calls_timed_then_counted(self):
        info, log, sites = self.run_train()
        cuda = sites[(9, "Tensor.cuda")]
        # The first 16, and the first call looked at after them (the next
        # comes 32 calls later at the earliest, after the 40th).
        self.assertEqual(len(cuda["calls"]), 17)
        # Written once when first recorded, once more with the final count:
        # exact up to 16 calls, then estimated from one call in about 64,
        # the calls between counted for the site seen (at most one
        # window too many at the end).
        self.assertEqual(cuda["rows"][0], 1)
        self.assertTrue(40 <= cuda["rows"][-1] <= 40 + SAMPLE_MAX, cuda["rows"])
        for tid, start, end in cuda["calls"]:
            self.assertEqual(tid, info["tid"])
            self.assertLessEqual(start, end)
            self.assertLess(abs(info["t"] - start), 60 * 10**9, "not CLOCK_REALTIME ns")
        starts = [c[1] for c in cuda["calls"]]
        self.assertEqual(starts, sorted(starts))
        self.assertEqual(len(sites[(11, "Tensor.item")]["calls"]), 2)

    def test_later_calls_timed_spread_over_the_run(self):
        info, log, sites = self.run_train(env={"N": "20000"})
        cuda = sites[(9, "Tensor.cuda")]
        starts = [c[1] for c in cuda["calls"]]
        # 40,000 calls, about 625 looked at: every one timed until 16 are,
        # then every second, fourth...: bounded, and reaching the end.
        self.assertGreater(len(starts), 16 + 16 + 8)
        self.assertLessEqual(len(starts), 16 + 160)
        self.assertGreater(starts[-1], (starts[0] + info["t"]) / 2, "no timed call late in the run")
        self.assertTrue(39000 <= cuda["rows"][-1] <= 40000 + SAMPLE_MAX * 2, cuda["rows"])

    def test_collector_loaded_late_gets_everything(self):
        for mode in ("missing-then-ok", "later"):
            info, log, sites = self.run_train(env={"FAKE_COLLECTOR": mode})
            self.assertEqual(len(sites[(9, "Tensor.cuda")]["calls"]), 17, mode)
            self.assertTrue(40 <= sites[(9, "Tensor.cuda")]["rows"][-1] <= 40 + SAMPLE_MAX, mode)

    def test_a_process_the_collector_refuses_stops_trying(self):
        info, log, sites = self.run_train(env={"FAKE_COLLECTOR": "dead"})
        self.assertEqual(len(log), 1, log)   # the first site, refused

    def test_recorder_failures_never_reach_the_program(self):
        info, log, sites = self.run_train(env={"FAKE_COLLECTOR": "raise"})
        self.assertIn("tid", info)

    def test_wrapped_calls_return_and_raise_what_they_did(self):
        r = self.run_py("""
            import json, torch
            t = torch.Tensor(7)
            out = [t.item(), t.cuda().v, torch.empty(1, 2, pin_memory=True).v,
                   torch.Tensor.to.__name__, torch.Tensor.to._pfprof]
            torch.Tensor.raise_on_item = True
            try:
                t.item()
            except RuntimeError as e:
                out.append(str(e))
            print(json.dumps(out))
            """, env={"CUDA_INJECTION64_PATH": "/no/such.so"})
        self.assertEqual(r, [7, 7, 2, "to", True, "CUDA error: device-side assert"])

    def test_without_the_collector_nothing_is_handed_over(self):
        # No CUDA_INJECTION64_PATH (hooks on, collector never loaded):
        # calls still work and count.
        r = self.run_py("""
            import json, torch
            print(json.dumps([torch.Tensor(3).cuda().item() for _ in range(40)][-1]))
            """)
        self.assertEqual(r, 3)

    def test_hooks_off_wraps_no_tensor_method(self):
        r = self.run_py("""
            import json, torch
            print(json.dumps([getattr(getattr(torch.Tensor, n), "_pfprof", False)
                              for n in ("to", "cuda", "item")] +
                             [getattr(torch.cuda.synchronize, "_pfprof", False),
                              getattr(torch.empty, "_pfprof", False)]))
            """, hooks="0")
        self.assertEqual(r, [False] * 5)

    def test_os_exit_hands_the_counts_before_finishing(self):
        with open(os.path.join(self.torch_dir, "fake_collector.py"), "w") as f:
            f.write(FAKE_COLLECTOR.replace("atexit.register(", "(").replace("lambda: ", ""))
        r = self.run_py("""
            import fake_collector, json, os, torch
            t = torch.Tensor(1)
            for _ in range(30):
                t.cuda()
            fake_collector.LOG.clear()
            import ctypes
            class Last(ctypes.CDLL):
                def pfprof_collector_finish(self):
                    fake_collector.LOG.append(["finish"])
                    print(json.dumps(fake_collector.LOG), flush=True)
            ctypes.CDLL = Last
            os._exit(4)
            """, env={"CUDA_INJECTION64_PATH": "/x/libpfprof-collector.so"}, want_rc=4)
        # The 17th call, timed as the first looked at, waits for a batch:
        # it goes over before the final count and the finish.
        self.assertEqual([row[0] for row in r], ["call", "site", "finish"])
        self.assertTrue(30 <= r[1][-1] <= 30 + SAMPLE_MAX, r)

    @unittest.skipIf(PFPROF is None, "no pfprof binary given")
    def test_pfprof_record_writes_this_hook(self):
        out = os.path.join(self.dir, "written.py")
        e = {k: v for k, v in os.environ.items() if not k.startswith("PFPROF_")}
        p = subprocess.run([PFPROF, "record", "--quiet", "--", sys.executable, "-c",
                            "import os, shutil, sys; shutil.copy(os.path.join("
                            "os.environ['PFPROF_HOOK_DIR'], 'sitecustomize.py'), sys.argv[1])", out],
                           env=e, cwd=self.dir, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out, encoding="utf-8") as f:
            self.assertEqual(f.read(), self.hook_text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
