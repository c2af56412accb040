"""The `math` module on run-time scalars, with Python's semantics: arguments become Python floats, results are
Python floats (or ints, bools), and where CPython's math module raises (it decides from the libm result: a NaN from
a non-NaN argument is `ValueError('math domain error')`, an infinity from finite arguments `OverflowError('math
range error')` for functions that can overflow and a domain error for the others, e.g. `log(0)`) the kernel sets a
check flag and the call raises the same exception."""
from __future__ import annotations

import math

import numpy as np

from ..errors import UserError
from ..program import Var
from ..types import dtypes
from . import elementwise as ew
from .numpy_api import FUNCTIONS

_DOMAIN = "math domain error"
_RANGE = "math range error"

# math function -> (NumPy ufunc, can overflow), CPython's math_1 table
_UNARY = {
    math.exp: (np.exp, True), math.expm1: (np.expm1, True), math.sinh: (np.sinh, True),
    math.cosh: (np.cosh, True), math.log: (np.log, False), math.log2: (np.log2, False),
    math.log10: (np.log10, False), math.log1p: (np.log1p, False), math.sqrt: (np.sqrt, False),
    math.sin: (np.sin, False), math.cos: (np.cos, False), math.tan: (np.tan, False), math.asin: (np.arcsin, False),
    math.acos: (np.arccos, False), math.atan: (np.arctan, False), math.tanh: (np.tanh, False),
    math.asinh: (np.arcsinh, False), math.acosh: (np.arccosh, False), math.atanh: (np.arctanh, False),
    math.fabs: (np.absolute, False),
}
if hasattr(math, "exp2"):     # Python 3.11+
    _UNARY[math.exp2] = (np.exp2, True)
if hasattr(math, "cbrt"):
    _UNARY[math.cbrt] = (np.cbrt, False)


def as_float(b, x) -> Var:
    """float(x): a run-time scalar as a Python float (weak float64)."""
    if not isinstance(x, Var):      # a number of the program: a weak float64 constant
        x = b.const(np.float64(float(x)))
    if x.ndim:
        raise UserError("only 0-d arrays can be converted to Python scalars", TypeError)
    if x.dtype.kind not in "biuf":
        raise UserError(f"must be real number, not {x.dtype}", TypeError)
    return b.emit1("convert" if x.dtype != dtypes.FLOAT64 else "copy", [x], dtypes.FLOAT64, (), weak=True,
                   dtype=dtypes.FLOAT64)


def _ufunc(b, ufunc, *args) -> Var:
    return ew.apply_ufunc(b, ufunc, list(args), python_op=True)


def _any(b, *flags) -> Var:
    result = flags[0]
    for f in flags[1:]:
        result = _ufunc(b, np.logical_or, result, f)
    return result


def _all(b, *flags) -> Var:
    result = flags[0]
    for f in flags[1:]:
        result = _ufunc(b, np.logical_and, result, f)
    return result


def _not(b, flag) -> Var:
    return _ufunc(b, np.logical_not, flag)


def _unary(ufunc, can_overflow: bool):
    def handler(b, x):
        x = as_float(b, x)
        r = _ufunc(b, ufunc, x)
        b.check(_all(b, _ufunc(b, np.isnan, r), _not(b, _ufunc(b, np.isnan, x))), ValueError, _DOMAIN)
        overflow = _all(b, _ufunc(b, np.isinf, r), _ufunc(b, np.isfinite, x))
        b.check(overflow, OverflowError if can_overflow else ValueError, _RANGE if can_overflow else _DOMAIN)
        return r
    return handler


def _log(b, x, base=None):
    r = _unary(np.log, False)(b, x)
    if base is None:
        return r
    return _ufunc(b, np.true_divide, r, _unary(np.log, False)(b, base))   # log(base) == 0: ZeroDivision


