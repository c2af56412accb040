"""Module-level arrays a compiled function reads are folded into its kernel as constants. The kernel stays valid
only while each module-level name (or item of a module-level list, tuple or dict, or attribute of a module-level
object) still holds the same array with the same contents: this guard is checked at every call, and a change makes
the call compile again (the disk cache then finds or stores the kernel for the new values).

Identity is checked for every array (a rebinding: `W = np.ones(3)` at module level). Contents are compared for
arrays of at most `MAX_COMPARED_BYTES` (an in-place change: `W[0] = 5`); larger arrays changed in place are not
detected, which docs/semantics.md says.

Other module-level values the compiler folds (a global `K = 2`, `FLAG`, `EPS = 1e-5`, a helper function `act`, a
dtype `DT = np.float32`, `config.EPS`, `Cfg.EPS`, `CFG.eps` of a module-level object, a list or dict of numbers
`COEF`) are guarded too: numbers, strings and NumPy scalars by type and value, lists, tuples, dicts and sets
without arrays by a snapshot of their contents, anything else (functions, classes, objects) by identity. So are
the methods and properties of user classes the program follows, the objects in module-level containers, the
default values of called functions and the functions read from NumPy and math (infer.py). Identity-compared values
of one namespace are checked in one tuple compare (`_compared_by_identity`)."""
from __future__ import annotations

import copy
import functools
import operator
from collections.abc import Mapping

import numpy as np

MAX_COMPARED_BYTES = 1 << 16


LENGTH = object()   # the key of an entry that guards a container's length (a loop over it was unrolled)

CELL = object()     # the key of an entry that guards a closure's cell (a free variable of the compiled function)

DEFAULTS = object()     # the key of an entry that guards a called function's `__defaults__` (its default values)
KWDEFAULTS = object()   # ... and its `__kwdefaults__`
CODE = object()         # ... and its `__code__` (replaced in place: `helper.__code__ = other.__code__`)

_SCALARS = (bool, int, float, complex, str, bytes, type(None), np.generic)


