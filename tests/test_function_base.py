"""np.select, np.nan_to_num, np.sinc, np.isin, np.ediff1d, np.digitize, np.trapezoid, np.fliplr, np.flipud,
np.rot90, np.column_stack, np.atleast_3d (stdlib/function_base.py, as numpy/lib writes them) on run-time arrays,
compared with NumPy's own run: values, dtypes, shapes, views and errors."""
import numpy as np
import pytest

from helpers import PARTS, aliasing_mismatch, check, in_part, raises_like_numpy
from transpiler import CompileError, transpile


def rng(seed=0):
    return np.random.default_rng(seed)


SPECIALS = np.array([0.0, -0.0, 1.5, -2.25, np.nan, np.inf, -np.inf, 1e-30, 7.0])


SELECT_DTYPES = [np.float32, np.float64, np.int16]
SELECT_DEFAULTS = [0, 1.5, np.float32(-1)]


# each form on half of the dtype x default grid (a diagonal: every dtype and every default) in the default suite
@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("dtype", SELECT_DTYPES)
@pytest.mark.parametrize("default", SELECT_DEFAULTS)
def test_select(dtype, default, part):
    x = (np.arange(12) - 5).astype(dtype).reshape(3, 4)
    forms = [lambda x: np.select([x > 2, x < -2, x == 0], [x, -x, 7], default),
             lambda x: np.select([x[0] > 0], [x], default),         # conditions broadcast against the choices
             lambda x: np.select([x > 0, x > 1], [x * 2, x * 3])]   # the first condition that holds wins
    for k, fn in enumerate(forms):
        if in_part(part, k + SELECT_DTYPES.index(dtype) + [id(d) for d in SELECT_DEFAULTS].index(id(default))):
            check(fn, x)


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


# ---- indices along axes, polynomials, cumulative functions, item ------------------------------------------------
@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_take_and_put_along_axis(axis):
    x = rng().random((3, 5))
    order = np.argsort(x, axis=axis) if axis is not None else np.argsort(x, axis=None)
    check(lambda x, i: np.take_along_axis(x, i, axis=axis), x, order)
    if axis is None:      # (NumPy writes through np.array(x.flat): a view of a contiguous x, else read-only)
        with pytest.raises(CompileError, match="axis=None"):
            transpile(lambda x, i: np.put_along_axis(x, i[:3], -1.0, axis=None))(x, order)
        return
    first = np.take(order, [0], axis=axis)
    check(lambda x, i: (np.put_along_axis(x, i, -1.0, axis=axis), x), x, first)
    check(lambda x, i, v: (np.put_along_axis(x, i, v, axis=axis), x), x, first, np.arange(5.0).reshape(1, 5)
          if axis == 0 else np.arange(3.0).reshape(3, 1))


def test_take_along_axis_errors_are_numpys():
    x = np.arange(6.0).reshape(2, 3)
    raises_like_numpy(lambda x: np.take_along_axis(x, np.array([0, 1]), axis=0), x)
    raises_like_numpy(lambda x: np.take_along_axis(x, np.array([[0.5]]), axis=0), x)
    raises_like_numpy(lambda x: np.take_along_axis(x, np.array([[3]]), axis=0), x)


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (3, 3, 3), (1, 1)])
@pytest.mark.parametrize("val", [7.5, [1, 2], np.arange(2.0, 9.0)], ids=["scalar", "two", "many"])
@pytest.mark.parametrize("wrap", [False, True])
def test_fill_diagonal(shape, val, wrap):
    check(lambda a: (np.fill_diagonal(a, val, wrap), a), np.zeros(shape, dtype=np.int32))
    check(lambda a, v: (np.fill_diagonal(a, v, wrap), a), np.zeros(shape), np.asarray(val, dtype=np.float64))


@pytest.mark.parametrize("order", ["C", "F"])
def test_unravel_and_ravel_multi_index(order):
    dims = (3, 4, 2)
    flat = np.array([[0, 5], [23, 11]], dtype=np.int16)
    check(lambda i: np.unravel_index(i, dims, order=order), flat)
    check(lambda i, n: np.unravel_index(i, (n, 4, 2), order=order), flat, 3)
    coords = np.unravel_index(flat, dims, order=order)
    check(lambda a, b, c: np.ravel_multi_index((a, b, c), dims, order=order), *coords)
    check(lambda a, b: np.ravel_multi_index((a, b), (3, 4), mode="wrap", order=order), np.array([-1, 5]),
          np.array([9, 2]))
    check(lambda a, b: np.ravel_multi_index((a, b), (3, 4), mode=("clip", "wrap")), np.array([-1, 5]),
          np.array([9, 2]))
    check(lambda: np.ravel_multi_index((1, 3), (3, 4)))


@pytest.mark.parametrize("shape", [(3, 4), (5,), (2, 3, 4)])
def test_unravel_index_of_an_argmax_in_a_run_time_shape(shape):
    # the size the out-of-bounds message names is a run-time int here (was a CompileError: str() of it)
    x = rng().standard_normal(shape)
    check(lambda x: np.unravel_index(np.argmax(x), x.shape), x)
    check(lambda x: np.unravel_index(np.argsort(x, axis=None), x.shape, order="F"), x)
    raises_like_numpy(lambda x: np.unravel_index(x.size, x.shape), x)


def test_index_errors_are_numpys():
    raises_like_numpy(lambda i: np.unravel_index(i, (2, 2)), np.array([1, 4]))
    raises_like_numpy(lambda i: np.unravel_index(i, (2, 2)), np.array([-1]))
    raises_like_numpy(lambda i: np.unravel_index(i, (2, 2)), np.array([1.0]))
    raises_like_numpy(lambda a, b: np.ravel_multi_index((a, b), (2, 2)), np.array([0, 2]), np.array([1, 1]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_polyval_and_vander(dtype):
    x = (np.arange(6) - 2).astype(dtype)
    check(lambda x: np.polyval([2.0, -1.0, 0.5], x), x)
    check(lambda x, p: np.polyval(p, x), x, np.array([1, 2, 3], dtype=np.int64))
    for n in (None, 0, 1, 4):
        check(lambda x: (np.vander(x, n), np.vander(x, n, increasing=True)), x)


CUMULATIVE_DTYPES = [np.int8, np.float32, np.float64]


# each form on half of the dtype x include_initial grid (a diagonal) in the default suite, the error on every cell
@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("dtype", CUMULATIVE_DTYPES)
@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative_sum_and_prod(dtype, include_initial, part):
    x = (np.arange(12) % 5 + 1).astype(dtype).reshape(3, 4)
    cell = CUMULATIVE_DTYPES.index(dtype) + include_initial
    for k, axis in enumerate((0, 1, -1)):
        if in_part(part, 2 * k + cell):
            check(lambda x: np.cumulative_sum(x, axis=axis, include_initial=include_initial), x)
        if in_part(part, 2 * k + 1 + cell):
            check(lambda x: np.cumulative_prod(x, axis=axis, include_initial=include_initial), x)
    if in_part(part, 6 + cell):
        check(lambda x: np.cumulative_sum(x[0], include_initial=include_initial), x)
    if part == "default":
        raises_like_numpy(lambda x: np.cumulative_sum(x), x)


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int64, np.float32, np.complex64])
def test_item(dtype):
    x = np.arange(6).astype(dtype).reshape(2, 3)
    check(lambda x: (x.item(4), x.item(-1), x.item((1, 2)), x.item(0, 1), x[1:, 2:].item(), x[0, :1].item()), x)
    raises_like_numpy(lambda x: x.item(), x)
    raises_like_numpy(lambda x: x.item(6), x)