def _pow(b, x, y):
    """CPython's math.pow: for finite arguments a NaN is a domain error, an infinity a domain error from a zero
    base and a range error otherwise."""
    x, y = as_float(b, x), as_float(b, y)
    r = b.emit1("pow", [x, y], dtypes.FLOAT64, (), weak=True)    # libm's pow, as CPython (no x*x shortcut)
    finite = _all(b, _ufunc(b, np.isfinite, x), _ufunc(b, np.isfinite, y))
    inf = _ufunc(b, np.isinf, r)
    zero = _ufunc(b, np.equal, x, 0.0)
    b.check(_all(b, finite, _any(b, _ufunc(b, np.isnan, r), _all(b, inf, zero))), ValueError, _DOMAIN)
    b.check(_all(b, finite, inf, _not(b, zero)), OverflowError, _RANGE)
    return r


def _atan2(b, y, x):
    return _ufunc(b, np.arctan2, as_float(b, y), as_float(b, x))


def _to_int(ufunc, name, label=None):
    """math.floor / ceil / trunc (and int(), `label`): a Python int (an int64 here: a value beyond its range is an
    OverflowError)."""
    def handler(b, x):
        if name == "trunc" and label is None and isinstance(x, Var) and not x.weak and x.dtype != dtypes.FLOAT64:
            # math.trunc calls __trunc__, which only np.float64 (a float) has among NumPy's scalars and arrays
            kind = f"numpy.{x.dtype.type.__name__}" if x.scalar else "numpy.ndarray"
            raise UserError(f"type {kind} doesn't define __trunc__ method", TypeError)
        if isinstance(x, Var) and x.ndim == 0 and x.dtype.kind in "biu" and (x.weak or label is not None):
            return integer_to_int(b, x, label or f"math.{name}()")
        # (NumPy's integer scalars have no __floor__ / __ceil__: math.floor converts them to a float first, so
        # math.floor(np.int64(2**62 + 1)) is 2**62)
        r = _ufunc(b, ufunc, as_float(b, x))
        b.check(_ufunc(b, np.isnan, r), ValueError, "cannot convert float NaN to integer")
        b.check(_ufunc(b, np.isinf, r), OverflowError, "cannot convert float infinity to integer")
        big = _all(b, _ufunc(b, np.isfinite, r),
                   _any(b, _ufunc(b, np.less, r, -2.0 ** 63), _ufunc(b, np.greater_equal, r, 2.0 ** 63)))
        b.check(big, OverflowError, _beyond_int64(label or f"math.{name}()"))
        return b.emit1("convert", [r], dtypes.INT64, (), weak=True, dtype=dtypes.INT64)
    return handler


def _frexp(b, x):
    """math.frexp: (mantissa, exponent) as libm's frexp (the primitives of np.frexp), a Python float and int; 0, inf
    and nan are returned as they are with exponent 0."""
    x = as_float(b, x)
    mantissa = b.emit1("frexp_mantissa", [x], dtypes.FLOAT64, (), weak=True)
    exponent = b.emit1("frexp_exponent", [x], np.dtype(np.int32), ())
    return mantissa, b.emit1("convert", [exponent], dtypes.INT64, (), weak=True, dtype=dtypes.INT64)


def _ldexp(b, x, i):
    """CPython's math.ldexp: an int exponent (a bool too; a NumPy int is its TypeError), libm's ldexp with the
    exponent clamped to a C int (the same inf or signed zero as CPython's own clamping), an infinity from a finite
    x its OverflowError."""
    if isinstance(i, bool) or isinstance(i, int) and not isinstance(i, np.integer):
        i = b.const(np.int64(min(max(i, -2 ** 63), 2 ** 63 - 1)))
    elif not (isinstance(i, Var) and i.ndim == 0 and i.weak and i.dtype.kind in "bi"):
        raise UserError("Expected an int as second argument to ldexp.", TypeError)
    x = as_float(b, x)
    if i.dtype != dtypes.INT64:
        i = b.emit1("convert", [i], dtypes.INT64, (), weak=True, dtype=dtypes.INT64)
    r = b.emit1("ldexp", [x, i], dtypes.FLOAT64, (), weak=True)
    b.check(_all(b, _ufunc(b, np.isinf, r), _ufunc(b, np.isfinite, x)), OverflowError, _RANGE)
    return r


