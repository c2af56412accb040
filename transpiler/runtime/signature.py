"""The call boundary: Python arguments -> (specialization key, flat list of arrays), and back for results.

What specializes (is part of the key) and what is run-time data:
- arrays: dtype, rank, which dims are 1 (so broadcasting is decided at compile time) and as much of the layout as
  NumPy's reshape and ravel depend on (`layout`: C-contiguous, one strided line, or neither); sizes are run-time;
- NumPy scalars and Python floats: dtype only; their values are run-time (0-d inputs);
- Python ints: run-time values (0-d int64 inputs), unless the program needs their value while compiling; then the
  signature's ints specialize by value (api.Transpiled._typed, `with_int_values`);
- Python bool/str/None and other hashable objects: their value (they usually shape the program);
- lists of plain numbers: data, like np.asarray of them (token ids that grow must not recompile);
- tuples, other lists, dicts: their structure (lengths, keys) specializes; their leaves follow these rules;
- objects of the user's classes (and dataclasses, NamedTuples): structure, as containers are: their class and
  attribute names specialize, their arrays and NumPy scalars are run-time leaves (written in place, they change in
  the caller's object), and their Python ints, floats, strings, lists and sub-objects are read at compile time
  (their values are part of the key: a changed int, a new attribute or a longer list of layers compiles again).
"""
from __future__ import annotations

import enum
import functools
import numbers
import types

import numpy as np

from ..errors import UserError
from ..program import Var
from ..types import dtypes
from ..types.shapes import Sym

_NUMBER_TYPES = (bool, int, float, complex, np.bool_, np.integer, np.floating, np.complexfloating)


def flatten(value, leaves: list, originals: list, static_shapes: bool = False, seen: dict | None = None,
            ints: list | None = None):
    """The key part for `value`; run-time leaves are appended to `leaves` (as arrays) and `originals`. An array
    passed a second time (the same object, `seen` maps its id to its leaf) is ("same", leaf): one kernel input, so
    a write through either name is seen through the other, as in NumPy. With `ints` (a list), Python ints that fit
    int64 are run-time leaves too, ("I",), their values appended to `ints` (with_int_values: the key for a program
    that needs them at compile time)."""
    if isinstance(value, np.ndarray):
        if type(value) is not np.ndarray:
            value = _plain_array(value)
        if seen is not None:
            first = seen.setdefault(id(value), len(leaves))
            if first != len(leaves):
                return ("same", first)
        dtype = value.dtype
        if dtype not in dtypes.SUPPORTED_SET:
            raise TypeError(f"unsupported array dtype {dtype} (supported: "
                            f"{', '.join(map(str, dtypes.SUPPORTED))})")
        leaves.append(value)
        originals.append(value)
        shape = value.shape
        # the layout specializes as far as NumPy's reshape depends on it (a view or a copy), so a write through a
        # reshape reaches the argument exactly when it does in NumPy
        return ("A", dtype.str, len(shape), shape if static_shapes else tuple([d == 1 for d in shape]),
                layout(value))
    if isinstance(value, np.generic):
        if value.dtype not in dtypes.SUPPORTED:
            raise TypeError(f"unsupported scalar type {type(value).__name__}")
        leaves.append(np.asarray(value))
        originals.append(value)
        return ("S", value.dtype.str)
    if isinstance(value, float):
        leaves.append(np.asarray(value, dtype=np.float64))
        originals.append(value)
        return ("F",)
    if isinstance(value, complex):       # like a float: a weak run-time value
        leaves.append(np.asarray(value, dtype=np.complex128))
        originals.append(value)
        return ("Z",)
    if type(value) is int and ints is not None and -2**63 <= value < 2**63:
        ints.append(value)
        leaves.append(np.asarray(value, dtype=np.int64))
        originals.append(value)
        return ("I",)
    if isinstance(value, (bool, int, str, type(None))):
        return ("C", type(value), value)
    if isinstance(value, list) and value and _numbers_only(value):
        try:
            arr = np.asarray(value)
        except ValueError as e:       # ragged: NumPy 2 refuses to make an array of it
            raise TypeError(f"a list argument must convert to a numeric array: {e}") from None
        if arr.dtype not in dtypes.SUPPORTED:   # ragged, or ints beyond 64 bits: NumPy makes an object array
            raise TypeError(f"a list argument must convert to a numeric array (np.asarray gives {arr.dtype})")
        leaves.append(arr)
        originals.append(arr)
        dims = arr.shape if static_shapes else tuple(d == 1 for d in arr.shape)
        return ("L", arr.dtype.str, arr.ndim, dims)
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):    # a NamedTuple: its fields are structure
        return ("NT", type(value), tuple(flatten(v, leaves, originals, static_shapes, seen, ints) for v in value))
    if isinstance(value, (list, tuple)):
        tag = "T" if isinstance(value, tuple) else "l"
        return (tag, tuple(flatten(v, leaves, originals, static_shapes, seen, ints) for v in value))
    if is_structure_object(value):
        return _flatten_object(value, leaves, originals, static_shapes, seen, ints)
    if isinstance(value, dict):
        return ("D", tuple((k, flatten(v, leaves, originals, static_shapes, seen, ints)) for k, v in value.items()))
    if isinstance(value, np.dtype) or isinstance(value, numbers.Number):
        return ("C", type(value), value)
    if type(value) is functools.partial:
        # compared by identity, and by its arguments, which the program folds in: its keywords can change in place
        # (`p.keywords["k"] = 9`); arguments that cannot be compared so (arrays) are refused, never folded stale
        arguments = _frozen((value.args, tuple(value.keywords.items())))
        if arguments is None:
            raise TypeError("a functools.partial argument whose arguments are not numbers, strings, functions or "
                            "tuples of them is not supported: pass the arrays as arguments of their own")
        return ("C", functools.partial, value, arguments)
    try:
        hash(value)
    except TypeError:
        raise TypeError(f"unsupported argument type {type(value).__name__}") from None
    return ("C", type(value), value)


