"""The call boundary: Python arguments -> (specialization key, flat list of arrays), and back for results.

What specializes (is part of the key) and what is run-time data:
- arrays: dtype, rank and which dims are 1 (so broadcasting is decided at compile time); sizes are run-time;
- NumPy scalars and Python floats: dtype only; their values are run-time (0-d inputs);
- Python bool/int/str/None and other hashable objects: their value (they usually shape the program);
- lists of plain numbers: data, like np.asarray of them (token ids that grow must not recompile);
- tuples, other lists, dicts: their structure (lengths, keys) specializes; their leaves follow these rules.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..errors import UserError
from ..program import Var
from ..types import dtypes
from ..types.shapes import Sym

_NUMBER_TYPES = (bool, int, float, np.bool_, np.integer, np.floating)


def flatten(value, leaves: list, originals: list, static_shapes: bool = False, seen: dict | None = None):
    """The key part for `value`; run-time leaves are appended to `leaves` (as arrays) and `originals`. An array
    passed a second time (the same object, `seen` maps its id to its leaf) is ("same", leaf): one kernel input, so
    a write through either name is seen through the other, as in NumPy."""
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
        return ("A", dtype.str, len(shape), shape if static_shapes else tuple([d == 1 for d in shape]))
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
    if isinstance(value, (list, tuple)):
        tag = "T" if isinstance(value, tuple) else "l"
        return (tag, tuple(flatten(v, leaves, originals, static_shapes, seen) for v in value))
    if isinstance(value, dict):
        return ("D", tuple((k, flatten(v, leaves, originals, static_shapes, seen)) for k, v in value.items()))
    if isinstance(value, np.dtype) or isinstance(value, numbers.Number):
        return ("C", type(value), value)
    try:
        hash(value)
    except TypeError:
        raise TypeError(f"unsupported argument type {type(value).__name__}") from None
    return ("C", type(value), value)


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


def abstract(key, path: str, inputs: list, names: list):
    """The compile-time view of an argument with this key: Vars for run-time leaves (appended to `inputs`)."""
    tag = key[0]
    if tag == "same":
        return inputs[key[1]]
    if tag == "A":
        _, dt, ndim, dims = key
        index = len(inputs)
        shape = tuple(_dim(d, f"{path}.shape[{i}]", index, i) for i, d in enumerate(dims))
        return _input(Var(np.dtype(dt), shape), path, inputs, names)
    if tag == "S":
        return _input(Var(np.dtype(key[1]), (), scalar=True), path, inputs, names)
    if tag == "F":
        return _input(Var(dtypes.FLOAT64, (), weak=True), path, inputs, names)
    if tag == "L":
        _, dt, ndim, dims = key
        index = len(inputs)
        shape = tuple(_dim(d, f"len({path})" if i == 0 else f"{path}.shape[{i}]", index, i)
                      for i, d in enumerate(dims))
        return _input(Var(np.dtype(dt), shape, from_list=True), path, inputs, names)
    if tag == "C":
        return key[2]
    if tag in ("T", "l"):
        items = [abstract(k, f"{path}[{i}]", inputs, names) for i, k in enumerate(key[1])]
        return tuple(items) if tag == "T" else items
    if tag == "D":
        return {k: abstract(sub, f"{path}[{k!r}]", inputs, names) for k, sub in key[1]}
    raise AssertionError(key)


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


def result_template(value, inputs: list, outputs: list):
    """Describe a returned Python value: Vars become ("out", i) or ("in", i), views of arguments ("view", i, steps),
    the rest is kept as is."""
    if isinstance(value, ArgumentView):
        index = next(i for i, v in enumerate(inputs) if v is value.argument)
        return ("view", index, value.steps)
    if isinstance(value, Var):
        for i, v in enumerate(inputs):
            if v is value:
                return ("in", i)
        for i, v in enumerate(outputs):
            if v is value:
                return ("out", i, _kind(value))
        outputs.append(value)
        return ("out", len(outputs) - 1, _kind(value))
    if isinstance(value, (list, tuple)):
        return ("list" if isinstance(value, list) else "tuple",
                [result_template(v, inputs, outputs) for v in value])
    if isinstance(value, dict):
        return ("dict", [(k, result_template(v, inputs, outputs)) for k, v in value.items()])
    if isinstance(value, (np.ndarray, np.generic, bool, int, float, str, type(None), np.dtype)):
        return ("const", value)
    raise UserError(f"cannot return a value of type {type(value).__name__} from compiled code", TypeError)


def _kind(v: Var) -> str:
    if v.weak:
        return "python"
    return "scalar" if v.scalar and not v.shape else "array"


def build_result(template, results: list, originals: list, leaf=None):
    """Rebuild a returned value: ("out", i) leaves from `results` (through `leaf`, by default NumPy's
    array / NumPy scalar / Python scalar conversion), ("in", i) leaves from `originals`, constants as they are."""
    tag = template[0]
    if tag == "out":
        return (leaf or _as_returned)(results[template[1]], template[2])
    if tag == "in":
        return originals[template[1]]
    if tag == "view":
        return _replay(originals[template[1]], template[2], originals)
    if tag in ("list", "tuple"):
        items = [build_result(t, results, originals, leaf) for t in template[1]]
        return items if tag == "list" else tuple(items)
    if tag == "dict":
        return {k: build_result(t, results, originals, leaf) for k, t in template[1]}
    value = template[1]
    return value.copy() if isinstance(value, np.ndarray) else value


def _replay(arr: np.ndarray, steps: list, originals: list) -> np.ndarray:
    """The view of `arr` the steps describe (basic indexing, transpose, reshape, new or dropped unit axes); sizes
    that are expressions of the arguments' dims are evaluated for this call."""
    from ..types.shapes import evaluate

    def dim(d):
        return d if isinstance(d, int) else evaluate(d, originals)
    for kind, params in steps:
        if kind == "slice":
            index = []
            for spec in params:
                if spec[0] == "all":
                    index.append(slice(None))
                elif spec[0] == "index":
                    index.append(spec[1])
                else:
                    start, length, step = dim(spec[1]), dim(spec[2]), spec[3]
                    stop = start + length * step
                    index.append(slice(start, stop if stop >= 0 else None, step) if length else slice(0, 0))
            arr = arr[tuple(index)]
        elif kind == "transpose":
            arr = arr.transpose(params)
        elif kind == "reshape":
            arr = arr.reshape(tuple(dim(d) for d in params))
        elif kind == "expand_dims":
            arr = np.expand_dims(arr, params)
        else:
            arr = arr.squeeze(params)
    return arr


def _as_returned(arr: np.ndarray, kind: str):
    if kind == "python":
        return arr.item()
    if kind == "scalar":
        return arr[()]
    return arr
