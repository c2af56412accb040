"""The math module on run-time scalars: Python floats and ints out, and CPython's exceptions (ValueError('math domain
error'), OverflowError('math range error'), the float -> int conversion errors) raised at the call."""
import math
import sys
import warnings

import numpy as np
import pytest

from transpiler import transpile
from transpiler.errors import CompileError

VALUES = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, 1e-310, 3.7, -12.25, 710.0, -800.0, 1e300, np.inf, -np.inf, np.nan]
UNARY = ["exp", "expm1", "sinh", "cosh", "log", "log2", "log10", "log1p", "sqrt", "sin", "cos", "tan", "asin", "acos",
         "atan", "tanh", "asinh", "acosh", "atanh", "fabs", "floor", "ceil", "trunc", "isnan", "isinf", "isfinite",
         "degrees", "radians"] + (["exp2", "cbrt"] if sys.version_info >= (3, 11) else [])
# our exp, log, sin, cos, tanh are the kernels' vectorized polynomials (docs/semantics.md: within 1-2 ulp), the
# others libm's, as CPython's
ULPS = 4


def outcome(fn, *args):
    try:
        return fn(*args)
    except (ValueError, OverflowError, ZeroDivisionError) as error:
        return type(error), str(error).splitlines()[0]     # (ours add the line that required the check)


def assert_same_outcome(got, want):
    if isinstance(want, tuple):
        assert got == want
        return
    assert type(got) is type(want), (got, want)
    if isinstance(want, float) and not math.isnan(want) and not math.isinf(want):
        assert abs(got - want) <= ULPS * math.ulp(want) or got == want, (got, want)
    else:
        assert got == want or (math.isnan(got) and math.isnan(want)), (got, want)


@pytest.mark.parametrize("name", UNARY)
def test_unary_functions_on_special_values(name):
    fn = getattr(math, name)
    compiled = transpile(lambda x, i: fn(x[i]))
    x = np.array(VALUES)
    for i, v in enumerate(VALUES):
        if name in ("floor", "ceil", "trunc") and math.isfinite(v) and abs(v) >= 2.0 ** 63:
            continue      # an int beyond int64: test_floor_beyond_int64_is_an_overflow_error
        assert_same_outcome(outcome(compiled, x, np.int64(i)), outcome(fn, v))


@pytest.mark.parametrize("dtype", ["float32", "int32", "uint8", "bool"])
def test_arguments_become_python_floats(dtype):
    x = np.array([3, 1, 0], dtype)
    for fn in (math.sqrt, math.exp, math.floor, math.isfinite):
        got, want = transpile(lambda x: fn(x[0]))(x), fn(x[0])
        assert type(got) is type(want) and got == pytest.approx(want, rel=1e-15)


@pytest.mark.parametrize("x, y", [(2.0, 10.0), (0.0, -1.0), (0.0, 0.0), (-8.0, 1 / 3), (10.0, 400.0), (-2.0, 3.0),
                                  (np.inf, -1.0), (np.nan, 0.0), (1.0, np.nan), (-0.0, -3.0), (1.5, 2.0)])
def test_pow_atan2_log_base(x, y):
    pair = np.array([x, y])
    for fn in (math.pow, math.atan2, math.log):
        assert_same_outcome(outcome(transpile(lambda p: fn(p[0], p[1])), pair), outcome(fn, x, y))
    assert_same_outcome(outcome(transpile(lambda p: math.log(p[0], 10)), pair), outcome(math.log, x, 10))


@pytest.mark.parametrize("a, c", [(1.0, 1.0 + 1e-10), (1.0, 1.001), (np.inf, np.inf), (np.inf, 1e308), (0.0, 1e-300),
                                  (np.nan, np.nan)])
def test_isclose(a, c):
    pair = np.array([a, c])
    assert transpile(lambda p: math.isclose(p[0], p[1]))(pair) == math.isclose(a, c)
    assert transpile(lambda p: math.isclose(p[0], p[1], abs_tol=1e-6))(pair) == math.isclose(a, c, abs_tol=1e-6)


def test_floor_beyond_int64_is_an_overflow_error():
    with pytest.raises(OverflowError, match="int64"):
        transpile(lambda x: math.floor(x[0]))(np.array([1e300]))


def int_of_element(x, i):
    return int(x[i]), int(x[i] * 2.0)


@pytest.mark.parametrize("dtype", [np.float64, np.float16, np.complex128])
def test_int_of_a_float_scalar_is_pythons_conversion(dtype):
    """int() of a NaN is Python's ValueError, of an infinity its OverflowError (the cast gave INT_MIN for both, and
    for values past int64, where the compiled function's ints stop: an OverflowError that says so)."""
    values = [2.7, -2.7, 0.5, -0.0, 1e4, np.nan, np.inf, -np.inf] + ([9.3e18, -1e19] if dtype != np.float16 else [])
    x = np.array(values).astype(dtype)
    compiled = transpile(int_of_element)
    for i, v in enumerate(values):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            want, got = outcome(int_of_element, x, i), outcome(compiled, x, i)
        if not isinstance(want[0], type) and max(map(abs, want)) >= 2 ** 63:
            want = OverflowError, "int() of a value beyond the int64 range: the compiled function's ints are int64"
        assert got == want and type(got) is type(want), (v, got, want)


