"""Pickling compiled functions: by reference to the Python function and the options, never the machine code.

A `Transpiled` pickles as Numba's dispatchers do: what travels is the Python function and the options of
`transpile()`; the compiled kernels, the lock and the caches stay behind, and the unpickled object compiles (or loads
from the disk cache) on first use in its process.

- A module-level `@transpile`d function (the module attribute is the Transpiled itself) pickles as a global name,
  like a plain function: unpickling imports the module and finds the very object, options included.
- `transpile(fn)` of a function reachable by name pickles as (fn, options), `fn` by reference.
- Anything else (a function of `__main__`, a lambda, closure or nested function) pickles by value with cloudpickle
  when it is installed (Dask brings it): `__main__` on a Dask worker is not the user's script, so a reference could
  not be resolved there. The source file of the function travels with it, since the compiler reads the source and
  a worker on another machine may not have the file. Without cloudpickle, a `__main__` function still pickles by
  name (processes that multiprocessing starts import the main script again); a lambda or closure is refused with a
  PicklingError that says what to do.

Every pickled Transpiled carries an id: unpickling it in a process that already has it (the same process, a forked
child, a worker that received it before) returns that object, with its compiled kernels, instead of compiling again.
The last RECENT objects made by unpickling are kept alive: pools and executors unpickle the function once per task
and drop it after, and each new copy would otherwise compile again.
"""
from __future__ import annotations

import collections
import inspect
import linecache
import os
import pickle
import sys
import threading
import types
import uuid
import weakref

RECENT = 16
DYNAMIC_CODE = "<dynamic-code>"   # cloudpickle's file name for the code it pickles by value

_live: weakref.WeakValueDictionary = weakref.WeakValueDictionary()   # id -> Transpiled, in this process
_recent: collections.OrderedDict = collections.OrderedDict()         # id -> Transpiled made by unpickling
_lock = threading.Lock()


def _new_lock() -> None:
    global _lock
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_new_lock)   # a pool's feeder thread may hold it while another pool forks


def reduce(compiled):
    """`Transpiled.__reduce__`: a global name, or a call of `_rebuild` / `_rebuild_by_value`."""
    fn = compiled.py_func
    module, qualname = getattr(fn, "__module__", None), fn.__qualname__
    found = _lookup(module, qualname)
    by_value = module == "__main__" or (found is not compiled and found is not fn) or module in _by_value_modules()
    if not by_value:
        return qualname if found is compiled else (_rebuild, (_pickle_id(compiled), fn, compiled._options()))
    try:
        import cloudpickle
    except ImportError:
        cloudpickle = None
    if cloudpickle is not None:
        filename, source = _source(fn)
        return (_rebuild_by_value,
                (_pickle_id(compiled), cloudpickle.dumps(fn), filename, source, compiled._options()))
    if module == "__main__" and found is compiled:
        return qualname
    if module == "__main__" and found is fn:
        return (_rebuild, (_pickle_id(compiled), fn, compiled._options()))
    raise pickle.PicklingError(
        f"cannot pickle {compiled!r}: {qualname} is not reachable by name in module {module} (a lambda, a closure, "
        "a nested function or a rebound name), and plain pickle cannot serialize such a function by value; define "
        "it at module level, or install cloudpickle, with which compiled functions pickle by value")


def _rebuild(pickle_id: str, fn, options: dict):
    from .api import Transpiled
    with _lock:
        compiled = _live.get(pickle_id)
        if compiled is None:
            compiled = Transpiled(fn, **options)
            compiled._pickle_id = pickle_id
            _live[pickle_id] = compiled
        _recent[pickle_id] = compiled
        _recent.move_to_end(pickle_id)
        while len(_recent) > RECENT:
            _recent.popitem(last=False)
    return compiled


def _rebuild_by_value(pickle_id: str, payload: bytes, filename: str | None, source: str | None, options: dict):
    with _lock:
        compiled = _live.get(pickle_id)
    if compiled is not None:     # already here: do not unpickle the function again
        return _rebuild(pickle_id, compiled.py_func, options)
    fn = pickle.loads(payload)
    if source is not None:
        _provide_source(filename, source)
    if filename is not None:
        _restore_filenames(fn, filename)
    return _rebuild(pickle_id, fn, options)


def _pickle_id(compiled) -> str:
    pickle_id = compiled.__dict__.get("_pickle_id")
    if pickle_id is None:
        pickle_id = compiled.__dict__.setdefault("_pickle_id", uuid.uuid4().hex)
        with _lock:
            _live[pickle_id] = compiled    # unpickled in this process: the same object
    return pickle_id


def _lookup(module: str | None, qualname: str):
    """What `module.qualname` names now, as pickle would find it; None when nothing."""
    obj = sys.modules.get(module) if module else None
    if obj is None or "<locals>" in qualname:
        return None
    try:
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except AttributeError:
        return None
    return obj


def _by_value_modules() -> set:
    """Modules registered with cloudpickle.register_pickle_by_value: their functions travel by value."""
    cloudpickle = sys.modules.get("cloudpickle")
    listed = getattr(cloudpickle, "list_registry_pickle_by_value", None)
    return set(listed()) if listed else set()


def _source(fn):
    """(file name, text) of the file the compiler reads the function's source from; the text is None if it cannot
    be read (the unpickled function then fails to compile, with the file name in the message)."""
    try:
        filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    except (TypeError, AttributeError):
        return None, None
    lines = linecache.getlines(filename)
    return filename, "".join(lines) if lines else None


def _restore_filenames(fn, filename: str) -> None:
    """cloudpickle (3.1) renames the file of the code it pickles by value to "<dynamic-code>", where the compiler
    could not find the source: give the function, and the functions of the same module it reaches through its
    globals and closure (helpers it calls), their file back."""
    seen, todo = set(), [fn, *fn.__globals__.values()]
    while todo:
        f = todo.pop()
        if id(f) in seen or not isinstance(f, types.FunctionType) or f.__globals__ is not fn.__globals__:
            continue
        seen.add(id(f))
        if f.__code__.co_filename == DYNAMIC_CODE:
            f.__code__ = _with_filename(f.__code__, filename)
        todo.extend(cell.cell_contents for cell in f.__closure__ or () if _filled(cell))


def _with_filename(code: types.CodeType, filename: str) -> types.CodeType:
    consts = tuple(_with_filename(c, filename) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _provide_source(filename: str, source: str) -> None:
    """Make the shipped source what the compiler reads for this file name here: the function's code came from it,
    and the file may be missing here or differ. Entries without a modification time stay in linecache (as
    IPython's cells do)."""
    if "".join(linecache.getlines(filename)) != source:
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
