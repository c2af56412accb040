"""np.signbit, copysign, heaviside, deg2rad/radians, rad2deg/degrees, fabs (bit for bit NumPy's: they were refused),
logaddexp and logaddexp2 (NumPy's npy_logaddexp formula, within 2 ulp of NumPy's result) and float_power (the float
power, float64 or complex128) on run-time arrays of every float dtype, ints and bools, with NumPy's special values."""
import numpy as np
import pytest

from helpers import assert_same, check
from test_vector_math import ulps
from transpiler import CompileError, transpile

SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, np.inf, -np.inf, np.nan, -np.nan, 1e-310, -1e-310, 5e-324, 1e300, -1e300,
           65504.0, 70000.0, 3.4e38, 1e-40, 180.0, np.pi]


def operands(dtype, reverse=False):
    rng = np.random.default_rng(3)
    special = SPECIAL[::-1] if reverse else SPECIAL
    with np.errstate(over="ignore"):
        return np.concatenate([np.array(special), rng.normal(size=40) * 100, rng.normal(size=20)]).astype(dtype)


def same_bits(actual, expected):
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    assert np.array_equal(actual, expected, equal_nan=True), (actual, expected)
    if actual.dtype.kind == "f":
        assert np.array_equal(np.signbit(actual), np.signbit(expected))    # -0.0 and -nan kept


UNARY = [np.signbit, np.deg2rad, np.rad2deg, np.radians, np.degrees, np.fabs]
BINARY = [np.copysign, np.heaviside]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("ufunc", UNARY + BINARY, ids=lambda u: u.__name__)
def test_exact_ufuncs(ufunc, dtype):
    x = operands(dtype) if dtype.startswith("float") else np.arange(-7, 9).astype(dtype)
    y = operands(dtype, reverse=True) if dtype.startswith("float") else np.arange(9, -7, -1).astype(dtype)
    args = (x,) if ufunc.nin == 1 else (x, y)
    with np.errstate(all="ignore"):
        expected = ufunc(*args)
        actual = transpile(lambda *a: ufunc(*a))(*args)
    same_bits(actual, expected)


def with_python_scalars(x):
    return (np.copysign(x, -1.0), np.copysign(2, x), np.heaviside(x, 0.5), np.heaviside(x - 1, x),
            np.signbit(x[0]), np.deg2rad(x[1]), np.rad2deg(90))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_with_scalars_and_broadcasting(dtype):
    check(with_python_scalars, operands(dtype))
    check(lambda x, y: np.copysign(x[:, None], y[None, :]), operands(dtype)[:9], operands(dtype, True)[:7])


def logs(x, y):
    return np.logaddexp(x, y), np.logaddexp2(x, y), np.logaddexp(x, x), np.logaddexp2(y, y)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_logaddexp_within_two_ulp_of_numpy(dtype):
    """NumPy's formula (x + log 2 for equal operands: inf with no invalid event; NaN for NaN), with our exp and
    log1p (within 1 ulp each), so within 2 ulp of NumPy's libm-based result; float16 through float32."""
    rng = np.random.default_rng(5)
    x = np.concatenate([operands(dtype), rng.uniform(-800, 800, 200).astype(dtype)])
    y = np.concatenate([operands(dtype, True), rng.uniform(-800, 800, 200).astype(dtype)])
    with np.errstate(all="ignore"):
        expected = logs(x, y)
        actual = transpile(logs)(x, y)
    for a, e in zip(actual, expected):
        assert a.dtype == e.dtype
        assert ulps(a, e).max() <= 2


def log_reductions(x):
    return np.logaddexp.reduce(x), np.logaddexp.accumulate(x), np.logaddexp2.reduce(x[::2])


def test_logaddexp_reductions():
    x = np.random.default_rng(1).normal(size=33) * 10
    actual, expected = transpile(log_reductions)(x), log_reductions(x)
    for a, e in zip(actual, expected):
        assert ulps(a, e).max() <= 4


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int8"])
def test_float_power_is_the_float64_power(dtype):
    rng = np.random.default_rng(2)
    if dtype.startswith("float"):
        x = np.abs(operands(dtype))
        y = rng.uniform(-4, 4, x.size).astype(dtype)
    else:
        x = rng.integers(-9, 9, 30).astype(dtype)
        y = rng.integers(-3, 4, 30).astype(dtype)   # negative int exponents: float_power's point
    with np.errstate(all="ignore"):
        expected = np.float_power(x, y)
        actual = transpile(lambda x, y: np.float_power(x, y))(x, y)
    assert actual.dtype == expected.dtype == np.float64
    assert ulps(actual, expected).max() <= 2


def test_complex_float_power():
    z = np.array([1 + 2j, -3 + 0.5j, 0.25 - 1j], np.complex64)
    check(lambda z: np.float_power(z, 2.5), z, rtol=1e-12)


def test_complex_operands_of_the_real_only_ufuncs_are_refused():
    z = np.array([1 + 2j, -3 + 0.5j])
    for ufunc in (np.logaddexp, np.copysign, np.heaviside):
        with pytest.raises((CompileError, TypeError)):
            ufunc(z, z)
        with pytest.raises(CompileError):
            transpile(lambda z: ufunc(z, z))(z)


def test_radians_of_a_python_int_argument():
    f = transpile(lambda k: (np.radians(k), np.degrees(k)))
    for k in (0, 90, -720):
        assert_same(f(k), (np.radians(k), np.degrees(k)))


def divisors(a, b):
    return np.gcd(a, b), np.lcm(a, b), np.gcd(a, 18), np.lcm(a, 7), np.gcd.reduce(a)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int64", "uint64"])
def test_gcd_and_lcm_are_numpys_bit_for_bit(dtype):
    """Euclid's algorithm on the magnitudes as unsigned values (the smallest signed value is its own magnitude:
    np.gcd(int8(-128), 0) is -128), lcm wrapping in the loop's type (np.lcm(int8(100), 3) is 44), as NumPy's."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(4)
    a = np.concatenate([rng.integers(info.min, info.max, 100, dtype=dtype, endpoint=True),
                        np.array([info.min, info.max, 0, 0, 1], dtype)])
    b = np.concatenate([rng.integers(info.min, info.max, 100, dtype=dtype, endpoint=True),
                        np.array([0, info.min, 0, info.max, 1], dtype)])
    with np.errstate(all="ignore"):
        for x, y in ((a, b), ((a % 100).astype(dtype), (b % 50).astype(dtype))):
            check(divisors, x, y)
    with pytest.raises(CompileError, match="gcd"):
        transpile(lambda a, b: np.gcd(a, b))(np.ones(2), np.ones(2))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int16", "bool"])
def test_modf_is_numpys_bit_for_bit(dtype):
    """np.modf (stdlib): the fractional part with x's sign (-2.0 gives -0.0), a signed zero for an infinity, NaN
    both parts; ints and bools in NumPy's loop's float (int16: float32, bool: float16); a scalar gives scalars."""
    if dtype.startswith("float"):
        with np.errstate(over="ignore"):
            x = np.array([-2.5, 2.5, -2.0, 0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e300, -1e-300, 7.75],
                         dtype)
    else:
        x = np.arange(-3, 4).astype(dtype)
    with np.errstate(all="ignore"):
        expected = np.modf(x)
        actual = transpile(lambda x: np.modf(x))(x)
    for a, e in zip(actual, expected):
        same_bits(a, e)
    got, want = transpile(lambda x: np.modf(x[0]))(x), np.modf(x[0])
    assert all(type(a) is type(e) for a, e in zip(got, want))