def _predicate(ufunc):
    def handler(b, x):
        return _ufunc(b, ufunc, as_float(b, x))
    return handler


def _isclose(b, a, c, *, rel_tol=1e-09, abs_tol=0.0):
    """CPython's math.isclose, step by step."""
    if rel_tol < 0.0 or abs_tol < 0.0:
        raise UserError("tolerances must be non-negative", ValueError)
    a, c = as_float(b, a), as_float(b, c)
    diff = _ufunc(b, np.absolute, _ufunc(b, np.subtract, c, a))
    close = _any(b, _ufunc(b, np.less_equal, diff, _ufunc(b, np.absolute, _ufunc(b, np.multiply, rel_tol, c))),
                 _ufunc(b, np.less_equal, diff, _ufunc(b, np.absolute, _ufunc(b, np.multiply, rel_tol, a))),
                 _ufunc(b, np.less_equal, diff, abs_tol))
    infinite = _any(b, _ufunc(b, np.isinf, a), _ufunc(b, np.isinf, c))
    return _any(b, _ufunc(b, np.equal, a, c), _all(b, _not(b, infinite), close))


def _unsupported(name, instead):
    def handler(b, *args, **kwargs):
        raise UserError(f"math.{name}() is not supported on run-time values; {instead}", TypeError)
    return handler


float_to_int = _to_int(np.trunc, "trunc", "int()")     # int() of a float scalar: Python's conversion, checked
round_to_int = _to_int(np.rint, "round", "round()")     # round() of a float scalar: half to even, checked


def _beyond_int64(label: str) -> str:
    return f"{label} of a value beyond the int64 range: the compiled function's ints are int64"


def integer_to_int(b, x: Var, label: str = "int()") -> Var:
    """An integer or bool scalar as a Python int (an int64 here): a uint64 past int64, which Python's int holds,
    is an OverflowError (the cast wrapped it: int(np.uint64(2**64 - 1)) was -1)."""
    if x.dtype == np.uint64:
        big = _ufunc(b, np.greater, x, np.uint64(2 ** 63 - 1))
        b.check(big, OverflowError, _beyond_int64(label))
    return b.emit1("convert" if x.dtype != dtypes.INT64 else "copy", [x], dtypes.INT64, (), weak=True,
                   dtype=dtypes.INT64)


def _register():
    for fn, (ufunc, can_overflow) in _UNARY.items():
        FUNCTIONS[fn] = _unary(ufunc, can_overflow)
    FUNCTIONS[math.log] = _log
    FUNCTIONS[math.pow] = _pow
    FUNCTIONS[math.atan2] = _atan2
    FUNCTIONS[math.floor] = _to_int(np.floor, "floor")
    FUNCTIONS[math.ceil] = _to_int(np.ceil, "ceil")
    FUNCTIONS[math.trunc] = _to_int(np.trunc, "trunc")
    FUNCTIONS[math.isnan] = _predicate(np.isnan)
    FUNCTIONS[math.isinf] = _predicate(np.isinf)
    FUNCTIONS[math.isfinite] = _predicate(np.isfinite)
    FUNCTIONS[math.degrees] = lambda b, x: _ufunc(b, np.multiply, as_float(b, x), 180.0 / math.pi)
    FUNCTIONS[math.radians] = lambda b, x: _ufunc(b, np.multiply, as_float(b, x), math.pi / 180.0)
    FUNCTIONS[math.isclose] = _isclose
    FUNCTIONS[math.frexp] = _frexp
    FUNCTIONS[math.ldexp] = _ldexp
    for name in ("hypot", "fmod", "copysign", "erf", "erfc", "gamma", "lgamma", "modf"):
        FUNCTIONS[getattr(math, name)] = _unsupported(name, "write it with NumPy ufuncs (np.fmod, np.copysign ...) "
                                                            "or tell us which one you need")


_register()