def _frozen(value):
    """A hashable copy of a partial's arguments (numbers, strings, None, functions and classes, in tuples, lists and
    dicts), or None."""
    if isinstance(value, (bool, int, float, complex, str, bytes, type(None), np.generic, np.dtype, type,
                          types.FunctionType, types.BuiltinFunctionType, np.ufunc)):
        return (type(value), value)
    if isinstance(value, (tuple, list)):
        items = tuple(_frozen(v) for v in value)
        return None if None in items else (type(value), items)
    if isinstance(value, dict):
        items = tuple((k, _frozen(v)) for k, v in value.items())
        return None if any(v is None for _, v in items) else (dict, items)
    return None


# Objects whose class is one of these kinds are values, not structure (hashable: compile-time constants by value).
_NOT_STRUCTURE = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
                  functools.partial, enum.Enum, np.ufunc)


def is_structure_object(value) -> bool:
    """An instance of a user's class, whose attributes are the structure the kernel reads (module doc)."""
    if isinstance(value, _NOT_STRUCTURE) or getattr(value, "py_func", None) is not None:   # (a compiled function)
        return False
    module = type(value).__module__ or ""
    if module == "builtins" or module.split(".")[0] in ("numpy", "transpiler") \
            and not module.startswith("transpiler.stdlib."):   # the library's models are user code (gpt2.cached)
        return False
    return hasattr(value, "__dict__") or bool(_slots(type(value)))


def _slots(cls) -> tuple:
    return tuple(name for c in cls.__mro__ for name in getattr(c, "__slots__", ()) if name not in ("__dict__",
                                                                                                   "__weakref__"))


def object_attributes(value) -> dict:
    attributes = dict(getattr(value, "__dict__", {}))
    for name in _slots(type(value)):
        if hasattr(value, name):
            attributes[name] = getattr(value, name)
    return attributes


def _flatten_object(value, leaves, originals, static_shapes, seen, ints=None):
    """("O", class, index, ((attribute, key) ...)): an object met again (or a cycle) is ("same object", index).
    An int or float attribute that compiled code rebinds (`self.t += 1`: its (class, name) in
    seen["run-time attributes"], api.Transpiled) is a run-time leaf, as an int or float argument is, so that the next
    call does not compile again for its new value."""
    seen = {} if seen is None else seen
    objects = seen.setdefault("objects", {})
    if id(value) in objects:
        return ("same object", objects[id(value)])
    index = objects[id(value)] = len(objects)
    if "object list" in seen:     # (the caller's objects in this order: their rebound attributes are set after a call)
        seen["object list"].append(value)
    items = []
    rebound = seen.get("run-time attributes") or ()
    for name, attr in object_attributes(value).items():
        if rebound and type(attr) in (int, float) and (type(value), name) in rebound:
            items.append((name, flatten(attr, leaves, originals, static_shapes, seen, ints if ints is not None else [])))
        elif isinstance(attr, float):                          # a hyperparameter: read at compile time
            items.append((name, ("C", float, attr)))
        elif isinstance(attr, list) and not any(isinstance(a, (np.ndarray, np.generic)) for a in attr):
            items.append((name, ("l", tuple(_flatten_member(a, leaves, originals, static_shapes, seen)
                                            for a in attr))))
        else:
            items.append((name, _flatten_member(attr, leaves, originals, static_shapes, seen)))
    return ("O", type(value), index, tuple(items))