class Snapshot:
    """The value a folded module-level number, string or container of them had when compiling: the guard compares
    the name's value now against it (a rebinding to an equal value is not a change)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def matches(self, now) -> bool:
        try:
            return type(now) is type(self.value) and bool(now == self.value)
        except Exception:     # (a comparison that cannot answer: treat as changed, compile again)
            return False


class PartialSnapshot(Snapshot):
    """A `functools.partial` of numbers and strings: the same function, and arguments equal to the ones it had
    (its `keywords` dict can be changed in place: `P.keywords["k"] = 9`)."""
    __slots__ = ()

    def matches(self, now) -> bool:
        func, args, keywords = self.value
        try:
            return type(now) is functools.partial and now.func is func and now.args == args \
                and now.keywords == keywords
        except Exception:
            return False


def snapshot(value):
    """A Snapshot of value if it is compared by value (numbers, strings, containers of them, a partial of them),
    else None (identity)."""
    if isinstance(value, _SCALARS):
        return Snapshot(value)
    if _plain(value, 0):
        return Snapshot(copy.deepcopy(value))
    if type(value) is functools.partial and _plain(value.args, 0) and _plain(value.keywords, 0):
        return PartialSnapshot((value.func, copy.deepcopy(value.args), copy.deepcopy(value.keywords)))
    return None


def _plain(value, depth: int) -> bool:
    """Whether value is a number or string, or a (small, shallow) container of them: compared by value. Containers
    of arrays, objects or functions are guarded item by item or by identity instead (`==` on them would not say)."""
    if isinstance(value, _SCALARS):
        return True
    if depth > 4 or not isinstance(value, (list, tuple, dict, set, frozenset)) or len(value) > 4096:
        return False
    items = list(value.keys()) + list(value.values()) if isinstance(value, dict) else value
    return all(_plain(v, depth + 1) for v in items)


def _lookup(container, key):
    """What `container[key]` holds now (a namespace or dict by name, a list or tuple by position), or None."""
    if key is LENGTH:
        return len(container)
    if key is DEFAULTS:
        return container.__defaults__
    if key is KWDEFAULTS:
        return container.__kwdefaults__
    if key is CODE:
        return container.__code__
    if key is CELL:
        try:
            return container.cell_contents
        except ValueError:      # (emptied: `del` of the enclosing variable)
            return None
    if isinstance(container, Mapping):      # a namespace, a dict, a class's attributes (a mappingproxy)
        return container.get(key)
    return container[key] if -len(container) <= key < len(container) else None


def _compared_by_identity(value) -> bool:
    """Whether `==` on value is identity (functions, ufuncs, classes, modules, plain objects): such values of one
    namespace are checked together, `itemgetter(*names)(namespace) == values` (one tuple compare, which tries
    identity first: ~0.05 us a value where a Python loop costs ~0.5)."""
    eq = type(value).__eq__
    return eq is object.__eq__ or isinstance(value, _BUILTIN_FUNCTIONS)


_BUILTIN_FUNCTIONS = (type(len),)   # (`==` is "the same C function of the same object")


class GlobalsGuard:
    def __init__(self, reads: list):
        seen, self.entries, batched, absent = set(), [], {}, {}
        for namespace, name, array in reads:
            if (id(namespace), name) not in seen:
                seen.add((id(namespace), name))
                keyed = isinstance(namespace, Mapping) and isinstance(name, str) \
                    or isinstance(namespace, (list, tuple)) and type(name) is int
                if keyed and array is not None and not isinstance(array, Snapshot) and _compared_by_identity(array):
                    batched.setdefault(id(namespace), (namespace, []))[1].append((name, array))
                    continue
                if keyed and array is None and isinstance(namespace, Mapping):   # a name still not set there
                    absent.setdefault(id(namespace), (namespace, set()))[1].add(name)
                    continue
                small = isinstance(array, np.ndarray) and array.nbytes <= MAX_COMPARED_BYTES
                kept = array.copy() if small else None   # (a length, a container: identity or value only)
                # an array's shape, strides and dtype, which can change in place (`W.shape = (100, 200)`,
                # `W.dtype = np.int64`) while the kernel holds the old ones (a big array is an input of fixed type)
                layout = _layout(array) if isinstance(array, np.ndarray) else None
                if isinstance(array, Snapshot):          # a value compared, not an object
                    array, kept = None, array
                self.entries.append((namespace, name, array, kept, layout))
        # a namespace's functions, classes and objects: (namespace, getter of their names, the values they had)
        self.batches = [(namespace, operator.itemgetter(*[n for n, _ in items]),
                         items[0][1] if len(items) == 1 else tuple(v for _, v in items))
                        for namespace, items in batched.values()]
        # names that were not set in a namespace (a class attribute read through an object: not on the object, nor
        # on the classes before its owner): (namespace's keys, the names), checked with one isdisjoint each
        self.absent = [(namespace.keys(), frozenset(names)) for namespace, names in absent.values()]

    def __bool__(self) -> bool:
        return bool(self.entries) or bool(self.batches) or bool(self.absent)

    def unchanged(self) -> bool:
        for keys, names in self.absent:
            if not keys.isdisjoint(names):
                return False
        for namespace, getter, values in self.batches:
            try:
                if not getter(namespace) == values:   # (`==` is `is` for these, tried first)
                    return False
            except Exception:        # a name deleted (KeyError), a value whose `==` cannot answer: compile again
                return False
        for namespace, name, array, kept, layout in self.entries:
            now = _lookup(namespace, name)
            if isinstance(kept, Snapshot):
                if now is not kept.value and not kept.matches(now):
                    return False
                continue
            if now != array if name is LENGTH else now is not array:
                return False
            if layout is not None and _layout(array) != layout:
                return False
            if kept is not None and not np.array_equal(array, kept, equal_nan=True):
                return False
        return True


def _layout(array: np.ndarray) -> tuple:
    return array.shape, array.strides, array.dtype
