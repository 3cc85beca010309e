#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test-try.py HOOK FIXES PFPROF

Tests of `pfprof try` without a GPU: the fixes of cli/pfprof_fixes.py
against the fake torch of test-sitecustomize.py (extended here with the
DataLoader's real constructor arguments, the optimizer step hook, pinned
tensors and CUDA streams that log what they are asked to do), and the
command itself, its alternation, statistics and errors, on fake training
programs whose step time depends on the fix.
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

HOOK, FIXES, PFPROF = (os.path.abspath(a) for a in sys.argv[1:4])
HERE = os.path.dirname(os.path.abspath(__file__))
_argv = sys.argv[:]
sys.argv[1:] = [HOOK]
_spec = importlib.util.spec_from_file_location("test_sitecustomize", os.path.join(HERE, "test-sitecustomize.py"))
_base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_base)
sys.argv[:] = _argv[:1]

FAKE_TORCH = dict(_base.FAKE_TORCH)
# Tensors know their device and whether they are pinned; a move logs
# its arguments in torch.LOG.
FAKE_TORCH["torch/__init__.py"] = textwrap.dedent("""\
    from . import cuda
    LOG = []

    class device:
        def __init__(self, kind, index=None):
            if isinstance(kind, device):
                kind, index = kind.type, kind.index
            if isinstance(kind, str) and ':' in kind:
                kind, index = kind.split(':')[0], int(kind.split(':')[1])
            self.type, self.index = kind, index
        def __eq__(self, o):
            return isinstance(o, device) and (self.type, self.index) == (o.type, o.index)
        def __hash__(self):
            return hash((self.type, self.index))
        def __repr__(self):
            return 'device(%s:%s)' % (self.type, self.index)

    class dtype:
        pass
    float16 = dtype()

    class Tensor:
        def __init__(self, v=0, dev='cpu', pinned=False):
            self.v, self.device, self.pinned, self._version = v, device(dev), pinned, 0
        def add_(self, n):
            self.v += n
            self._version += 1
            return self
        def is_pinned(self):
            return self.pinned
        def to(self, *a, **k):
            LOG.append(['to', self.v, [str(x) for x in a], sorted(k.items())])
            d = k.get('device', a[0] if a else None)
            if isinstance(d, dtype) or d is None:
                return Tensor(self.v, self.device, self.pinned)
            return Tensor(self.v, device(d) if not isinstance(d, Tensor) else d.device)
        def cuda(self, *a, **k):
            LOG.append(['cuda', self.v, [str(x) for x in a], sorted(k.items())])
            return Tensor(self.v, 'cuda:0')
        def cpu(self):
            return Tensor(self.v)
        def item(self):
            return self.v
        def pin_memory(self, *a):
            # As torch's: a pinned tensor is its own pinned copy.
            global COPIES
            if self.pinned:
                return self
            COPIES += 1
            return Tensor(self.v, pinned=True)
        def data_ptr(self):
            return id(self)
        def is_contiguous(self):
            return True
        def numel(self):
            return 1 << 20
        def element_size(self):
            return 4
        def reshape(self, *shape):
            return self
        def __getitem__(self, index):
            return self
        def copy_(self, src, non_blocking=False):
            LOG.append(['copy_', src.v, str(cuda.CURRENT), non_blocking])
            self.v = src.v
            return self
        def record_stream(self, s):
            LOG.append(['record_stream'])

    COPIES = 0   # pinned copies made by pin_memory()
    def equal(a, b):
        return a.v == b.v
    def randint(low, high, size):
        return None

    NUM_THREADS = 0
    def get_num_threads():
        return 7
    def set_num_threads(n):
        global NUM_THREADS
        NUM_THREADS = n

    def empty(*size, pin_memory=False):
        return Tensor(len(size))

    def empty_like(t, device=None):
        LOG.append(['empty_like', t.v, str(cuda.CURRENT)])
        return Tensor(None, device)
    """)
FAKE_TORCH["torch/cuda/__init__.py"] = textwrap.dedent("""\
    import torch
    synced = 0
    def synchronize(device=None):
        global synced
        synced += 1
    def current_device():
        return 0
    SET_DEVICE = []   # (device, thread name) of each set_device()
    def set_device(d):
        import threading
        SET_DEVICE.append((d, threading.current_thread().name))
    class Stream:
        def __init__(self, device=None, name='side'):
            self.name = name
        def wait_stream(self, other):
            torch.LOG.append(['wait_stream', self.name, other.name])
        def __str__(self):
            return self.name
    CURRENT = Stream(name='consumer')
    def current_stream(device=None):
        return CURRENT
    class stream:
        def __init__(self, s):
            self.s = s
        def __enter__(self):
            global CURRENT
            self.prev, CURRENT = CURRENT, self.s
        def __exit__(self, *a):
            global CURRENT
            CURRENT = self.prev
    """)
FAKE_TORCH["torch/utils/data/__init__.py"] = textwrap.dedent("""\
    from .dataloader import DataLoader
    class IterableDataset:
        pass
    """)
# The DataLoader's real arguments; batches go through
# _utils.pin_memory.pin_memory when pin_memory=True, as in torch.
# The iterators are torch's: __next__ calls _next_data, which pins when
# the iterator's _pin_memory is set; DataLoader._get_iterator picks the
# single-process one without workers.
FAKE_TORCH["torch/utils/data/dataloader.py"] = textwrap.dedent("""\
    import threading
    from . import _utils
    FETCH_THREADS = []   # the thread of each batch fetched

    class _BaseDataLoaderIter:
        def __init__(self, loader):
            self._items = list(loader.dataset)
            self._pin_memory = loader.pin_memory
            self._pin_memory_device = loader.pin_memory_device
        def __iter__(self):
            return self
        def __next__(self):
            return self._next_data()

    class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
        def _next_data(self):
            FETCH_THREADS.append(threading.current_thread().name)
            if not self._items:
                raise StopIteration
            item = self._items.pop(0)
            if isinstance(item, BaseException):
                raise item
            if callable(item) and not hasattr(item, 'v'):
                item = item()   # a batch made as it is fetched
            if self._pin_memory:
                item = _utils.pin_memory.pin_memory(item, self._pin_memory_device)
            return item

    class _MultiProcessingDataLoaderIter(_SingleProcessDataLoaderIter):
        pass

    class DataLoader:
        def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                     num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                     worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                     prefetch_factor=None, persistent_workers=False, pin_memory_device=''):
            if num_workers == 0 and (prefetch_factor is not None or persistent_workers):
                raise ValueError('prefetch_factor and persistent_workers need num_workers > 0')
            self.dataset, self.num_workers, self.pin_memory = dataset, num_workers, pin_memory
            self.prefetch_factor, self.persistent_workers = prefetch_factor, persistent_workers
            self.pin_memory_device = pin_memory_device
        def __len__(self):
            return len(self.dataset)
        def _get_iterator(self):
            if self.num_workers == 0:
                return _SingleProcessDataLoaderIter(self)
            return _MultiProcessingDataLoaderIter(self)
        def __iter__(self):
            return self._get_iterator()
    """)
