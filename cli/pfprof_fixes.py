# SPDX-License-Identifier: MIT
# pfprof_fixes.py: the step timer and the fixes of `pfprof try`.
#
# `pfprof try` writes this file next to the start-up hook
# (cli/pfprof_sitecustomize.py, which imports it only when the launcher
# sets PFPROF_TRY_STEPS or PFPROF_TRY_FIXES), compiled into the binary as
# a GResource like the hook. docs/try.md says what each fix patches; its
# tests are tests/cli/test-fixes.py (a fake torch).
#
# Environment (set by `pfprof try`):
#   PFPROF_TRY_STEPS  a path; %p becomes the process id. One line per
#                     optimizer.step() (monotonic ns) goes to PATH, one per
#                     DataLoader batch to PATH.loader. No synchronisation
#                     is added: the program's timing is its own.
#   PFPROF_TRY_FIXES  comma-separated fixes (pin-memory, workers=N,
#                     persistent-workers, prefetch-factor=N, non-blocking,
#                     prefetch), or the measurement ideal-input[=K] alone
#   PFPROF_TRY_NOTES  a file that gets one line per fact the launcher
#                     reports: "STATE<TAB>FIX<TAB>TEXT", STATE one of
#                     applied, error (the fix raised and is off from then
#                     on), unpinnable (a batch type without pin_memory()),
#                     off (the fix did not apply, and why).
#
# Like the hook, it never imports torch itself and never raises into the
# program: a fix that fails is reported and the original call made.
import os as _os
import sys as _sys

DATALOADER = 'torch.utils.data.dataloader'
KNOWN = ('pin-memory', 'workers', 'persistent-workers', 'prefetch-factor', 'non-blocking', 'prefetch',
         'ideal-input')


def parse(text):
    """{fix: value or None} from PFPROF_TRY_FIXES; unknown names are
    left out (the launcher refuses them before it runs anything)."""
    fixes = {}
    for item in (text or '').split(','):
        name, _, value = item.strip().partition('=')
        if name in KNOWN:
            fixes[name] = int(value) if value else None
    return fixes


class Notes:
    def __init__(self, path):
        self.path = path
        self.seen = set()

    def say(self, state, fix, text=''):
        line = '%s\t%s\t%s\n' % (state, fix, ' '.join(str(text).split()))
        if line in self.seen or not self.path:
            return
        self.seen.add(line)
        try:
            with open(self.path, 'a', encoding='utf-8') as f:
                f.write(line)
        except Exception:
            pass

    def error(self, fix, e):
        self.say('error', fix, '%s: %s' % (type(e).__name__, e))


class StepLog:
    """Appends a monotonic time per event to a file of this process."""

    def __init__(self, path):
        import time
        self.path = path
        self.now = time.monotonic_ns
        self.fd = None
        self.pid = None

    def mark(self):
        try:
            pid = _os.getpid()
            if self.fd is None or self.pid != pid:  # a forked child has its own
                self.pid = pid
                name = self.path.replace('%p', str(pid))
                self.fd = _os.open(name, _os.O_WRONLY | _os.O_APPEND | _os.O_CREAT | _os.O_CLOEXEC, 0o600)
            _os.write(self.fd, b'%d\n' % self.now())
        except Exception:
            self.fd = None


def leaves(batch, path=()):
    """(path, tensor) of every tensor in a batch of tensors, lists, tuples
    and dicts, or None when it holds anything else (a custom type: the
    hook cannot tell what the loop does with it)."""
    import torch
    if isinstance(batch, torch.Tensor):
        return [(path, batch)]
    if isinstance(batch, (list, tuple)):
        items = enumerate(batch)
    elif isinstance(batch, dict):
        items = batch.items()
    elif isinstance(batch, (str, bytes, int, float, bool)) or batch is None:
        return []
    else:
        return None
    out = []
    for k, v in items:
        sub = leaves(v, path + (k,))
        if sub is None:
            return None
        out.extend(sub)
    return out


def unpinnable(batch):
    """The type names in a pinned batch that pin_memory() left as they
    were: not a tensor, a container of them or a plain value, and without
    a pin_memory() method."""
    import torch
    if isinstance(batch, torch.Tensor) or isinstance(batch, (str, bytes, int, float, bool)) or batch is None:
        return set()
    if isinstance(batch, (list, tuple)):
        vals = batch
    elif isinstance(batch, dict):
        vals = batch.values()
    elif hasattr(batch, 'pin_memory'):
        return set()
    else:
        return {type(batch).__module__ + '.' + type(batch).__qualname__}
    out = set()
    for v in vals:
        out |= unpinnable(v)
    return out


