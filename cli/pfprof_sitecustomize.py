# SPDX-License-Identifier: MIT
# pfprof_sitecustomize.py: the Python start-up hook of `pfprof record`.
#
# `pfprof record` writes this file as sitecustomize.py into its private
# folder and puts that folder first on PYTHONPATH, so every Python process
# of the recorded program runs it at start-up. The file is compiled into
# the pfprof binary (cli/meson.build, a GResource), so an installed pfprof
# needs no data file and the hook always matches the binary. Its tests are
# tests/cli/test-sitecustomize.py (system python3, a fake torch module).
#
# What it does, and why this way:
#   - never imports torch itself: a program without torch is untouched;
#   - waits for torch.utils.data.dataloader to be imported (a one-shot
#     meta-path finder) and wraps _BaseDataLoaderIter.__next__ in an NVTX
#     range "pfprof:DataLoader.next" (the collector files messages with
#     the "pfprof:" prefix under the "pfprof" domain);
#   - resolves torch.cuda.nvtx at the first batch, not during torch's own
#     import, and turns itself off if NVTX is unavailable;
#   - wraps os._exit, which runs no atexit handler (every multiprocessing
#     child leaves through it), so that the collector, if this process
#     loaded it, finishes the trace first (pfprof_collector_finish, found
#     with RTLD_NOLOAD: a process without CUDA never loads it); the exit
#     status is unchanged;
#   - once torch is imported, wraps the few entry points behind copies,
#     syncs and pinned allocations (Tensor.to/.cuda/.cpu/.item/.pin_memory/
#     .record_stream, torch.cuda.synchronize, torch.empty(pin_memory=True))
#     and the DataLoader iterator, to learn the user's line behind each:
#     the first frame outside torch, the standard library and this file,
#     found by walking sys._getframe and classifying each code object's
#     file once (a dict keyed by co_filename: CPython does not cache a code
#     object's hash, a str's it does). A site's first 16 calls are timed
#     (time.time_ns, CLOCK_REALTIME; thread id) and handed to the
#     collector (pfprof_collector_python_site/_call, found like
#     pfprof_collector_finish). After them a wrapper looks at one call in
#     about 64 (the frame walk, its site's count raised by the calls
#     skipped), and times a thinning sample of those (SPREAD), handed over
#     in batches, so that the analysis sees when in the run each site is
#     called; the count goes to the collector at exit and before os._exit.
#     Every other call costs the wrapper's Python call, a test and a
#     decrement: no frame, no clock, no ctypes;
#   - marks the training loop, so that the analysis tells training steps
#     from evaluation batches: an NVTX mark "pfprof:Optimizer.step" after
#     every optimizer step (torch.optim's global step post-hook) and
#     "pfprof:backward" as every backward pass starts (a wrapper around
#     torch.autograd.backward, which Tensor.backward calls): a mark a step,
#     no range to balance if the step raises;
#   - imports pfprof_workers (written next to it) unless
#     PFPROF_WORKER_HOOKS=0, which records inside the DataLoader: its
#     workers, batches and pin-memory thread (that file says how);
#   - removes its folder from sys.path and imports the sitecustomize it
#     shadows, if any, so the user's own start-up code still runs;
#   - never raises into the user's program: every step of its own is
#     guarded, and the wrapped calls return or raise what they did.
import os as _os
import sys as _sys


def _pfprof_install(sites):
    target = 'torch.utils.data.dataloader'
    state = {'push': None, 'pop': None, 'ok': None}

    def resolve():
        try:
            from torch.cuda import nvtx
            state['push'], state['pop'] = nvtx.range_push, nvtx.range_pop
            state['ok'] = True
        except Exception:
            state['ok'] = False

    def patch(module):
        cls = getattr(module, '_BaseDataLoaderIter', None)
        if cls is None or getattr(cls.__next__, '_pfprof', False):
            return
        orig = cls.__next__

        def __next__(self):
            if state['ok'] is None:
                resolve()
            if not state['ok']:
                return orig(self)
            try:
                state['push']('pfprof:DataLoader.next')
            except Exception:
                state['ok'] = False
                return orig(self)
            try:
                return orig(self)
            finally:
                state['pop']()

        if sites is not None:
            try:
                __next__ = sites.wrap(__next__, sites.DATALOADER, 'DataLoader.__next__')
            except Exception:
                pass
        __next__._pfprof = True
        __next__.__wrapped__ = orig
        cls.__next__ = __next__

    _pfprof_when_imported(target, patch)


