"""The promotion table: every binary operator and a set of binary ufuncs x every pair of operand kinds.

Operand kinds: arrays of the 12 supported dtypes, NumPy scalars of those dtypes, 0-d arrays of those dtypes, and
Python bool/int/float (weak, NEP 50). For each pair the compiled result must have NumPy's type (array, NumPy scalar
or Python scalar), dtype, shape and values; where NumPy raises (`uint8_array + 300`, `bool - bool`,
`int_array ** -3`) the compiled function raises the same exception type.

Compiling dominates (each specialization is JIT-compiled), so operand pairs are batched: one function per operator
takes a tuple of (a, b) pairs and returns the tuple of results, and a batch of ~24 pairs is one specialization.
The reference is the very same function run by NumPy, one pair at a time. When a batch fails to compile or run,
its pairs are retried one by one so that the failure message names the exact pairs at fault.

The default run covers the same-dtype and float16 array pairs for every operator and ufunc (except ufuncs that are
mere aliases of an operator, which get a sample), and a deterministic sample (SAMPLE) of the other pairs; the
exhaustive cross product is marked slow (`uv run pytest -m slow tests/test_promotion_table.py`). The batches are
compiled at opt_level=0 to keep the suite fast (typing, promotion and the arithmetic emitted are the same at every
level); `test_o3_*` checks that the default optimization level gives the same answers on edge values.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from transpiler import CompileError, transpile

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
          "float64", "complex64", "complex128"]
PYTHON_VALUES = [True, 2, 3, -3, 300, 2**63, 0.5, 2.5, 1e300, 1j, 2 - 0.5j]   # 2, 0.5: NumPy's ** 2, ** 0.5 fast paths
BATCH = 24
# the default suite's sample of each group of pairs (test_promotion_table_exhaustive, slow, runs every pair): its time
# grows with the pairs, each one an operation to compile
SAMPLE = 15


# ---- the functions under test: one per operator, over a tuple of operand pairs ------------------------------------
def op_add(pairs):
    return tuple([a + b for a, b in pairs])


def op_sub(pairs):
    return tuple([a - b for a, b in pairs])


def op_mul(pairs):
    return tuple([a * b for a, b in pairs])


def op_truediv(pairs):
    return tuple([a / b for a, b in pairs])


def op_floordiv(pairs):
    return tuple([a // b for a, b in pairs])


def op_mod(pairs):
    return tuple([a % b for a, b in pairs])


def op_pow(pairs):
    return tuple([a ** b for a, b in pairs])


def op_and(pairs):
    return tuple([a & b for a, b in pairs])


def op_or(pairs):
    return tuple([a | b for a, b in pairs])


def op_xor(pairs):
    return tuple([a ^ b for a, b in pairs])


def op_lt(pairs):
    return tuple([a < b for a, b in pairs])


def op_le(pairs):
    return tuple([a <= b for a, b in pairs])


def op_eq(pairs):
    return tuple([a == b for a, b in pairs])


def op_ne(pairs):
    return tuple([a != b for a, b in pairs])


def op_gt(pairs):
    return tuple([a > b for a, b in pairs])


def op_ge(pairs):
    return tuple([a >= b for a, b in pairs])


def uf_add(pairs):
    return tuple([np.add(a, b) for a, b in pairs])


def uf_maximum(pairs):
    return tuple([np.maximum(a, b) for a, b in pairs])


def uf_minimum(pairs):
    return tuple([np.minimum(a, b) for a, b in pairs])


def uf_arctan2(pairs):
    return tuple([np.arctan2(a, b) for a, b in pairs])


def uf_power(pairs):
    return tuple([np.power(a, b) for a, b in pairs])


def uf_floor_divide(pairs):
    return tuple([np.floor_divide(a, b) for a, b in pairs])


def uf_remainder(pairs):
    return tuple([np.remainder(a, b) for a, b in pairs])


def uf_logical_and(pairs):
    return tuple([np.logical_and(a, b) for a, b in pairs])


def uf_bitwise_and(pairs):
    return tuple([np.bitwise_and(a, b) for a, b in pairs])


OPS = {f.__name__: f for f in [
    op_add, op_sub, op_mul, op_truediv, op_floordiv, op_mod, op_pow, op_and, op_or, op_xor, op_lt, op_le, op_eq,
    op_ne, op_gt, op_ge, uf_add, uf_maximum, uf_minimum, uf_arctan2, uf_power, uf_floor_divide, uf_remainder,
    uf_logical_and, uf_bitwise_and]}
ALIASES = {"uf_add", "uf_power", "uf_floor_divide", "uf_remainder", "uf_bitwise_and"}   # same loops as an operator
POWERS = {"op_pow", "uf_power"}
ROUNDED = {"op_pow", "uf_power", "uf_arctan2"}          # libm pow/atan2: to rounding, not bit for bit
SIGNED_ZERO_FREE = {"uf_maximum", "uf_minimum"}         # max(0.0, -0.0): either zero, by NumPy's SIMD loops
# complex maximum/minimum pick one operand (lexicographic order, NaNs first): its parts exactly, zero signs included
COMPLEX_EXACT = {"uf_maximum", "uf_minimum"}
# complex products, quotients and powers: NumPy's formulas, but NumPy's scalar code and its SIMD loops round
# differently (with or without fused multiply-adds), and complex64 cpow is computed in complex128: each part within
# 4 ulp (products, quotients) or 1e-5 / 1e-13 (powers) of the magnitude |expected|
COMPLEX_RTOL = {np.complex64: 4 * 2.0**-24, np.complex128: 4 * 2.0**-53}
COMPLEX_POWER_RTOL = {np.complex64: 1e-5, np.complex128: 1e-13}
# Python complex results (`3 / (2 - 0.5j)` of two Python scalars): CPython divides by the denominator where NumPy's
# formula (which the kernel uses) multiplies by its reciprocal, and its `**` is its own c_pow: the last bits differ,
# within COMPLEX_RTOL / COMPLEX_POWER_RTOL of the magnitude as for NumPy's complex128.
# x ** n of a complex x: the error grows with |n| (n roundings of the phase); past |n| = 2**53 the phase n arg(x)
# is not representable, so only which parts are zero, finite, inf or nan is compared, not the signs of the infs.
HUGE_EXPONENT = 2.0**53


# ---- operands ---------------------------------------------------------------------------------------------------
def _array_values(dtype: str, side: str, power: bool) -> np.ndarray:
    dt = np.dtype(dtype)
    if dt.kind == "b":
        v = [False, True, True, False, True, False, True, True, False, False]
        return np.array(v[::-1] if side == "r" else v, dtype=dt)
    if dt.kind == "c":
        v = [0j, complex(-0.0, 1), 1.5 - 2j, -2.5 + 0.5j, complex(np.inf, 0), complex(0, -np.inf),
             complex(np.nan, 1), 7 + 0j, complex(np.inf, np.nan), 3e-300 + 1e300j]
        return np.array(v[::-1] if side == "r" else v, dtype=dt)
    if dt.kind == "f":
        fi = np.finfo(dt)
        if side == "r" and power:
            v = [0.0, 1.0, 2.0, 0.5, -1.5, 3.0, np.inf, np.nan, -0.0, 2.0]
        else:
            v = [0.0, -0.0, 1.5, -2.5, 7.0, np.inf, -np.inf, np.nan, float(fi.max), float(fi.smallest_subnormal)]
            if side == "r":
                v = [2.0, -0.0, -1.5, 4.0, 0.0, -np.inf, 3.0, 1.0, float(fi.smallest_subnormal), np.nan]
        return np.array(v, dtype=dt)
    info = np.iinfo(dt)
    if side == "r" and power:
        v = [0, 1, 2, 3, 0, 1, 2, 3, 7, 5]
    elif dt.kind == "u":
        v = [0, 1, 2, 7, 3, int(info.max), int(info.max) - 1, 5, 100, 9]
        if side == "r":
            v = [2, 0, 7, 3, int(info.max), 1, 5, 0, 9, int(info.max) // 2]
    else:
        v = [0, 1, -1, 7, -7, int(info.max), int(info.min), 3, -3, 100]
        if side == "r":
            v = [2, 0, -2, 3, 0, -1, -1, int(info.max), -5, int(info.min)]
    return np.array(v, dtype=dt)


def _scalar_value(dtype: str, side: str, power: bool):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return True
    if dt.kind == "c":
        return 2 + 0j if side == "r" and power else -2.5 + 1j if side == "l" else 1.5 - 0.5j
    if dt.kind == "f":
        return 2.0 if side == "r" and power else -2.5 if side == "l" else 1.5
    if side == "r" and power:
        return 3
    return 7 if side == "l" else (2 if dt.kind == "u" else -2)


def make(spec, side: str, op: str):
    """A fresh operand for spec = (kind, dtype or Python value)."""
    kind, what = spec
    power = op in POWERS
    if kind == "A":
        return _array_values(what, side, power)
    if kind == "S":
        return np.dtype(what).type(_scalar_value(what, side, power))
    if kind == "Z":
        return np.array(_scalar_value(what, side, power), dtype=what)
    return what


def describe(spec) -> str:
    kind, what = spec
    return {"A": f"{what} array", "S": f"np.{what} scalar", "Z": f"0-d {what} array"}.get(kind, f"Python {what!r}")


SPECS = ([("A", d) for d in DTYPES] + [("S", d) for d in DTYPES] + [("Z", d) for d in DTYPES]
         + [("P", v) for v in PYTHON_VALUES])


def all_pairs(op: str) -> list:
    pairs = []
    for left in SPECS:
        for right in SPECS:
            if left[0] == "P" and right[0] == "P":
                if op in POWERS and (isinstance(left[1], float) or isinstance(right[1], float)
                                     or abs(right[1]) > 300):
                    continue   # Python float ** raises OverflowError / returns complex by value; not NumPy's domain
            pairs.append((left, right))
    return pairs


def default_pairs(op: str) -> list:
    pairs = all_pairs(op)
    arrays = [p for p in pairs if p[0][0] == "A" and p[1][0] == "A"]
    others = [p for p in pairs if not (p[0][0] == "A" and p[1][0] == "A")]
    rng = random.Random(op)
    if op in ALIASES:
        return rng.sample(arrays, SAMPLE) + rng.sample(others, SAMPLE + SAMPLE // 3)
    weak = [p for p in others if "P" in (p[0][0], p[1][0]) and "A" in (p[0][0], p[1][0])]
    rest = [p for p in others if p not in weak]
    # the same-dtype and float16 array pairs always, a fixed sample of the others (every pair: the slow suite's
    # test_promotion_table_exhaustive; the default suite has to stay under ten minutes on two cores)
    kept = [p for p in arrays if p[0][1] == p[1][1] or "float16" in (p[0][1], p[1][1])]
    return (kept + rng.sample([p for p in arrays if p not in kept], SAMPLE) + rng.sample(weak, SAMPLE)
            + rng.sample(rest, SAMPLE))


# ---- comparison -------------------------------------------------------------------------------------------------
def _exception_kind(exc: BaseException) -> type:
    """The builtin exception class NumPy's exception is an instance of (UFuncTypeError -> TypeError)."""
    for cls in type(exc).__mro__:
        if cls.__module__ == "builtins":
            return cls
    return Exception


