"""The public entry points: @transpile and emit()."""
from __future__ import annotations

import collections
import functools
import inspect
import threading
import types

import numpy as np

from . import compile_log, driver, pickling
from .errors import CompileError
from .runtime import call, errstate
from .runtime.jit import join_preload, preload_runtime_libraries
from .runtime.signature import flatten, with_int_values
from .tracebacks import user_frames


_error_state, _DEFAULT_ERROR_STATE = errstate.current_state, errstate.DEFAULT_STATE


class Transpiled:
    """A compiled function: called like the original, compiled once per argument signature."""

    def __init__(self, fn, *, static_shapes: bool = False, opt_level: int = 3, disk_cache: bool = True,
                 threads: bool = True, max_specializations: int = 64):
        self.py_func = fn
        self.static_shapes = static_shapes
        self.opt_level = opt_level
        self.threads = threads         # parallel loops on all cores (OpenMP; OMP_NUM_THREADS caps the count)
        self.disk_cache = disk_cache   # look up / store compiled kernels in TRANSPILER_CACHE_DIR
        self._read_signature()
        # compiled specializations, least recently used first: each keeps its machine code (a few MiB with the
        # JIT's own structures), so at most `max_specializations` are kept; an evicted one is compiled again (or
        # loaded from the disk cache) when it is called again
        self.max_specializations = max(1, int(max_specializations))
        self._cache: collections.OrderedDict = collections.OrderedDict()
        self._lock = threading.Lock()
        self.compilations = 0
        self.replays = 0          # calls that ran as NumPy after the kernel reported a floating-point event
        self._needs_int_values: set = set()   # keys whose programs need their Python ints at compile time
        # (class, name) of int and float attributes the compiled code rebinds (`self.t += 1`): run-time leaves from
        # then on (runtime/signature._flatten_object), unless a program needed one at compile time (`_typed`)
        self._runtime_attributes: set = set()
        self._constant_attributes: set = set()
        # the cheap call: arguments that are plain C-contiguous arrays, floats and ints (`_quick_key`) map straight
        # to their specialization's key and per-call path, skipping binding and flattening
        self._quick: dict = {}
        functools.update_wrapper(self, fn)

    def _read_signature(self) -> None:
        fn = self.py_func
        self._code = fn.__code__        # (replaced in place, `f.__code__ = other.__code__`: compiled anew)
        self.signature = inspect.signature(fn)
        self._defaults = (getattr(fn, "__defaults__", None), getattr(fn, "__kwdefaults__", None))
        params = list(self.signature.parameters.values())
        simple = all(p.kind == p.POSITIONAL_OR_KEYWORD for p in params)
        self._positional = [p.name for p in params] if simple else None   # the fast path of _bind
        self._arity = len(params) if simple else -1     # calls with this many positional arguments may be quick

    def _code_replaced(self) -> None:
        """The function's `__code__` was replaced after compiling: its kernels are another function's; every
        specialization compiles again from the new code (its source, its parameters)."""
        with self._lock:
            self._cache.clear()
            self._quick.clear()
            self._needs_int_values.clear()
            self._read_signature()

    # ---- specialization ------------------------------------------------------------------------------------------
    def _bind(self, args, kwargs):
        if self._positional is not None and not kwargs and len(args) == len(self._positional):   # the common call
            return _Bound(dict(zip(self._positional, args)))
        fn = self.py_func
        defaults = (getattr(fn, "__defaults__", None), getattr(fn, "__kwdefaults__", None))
        if defaults[0] is not self._defaults[0] or defaults[1] is not self._defaults[1]:
            self.signature = inspect.signature(fn)     # `f.__defaults__ = ...` after decorating: the new defaults
            self._defaults = defaults
        bound = self.signature.bind(*args, **kwargs)   # TypeError for wrong arguments, as the original
        bound.apply_defaults()
        return bound

    def _flatten(self, bound, objects: list | None = None):
        """(key, leaves, originals): Python ints are run-time values, unless programs with this key need their
        values at compile time (`_typed` found it out): then their values are part of the key. `objects` (a list)
        receives the argument objects in the key's order (their attributes the call rebinds are set on them)."""
        leaves, originals, keys, seen, ints = [], [], [], {}, []
        if objects is not None:
            seen["object list"] = objects
        if self._runtime_attributes:
            seen["run-time attributes"] = self._runtime_attributes
        for name, value in bound.arguments.items():
            keys.append(flatten(value, leaves, originals, self.static_shapes, seen, ints))
        key = tuple(keys)
        if ints and key in self._needs_int_values:
            key = with_int_values(key, ints)
        return key, leaves, originals

    def _typed(self, key, bound):
        """Type the program for `key`. Python ints are run-time values first; if the program needs one at compile
        time (a shape that must be static, an axis, a list index, a split count ...) typing fails, and the ints of
        this key specialize from then on (DESIGN.md, "Types"), which costs one failed typing pass."""
        names = list(bound.arguments)
        try:
            return key, driver.trace_free_typing(self.py_func, list(key), names)
        except CompileError:
            if self._runtime_attributes:   # a rebound number the program needs while compiling: a constant again
                self._constant_attributes |= self._runtime_attributes
                self._runtime_attributes = set()
                key, _, _ = self._flatten(bound)
                return self._typed(key, bound)
            if not _has_runtime_ints(key):
                raise
        self._needs_int_values.add(key)
        key, _, _ = self._flatten(bound)
        return key, driver.trace_free_typing(self.py_func, list(key), names)

    def specialization(self, args, kwargs):
        """(compiled entry, flat arrays, original leaves) for these arguments; compiles on first use."""
        _, entry, leaves, originals, _ = self._specialize(args, kwargs)
        return entry, leaves, originals

    def _specialize(self, args, kwargs):
        bound = self._bind(args, kwargs)
        objects: list = []
        key, leaves, originals = self._flatten(bound, objects)
        entry = self._cache.get(key)
        if entry is not None and not isinstance(entry, _Failed) and entry[0].globals_guard \
                and not entry[0].globals_guard.unchanged():
            with self._lock:      # a module-level array it folded in was rebound or changed: compile again
                self._cache.pop(key, None)
            entry = None
        if entry is not None and len(self._cache) > 1:
            try:
                self._cache.move_to_end(key)
            except KeyError:      # evicted by another thread meanwhile
                pass
        if entry is None:
            with self._lock:
                entry = self._cache.get(key)
                if entry is None:
                    try:
                        with compile_log.Compilation(self.py_func) as stages:
                            preload_runtime_libraries()   # (on another thread, while this one compiles)
                            with stages.stage("typing"):
                                typed_key, typed = self._typed(key, bound)
                            if typed_key != key:    # (ints given their values, rebound numbers made constants
                                objects = []        # again: the leaves of the key the program was typed for)
                                _, leaves, originals = self._flatten(bound, objects)
                                key = typed_key
                            rebound = typed.rebound_numbers - self._runtime_attributes - self._constant_attributes
                            if rebound:       # (their new values at the next call need no new compilation)
                                self._runtime_attributes = self._runtime_attributes | rebound
                            stages.signature = typed.program.signature_text()
                            kernel = driver.compile_kernel(typed, self.opt_level, self.disk_cache, self.threads,
                                                           stages)
                        entry = _Entry((typed, kernel))
                    except CompileError as e:   # the same arguments fail the same way: not compiled again
                        entry = _Failed(e)
                        key, leaves, _ = self._flatten(bound)    # (with int values, if typing found it needs them)
                    finally:
                        join_preload()      # (already joined where a kernel was linked)
                    self._cache[key] = entry
                    self.compilations += 1
                    while len(self._cache) > self.max_specializations:
                        self._cache.popitem(last=False)
                        self._quick.clear()   # (it may hold the evicted one)
        if isinstance(entry, _Failed):
            if entry.assumption_broken(leaves):    # NumPy fails earlier, or not at all: its run decides
                raise call.Replay
            raise entry.error.with_traceback(None)
        return key, entry, leaves, originals, objects

    def __call__(self, *args, **kwargs):
        if _error_state() is not _DEFAULT_ERROR_STATE and errstate.numpy_must_run():
            # np.errstate(...="raise") and the like: NumPy raises where it would
            return self.py_func(*args, **kwargs)
        if self.py_func.__code__ is not self._code:
            self._code_replaced()
        try:   # (inline, not helper calls: this is the per-call path)
            quick_key = _quick_key(args, self.static_shapes) if not kwargs and len(args) == self._arity else None
            if quick_key is not None:
                quick = self._quick.get(quick_key)
                if quick is not None:
                    key, entry, guard, convert = quick
                    if guard is None or guard.unchanged():
                        if len(self._cache) > 1:
                            try:
                                self._cache.move_to_end(key)   # (least recently used order, as the full path)
                            except KeyError:
                                pass
                        leaves = convert(args) if convert is not None else args
                        return entry.run(leaves, args, leaves)
            key, entry, leaves, originals, objects = self._specialize(args, kwargs)
            if quick_key is not None and not (self._needs_int_values and "i" in quick_key):
                self._quick[quick_key] = (key, entry, entry[0].globals_guard or None, _scalar_converter(quick_key))
            return entry.run(leaves, originals, call.contiguous(leaves), objects)
        except errstate.Events as events:
            raised = events   # (handled below, outside the handler: an error of the NumPy run is not chained to it)
        except call.Replay:
            # a failed check of a call that rebinds attributes: Python raises it, and leaves the objects as it does
            # (the attributes assigned before the error; runtime/call.py gave the written arrays back their contents);
            # or written arguments that overlap others: NumPy's run computes through the shared memory; or sizes that
            # break what a failed compilation assumed (_Failed.assumption_broken): NumPy fails earlier, or not at all
            raised = None
        except Exception as error:
            raise user_frames(error) from error.__cause__   # the user's frames only (tracebacks.py)
        # a big argument written in place: the kernel's value, the flags' warnings
        if raised is not None and errstate.has_value(raised):
            errstate.warn_from_flags(raised.events, self.py_func.__name__, 2)
            return raised.value
        # The kernel raised a floating-point event that the error state reports (a divide by zero, say, where
        # NumPy warns): the function runs as NumPy, which issues its own warnings, and its result is the call's
        # (the same values; arguments written in place were given back their old contents first, runtime/call.py)
        self.replays += 1
        return self.py_func(*args, **kwargs)

    def emit(self, *args, stage: str = "mlir", **kwargs) -> str:
        try:
            return self._emit(args, kwargs, stage)
        except Exception as error:
            raise user_frames(error) from error.__cause__

    def _emit(self, args, kwargs, stage):
        if stage not in driver.STAGES:
            raise ValueError(f"unknown stage {stage!r}; choose from {', '.join(driver.STAGES)}")
        bound = self._bind(args, kwargs)
        key, _, _ = self._flatten(bound)
        _, typed = self._typed(key, bound)
        return driver.stage_text(typed, stage)

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def __repr__(self) -> str:
        return f"<transpiled {self.py_func.__qualname__}>"

    # ---- pickling: the function and the options, not the kernels (see pickling.py) ------------------------------
    def __reduce__(self):
        return pickling.reduce(self)

    def _options(self) -> dict:
        return {"static_shapes": self.static_shapes, "opt_level": self.opt_level, "disk_cache": self.disk_cache,
                "threads": self.threads, "max_specializations": self.max_specializations}



