"""np.array_equal, np.cross, np.convolve, np.correlate, np.gradient, np.interp (stdlib/function_base.py, written as
NumPy writes them), np.lexsort (NumPy's own, called from the kernel) and np.divmod / divmod() against NumPy: shapes,
dtypes, modes, axes, empty and too-short inputs, NaNs."""
import numpy as np
import pytest

from helpers import assert_same, check
from transpiler import transpile

RNG = np.random.default_rng(11)


def equalities(x, y):
    return np.array_equal(x, y), np.array_equal(x, y, equal_nan=True), np.array_equal(x, x), np.array_equal(x, 2 * x)


@pytest.mark.parametrize("x, y", [
    (np.ones(3), np.ones(3)), (np.ones(3), np.ones(4)), (np.arange(4), np.arange(4.0)),
    (np.array([1.0, np.nan]), np.array([1.0, np.nan])), (np.array([1.0, np.nan]), np.array([np.nan, 1.0])),
    (np.ones((2, 3)), np.ones(3)), (np.zeros((0, 2)), np.zeros((0, 2))), (np.array([1 + 1j, np.nan]),) * 2,
    (np.array([True, False]), np.array([True, True])),
], ids=lambda v: f"{v.dtype}{v.shape}")
def test_array_equal(x, y):
    check(equalities, x, y)


def crosses(a, b):
    return np.cross(a, b), np.cross(a, b[0]), np.cross(b[-1], a), np.cross(a.T, b.T, axisa=0, axisb=0, axisc=0), \
        np.cross(a[None], b[:, None], axis=-1)


@pytest.mark.parametrize("dtypes", [("float64", "float64"), ("float32", "int64"), ("int32", "int32"),
                                    ("complex128", "float64")])
@pytest.mark.parametrize("rows", [1, 4])
def test_cross_is_numpys_bit_for_bit(dtypes, rows):
    a = (RNG.normal(size=(rows, 3)) * 10).astype(dtypes[0])
    b = (RNG.normal(size=(rows, 3)) * 10).astype(dtypes[1])
    check(crosses, a, b, rtol=0)


def test_cross_of_2_vectors_or_other_lengths_is_refused():
    """2-vectors are deprecated since NumPy 2.0 (NumPy still computes them, with a DeprecationWarning): a
    ValueError that says the compiled np.cross takes 3-vectors; other lengths are NumPy's ValueError."""
    f = transpile(lambda a, b: np.cross(a, b))
    with pytest.raises(ValueError, match="3-vectors only"):
        f(np.ones((3, 2)), np.ones((3, 2)))
    with pytest.raises(ValueError, match="incompatible dimensions"):
        f(np.ones((3, 4)), np.ones((3, 3)))
    with pytest.raises(ValueError, match="zero dimension"):
        transpile(lambda a: np.cross(a, a[0, 0]))(np.ones((2, 3)))


def convolutions(a, v):
    return tuple(np.convolve(a, v, mode) for mode in ("full", "same", "valid")) + \
        tuple(np.correlate(a, v, mode) for mode in ("full", "same", "valid"))


COMPILED_CONVOLUTIONS = transpile(convolutions)


@pytest.mark.parametrize("n, m", [(5, 3), (5, 2), (3, 5), (2, 5), (4, 4), (1, 3), (6, 1), (1, 1), (40, 7)])
def test_convolve_and_correlate(n, m):
    a, v = RNG.normal(size=n), RNG.normal(size=m)
    f = COMPILED_CONVOLUTIONS     # one compilation per kind of signature (which lengths are 1)
    assert_same(f(a, v), convolutions(a, v), rtol=1e-13)
    assert_same(f(a.astype(np.float32), v), convolutions(a.astype(np.float32), v), rtol=1e-6)


def full_convolutions(a, v):
    return np.convolve(a, v), np.correlate(a, v, "full")


def test_convolve_dtypes():
    check(full_convolutions, np.int8([100, 100, 3]), np.int8([2, 2]))      # wraps in int8, as NumPy's
    check(full_convolutions, np.array([True, False, True]), np.array([True, True]))
    check(full_convolutions, np.array([1 + 2j, 3j, -1]), np.array([1 - 1j, 2, 1j]), rtol=1e-13)   # conjugated
    check(lambda a: np.convolve(a, 0.5), np.arange(4.0))                  # a scalar is a 1-vector