def compare(actual, expected, op: str, exponent=None) -> str | None:
    """None if equal, else what differs (`exponent`: the right operand of a power, when a Python number)."""
    if type(actual) is not type(expected):
        return f"type {type(actual).__name__} != {type(expected).__name__}"
    if not isinstance(expected, (np.ndarray, np.generic)):
        if isinstance(expected, float):
            a, e = np.float64(actual), np.float64(expected)
            return compare(a, e, op, exponent)
        if isinstance(expected, complex):
            return _compare_complex(np.asarray(actual, np.complex128), np.asarray(expected, np.complex128), op,
                                    exponent)
        return None if actual == expected else f"value {actual!r} != {expected!r}"
    if actual.dtype != expected.dtype:
        return f"dtype {actual.dtype} != {expected.dtype}"
    if np.shape(actual) != np.shape(expected):
        return f"shape {np.shape(actual)} != {np.shape(expected)}"
    a, e = np.asarray(actual), np.asarray(expected)
    if e.dtype.kind == "c":
        return _compare_complex(a, e, op, exponent)
    if e.dtype.kind != "f":
        return None if np.array_equal(a, e) else f"values {a!r} != {e!r}"
    if not np.array_equal(np.isnan(a), np.isnan(e)):
        return f"NaNs {a!r} != {e!r}"
    ok = ~np.isnan(e)
    if op in ROUNDED:
        rtol = {np.float16: 2e-3, np.float32: 2e-6, np.float64: 1e-12}[e.dtype.type]
        close = np.isclose(a[ok], e[ok], rtol=rtol, atol=0) | (a[ok] == e[ok])
        return None if close.all() else f"values {a!r} != {e!r} (rtol {rtol})"
    if not np.array_equal(a[ok], e[ok]):
        return f"values {a!r} != {e!r}"
    if op not in SIGNED_ZERO_FREE and not np.array_equal(np.signbit(a[ok]), np.signbit(e[ok])):
        return f"signs of zeros {a!r} != {e!r}"
    return None


