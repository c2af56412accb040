"""np.select, np.nan_to_num, np.sinc, np.isin, np.ediff1d, np.digitize, np.trapezoid, np.fliplr, np.flipud,
np.rot90, np.column_stack, np.atleast_3d (stdlib/function_base.py, as numpy/lib writes them) on run-time arrays,
compared with NumPy's own run: values, dtypes, shapes, views and errors."""
import numpy as np
import pytest

from helpers import aliasing_mismatch, check, raises_like_numpy
from transpiler import transpile


def rng(seed=0):
    return np.random.default_rng(seed)


SPECIALS = np.array([0.0, -0.0, 1.5, -2.25, np.nan, np.inf, -np.inf, 1e-30, 7.0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16])
@pytest.mark.parametrize("default", [0, 1.5, np.float32(-1)])
def test_select(dtype, default):
    x = (np.arange(12) - 5).astype(dtype).reshape(3, 4)
    check(lambda x: np.select([x > 2, x < -2, x == 0], [x, -x, 7], default), x)
    check(lambda x: np.select([x[0] > 0], [x], default), x)         # conditions broadcast against the choices
    check(lambda x: np.select([x > 0, x > 1], [x * 2, x * 3]), x)   # the first condition that holds wins


def test_select_errors_are_numpys():
    x = np.arange(4.0)
    raises_like_numpy(lambda x: np.select([x > 0], [x, x]), x)
    raises_like_numpy(lambda x: np.select([], []), x)
    raises_like_numpy(lambda x: np.select([x], [x]), x)            # a float condition: TypeError


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.int32])
def test_nan_to_num(dtype):
    x = SPECIALS.astype(dtype) if dtype != np.int32 else np.arange(5, dtype=dtype)
    if dtype == np.complex64:
        x = x + 1j * x[::-1]
    check(lambda x: np.nan_to_num(x), x)
    check(lambda x: np.nan_to_num(x, nan=-1.0, posinf=9.0, neginf=-9.0), x)
    check(lambda x: (np.nan_to_num(x, copy=False), x), x)          # in place: the argument changes
    check(lambda x: np.nan_to_num(x[4]), x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_sinc(dtype):
    x = SPECIALS.astype(dtype) if dtype != np.int64 else np.arange(-3, 4, dtype=dtype)
    check(lambda x: np.sinc(x), x)


@pytest.mark.parametrize("tests", [[1, 5], np.array([2.5, -1.0]), [], np.array([[3, 9], [0, 4]], np.int8)],
                         ids=["list", "floats", "empty", "int8_matrix"])
@pytest.mark.parametrize("invert", [False, True])
def test_isin(tests, invert):
    x = np.arange(12).reshape(3, 4) % 7
    check(lambda x: np.isin(x, tests, invert=invert), x)
    check(lambda x, t: np.isin(x, t, invert=invert), x.astype(np.float32), np.asarray(tests, dtype=np.float64))


@pytest.mark.parametrize("to_begin, to_end", [(None, None), (-1, None), (None, [8, 9]), (np.array([0.5]), 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_ediff1d(to_begin, to_end, dtype):
    if dtype == np.int64 and isinstance(to_begin, np.ndarray):
        raises_like_numpy(lambda x: np.ediff1d(x, to_end, to_begin), np.arange(6, dtype=dtype))
        return
    check(lambda x: np.ediff1d(x, to_end, to_begin), (np.arange(12, dtype=dtype) ** 2).reshape(3, 4))


@pytest.mark.parametrize("bins", [[0.0, 1.0, 2.5, 4.0], [4.0, 2.5, 1.0, 0.0], [1.0, 1.0, 2.0, 3.0], [3.0, 3.0, 1.0],
                                  [2.0], [], [1.0, 1.0]],
                         ids=["rising", "falling", "rising_after_equal", "falling_after_equal", "one", "empty",
                              "all_equal"])
@pytest.mark.parametrize("right", [False, True])
def test_digitize(bins, right):
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.5, 3.9, 4.0, 7.0, np.nan])
    check(lambda x, b: np.digitize(x, b, right=right), x, np.array(bins))
    check(lambda x: np.digitize(x, bins, right=right), x)


@pytest.mark.parametrize("bins", [[0.0, 2.0, 1.0], [3.0, 1.0, 2.0], [0.0, np.nan, 1.0]],
                         ids=["up_down", "down_up", "nan"])
def test_digitize_of_bins_not_monotonic_is_numpys_value_error(bins):
    x = np.array([0.5, 1.5])
    try:
        expected = np.digitize(x, np.array(bins))
    except ValueError:
        raises_like_numpy(lambda x, b: np.digitize(x, b), x, np.array(bins))
    else:         # (NaN bins: NumPy's check takes them as decreasing)
        np.testing.assert_array_equal(transpile(lambda x, b: np.digitize(x, b))(x, np.array(bins)), expected)


@pytest.mark.parametrize("axis", [-1, 0])
def test_trapezoid(axis):
    y = rng().random((5, 6))
    check(lambda y: np.trapezoid(y, axis=axis), y)
    check(lambda y: np.trapezoid(y, dx=0.25, axis=axis), y.astype(np.float32))
    check(lambda y, x: np.trapezoid(y, x, axis=axis), y, np.cumsum(rng(1).random(y.shape[axis])))
    check(lambda y, x: np.trapezoid(y, x, axis=axis), y, rng(2).random(y.shape))


@pytest.mark.parametrize("k", [0, 1, 2, 3, -1, 5])
@pytest.mark.parametrize("axes", [(0, 1), (1, 0), (0, 2), (-1, 1)])
def test_rot90(k, axes):
    check(lambda m: np.rot90(m, k, axes), np.arange(24.0).reshape(2, 3, 4))


def test_rot90_errors_are_numpys():
    m = np.arange(6.0).reshape(2, 3)
    raises_like_numpy(lambda m: np.rot90(m, 1, (0, 0)), m)
    raises_like_numpy(lambda m: np.rot90(m, 1, (0, 2)), m)
    raises_like_numpy(lambda m: np.rot90(m, 1, (0, 1, 2)), m)


def flips(m):
    return np.fliplr(m), np.flipud(m), np.rot90(m), np.atleast_3d(m), np.atleast_3d(m[0]), np.atleast_3d(m[0, 0])


def test_flips_and_rotations_are_views():
    m = np.arange(12.0).reshape(3, 4)
    check(flips, m)
    ours = transpile(flips)(m)
    assert aliasing_mismatch([*ours[:4], m], [*flips(m)[:4], m]) is None


def test_column_stack():
    check(lambda a, b, c: np.column_stack((a, b, c)), np.arange(3.0), np.arange(3, dtype=np.int8),
          np.arange(6.0).reshape(3, 2))
    raises_like_numpy(lambda a, b: np.column_stack((a, b)), np.arange(3.0), np.arange(4.0))
    raises_like_numpy(lambda m: np.fliplr(m), np.arange(3.0))
