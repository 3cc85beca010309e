#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test-worker-hooks.py HOOK WORKERS [PFPROF]

Tests of what `pfprof record`'s Python hook records inside the DataLoader
(cli/pfprof_workers.py), with the system python3 and a fake torch whose
DataLoader works the way torch's does where the hook touches it: worker
processes started by multiprocessing (fork, spawn or forkserver) running
torch.utils.data._utils.worker._worker_loop, a result queue, a pin-memory
thread running _utils.pin_memory._pin_memory_loop, and an iterator whose
_next_data/_process_data hand out the batches in order. The rows are read
back with pfprof_workers.read, the function the main process hands them
to its collector with. With PFPROF (the built binary) it also checks that
`pfprof record` writes pfprof_workers.py next to the hook, byte for byte,
and that --no-worker-hooks switches it off.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

HOOK = os.path.abspath(sys.argv[1])
WORKERS = os.path.abspath(sys.argv[2])
PFPROF = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else None
del sys.argv[1:]
sys.path.insert(0, os.path.dirname(WORKERS))
import pfprof_workers  # noqa: E402

FAKE = {
    "torch/__init__.py": "",
    "torch/utils/__init__.py": "",
    "torch/utils/data/__init__.py": textwrap.dedent("""\
        from .dataset import Dataset, IterableDataset
        from .dataloader import DataLoader
        """),
    "torch/utils/data/dataset.py": textwrap.dedent("""\
        class Dataset:
            pass
        class IterableDataset:
            pass
        """),
    "torch/utils/data/_utils/__init__.py": "from . import worker, pin_memory\n",
    "torch/utils/data/_utils/worker.py": textwrap.dedent("""\
        import queue, traceback

        class ExceptionWrapper:
            def __init__(self, exc):
                self.exc_type, self.msg = type(exc), traceback.format_exc()
            def reraise(self):
                raise self.exc_type(self.msg)

        class _IterableDatasetStopIteration:
            pass

        def _worker_loop(dataset_kind, dataset, index_queue, data_queue, done_event,
                         auto_collation, collate_fn, drop_last, base_seed, init_fn,
                         worker_id, num_workers, persistent_workers, shared_seed):
            if init_fn is not None:
                init_fn(worker_id)
            it = iter(dataset) if dataset_kind == 1 else None
            while True:
                try:
                    r = index_queue.get(timeout=5.0)
                except queue.Empty:
                    continue
                if r is None:
                    break
                idx, index = r
                try:
                    if it is not None:
                        data = collate_fn([next(it) for _ in range(index)])
                    else:
                        data = collate_fn([dataset[i] for i in index])
                except StopIteration:
                    data = _IterableDatasetStopIteration()
                except Exception as e:
                    data = ExceptionWrapper(e)
                data_queue.put((idx, data))
            data_queue.cancel_join_thread()
        """),
    "torch/utils/data/_utils/pin_memory.py": textwrap.dedent("""\
        import queue

        def pin_memory(data, device=None):
            return data

        def _pin_memory_loop(in_queue, out_queue, device_id, done_event, device=None):
            while not done_event.is_set():
                try:
                    r = in_queue.get(timeout=0.1)
                except queue.Empty:
                    continue
                idx, data = r
                out_queue.put((idx, pin_memory(data, device)))
        """),
    "torch/utils/data/dataloader.py": textwrap.dedent("""\
        import itertools, multiprocessing, queue, threading
        from . import _utils
        from .dataset import IterableDataset

        def default_collate(batch):
            return tuple(batch)

        class _BaseDataLoaderIter:
            def __init__(self, loader):
                self._num_yielded = 0
            def __iter__(self):
                return self
            def __next__(self):
                data = self._next_data()
                self._num_yielded += 1
                return data

        class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
            def __init__(self, loader):
                super().__init__(loader)
                ctx = multiprocessing.get_context(loader.multiprocessing_context)
                self._loader = loader
                kind = 1 if isinstance(loader.dataset, IterableDataset) else 0
                collate = loader.collate_fn or default_collate
                self._worker_result_queue = ctx.Queue()
                self._done_event = ctx.Event()
                self._index_queues, self._workers = [], []
                for i in range(loader.num_workers):
                    q = ctx.Queue()
                    q.cancel_join_thread()
                    w = ctx.Process(target=_utils.worker._worker_loop,
                                    args=(kind, loader.dataset, q, self._worker_result_queue,
                                          self._done_event, True, collate, False, 0,
                                          loader.worker_init_fn, i, loader.num_workers,
                                          loader.persistent_workers, 0))
                    w.daemon = True
                    w.start()
                    self._index_queues.append(q)
                    self._workers.append(w)
                if loader.pin_memory:
                    self._pin_done = threading.Event()
                    self._data_queue = queue.Queue()
                    t = threading.Thread(target=_utils.pin_memory._pin_memory_loop,
                                         args=(self._worker_result_queue, self._data_queue,
                                               0, self._pin_done, "cuda"))
                    t.daemon = True
                    t.start()
                else:
                    self._data_queue = self._worker_result_queue
                self._in_order = loader.in_order
                self._reset(loader)

            def _reset(self, loader):
                self._batches = iter(loader.batches())
                self._send_idx = self._rcvd_idx = 0
                self._task_info = {}
                self._workers_done = 0
                for _ in range(2 * len(self._workers)):
                    self._try_put_index()

            def _try_put_index(self):
                index = next(self._batches, None)
                if index is None:
                    return
                wid = self._send_idx % len(self._workers)
                self._index_queues[wid].put((self._send_idx, index))
                self._task_info[self._send_idx] = (wid,)
                self._send_idx += 1

            def _next_data(self):
                while True:
                    while self._rcvd_idx < self._send_idx:
                        info = self._task_info.get(self._rcvd_idx)
                        if info is None:  # handed out already (in_order=False)
                            self._rcvd_idx += 1
                            continue
                        if len(info) == 2 and isinstance(info[1], _utils.worker._IterableDatasetStopIteration):
                            del self._task_info[self._rcvd_idx]
                            self._rcvd_idx += 1
                            self._try_put_index()
                            continue
                        break
                    else:
                        self._shutdown_if_done()
                        raise StopIteration
                    if len(self._task_info[self._rcvd_idx]) == 2:
                        data = self._task_info.pop(self._rcvd_idx)[1]
                        self._rcvd_idx += 1
                        return self._process_data(data)
                    idx, data = self._get_data()
                    if isinstance(data, _utils.worker._IterableDatasetStopIteration):
                        self._task_info[idx] += (data,)
                        continue
                    if idx != self._rcvd_idx and not self._loader.in_order:
                        # torch's in_order=False: handed out as it comes.
                        del self._task_info[idx]
                        return self._process_data(data)
                    if idx != self._rcvd_idx:
                        self._task_info[idx] += (data,)
                    else:
                        del self._task_info[idx]
                        self._rcvd_idx += 1
                        return self._process_data(data)

            def _get_data(self):
                while True:
                    ok, data = self._try_get_data(0.2)
                    if ok:
                        return data

            def _try_get_data(self, timeout):
                try:
                    return (True, self._data_queue.get(timeout=timeout))
                except queue.Empty:
                    for w in self._workers:
                        if not w.is_alive():
                            raise RuntimeError("DataLoader worker (pid %d) exited unexpectedly" % w.pid)
                    return (False, None)

            def _process_data(self, data):
                self._try_put_index()
                if isinstance(data, _utils.worker.ExceptionWrapper):
                    data.reraise()
                return data

            def _shutdown_if_done(self):
                if self._loader.persistent_workers:
                    return
                self._shutdown()

            def _shutdown(self):
                for q in self._index_queues:
                    q.put(None)
                for w in self._workers:
                    w.join(timeout=10)
                if self._loader.pin_memory:
                    self._pin_done.set()

        class DataLoader:
            def __init__(self, dataset, batch_size=1, batch_sampler=None, num_workers=0,
                         collate_fn=None, pin_memory=False, worker_init_fn=None,
                         multiprocessing_context=None, persistent_workers=False, in_order=True):
                self.dataset, self.batch_size, self.batch_sampler = dataset, batch_size, batch_sampler
                self.num_workers, self.collate_fn, self.pin_memory = num_workers, collate_fn, pin_memory
                self.worker_init_fn = worker_init_fn
                self.multiprocessing_context = multiprocessing_context
                self.persistent_workers = persistent_workers
                self.in_order = in_order
                self._iterator = None
            def batches(self):
                if isinstance(self.dataset, IterableDataset):
                    return itertools.repeat(self.batch_size, 8)
                if self.batch_sampler is not None:
                    return list(self.batch_sampler)
                n = len(self.dataset)
                return [list(range(i, min(i + self.batch_size, n))) for i in range(0, n, self.batch_size)]
            def __iter__(self):
                if self.persistent_workers and self._iterator is not None:
                    self._iterator._reset(self)
                    return self._iterator
                self._iterator = _MultiProcessingDataLoaderIter(self)
                return self._iterator
        """),
    # torchvision's Compose: v1 calls each of .transforms in turn; v2 keeps
    # them in a list too and calls them from forward.
    # Stands for the collector (ctypes.CDLL of CUDA_INJECTION64_PATH): each
    # call of its functions goes to FAKE_LOG as a JSON line, as it comes.
    "fake_collector.py": textwrap.dedent("""\
        import ctypes, json, os
        # FAKE_FULL: the queue is full for the 2nd to 4th event calls.
        class Fn:
            def __init__(self, name):
                self.name, self.argtypes, self.restype, self.calls = name, None, None, 0
            def __call__(self, *a):
                self.calls += 1
                full = os.environ.get("FAKE_FULL") and self.name == "event" and 2 <= self.calls <= 4
                with open(os.environ["FAKE_LOG"], "a") as f:
                    f.write(json.dumps([self.name + (" full" if full else ""), os.getpid()] +
                                       [x.decode() if isinstance(x, bytes) else x for x in a]) + "\\n")
                return 1 if full else 0
        class Lib:
            def __init__(self, path, mode=0):
                assert mode == os.RTLD_NOLOAD
                self.pfprof_collector_python_site = Fn("site")
                self.pfprof_collector_python_worker_event = Fn("event")
                self.pfprof_collector_python_call = Fn("call")
            def pfprof_collector_finish(self):
                pass
        ctypes.CDLL = Lib
        """),
    "torchvision/__init__.py": "",
    "torchvision/transforms/__init__.py": "from .transforms import Compose\n",
    "torchvision/transforms/transforms.py": textwrap.dedent("""\
        class Compose:
            def __init__(self, transforms):
                self.transforms = transforms
            def __call__(self, img):
                for t in self.transforms:
                    img = t(img)
                return img
        """),
    "torchvision/transforms/v2/__init__.py": textwrap.dedent("""\
        class Compose:
            def __init__(self, transforms):
                self.transforms = transforms
            def forward(self, *inputs):
                out = inputs[0]
                for t in self.transforms:
                    out = t(out)
                return out
            def __call__(self, *inputs):
                return self.forward(*inputs)
        """),
}

