"""NumPy's order of complex values, for np.maximum / np.minimum / np.fmax / np.fmin and max / min / argmax / argmin
of complex arrays: lexicographic (the real parts, then the imaginary parts), and a value with a NaN part wins.

Composed of float comparisons, reductions and gathers of the parts (no complex primitive):
- np.maximum(x, y) is x where x has a NaN part or CGE(x, y), else y (NumPy's loop; minimum with CLE), where
  CGE(x, y) = (xr > yr and neither imaginary part is NaN) or (xr == yr and xi >= yi). np.fmax keeps x where y has a
  NaN part instead;
- a reduction is NumPy's fold acc = maximum(acc, x[i]): the first value with a NaN part if there is one, else the
  first of the largest values (equal values differ only in the signs of zeros). np.argmax (CDOUBLE_argmax) picks the
  same one. Both are an index computed along the reduced axis, then a gather of that element: its parts exactly as
  they are (a NaN's other part, a zero's sign).
Over several axes at once NumPy folds in memory order, which for a transposed array is not C order; the kernel
folds in C order (docs/semantics.md).
"""
from __future__ import annotations

import numpy as np

from ..program import Var
from ..types.shapes import broadcast
from . import elementwise as ew
from .builder import Builder
from .complex_parts import imag, real

UFUNCS = (np.maximum, np.minimum, np.fmax, np.fmin)


def _ufunc(b: Builder, ufunc, *args) -> Var:
    return ew.apply_ufunc(b, ufunc, list(args))


def _nan_part(b: Builder, x: Var) -> Var:
    return _ufunc(b, np.logical_or, _ufunc(b, np.isnan, real(b, x)), _ufunc(b, np.isnan, imag(b, x)))


def extremum(b: Builder, ufunc, x: Var, y: Var) -> Var:
    """np.maximum / minimum / fmax / fmin of two complex operands of one dtype."""
    x, y = ew.checked_in_kernel(b, [x, y])
    larger = ufunc in (np.maximum, np.fmax)
    xr, xi, yr, yi = real(b, x), imag(b, x), real(b, y), imag(b, y)
    strictly = _ufunc(b, np.greater if larger else np.less, xr, yr)
    both_imag = _ufunc(b, np.logical_not, _ufunc(b, np.logical_or, _ufunc(b, np.isnan, xi), _ufunc(b, np.isnan, yi)))
    tied = _ufunc(b, np.logical_and, _ufunc(b, np.equal, xr, yr),
                  _ufunc(b, np.greater_equal if larger else np.less_equal, xi, yi))
    ordered = _ufunc(b, np.logical_or, _ufunc(b, np.logical_and, strictly, both_imag), tied)
    nan_first = _nan_part(b, x if ufunc in (np.maximum, np.minimum) else y)
    keep = _ufunc(b, np.logical_or, nan_first, ordered)
    shape = tuple(broadcast([keep.shape, x.shape, y.shape], b.env))
    return b.emit1("select", [keep, x, y], x.dtype, shape, scalar=not shape)     # (a ufunc of 0-d values: a scalar)


def _chosen(b: Builder, rows: Var, larger: bool) -> Var:
    """For each row of a 2-D complex array: the index of the first value with a NaN part, or else of the first of
    the largest (smallest) values."""
    from .reductions import arg_reduce, reduce
    r, i = real(b, rows), imag(b, rows)
    nan = _nan_part(b, rows)
    best_real = reduce(b, "max" if larger else "min", r, -1, keepdims=True)
    on_best = _ufunc(b, np.equal, r, best_real)
    limit = -np.inf if larger else np.inf
    best_imag = reduce(b, "max" if larger else "min", ew.where(b, on_best, i, limit), -1, keepdims=True)
    best = _ufunc(b, np.logical_and, on_best, _ufunc(b, np.equal, i, best_imag))
    return ew.where(b, reduce(b, "any", nan, -1), arg_reduce(b, "argmax", nan, -1), arg_reduce(b, "argmax", best, -1))


def _as_rows(b: Builder, x: Var, axes: tuple) -> tuple:
    """x with the reduced axes last, as (product of the kept dims, product of the reduced dims), and the kept dims."""
    from .shape_ops import product, reshape, transpose
    kept = tuple(i for i in range(x.ndim) if i not in axes)
    moved = transpose(b, x, kept + tuple(axes)) if kept + tuple(axes) != tuple(range(x.ndim)) else x
    kept_dims = tuple(x.shape[i] for i in kept)
    return reshape(b, moved, (product(kept_dims, b), product(tuple(x.shape[i] for i in axes), b))), kept_dims


def reduce_extremum(b: Builder, kind: str, x: Var, axes: tuple, keepdims: bool) -> Var:
    """max / min of a complex array over `axes` (not empty; checked by the caller)."""
    from .indexing import getitem
    from .reductions import keep_dims
    from .shape_ops import arange, reshape
    rows, kept_dims = _as_rows(b, x, axes)
    index = _chosen(b, rows, kind == "max")
    picked = getitem(b, rows, (arange(b, rows.shape[0]), index))
    if not kept_dims and not keepdims:
        return getitem(b, picked, 0)       # a NumPy scalar, as NumPy's full reduction returns
    result = reshape(b, picked, kept_dims)
    return keep_dims(b, result, axes) if keepdims else result


def arg_extremum(b: Builder, kind: str, x: Var, axis: int) -> Var:
    """argmax / argmin of a complex array along one axis (of a flattened array for axis=None: the caller's)."""
    from .indexing import getitem
    from .shape_ops import reshape
    rows, kept_dims = _as_rows(b, x, (axis,))
    index = _chosen(b, rows, kind == "argmax")
    return reshape(b, index, kept_dims) if kept_dims else getitem(b, index, 0)