def target_device(torch, args, kwargs, cuda_call):
    """The device a .to()/.cuda() call moves to, or None when it is not
    one the hook can name (a dtype-only .to, something unknown)."""
    if cuda_call:
        d = kwargs.get('device', args[0] if args else None)
        if d is None:
            return torch.device('cuda', torch.cuda.current_device())
        if isinstance(d, int):
            return torch.device('cuda', d)
        d = torch.device(d)
    else:
        d = kwargs.get('device', args[0] if args else None)
        if isinstance(d, torch.Tensor):
            d = d.device
        elif isinstance(d, (str, int)) or isinstance(d, torch.device):
            d = torch.device(d) if not isinstance(d, int) else torch.device('cuda', d)
        else:
            return None
    if d.type == 'cuda' and d.index is None:
        d = torch.device('cuda', torch.cuda.current_device())
    return d


class Fixes:
    def __init__(self, fixes, notes, steps):
        self.fixes = fixes
        self.notes = notes
        self.steps = steps
        self.batch_leaves = None  # id(tensor) -> (weakref, batch number, path) of recent batches
        self.batches = 0
        self.prefetch = None
        self.pin_thread = False  # patch_single_process reached the DataLoader's iterators
        self.ideal = None  # IdealInput under ideal-input

    def off(self, fix, e):
        """A fix that raised: reported, and never applied again."""
        self.fixes.pop(fix, None)
        self.notes.error(fix, e)

    # -- DataLoader constructor arguments ---------------------------------
    def patch_loader(self, module):
        cls = getattr(module, 'DataLoader', None)
        if cls is not None and not getattr(cls.__init__, '_pfprof_try', False) and \
                any(f in self.fixes for f in ('pin-memory', 'workers', 'persistent-workers', 'prefetch-factor')):
            import inspect
            orig = cls.__init__
            sig = inspect.signature(orig)
            me = self

            def __init__(self, *args, **kwargs):
                try:
                    bound = sig.bind(self, *args, **kwargs)
                    me.loader_arguments(bound)
                    args, kwargs = bound.args[1:], bound.kwargs
                except Exception as e:
                    for f in ('pin-memory', 'workers', 'persistent-workers', 'prefetch-factor'):
                        if f in me.fixes:
                            me.off(f, e)
                return orig(self, *args, **kwargs)

            __init__._pfprof_try = True
            __init__.__wrapped__ = orig
            cls.__init__ = __init__
            if 'pin-memory' in self.fixes:
                self.patch_single_process(module, cls)
        if cls is not None and 'ideal-input' in self.fixes and not getattr(cls.__iter__, '_pfprof_try', False):
            self.ideal = IdealInput(self, self.fixes['ideal-input'])
            self.ideal.patch_iter(cls)
        it = getattr(module, '_BaseDataLoaderIter', None)
        if it is not None and not getattr(it.__next__, '_pfprof_try', False):
            self.patch_next(it)

    def patch_single_process(self, module, cls):
        """Under pin-memory a DataLoader without workers gets its batches
        pinned on a thread of the hook's: each of its pinning iterators
        (DataLoader._get_iterator) gets a PinThread, to which its
        _next_data hands the batch fetch."""
        single = getattr(module, '_SingleProcessDataLoaderIter', None)
        get_iterator = getattr(cls, '_get_iterator', None)
        if single is None or get_iterator is None or not hasattr(single, '_next_data') or \
                getattr(single._next_data, '_pfprof_try', False):
            return
        next_data = single._next_data
        me = self

        def _get_iterator(self):
            it = get_iterator(self)
            try:
                if getattr(self, 'num_workers', None) == 0 and isinstance(it, single) and \
                        getattr(it, '_pin_memory', False) and 'pin-memory' in me.fixes:
                    it._pfprof_pin = PinThread(me, it)
            except Exception as e:
                me.off('pin-memory', e)
            return it

        def _next_data(self):
            pin = self.__dict__.get('_pfprof_pin')
            if pin is None:
                return next_data(self)
            return pin.next(lambda: next_data(self))

        for f, o in ((_get_iterator, get_iterator), (_next_data, next_data)):
            f._pfprof_try = True
            f.__wrapped__ = o
        cls._get_iterator = _get_iterator
        single._next_data = _next_data
        self.pin_thread = True

    def loader_arguments(self, bound):
        a = bound.arguments
        f = self.fixes
        params = bound.signature.parameters

        def get(name):
            return a.get(name, params[name].default if name in params else None)

        def put(fix, name, value, more=''):
            if name not in params and not any(p.kind == p.VAR_KEYWORD for p in params.values()):
                self.notes.say('off', fix, 'this DataLoader has no %s argument' % name)
                return
            a[name] = value
            self.notes.say('applied', fix, '%s=%r%s' % (name, value, more))

        if 'workers' in f:
            ds = get('dataset')
            import torch.utils.data as tud
            iterable = getattr(tud, 'IterableDataset', None)
            if iterable is not None and isinstance(ds, iterable) and (get('num_workers') or 0) == 0:
                # Every worker would replay the whole iterable dataset.
                self.notes.say('off', 'workers', 'an IterableDataset read by one process: more workers would '
                               'repeat its samples')
            else:
                put('workers', 'num_workers', f['workers'])
        if 'pin-memory' in f:
            # Without workers torch pins each batch in the loop's own thread,
            # a host copy of the whole batch that the loop waits for; the
            # hook moves it to a thread of its own (patch_single_process).
            # Where it cannot, that is said: the gain then falls short of
            # what the copies cost.
            more = ''
            if (get('num_workers') or 0) == 0:
                more = '; the DataLoader has no worker processes (num_workers=0), so ' + (
                    'the hook pins each batch on a thread of its own, one batch ahead of the loop, as the '
                    'pin-memory thread beside workers does' if self.pin_thread else
                    'each batch is pinned on the main thread, a host copy every step (workers=N moves it '
                    'to a pin-memory thread)')
            put('pin-memory', 'pin_memory', True, more)
        if (get('num_workers') or 0) == 0:
            for fix in ('persistent-workers', 'prefetch-factor'):
                if fix in f:
                    self.notes.say('off', fix, 'the DataLoader has no worker processes (num_workers=0)')
            return
        if 'persistent-workers' in f:
            put('persistent-workers', 'persistent_workers', True)
        if 'prefetch-factor' in f:
            put('prefetch-factor', 'prefetch_factor', f['prefetch-factor'])

    def patch_pin(self, module):
        """Wraps torch.utils.data._utils.pin_memory.pin_memory, which the
        DataLoader (and its pin-memory thread) calls on each batch, to
        report the batch types it leaves unpinned."""
        orig = getattr(module, 'pin_memory', None)
        if orig is None or getattr(orig, '_pfprof_try', False):
            return
        me = self

        def pin_memory(data, *args, **kwargs):
            out = orig(data, *args, **kwargs)
            try:
                for name in unpinnable(out):
                    me.notes.say('unpinnable', 'pin-memory', '%s has no pin_memory() method: its tensors stay '
                                 'pageable (give it one, as the DataLoader documentation says)' % name)
            except Exception:
                pass
            return out

        pin_memory._pfprof_try = True
        pin_memory.__wrapped__ = orig
        module.pin_memory = pin_memory

    # -- the batches: step timer, non-blocking, prefetch ------------------
    def patch_next(self, cls):
        orig = cls.__next__
        me = self

        def __next__(self):
            if me.steps is not None:
                me.steps.mark()
            if me.ideal is not None and '_pfprof_ideal' in self.__dict__ and 'ideal-input' in me.fixes:
                return me.ideal.next(self, orig)
            if me.prefetch is not None and 'prefetch' in me.fixes:
                try:
                    return me.prefetch.next(self, orig)
                except StopIteration:
                    raise
                except Exception as e:
                    if getattr(e, '_pfprof_user', False):
                        raise
                    me.off('prefetch', e)
                    me.prefetch.close()
            batch = orig(self)
            me.seen(batch)
            return batch

        __next__._pfprof_try = True
        __next__.__wrapped__ = orig
        cls.__next__ = __next__

    def seen(self, batch):
        """Remembers the tensors of the last batches, for non-blocking and
        for prefetch's first look at what the loop moves."""
        if self.batch_leaves is None:
            return
        try:
            import weakref
            found = leaves(batch)
            self.batches += 1
            if found is None:
                if 'prefetch' in self.fixes:
                    self.notes.say('off', 'prefetch', 'a batch holds a %s: the hook cannot tell what the loop '
                                   'moves to the GPU' % type(batch).__name__)
                    self.fixes.pop('prefetch', None)
                return
            keep = {k: v for k, v in self.batch_leaves.items() if v[1] >= self.batches - 1 and v[0]() is not None}
            for path, t in found:
                keep[id(t)] = (weakref.ref(t), self.batches, path)
            self.batch_leaves = keep
        except Exception as e:
            for fix in ('non-blocking', 'prefetch'):
                if fix in self.fixes:
                    self.off(fix, e)

    def batch_tensor(self, t):
        e = self.batch_leaves.get(id(t)) if self.batch_leaves else None
        if e is None or e[0]() is not t:
            return None
        return e

    def patch_torch(self, torch):
        if 'non-blocking' not in self.fixes and 'prefetch' not in self.fixes:
            return
        self.batch_leaves = {}
        if 'prefetch' in self.fixes:
            self.prefetch = Prefetch(self, torch)
        tensor = torch.Tensor
        for name in ('to', 'cuda'):
            orig = getattr(tensor, name, None)
            if orig is not None and not getattr(orig, '_pfprof_try', False):
                setattr(tensor, name, self.wrap_move(torch, orig, name == 'cuda'))

    def wrap_move(self, torch, orig, cuda_call):
        me = self

        def move(self, *args, **kwargs):
            e = me.batch_tensor(self)
            if e is None:
                return orig(self, *args, **kwargs)
            try:
                dev = target_device(torch, args, kwargs, cuda_call)
                ok = dev is not None and dev.type == 'cuda' and self.device.type == 'cpu'
                if ok and me.prefetch is not None and 'prefetch' in me.fixes:
                    out = me.prefetch.moved(self, e, dev, args, kwargs, cuda_call)
                    if out is not None:
                        return out
                if ok and 'non-blocking' in me.fixes and not kwargs.get('non_blocking') and \
                        not (len(args) >= 2 and isinstance(args[-1], bool)) and self.is_pinned():
                    # Host to device from pinned memory only: the host
                    # copy is a fresh batch the program does not rewrite.
                    kwargs = dict(kwargs, non_blocking=True)
                    me.notes.say('applied', 'non-blocking', 'host-to-device copies of pinned batches')
            except Exception as err:
                for fix in ('non-blocking', 'prefetch'):
                    if fix in me.fixes:
                        me.off(fix, err)
            return orig(self, *args, **kwargs)

        move.__name__ = getattr(orig, '__name__', 'to')
        move.__wrapped__ = orig
        move._pfprof_try = True
        return move


