# SPDX-License-Identifier: MIT
# pfprof_workers.py: what `pfprof record` learns inside the DataLoader.
#
# `pfprof record` writes this file next to its sitecustomize.py (both are
# compiled into the binary, cli/pfprof-cli.gresource.xml); the hook imports
# it at start-up when PFPROF_WORKER_HOOKS is not 0 and the run has a
# private folder (PFPROF_STATUS_DIR). Its tests are
# tests/cli/test-worker-hooks.py (system python3, a fake torch whose
# DataLoader starts real worker processes).
#
# The collector is inert in a DataLoader worker (a forked child, or a
# process that never initializes CUDA), so the workers cannot hand rows to
# it. Instead every process that records writes fixed-size rows (ROW) to
# its own file, PFPROF_STATUS_DIR/workers/OWNER.PID.rows (OWNER: the pid
# of the process that owns the DataLoader), with one os.write per batch on
# an O_APPEND descriptor: nothing is buffered, so a killed worker loses the
# batch it was working on and nothing else, and the main trace is never
# touched by a worker. The stages' names go, once each, to OWNER.PID.stages
# (one JSON object a line). The main process hands its workers' rows to its
# collector when it finishes (pfprof_collector_python_worker_row) into the
# trace's `worker_events` table (trace/pfprof-trace-schema.h,
# docs/trace-format.md).
#
# What is recorded, and how it stays cheap:
#   - in a worker (torch.utils.data._utils.worker._worker_loop wrapped, its
#     arguments passed on untouched but for two queue proxies, so the
#     user's worker_init_fn and collate_fn run as they would): per batch,
#     the time its indices arrived, collate_fn's start and end, and the
#     time it was put on the result queue; each stage the worker can see
#     (the dataset's fetch, `loader`, `transform`/`target_transform`, each
#     transform of a Compose, v1 or v2) summed over the batch's samples;
#     the process's CPU time against its wall time; once, the cores it may
#     use (sched_getaffinity, cgroup cpu.max);
#   - in the main process: for each batch the iterator returned, its index,
#     its worker, when it was asked for and got (the step that consumed it
#     is the one that time falls in), and the pin-memory thread's work on
#     it (its start, end and thread CPU time);
#   - times are time.perf_counter_ns (CLOCK_MONOTONIC, one clock for all
#     processes); each file's first row holds a pair of it and
#     time.time_ns, which the importer uses to move the rows onto the
#     trace's clock;
#   - a wrapped stage costs two clock reads and two additions per call;
#     rows are written per batch, never per sample.
# Nothing here changes what a worker returns: every wrapper returns what
# the wrapped call returned and raises what it raised.
import os as _os
import struct as _struct
import sys as _sys
import time as _time

# type, worker id, pid, stage, batch, start, end, a, b
ROW = _struct.Struct('<hhiiqqqqq')

# Row types (worker_events.kind; PfprofWorkerEventKind).
CLOCK = 1       # start: perf_counter_ns, end: time_ns, a: cores allowed x 1000, b: num_workers
BATCH = 2       # start: indices got, end: put on the queue, a/b: collate start/end, stage: samples
FAILED = 3      # as BATCH, the batch raised (an ExceptionWrapper was put)
STAGE = 4       # a: ns summed over the batch's calls, b: calls; start/end: first start, last end
CPU = 5         # a: process CPU ns since the worker started, b: wall ns since then
GOT = 6         # main: start: off the queue, end: handed out; a: asked; b: iterator serial;
                #   stage: batches the iterator handed out before it
PIN = 7         # main: the pin thread's work on the batch; a: thread CPU ns, b: thread id

_perf = _time.perf_counter_ns