def _pfprof_when_imported(target, patch):
    """Calls patch(module) once module TARGET has been executed: now if it
    was imported already, else from a one-shot meta-path finder."""

    class Finder:
        def find_spec(self, name, path=None, target_module=None):
            if name != target:
                return None
            try:
                _sys.meta_path.remove(self)
            except ValueError:
                pass
            import importlib.util
            spec = importlib.util.find_spec(name)
            if spec is None or spec.loader is None or not hasattr(spec.loader, 'exec_module'):
                return spec
            exec_module = spec.loader.exec_module

            def exec_and_patch(module):
                exec_module(module)
                try:
                    patch(module)
                except Exception:
                    pass

            spec.loader.exec_module = exec_and_patch
            return spec

    if target in _sys.modules:
        patch(_sys.modules[target])
    else:
        _sys.meta_path.insert(0, Finder())


class _PfprofSites:
    """The user's call sites of the wrapped entry points (python_sites and
    python_calls in the trace; trace/pfprof-trace-schema.h)."""

    # PfprofSiteKind
    COPY, SYNC, RECORD_STREAM, PIN, DATALOADER = 1, 2, 3, 4, 5
    # PFPROF_SITE_RECORDED_CALLS: calls timed per site; later ones counted.
    RECORDED = 16
    # Sites kept per process: generated code must not grow this forever.
    MAX_SITES = 10000
    # Once a site's calls are timed, a wrapper looks at one call in about
    # SAMPLE (at random) and counts the ones between for that site: the
    # rest cost one Python call and a decrement.
    SAMPLE = 64
    # Of the calls looked at, a site times every one until SPREAD are
    # timed, then every second until SPREAD more, every fourth... up to
    # SPREAD_MAX: evidence of when it runs, spread over the whole run,
    # that the analysis needs to tell a site of the steady state from a
    # start-up one making the same kind of events.
    SPREAD = 16
    SPREAD_MAX = 160

    def __init__(self):
        import time
        import _thread
        self.time_ns = time.time_ns
        self.get_native_id = _thread.get_native_id
        self.lib_path = _os.environ.get('CUDA_INJECTION64_PATH')
        self.lib = None       # the collector's two functions, once loaded
        self.dead = not self.lib_path  # nothing will ever take the rows
        self.codes = {}       # id(code) -> (code, {f_lasti * 16 + slot: site} or None)
        self.user_files = {}  # co_filename -> whether it holds the user's code
        self.apis = []        # slot -> entry point name: two on one line are two sites
        self.sites = []       # every site, in id order
        self.pending = []     # (site, tid, start, end) not yet handed over
        self.cwd = _os.getcwd()  # relative co_filenames are relative to it
        self.skip = [_os.path.dirname(_os.path.abspath(__file__)) + _os.sep]
        stdlib = _os.path.dirname(_os.path.abspath(_os.__file__)) + _os.sep
        self.skip.append(stdlib)
        self.keep = [stdlib + 'site-packages' + _os.sep, stdlib + 'dist-packages' + _os.sep]
        self.exit_registered = False
        import random
        self.sample = random.Random().randrange

    def classify(self, code):
        """The call sites of CODE ({} at first) if its file holds the
        user's code, else None; remembered per code object (the entry
        keeps the code alive, so its id is never reused)."""
        filename = code.co_filename
        user = self.user_files.get(filename)
        if user is None:
            if filename.startswith('<'):
                user = filename in ('<string>', '<stdin>') or filename.startswith('<ipython-input')
            else:
                path = filename
                if not _os.path.isabs(path):
                    path = _os.path.join(self.cwd, path)
                user = not any(path.startswith(d) for d in self.skip) or \
                    any(path.startswith(d) for d in self.keep)
            self.user_files[filename] = user
        entry = (code, {} if user else None)
        self.codes[id(code)] = entry
        return entry[1]

    def slot(self, api):
        """A small number per entry point (two on one line are two sites)."""
        if api not in self.apis:
            self.apis.append(api)
        return min(self.apis.index(api), 15)

    def enter(self, kind, api, slot, depth):
        """The site of the call DEPTH frames up, its count raised by one,
        or None (no user frame, too many sites, or a failure). Keyed by the
        calling instruction (f_lasti): f_lineno costs a walk of the line
        table on every read, so lines are computed once per site."""
        try:
            f = _sys._getframe(depth)
            codes = self.codes
            while f is not None:
                code = f.f_code
                entry = codes.get(id(code))
                lines = entry[1] if entry is not None else self.classify(code)
                if lines is not None:
                    break
                f = f.f_back
            else:
                return None
            key = f.f_lasti * 16 + slot
            site = lines.get(key)
            if site is None:
                site = self.new_site(lines, key, f, kind, api, slot)
                if site is None:
                    return None
            site[0] += 1
            return site
        except Exception:
            return None

    def new_site(self, lines, key, f, kind, api, slot):
        # Two instructions of one line calling one entry point are one site.
        line = f.f_lineno
        site = lines.get(-(line * 16 + slot))
        if site is None:
            if len(self.sites) >= self.MAX_SITES:
                return None
            code = f.f_code
            back = f.f_back
            path = code.co_filename
            if not path.startswith('<') and not _os.path.isabs(path):
                path = _os.path.join(self.cwd, path)
            caller = (None, 0, None)
            if back is not None:
                bcode = back.f_code
                bpath = bcode.co_filename
                if not bpath.startswith('<') and not _os.path.isabs(bpath):
                    bpath = _os.path.join(self.cwd, bpath)
                caller = (bpath, back.f_lineno, getattr(bcode, 'co_qualname', bcode.co_name))
            # [calls, id, kind, api, file, line, function, caller file, line,
            #  function, calls handed over, calls timed, calls looked at
            #  after the first timed ones]
            site = [0, len(self.sites) + 1, kind, api, path, line,
                    getattr(code, 'co_qualname', code.co_name), caller[0], caller[1], caller[2], 0, 0, 0]
            site = lines.setdefault(-(line * 16 + slot), site)
            if site[1] == len(self.sites) + 1:
                self.sites.append(site)
        lines[key] = site
        if not self.exit_registered:
            self.exit_registered = True
            import atexit
            atexit.register(self.finish)
        return site

    def record(self, site, start):
        try:
            self.pending.append((site, self.get_native_id(), start, self.time_ns()))
            # The first calls go over at once; the spread ones in batches,
            # one ctypes call each, not one per call.
            if site[11] <= self.RECORDED or len(self.pending) >= 32:
                self.flush()
        except Exception:
            pass

    def spread(self, site):
        """Whether this call of SITE, one looked at after its first timed
        calls, is timed too (the thinning sample of SPREAD)."""
        seen = site[12]
        site[12] = seen + 1
        timed = site[11] - self.RECORDED
        if timed >= self.SPREAD_MAX:
            return False
        stride = 1 << (timed // self.SPREAD)
        return seen % stride == 0

    def collector(self):
        if self.lib is None and not self.dead:
            try:
                import ctypes
                lib = ctypes.CDLL(self.lib_path, mode=_os.RTLD_NOLOAD)
                site, call = lib.pfprof_collector_python_site, lib.pfprof_collector_python_call
                u32, i32, i64, u64, s = (ctypes.c_uint32, ctypes.c_int32, ctypes.c_int64,
                                         ctypes.c_uint64, ctypes.c_char_p)
                site.argtypes = [u32, u32, s, s, i32, s, s, i32, s, u64]
                call.argtypes = [u32, u32, i64, i64]
                site.restype = call.restype = ctypes.c_int
                self.lib = (site, call)
            except OSError:
                pass  # not loaded (yet): CUDA starts inside the first copy
            except Exception:
                self.dead = True
        return self.lib

    def hand_site(self, lib, site):
        def enc(v):
            return None if v is None else v.encode('utf-8', 'surrogateescape')
        rc = lib[0](site[1], site[2], enc(site[3]), enc(site[4]), site[5], enc(site[6]),
                    enc(site[7]), site[8], enc(site[9]), site[0])
        if rc == 0:
            site[10] = site[0]
        return rc

    def flush(self):
        lib = self.collector()
        if self.dead:
            self.pending = []
            return
        if lib is None:
            return
        pending, self.pending = self.pending, []
        for i, (site, tid, start, end) in enumerate(pending):
            rc = 0
            if site[10] == 0:
                rc = self.hand_site(lib, site)
            if rc == 0:
                rc = lib[1](site[1], tid, start, end)
            if rc == 1:  # the collector is not tracing yet: keep the rest
                self.pending = pending[i:] + self.pending
                return
            if rc < 0:   # never in this process (a forked worker, or done)
                self.dead = True
                self.pending = []
                return

    def finish(self):
        """Hands over what is pending and every site's final count."""
        try:
            self.flush()
            lib = self.lib
            if lib is None or self.dead:
                return
            for site in self.sites:
                if site[0] != site[10] and self.hand_site(lib, site) != 0:
                    return
        except Exception:
            pass

    def timed(self, site, orig, args, kwargs):
        """Calls ORIG, one of SITE's first calls: timed and handed over."""
        site[11] += 1
        start = self.time_ns()
        try:
            return orig(*args, **kwargs)
        finally:
            self.record(site, start)

    def wrap(self, orig, kind, api):
        enter, timed, sample, spread = self.enter, self.timed, self.sample, self.spread
        recorded, slot, period = self.RECORDED, self.slot(api), self.SAMPLE
        skip = 0

        # The fast path, all but about one call in SAMPLE: a test and a
        # decrement of a closure variable, then the call. Without keyword
        # arguments (.item(), .cpu()) the call passes no **kwargs: calling
        # a C method with an empty dict costs more than the test itself.
        def wrapper(*args, **kwargs):
            nonlocal skip
            if skip:
                skip -= 1
                return orig(*args, **kwargs) if kwargs else orig(*args)
            site = enter(kind, api, slot, 2)
            if site is None or site[11] >= recorded:
                skip = n = sample(period // 2, period * 3 // 2)
                if site is None:
                    return orig(*args, **kwargs)
                site[0] += n
                if not spread(site):
                    return orig(*args, **kwargs)
            return timed(site, orig, args, kwargs)

        return self.dress(wrapper, orig)

    def wrap_empty(self, orig):
        """torch.empty: only pin_memory=True allocations are sites."""
        enter, timed = self.enter, self.timed
        recorded, kind, slot = self.RECORDED, self.PIN, self.slot('torch.empty')

        # Pinned allocations are rare and dear: every one is looked at.
        def empty(*args, **kwargs):
            if not kwargs.get('pin_memory'):
                return orig(*args, **kwargs)
            site = enter(kind, 'torch.empty', slot, 2)
            if site is None or site[11] >= recorded:
                return orig(*args, **kwargs)
            return timed(site, orig, args, kwargs)

        return self.dress(empty, orig)

    @staticmethod
    def dress(wrapper, orig):
        for name in ('__name__', '__qualname__', '__doc__'):
            try:
                setattr(wrapper, name, getattr(orig, name))
            except Exception:
                pass
        wrapper.__wrapped__ = orig
        wrapper._pfprof = True
        return wrapper

    def patch_torch(self, torch):
        tensor = getattr(torch, 'Tensor', None)
        self.skip.insert(0, _os.path.dirname(_os.path.abspath(torch.__file__)) + _os.sep)
        if tensor is not None:
            for name, kind in (('to', self.COPY), ('cuda', self.COPY), ('cpu', self.COPY),
                               ('item', self.SYNC), ('pin_memory', self.PIN),
                               ('record_stream', self.RECORD_STREAM)):
                orig = getattr(tensor, name, None)
                if orig is not None and not getattr(orig, '_pfprof', False):
                    setattr(tensor, name, self.wrap(orig, kind, 'Tensor.' + name))
        cuda = getattr(torch, 'cuda', None)
        orig = getattr(cuda, 'synchronize', None)
        if orig is not None and not getattr(orig, '_pfprof', False):
            cuda.synchronize = self.wrap(orig, self.SYNC, 'torch.cuda.synchronize')
        orig = getattr(torch, 'empty', None)
        if orig is not None and not getattr(orig, '_pfprof', False):
            torch.empty = self.wrap_empty(orig)


def _pfprof_mark_training(torch):
    state = {'mark': None, 'ok': None}

    def mark(name):
        if state['ok'] is None:
            try:
                from torch.cuda import nvtx
                state['mark'], state['ok'] = nvtx.mark, True
            except Exception:
                state['ok'] = False
        if state['ok']:
            try:
                state['mark'](name)
            except Exception:
                state['ok'] = False

    # torch.optim deletes its submodules' names from its namespace, so the
    # module is found by import, not as an attribute.
    try:
        import importlib
        optimizer = importlib.import_module('torch.optim.optimizer')
    except Exception:
        optimizer = None
    register = getattr(optimizer, 'register_optimizer_step_post_hook', None)
    if register is not None and not getattr(optimizer, '_pfprof_marked', False):
        register(lambda opt, args, kwargs: mark('pfprof:Optimizer.step'))
        optimizer._pfprof_marked = True
    autograd = getattr(torch, 'autograd', None)
    orig = getattr(autograd, 'backward', None)
    if orig is None or getattr(orig, '_pfprof', False):
        return

    def backward(*args, **kwargs):
        mark('pfprof:backward')
        return orig(*args, **kwargs)

    backward._pfprof = True
    backward.__wrapped__ = orig
    backward.__doc__ = orig.__doc__
    autograd.backward = backward


def _pfprof_wrap_exit(sites):
    lib_path = _os.environ.get('CUDA_INJECTION64_PATH')
    real = _os._exit
    if not lib_path or getattr(real, '_pfprof', False):
        return

    def _exit(*args, **kwargs):
        if sites is not None:
            sites.finish()
        before = getattr(_exit, '_pfprof_before', None)
        if before is not None:
            before()
        try:
            import ctypes
            ctypes.CDLL(lib_path, mode=_os.RTLD_NOLOAD).pfprof_collector_finish()
        except Exception:
            pass
        real(*args, **kwargs)

    _exit._pfprof = True
    _exit.__wrapped__ = real
    _exit.__doc__ = real.__doc__
    _os._exit = _exit


def _pfprof_chain():
    here = _os.environ.get('PFPROF_HOOK_DIR')
    if not here:
        return
    here = _os.path.realpath(here)
    _sys.path[:] = [p for p in _sys.path if _os.path.realpath(p or '.') != here]
    me = _sys.modules.pop('sitecustomize', None)
    import importlib
    try:
        importlib.import_module('sitecustomize')
    except ImportError as e:
        if e.name != 'sitecustomize':
            raise
        if me is not None:
            _sys.modules['sitecustomize'] = me


if _os.environ.get('PFPROF_PYTHON_HOOKS', '1') == '1':
    _pfprof_site_recorder = None
    try:
        _pfprof_site_recorder = _PfprofSites()
        _pfprof_when_imported('torch', _pfprof_site_recorder.patch_torch)
    except Exception:
        _pfprof_site_recorder = None
    try:
        _pfprof_install(_pfprof_site_recorder)
    except Exception:
        pass
    try:
        _pfprof_when_imported('torch', _pfprof_mark_training)
    except Exception:
        pass
    try:
        _pfprof_wrap_exit(_pfprof_site_recorder)
    except Exception:
        pass
if _os.environ.get('PFPROF_PYTHON_HOOKS', '1') == '1' and \
        _os.environ.get('PFPROF_WORKER_HOOKS', '1') != '0' and _os.environ.get('PFPROF_STATUS_DIR'):
    try:  # inside the DataLoader: its workers, batches, pin thread (cli/pfprof_workers.py)
        import pfprof_workers
        _pfprof_worker_main = pfprof_workers.install(
            _pfprof_when_imported, _os.path.join(_os.environ['PFPROF_STATUS_DIR'], 'workers'))
        import atexit as _atexit
        _atexit.register(_pfprof_worker_main.hand_over)
        if not getattr(_os._exit, '_pfprof', False):
            _pfprof_wrap_exit(None)
        if getattr(_os._exit, '_pfprof', False):  # wrapped when a collector may be loaded
            _os._exit._pfprof_before = _pfprof_worker_main.hand_over
    except Exception:
        pass
if _os.environ.get('PFPROF_TRY_STEPS') or _os.environ.get('PFPROF_TRY_FIXES'):
    try:  # `pfprof try`: its step timer and fixes (cli/pfprof_fixes.py)
        import pfprof_fixes
        pfprof_fixes.install(_pfprof_when_imported)
    except Exception:
        pass
_pfprof_chain()