def _compare_complex(a, e, op: str, exponent=None) -> str | None:
    if op in COMPLEX_EXACT:
        for part in (np.real, np.imag):
            if not np.array_equal(part(a), part(e), equal_nan=True) \
                    or not np.array_equal(np.signbit(part(a)), np.signbit(part(e))):
                return f"values {a!r} != {e!r} (exactly, the parts' zero signs included)"
        return None
    n = abs(exponent.real) if op in POWERS and isinstance(exponent, (int, float, complex)) else 0
    for part in (np.real, np.imag):
        if not np.array_equal(np.isnan(part(a)), np.isnan(part(e))):
            return f"NaNs {a!r} != {e!r}"
        inf = np.isinf(part(e))
        same = np.array_equal(np.isinf(part(a)), inf) if n >= HUGE_EXPONENT else \
            np.array_equal(part(a)[inf], part(e)[inf]) and not np.isinf(part(a)[~inf]).any()
        if not same:
            return f"infs {a!r} != {e!r}"
    if n >= HUGE_EXPONENT:
        return None if np.array_equal(a == 0, e == 0) else f"zeros {a!r} != {e!r}"
    finite = np.isfinite(e)
    rtol = (COMPLEX_POWER_RTOL if op in POWERS else COMPLEX_RTOL)[e.dtype.type]
    if n:
        rtol = max(rtol, 4 * n * np.finfo(e.dtype).eps)
    close = np.abs(a[finite] - e[finite]) <= rtol * np.abs(e[finite])
    return None if close.all() else f"values {a!r} != {e!r} (rtol {rtol} of the magnitude)"