class Prefetch:
    """The batches' tensors that the loop moves to a GPU, copied there on
    a side stream one batch ahead. Looks at the first LOOK batches: the
    paths of the tensors the loop moved (a path of keys into the batch)
    must be the same in each, to one device, from pinned memory; then each
    later batch's tensors at those paths are copied as soon as the batch
    is fetched, into memory allocated on the consumer stream (so no
    record_stream is needed), after the side stream waited for the
    consumer (the memory may be a block the consumer freed), and the
    program's own .to()/.cuda() of such a tensor returns the copy once
    the consumer stream waited for the side stream, unless the tensor was
    changed in place since (its _version moved)."""

    LOOK = 2

    def __init__(self, fixes, torch):
        self.fixes = fixes
        self.torch = torch
        self.moves = {}      # batch number -> {path: device} the loop moved
        self.plan = None     # {path: device} once decided
        self.ahead = None    # [batch, {id(cpu tensor): (cpu, gpu, device, version)}], an exception or StopIteration
        self.ready = {}      # id(cpu tensor) -> (cpu, gpu, device, version) of the batch handed out
        self.streams = {}

    def close(self):
        self.plan = None
        self.ahead = None
        self.ready = {}

    def moved(self, t, entry, dev, args, kwargs, cuda_call):
        """The loop moves batch tensor T to DEV: the prefetched copy when
        there is one and the call asks for nothing but the device."""
        got = self.ready.pop(id(t), None)
        if got is not None and got[0] is t:
            extra = {k: v for k, v in kwargs.items() if k not in ('device', 'non_blocking')}
            plain = not extra and len(args) <= 1 and (cuda_call or not args or not isinstance(args[0], self.torch.Tensor))
            # A tensor the loop changed in place since the copy: moved anew.
            if plain and got[2] == dev and getattr(t, '_version', None) == got[3]:
                self.torch.cuda.current_stream(dev).wait_stream(self.stream(dev))
                return got[1]
            return None
        if self.plan is None:
            _, number, path = entry
            if number <= self.LOOK:
                if not t.is_pinned():
                    self.fixes.notes.say('off', 'prefetch', 'the batches are not in pinned memory (add pin-memory)')
                    self.fixes.fixes.pop('prefetch', None)
                    return None
                self.moves.setdefault(number, {})[path] = dev
        return None

    def stream(self, dev):
        s = self.streams.get(dev)
        if s is None:
            s = self.streams[dev] = self.torch.cuda.Stream(device=dev)
        return s

    def decide(self):
        seen = [self.moves.get(n) for n in range(1, self.LOOK + 1)]
        if any(not s for s in seen) or any(s != seen[0] for s in seen):
            self.fixes.notes.say('off', 'prefetch', 'the first batches were not moved to the GPU alike: the hook '
                                 'cannot tell which tensors to prefetch')
            self.fixes.fixes.pop('prefetch', None)
            return False
        self.plan = seen[0]
        self.fixes.notes.say('applied', 'prefetch', '%d tensors a batch' % len(self.plan))
        return True

    def start(self, batch):
        """Starts the copies of BATCH's planned tensors on the side stream."""
        torch = self.torch
        found = dict(leaves(batch) or [])
        copies = {}
        for path, dev in self.plan.items():
            cpu = found.get(path)
            if cpu is None or not cpu.is_pinned():
                continue
            consumer = torch.cuda.current_stream(dev)
            gpu = torch.empty_like(cpu, device=dev)   # on the consumer stream
            side = self.stream(dev)
            side.wait_stream(consumer)
            with torch.cuda.stream(side):
                gpu.copy_(cpu, non_blocking=True)
            copies[id(cpu)] = (cpu, gpu, dev, getattr(cpu, '_version', None))
        return copies

    def fetch(self, it, orig):
        try:
            batch = orig(it)
        except StopIteration:
            return StopIteration
        except BaseException as e:
            e._pfprof_user = True
            return e
        self.fixes.seen(batch)
        return [batch, self.start(batch)]

    def next(self, it, orig):
        if self.plan is None:
            if self.fixes.batches < self.LOOK or not self.decide():
                batch = orig(it)
                self.fixes.seen(batch)
                return batch
        # One batch ahead: what was fetched last time (nothing after the
        # loader raised) is handed out, the next one fetched and copied.
        current = self.ahead if self.ahead is not None else self.fetch(it, orig)
        self.ahead = None
        if current is StopIteration:
            raise StopIteration
        if isinstance(current, BaseException):
            raise current
        self.ahead = self.fetch(it, orig)
        self.ready = current[1]
        return current[0]


