#!/usr/bin/env python3
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
    "torch/__init__.py": "from . import cuda\n",
    "torch/cuda/__init__.py": "",
    "torch/cuda/nvtx.py": textwrap.dedent("""\
        log = []
        fail = False
        def range_push(msg):
            if fail:
                raise RuntimeError("nvtx broken")
            log.append(("push", msg))
        def range_pop():
            log.append(("pop",))
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

    def run_py(self, code, torch=True, hooks="1", env=None, args=(), want_rc=0):
        """Runs CODE in a fresh python3 under the hook; returns what it
        printed as the last line, parsed as JSON."""
        e = {k: v for k, v in os.environ.items() if not k.startswith("PFPROF_")}
        e.pop("CUDA_INJECTION64_PATH", None)
        path = [self.hook_dir] + ([self.torch_dir] if torch else [])
        e.update(PYTHONPATH=os.pathsep.join(path), PFPROF_HOOK_DIR=self.hook_dir,
                 PFPROF_PYTHON_HOOKS=hooks, PYTHONDONTWRITEBYTECODE="1")
        e.update(env or {})
        p = subprocess.run([sys.executable, *args, "-c", textwrap.dedent(code)], env=e,
                           cwd=self.dir, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, want_rc, p.stderr)
        lines = p.stdout.strip().splitlines()
        return json.loads(lines[-1]) if lines else None

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