def _flatten_member(value, leaves, originals, static_shapes, seen):
    """An attribute or list item of an object: like an argument, but a value of a type the kernel cannot take
    (a lock, a file) is opaque: the kernel may not read it, and it does not keep the object from compiling."""
    if isinstance(value, float):
        return ("C", float, value)
    try:
        return flatten(value, leaves, originals, static_shapes, seen)
    except TypeError:
        return ("X", type(value))


class Unavailable:
    """An object's attribute of a type compiled code cannot read (its key records only the type)."""

    def __init__(self, owner: str, kind: type):
        self.owner, self.kind = owner, kind

    def __repr__(self) -> str:
        return f"<{self.owner}: a {self.kind.__module__}.{self.kind.__qualname__}, not available in compiled code>"


def layout(a: np.ndarray):
    """True for a C-contiguous array (NumPy makes a reshape or ravel of it a view); "line" when each other non-unit
    dim's stride is the next one's stride times its size (its elements are one strided line: every reshape of it is
    a view, a ravel a copy); False otherwise (a ravel or reshape to one dim is a copy: NumPy's nocopy reshape)."""
    if a.flags.c_contiguous:
        return True
    dims = [(n, s) for n, s in zip(a.shape, a.strides) if n != 1]
    return "line" if all(s == n_next * s_next for (_, s), (n_next, s_next) in zip(dims, dims[1:])) else False


def _plain_array(value: np.ndarray) -> np.ndarray:
    """An ndarray subclass: refused where its operators mean something else than ndarray's (np.matrix: `*` is a
    matrix product; masked arrays: the mask), else its data as np.asarray gives it (np.memmap ...)."""
    if isinstance(value, (np.matrix, np.ma.MaskedArray)):
        raise TypeError(f"{type(value).__module__}.{type(value).__name__} arguments are not supported (their "
                        "operators are not ndarray's): pass np.asarray(x), or x.filled() for a masked array")
    return np.asarray(value)


def _numbers_only(value) -> bool:
    """A (nested) list of plain numbers: run-time data, like np.asarray of it."""
    return all(_numbers_only(v) if isinstance(v, list) else isinstance(v, _NUMBER_TYPES) for v in value) \
        and not all(isinstance(v, list) and not v for v in value)