class BoundTranspiled(Transpiled):
    """`transpile(obj.method)` or `transpile(obj)` (its `__call__`): the function compiled with `obj` as its first
    argument, passed at every call. The object is structure, as any argument object is (runtime/signature.py): its
    arrays are inputs (written in place in the caller's object), its other attributes specialize the kernel."""

    def __init__(self, fn, owner, **options):
        super().__init__(fn, **options)
        self.__self__ = owner

    def __call__(self, *args, **kwargs):
        return Transpiled.__call__(self, self.__self__, *args, **kwargs)

    def emit(self, *args, stage: str = "mlir", **kwargs) -> str:
        return Transpiled.emit(self, self.__self__, *args, stage=stage, **kwargs)

    def __repr__(self) -> str:
        return f"<transpiled {self.py_func.__qualname__} of {type(self.__self__).__name__} object>"

    def __reduce__(self):   # the function (pickled as a Transpiled is, pickling.py), its options and the object
        return (_rebind, (Transpiled(self.py_func, **self._options()), self.__self__))


def _rebind(compiled: Transpiled, owner) -> BoundTranspiled:
    return BoundTranspiled(compiled.py_func, owner, **compiled._options())


class _Failed:
    """A specialization whose compilation failed: its CompileError, raised again at every call whose sizes fit what
    typing assumed before the error (driver._assumed)."""
    __slots__ = ("error",)

    def __init__(self, error):
        self.error = error

    def assumption_broken(self, leaves) -> bool:
        """Whether these arguments break a size the failed typing assumed (a dim a concatenation or a broadcast
        unified with a constant or another dim): the error may follow from that assumption, and NumPy fails at the
        statement that needed it (after the writes before it), or, on a path it does not take, not at all."""
        assumed = getattr(self.error, "assumed", None)
        if assumed is None:
            return False
        env, implicit, count = assumed
        arrays = [*leaves, *implicit]
        if len(arrays) != count:
            return False
        try:
            env.check(arrays)
        except Exception:    # (ConditionalGuardFailed, or the NumPy error of the check: NumPy's run raises its own)
            return True
        return False