def reference(fn, a, b):
    """(result, None) or (None, exception) of the NumPy run of one pair."""
    with np.errstate(all="ignore"):
        try:
            return fn(((a, b),))[0], None
        except Exception as e:  # noqa: BLE001 - the exception is the expected behaviour
            return None, e


def check_raises(compiled, a, b, expected_exc) -> str | None:
    kind = _exception_kind(expected_exc)
    try:
        with np.errstate(all="ignore"):
            got = compiled(((a, b),))[0]
    except Exception as e:  # noqa: BLE001
        if not isinstance(e, kind):
            return f"raised {type(e).__name__}: {e} (NumPy raises {kind.__name__}: {expected_exc})"
        if isinstance(e, CompileError) and str(e).split(": ", 1)[-1].startswith("internal compiler error"):
            return f"internal compiler error instead of {kind.__name__}: {e}"
        return None
    return f"returned {got!r}; NumPy raises {kind.__name__}: {expected_exc}"


def run_table(op: str, pairs: list, opt_level: int = 0) -> None:
    fn = OPS[op]
    compiled = transpile(fn, opt_level=opt_level)
    good, failures = [], []
    for left, right in pairs:
        a, b = make(left, "l", op), make(right, "r", op)
        expected, exc = reference(fn, a, b)
        label = f"{op}({describe(left)}, {describe(right)})"
        if exc is not None:
            msg = check_raises(compiled, a, b, exc)
            if msg:
                failures.append(f"{label}: {msg}")
            continue
        good.append((label, a, b, expected))
    for start in range(0, len(good), BATCH):
        chunk = good[start:start + BATCH]
        try:
            with np.errstate(all="ignore"):
                results = compiled(tuple((a, b) for _, a, b, _ in chunk))
        except Exception:  # noqa: BLE001 - find the pairs at fault, one by one
            results = None
        for i, (label, a, b, expected) in enumerate(chunk):
            if results is None:
                try:
                    with np.errstate(all="ignore"):
                        actual = compiled(((a, b),))[0]
                except Exception as e:  # noqa: BLE001
                    failures.append(f"{label}: raised {type(e).__name__}: {str(e).splitlines()[0]}")
                    continue
            else:
                actual = results[i]
            msg = compare(actual, expected, op, b if type(b) in (int, float, complex) else None)
            if msg:
                failures.append(f"{label}: {msg}")
    assert not failures, f"{len(failures)} of {len(pairs)} pairs differ from NumPy:\n" + "\n".join(failures[:60])