def abstract(key, path: str, inputs: list, names: list, objects: dict | None = None):
    """The compile-time view of an argument with this key: Vars for run-time leaves (appended to `inputs`); objects
    are instances of their own class made without __init__, whose attributes are these views (`objects` maps each
    one's index in the key to it)."""
    objects = {} if objects is None else objects
    tag = key[0]
    if tag == "same":
        return inputs[key[1]]
    if tag == "A":
        _, dt, ndim, dims, *known = key        # (a key without the layout: not known)
        index = len(inputs)
        shape = tuple(_dim(d, f"{path}.shape[{i}]", index, i) for i, d in enumerate(dims))
        return _input(Var(np.dtype(dt), shape, layout=known[0] if known else None), path, inputs, names)
    if tag == "S":
        return _input(Var(np.dtype(key[1]), (), scalar=True), path, inputs, names)
    if tag == "F":
        return _input(Var(dtypes.FLOAT64, (), weak=True), path, inputs, names)
    if tag == "Z":
        return _input(Var(np.dtype(np.complex128), (), weak=True), path, inputs, names)
    if tag == "L":
        _, dt, ndim, dims = key
        index = len(inputs)
        shape = tuple(_dim(d, f"len({path})" if i == 0 else f"{path}.shape[{i}]", index, i)
                      for i, d in enumerate(dims))
        return _input(Var(np.dtype(dt), shape, from_list=True), path, inputs, names)
    if tag == "C":
        return key[2]
    if tag == "I":      # a Python int: a run-time input, or (with_int_values) its value, the input left unused
        v = _input(Var(dtypes.INT64, (), weak=True), path, inputs, names)
        v.int_argument = True      # (frontend/builder.py: where NumPy needs its value, the ints specialize)
        return v if len(key) == 1 else key[1]
    if tag in ("T", "l"):
        items = [abstract(k, f"{path}[{i}]", inputs, names, objects) for i, k in enumerate(key[1])]
        return tuple(items) if tag == "T" else items
    if tag == "NT":
        return key[1]._make(abstract(k, f"{path}.{f}", inputs, names, objects)
                            for f, k in zip(key[1]._fields, key[2]))
    if tag == "O":
        _, cls, index, items = key
        obj = object.__new__(cls)          # its __init__ does not run: the attributes are set from the key
        objects[index] = obj
        for name, k in items:
            object.__setattr__(obj, name, abstract(k, f"{path}.{name}", inputs, names, objects))
        return obj
    if tag == "same object":
        return objects[key[1]]
    if tag == "X":
        return Unavailable(path, key[1])
    if tag == "D":
        return {k: abstract(sub, f"{path}[{k!r}]", inputs, names, objects) for k, sub in key[1]}
    raise AssertionError(key)


def with_int_values(key, values: list):
    """The key with each run-time int ("I",) given its value ("I", value), in flatten's order: for a program that
    needs its ints at compile time (they then specialize, as they always did)."""
    it = iter(values)

    def fill(k):
        if k == ("I",):
            return ("I", next(it))
        if isinstance(k, tuple) and k and k[0] in ("T", "l", "NT", "D", "O"):
            if k[0] == "O":
                return ("O", k[1], k[2], tuple((name, fill(sub)) for name, sub in k[3]))
            if k[0] == "D":
                return ("D", tuple((name, fill(sub)) for name, sub in k[1]))
            if k[0] == "NT":
                return ("NT", k[1], tuple(fill(sub) for sub in k[2]))
            return (k[0], tuple(fill(sub) for sub in k[1]))
        return k
    return tuple(fill(k) for k in key)


def _dim(d, name: str, index: int, axis: int):
    if d is True:
        return 1
    if d is False:
        return Sym(name, ("arg", index, axis))
    return int(d)  # static shapes


def _input(v: Var, path: str, inputs: list, names: list) -> Var:
    inputs.append(v)
    names.append(path)
    return v


# ---- results --------------------------------------------------------------------------------------------------
class ArgumentView:
    """A returned view of an argument: NumPy returns a view of the caller's array, so the call makes the same view
    of it (`steps` replayed on the argument) instead of returning the kernel's copy."""

    def __init__(self, argument: Var, steps: list):
        self.argument, self.steps = argument, steps


class ResultView:
    """A returned view of an array the function made, returned with other views of it: the array's final contents
    (`base`, a kernel result) with the view replayed at the call, so the returned arrays share memory as NumPy's."""

    def __init__(self, base: Var, steps: list):
        self.base, self.steps = base, steps


class Choice:
    """A returned array that is one of two as the kernel's path decided (`return x` on one path, a new array on the
    other: frontend/memory.Alias.choice): `then` where the kernel's 0-d bool `flag` is True, else `other`."""

    def __init__(self, flag: Var, then, other):
        self.flag, self.then, self.other = flag, then, other


class RowsReturned(tuple):
    """A returned list that compiled code built by appends in a run-time loop (frontend/row_lists.py): (how its items
    are held: "number", "scalar", "0-d" or "array", the Var of its items stacked). The call makes the list of the
    rows: Python numbers, NumPy scalars, 0-d arrays or arrays (each a view of one new array)."""
    def __new__(cls, items):
        return super().__new__(cls, tuple(items))


class MadeObject(tuple):
    """A returned object of the user's class that compiled code made (frontend/attributes.py): (its class, its
    attributes' names, their values). The call makes it anew as `object.__new__(cls)` and sets each attribute with
    object.__setattr__, as its __init__ (or a dataclass's, frozen too) left them."""
    def __new__(cls, items):
        return super().__new__(cls, tuple(items))


