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
#   - removes its folder from sys.path and imports the sitecustomize it
#     shadows, if any, so the user's own start-up code still runs;
#   - never raises into the user's program: every step is guarded.
import os as _os
import sys as _sys


def _pfprof_install():
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

        __next__._pfprof = True
        __next__.__wrapped__ = orig
        cls.__next__ = __next__

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


def _pfprof_wrap_exit():
    lib_path = _os.environ.get('CUDA_INJECTION64_PATH')
    real = _os._exit
    if not lib_path or getattr(real, '_pfprof', False):
        return

    def _exit(*args, **kwargs):
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
    try:
        _pfprof_install()
    except Exception:
        pass
    try:
        _pfprof_wrap_exit()
    except Exception:
        pass
_pfprof_chain()
