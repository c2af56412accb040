"""Selections whose size depends on the data: x[mask], np.nonzero / x.nonzero(), np.where(cond), np.argwhere,
np.flatnonzero, np.compress and np.extract.

One primitive does the data-dependent part, `nonzero`: the kernel counts a mask's set elements (a sum), allocates
index arrays of that length (a Sym whose value the kernel computes, as for a slice bound read from an array) and
fills them in one pass in C order. The rest composes existing primitives: x[mask] gathers x's leading dims,
flattened, at the mask's flat positions; np.compress gathers along an axis.
"""
from __future__ import annotations

import numpy as np

from ..errors import UserError
from ..program import Var
from ..types import dtypes
from ..types.shapes import Sym
from .builder import Builder
from .elementwise import to_bool
from .shape_ops import as_var, expand_dims, normalize_axis, product, reshape, stack


def nonzero_ids(b: Builder, a, flat: bool = False) -> list:
    """int64 positions of the nonzero elements of `a` (at least 1-d): one array per dim, or one of flat positions.
    One mask's selections share their length where one block sees the other's (`x[m] + y[m]` broadcasts, and
    `x[m, 0] += 5` writes back under a guard), so it is counted once. A mask
    known at compile time gives constant positions (static lengths)."""
    if not isinstance(a, Var):
        arr = np.asarray(a)
        ids = [np.flatnonzero(arr)] if flat else np.nonzero(arr)
        return [b.const(i.astype(np.int64)) for i in ids]
    mask = to_bool(b, a)
    # the count (and so the length) is shared; the positions are new arrays each time, as NumPy's are (the
    # program may write into them)
    prior = next((e for e in b.visible() if e.prim == "nonzero" and e.inputs[0] is mask), None)
    if prior is not None:
        count, n = prior.inputs[1], prior.outputs[0].shape[0]
    else:
        from .reductions import reduce
        count = reduce(b, "sum", b.convert(mask, dtypes.INT64))
        n = Sym(f"count({mask})", ("var", count))
    outs = 1 if flat else mask.ndim
    return b.emit("nonzero", [mask, count], [(dtypes.INT64, (n,))] * outs, flat=flat)


def nonzero(b: Builder, a) -> tuple:
    """np.nonzero(a), a.nonzero(), np.where(a): a tuple of int64 index arrays, one per dim."""
    x = as_var(b, a)
    if x.ndim == 0:
        raise UserError("Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead.",
                        ValueError)
    return tuple(nonzero_ids(b, x))


def argwhere(b: Builder, a) -> Var:
    """np.argwhere: the indices of the nonzero elements as rows, shape (count, a.ndim)."""
    x = as_var(b, a)
    if x.ndim == 0:       # NumPy: one row of no columns when the 0-d value is nonzero
        ids, = nonzero_ids(b, expand_dims(b, x, 0), flat=True)
        return b.emit1("slice", [expand_dims(b, ids, 1)], dtypes.INT64, (ids.shape[0], 0),
                       specs=(("all",), ("range", 0, 0, 1)))
    return stack(b, nonzero_ids(b, x), axis=1)


def flatnonzero(b: Builder, a) -> Var:
    x = as_var(b, a)
    return nonzero_ids(b, x if x.ndim else expand_dims(b, x, 0), flat=True)[0]


def get_masked(b: Builder, x: Var, mask) -> Var:
    """x[mask] for a bool mask of x's shape or of its leading dims (which selects rows); a 0-d mask selects all of
    x (as one row) or nothing. A copy, as in NumPy."""
    from .indexing import gather
    if mask.ndim == 0:
        x = expand_dims(b, x, 0)
        mask = expand_dims(b, mask, 0) if isinstance(mask, Var) else np.expand_dims(mask, 0)
    match_mask(b, x, mask, reading=True)
    ids, = nonzero_ids(b, mask, flat=True)
    k = mask.ndim
    rows = x if k == 1 else reshape(b, x, (product(x.shape[:k], b),) + tuple(x.shape[k:]))
    return gather(b, rows, ids, 0, checked=False)


def match_mask(b: Builder, x: Var, mask, reading: bool = False) -> None:
    """A mask indexes x's leading dims, whose sizes it must have: NumPy's IndexError otherwise (before the call
    for run-time sizes)."""
    if mask.ndim > x.ndim:
        raise UserError(f"too many indices for array: array is {x.ndim}-dimensional, but {mask.ndim} were indexed",
                        IndexError)
    for axis, (m, d) in enumerate(zip(mask.shape, x.shape)):
        match_mask_dim(b, m, d, axis, reading)


def match_mask_dim(b: Builder, m, d, axis: int, reading: bool = False) -> None:
    """The mask's size m along an axis of size d. When only the kernel can compare them (one is a selection's
    length), a read checks them there (IndexError after the call; its gathers clamp, so a mismatch reads nothing
    out of bounds); a write, whose loops follow the mask, is refused."""
    m, d = b.env.find(m), b.env.find(d)
    message = f"boolean index did not match indexed array along axis {axis}"
    if isinstance(m, int) and isinstance(d, int):
        message += f"; size of axis is {d} but size of corresponding boolean axis is {m}"
    if reading and b.env.needs_kernel_check(m, d):
        sizes = [b.emit1("size_value", [], dtypes.INT64, (), dim=s) for s in (m, d)]
        b.check(b.emit1("ne", sizes, dtypes.BOOL, ()), IndexError, message)
        return
    b.env.unify(m, d, message, IndexError)


def compress(b: Builder, condition, a, axis=None, out=None) -> Var:
    """np.compress: the slices of `a` along `axis` (of the flattened `a` when None) where `condition` is nonzero.
    A condition shorter than the axis selects among its first elements; a nonzero one past the axis' end is
    NumPy's IndexError (a checked gather)."""
    from .indexing import gather
    if out is not None:
        raise UserError("np.compress(..., out=) is not supported", TypeError)
    x = as_var(b, a)
    if axis is None:
        x, axis = reshape(b, x, (product(x.shape, b),)), 0
    axis = normalize_axis(axis, x.ndim)
    cond = condition if isinstance(condition, Var) else np.asarray(condition)   # constant: static positions
    if cond.ndim != 1:
        raise UserError("condition must be a 1-d array", ValueError)
    ids, = nonzero_ids(b, cond)
    n, length = b.env.find(x.shape[axis]), b.env.find(cond.shape[0])
    in_range = length is n or isinstance(length, int) and isinstance(n, int) and length <= n
    return gather(b, x, ids, axis, checked=not in_range)


def extract(b: Builder, condition, arr) -> Var:
    """np.extract: np.take(np.ravel(arr), np.nonzero(np.ravel(condition))[0])."""
    cond = reshape(b, condition, (-1,)) if isinstance(condition, Var) else np.ravel(condition)
    return compress(b, cond, arr)