def allowed_cores():
    """The CPU cores this process may use, x 1000: its affinity, capped by
    the cgroup v2 quota (cpu.max) when there is one."""
    try:
        cores = len(_os.sched_getaffinity(0)) * 1000
    except Exception:
        cores = (_os.cpu_count() or 1) * 1000
    try:
        with open('/proc/self/cgroup') as f:
            lines = f.read().split('\n')
    except Exception:
        lines = []
    for line in lines:
        parts = line.split(':', 2)
        if len(parts) != 3:
            continue
        try:
            if parts[0] == '0' and parts[1] == '':  # cgroup v2
                with open('/sys/fs/cgroup' + parts[2].rstrip('/') + '/cpu.max') as f:
                    q, p = f.read().split()
                q = -1 if q == 'max' else int(q)
            elif 'cpu' in parts[1].split(','):  # cgroup v1
                base = '/sys/fs/cgroup/cpu' + parts[2].rstrip('/')
                if not _os.path.exists(base + '/cpu.cfs_quota_us'):
                    base = '/sys/fs/cgroup/cpu'
                with open(base + '/cpu.cfs_quota_us') as f:
                    q = int(f.read())
                with open(base + '/cpu.cfs_period_us') as f:
                    p = f.read()
            else:
                continue
            if q > 0 and int(p) > 0:
                cores = max(1, min(cores, q * 1000 // int(p)))
        except Exception:
            pass
    return cores


class Sink:
    """One process's row file; a row batch goes out with one os.write."""

    def __init__(self, folder, owner, workers=0):
        _os.makedirs(folder, exist_ok=True)
        pid = _os.getpid()
        base = _os.path.join(folder, '%d.%d' % (owner, pid))
        flags = _os.O_WRONLY | _os.O_CREAT | _os.O_APPEND | getattr(_os, 'O_CLOEXEC', 0)
        self.fd = _os.open(base + '.rows', flags, 0o600)
        self.names = base + '.stages'
        self.pid = pid
        self.write([ROW.pack(CLOCK, 0, pid, 0, 0, _perf(), _time.time_ns(), allowed_cores(), workers, )])

    def write(self, rows):
        try:
            _os.write(self.fd, b''.join(rows))
        except Exception:
            pass

    def name(self, stage, kind, name, path, line):
        import json
        try:
            with open(self.names, 'a') as f:
                f.write(json.dumps({'stage': stage, 'kind': kind, 'name': name,
                                    'file': path, 'line': line}) + '\n')
        except Exception:
            pass


def describe(obj):
    """(qualified name, source file, line) of a callable: its class's for
    an instance (a transform object), else its own."""
    target = obj
    if not hasattr(obj, '__code__') and not isinstance(obj, type):
        target = type(obj)
    func = getattr(target, '__func__', target)
    module = getattr(func, '__module__', None) or ''
    qual = getattr(func, '__qualname__', None) or getattr(func, '__name__', None) or repr(func)
    name = module + '.' + qual if module and module != 'builtins' else qual
    code = getattr(func, '__code__', None)
    if code is not None:
        return name, code.co_filename, code.co_firstlineno
    path, line = '', 0
    try:
        import inspect
        path = inspect.getsourcefile(target) or ''
        line = inspect.getsourcelines(target)[1]
    except Exception:
        pass
    return name, path, line


class Worker:
    """Recording inside one worker process."""

    def __init__(self, sink, worker_id):
        self.sink = sink
        self.worker_id = worker_id
        self.stages = []        # [ns, calls, first start, last end] per stage
        self.wrapped = set()
        self.batch = None       # (index, got) of the batch in hand
        self.samples = 0
        self.collate = (0, 0)
        self.cpu0 = _time.process_time_ns()
        self.wall0 = _perf()

    def stage(self, kind, obj, label=None):
        """A wrapper of callable OBJ timing each call as a stage."""
        name, path, line = describe(obj)
        if label:
            name = label + ' ' + name
        sid = len(self.stages) + 1
        acc = [0, 0, 0, 0]
        self.stages.append(acc)
        self.sink.name(sid, kind, name, path, line)
        perf = _perf

        def timed(*args, **kwargs):
            t0 = perf()
            try:
                return obj(*args, **kwargs)
            finally:
                t1 = perf()
                acc[0] += t1 - t0
                acc[1] += 1
                if not acc[2]:
                    acc[2] = t0
                acc[3] = t1
        timed._pfprof_stage = obj
        return timed

    def wrap_dataset(self, dataset, depth=0):
        """Wraps the stages of DATASET this worker can see: its loader,
        transform and target_transform (each transform of a Compose), and
        those of the datasets it wraps (Subset, ConcatDataset)."""
        if dataset is None or depth > 4 or id(dataset) in self.wrapped:
            return
        self.wrapped.add(id(dataset))
        for attr in ('loader', 'transform', 'target_transform', 'transforms'):
            try:
                value = getattr(dataset, attr, None)
            except Exception:
                continue
            if value is None or not callable(value) or getattr(value, '_pfprof_stage', None):
                continue
            inner = getattr(value, 'transforms', None)
            try:
                if isinstance(inner, list) and inner and all(callable(t) for t in inner):
                    # A Compose (v1, or v2's list of transforms): one stage each.
                    inner[:] = [self.stage(attr, t) for t in inner]
                elif attr != 'transforms' or inner is None:
                    setattr(dataset, attr, self.stage(attr, value))
            except Exception:
                pass
        for attr in ('dataset', 'datasets'):
            inner = getattr(dataset, attr, None)
            if isinstance(inner, (list, tuple)):
                for d in inner[:16]:
                    self.wrap_dataset(d, depth + 1)
            elif inner is not None:
                self.wrap_dataset(inner, depth + 1)

    def got(self, r):
        if isinstance(r, tuple) and len(r) == 2 and isinstance(r[0], int):
            self.batch = (r[0], _perf())
            for acc in self.stages:
                acc[0] = acc[1] = acc[2] = acc[3] = 0
            self.collate = (0, 0)
            idx = r[1]
            try:
                self.samples = len(idx) if idx is not None else 0
            except Exception:
                self.samples = 0

    def put(self, r, end):
        if self.batch is None or not isinstance(r, tuple) or len(r) != 2 or r[0] != self.batch[0]:
            return
        index, start = self.batch
        self.batch = None
        kind = type(r[1]).__name__
        if kind == '_IterableDatasetStopIteration':
            return  # an iterable dataset's end: no batch
        failed = kind == 'ExceptionWrapper'
        wid, pid = self.worker_id, self.sink.pid
        rows = [ROW.pack(FAILED if failed else BATCH, wid, pid, self.samples, index, start, end,
                         self.collate[0], self.collate[1])]
        for sid, acc in enumerate(self.stages, 1):
            if acc[1]:
                rows.append(ROW.pack(STAGE, wid, pid, sid, index, acc[2], acc[3], acc[0], acc[1]))
        rows.append(ROW.pack(CPU, wid, pid, 0, index, start, end,
                             _time.process_time_ns() - self.cpu0, end - self.wall0))
        self.sink.write(rows)

    def wrap_collate(self, collate_fn):
        if collate_fn is None:
            return None
        perf = _perf

        def collate(*args, **kwargs):
            t0 = perf()
            try:
                return collate_fn(*args, **kwargs)
            finally:
                self.collate = (t0, perf())
        return collate


class _IndexQueue:
    def __init__(self, q, worker):
        self._q, self._w = q, worker

    def get(self, *args, **kwargs):
        r = self._q.get(*args, **kwargs)
        try:
            self._w.got(r)
        except Exception:
            pass
        return r

    def __getattr__(self, name):
        return getattr(self._q, name)


class _DataQueue:
    def __init__(self, q, worker):
        self._q, self._w = q, worker

    def put(self, r, *args, **kwargs):
        out = self._q.put(r, *args, **kwargs)
        try:
            self._w.put(r, _perf())
        except Exception:
            pass
        return out

    def __getattr__(self, name):
        return getattr(self._q, name)


def owner_pid():
    """The pid of the process that started this worker: multiprocessing
    passes it to every start method (forkserver's parent is the server)."""
    try:
        import multiprocessing
        return multiprocessing.current_process()._parent_pid or _os.getppid()
    except Exception:
        return _os.getppid()


_PARAMS = ('dataset_kind', 'dataset', 'index_queue', 'data_queue', 'done_event',
           'auto_collation', 'collate_fn', 'drop_last', 'base_seed', 'init_fn',
           'worker_id', 'num_workers')


def wrap_worker_loop(module, folder):
    orig = getattr(module, '_worker_loop', None)
    if orig is None or getattr(orig, '_pfprof', False):
        return

    def _worker_loop(*args, **kwargs):
        try:
            args = list(args)
            bound = dict(zip(_PARAMS, args))
            bound.update((k, v) for k, v in kwargs.items() if k in _PARAMS)
            wid = int(bound.get('worker_id', 0))
            sink = Sink(folder, owner_pid(), int(bound.get('num_workers', 0)))
            w = Worker(sink, wid)
            w.wrap_dataset(bound.get('dataset'))

            def replace(name, value):
                i = _PARAMS.index(name)
                if i < len(args):
                    args[i] = value
                elif name in kwargs:
                    kwargs[name] = value
            replace('index_queue', _IndexQueue(bound['index_queue'], w))
            replace('data_queue', _DataQueue(bound['data_queue'], w))
            if bound.get('collate_fn') is not None:
                replace('collate_fn', w.wrap_collate(bound['collate_fn']))
        except Exception:
            pass
        return orig(*args, **kwargs)

    # Pickled by reference under spawn and forkserver: the worker's own
    # hook has wrapped its copy of the module the same way.
    for name in ('__name__', '__qualname__', '__module__', '__doc__'):
        try:
            setattr(_worker_loop, name, getattr(orig, name))
        except Exception:
            pass
    _worker_loop.__wrapped__ = orig
    _worker_loop._pfprof = True
    module._worker_loop = _worker_loop


class Main:
    """Recording in the process that owns the DataLoader."""

    def __init__(self, folder):
        self.folder = folder
        self.sink = None
        self.serial = 0
        self.handed = None

    # python_sites.site_id of the workers' stages: above the hook's own.
    STAGE_SITE_BASE = 1 << 30
    # Seconds the exit waits, at most, for the collector's queue to drain.
    HAND_OVER_WAIT = 30.0

    def hand_over(self):
        """Hands the rows of this process's workers and its own to its
        collector (once, at exit), if it loaded one."""
        if self.handed == _os.getpid():
            return
        self.handed = _os.getpid()
        try:
            lib_path = _os.environ.get('CUDA_INJECTION64_PATH')
            if not lib_path:
                return
            import ctypes
            try:
                lib = ctypes.CDLL(lib_path, mode=_os.RTLD_NOLOAD)
            except OSError:
                return  # this process never loaded the collector
            site, event = lib.pfprof_collector_python_site, lib.pfprof_collector_python_worker_event
            u32, i32, i64, s = ctypes.c_uint32, ctypes.c_int32, ctypes.c_int64, ctypes.c_char_p
            site.argtypes = [u32, u32, s, s, i32, s, s, i32, s, ctypes.c_uint64]
            event.argtypes = [u32, u32, u32, u32, i64, i64, i64, i64, i64]
            site.restype = event.restype = ctypes.c_int
            names = read_names(self.folder, _os.getpid())
            waited = 0.0
            # One site per stage, whichever workers ran it.
            ids, sids = {}, {}
            for key in sorted(names):
                n = names[key]
                what = tuple(str(n.get(k) or '') for k in ('kind', 'file', 'name', 'line'))
                sid = sids.get(what)
                if sid is None:
                    sid = sids[what] = self.STAGE_SITE_BASE + len(sids)
                    enc = [v.encode('utf-8', 'surrogateescape') for v in what[:3]]
                    if site(sid, 6, enc[0], enc[1], int(n.get('line') or 0), enc[2], None, 0, None, 0) < 0:
                        return
                ids[key] = sid
            for offset, rows in iter_files(self.folder, _os.getpid()):
                for kind, wid, pid, stage, batch, start, end, a, b in rows:
                    # Onto CLOCK_REALTIME; the collector moves them onto its clock.
                    end = start + offset if kind == CLOCK else end + offset
                    start += offset
                    if kind in (BATCH, FAILED):
                        a, b = (a + offset if a else 0), (b + offset if b else 0)
                    elif kind == GOT:
                        a += offset
                    if kind == STAGE:
                        stage = ids.get((pid, stage), 0)
                    rc = event(kind, wid & 0xffff, pid & 0xffffffff, stage & 0xffffffff, batch,
                               start, end, a, b)
                    # 1: the collector's queue is full; its writer drains it.
                    while rc == 1 and waited < self.HAND_OVER_WAIT:
                        _time.sleep(0.01)
                        waited += 0.01
                        rc = event(kind, wid & 0xffff, pid & 0xffffffff, stage & 0xffffffff, batch,
                                   start, end, a, b)
                    if rc != 0:
                        return
        except Exception:
            pass

    def out(self):
        if self.sink is None:
            self.sink = Sink(self.folder, _os.getpid())
        return self.sink

    def wrap_iter(self, module):
        """Wraps _MultiProcessingDataLoaderIter: _try_get_data (a batch came
        off the result queue: its index and worker, read from _task_info
        before the iterator drops the entry), _next_data (a batch handed to
        the program: in order, in every torch since 1.7, _rcvd_idx is then
        one past its index; with in_order=False it is the one that came off
        the queue in that call) and _reset (a new epoch of a persistent
        iterator: a new serial)."""
        cls = getattr(module, '_MultiProcessingDataLoaderIter', None)
        if cls is None:
            return
        tryget = getattr(cls, '_try_get_data', None)
        nxt = getattr(cls, '_next_data', None)
        reset = getattr(cls, '_reset', None)
        if tryget is None or nxt is None or getattr(nxt, '_pfprof', False):
            return
        me = self

        def _try_get_data(self, *args, **kwargs):
            r = tryget(self, *args, **kwargs)
            try:
                if r[0] and isinstance(r[1], tuple) and isinstance(r[1][0], int) and \
                        type(r[1][1]).__name__ != '_IterableDatasetStopIteration':
                    idx = r[1][0]
                    wid = self._task_info[idx][0]
                    arrived = self.__dict__.setdefault('_pfprof_arrived', {})
                    arrived[idx] = (wid, _perf())
                    self._pfprof_came = idx
            except Exception:
                pass
            return r

        def _next_data(self):
            asked = _perf()
            self.__dict__['_pfprof_came'] = None
            try:
                data = nxt(self)
            except StopIteration:
                raise
            except BaseException:
                me.returned(self, asked)  # the batch the worker raised for
                raise
            me.returned(self, asked)
            return data

        def _reset(self, *args, **kwargs):
            self.__dict__['_pfprof_serial'] = None
            return reset(self, *args, **kwargs)

        pairs = [(_next_data, nxt), (_try_get_data, tryget)]
        if reset is not None:
            pairs.append((_reset, reset))
        for f, o in pairs:
            f.__name__, f.__qualname__, f.__wrapped__, f._pfprof = o.__name__, o.__qualname__, o, True
        cls._next_data = _next_data
        cls._try_get_data = _try_get_data
        if reset is not None:
            cls._reset = _reset

    def returned(self, it, asked):
        """A GOT row for the batch iterator IT just handed out (or raised
        for): none when it ran out."""
        try:
            now = _perf()
            d = it.__dict__
            idx = it._rcvd_idx - 1 if d.get('_in_order', True) else d.get('_pfprof_came')
            arrived = d.get('_pfprof_arrived') or {}
            if idx is None or idx < 0 or idx not in arrived:
                return
            wid, at = arrived.pop(idx)
            pid = 0
            try:
                pid = it._workers[wid].pid or 0
            except Exception:
                pass
            serial = d.get('_pfprof_serial')
            if serial is None:
                self.serial += 1
                serial = it._pfprof_serial = self.serial
            self.out().write([ROW.pack(GOT, wid, pid, getattr(it, '_num_yielded', 0), idx, at, now,
                                       asked, serial)])
        except Exception:
            pass

    def wrap_pin_loop(self, module):
        orig = getattr(module, '_pin_memory_loop', None)
        if orig is None or getattr(orig, '_pfprof', False):
            return
        me = self

        class InQueue:
            def __init__(self, q, state):
                self._q, self._s = q, state

            def get(self, *args, **kwargs):
                r = self._q.get(*args, **kwargs)
                self._s[0] = r[0] if isinstance(r, tuple) and len(r) == 2 else None
                self._s[1] = _perf()
                self._s[2] = _time.thread_time_ns()
                return r

            def __getattr__(self, name):
                return getattr(self._q, name)

        class OutQueue:
            def __init__(self, q, state):
                self._q, self._s = q, state

            def put(self, r, *args, **kwargs):
                s = self._s
                if s[0] is not None and isinstance(r, tuple) and len(r) == 2 and r[0] == s[0]:
                    try:
                        import threading
                        me.out().write([ROW.pack(PIN, 0, _os.getpid(), 0, s[0], s[1], _perf(),
                                                 _time.thread_time_ns() - s[2],
                                                 threading.get_native_id())])
                    except Exception:
                        pass
                    s[0] = None
                return self._q.put(r, *args, **kwargs)

            def __getattr__(self, name):
                return getattr(self._q, name)

        def _pin_memory_loop(in_queue, out_queue, *args, **kwargs):
            state = [None, 0, 0]
            return orig(InQueue(in_queue, state), OutQueue(out_queue, state), *args, **kwargs)

        _pin_memory_loop.__name__ = orig.__name__
        _pin_memory_loop.__qualname__ = orig.__qualname__
        _pin_memory_loop.__wrapped__ = orig
        _pin_memory_loop._pfprof = True
        module._pin_memory_loop = _pin_memory_loop


def _entries(folder, owner, suffix):
    """(pid, path) of OWNER's files in FOLDER ending in SUFFIX."""
    try:
        entries = sorted(_os.listdir(folder))
    except OSError:
        return
    prefix = '%d.' % owner
    for entry in entries:
        if entry.startswith(prefix) and entry.endswith(suffix):
            try:
                yield int(entry[len(prefix):].split('.')[0]), _os.path.join(folder, entry)
            except ValueError:
                pass


def read_names(folder, owner):
    """{(pid, stage): name record} of the stages OWNER's processes named."""
    import json
    names = {}
    for pid, path in _entries(folder, owner, '.stages'):
        try:
            with open(path) as f:
                for line in f:
                    try:
                        n = json.loads(line)
                        names[(pid, int(n['stage']))] = n
                    except Exception:
                        pass
        except OSError:
            pass
    return names


# Rows read at a time: a long run's files are read a piece at a time.
CHUNK_ROWS = 16384


def iter_files(folder, owner):
    """For each row file of OWNER's processes: (its clock offset time_ns -
    perf_ns, an iterator over its rows as tuples), read CHUNK_ROWS at a
    time. A torn last row (a killed writer) is left out; a file that does
    not start with its clock row is skipped."""
    for _, path in _entries(folder, owner, '.rows'):
        try:
            f = open(path, 'rb')
        except OSError:
            continue
        head = f.read(ROW.size)
        if len(head) < ROW.size or ROW.unpack(head)[0] != CLOCK:
            f.close()
            continue
        first = ROW.unpack(head)

        def rows(f=f, first=first):
            with f:
                yield first
                while True:
                    data = f.read(ROW.size * CHUNK_ROWS)
                    whole = len(data) - len(data) % ROW.size
                    if whole:
                        yield from ROW.iter_unpack(data[:whole])
                    if len(data) < ROW.size * CHUNK_ROWS:
                        return
        yield first[6] - first[5], rows()


def read(folder, owner):
    """The rows and stage names the processes of OWNER wrote, all in
    memory (for tests and tools): a list of (file's clock offset, [row
    tuples]) and read_names()."""
    return ([(offset, list(rows)) for offset, rows in iter_files(folder, owner)],
            read_names(folder, owner))


def install(when_imported, folder):
    """Wraps the DataLoader's worker loop, iterator and pin-memory loop
    once torch imports them."""
    main = Main(folder)
    when_imported('torch.utils.data._utils.worker', lambda m: wrap_worker_loop(m, folder))
    when_imported('torch.utils.data._utils.pin_memory', main.wrap_pin_loop)
    when_imported('torch.utils.data.dataloader', main.wrap_iter)
    return main


if __name__ == '__main__':  # pfprof_workers.py FOLDER OWNER: the rows as JSON
    import json
    files, names = read(_sys.argv[1], int(_sys.argv[2]))
    json.dump({'rows': [[list(r) for r in rows] for _, rows in files],
               'stages': [names[k] | {'pid': k[0]} for k in sorted(names)]}, _sys.stdout)
