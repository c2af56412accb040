"""`.real`, `.imag`, `np.real`, `np.imag`, `np.angle` on run-time values.

On a complex array `.real` and `.imag` are views in NumPy: here they are the view primitives `real`/`imag`, which
frontend/memory.py follows like a slice (a write through them makes a new version of the complex array with that
part replaced; a returned one is the same view of the caller's array). On other dtypes `.real` is the array
itself and `.imag` a read-only array of zeros, as in NumPy.
"""
from __future__ import annotations

import numpy as np

from ..program import Var
from ..types import dtypes
from . import elementwise as ew
from .builder import Builder


def real(b: Builder, x):
    x = _as_value(b, x)
    if not dtypes.is_complex(x.dtype):
        return x
    return b.emit1("real", [x], dtypes.real_dtype(x.dtype), x.shape, scalar=x.scalar, weak=x.weak)


def imag(b: Builder, x):
    x = _as_value(b, x)
    if dtypes.is_complex(x.dtype):
        return b.emit1("imag", [x], dtypes.real_dtype(x.dtype), x.shape, scalar=x.scalar, weak=x.weak)
    from .shape_ops import full
    zeros = full(b, x.shape, 0, x.dtype)
    if x.scalar or x.weak:
        return b.emit1("copy", [zeros], x.dtype, (), scalar=True, weak=x.weak)
    b.memory.ref_of(zeros).buffer.readonly = "assignment destination is read-only (the .imag of a real array)"
    return zeros


def conj_method(b: Builder, x):
    """`x.conj()`: np.conjugate on complex arrays; on others NumPy returns the array itself."""
    x = _as_value(b, x)
    return ew.apply_ufunc(b, np.conjugate, [x]) if dtypes.is_complex(x.dtype) else x


def angle(b: Builder, z, deg=False):
    """NumPy's np.angle: arctan2(imag, real), in degrees when asked."""
    z = _as_value(b, z)
    if dtypes.is_complex(z.dtype):
        a = b.emit1("angle", [z], dtypes.real_dtype(z.dtype), z.shape, scalar=False)
    else:
        a = ew.apply_ufunc(b, np.arctan2, [0, z])
    if deg:
        a = ew.apply_ufunc(b, np.multiply, [a, 180 / np.pi])
    return a


def _as_value(b: Builder, x) -> Var:
    from .shape_ops import as_var
    return as_var(b, x)