@pytest.mark.parametrize("op", list(OPS))
def test_promotion_table(op):
    run_table(op, default_pairs(op))


@pytest.mark.slow
@pytest.mark.parametrize("op", list(OPS))
def test_promotion_table_exhaustive(op):
    run_table(op, all_pairs(op))


# ---- the default optimization level on edge values ----------------------------------------------------------------
@pytest.mark.parametrize("op", list(OPS))
def test_o3_same_dtype_edge_values(op):
    """Division by zero, INT_MIN // -1, overflow: no undefined behaviour the optimizer could exploit."""
    run_table(op, [(("A", d), ("A", d)) for d in DTYPES], opt_level=3)


# ---- integer powers with negative exponents -----------------------------------------------------------------------
def test_integer_array_to_negative_python_int_power_raises_value_error():
    x = np.arange(1, 4, dtype=np.int32)
    with pytest.raises(ValueError):
        x ** -1
    with pytest.raises(ValueError):
        transpile(lambda x: x ** -1)(x)
    with pytest.raises(ValueError):
        transpile(lambda x: np.power(x, -2))(x)


def test_integer_array_to_negative_runtime_power_raises_value_error():
    """NumPy checks the exponents' values: a negative integer exponent array raises ValueError at run time."""
    x = np.arange(1, 4, dtype=np.int64)
    e = np.array([1, -1, 2], dtype=np.int64)
    with pytest.raises(ValueError):
        x ** e
    f = transpile(lambda x, e: x ** e)
    np.testing.assert_array_equal(f(x, np.array([1, 0, 2])), x ** np.array([1, 0, 2]))
    with pytest.raises(ValueError):
        f(x, e)


# ---- NumPy's fast paths for ** ------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_array_to_one_half_is_sqrt(dtype):
    """For float arrays NumPy computes `x ** 0.5` and `np.power(x, 0.5)` as np.sqrt(x): sqrt(-inf) is nan and
    sqrt(-0.0) is -0.0, where C's pow gives inf and 0.0. (A NumPy scalar, np.float64(-inf) ** 0.5, takes pow: inf.)"""
    x = np.array([-np.inf, -0.0, 0.0, 4.0, 2.0, np.inf, np.nan], dtype=dtype)
    for fn in (op_pow, uf_power):
        expected, _ = reference(fn, x, 0.5)
        with np.errstate(all="ignore"):
            actual = transpile(fn)(((x, 0.5),))[0]
        assert compare(actual, expected, "op_add") is None, (fn.__name__, actual, expected)
    scalar = np.dtype(dtype).type(-np.inf)
    with np.errstate(all="ignore"):
        assert compare(transpile(op_pow)(((scalar, 0.5),))[0], reference(op_pow, scalar, 0.5)[0], "op_add") is None