@pytest.mark.parametrize("n, m", [(0, 3), (3, 0), (0, 0)])
def test_empty_convolutions_are_numpys_value_error(n, m):
    for fn in (lambda a, v: np.convolve(a, v), lambda a, v: np.correlate(a, v)):
        with pytest.raises(ValueError) as expected:
            fn(np.ones(n), np.ones(m))
        with pytest.raises(ValueError) as actual:
            transpile(fn)(np.ones(n), np.ones(m))
        assert str(actual.value).startswith(str(expected.value))


def test_moving_average():
    def moving_average(x, k):
        return np.convolve(x, np.ones(k) / k, mode="valid")
    check(moving_average, RNG.normal(size=100), 5, rtol=1e-13)


def gradients(f):
    return np.gradient(f), np.gradient(f, 0.5), np.gradient(f, edge_order=2), np.gradient(f, np.float64(2.0), axis=-1)


@pytest.mark.parametrize("f", [RNG.normal(size=7), RNG.normal(size=(4, 5)), np.arange(6), np.arange(3.0),
                               RNG.normal(size=(3, 4)).astype(np.float32), RNG.normal(size=(3, 3, 4)),
                               np.array([1.0, np.inf, -np.inf, np.nan, 2.0])], ids=lambda f: f"{f.dtype}{f.shape}")
def test_gradient_is_numpys_bit_for_bit(f):
    check(gradients, f, rtol=0)


def test_gradient_spacing_per_axis_and_too_short_axes():
    f = RNG.normal(size=(3, 4))
    check(lambda f: np.gradient(f, 0.5, 2.0), f, rtol=0)
    check(lambda f: np.gradient(f, axis=(1, 0)), f, rtol=0)
    g = transpile(lambda f: np.gradient(f, edge_order=2))
    with pytest.raises(ValueError, match="too small"):
        g(np.ones(2))
    with pytest.raises(TypeError, match="non-uniform"):
        transpile(lambda f, x: np.gradient(f, x))(np.ones(4), np.arange(4.0))


def interpolations(x, xp, fp):
    return np.interp(x, xp, fp), np.interp(x, xp, fp, left=-1.0, right=np.float32(7.5))


SAMPLES = np.sort(RNG.uniform(-5, 5, 20))
POINTS = np.concatenate([RNG.uniform(-7, 7, 198), SAMPLES, [np.nan, np.inf, -np.inf]])     # (221 = 13 * 17)


@pytest.mark.parametrize("x, xp, fp", [
    (POINTS, SAMPLES, RNG.normal(size=20)),
    (POINTS, np.array([0.0, 1, 1, 2]), np.array([0.0, 1, 5, 2])),                    # a repeated sample point
    (POINTS, np.array([0.0, 1, 2, np.inf]), np.array([0.0, np.inf, -np.inf, 3])),    # NaN one way, not the other
    (POINTS, np.array([1.5]), np.array([3.0])),        # one point: NumPy's comparisons give fp[0] for a NaN x
    (np.float64(0.3), SAMPLES, RNG.normal(size=20)),   # a scalar x: an np.float64
    (POINTS.astype(np.float32).reshape(-1, 13), SAMPLES.astype(np.float32), np.arange(20, dtype=np.int32)),
], ids=["random", "repeated", "infinite", "one-point", "scalar", "float32-2d"])
def test_interp_is_numpys_bit_for_bit(x, xp, fp):
    check(interpolations, x, xp, fp, rtol=0)


def test_interp_errors():
    f = transpile(lambda x, xp, fp: np.interp(x, xp, fp))
    with pytest.raises(ValueError, match="sample points is empty"):
        f(1.0, np.zeros(0), np.zeros(0))
    with pytest.raises(ValueError, match="not of the same length"):
        f(1.0, np.ones(2), np.ones(3))
    with pytest.raises(TypeError, match="complex"):
        f(1.0, np.ones(2), np.ones(2) * 1j)


