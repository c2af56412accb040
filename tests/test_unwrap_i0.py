"""np.unwrap and np.i0, as NumPy writes them (stdlib/function_base.py): unwrap's period and discont, integer
periods (NumPy's divmod boundary rule), axes; i0's Chebyshev series on both sides of 8 (NumPy's coefficients)."""
import numpy as np
import pytest

from transpiler import transpile

from helpers import assert_same

rng = np.random.default_rng(21)
PHASES = np.angle(np.exp(1j * np.cumsum(rng.normal(size=40))))


def unwrap(p):
    return np.unwrap(p)


def unwrap_rows(p):
    return np.unwrap(p, axis=0), np.unwrap(p, discont=4.0)


def unwrap_period(p, period):
    return np.unwrap(p, period=period)


def i0(x):
    return np.i0(x)


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
def test_unwrap_is_numpys(dtype):
    p = PHASES.astype(dtype)
    assert_same(transpile(unwrap)(p), unwrap(p))
    assert_same(transpile(unwrap_rows)(p.reshape(8, 5)), unwrap_rows(p.reshape(8, 5)))


def test_unwrap_of_integers_with_integer_periods():
    p = np.array([0, 1, 5, 7, 2, 3, 8, -4, 6])
    for period in (4, 5):         # an even period: NumPy's ambiguous boundary; odd: not
        assert_same(transpile(unwrap_period)(p, period), unwrap_period(p, period))
    assert_same(transpile(unwrap)(p), unwrap(p))


@pytest.mark.parametrize("x", [np.linspace(-20, 20, 41), np.arange(-5, 5), np.linspace(0, 30, 7).astype(np.float32)],
                         ids=["float64", "int64", "float32"])
def test_i0_is_numpys(x):
    assert_same(transpile(i0)(x), i0(x))