FAKE_TORCH["torch/utils/data/_utils/__init__.py"] = "from . import pin_memory\n"
# pin_memory() logs the thread each batch was pinned on; PIN_FAIL makes
# it raise on the batch of that value.
FAKE_TORCH["torch/utils/data/_utils/pin_memory.py"] = textwrap.dedent("""\
    import threading
    import torch
    THREADS = []
    PIN_FAIL = None
    def pin_memory(data, device=None):
        if isinstance(data, torch.Tensor) and data.v == PIN_FAIL:
            raise RuntimeError('cannot pin %s' % data.v)
        THREADS.append(threading.current_thread().name)
        if isinstance(data, torch.Tensor):
            return data.pin_memory()
        if isinstance(data, (list, tuple)):
            return type(data)(pin_memory(d) for d in data)
        if isinstance(data, dict):
            return {k: pin_memory(v) for k, v in data.items()}
        if hasattr(data, 'pin_memory'):
            return data.pin_memory()
        return data
    """)
FAKE_TORCH["torch/optim/__init__.py"] = "from . import optimizer\nfrom .optimizer import SGD\n"
FAKE_TORCH["torch/optim/optimizer.py"] = textwrap.dedent("""\
    _hooks = []
    def register_optimizer_step_post_hook(hook):
        _hooks.append(hook)
    class SGD:
        def step(self):
            for h in _hooks:
                h(self, (), {})
    """)


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="try-test.")
        self.dir = self.tmp.name
        self.hook_dir = os.path.join(self.dir, "hook")
        self.fixes_dir = os.path.join(self.dir, "fixes")
        os.mkdir(self.hook_dir)
        os.mkdir(self.fixes_dir)
        with open(HOOK) as f, open(os.path.join(self.hook_dir, "sitecustomize.py"), "w") as g:
            g.write(f.read())
        with open(FIXES) as f, open(os.path.join(self.fixes_dir, "pfprof_fixes.py"), "w") as g:
            g.write(f.read())
        self.torch_dir = os.path.join(self.dir, "site")
        for path, text in FAKE_TORCH.items():
            full = os.path.join(self.torch_dir, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(text)

    def tearDown(self):
        self.tmp.cleanup()

    def clean_env(self):
        e = {k: v for k, v in os.environ.items() if not k.startswith("PFPROF_")}
        e.pop("CUDA_INJECTION64_PATH", None)
        e["PYTHONDONTWRITEBYTECODE"] = "1"
        return e


class FixesTest(Base):
    def run_py(self, code, fixes=None, steps=None):
        """CODE under the hook with FIXES; returns (its last JSON line,
        the notes)."""
        e = self.clean_env()
        notes = os.path.join(self.dir, "notes")
        if os.path.exists(notes):
            os.unlink(notes)   # each run's own
        e.update(PYTHONPATH=os.pathsep.join([self.hook_dir, self.fixes_dir, self.torch_dir]),
                 PFPROF_HOOK_DIR=self.hook_dir, PFPROF_PYTHON_HOOKS="0", PFPROF_TRY_NOTES=notes)
        if fixes:
            e["PFPROF_TRY_FIXES"] = fixes
        if steps:
            e["PFPROF_TRY_STEPS"] = steps
        p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=e, cwd=self.dir,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        got = []
        if os.path.exists(notes):
            with open(notes) as f:
                got = [line.rstrip("\n").split("\t") for line in f]
        return json.loads(p.stdout.strip().splitlines()[-1]), got

    LOADER = """
        import json, sys, torch
        from torch.utils.data import DataLoader
        dl = DataLoader([torch.Tensor(1)], %s)
        print(json.dumps({"pin": dl.pin_memory, "workers": dl.num_workers, "prefetch": dl.prefetch_factor,
                          "persistent": dl.persistent_workers,
                          "path": any("fixes" in p for p in sys.path)}))
        """

    def test_no_fix_changes_nothing(self):
        r, notes = self.run_py(self.LOADER % "num_workers=2", steps=os.path.join(self.dir, "s-%p"))
        self.assertEqual(r, {"pin": False, "workers": 2, "prefetch": None, "persistent": False, "path": False})
        self.assertEqual(notes, [])

    def test_loader_arguments(self):
        r, notes = self.run_py(self.LOADER % "2, False, num_workers=2",
                               fixes="pin-memory,workers=8,persistent-workers,prefetch-factor=4")
        self.assertEqual(r, {"pin": True, "workers": 8, "prefetch": 4, "persistent": True, "path": False})
        self.assertEqual(sorted(n[1] for n in notes if n[0] == "applied"),
                         ["persistent-workers", "pin-memory", "prefetch-factor", "workers"])

    PIN_LOOP = """
        import json, threading, torch
        from torch.utils.data import DataLoader, dataloader
        from torch.utils.data._utils import pin_memory as pm
        items = [[torch.Tensor(i), torch.Tensor(10 + i)] for i in range(5)]
        %s
        got = []
        it = iter(DataLoader(items, %s))
        while True:
            try:
                x, y = next(it)
            except KeyError:
                got.append("KeyError")
                continue
            except StopIteration:
                break
            got.append([x.v, x.pinned, y.v, y.pinned])
        print(json.dumps({"got": got, "pinned_on": sorted(set(pm.THREADS)),
                          "fetched_on": sorted(set(dataloader.FETCH_THREADS)),
                          "set_device": torch.cuda.SET_DEVICE, "num_threads": torch.NUM_THREADS}))
        """

    def test_pinning_without_workers_moves_to_a_thread(self):
        r, notes = self.run_py(self.PIN_LOOP % ("", "num_workers=0"), fixes="pin-memory")
        # Every batch, in order, pinned on the hook's thread; fetched on the
        # program's own, where its dataset code ran before.
        self.assertEqual(r["got"], [[i, True, 10 + i, True] for i in range(5)])
        self.assertEqual(r["pinned_on"], ["pfprof-try-pin"])
        self.assertEqual(r["fetched_on"], ["MainThread"])
        # The pin thread sets the loop's device and its intra-op threads.
        self.assertEqual(r["set_device"], [[0, "pfprof-try-pin"]])
        self.assertEqual(r["num_threads"], 7)
        text = [n[2] for n in notes if n[:2] == ["applied", "pin-memory"]]
        self.assertEqual(len(text), 1, notes)
        self.assertTrue(text[0].startswith("pin_memory=True; the DataLoader has no worker processes"), text)
        self.assertIn("pins each batch on a thread of its own", text[0])

    POOL_LOOP = """
        import json, torch
        from torch.utils.data import DataLoader
        pool = [torch.Tensor(i) for i in range(3)]
        got, kept = [], []
        for k, x in enumerate(DataLoader(pool * 3, num_workers=0)):
            got.append([x.v, x.pinned])
            %s
        print(json.dumps({"got": got, "copies": torch.COPIES}))
        """

    def test_a_tensor_handed_out_again_reuses_its_pinned_copy(self):
        # A pool of three tensors, three times: each pinned once.
        r, notes = self.run_py(self.POOL_LOOP % "", fixes="pin-memory")
        self.assertEqual(r["got"], [[i % 3, True] for i in range(9)])
        self.assertEqual(r["copies"], 3)
        self.assertIn(["applied", "pin-memory", "tensors the dataset hands out again get the pinned copy made of "
                       "them before"], notes)

    def test_a_pinned_copy_is_not_reused_when_it_would_differ(self):
        cases = (
            # The program keeps its batches: a new one must not alias them.
            ("kept.append(x)", [[i % 3, True] for i in range(9)], 9),
            # The dataset's tensor changed in place: pinned again, new values.
            ("pool[0].add_(100) if k == 2 else None", [[0, True], [1, True], [2, True], [100, True], [1, True],
                                                        [2, True], [100, True], [1, True], [2, True]], 4),
            # Changed where its version does not see it (through numpy).
            ("setattr(pool[1], 'v', 50) if k == 2 else None", [[0, True], [1, True], [2, True], [0, True],
                                                               [50, True], [2, True], [0, True], [50, True],
                                                               [2, True]], 4),
            # The program changed the pinned batch it got in place.
            ("x.add_(1000) if k == 0 else None", [[0, True], [1, True], [2, True], [0, True], [1, True],
                                                  [2, True], [0, True], [1, True], [2, True]], 4),
        )
        for body, got, copies in cases:
            r, notes = self.run_py(self.POOL_LOOP % body, fixes="pin-memory")
            self.assertEqual(r["got"], got, body)
            self.assertEqual(r["copies"], copies, body)

    def test_the_next_batch_is_fetched_after_the_last_is_pinned(self):
        # A dataset that refills one buffer: the pin thread must be done
        # copying it before the next fetch refills it.
        r, _ = self.run_py("""
            import json, threading, time, torch
            from torch.utils.data import DataLoader, dataloader
            from torch.utils.data._utils import pin_memory as pm
            pinning, overlaps = [0], []
            orig = pm.pin_memory
            def slow_pin(data, *a):
                pinning[0] += 1
                time.sleep(0.05)
                try:
                    return orig(data, *a)
                finally:
                    pinning[0] -= 1
            pm.pin_memory = slow_pin
            buf, n = torch.Tensor(-1), [0]
            def refill():
                overlaps.append(pinning[0])
                buf.v = n[0]
                n[0] += 1
                return buf
            got = [x.v for x in DataLoader([refill] * 4, num_workers=0)]
            print(json.dumps({"got": got, "overlaps": overlaps}))
            """, fixes="pin-memory")
        self.assertEqual(r["got"], [0, 1, 2, 3])
        self.assertEqual(r["overlaps"], [0, 0, 0, 0])

    def test_pinning_with_workers_is_the_dataloaders(self):
        for fixes, args in (("pin-memory", "num_workers=2"), ("pin-memory,workers=4", "num_workers=0")):
            r, notes = self.run_py(self.PIN_LOOP % ("", args), fixes=fixes)
            self.assertIn(["applied", "pin-memory", "pin_memory=True"], notes)
            self.assertEqual(r["got"], [[i, True, 10 + i, True] for i in range(5)])
            self.assertEqual(r["pinned_on"], ["MainThread"])   # the fake's, where torch has a pin thread
            self.assertEqual(r["set_device"], [])

    def test_pin_thread_only_with_the_fix(self):
        r, notes = self.run_py(self.PIN_LOOP % ("", "pin_memory=True"))
        self.assertEqual(r["pinned_on"], ["MainThread"])
        # A loader the program pins itself pins on the hook's thread too.
        r, notes = self.run_py(self.PIN_LOOP % ("", "pin_memory=True"), fixes="pin-memory")
        self.assertEqual(r["pinned_on"], ["pfprof-try-pin"])
        r, notes = self.run_py(self.PIN_LOOP % ("", "num_workers=0"))
        self.assertEqual(r["got"], [[i, False, 10 + i, False] for i in range(5)])
        self.assertEqual((r["pinned_on"], notes), ([], []))

    def test_pin_thread_passes_the_loaders_errors_on_in_order(self):
        r, notes = self.run_py(self.PIN_LOOP.replace('for i in range(5)]', 'for i in range(5)]; items[2] = KeyError(2)')
                               % ("", "num_workers=0"), fixes="pin-memory")
        self.assertEqual(r["got"], [[0, True, 10, True], [1, True, 11, True], "KeyError",
                                    [3, True, 13, True], [4, True, 14, True]])
        self.assertEqual([n[0] for n in notes], ["applied"])

    def test_a_pin_that_raises_hands_the_batch_out_unpinned(self):
        r, notes = self.run_py(self.PIN_LOOP % ("pm.PIN_FAIL = 2", "num_workers=0"), fixes="pin-memory")
        self.assertEqual([g[0] for g in r["got"]], [0, 1, 2, 3, 4])   # none lost, none repeated
        self.assertEqual(r["got"][2][1], False)
        self.assertIn(["error", "pin-memory", "RuntimeError: cannot pin 2"], notes)

    def test_without_the_dataloaders_iterator_the_main_thread_pins(self):
        # A torch whose DataLoader has no _get_iterator: pinned as torch
        # does it without workers, and said.
        path = os.path.join(self.torch_dir, "torch/utils/data/dataloader.py")
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(text.replace("def _get_iterator(self):", "def _iterator(self):")
                    .replace("return self._get_iterator()", "return self._iterator()"))
        r, notes = self.run_py(self.PIN_LOOP % ("", "num_workers=0"), fixes="pin-memory")
        self.assertEqual(r["got"], [[i, True, 10 + i, True] for i in range(5)])
        self.assertEqual(r["pinned_on"], ["MainThread"])
        text = [n[2] for n in notes if n[:2] == ["applied", "pin-memory"]]
        self.assertIn("pinned on the main thread", text[0])

    def test_positional_arguments_are_replaced_not_doubled(self):
        # num_workers is the sixth positional parameter, pin_memory the eighth.
        r, notes = self.run_py(self.LOADER % "1, None, None, None, 0, None, False",
                               fixes="pin-memory,workers=3")
        self.assertEqual((r["pin"], r["workers"]), (True, 3))

    def test_worker_options_need_workers(self):
        r, notes = self.run_py(self.LOADER % "num_workers=0", fixes="persistent-workers,prefetch-factor=4")
        self.assertEqual((r["persistent"], r["prefetch"], r["workers"]), (False, None, 0))
        self.assertEqual(sorted((n[0], n[1]) for n in notes),
                         [("off", "persistent-workers"), ("off", "prefetch-factor")])

    def test_iterable_dataset_gets_no_workers(self):
        r, notes = self.run_py("""
            import json, torch
            from torch.utils.data import DataLoader, IterableDataset
            class Stream(IterableDataset, list):
                pass
            dl = DataLoader(Stream([1]))
            print(json.dumps(dl.num_workers))
            """, fixes="workers=4")
        self.assertEqual(r, 0)
        self.assertEqual(notes[0][:2], ["off", "workers"])

    def test_unpinnable_batch_type_is_reported(self):
        r, notes = self.run_py("""
            import json, torch
            from torch.utils.data import DataLoader
            class Batch:
                pass
            class Pinnable:
                def pin_memory(self):
                    return self
            out = [type(b).__name__ for b in DataLoader([Batch(), Pinnable(), [torch.Tensor(1)]])]
            print(json.dumps(out))
            """, fixes="pin-memory")
        self.assertEqual(r, ["Batch", "Pinnable", "list"])
        unpinnable = [n for n in notes if n[0] == "unpinnable"]
        self.assertEqual(len(unpinnable), 1, notes)
        self.assertIn("__main__.Batch has no pin_memory()", unpinnable[0][2])

    def test_step_timer(self):
        steps = os.path.join(self.dir, "steps-%p")
        r, _ = self.run_py("""
            import json, os, torch
            from torch.optim import SGD
            from torch.utils.data import DataLoader
            opt = SGD()
            for b in DataLoader([1, 2, 3]):
                opt.step()
            print(json.dumps(os.getpid()))
            """, steps=steps)
        base = steps.replace("%p", str(r))
        with open(base) as f:
            opt = [int(x) for x in f]
        with open(base + ".loader") as f:
            loader = [int(x) for x in f]
        self.assertEqual(len(opt), 3)
        self.assertEqual(len(loader), 4)   # three batches and the StopIteration
        self.assertEqual(opt, sorted(opt))

    NONBLOCKING = """
        import json, torch
        from torch.utils.data import DataLoader
        for b in DataLoader([[torch.Tensor(1), torch.Tensor(2)]], pin_memory=%s):
            b[0].to("cuda"); b[1].cuda(); b[0].to(torch.float16)
        gpu = torch.Tensor(3, "cuda:0"); gpu.to("cpu")
        mine = torch.Tensor(4, pinned=True); mine.to("cuda")
        print(json.dumps(torch.LOG))
        """

    def test_non_blocking_only_for_pinned_batches_to_the_gpu(self):
        r, notes = self.run_py(self.NONBLOCKING % "True", fixes="non-blocking")
        self.assertEqual(r[:2], [["to", 1, ["cuda"], [["non_blocking", True]]],
                                 ["cuda", 2, [], [["non_blocking", True]]]])
        self.assertEqual(r[2][3], [], "a dtype-only .to() made non-blocking")
        # Device to host, and a pinned tensor not from the DataLoader: as they were.
        self.assertEqual(r[3:], [["to", 3, ["cpu"], []], ["to", 4, ["cuda"], []]])
        self.assertEqual([n[:2] for n in notes], [["applied", "non-blocking"]])

    def test_non_blocking_leaves_pageable_batches(self):
        r, notes = self.run_py(self.NONBLOCKING % "False", fixes="non-blocking")
        self.assertEqual([row[3] for row in r], [[]] * 5)

    PREFETCH = """
        import json, torch
        from torch.utils.data import DataLoader
        got = []
        for x, y in DataLoader([[torch.Tensor(i), torch.Tensor(10 + i)] for i in range(5)], pin_memory=True):
            torch.LOG.append(['step', x.v])
            g = x.to("cuda", non_blocking=True)
            got.append([g.v, g.device.type, y.v])
        print(json.dumps({"got": got, "log": torch.LOG}))
        """

    def test_prefetch_copies_one_batch_ahead_on_a_side_stream(self):
        r, notes = self.run_py(self.PREFETCH, fixes="prefetch")
        # The program sees the same values on the same device.
        self.assertEqual(r["got"], [[i, "cuda", 10 + i] for i in range(5)])
        log = r["log"]
        steps = [i for i, row in enumerate(log) if row[0] == "step"]
        # The first two batches are watched, moved by the program itself.
        self.assertEqual(log[steps[0] + 1][0], "to")
        self.assertEqual(log[steps[1] + 1][0], "to")
        # From the third on: batch 3 and 4 copied before step 3 is seen.
        copies = [row for row in log if row[0] == "copy_"]
        self.assertEqual([c[1] for c in copies], [2, 3, 4])
        for c in copies:
            self.assertEqual(c[2:], ["side", True])
        first = log.index(copies[1])
        self.assertLess(first, steps[2], "batch 3 was not copied ahead of step 3")
        # Allocated on the consumer stream, side waits for consumer before
        # the copy, consumer waits for side before use, no record_stream.
        for i, row in enumerate(log):
            if row[0] == "empty_like":
                self.assertEqual(row[2], "consumer")
                self.assertEqual(log[i + 1], ["wait_stream", "side", "consumer"])
        for s in steps[2:]:
            self.assertEqual(log[s + 1], ["wait_stream", "consumer", "side"])
        self.assertNotIn(["record_stream"], log)
        # y, never moved, is never copied.
        self.assertFalse(any(row[0] == "copy_" and row[1] >= 10 for row in log))
        self.assertIn(["applied", "prefetch", "1 tensors a batch"], notes)

    def test_prefetch_of_a_tensor_changed_in_place_is_not_used(self):
        r, notes = self.run_py(self.PREFETCH.replace('torch.LOG.append([\'step\', x.v])',
                                                     'x.add_(100) if x.v == 3 else None'), fixes="prefetch")
        self.assertEqual([g[0] for g in r["got"]], [0, 1, 2, 103, 4])

    def test_prefetch_off_when_the_loop_moves_nothing_alike(self):
        r, notes = self.run_py("""
            import json, torch
            from torch.utils.data import DataLoader
            for i, (x,) in enumerate(DataLoader([[torch.Tensor(i)] for i in range(4)], pin_memory=True)):
                if i == 1:
                    x.to("cuda")
            print(json.dumps(torch.LOG))
            """, fixes="prefetch")
        self.assertFalse(any(row[0] == "copy_" for row in r))
        self.assertEqual([n[:2] for n in notes], [["off", "prefetch"]])

    def test_prefetch_needs_pinned_batches(self):
        r, notes = self.run_py(self.PREFETCH.replace("pin_memory=True", "pin_memory=False"), fixes="prefetch")
        self.assertEqual(r["got"], [[i, "cuda", 10 + i] for i in range(5)])
        self.assertFalse(any(row[0] == "copy_" for row in r["log"]))
        self.assertIn("pinned", notes[0][2])

    def test_prefetch_passes_the_loaders_errors_on_in_order(self):
        r, notes = self.run_py("""
            import json, torch
            from torch.utils.data import DataLoader
            items = [[torch.Tensor(i)] for i in range(3)] + [KeyError("bad"), [torch.Tensor(4)]]
            got = []
            it = iter(DataLoader(items, pin_memory=True))
            while True:
                try:
                    (x,) = next(it)
                except KeyError:
                    got.append("KeyError")
                    continue
                except StopIteration:
                    break
                got.append(x.to("cuda").v)
            print(json.dumps(got))
            """, fixes="prefetch")
        self.assertEqual(r, [0, 1, 2, "KeyError", 4])

    IDEAL = """
        import json, sys, torch
        from torch.utils.data import DataLoader
        made = []
        import dataclasses
        @dataclasses.dataclass(frozen=True)
        class Batch:   # a batch type of the program's, without pin_memory()
            x: torch.Tensor
        def item(i):
            def make():
                made.append(i)
                return (torch.Tensor(i), {"y": torch.Tensor(10 + i), "name": "s%d" % i}, Batch(torch.Tensor(20 + i)))
            return make
        SETUP
        dl = DataLoader([item(i) for i in range(5)])
        out = [[b[0].v for b in dl] for epoch in range(2)]
        b = next(iter(dl))
        print(json.dumps({"out": out, "made": made, "len": len(iter(dl)), "name": b[1]["name"],
                          "pinned": [b[0].pinned, b[1]["y"].pinned, b[2].x.pinned, b[2].x.v],
                          "custom": type(b[2]).__name__}))
        """

    def test_ideal_input_replays_the_first_batches_pinned(self):
        r, notes = self.run_py(self.IDEAL.replace("SETUP", ""), fixes="ideal-input=2")
        # Each pass as long as the DataLoader's, of its first two batches;
        # only those two were ever made.
        self.assertEqual(r["out"], [[0, 1, 0, 1, 0], [0, 1, 0, 1, 0]])
        self.assertEqual(r["made"], [0, 1])
        self.assertEqual(r["len"], 5)
        self.assertEqual((r["pinned"], r["name"], r["custom"]), ([True, True, True, 20], "s0", "Batch"))
        self.assertEqual(notes, [["applied", "ideal-input",
                                  "a DataLoader of 5 batches a pass: its first 2 kept (pinned) and replayed"]])
        # K defaults to 8: a DataLoader of 5 batches keeps them all.
        r, notes = self.run_py(self.IDEAL.replace("SETUP", ""), fixes="ideal-input")
        self.assertEqual((r["out"], r["made"]), ([[0, 1, 2, 3, 4]] * 2, [0, 1, 2, 3, 4]))
        self.assertIn("its first 5 kept (pinned) and replayed (a pass shorter than 8 batches)", notes[0][2])

    def test_ideal_input_keeps_at_most_its_cap(self):
        # Each fake tensor is 4 MiB, a batch 12 MiB: a cap of 30 MiB holds two.
        r, notes = self.run_py(self.IDEAL.replace("SETUP", "sys.modules['pfprof_fixes'].active.ideal.limit = 30 << 20"),
                               fixes="ideal-input=4")
        # Batch n of a pass is kept batch n modulo the number kept.
        self.assertEqual(r["out"], [[0, 1, 2, 1, 0], [0, 1, 0, 1, 0]])
        self.assertEqual(r["made"], [0, 1, 2])
        self.assertIn("its first 2 kept (pinned) and replayed (the cap of 30 MiB reached)", notes[0][2])

    def test_ideal_input_reads_a_loader_without_len_as_it_is(self):
        r, notes = self.run_py("""
            import json, torch
            from torch.utils.data import DataLoader, IterableDataset
            class Stream(IterableDataset):
                def __iter__(self):
                    return iter([torch.Tensor(i) for i in range(3)])
            dl = DataLoader(Stream())
            print(json.dumps([[b.v for b in dl] for epoch in range(2)]))
            """, fixes="ideal-input")
        self.assertEqual(r, [[0, 1, 2], [0, 1, 2]])
        self.assertEqual(notes[0][:2], ["off", "ideal-input"])
        self.assertIn("without len() (Stream) is read as it is", notes[0][2])

    def test_a_fix_that_raises_is_reported_and_abandoned(self):
        r, notes = self.run_py("""
            import json, torch
            from torch.utils.data import DataLoader
            torch.cuda.current_device = None   # breaks target_device
            out = [b.to("cuda").v for b in DataLoader([torch.Tensor(1), torch.Tensor(2)], pin_memory=True)]
            print(json.dumps(out))
            """, fixes="non-blocking")
        self.assertEqual(r, [1, 2])
        self.assertEqual(notes[0][:2], ["error", "non-blocking"])
        self.assertEqual(len(notes), 1)


# Fake training programs: one step is one optimizer.step(), whose time
# depends on the DataLoader's pin_memory (arm B of --fix pin-memory).
TRAIN = textwrap.dedent("""\
    import os, sys, time, torch
    from torch.optim import SGD
    from torch.utils.data import DataLoader
    mode = sys.argv[1]
    count = os.path.join(os.path.dirname(os.path.abspath(__file__)), "count")
    n = len(open(count).read()) if os.path.exists(count) else 0
    open(count, "a").write("x")
    def fetch(i):
        # A batch that takes 10 ms to make (mode input) or none (input-free).
        def make():
            time.sleep(0.010 if mode == "input" else 0)
            return torch.Tensor(i)
        return make
    dl = DataLoader([fetch(i) if mode.startswith("input") else torch.Tensor(i) for i in range(12)])
    fast = dl.pin_memory or mode.startswith("input")
    if mode == "crash-b" and fast:
        raise SystemExit("the fix broke me")
    if mode == "crash-a":
        sys.exit(5)
    if mode == "flip":
        # B faster in the first round, slower in the second.
        fast = fast == (n < 2)
    opt = SGD()
    import random
    rng = random.Random(os.getpid())
    for i, b in enumerate(dl):
        time.sleep(0.002 if fast else 0.012)
        opt.step()
        # A loss that falls, with noise below the 2% floor.
        loss = 2.0 / (1 + i) * (1 + rng.uniform(-0.003, 0.003))
        if mode == "loss-bad" and fast:
            loss = 2.3
        if mode == "loss-wild":
            # Unmodified runs that print losses of a different scale each.
            loss *= 1 + n
        if mode == "loss-nan" and fast and i > 6:
            loss = float("nan")
        if mode.startswith("input") and os.environ.get("PFPROF_TRY_FIXES"):
            loss = 9.0   # replayed batches: not the program's loss
        if (mode.startswith("loss") or mode.startswith("input")) and not (mode == "loss-none" and fast):
            print(f"step {i} loss: {loss:.5f} lr 0.1", flush=True)
    if mode == "loss-eval":
        # Evaluation lines whose losses vary from 6.9 to 1815 between
        # unmodified runs (pytorch/examples imagenet main.py --dummy), and
        # the evaluation losses of Lightning and of Hugging Face.
        wild = (6.9, 1815.0, 41.2, 310.5, 12.0, 905.3)[n % 6]
        print(f"Test: [  0/196]\tTime  0.101 ( 0.101)\tLoss {wild:.4e} ({wild:.4e})\tAcc@1   0.00 (  0.00)",
              flush=True)
        print(" * Acc@1 0.100 Acc@5 0.500", flush=True)
        print(f"Epoch 0: 100%|##########| 12/12 [00:01<00:00, v_num=0, val_loss={wild:.3f}]", flush=True)
        print(f"{{'eval_loss': {wild}, 'eval_runtime': 1.0, 'epoch': 1.0}}", flush=True)
        print(f"Validation loss: {wild}", flush=True)
    if mode == "loss-formats":
        # Each of these is read as one loss; the last four are not
        # training losses.
        for line in ("{'loss': 0.5, 'learning_rate': 1e-05}", "train_loss=0.5", "Loss 5e-1",
                     "loss tensor(0.5000, device='cuda:0', grad_fn=<NllLossBackward0>)",
                     "lossy 3", "loss_scale: 65536", "loss: none", "epoch 3: val_loss = .5 acc 0.9"):
            print(line, flush=True)
    print("done", mode, flush=True)
    open(os.path.join(os.path.dirname(count), "written"), "w").write(str(dl.pin_memory))
    """)


class TryTest(Base):
    def pfprof_try(self, *args, mode="ok", want_rc=0):
        with open(os.path.join(self.dir, "train.py"), "w") as f:
            f.write(TRAIN)
        e = self.clean_env()
        e["PYTHONPATH"] = self.torch_dir
        p = subprocess.run([PFPROF, "try", *args, "--", sys.executable, "train.py", mode], env=e, cwd=self.dir,
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, want_rc, p.stdout + p.stderr)
        return p

    TRACES = os.path.join(os.path.dirname(os.path.dirname(HERE)), "samples", "traces")

    def traced_try(self, trace, label, var, *options):
        """`pfprof try --traced --rounds 1 --format json OPTIONS` of a stand-in
        for a traced program: under `pfprof record` it puts the committed
        trace that the Python expression TRACE names where the collector
        would, and prints LABEL and the variable VAR. Returns the process."""
        prog = os.path.join(self.dir, "fake.py")
        with open(prog, "w") as f:
            f.write(textwrap.dedent(f"""\
                import os, shutil, sys
                shutil.copy(os.path.join(sys.argv[1], {trace}),
                            os.environ["PFPROF_OUTPUT"].replace("%p", str(os.getpid())))
                print({label!r}, os.environ.get({var!r}), flush=True)
                """))
        return subprocess.run([PFPROF, "try", "--traced", *options, "--rounds", "1", "--format", "json", "--",
                               sys.executable, prog, self.TRACES], env=self.clean_env(), cwd=self.dir,
                              capture_output=True, text=True, timeout=120)

    def test_faster_with_the_fix(self):
        p = self.pfprof_try("--fix", "pin-memory", "--rounds", "2", "--format", "json")
        r = json.loads(p.stdout[p.stdout.index("{"):])
        self.assertEqual([(x["arm"], x["round"]) for x in r["runs"]], [("B", 1), ("A", 1), ("B", 2), ("A", 2)])
        self.assertEqual(r["step_source"], "optimizer.step")
        self.assertEqual(r["difference"]["verdict"], "faster")
        self.assertTrue(8e6 < r["a"]["median_ns"] < 40e6, r["a"])
        self.assertTrue(1e6 < r["b"]["median_ns"] < 8e6, r["b"])
        # 12 steps, 11 intervals, the first quarter left out.
        self.assertEqual({x["steps"] for x in r["runs"]}, {9})
        self.assertIn("pin-memory", [n["fix"] for n in r["notes"] if n["state"] == "applied"])
        # The user saw one run's output: the first unmodified one; the
        # last run was the unmodified program, and left its files.
        self.assertEqual(p.stdout.count("done ok"), 1)
        with open(os.path.join(self.dir, "written")) as f:
            self.assertEqual(f.read(), "False")
        with open(r["runs"][0]["log"]) as f:
            self.assertIn("done ok", f.read())
        self.assertIsNone(r["runs"][1]["log"])

    def test_text_and_markdown(self):
        p = self.pfprof_try("--fix", "pin-memory", "--rounds", "2")
        self.assertIn("Result: faster by", p.stdout)
        self.assertIn("A: as it is", p.stdout)
        p = self.pfprof_try("--fix", "pin-memory", "--rounds", "2", "--format", "markdown")
        self.assertIn("| B: with the fix | 2 |", p.stdout)
        self.assertIn("**Result:** faster", p.stdout)

    def test_rounds_that_disagree_are_inconclusive(self):
        p = self.pfprof_try("--fix", "pin-memory", "--rounds", "2", "--format", "json", mode="flip")
        r = json.loads(p.stdout[p.stdout.index("{"):])
        self.assertEqual(r["difference"]["verdict"], "inconclusive")
        self.assertIn("disagree", r["difference"]["why"])

    def test_one_round_is_inconclusive(self):
        p = self.pfprof_try("--fix", "pin-memory", "--rounds", "1")
        self.assertIn("inconclusive: one round", p.stdout)

    def test_a_fix_that_crashes_the_program_is_abandoned(self):
        p = self.pfprof_try("--fix", "pin-memory", "--format", "json", mode="crash-b")
        r = json.loads(p.stdout[p.stdout.index("{"):])
        self.assertEqual(r["difference"]["verdict"], "abandoned")
        self.assertEqual([x["arm"] for x in r["runs"]], ["B", "A", "A", "A"])
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("failed (exit 1) with the fix", p.stderr)

    def try_json(self, *args, **kw):
        p = self.pfprof_try(*args, "--format", "json", **kw)
        return p, json.loads(p.stdout[p.stdout.index('{"format"'):])

    def test_a_loss_within_the_noise_is_the_same(self):
        p, r = self.try_json("--fix", "pin-memory", mode="loss-same")
        self.assertEqual(r["difference"]["verdict"], "faster")
        loss = r["loss"]
        # The first unmodified run, shown on the terminal, is not read.
        self.assertEqual((loss["verdict"], loss["a_runs"], loss["b_runs"], loss["values"]), ("same", 2, 3, 12))
        self.assertTrue(loss["all"]["a_min"] <= loss["all"]["a_max"] < loss["all"]["a_min"] * 1.01, loss)
        self.assertEqual(p.stderr, "")
        p = self.pfprof_try("--fix", "pin-memory", mode="loss-same")
        self.assertIn("Loss: within the noise: the last quarter's mean loss ", p.stdout)

    def test_a_loss_that_changes_abandons_the_fix(self):
        p, r = self.try_json("--fix", "pin-memory", "--rounds", "4", mode="loss-bad")
        self.assertEqual(r["difference"]["verdict"], "abandoned")
        self.assertIn("the loss changed with the fix", r["difference"]["why"])
        self.assertEqual(r["loss"]["verdict"], "changed")
        self.assertEqual(r["loss"]["last_quarter"]["b_min"], 2.3)
        # Judged once two unmodified runs were read (round 3): no B after.
        self.assertEqual([(x["arm"], x["round"]) for x in r["runs"]],
                         [("B", 1), ("A", 1), ("B", 2), ("A", 2), ("B", 3), ("A", 3), ("A", 4)])
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("the loss changed with the fix: the last quarter's mean loss", p.stderr)
        self.assertIn("2.3000 with it", p.stderr)
        # The last run is still the unmodified program's.
        with open(os.path.join(self.dir, "written")) as f:
            self.assertEqual(f.read(), "False")

    def test_a_loss_that_becomes_nan_or_stops_abandons_the_fix(self):
        for mode, words in (("loss-nan", "NaN or infinite with the fix"),
                            ("loss-none", "printed no loss")):
            os.path.exists(os.path.join(self.dir, "count")) and os.unlink(os.path.join(self.dir, "count"))
            p, r = self.try_json("--fix", "pin-memory", mode=mode)
            self.assertEqual((r["difference"]["verdict"], r["loss"]["verdict"]), ("abandoned", "changed"), (mode, r))
            self.assertIn(words, r["loss"]["why"], mode)

    def test_losses_need_two_unmodified_runs(self):
        p, r = self.try_json("--fix", "pin-memory", "--rounds", "2", mode="loss-bad")
        self.assertEqual(r["loss"]["verdict"], "not compared")
        self.assertIn("no measure of their noise", r["loss"]["why"])
        self.assertEqual(r["difference"]["verdict"], "faster")
        # A program that prints no loss: nothing said about it.
        p, r = self.try_json("--fix", "pin-memory", "--rounds", "2")
        self.assertEqual(r["loss"]["verdict"], "none")
        p = self.pfprof_try("--fix", "pin-memory", "--rounds", "2")
        self.assertNotIn("Loss:", p.stdout)

    def test_evaluation_losses_are_left_out(self):
        p, r = self.try_json("--fix", "pin-memory", mode="loss-eval")
        self.assertEqual((r["loss"]["verdict"], r["loss"]["values"]), ("same", 12), r["loss"])
        self.assertEqual(r["difference"]["verdict"], "faster")
        self.assertEqual(p.stderr, "")

    def test_unmodified_losses_too_far_apart_cannot_be_judged(self):
        p, r = self.try_json("--fix", "pin-memory", mode="loss-wild")
        self.assertEqual(r["loss"]["verdict"], "cannot judge", r["loss"])
        self.assertIn("mean loss of the unmodified runs alone spans", r["loss"]["why"])
        self.assertIn("more than 20% of its middle apart", r["loss"]["why"])
        # The fix is kept and measured: every round ran it.
        self.assertEqual(r["difference"]["verdict"], "faster")
        self.assertEqual([x["arm"] for x in r["runs"]], ["B", "A"] * 3)
        self.assertEqual(p.stderr, "")
        os.unlink(os.path.join(self.dir, "count"))
        p = self.pfprof_try("--fix", "pin-memory", mode="loss-wild")
        self.assertIn("Loss: cannot judge the loss, the speed verdict stands: ", p.stdout)
        self.assertIn("Result: faster by", p.stdout)

    def test_the_forms_a_loss_is_printed_in(self):
        p, r = self.try_json("--fix", "pin-memory", mode="loss-formats")
        self.assertEqual(r["loss"]["values"], 12 + 4, r["loss"])
        self.assertEqual(r["loss"]["verdict"], "same")
        self.assertAlmostEqual(r["loss"]["last_quarter"]["a_min"], 0.5, places=6)

    def test_a_program_without_steps_says_what_ran(self):
        e = self.clean_env()
        p = subprocess.run([PFPROF, "try", "--fix", "pin-memory", "--", sys.executable, "-c", "print(1)"], env=e,
                           cwd=self.dir, capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("pfprof try: pin-memory (3 rounds, 6 runs, no step measured in any)", p.stdout)
        self.assertIn("Result: inconclusive: no step measured: none of the 6 runs called optimizer.step() or took "
                      "a batch from a torch DataLoader in Python", p.stdout)
        self.assertNotIn("over 0 rounds", p.stdout)

    def test_ideal_input_measures_the_step_with_free_input(self):
        p, r = self.try_json("--fix", "ideal-input=2", mode="input")
        self.assertEqual(r["fixes"], "ideal-input=2")
        self.assertEqual(r["difference"]["verdict"], "faster")
        self.assertTrue(8e6 < r["a"]["median_ns"] < 40e6, r["a"])
        self.assertTrue(1e6 < r["b"]["median_ns"] < 8e6, r["b"])
        ideal = r["ideal_input"]
        self.assertEqual(ideal["step_ns"], r["b"]["mean_ns"])
        self.assertAlmostEqual(ideal["change_pct"], 100 * (r["b"]["mean_ns"] - r["a"]["mean_ns"]) / r["a"]["mean_ns"],
                               places=0)
        self.assertTrue(ideal["input_fix_pays"])
        # Arm B's loss differs on purpose: not checked, not abandoned.
        self.assertEqual(r["loss"]["verdict"], "not checked")
        self.assertEqual([x["arm"] for x in r["runs"]], ["B", "A"] * 3)
        self.assertEqual(p.stderr, "")
        p = self.pfprof_try("--fix", "ideal-input=2", mode="input")
        self.assertRegex(p.stdout, r"\n  A perfect input pipeline would make the step [0-9.]+ ms \(-[0-9.]+%\): no input "
                                   r"fix can beat it\n")
        self.assertIn("  Loss: not checked: arm B replays the program's first batches on purpose", p.stdout)
        self.assertRegex(p.stdout, r"\n  B: free input +3 ")

    def test_ideal_input_says_when_input_fixes_do_not_pay(self):
        p = self.pfprof_try("--fix", "ideal-input", mode="input-free")
        self.assertRegex(p.stdout, r"A perfect input pipeline would make the step [0-9.]+ ms \([-+][0-9.]+%\): no input "
                                   r"fix can beat it; with free input the step is not (5% |measurably )?shorter, so "
                                   r"optimizing the input will not pay\n")

    def test_input_starved_suggests_ideal_input(self):
        p = self.traced_try('"e_slow_loader_fix.pfprof" if os.environ.get("PFPROF_TRY_FIXES") '
                            'else "e_slow_loader.pfprof"', "fixes", "PFPROF_TRY_FIXES")
        self.assertEqual(p.returncode, 0, p.stderr)
        r = json.loads(p.stdout[p.stdout.index("{"):])
        self.assertEqual(r["suggested_measurement"], "ideal-input")
        self.assertNotIn("ideal-input", r["fixes"])   # a measurement is never picked
        p = self.traced_try('"a_pageable.pfprof"', "fixes", "PFPROF_TRY_FIXES")
        self.assertIsNone(json.loads(p.stdout[p.stdout.index("{"):])["suggested_measurement"])

    def test_the_programs_failure_is_its_exit_code(self):
        p = self.pfprof_try("--fix", "pin-memory", mode="crash-a", want_rc=5)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("failed (exit 5) as it is", p.stderr)

    def test_without_fix_the_first_traced_run_picks_them(self):
        # The recorded pageable sample as it is, its --fix run with a fix.
        p = self.traced_try('"a_pageable_fix.pfprof" if os.environ.get("PFPROF_TRY_FIXES") '
                            'else "a_pageable.pfprof"', "fixes", "PFPROF_TRY_FIXES")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.splitlines()[0], "fixes None")   # the first run, shown
        r = json.loads(p.stdout[p.stdout.index("{"):])
        self.assertEqual(r["fixes"], "pin-memory,non-blocking")
        self.assertEqual([(x["arm"], x["round"]) for x in r["runs"]], [("A", 0), ("B", 1), ("A", 1)])
        self.assertEqual(r["findings"], {"resolved": ["pageable-transfer"], "left": [], "new": ["serialized-copy"]})
        # The prediction of the finding the fix addresses, from its report.
        report = subprocess.run([PFPROF, "report", "--format", "json", os.path.join(self.TRACES, "a_pageable.pfprof")],
                                capture_output=True, text=True, timeout=60)
        want = [{"rule": f["rule"], "predicted_step_ns": f["predicted_step_ns"]}
                for f in json.loads(report.stdout)["findings"] if f["rule"] == "pageable-transfer"]
        self.assertEqual(len(want), 1)
        self.assertEqual(r["predictions"], want)
        with open(r["runs"][1]["log"]) as f:
            self.assertIn("fixes pin-memory,non-blocking", f.read())

    def test_sample_reaches_every_traced_run(self):
        p = self.traced_try('"a_pageable_sampled.pfprof"', "sample", "PFPROF_SAMPLE", "--sample", "0.5/1.5")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.splitlines()[0], "sample 0.5/1.5")   # the first run, shown
        r = json.loads(p.stdout[p.stdout.index("{"):])
        self.assertEqual(r["fixes"], "pin-memory,non-blocking")
        for run in r["runs"][1:]:
            with open(run["log"]) as f:
                self.assertIn("sample 0.5/1.5", f.read())

    def test_device_to_host_pageable_copies_need_a_code_change(self):
        # The per-step `.cpu()` sample: its pageable copies are all device to
        # host, which neither pin-memory nor non-blocking touches.
        p = self.traced_try('"m_cpu_per_step.pfprof"', "fixes", "PFPROF_TRY_FIXES")
        self.assertEqual(p.returncode, 0, p.stderr)
        r = json.loads(p.stdout[p.stdout.index("{"):])
        self.assertIsNone(r["fixes"])
        self.assertIn("pageable-transfer", r["needs_code_change"])
        self.assertEqual(r["difference"]["verdict"], "abandoned")

    def test_bad_usage(self):
        for args, words in ((["try"], "no program given"),
                            (["try", "--fix", "turbo", "--", "true"], "unknown fix 'turbo'"),
                            (["try", "--fix", "workers=0", "--", "true"], "workers needs a number"),
                            (["try", "--fix", "prefetch=2", "--", "true"], "takes no value"),
                            (["try", "--fix", "ideal-input,pin-memory", "--", "true"],
                             "--fix ideal-input is a measurement, not a fix: try it alone"),
                            (["try", "--fix", "ideal-input=0", "--", "true"], "ideal-input needs a number"),
                            (["try", "--rounds", "0", "--", "true"], "--rounds"),
                            (["try", "--steps", "0", "--", "true"], "--steps expects a positive number, not 0"),
                            (["try", "--steps", "-5", "--", "true"], "--steps expects a positive number, not -5"),
                            (["try", "--format", "xml", "--", "true"], "--format"),
                            (["try", "--sample", "4/1", "--", "true"], "--sample expects ON/EVERY"),
                            (["try", "--sample", "1/4", "--fix", "pin-memory", "--", "true"], "add --traced"),
                            (["try", "--fix", "pin-memory", "--", "/no/such/program"], "cannot run")):
            p = subprocess.run([PFPROF, *args], capture_output=True, text=True, timeout=60)
            self.assertIn(p.returncode, (2, 127), args)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
            self.assertIn(words, p.stderr)
        p = subprocess.run([PFPROF, "try", "--help"], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0)
        self.assertIn("Exit status", p.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