def result_template(value, inputs: list, outputs: list):
    """Describe a returned Python value: Vars become ("out", i) or ("in", i), views of arguments ("view", i, steps),
    the rest is kept as is."""
    if isinstance(value, ArgumentView):
        index = next(i for i, v in enumerate(inputs) if v is value.argument)
        return ("view", index, _steps_template(value.steps, inputs, outputs))
    if isinstance(value, Choice):
        return ("choice", result_template(value.flag, inputs, outputs), result_template(value.then, inputs, outputs),
                result_template(value.other, inputs, outputs))
    if isinstance(value, ResultView):
        base = result_template(value.base, inputs, outputs)
        if base[0] != "out":     # (an input's buffer is never a ResultView's: memory.as_returned)
            raise AssertionError(f"a view of a result made from {base}")
        return ("result view", base[1], _steps_template(value.steps, inputs, outputs))
    if isinstance(value, Var):
        for i, v in enumerate(inputs):
            if v is value:
                return ("in", i)
        for i, v in enumerate(outputs):
            if v is value:
                return ("out", i, _kind(value))
        outputs.append(value)
        return ("out", len(outputs) - 1, _kind(value))
    if isinstance(value, MadeObject):
        return ("object", value[0], value[1], [result_template(v, inputs, outputs) for v in value[2:]])
    if isinstance(value, RowsReturned):
        return ("rows", value[0], result_template(value[1], inputs, outputs))
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):     # a NamedTuple (np.linalg's EighResult ...)
        return ("namedtuple", type(value), [result_template(v, inputs, outputs) for v in value])
    if isinstance(value, (list, tuple)):
        return ("list" if isinstance(value, list) else "tuple",
                [result_template(v, inputs, outputs) for v in value])
    if isinstance(value, dict):
        return ("dict", [(k, result_template(v, inputs, outputs)) for k, v in value.items()])
    if isinstance(value, (np.ndarray, np.generic, bool, int, float, str, type(None), np.dtype)):
        return ("const", value)
    raise UserError(f"cannot return a value of type {type(value).__name__} from compiled code", TypeError)


def _steps_template(steps: list, inputs: list, outputs: list) -> list:
    """A view's steps with the positions the kernel computes (Vars: a run-time index, a slice's start) as the
    templates of the values that carry them (an input, or a kernel result)."""
    def param(p):
        if isinstance(p, Var):
            return ("value", result_template(p, inputs, outputs))
        if isinstance(p, (list, tuple)) and not isinstance(p, Sym):
            return type(p)(param(q) for q in p)
        return p
    return [(kind, param(params)) for kind, params in steps]


def _kind(v: Var) -> str:
    if v.weak:
        return "python"
    return "scalar" if v.scalar and not v.shape else "array"


def build_result(template, results: list, originals: list, leaf=None, made=None):
    """Rebuild a returned value: ("out", i) leaves from `results` (through `leaf`, by default NumPy's
    array / NumPy scalar / Python scalar conversion), ("in", i) leaves from `originals`, constants as they are (an
    array a fresh copy per call, which constants viewing one array share: `made`, _constant)."""
    made = {} if made is None else made
    tag = template[0]
    if tag == "out":
        return (leaf or _as_returned)(results[template[1]], template[2])
    if tag == "in":
        return originals[template[1]]
    if tag == "view":
        return _replay(originals[template[1]], template[2], originals, results)
    if tag == "choice":
        return build_result(template[2] if build_result(template[1], results, originals) else template[3], results,
                            originals, leaf, made)
    if tag == "result view":
        return _replay(results[template[1]], template[2], originals, results)
    if tag in ("list", "tuple"):
        items = [build_result(t, results, originals, leaf, made) for t in template[1]]
        return items if tag == "list" else tuple(items)
    if tag == "object":
        obj = object.__new__(template[1])
        for name, t in zip(template[2], template[3]):
            object.__setattr__(obj, name, build_result(t, results, originals, leaf, made))
        return obj
    if tag == "rows":
        stacked = np.asarray(build_result(template[2], results, originals, None, made))
        if template[1] == "number":
            return stacked.tolist()
        if template[1] == "scalar":
            return list(stacked)
        return [stacked[i, ...] for i in range(stacked.shape[0])]     # (0-d arrays; arrays, views of one array)
    if tag == "namedtuple":
        return template[1](*(build_result(t, results, originals, leaf, made) for t in template[2]))
    if tag == "dict":
        return {k: build_result(t, results, originals, leaf, made) for k, t in template[1]}
    value = template[1]
    return _constant(value, made) if isinstance(value, np.ndarray) else value