class _Entry(tuple):
    """A compiled specialization: (typed program, kernel), and `run`, its per-call path (runtime/call.py)."""

    def __init__(self, pair):
        self.run = call.runner(*pair)


class _Bound:
    """What inspect.BoundArguments gives for a call that passes every parameter by position, in a tenth of the time."""
    __slots__ = ("arguments",)

    def __init__(self, arguments: dict):
        self.arguments = arguments


def _quick_key(args, static_shapes: bool, ndarray=np.ndarray):
    """The cheap call's key: per argument, (dtype, which dims are 1, or the shape with static shapes) for a plain
    C-contiguous aligned array, "f" for a float, "i" for an int that fits int64; None for anything else (and for an
    array passed twice), which takes the full path (runtime/signature.flatten). Calls with equal quick keys have
    equal full keys. (Per-call path: the arrays seen are compared by identity as they come, which costs less than
    a set of their ids.)"""
    key, seen = [], None
    for a in args:
        kind = type(a)
        if kind is ndarray:
            flags = a.flags
            if not (flags.c_contiguous and flags.aligned):
                return None
            shape = a.shape
            key.append((a.dtype, shape if static_shapes else
                        tuple([d == 1 for d in shape]) if 1 in shape else len(shape)))
            if seen is None:
                seen = [a]
            else:
                for other in seen:
                    if a is other:
                        return None     # the same array twice is one kernel input ("same" in the full key)
                seen.append(a)
        elif kind is float:
            key.append("f")
        elif kind is int and -2**63 <= a < 2**63:
            key.append("i")
        else:
            return None
    return tuple(key)


