"""x[index] on run-time arrays: basic indexing (ints, slices, Ellipsis, None) as one `slice` primitive plus
`expand_dims`, and one advanced index (an int array, a list of ints, a range) as a `gather` along its axis.

Negative indices count from the end, as in NumPy. An integer index or gathered id that is out of range raises
IndexError: at compile time when it is known then, else through a kernel check flag (the kernel clamps the read,
so it never touches memory out of bounds, and the caller raises).
"""
from __future__ import annotations

import numpy as np

from ..errors import UserError
from ..program import Var
from ..types import dtypes
from ..types.shapes import derived
from .builder import Builder
from .elementwise import as_dim
from .shape_ops import as_var, expand_dims, transpose
from .values import RuntimeRange


def getitem(b: Builder, x: Var, index):
    items = list(index) if isinstance(index, tuple) else [index]
    items = _expand_ellipsis(items, x.ndim)
    specs, new_axes, advanced = [], [], []
    axis = 0
    out_pos = 0
    for item in items:
        if item is None:
            new_axes.append(out_pos)
            out_pos += 1
            continue
        if axis >= x.ndim:
            raise UserError(f"too many indices for array: array is {x.ndim}-dimensional", IndexError)
        if _is_advanced(item):
            advanced.append((axis, out_pos, item))
            specs.append(("all",))
            out_pos += 1
        elif isinstance(item, slice):
            specs.append(_slice_spec(b, item, x.shape[axis]))
            out_pos += 1
        else:
            specs.append(_index_spec(b, item, x.shape[axis], axis))
        axis += 1
    specs += [("all",)] * (x.ndim - axis)
    if len(advanced) > 1:
        raise UserError("indexing with more than one integer array is not supported", TypeError)
    if advanced and new_axes:
        raise UserError("combining an integer array index with None/np.newaxis is not supported", TypeError)
    result = _basic(b, x, specs)
    if advanced:
        ax, _, idx = advanced[0]
        dropped = sum(1 for s in specs[:ax] if s[0] == "index")
        result = gather(b, result, idx, ax - dropped)
        ints = [i for i, s in enumerate(specs) if s[0] == "index"]
        if ints and not _adjacent(ints + [ax]):
            # NumPy: advanced indices separated by a slice put their dims first
            ids_ndim = np.ndim(idx) if not isinstance(idx, Var) else idx.ndim
            start = ax - dropped
            perm = list(range(start, start + ids_ndim)) + [i for i in range(result.ndim)
                                                           if not start <= i < start + ids_ndim]
            result = transpose(b, result, perm)
    if new_axes:
        result = expand_dims(b, result, tuple(new_axes))
    return result


def _adjacent(axes) -> bool:
    axes = sorted(axes)
    return axes == list(range(axes[0], axes[0] + len(axes)))


def _expand_ellipsis(items: list, ndim: int) -> list:
    count = sum(1 for i in items if i is Ellipsis)
    if count > 1:
        raise UserError("an index can only have a single ellipsis ('...')", IndexError)
    if count == 0:
        return items
    consumed = sum(1 for i in items if i is not None and i is not Ellipsis)
    k = items.index(Ellipsis)
    return items[:k] + [slice(None)] * (ndim - consumed) + items[k + 1:]


def _is_advanced(item) -> bool:
    if isinstance(item, Var):
        return item.ndim > 0
    return isinstance(item, (list, np.ndarray, range, RuntimeRange)) and not (
        isinstance(item, np.ndarray) and item.ndim == 0)