def python_ints_of_uint64(x):
    return int(x[0]), x[:1].item(), int(x[0]) > 0


def test_a_uint64_past_int64_as_a_python_int_is_an_overflow_error():
    """int() and .item() of a uint64 past int64: Python's int holds it, the compiled function's ints (int64) do
    not: an OverflowError that says so (the cast wrapped it: 2**64 - 1 was -1, and 2**63 > 0 False)."""
    compiled = transpile(python_ints_of_uint64)
    x = np.array([2 ** 63 - 1, 1], np.uint64)
    assert compiled(x) == python_ints_of_uint64(x)
    for value in (2 ** 63, 2 ** 64 - 1):
        with pytest.raises(OverflowError, match="beyond the int64 range"):
            compiled(np.array([value, 1], np.uint64))


def floor_and_ceil_of_integers(x, n):
    return math.floor(x[0]), math.ceil(x[1]), math.floor(n)


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_floor_of_a_numpy_integer_goes_through_a_float_as_numpys(dtype):
    """NumPy's integer scalars have no __floor__: math.floor converts them to a float, so 2**62 + 1 is 2**62 and
    the largest int64 2**63, past the compiled function's ints (an OverflowError); a Python int stays exact."""
    compiled = transpile(floor_and_ceil_of_integers)
    x = np.array([2 ** 62 + 1, 2 ** 53 + 1], dtype)
    assert compiled(x, 2 ** 62 + 1) == floor_and_ceil_of_integers(x, 2 ** 62 + 1) == (2 ** 62, 2 ** 53, 2 ** 62 + 1)
    with pytest.raises(OverflowError, match="beyond the int64 range"):
        compiled(np.array([np.iinfo(dtype).max, 1], dtype), 0)


@pytest.mark.parametrize("x", [np.array([2.5], np.float32), np.array([3], np.int64)])
def test_trunc_of_a_numpy_scalar_other_than_float64_is_numpys_type_error(x):
    """math.trunc calls __trunc__, which among NumPy's scalars only np.float64 (a float) defines."""
    with pytest.raises(TypeError, match="doesn't define __trunc__"):
        math.trunc(x[0])
    with pytest.raises(TypeError, match="doesn't define __trunc__"):
        transpile(lambda x: math.trunc(x[0]))(x)


def rounded(x, f, k, i):
    return round(x[i]), round(f[i]), round(x[i], 2), round(k[i]), round(k[i], -1), round(float(x[i])), \
        round(int(k[i]), 3)


def test_round_of_run_time_scalars_is_pythons():
    """round(): a Python int, half to even, from float64, float32, int and Python numbers; with ndigits a NumPy
    scalar's np.round of its own type; NaN and infinities Python's errors; arrays, NumPy bools and Python floats
    with ndigits refused as Python or the compiler says (Python's decimal rounding is not NumPy's)."""
    x = np.array([2.5, 3.5, -2.5, 0.49999999999999994, 1e15 + 0.5, 1.005, -0.5, 2.675, np.nan, np.inf])
    f, k = x.astype(np.float32), np.array([25, 35, -25, 1234, 0, 7, -1250, 5, 0, 0], np.int32)
    compiled = transpile(rounded)
    for i in range(8):
        for got, expected in zip(compiled(x, f, k, i), rounded(x, f, k, i)):
            assert type(got) is type(expected) and got == expected, (i, got, expected)
    for i, kind in ((8, ValueError), (9, OverflowError)):
        with pytest.raises(kind, match="cannot convert float"):
            compiled(x, f, k, i)
    for refused in (lambda x: round(x), lambda x: round(x[0] > 0), lambda x: round(float(x[0]), 1)):
        with pytest.raises(TypeError):
            transpile(refused)(x)


def test_haversine_in_a_scalar_loop():
    def haversine(lat1, lon1, lat2, lon2):
        out = np.empty(len(lat1))
        for i in range(len(lat1)):
            dlat = math.radians(lat2[i] - lat1[i])
            dlon = math.radians(lon2[i] - lon1[i])
            a = (math.sin(dlat / 2) ** 2
                 + math.cos(math.radians(lat1[i])) * math.cos(math.radians(lat2[i])) * math.sin(dlon / 2) ** 2)
            out[i] = 6371.0 * 2 * math.atan2(math.sqrt(a), math.sqrt(1 - a))
        return out
    coords = np.random.default_rng(5).uniform(-80, 80, (4, 100))
    np.testing.assert_allclose(transpile(haversine)(*coords), haversine(*coords), rtol=1e-13)


def test_functions_without_a_ufunc_are_refused_by_name():
    with pytest.raises(CompileError, match=r"math.erf\(\) is not supported"):
        transpile(lambda x: math.erf(x[0]))(np.ones(1))