def _scalar_converter(quick_key):
    """leaves(args) for a quick key with Python scalars: each float or int as the 0-d array flatten makes of it
    (np.array of a float is float64, of an int that fits int64 int64), the arrays as they are; None when there is
    no scalar to convert."""
    positions = [i for i, k in enumerate(quick_key) if k in ("f", "i")]
    if not positions:
        return None
    array = np.array

    def leaves(args):
        converted = list(args)
        for i in positions:
            converted[i] = array(converted[i])
        return converted
    return leaves


def _has_runtime_ints(key) -> bool:
    """Whether a key holds a run-time Python int ("I",) (not yet given its value)."""
    if key == ("I",):
        return True
    return isinstance(key, tuple) and any(_has_runtime_ints(k) for k in key if isinstance(k, tuple))


def transpile(fn=None, **options):
    """Compile a NumPy function: `@transpile`, `@transpile(static_shapes=True)` or `transpile(fn)`.

    Options: `static_shapes` (compile each array shape separately), `opt_level` (LLVM's, 0-3), `disk_cache` (reuse
    kernels compiled by earlier processes, see runtime/disk_cache.py), `max_specializations` (compiled signatures
    kept in memory, least recently used evicted; default 64), `threads` (split parallel loops across the
    cores, default True)."""
    if fn is None:
        return lambda f: Transpiled(f, **options)
    if isinstance(fn, Transpiled):       # new options make a new compiled function; none: the same one
        if not options:
            return fn
        current = fn._options()
        if isinstance(fn, BoundTranspiled):
            return BoundTranspiled(fn.py_func, fn.__self__, **{**current, **options})
        return Transpiled(fn.py_func, **{**current, **options})
    if isinstance(fn, types.MethodType) and inspect.isfunction(fn.__func__):       # transpile(obj.method)
        return BoundTranspiled(fn.__func__, fn.__self__, **options)
    call = getattr(type(fn), "__call__", None)
    if not inspect.isfunction(fn) and not isinstance(fn, type) and inspect.isfunction(call):   # transpile(obj)
        return BoundTranspiled(call, fn, **options)
    if not inspect.isfunction(fn):
        raise TypeError(f"transpile() needs a Python function, a method or an object with a __call__ method, got "
                        f"{type(fn).__name__}")
    return Transpiled(fn, **options)


def emit(fn, *args, stage: str = "mlir", **kwargs) -> str:
    """The IR of `fn` specialized for these example arguments, at `stage` (typed, mlir, optimized, llvm)."""
    return transpile(fn).emit(*args, stage=stage, **kwargs)