# The recorded program: prints a digest of every batch it got, and what the
# worker_init_fn calls left behind. MODE picks the dataset and loader.
PROGRAM = textwrap.dedent("""\
    import hashlib, os, pickle, signal, sys
    if os.environ.get("FAKE_LOG"):
        import fake_collector  # noqa: F401
    import torch.utils.data as tud
    from torchvision import transforms as v1
    from torchvision.transforms import v2

    class AddOne:
        def __call__(self, x):
            return x + 1

    class Double:
        def __call__(self, x):
            return x * 2

    def load(i):
        return [i, i * i]

    class Items(tud.Dataset):
        def __init__(self, n, compose, fail_at=-1, kill_at=-1, slow_worker=-1):
            self.n, self.fail_at, self.kill_at, self.slow_worker = n, fail_at, kill_at, slow_worker
            self.loader = load
            self.transform = compose([AddOne(), Double()])
        def __len__(self):
            return self.n
        def __getitem__(self, i):
            if i == self.kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            if i == self.fail_at:
                raise ValueError("bad sample %d" % i)
            if (i // 2) % 2 == self.slow_worker:
                import time
                time.sleep(0.02)
            return [self.transform(v) for v in self.loader(i)]

    class Stream(tud.IterableDataset):
        def __iter__(self):
            # Each worker yields the whole stream: two full batches.
            for i in range(8):
                yield i * 3

    def init(worker_id):
        with open(os.path.join(os.environ["OUT"], "init.%d" % worker_id), "w") as f:
            f.write(str(worker_id))

    def my_collate(samples):
        return ("mine", tuple(map(str, samples)))

    class Pairs:
        def __iter__(self):
            return iter([[0, 5], [1, 6], [2, 7, 9], [3], [4, 8]])

    def main():
        mode, method = sys.argv[1], sys.argv[2]
        kw = dict(num_workers=2, multiprocessing_context=method, worker_init_fn=init)
        if mode == "map":
            loader = tud.DataLoader(Items(12, v1.Compose), batch_size=4, pin_memory=True, **kw)
        elif mode == "v2":
            loader = tud.DataLoader(Items(12, v2.Compose), batch_size=3, **kw)
        elif mode == "persistent":
            loader = tud.DataLoader(Items(8, v1.Compose), batch_size=2, persistent_workers=True, **kw)
        elif mode == "raise":
            loader = tud.DataLoader(Items(12, v1.Compose, fail_at=6), batch_size=2, **kw)
        elif mode == "kill":
            loader = tud.DataLoader(Items(40, v1.Compose, kill_at=21), batch_size=2, **kw)
        elif mode == "unordered":
            # Worker 0's batches take longer: worker 1's come out of order.
            loader = tud.DataLoader(Items(24, v1.Compose, slow_worker=0), batch_size=2, in_order=False, **kw)
        elif mode == "iterable":
            loader = tud.DataLoader(Stream(), batch_size=4, **kw)
        elif mode == "sampler":
            loader = tud.DataLoader(Items(10, v1.Compose), batch_sampler=Pairs(),
                                    collate_fn=my_collate, **kw)
        digest = hashlib.sha256()
        got = []
        epochs = 2 if mode == "persistent" else 1
        try:
            for _ in range(epochs):
                for batch in loader:
                    got.append(repr(batch))
                    digest.update(pickle.dumps(batch))
        except Exception as e:
            got.append("error: " + type(e).__name__ + ": " + str(e).strip().splitlines()[-1])
        if mode == "persistent":
            loader._iterator._shutdown()
        print(digest.hexdigest())
        for line in got:
            print(line)
        if os.environ.get("EXIT_HARD"):
            sys.stdout.flush()
            os._exit(0)

    if __name__ == "__main__":
        main()
    """)

