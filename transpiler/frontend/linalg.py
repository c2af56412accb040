"""Matrix products on run-time arrays: `@`, np.matmul, np.dot.

Operands are not converted before the product: a float32 @ float64 matmul reads the float32 operand and widens
each element inside the contraction (exactly what NumPy's cast to float64 computes, without the copy)."""
from __future__ import annotations

import numpy as np

from ..errors import UserError
from ..types import dtypes
from ..types.shapes import broadcast, readable
from .builder import Builder
from .elementwise import apply_ufunc, equal_in_kernel
from .shape_ops import as_var, expand_dims, reshape, squeeze, transpose


def matmul(b: Builder, a, c, dtype=None):
    x, y = as_var(b, a), as_var(b, c)
    if x.ndim == 0 or y.ndim == 0:
        raise UserError("matmul: Input operand does not have enough dimensions", ValueError)
    _, (out_dt,) = dtypes.resolve_ufunc(np.matmul, [x.dtype, y.dtype]) if dtype is None else \
        dtypes.resolve_ufunc_with_dtype(np.matmul, [x.dtype, y.dtype], dtypes.check_supported(dtype))
    x2 = expand_dims(b, x, 0) if x.ndim == 1 else x
    y2 = expand_dims(b, y, -1) if y.ndim == 1 else y
    cut = equal_in_kernel(b, [(x2, x2.ndim - 1), (y2, y2.ndim - 2)], "matmul: Input operand 1 has a mismatch in "
                          "its core dimension 0 (sizes known only when the kernel runs)")
    if cut is not None:
        x2, y2 = cut
    b.env.unify(x2.shape[-1], y2.shape[-2], "matmul: Input operand 1 has a mismatch in its core dimension 0 "
                f"(size {readable(x2.shape[-1])} is different from {readable(y2.shape[-2])})")
    batch = broadcast([x2.shape[:-2], y2.shape[:-2]], b.env)
    shape = batch + (x2.shape[-2], y2.shape[-1])
    r = b.emit1("matmul", [x2, y2], out_dt, shape, scalar=False)
    drop = ([len(shape) - 2] if x.ndim == 1 else []) + ([len(shape) - 1] if y.ndim == 1 else [])
    if drop:
        r = squeeze(b, r, tuple(drop))
        r.scalar = r.ndim == 0
    return r


def dot(b: Builder, a, c):
    x, y = as_var(b, a), as_var(b, c)
    if x.ndim == 0 or y.ndim == 0:
        return apply_ufunc(b, np.multiply, [x, y])
    if x.ndim <= 2 and y.ndim <= 2:
        return matmul(b, x, y)
    # N-D: a sum over x's last axis and y's second-to-last, an outer product over all the other axes
    #   dot(x, y)[i..., j..., n] = sum_k x[i..., k] * y[j..., k, n]
    k_axis = y.ndim - 2 if y.ndim >= 2 else 0
    perm = [k_axis] + [i for i in range(y.ndim) if i != k_axis]
    y_k_first = transpose(b, y, perm)                                   # [k, j..., n]
    rows = reshape(b, x, (-1, x.shape[-1]))                             # [i, k]
    cols = reshape(b, y_k_first, (y.shape[k_axis], -1))                 # [k, j * n]
    out = matmul(b, rows, cols)                                         # [i, j * n]
    shape = tuple(x.shape[:-1]) + tuple(d for i, d in enumerate(y.shape) if i != k_axis)
    return reshape(b, out, shape)