def _constant(value: np.ndarray, made: dict) -> np.ndarray:
    """A returned array known while compiling (`a = np.arange(12.).reshape(3, 4)`, folded), made anew at each call
    (the caller may write into it). Constants that are views of one array (`return a[0], a[:, 1]`) are views of one
    copy of it, and one constant returned twice is one object, so that they share memory as NumPy's do (a write
    through one is seen through the other); `made` holds the copies of this call."""
    if id(value) in made:
        return made[id(value)]
    root = value
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root is value or not (root.flags.c_contiguous or root.flags.f_contiguous):
        copy = value.copy()
    else:
        if id(root) not in made:
            made[id(root)] = root.copy(order="K")     # (its strides: the views' strides hold in the copy)
        base = made[id(root)]
        offset = value.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        copy = np.ndarray(value.shape, value.dtype, buffer=base.ravel(order="K").view(np.uint8), offset=offset,
                          strides=value.strides)
        if not value.flags.writeable:
            copy.flags.writeable = False
    made[id(value)] = copy
    return copy


def _replay(arr: np.ndarray, steps: list, originals: list, results: list = ()) -> np.ndarray:
    """The view of `arr` the steps describe (basic indexing, transpose, reshape, new or dropped unit axes); sizes
    that are expressions of the arguments' dims are evaluated for this call, positions the kernel computed
    (("value", template)) are read from its results."""
    from ..types.shapes import evaluate

    def dim(d):
        if isinstance(d, tuple) and d[0] == "value":
            return int(build_result(d[1], results, originals))
        return d if isinstance(d, int) else evaluate(d, originals)
    for kind, params in steps:
        if kind == "slice":
            index = []
            for spec in params:
                if spec[0] == "all":
                    index.append(slice(None))
                elif spec[0] == "index":
                    index.append(dim(spec[1]))
                else:
                    start, length, step = dim(spec[1]), dim(spec[2]), dim(spec[3])
                    stop = start + length * step
                    index.append(slice(start, stop if stop >= 0 else None, step) if length else slice(0, 0))
            arr = arr[tuple(index)]
        elif kind == "transpose":
            arr = arr.transpose(params)
        elif kind == "reshape":
            arr = arr.reshape(tuple(dim(d) for d in params))
        elif kind == "expand_dims":
            arr = np.expand_dims(arr, params)
        elif kind in ("real", "imag"):
            arr = getattr(arr, kind)
        elif kind == "ravel":
            arr = arr.ravel(params)
        elif kind == "strided":
            arr = _strided(arr, *([dim(d) for d in ds] for ds in params))
        elif kind == "diagonal":      # NumPy's own (a read-only view)
            arr = arr.diagonal(dim(params[0]), params[1], params[2])
        elif kind == "readonly":      # (NumPy's x.diagonal(): a read-only view)
            arr = arr.view()
            arr.flags.writeable = False
        elif kind == "warn_on_write":     # (np.broadcast_arrays': writable, with a DeprecationWarning when written)
            arr = arr.view()
            if arr.flags.writeable:
                arr.flags._warn_on_write = True
        else:
            arr = arr.squeeze(params)
    return arr


def _strided(arr: np.ndarray, starts: list, sizes: list, steps: list) -> np.ndarray:
    """The view of `arr` whose element i is arr[starts + sum_k i_k * steps_k] (a view the kernel positioned at run
    time: frontend/memory.strided_view), made with arr's own strides, so that it is a view of the caller's array
    whatever its layout."""
    n = arr.ndim
    if 0 in sizes:       # no element (its start may be past the end)
        return np.lib.stride_tricks.as_strided(arr, sizes, [0] * len(sizes), writeable=arr.flags.writeable)
    first = arr[tuple(slice(s, s + 1) for s in starts)]        # a view whose first element is the start
    strides = [sum(steps[k * n + j] * arr.strides[j] for j in range(n)) for k in range(len(sizes))]
    return np.lib.stride_tricks.as_strided(first, sizes, strides, writeable=arr.flags.writeable)


def _as_returned(arr: np.ndarray, kind: str):
    if kind == "python":
        return arr.item()
    if kind == "scalar":
        return arr[()]
    return arr