METHODS = ("fork", "spawn", "forkserver")


class WorkerHookTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="pfprof-worker-test-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.fake = os.path.join(self.dir, "fake")
        for name, text in FAKE.items():
            path = os.path.join(self.fake, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        self.hook = os.path.join(self.dir, "hook")
        os.makedirs(self.hook)
        shutil.copy(HOOK, os.path.join(self.hook, "sitecustomize.py"))
        shutil.copy(WORKERS, os.path.join(self.hook, "pfprof_workers.py"))
        self.program = os.path.join(self.dir, "train.py")
        with open(self.program, "w") as f:
            f.write(PROGRAM)

    def run_program(self, mode, method, hooks="1", env=None):
        status = tempfile.mkdtemp(dir=self.dir)
        out = tempfile.mkdtemp(dir=self.dir)
        e = {k: v for k, v in os.environ.items() if not k.startswith("PFPROF_") and k != "CUDA_INJECTION64_PATH"}
        e.update(PYTHONPATH=os.pathsep.join([self.hook, self.fake]), PFPROF_HOOK_DIR=self.hook,
                 PFPROF_PYTHON_HOOKS="1", PFPROF_WORKER_HOOKS=hooks, PFPROF_STATUS_DIR=status,
                 PYTHONDONTWRITEBYTECODE="1", OUT=out)
        e.update(env or {})
        p = subprocess.run([sys.executable, self.program, mode, method], env=e, cwd=self.dir,
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        inits = sorted(os.listdir(out))
        folder = os.path.join(status, "workers")
        return lines, inits, folder

    def rows(self, folder):
        owners = {int(n.split(".")[0]) for n in os.listdir(folder)}
        self.assertEqual(len(owners), 1, os.listdir(folder))
        owner = owners.pop()
        files, names = pfprof_workers.read(folder, owner)
        by_kind = {}
        for _, rows in files:
            for r in rows:
                by_kind.setdefault(r[0], []).append(r)
        return owner, files, names, by_kind

    def check_map(self, method, mode="map", batches=3, samples=4):
        lines, inits, folder = self.run_program(mode, method)
        plain, plain_inits, plain_folder = self.run_program(mode, method, hooks="0")
        # What the program got is bit for bit what it gets unrecorded.
        self.assertEqual(lines, plain)
        self.assertFalse(os.path.exists(plain_folder))
        # The user's worker_init_fn ran in each worker.
        self.assertEqual(inits, ["init.0", "init.1"])
        self.assertEqual(inits, plain_inits)
        owner, files, names, k = self.rows(folder)
        # Two workers and the main process, each its own file.
        self.assertEqual(len(files), 3)
        workers = {r[2] for r in k[pfprof_workers.BATCH]}
        self.assertEqual(len(workers), 2)
        self.assertNotIn(owner, workers)
        self.assertEqual(sorted(r[4] for r in k[pfprof_workers.BATCH]), list(range(batches)))
        for r in k[pfprof_workers.BATCH]:
            _, wid, pid, n, idx, start, end, c0, c1 = r
            self.assertEqual(wid, idx % 2)
            self.assertEqual(n, samples if idx < batches - 1 or mode != "v2" else 3)
            self.assertTrue(start <= c0 <= c1 <= end, r)
        # Each transform of the Compose and the loader: named at their
        # source line, one call per value of each sample.
        stage_names = {(pid, s): (n["kind"], n["name"].split(".")[-1], n["line"])
                       for (pid, s), n in names.items()}
        src = PROGRAM.splitlines()
        for (pid, s), (kind, name, line) in stage_names.items():
            self.assertIn(pid, workers)
            self.assertIn(name.split(".")[-1], src[line - 1].replace("(", " ").replace(":", " ").split(), name)
            self.assertEqual(names[(pid, s)]["file"], self.program)
        self.assertEqual(sorted({v[:2] for v in stage_names.values()}),
                         [("loader", "load"), ("transform", "AddOne"), ("transform", "Double")])
        for r in k[pfprof_workers.STAGE]:
            kind, name, _ = stage_names[(r[2], r[3])]
            batch = next(b for b in k[pfprof_workers.BATCH] if b[2] == r[2] and b[4] == r[4])
            per_sample = 1 if kind == "loader" else 2
            self.assertEqual(r[8], per_sample * batch[3], (name, r))
            self.assertTrue(0 < r[7] <= r[6] - r[5] and batch[5] <= r[5] <= r[6] <= batch[6], r)
        # CPU time against wall time, one row a batch.
        self.assertEqual(len(k[pfprof_workers.CPU]), batches)
        for r in k[pfprof_workers.CPU]:
            self.assertTrue(0 < r[7] and 0 < r[8], r)
        # Cores allowed, and num_workers, in the workers' clock rows.
        for r in k[pfprof_workers.CLOCK]:
            self.assertEqual(r[7], pfprof_workers.allowed_cores())
            self.assertEqual(r[8], 2 if r[2] != owner else 0)
        # The main process: every batch got, in order, from its worker.
        got = k[pfprof_workers.GOT]
        self.assertEqual([r[4] for r in got], list(range(batches)))
        self.assertEqual([r[3] for r in got], list(range(batches)))
        for r in got:
            b = next(b for b in k[pfprof_workers.BATCH] if b[4] == r[4])
            self.assertEqual((r[1], r[2]), (b[1], b[2]))
            # Put in the worker, off the queue in the main process, handed out.
            self.assertTrue(b[6] <= r[5] <= r[6] and r[7] <= r[6], (b, r))
        return k

    def test_fork(self):
        k = self.check_map("fork")
        # pin_memory=True: the pin thread's work on each batch.
        pins = k[pfprof_workers.PIN]
        self.assertEqual(sorted(r[4] for r in pins), [0, 1, 2])
        for r in pins:
            self.assertTrue(r[5] <= r[6] and r[8] > 0, r)

    def test_spawn(self):
        self.check_map("spawn")

    def test_forkserver(self):
        self.check_map("forkserver")

    def test_compose_v2(self):
        self.check_map("spawn", mode="v2", batches=4, samples=3)

    def test_persistent_workers(self):
        lines, inits, folder = self.run_program("persistent", "fork")
        self.assertEqual(lines, self.run_program("persistent", "fork", hooks="0")[0])
        owner, files, names, k = self.rows(folder)
        got = k[pfprof_workers.GOT]
        # Two epochs through the same workers: two iterator serials.
        self.assertEqual([(r[8], r[4]) for r in got], [(1, i) for i in range(4)] + [(2, i) for i in range(4)])
        self.assertEqual(len(k[pfprof_workers.BATCH]), 8)
        self.assertEqual(len({r[2] for r in k[pfprof_workers.BATCH]}), 2)

    def test_in_order_false(self):
        lines, _, folder = self.run_program("unordered", "fork")
        owner, files, names, k = self.rows(folder)
        got = k[pfprof_workers.GOT]
        # Every batch got once, tied to the worker that made it, though
        # they came out of order.
        self.assertEqual(sorted(r[4] for r in got), list(range(12)))
        self.assertNotEqual([r[4] for r in got], list(range(12)))
        self.assertEqual([r[3] for r in got], list(range(12)))
        for r in got:
            b = next(b for b in k[pfprof_workers.BATCH] if b[4] == r[4])
            self.assertEqual((r[1], r[2]), (b[1], b[2]))
            self.assertTrue(b[6] <= r[5] <= r[6], (b, r))

    def test_worker_raises(self):
        lines, _, folder = self.run_program("raise", "fork")
        self.assertEqual(lines, self.run_program("raise", "fork", hooks="0")[0])
        self.assertTrue(lines[-1].startswith("error: ValueError"), lines)
        owner, files, names, k = self.rows(folder)
        self.assertEqual([r[4] for r in k[pfprof_workers.FAILED]], [3])

    def test_killed_worker(self):
        lines, _, folder = self.run_program("kill", "fork")
        self.assertTrue(lines[-1].startswith("error: RuntimeError: DataLoader worker"), lines)
        owner, files, names, k = self.rows(folder)
        for name in os.listdir(folder):
            if name.endswith(".rows"):
                self.assertEqual(os.path.getsize(os.path.join(folder, name)) % pfprof_workers.ROW.size, 0)
        done = sorted(r[4] for r in k[pfprof_workers.BATCH])
        # Batch 10 died with its worker; those before it were written.
        self.assertNotIn(10, done)
        self.assertTrue(set(range(10)) <= set(done), done)
        # What the main process got: the batches in order, up to one that
        # the dead worker's queue thread had not sent yet.
        got = [r[4] for r in k[pfprof_workers.GOT]]
        self.assertEqual(got, list(range(len(got))))
        self.assertGreaterEqual(len(got), 1)

    def test_iterable_dataset(self):
        lines, _, folder = self.run_program("iterable", "spawn")
        self.assertEqual(lines, self.run_program("iterable", "spawn", hooks="0")[0])
        owner, files, names, k = self.rows(folder)
        # Four batches, two from each worker; the requests after each
        # worker's stream ran out made no batch.
        self.assertEqual(len(lines), 5)
        self.assertEqual([r[4] for r in k[pfprof_workers.GOT]], [0, 1, 2, 3])
        self.assertEqual(sorted((r[4], r[1]) for r in k[pfprof_workers.BATCH]),
                         [(0, 0), (1, 1), (2, 0), (3, 1)])

    def test_batch_sampler_and_collate(self):
        lines, _, folder = self.run_program("sampler", "fork")
        self.assertEqual(lines, self.run_program("sampler", "fork", hooks="0")[0])
        self.assertIn("('mine',", lines[1])
        owner, files, names, k = self.rows(folder)
        self.assertEqual(sorted((r[4], r[3]) for r in k[pfprof_workers.BATCH]),
                         [(0, 2), (1, 2), (2, 3), (3, 1), (4, 2)])
        for r in k[pfprof_workers.BATCH]:
            self.assertTrue(r[5] < r[7] <= r[8] <= r[6], r)

    def test_main_process_hands_rows_to_its_collector(self):
        log = os.path.join(self.dir, "collector.log")
        before = time.time_ns()
        lines, _, folder = self.run_program("map", "fork", env={"FAKE_LOG": log, "CUDA_INJECTION64_PATH": "/fake"})
        after = time.time_ns()
        owner, files, names, k = self.rows(folder)
        with open(log) as f:
            calls = [json.loads(line) for line in f]
        # Only the owner hands over, once: its workers' rows and its own.
        self.assertEqual({c[1] for c in calls}, {owner})
        sites = [c for c in calls if c[0] == "site" and c[3] == 6]
        events = [c for c in calls if c[0] == "event"]
        # One site per stage, though both workers ran each.
        self.assertEqual(len(names), 6)
        self.assertEqual(len(sites), 3, sites)
        self.assertEqual(len(events), sum(len(rows) for _, rows in files))
        ids = {}
        for _, _, sid, kind, api, path, line, function, *_ in sites:
            self.assertEqual(kind, 6)
            self.assertGreaterEqual(sid, 1 << 30)
            self.assertEqual(path, self.program)
            ids[sid] = (api, function.split(".")[-1])
        self.assertEqual(sorted(ids.values()), [("loader", "load"), ("transform", "AddOne"),
                                                      ("transform", "Double")])
        for _, _, kind, wid, pid, stage, batch, start, end, a, b in events:
            # On the wall clock now, as the collector takes them.
            self.assertTrue(before <= start <= end <= after, (kind, start, end))
            if kind == pfprof_workers.STAGE:
                self.assertIn(stage, ids)
            if kind == pfprof_workers.BATCH:
                self.assertTrue(start <= a <= b <= end)
        self.assertEqual(sorted(c[6] for c in events if c[2] == pfprof_workers.GOT), [0, 1, 2])

    def test_hand_over_on_os_exit(self):
        # os._exit runs no atexit handler: the hook's wrapper hands over.
        log = os.path.join(self.dir, "collector.log")
        lines, _, folder = self.run_program("map", "fork", env={"FAKE_LOG": log, "CUDA_INJECTION64_PATH": "/fake",
                                                                "EXIT_HARD": "1"})
        owner, files, names, k = self.rows(folder)
        with open(log) as f:
            calls = [json.loads(line) for line in f]
        self.assertEqual(len([c for c in calls if c[0] == "event"]), sum(len(rows) for _, rows in files))

    def test_hand_over_waits_for_a_full_queue(self):
        log = os.path.join(self.dir, "collector.log")
        lines, _, folder = self.run_program("map", "fork", env={"FAKE_LOG": log, "CUDA_INJECTION64_PATH": "/fake",
                                                                "FAKE_FULL": "1"})
        owner, files, names, k = self.rows(folder)
        with open(log) as f:
            calls = [json.loads(line) for line in f]
        # Refused three times while full, then every row went over once.
        self.assertEqual(sum(1 for c in calls if c[0] == "event full"), 3)
        self.assertEqual(len([c for c in calls if c[0] == "event"]), sum(len(rows) for _, rows in files))

    def test_cores_allowed_follow_the_cgroup_quota(self):
        import io
        affinity = len(os.sched_getaffinity(0)) * 1000
        for files, want in (
                ({"/proc/self/cgroup": "0::/job\n", "/sys/fs/cgroup/job/cpu.max": "150000 100000\n"}, 1500),
                ({"/proc/self/cgroup": "0::/job\n", "/sys/fs/cgroup/job/cpu.max": "max 100000\n"}, affinity),
                ({"/proc/self/cgroup": "4:cpu,cpuacct:/job\n0::/\n",
                  "/sys/fs/cgroup/cpu/job/cpu.cfs_quota_us": "50000\n",
                  "/sys/fs/cgroup/cpu/job/cpu.cfs_period_us": "100000\n"}, 500),
                ({}, affinity)):
            def fake_open(path, *a, **k):
                if path not in files:
                    raise FileNotFoundError(path)
                return io.StringIO(files[path])
            exists = os.path.exists
            pfprof_workers.open = fake_open
            pfprof_workers._os.path.exists = lambda p: p in files
            try:
                self.assertEqual(pfprof_workers.allowed_cores(), min(want, affinity), files)
            finally:
                del pfprof_workers.open
                pfprof_workers._os.path.exists = exists

    def test_torn_row_left_out(self):
        folder = os.path.join(self.dir, "w")
        sink = pfprof_workers.Sink(folder, 7)
        sink.write([pfprof_workers.ROW.pack(pfprof_workers.BATCH, 0, sink.pid, 1, i, 1, 2, 0, 0) for i in range(10)])
        os.write(sink.fd, b"\x02\x00\x01")
        # Read a few rows at a time, as a long run's files are.
        chunk = pfprof_workers.CHUNK_ROWS
        pfprof_workers.CHUNK_ROWS = 3
        try:
            files, _ = pfprof_workers.read(folder, 7)
        finally:
            pfprof_workers.CHUNK_ROWS = chunk
        self.assertEqual([r[0] for r in files[0][1]], [pfprof_workers.CLOCK] + [pfprof_workers.BATCH] * 10)
        self.assertEqual([r[4] for r in files[0][1][1:]], list(range(10)))

    def test_switched_off_leaves_torch_alone(self):
        e = {k: v for k, v in os.environ.items() if not k.startswith("PFPROF_")}
        e.update(PYTHONPATH=os.pathsep.join([self.hook, self.fake]), PFPROF_HOOK_DIR=self.hook,
                 PFPROF_PYTHON_HOOKS="1", PFPROF_STATUS_DIR=self.dir, PYTHONDONTWRITEBYTECODE="1")
        code = ("import torch.utils.data._utils.worker as w, torch.utils.data.dataloader as d;"
                "print(hasattr(w._worker_loop, '_pfprof'), hasattr(d._MultiProcessingDataLoaderIter._next_data, '_pfprof'))")
        for env, want in (({"PFPROF_WORKER_HOOKS": "0"}, "False False"),
                          ({"PFPROF_PYTHON_HOOKS": "0"}, "False False"),
                          ({}, "True True")):
            p = subprocess.run([sys.executable, "-c", code], env=dict(e, **env), capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(p.stdout.strip(), want, (env, p.stderr))

    @unittest.skipIf(PFPROF is None, "no pfprof binary given")
    def test_record_writes_the_module(self):
        out = os.path.join(self.dir, "copy.py")
        code = ("import os, shutil, sys; shutil.copy(os.path.join(os.environ['PFPROF_HOOK_DIR'], "
                "'pfprof_workers.py'), sys.argv[1]); print(os.environ.get('PFPROF_WORKER_HOOKS'))")
        e = {k: v for k, v in os.environ.items() if not k.startswith("PFPROF_")}
        for flags, want in (([], "None"), (["--no-worker-hooks"], "0")):
            p = subprocess.run([PFPROF, "record", "--quiet"] + flags + ["--", sys.executable, "-c", code, out],
                               env=e, cwd=self.dir, capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stdout.strip(), want)
            with open(out, "rb") as a, open(WORKERS, "rb") as b:
                self.assertEqual(a.read(), b.read())


if __name__ == "__main__":
    unittest.main(verbosity=2)