def lexsorts(a, b):
    return np.lexsort((a, b)), np.lexsort([b, a, a]), np.lexsort(np.stack([a, a])), np.lexsort((a[:, None], b[:, None]),
                                                                                               axis=0)


def test_lexsort_keeps_each_keys_dtype():
    """A sequence of keys is passed as it is: stacked, an int64 key would become float64 beside a float key, and
    2**62 + 1 would sort with 2**62."""
    check(lexsorts, RNG.integers(0, 3, 12), RNG.normal(size=12).round(0))
    check(lexsorts, np.array([2**62 + 1, 2**62, 2**62 + 3]), np.zeros(3))
    with pytest.raises(ValueError, match="same shape"):
        transpile(lexsorts)(np.arange(3), np.arange(4.0))


def divmods(x, y, n, k):
    return np.divmod(x, y), divmod(x, y), divmod(n, k), divmod(n, 3), np.divmod(x, 2.5)


@pytest.mark.parametrize("x, y, n, k", [
    (np.array([5.0, -5.0, 7.5, -0.0, np.inf, 3.0]), np.array([2.0, 2.0, -2.0, 3.0, 2.0, 0.0]), 7, -2),
    (np.arange(-4, 5), np.array([3, -3, 0, 3, 3, 3, -3, 2, 3]), -7, 3),
], ids=["float", "int"])
def test_divmod_is_floor_divide_and_remainder(x, y, n, k):
    check(divmods, x, y, n, k)


def test_python_divmod_by_zero_is_zero_division_error():
    with pytest.raises(ZeroDivisionError, match="integer division or modulo by zero"):
        transpile(divmods)(np.ones(2), np.ones(2), 1, 0)


def pieces(x):
    return (np.piecewise(x, [x < 0, x >= 0], [-1, 1]),
            np.piecewise(x, [x < 0, x > 1], [lambda v: -v, lambda v: v * 2, 0.5]),
            np.piecewise(x, x > 0, [np.sin]),
            np.piecewise(x, [x < -10], [lambda v: v, lambda v: v + 1]))


def scaled_pieces(x, a):
    return np.piecewise(x, [x < 0], [lambda v, a: v * a, lambda v, a: v - a], a)


@pytest.mark.parametrize("x", [np.linspace(-2, 3, 11), np.arange(-3, 4), np.zeros(1)], ids=["float", "int", "one"])
def test_piecewise(x):
    check(pieces, x)
    check(scaled_pieces, x, 3.0)


def test_piecewise_of_2d_arrays_and_numpys_quirks():
    x = np.linspace(-2, 3, 12).reshape(3, 4)
    check(lambda x: np.piecewise(x, [x < 0, x > 1], [lambda v: -v, lambda v: v * 2, 0.5]), x)
    check(scaled_pieces, x, 3.0)
    with pytest.raises(TypeError, match="list of conditions"):     # NumPy reads x > 0's rows as 3 conditions
        transpile(lambda x: np.piecewise(x, x > 0, [np.sin]))(x)
    with pytest.raises(IndexError):                                 # NumPy reads condlist[0] of an empty condition
        np.piecewise(np.zeros(0), np.zeros(0) > 0, [np.sin])
    with pytest.raises(IndexError):
        transpile(lambda x: np.piecewise(x, x > 0, [np.sin]))(np.zeros(0))


def test_piecewise_with_too_many_conditions_is_numpys_value_error():
    with pytest.raises(ValueError, match="either 3 or 4 functions"):
        transpile(lambda x: np.piecewise(x, [x < 0, x > 0, x > 1], [1, 2]))(np.ones(3))


def resizes(a, n):
    return np.resize(a, (n, 3)), np.resize(a, 7), np.resize(a, (2, n))


@pytest.mark.parametrize("a, n", [(np.arange(5.0), 2), (np.arange(6).reshape(2, 3), 4), (np.zeros(0), 3),
                                  (np.arange(4.0), 0), (np.array([True, False]), 3)],
                         ids=["repeat", "2d", "empty", "zero", "bool"])
def test_resize(a, n):
    check(resizes, a, n)


def test_resize_to_a_negative_size_is_numpys_value_error():
    with pytest.raises(ValueError, match="non-negative"):
        transpile(resizes)(np.arange(3.0), -1)