def _index_spec(b: Builder, item, n, axis: int):
    if isinstance(item, (bool, np.bool_)):
        raise UserError("boolean indices are not supported", TypeError)
    if isinstance(item, (int, np.integer)):
        i = int(item)
        if isinstance(b.env.find(n), int):
            size = b.env.find(n)
            if not -size <= i < size:
                raise UserError(f"index {i} is out of bounds for axis {axis} with size {size}", IndexError)
            return ("index", i % size if size else i, None)
        item = b.const(np.int64(i))  # a run-time size: normalized and checked in the kernel
    if isinstance(item, Var) and item.ndim == 0 and item.dtype.kind in "iu":
        flag = b.emit1("index_check", [item], dtypes.BOOL, (), n=n)
        b.program.checks.append((flag, IndexError, f"index out of bounds for axis {axis}"))
        return ("index", None, item)
    raise UserError(f"only integers, slices, ellipsis, None and integer arrays are valid indices, got "
                    f"{type(item).__name__}", IndexError)


def _slice_spec(b: Builder, s: slice, n):
    step = 1 if s.step is None else s.step
    if isinstance(step, Var):
        raise UserError("a slice step must be known at compile time", TypeError)
    step = int(step)
    if step == 0:
        raise UserError("slice step cannot be zero", ValueError)
    n = b.env.find(n)
    bounds = [s.start, s.stop]
    if all(v is None or isinstance(v, (int, np.integer)) for v in bounds) and isinstance(n, int):
        start, stop, step = slice(*(None if v is None else int(v) for v in bounds), step).indices(n)
        return ("range", start, len(range(start, stop, step)), step)
    if step < 0:
        last = derived("sub", n, 1)
        start, stop = (_bound(v, n, default, -1, last) for v, default in zip(bounds, (last, -1)))
        length = derived("max", derived("floordiv", derived("add", derived("sub", start, stop), -step - 1), -step), 0)
        return ("range", start, length, step)
    start, stop = (_bound(v, n, default, 0, n) for v, default in zip(bounds, (0, n)))
    length = derived("floordiv", derived("add", derived("max", derived("sub", stop, start), 0), step - 1), step)
    return ("range", start, length, step)


def _bound(v, n, default, low, high):
    """A slice bound as Python normalizes it: a negative one counts from the end, then it is clamped to
    [low, high] ([0, n] for a forward slice, [-1, n - 1] for a backward one). Run-time bounds must be sizes."""
    if v is None:
        return default
    d = as_dim(v)
    if d is None:
        raise UserError("slice bounds must be integers", TypeError)
    if isinstance(d, int) and d < 0:
        d = derived("add", n, d)
    return derived("max", derived("min", d, high), low)


def _basic(b: Builder, x: Var, specs) -> Var:
    if all(s[0] == "all" for s in specs):
        return x
    shape, inputs = [], [x]
    norm = []
    for d, s in zip(x.shape, specs):
        if s[0] == "all":
            shape.append(d)
            norm.append(s)
        elif s[0] == "range":
            start, length, step = s[1], s[2], s[3] if len(s) > 3 else 1
            shape.append(length)
            norm.append(("range", start, length, step))
        else:
            _, i, var = s
            if var is not None:
                inputs.append(var)
                norm.append(("index_var", len(inputs) - 1))
            else:
                norm.append(("index", i))
    return b.emit1("slice", inputs, x.dtype, tuple(shape), scalar=not shape, specs=tuple(norm))


def gather(b: Builder, x: Var, ids, axis: int) -> Var:
    """x.take(ids, axis) for integer ids (an array, a list, a range): ids.shape replaces dim `axis`."""
    if isinstance(ids, (range, RuntimeRange)):
        ids = ids.materialize(b) if isinstance(ids, RuntimeRange) else np.arange(ids.start, ids.stop, ids.step)
    if isinstance(ids, list):
        ids = np.asarray(ids)
        if ids.size == 0:
            ids = ids.astype(np.int64)
    ids = as_var(b, ids)
    if ids.dtype.kind not in "iu":
        raise UserError("arrays used as indices must be of integer type", IndexError)
    n = x.shape[axis]
    shape = x.shape[:axis] + ids.shape + x.shape[axis + 1:]
    flag = b.emit1("index_check", [ids], dtypes.BOOL, (), n=n)
    b.program.checks.append((flag, IndexError, f"index out of bounds for axis {axis} with size {n}"))
    return b.emit1("gather", [x, ids], x.dtype, shape, axis=axis)