def replace(batch, new, path=()):
    """@batch (of tensors, lists, tuples and dicts, as leaves() reads it)
    with the tensors at the paths of @new replaced by their values."""
    if path in new:
        return new[path]
    if isinstance(batch, (list, tuple)):
        vals = [replace(v, new, path + (i,)) for i, v in enumerate(batch)]
        if isinstance(batch, list):
            return vals
        return type(batch)(*vals) if hasattr(batch, '_fields') else type(batch)(vals)
    if isinstance(batch, dict):
        out = {k: replace(v, new, path + (k,)) for k, v in batch.items()}
        try:
            return type(batch)(out)
        except Exception:
            return out
    return batch


def pinned_limit(most):
    """@most bytes or an eighth of the machine's memory, whichever is
    less: what the hook may keep in pinned memory, which cannot be
    swapped out."""
    try:
        return min(most, _os.sysconf('SC_PAGE_SIZE') * _os.sysconf('SC_PHYS_PAGES') // 8)
    except (ValueError, OSError, AttributeError):
        return most


def host_bytes(batch):
    """The bytes of the CPU tensors in a batch (pin_tree's reach)."""
    import torch
    if isinstance(batch, torch.Tensor):
        return batch.numel() * batch.element_size() if batch.device.type == 'cpu' else 0
    if isinstance(batch, (list, tuple)):
        return sum(host_bytes(v) for v in batch)
    if isinstance(batch, dict):
        return sum(host_bytes(v) for v in batch.values())
    if hasattr(batch, '__dict__') and not isinstance(batch, type):
        return sum(host_bytes(v) for v in vars(batch).values())
    return 0


def pin_tree(batch):
    """A copy of @batch whose CPU tensors are in pinned memory: tensors,
    lists, tuples (named too), dicts, objects with a pin_memory() method
    and other objects whose attributes hold tensors (copied, their
    attributes pinned). Anything else is kept as it is."""
    import copy
    import torch
    if isinstance(batch, torch.Tensor):
        return batch.pin_memory() if batch.device.type == 'cpu' and not batch.is_pinned() else batch
    if isinstance(batch, (list, tuple)):
        vals = [pin_tree(v) for v in batch]
        if isinstance(batch, list):
            return vals
        return type(batch)(*vals) if hasattr(batch, '_fields') else type(batch)(vals)
    if isinstance(batch, dict):
        out = {k: pin_tree(v) for k, v in batch.items()}
        try:
            return type(batch)(out)
        except Exception:
            return out
    if isinstance(batch, (str, bytes, int, float, bool, type)) or batch is None:
        return batch
    if callable(getattr(batch, 'pin_memory', None)):
        return batch.pin_memory()
    if hasattr(batch, '__dict__'):
        out = copy.copy(batch)
        for k, v in vars(batch).items():
            object.__setattr__(out, k, pin_tree(v))   # a frozen dataclass too
        return out
    return batch


class IdealInput:
    """ideal-input: the input pipeline taken out. The first K batches
    that the loop received from each DataLoader are kept, their CPU
    tensors pinned (pin_tree), and handed out again for the rest of the
    run, as many a pass as the DataLoader has batches (len()), batch n of
    a pass being kept batch n modulo the number kept, so
    the loop's steps show what the GPU does when input costs nothing.
    Once a DataLoader has its K batches, iter() of it makes no iterator
    of torch's (no workers started, no sampler read). The batches kept
    are at most MAX_BYTES in all or an eighth of the machine's memory,
    whichever is less; a DataLoader that reaches the cap replays the
    batches it has (at least its first). A DataLoader without len() is
    read as it is: the end of its pass is known only by reading it."""

    BATCHES = 8
    MAX_BYTES = 8 << 30

    class Loader:
        def __init__(self, length):
            self.length = length   # batches a pass
            self.kept = []
            self.full = False
            self.pinned = True   # no pin raised
            self.bytes = 0       # of CPU tensors kept

    def __init__(self, fixes, k):
        self.fixes = fixes
        self.k = k or self.BATCHES
        self.bytes = 0
        self.limit = pinned_limit(self.MAX_BYTES)

    def loader(self, loader):
        """The Loader state of a DataLoader, made at its first pass; None
        when it is not replayed."""
        st = loader.__dict__.get('_pfprof_ideal')
        if st is None:
            try:
                st = self.Loader(len(loader))
            except Exception:
                st = False
                self.fixes.notes.say('off', 'ideal-input', 'a DataLoader without len() (%s) is read as it is: '
                                     'the end of its pass is known only by reading it'
                                     % type(getattr(loader, 'dataset', None)).__name__)
            loader.__dict__['_pfprof_ideal'] = st
        return st or None

    def keep(self, st, batch):
        """@batch kept (pinned) in @st, or as it is when the cap is
        reached; returns the batch to hand out."""
        n = host_bytes(batch)
        if st.kept and self.bytes + n > self.limit:
            self.done(st, 'the cap of %d MiB reached' % (self.limit >> 20))
            return batch
        try:
            kept = pin_tree(batch)
        except Exception as e:
            self.fixes.notes.say('off', 'ideal-input', 'the batches are replayed unpinned: pinning one '
                                 'raised %s: %s' % (type(e).__name__, e))
            kept = batch
            st.pinned = False
        st.kept.append(kept)
        st.bytes += n
        self.bytes += n
        if len(st.kept) >= self.k:
            self.done(st, '')
        return kept

    def done(self, st, why):
        st.full = True
        self.fixes.notes.say('applied', 'ideal-input', 'a DataLoader of %d batches a pass: its first %d kept%s and '
                             'replayed%s' % (st.length, len(st.kept), ' (pinned)' if st.pinned and st.bytes else '',
                                             ' (%s)' % why if why else ''))

    def next(self, it, orig):
        """The next batch of a torch iterator @it of a DataLoader's pass."""
        st, served = it.__dict__['_pfprof_ideal']
        if not st.full:
            try:
                batch = orig(it)
            except StopIteration:
                if st.kept:
                    self.done(st, 'a pass shorter than %d batches' % self.k)
                raise
            served[0] += 1
            return self.keep(st, batch)
        if served[0] >= st.length:
            raise StopIteration
        served[0] += 1
        return st.kept[(served[0] - 1) % len(st.kept)]

    def patch_iter(self, cls):
        orig = cls.__iter__
        me = self

        def __iter__(self):
            try:
                st = me.loader(self)
            except Exception as e:
                st = None
                me.fixes.off('ideal-input', e)
            if st is not None and st.full:
                return Replay(me.fixes, st)
            it = orig(self)
            if st is not None:
                try:
                    it.__dict__['_pfprof_ideal'] = (st, [0])
                except Exception as e:
                    me.fixes.off('ideal-input', e)
            return it

        __iter__._pfprof_try = True
        __iter__.__wrapped__ = orig
        cls.__iter__ = __iter__


class Replay:
    """A pass of a DataLoader under ideal-input once its batches are
    kept: the kept batches in turn, len() of them."""

    def __init__(self, fixes, st):
        self.fixes, self.st, self.i = fixes, st, 0

    def __iter__(self):
        return self

    def __len__(self):
        return self.st.length

    def __next__(self):
        if self.i >= self.st.length:
            raise StopIteration
        if self.fixes.steps is not None:
            self.fixes.steps.mark()
        self.i += 1
        return self.st.kept[(self.i - 1) % len(self.st.kept)]


class PinCache:
    """The pinned copies of tensors that a dataset hands out again and
    again (batches kept in memory: a pool, a list of tensors), so that a
    batch seen before is not copied into pinned memory again, as a
    dataset that pinned its tensors once would have them. The copy made
    last time is handed out again only when it is a fresh copy's equal
    in every way the program can tell: the same tensor object came back
    (alive all along: the entry goes with it), neither it nor the copy
    was changed in place since (their _version), it still has the same
    memory, the program holds no reference to the old copy any more (a
    batch it kept must not become an alias of the new one), and SAMPLE
    elements at random places agree (a write the version does not see,
    through numpy). Contiguous tensors of at least MIN_BYTES only, at
    most MAX_BYTES in all or an eighth of the machine's memory, whichever
    is less (pinned memory cannot be swapped out); otherwise a fresh
    copy, as without it."""

    MIN_BYTES = 1 << 20
    MAX_BYTES = 8 << 30
    SAMPLE = 1024

    def __init__(self, torch):
        import collections
        self.torch = torch
        # id(tensor) -> Entry: the tensor (weakly), what it was when copied, the copy
        self.Entry = collections.namedtuple('Entry', 'ref version ptr copy copy_version sample nbytes')
        self.entries = {}
        self.bytes = 0
        self.limit = pinned_limit(self.MAX_BYTES)

    def drop(self, key, ref=None):
        e = self.entries.get(key)
        if e is not None and (ref is None or e.ref is ref):
            del self.entries[key]
            self.bytes -= e.nbytes

    def hit(self, t):
        """The pinned copy of @t to hand out again, or None."""
        key = id(t)
        e = self.entries.get(key)
        if e is None:
            return None
        try:
            # getrefcount: the entry's reference and its own argument.
            ok = (e.ref() is t and t._version == e.version and t.data_ptr() == e.ptr
                  and e.copy._version == e.copy_version and _sys.getrefcount(e.copy) == 2
                  and self.torch.equal(t.reshape(-1)[e.sample], e.copy.reshape(-1)[e.sample]))
        except Exception:
            ok = False
        if not ok:
            self.drop(key)
            return None
        return e.copy

    def add(self, t, copy):
        import weakref
        torch = self.torch
        try:
            if copy is t or not isinstance(t, torch.Tensor) or not isinstance(copy, torch.Tensor) or \
                    not copy.is_pinned() or not t.is_contiguous() or id(t) in self.entries:
                return
            n = t.numel() * t.element_size()
            if n < self.MIN_BYTES or self.bytes + n > self.limit:
                return
            key = id(t)
            ref = weakref.ref(t, lambda r, key=key: self.drop(key, r))
            idx = torch.randint(0, t.numel(), (min(self.SAMPLE, t.numel()),))
            self.entries[key] = self.Entry(ref, t._version, t.data_ptr(), copy, copy._version, idx, n)
            self.bytes += n
        except Exception:
            return


class PinThread:
    """The batches of one iterator of a DataLoader without workers, pinned
    on a thread of the hook's one batch ahead, as the DataLoader's
    pin-memory thread does beside its workers: the loop's thread no
    longer makes the host copy of each batch that pinning is. The batches
    are still fetched on the loop's thread and in order (the dataset's
    code runs where it ran); what moves is the fetch of the next batch,
    ahead of the loop body, as with workers. The thread sets the loop's
    device first (pinned memory belongs to a device's context; another
    device's context would be made for it) and the loop's number of
    intra-op threads, so the copy runs as fast as it ran on the loop's
    thread (torch's pin-memory thread takes one, beside workers that use
    the cores; a 154 MB batch then takes 27 ms, against 3-4 ms on 16).
    A batch is pinned before the next one is fetched: a dataset that
    refills one buffer must not refill it while the thread copies it. A
    tensor the dataset hands out again reuses its pinned copy where
    PinCache allows. A pin that raises turns pin-memory off and hands out
    the batch unpinned, as the loop would have had it without the fix; an
    error of the program's own fetch reaches the program at the batch it
    belongs to."""

    def __init__(self, fixes, it):
        import queue
        import threading
        import weakref
        from concurrent.futures import Future
        import torch
        from torch.utils.data._utils import pin_memory as module
        self.Future = Future
        self.fixes = fixes
        self.module = module
        self.args = (it._pin_memory_device,) if hasattr(it, '_pin_memory_device') else ()
        self.ahead = None   # (future, batch), StopIteration, or the fetch's exception
        self.cache = PinCache(torch)
        self.jobs = queue.SimpleQueue()
        device = torch.cuda.current_device()
        threads = torch.get_num_threads()
        threading.Thread(target=self.run, args=(torch, device, threads, self.jobs), daemon=True,
                         name='pfprof-try-pin').start()
        weakref.finalize(it, self.jobs.put, None)
        it._pin_memory = False   # its own _next_data pins no more

    def run(self, torch, device, threads, jobs):
        try:
            torch.set_num_threads(threads)
            torch.cuda.set_device(device)
        except Exception:
            pass
        while True:
            job = jobs.get()
            if job is None:
                return
            future, batch = job
            try:
                future.set_result(self.pin(batch))
            except BaseException as e:
                future.set_exception(e)

    def pin(self, batch):
        """The batch pinned, with the pinned copies PinCache still holds
        for the tensors it had handed out before."""
        found = leaves(batch)
        if not found:
            return self.module.pin_memory(batch, *self.args)
        hits = {}
        for path, t in found:
            c = self.cache.hit(t)
            if c is not None:
                hits[path] = c
        if hits:
            self.fixes.notes.say('applied', 'pin-memory', 'tensors the dataset hands out again get the pinned '
                                 'copy made of them before')
        out = self.module.pin_memory(replace(batch, hits) if hits else batch, *self.args)
        pinned = leaves(out)
        if pinned is not None and [p for p, _ in pinned] == [p for p, _ in found]:
            for (path, t), (_, o) in zip(found, pinned):
                if path not in hits:
                    self.cache.add(t, o)
        return out

    def submit(self, fetch):
        """The next batch fetched and handed to the thread: (future, batch),
        (None, batch) once pin-memory is off, or what the fetch raised."""
        try:
            batch = fetch()
        except StopIteration:
            return StopIteration
        except Exception as e:
            return e
        if 'pin-memory' in self.fixes.fixes:
            try:
                future = self.Future()
                self.jobs.put((future, batch))
                return future, batch
            except Exception as e:
                self.fixes.off('pin-memory', e)
        return None, batch

    def next(self, fetch):
        current = self.ahead if self.ahead is not None else self.submit(fetch)
        self.ahead = None
        if current is StopIteration:
            raise StopIteration
        if isinstance(current, BaseException):
            raise current
        future, batch = current
        out = batch
        if future is not None:
            try:
                out = future.result()
            except Exception as e:
                self.fixes.off('pin-memory', e)
        self.ahead = self.submit(fetch)
        return out


def install(when_imported):
    """Called by the start-up hook with its import watcher."""
    path = _os.environ.get('PFPROF_TRY_STEPS')
    notes = Notes(_os.environ.get('PFPROF_TRY_NOTES'))
    fixes = Fixes(parse(_os.environ.get('PFPROF_TRY_FIXES')), notes, StepLog(path) if path else None)
    _sys.modules[__name__].active = fixes
    here = _os.path.dirname(_os.path.abspath(__file__))
    _sys.path[:] = [p for p in _sys.path if _os.path.abspath(p or '.') != here]

    if fixes.steps is not None:
        loader_steps = StepLog(path + '.loader')
        fixes.steps, opt_steps = loader_steps, fixes.steps

        def patch_optim(module):
            register = getattr(module, 'register_optimizer_step_post_hook', None)
            if register is not None:
                register(lambda opt, args, kwargs: opt_steps.mark())

        when_imported('torch.optim.optimizer', patch_optim)
    when_imported('torch', fixes.patch_torch)
    when_imported(DATALOADER, fixes.patch_loader)
    if 'pin-memory' in fixes.fixes:
        when_imported('torch.utils.data._utils.pin_memory', fixes.patch_pin)
