"""The dtypes the compiler supports and NumPy 2 promotion (NEP 50).

Promotion is not re-implemented: NumPy is the specification, so the loop a ufunc would pick is asked of NumPy itself
(`ufunc.resolve_dtypes`), with Python scalar types standing for weak operands. The same answer NumPy gives at run time
is therefore the one the compiler bakes in.
"""
from __future__ import annotations

import numpy as np

from ..errors import UserError

SUPPORTED = tuple(np.dtype(n) for n in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64",
    "complex64", "complex128"))
SUPPORTED_SET = frozenset(SUPPORTED)   # a hash lookup per argument of every call
BOOL = np.dtype(bool)
INT64 = np.dtype(np.int64)
FLOAT64 = np.dtype(np.float64)


def is_float(dt: np.dtype) -> bool:
    return dt.kind == "f"


def is_complex(dt: np.dtype) -> bool:
    return dt.kind == "c"


def real_dtype(dt: np.dtype) -> np.dtype:
    """The dtype of a complex dtype's parts (float32 for complex64); other dtypes are their own."""
    return np.dtype(f"f{dt.itemsize // 2}") if dt.kind == "c" else dt


# The elementwise primitives implemented on complex values (codegen/complex_scalar.py); the frontend refuses the
# other ufuncs NumPy has complex loops for.
COMPLEX_PRIMS = frozenset({"add", "sub", "mul", "div", "pow", "neg", "copy", "conj", "abs", "exp", "log", "sqrt",
                           "square", "reciprocal", "isnan", "isinf", "isfinite", "eq", "ne", "lt", "le", "gt", "ge"})


def is_bool(dt: np.dtype) -> bool:
    return dt.kind == "b"


def is_signed(dt: np.dtype) -> bool:
    return dt.kind == "i"


def is_unsigned(dt: np.dtype) -> bool:
    return dt.kind == "u"


def bits(dt: np.dtype) -> int:
    return 1 if dt.kind == "b" else dt.itemsize * 8


def check_supported(dt, what: str = "value") -> np.dtype:
    dt = np.dtype(dt)
    if dt not in SUPPORTED:
        raise UserError(f"unsupported dtype {dt} for {what} (supported: {', '.join(map(str, SUPPORTED))})", TypeError)
    return dt


def weak_type(value) -> type:
    """The Python type that stands for a weak scalar in `resolve_dtypes`."""
    if isinstance(value, bool):
        return bool
    if isinstance(value, int):
        return int
    if isinstance(value, float):
        return float
    if isinstance(value, complex):
        return complex
    raise UserError(f"unsupported scalar {value!r}", TypeError)


def resolve_ufunc(ufunc: np.ufunc, operand_types: list) -> tuple[list[np.dtype], list[np.dtype]]:
    """(input loop dtypes, output dtypes) NumPy picks for `ufunc` on operands of these types.

    Each operand type is a np.dtype (strong) or bool/int/float (a weak Python scalar).
    """
    key = tuple(np.dtype(bool) if t is bool else t for t in operand_types) + (None,) * ufunc.nout
    try:
        loop = ufunc.resolve_dtypes(key)
    except TypeError as e:  # NumPy's own message, e.g. "numpy boolean subtract ... is not supported"
        raise UserError(str(e), TypeError) from None
    return list(loop[:ufunc.nin]), list(loop[ufunc.nin:])


def weak_to_dtype(value, dtype: np.dtype):
    """Convert a weak Python scalar to `dtype` the way NumPy does inside a ufunc (OverflowError when out of range)."""
    try:
        return dtype.type(value)
    except OverflowError as e:
        raise UserError(str(e), OverflowError) from None



def resolve_ufunc_with_dtype(ufunc: np.ufunc, operand_types: list, dtype: np.dtype):
    """Loop for `ufunc(..., dtype=dtype)`: NumPy's signature=(dtype,)*n resolution."""
    key = tuple(np.dtype(bool) if t is bool else t for t in operand_types) + (None,) * ufunc.nout
    try:
        loop = ufunc.resolve_dtypes(key, signature=(None,) * ufunc.nin + (dtype,) * ufunc.nout, casting="unsafe")
    except TypeError as e:
        raise UserError(str(e), TypeError) from None
    return list(loop[:ufunc.nin]), list(loop[ufunc.nin:])
