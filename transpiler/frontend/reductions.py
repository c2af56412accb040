"""Reductions on run-time arrays: sum, prod, max, min, any, all, argmax, argmin.

Result dtypes come from NumPy itself (the same reduction run on a one-element array of the operand's dtype), so
`sum(int32) -> int64`, `sum(bool) -> int64`, `max(float16) -> float16` hold by construction. mean, var and std are
not here: they are library functions in stdlib/numeric.py, compiled from their Python source.
"""
from __future__ import annotations

import operator

import numpy as np

from ..errors import UserError
from ..program import Var
from ..types import dtypes
from ..types.shapes import Sym, derived
from .builder import Builder, as_operand
from .elementwise import to_bool

_NUMPY = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "any": np.any, "all": np.all}


def normalize_axes(axis, ndim: int) -> tuple:
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, Var):
        raise UserError("axis must be known at compile time", TypeError)
    try:
        axes = np.lib.array_utils.normalize_axis_tuple(axis, ndim, allow_duplicate=True)
    except (np.exceptions.AxisError, ValueError, TypeError) as e:
        raise UserError(str(e), type(e)) from None
    if len(set(axes)) != len(axes):     # (normalize_axis_tuple's own message is "repeated axis")
        raise UserError("duplicate value in 'axis'", ValueError)
    return tuple(sorted(axes))


def result_dtype(kind: str, x_dtype: np.dtype, dtype) -> np.dtype:
    """What NumPy returns for this reduction, asked of NumPy."""
    try:
        kwargs = {"dtype": dtype} if dtype is not None else {}
        return np.asarray(_NUMPY[kind](np.ones(1, x_dtype), **kwargs)).dtype
    except TypeError as e:
        raise UserError(str(e), TypeError) from None


def reduce(b: Builder, kind: str, a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    if out is not None or initial is not None or where is not None:
        raise UserError(f"{kind}(): the out=, initial= and where= arguments are not supported", TypeError)
    x = as_var(b, a)
    axes = normalize_axes(axis, x.ndim)
    out_dt = result_dtype(kind, x.dtype, dtype)
    if kind in ("max", "min") and dtypes.is_complex(out_dt):
        from .complex_order import reduce_extremum
        x = b.convert(x, out_dt) if x.dtype != out_dt else x
        require_nonempty(b, x, axes, {"max": "maximum", "min": "minimum"}[kind])
        if not axes:
            return b.emit1("copy", [x], x.dtype, x.shape, scalar=not x.shape and (not keepdims or x.ndim == 0))
        return reduce_extremum(b, kind, x, axes, keepdims)
    if kind in ("any", "all"):
        x = to_bool(b, x)
    elif x.dtype != out_dt:
        x = b.convert(x, out_dt)
    if kind in ("max", "min"):
        require_nonempty(b, x, axes, {"max": "maximum", "min": "minimum"}[kind])
    shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    r = b.emit1("reduce", [x], out_dt, shape, scalar=not shape and (not keepdims or x.ndim == 0), kind=kind,
                axes=axes)
    return keep_dims(b, r, axes) if keepdims else r


def arg_reduce(b: Builder, kind: str, a, axis=None, out=None, keepdims=False):
    if out is not None:
        raise UserError(f"{kind}(): out= is not supported", TypeError)
    x = as_var(b, a)
    if axis is None:
        x = flatten(b, x)
        axes = (0,)
    else:
        if not isinstance(axis, Var):    # one axis: a tuple is NumPy's TypeError (it reduced along each axis)
            try:
                axis = operator.index(axis)
            except TypeError as e:
                raise UserError(str(e), TypeError) from None
        axes = normalize_axes(axis, x.ndim)
    require_nonempty(b, x, axes, kind, empty_message=f"attempt to get {kind} of an empty sequence")
    shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    if dtypes.is_complex(x.dtype):
        from .complex_order import arg_extremum
        r = arg_extremum(b, kind, x, axes[0])
    else:
        r = b.emit1(kind, [x], dtypes.INT64, shape, scalar=not shape and not keepdims, axis=axes[0])
    if keepdims:
        return keep_dims(b, r, tuple(range(len(a.shape))) if axis is None else axes)
    return r


def keep_dims(b: Builder, r: Var, axes: tuple) -> Var:
    if not axes:
        return r
    shape = list(r.shape)
    for ax in axes:
        shape.insert(ax, 1)
    return b.emit1("expand_dims", [r], r.dtype, tuple(shape), axes=tuple(axes))


def flatten(b: Builder, x: Var) -> Var:
    if x.ndim == 1:
        return x
    if x.ndim == 0:
        return b.emit1("expand_dims", [x], x.dtype, (1,), axes=(0,))
    size = 1
    for d in x.shape:
        size = derived("mul", size, b.env.find(d))
    return b.emit1("flatten", [x], x.dtype, (size,))


def require_nonempty(b: Builder, x: Var, axes: tuple, name: str, empty_message: str = "") -> None:
    """A reduction with no identity over an empty axis is a ValueError in NumPy: at compile time when the size is
    static, else checked at the call boundary."""
    message = empty_message or f"zero-size array to reduction operation {name} which has no identity"
    for ax in axes:
        d = b.env.find(x.shape[ax])
        if d == 0:
            raise UserError(message, ValueError)
        if isinstance(d, Sym):   # checked in the kernel, so errors come in program order as in NumPy
            size = b.emit1("dim_size", [x], dtypes.INT64, (), axis=ax)
            zero = b.const(np.int64(0))
            flag = b.emit1("eq", [size, zero], dtypes.BOOL, ())
            b.check(flag, ValueError, message)


def as_var(b: Builder, a) -> Var:
    a = as_operand(a)
    return a if isinstance(a, Var) else b.const(np.asarray(a))
