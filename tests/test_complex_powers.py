"""Complex integer powers and NumPy's operator fast paths, and exp's special values, bit for bit on edge values.

NumPy's `nc_pow` unrolls z, z*z, z*(z*z) for the exponents 1, 2, 3 only; -1, -2, -3 go through its binary loop
from 1 (`1*z` is not `z` where a part is inf or nan), then 1/result. `array ** -1` with a Python int is
np.reciprocal (its fast path, a loop of its own), `array ** 2` np.square, `array ** 0.5` with a Python float
np.sqrt; with a NumPy scalar exponent (`z ** s[0]`) none of them: the power loop."""
import numpy as np
import pytest

from transpiler import transpile

EDGES = [0.0, -0.0, 1.0, -1.0, 2.5, 1e-30, 1e30, 3.4e38, -3.4e38, 1e-45, 1e300, 1e-310, np.inf, -np.inf, np.nan]


def edge_values(dtype):
    with np.errstate(all="ignore"):
        return np.array([complex(r, i) for r in EDGES for i in EDGES]).astype(dtype)


def assert_bits(actual, expected):
    """Same dtype and shape; each part equal with its sign, or both nan."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    part = np.float32 if expected.dtype == np.complex64 else np.float64
    a, e = actual.reshape(-1).view(part), expected.reshape(-1).view(part)
    same = (a == e) & (np.signbit(a) == np.signbit(e)) | np.isnan(a) & np.isnan(e)
    bad = np.flatnonzero(~same) // 2
    assert not bad.size, (f"{bad.size} values differ; at {bad[:4]}: {actual.reshape(-1)[bad[:4]]}, NumPy's "
                          f"{expected.reshape(-1)[bad[:4]]}")


def power_minus_one(z):
    return z ** -1


def power_minus_one_float(z):
    return z ** -1.0


def power_minus_two(z):
    return z ** -2


def power_minus_three(z):
    return z ** -3


def ufunc_power_minus_one(z):
    return np.power(z, -1)


def reciprocal(z):
    return np.reciprocal(z)


def element_by_element_minus_one(z):
    """NumPy scalars: their power is nc_pow (1/(1e-45j) is nan-infj), not the array operator's reciprocal."""
    out = np.empty_like(z)
    for i in range(z.shape[0]):
        out[i] = z[i] ** -1
    return out


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("fn", [power_minus_one, power_minus_one_float, power_minus_two, power_minus_three,
                                ufunc_power_minus_one, reciprocal, element_by_element_minus_one])
def test_negative_integer_powers_and_the_reciprocal_are_numpys(fn, dtype):
    z = edge_values(dtype)
    with np.errstate(all="ignore"):
        expected = fn(z)
    assert_bits(transpile(fn)(z), expected)


def power_by_array(z, w):
    return z ** w


def power_by_numpy_scalar(z, w):
    return z ** w[0]


def power_by_python_number(z, n):
    return z ** n


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("exponent", [-3, -2, -1, 1, 2, 3])
def test_run_time_integer_exponents_are_numpys(exponent, dtype):
    """Exponents the kernel reads: an array, a NumPy scalar (the power loop), a Python int argument (the operator's
    fast paths: square for 2, reciprocal for -1)."""
    z = edge_values(dtype)
    w = np.full(z.shape, exponent, dtype)
    with np.errstate(all="ignore"):
        by_array, by_scalar, by_int = power_by_array(z, w), power_by_numpy_scalar(z, w), power_by_python_number(
            z, exponent)
    assert_bits(transpile(power_by_array)(z, w), by_array)
    assert_bits(transpile(power_by_numpy_scalar)(z, w), by_scalar)
    assert_bits(transpile(power_by_python_number)(z, exponent), by_int)


def test_a_numpy_scalar_exponent_of_one_half_is_the_power_loop_not_sqrt():
    """Only a Python float 0.5 takes NumPy's sqrt fast path; `z ** s[0]` is cpow (they differ in most last bits)."""
    z = edge_values(np.complex128)
    w = np.full(3, 0.5, np.complex128)
    with np.errstate(all="ignore"):
        expected, by_python_float = power_by_numpy_scalar(z, w), power_by_python_number(z, 0.5)
    assert_bits(transpile(power_by_numpy_scalar)(z, w), expected)
    assert_bits(transpile(power_by_python_number)(z, 0.5), by_python_float)


def exp(z):
    return np.exp(z)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_exp_keeps_c99_special_values(dtype):
    """NumPy's cexp: exp(x - 0j) is exp(x) - 0j (the sign was lost), exp(inf + inf*j) is inf + nan*j and
    exp(-inf + nan*j) is 0 (both were nan + nan*j); finite values as before (libm's exp, cos, sin)."""
    z = edge_values(dtype)
    with np.errstate(all="ignore"):
        expected = exp(z)
    actual = transpile(exp)(z)
    if dtype == np.complex128:
        assert_bits(actual, expected)
    else:       # complex64 is computed in complex128 and rounded: the special values exactly, the rest to rounding
        special = ~np.isfinite(expected) | (expected.real == 0) | (expected.imag == 0)
        assert_bits(actual[special], expected[special])
        np.testing.assert_allclose(actual[~special], expected[~special], rtol=4e-7)
