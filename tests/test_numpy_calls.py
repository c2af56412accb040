"""Functions the kernel calls NumPy itself for (runtime/numpy_calls.py): sorting and searching, order statistics,
histograms and np.linalg. Their results are NumPy's own, so they are compared exactly: values, dtypes, shapes,
result types (a namedtuple such as EighResult), and the exceptions NumPy raises."""
import warnings

import numpy as np
import pytest

from transpiler import transpile
from transpiler.errors import CompileError

from helpers import PARTS, assert_same, check, in_part
from programs_imperative import radial_profile
from test_disk_cache import compiled_then_loaded

RNG_SEED = 2611
RNG = np.random.default_rng(RNG_SEED)


def exact(fn, *args):
    return check(fn, *args, rtol=0, atol=0)


def _data(shape, dtype):
    if np.dtype(dtype).kind == "f":
        x = RNG.standard_normal(shape).astype(dtype)
        if x.size > 3:
            x.flat[1] = x.flat[3]      # ties: the order of equal keys matters for argsort
        return x
    return RNG.integers(-5, 6, shape).astype(dtype)


SORT_DTYPES = ["float64", "int8", "uint16"]      # (NumPy sorts: one float, two ints)
SORT_SHAPES = [((7,), -1), ((4, 5), 0), ((4, 5), 1), ((3, 1, 4), -1), ((3, 4), None), ((0,), -1), ((1, 1), 0)]


# each form on half of the dtype x shape grid (a diagonal: every dtype and every shape) in the default suite
@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("dtype", SORT_DTYPES)
@pytest.mark.parametrize("shape, axis", SORT_SHAPES)
def test_sort_and_argsort_along_axes(dtype, shape, axis, part):
    x = _data(shape, dtype)
    forms = [lambda x: np.sort(x, axis=axis), lambda x: np.argsort(x, axis=axis),
             lambda x: np.argsort(x, axis=axis, kind="stable") + 1, lambda x: x.argsort(axis=axis, stable=True)]
    for k, fn in enumerate(forms):
        if in_part(part, k + SORT_DTYPES.index(dtype) + SORT_SHAPES.index((shape, axis))):
            exact(fn, x)


def test_sort_puts_nans_last_and_sorts_results_of_the_kernel():
    x = np.array([3.0, np.nan, -np.inf, 1.0, np.nan, -0.0, 0.0, np.inf])
    exact(lambda x: np.sort(x * 2), x)
    exact(lambda x: np.argsort(-x, kind="stable"), x)


def test_sort_method_sorts_the_argument_in_place():
    def f(x):
        x.sort()
        return x[0] + x[-1]
    exact(f, _data((9,), "float64"))

    def g(x):
        v = x[1]            # a view: sorted with its base
        v.sort(axis=0)
        return x.sum(0)
    exact(g, _data((3, 5, 2), "int32"))


@pytest.mark.parametrize("kth", [0, 3, (1, 4), -1])
def test_partition_and_argpartition(kth):
    x = _data((3, 6), "float64")
    exact(lambda x: np.partition(x, kth), x)
    exact(lambda x: np.argpartition(x, kth, axis=-1), x)


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(side):
    a = np.array([0.0, 1.0, 1.0, 2.5, 4.0])
    v = np.array([[-1.0, 1.0], [2.5, 9.0]])
    exact(lambda a, v: np.searchsorted(a, v, side=side), a, v)
    exact(lambda a, v: a.searchsorted(v[0, 1], side), a, v)     # a NumPy scalar in, an int64 scalar out
    exact(lambda a, v: np.searchsorted(a, 2.0), a, v)            # a Python float
    order = np.array([4, 0, 2, 1, 3])
    exact(lambda a, s, v: np.searchsorted(a, v, sorter=s), a[order], np.argsort(a[order]), v)


ORDER_DTYPES = ["float64", "float32", "int32"]
ORDER_AXES = [(None, False), (0, False), (-1, True), ((0, 1), False)]


# each form on half of the dtype x axis grid (a diagonal: every dtype and every axis) in the default suite
@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("dtype", ORDER_DTYPES)
@pytest.mark.parametrize("axis, keepdims", ORDER_AXES)
def test_median_percentile_quantile(dtype, axis, keepdims, part):
    x = _data((4, 6), dtype)
    forms = [(lambda x: np.median(x, axis=axis, keepdims=keepdims), ()),
             (lambda x: np.percentile(x, 30.0, axis=axis, keepdims=keepdims), ()),
             (lambda x: np.percentile(x, [10, 50, 95], axis=axis, keepdims=keepdims, method="nearest"), ()),
             (lambda x, q: np.quantile(x, q, axis=axis, keepdims=keepdims), (np.array([0.25, 0.75]),)),
             (lambda x, q: np.quantile(x, q[0], axis, None, False, "midpoint"), (np.array([0.4]),))]
    for k, (fn, more) in enumerate(forms):
        if in_part(part, k + ORDER_DTYPES.index(dtype) + ORDER_AXES.index((axis, keepdims))):
            exact(fn, x, *more)


def test_order_statistics_of_nan_and_of_a_computed_array():
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]])
    exact(lambda x: np.median(x, axis=1), x)
    exact(lambda x: np.percentile(np.exp(x) - 1, 50), x)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_histogram(dtype):
    x = (_data((50,), "float64") * 3).astype(dtype)
    exact(lambda x: np.histogram(x), x)
    exact(lambda x: np.histogram(x, bins=7, range=(-2, 2)), x)
    exact(lambda x, e: np.histogram(x, bins=e), x, np.array([-3.0, -1.0, 0.0, 0.5, 4.0]))
    exact(lambda x, w: np.histogram(x, 5, weights=w, density=True), x, RNG.random(50))
    exact(lambda x, n: np.histogram(x, bins=n[0])[0].sum(), x, np.array([4]))    # a run-time number of bins


def test_histogram_of_an_azimuthal_integration():
    """The textbook radial profile (programs_imperative.radial_profile): distances of every pixel to a centre,
    binned, weighted by the image."""
    check(radial_profile, RNG.random((20, 24)), np.array([9.5, 11.0]), 12)


def _spd(n, dtype="float64", batch=()):
    a = RNG.standard_normal(batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


def _called(fn):
    def call(a):
        return fn(a)
    return call


_la = np.linalg
SQUARE_MATRIX_FUNCTIONS = [
    *[_called(fn) for fn in (_la.inv, _la.det, _la.slogdet, _la.cholesky, _la.eigh, _la.eigvalsh, _la.svd, _la.pinv,
                             _la.matrix_rank, _la.cond, _la.qr)],
    lambda a: _la.cholesky(a, upper=True),
    lambda a: _la.eigh(a, UPLO="U").eigenvectors,
    lambda a: _la.svd(a, full_matrices=False, compute_uv=False),
    lambda a: _la.matrix_power(a, 3),
    lambda a: _la.matrix_power(a, -2),       # not on int64 (NumPy refuses a negative power of an integer matrix)
]
SQUARE_DTYPES = ["float64", "float32", "int64"]
SQUARE_BATCHES = [(), (3,), (2, 1)]


# Every function on every dtype x batch shape, each cell a kernel of its own: the default suite runs each function on
# a diagonal of the grid (function k on the cells (i, j) with (k + i + j) % 3 == 0: every dtype once and every batch
# shape once), the slow suite the rest
@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("dtype", SQUARE_DTYPES)
@pytest.mark.parametrize("batch", SQUARE_BATCHES)
def test_square_matrix_functions(dtype, batch, part):
    a = _spd(4, dtype, batch) if dtype != "int64" else RNG.integers(-3, 4, batch + (4, 4)) + 9 * np.eye(4, dtype=int)
    i, j = SQUARE_DTYPES.index(dtype), SQUARE_BATCHES.index(batch)
    for k, fn in enumerate(SQUARE_MATRIX_FUNCTIONS):
        if in_part(part, k + i + j, every=3) and not (dtype == "int64" and k == 15):
            exact(fn, a)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (1, 4)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_and_svd_of_rectangular_matrices(shape, mode):
    a = RNG.standard_normal(shape)
    exact(lambda a: np.linalg.qr(a, mode=mode), a)
    exact(lambda a: np.linalg.svd(a, full_matrices=mode == "complete"), a)
    exact(lambda a: np.linalg.pinv(a), a)


@pytest.mark.parametrize("bshape", [(4,), (4, 2), (3, 4, 1)])
def test_solve_shapes_as_numpy_2(bshape):
    exact(lambda a, b: np.linalg.solve(a, b), _spd(4, batch=(3,)), RNG.standard_normal(bshape))
    exact(lambda a, b: np.linalg.solve(a, b), _spd(4), RNG.standard_normal(bshape))


@pytest.mark.parametrize("ord", [None, 1, 2, np.inf, -np.inf, "fro", "nuc", 0, 3])
@pytest.mark.parametrize("axis", [None, -1, (0, 1)])
def test_norm(ord, axis):
    x = RNG.standard_normal((4, 5)).astype(np.float32)
    try:
        np.linalg.norm(x, ord, axis)
    except (ValueError, np.linalg.LinAlgError):
        return     # a combination NumPy refuses (a matrix ord on one axis ...): see test_errors_are_numpys
    exact(lambda x: np.linalg.norm(x, ord, axis), x)
    exact(lambda x: np.linalg.norm(x, ord=ord, axis=axis, keepdims=True), x)


def _lstsq_matrix(shape, dtype, rank=None):
    """A random matrix of this shape, of the given rank (full when None): a product of two thin factors."""
    m, n = shape
    r = min(m, n) if rank is None else rank
    a = RNG.standard_normal((m, r)) @ RNG.standard_normal((r, n))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * (RNG.standard_normal((m, r)) @ RNG.standard_normal((r, n)))
    if np.dtype(dtype).kind in "iu":
        return RNG.integers(-4, 5, shape).astype(dtype)
    return a.astype(dtype)


LSTSQ_DTYPES = ["float64", "float32", "complex128", "complex64", "int64"]
LSTSQ_SHAPES = [((6, 3), None), ((3, 6), None), ((4, 4), None), ((6, 3), 2), ((4, 4), 3), ((1, 1), None),
                ((1, 4), None), ((4, 1), None), ((5, 2), 0), ((0, 3), None), ((3, 0), None)]
LSTSQ_COLUMNS = [None, 1, 3, 0]       # b 1-D, or 2-D with this many columns
# half of the dtype x shape x columns grid in the default suite (every dtype meets every shape and every b), the
# whole grid in the slow suite
LSTSQ_CASES = [pytest.param(dtype, shape, rank, columns, id=f"{dtype}-{shape}-{rank}-{columns}",
                            marks=[] if (i + j + k) % 2 == 0 else [pytest.mark.slow])
               for i, dtype in enumerate(LSTSQ_DTYPES) for j, (shape, rank) in enumerate(LSTSQ_SHAPES)
               for k, columns in enumerate(LSTSQ_COLUMNS)]


@pytest.mark.parametrize("dtype, shape, rank, columns", LSTSQ_CASES)
def test_lstsq_as_numpy(dtype, shape, rank, columns):
    a = _lstsq_matrix(shape, dtype, rank)
    b = _lstsq_matrix((shape[0], 1 if columns is None else columns), dtype)
    b = b[:, 0] if columns is None else b
    exact(lambda a, b: np.linalg.lstsq(a, b), a, b)


def test_lstsq_results_in_further_arithmetic_with_one_kernel_for_every_shape_and_rank():
    def fit(a, b):
        x, res, rank, s = np.linalg.lstsq(a, b)
        return x * 2, res.sum(), res * 1.5, rank + 1, s.max() / s.min(), res.shape[0]
    f = transpile(fit)
    for shape, rank in [((6, 3), None), ((6, 3), 2), ((3, 6), None), ((8, 5), None), ((5, 5), 4)]:
        a, b = _lstsq_matrix(shape, "float64", rank), RNG.standard_normal(shape[0])
        with np.errstate(all="ignore"):
            assert_same(f(a, b), fit(a, b), rtol=0, atol=0)
    assert f.compilations == 1


def test_lstsq_rcond_and_mixed_dtypes():
    a, b = _lstsq_matrix((6, 4), "float64"), RNG.standard_normal((6, 2))
    a[:, 3] = a[:, 2] + 1e-9 * a[:, 0]         # a small singular value that rcond decides about
    for rcond in (None, 1e-6, -1, 0.5):
        exact(lambda a, b: np.linalg.lstsq(a, b, rcond), a, b)
    exact(lambda a, b, r: np.linalg.lstsq(a, b, rcond=r), a, b, 1e-6)       # a run-time rcond
    exact(lambda a, b, r: np.linalg.lstsq(a, b, rcond=r)[2], a, b, np.float32(1e-12))
    exact(lambda a, b: np.linalg.lstsq(a, b), a.astype(np.float32), b)      # float32 with float64: float64
    exact(lambda a, b: np.linalg.lstsq(a, b), a.astype(np.complex64), b.astype(np.float32))
    exact(lambda a: np.linalg.lstsq(a, [1.0, 2, 3, 4, 5, 6]), a)             # a list b
    exact(lambda a, b: np.linalg.lstsq(a.T @ a, a.T @ b), a, b)             # of computed arrays


def test_lstsq_in_a_run_time_loop():
    def refine(a, b, steps):
        x = np.zeros(a.shape[1])
        total = 0.0
        for _ in range(steps):
            dx, res, rank, s = np.linalg.lstsq(a, b - a @ x)
            x = x + dx
            total += res.sum() + rank
        return x, total
    check(refine, _lstsq_matrix((7, 3), "float64"), RNG.standard_normal(7), 3, rtol=1e-12, atol=1e-12)


def test_lstsq_errors_are_numpys():
    lstsq = transpile(lambda a, b: np.linalg.lstsq(a, b))
    with pytest.raises(np.linalg.LinAlgError, match="Incompatible dimensions"):
        lstsq(np.ones((3, 2)), np.ones(4))
    with pytest.raises(np.linalg.LinAlgError, match="Incompatible dimensions"):       # run-time sizes
        transpile(lambda a, b: np.linalg.lstsq(a, b[1:]))(np.ones((3, 2)), np.ones(3))
    with pytest.raises(CompileError, match="1-dimensional array given"):
        lstsq(np.ones(3), np.ones(3))
    with pytest.raises(CompileError, match="3-dimensional array given"):
        lstsq(np.ones((3, 2)), np.ones((3, 2, 1)))
    with pytest.raises(CompileError, match="float16"):
        lstsq(np.ones((3, 2), np.float16), np.ones(3))
    with pytest.raises(CompileError, match="an array of rconds"):
        transpile(lambda a, b: np.linalg.lstsq(a, b, rcond=np.array([0.5])))(np.ones((3, 2)), np.ones(3))
    nan = np.ones((3, 2))
    nan[0, 0] = np.nan
    with pytest.raises(np.linalg.LinAlgError, match="SVD did not converge"):
        lstsq(nan, np.ones(3))
    x, res, rank, s = lstsq(np.eye(3)[:, :2], np.ones(3))     # the kernel is fine after a failed call
    np.testing.assert_array_equal(res, [1.0])


def test_linear_algebra_in_a_loop_and_with_run_time_sizes():
    def newton_steps(a, x0, steps):
        x = x0
        for _ in range(steps):
            x = x - np.linalg.solve(a, a @ x - 1.0)
        return x, np.linalg.norm(a @ x - 1.0)
    check(newton_steps, _spd(5), np.zeros(5), 3, rtol=1e-12, atol=1e-12)
    f = transpile(lambda a: (np.linalg.det(a), np.sort(a, axis=None)))
    for n in (2, 3, 6):        # one specialization for every size
        a = RNG.standard_normal((n, n))
        got, want = f(a), (np.linalg.det(a), np.sort(a, axis=None))
        assert got[0] == want[0] and np.array_equal(got[1], want[1])


def test_errors_are_numpys():
    singular = np.ones((3, 3))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        transpile(lambda a: np.linalg.inv(a) + 1)(singular)
    with pytest.raises(np.linalg.LinAlgError, match="positive definite"):
        transpile(lambda a: np.linalg.cholesky(a))(-np.eye(2))
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        transpile(lambda a: np.linalg.inv(a))(np.ones((2, 3)))          # a run-time shape: NumPy's own check
    with pytest.raises(CompileError, match="at least two-dimensional"):
        transpile(lambda a: np.linalg.det(a))(np.ones(3))
    with pytest.raises(CompileError, match="float16"):
        transpile(lambda a: np.linalg.inv(a))(np.eye(2, dtype=np.float16))
    with pytest.raises(CompileError, match="bins"):
        transpile(lambda x: np.histogram(x, bins="auto"))(np.ones(3))
    with pytest.raises(ValueError, match="Invalid norm order"):
        transpile(lambda x: np.linalg.norm(x, "fro", 0))(np.ones((2, 2)))
    # a failed call leaves no error behind: the next call of the same kernel succeeds
    inv = transpile(lambda a: np.linalg.inv(a))
    with pytest.raises(np.linalg.LinAlgError):
        inv(singular)
    np.testing.assert_array_equal(inv(2 * np.eye(3)), 0.5 * np.eye(3))


def test_calls_survive_the_disk_cache(fresh_kernel_cache):
    a = _spd(3)
    first, second = compiled_then_loaded(lambda a: (np.linalg.eigh(a), np.sort(a, 0)), a)
    want = (np.linalg.eigh(a), np.sort(a, 0))
    for got in (first, second):
        assert type(got[0]) is type(want[0])
        for g, w in zip((*got[0], got[1]), (*want[0], want[1])):
            np.testing.assert_array_equal(g, w)


def test_calls_in_run_time_loops_and_in_outlined_functions():
    def smallest_gaps(x):
        out = np.zeros(x.shape[0])
        for i in range(x.shape[0]):           # a run-time loop: one call per row
            s = np.sort(x[i])
            out[i] = np.min(s[1:] - s[:-1])
        return out

    def det_of(a):
        return np.linalg.det(a)

    def two_dets(a, b):       # det_of called twice with one signature: outlined, the call in its body
        return det_of(a) - det_of(b)
    exact(smallest_gaps, RNG.standard_normal((5, 8)))
    exact(two_dets, _spd(3), _spd(3))
    mlir = transpile(smallest_gaps).emit(RNG.standard_normal((5, 8)), stage="mlir")
    assert "scf.for" in mlir and "call @npcall_sort_" in mlir


BINCOUNT_DTYPES = ["int64", "int8", "uint16", "bool"]


# each form on half of the dtypes in the default suite
@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("dtype", BINCOUNT_DTYPES)
def test_bincount_sizes_its_result_from_the_data(dtype, part):
    x = RNG.integers(0, 9, 40).astype(dtype)
    forms = [(lambda x: np.bincount(x), ()), (lambda x: np.bincount(x, minlength=20), ()),
             (lambda x, w: np.bincount(x, weights=w), (RNG.random(40).astype(np.float32),)),
             (lambda x: np.bincount(x[:0], minlength=3), ()),
             (lambda x: np.bincount(x * 1).argmax(), ())]        # of a computed array
    for k, (fn, more) in enumerate(forms):
        if in_part(part, k + BINCOUNT_DTYPES.index(dtype)):
            exact(fn, x, *more)


def test_bincount_errors_are_numpys():
    with pytest.raises(ValueError, match="no negative elements"):
        transpile(lambda x: np.bincount(x))(np.array([1, -2]))
    with pytest.raises(CompileError, match="Cannot cast"):
        transpile(lambda x: np.bincount(x))(np.array([1.5]))


UNIQUE_DTYPES = ["float64", "float32", "int32", "bool"]
UNIQUE_SHAPES = [(12,), (3, 4), (0,), (1,)]


# each form on half of the dtype x shape grid (a diagonal: every dtype and every shape) in the default suite
@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("dtype", UNIQUE_DTYPES)
@pytest.mark.parametrize("shape", UNIQUE_SHAPES)
def test_unique(dtype, shape, part):
    x = RNG.integers(-3, 3, shape).astype(dtype)
    if dtype[0] == "f" and x.size > 4:
        x.flat[[1, 3]] = np.nan
        x.flat[2] = -0.0
    forms = [lambda x: np.unique(x),
             lambda x: np.unique(x, return_index=True, return_inverse=True, return_counts=True),
             lambda x: np.unique(x, equal_nan=False, return_counts=True),
             lambda x: np.unique(x * 2).sum()]
    for k, fn in enumerate(forms):
        if in_part(part, k + UNIQUE_DTYPES.index(dtype) + UNIQUE_SHAPES.index(shape)):
            exact(fn, x)


@pytest.mark.parametrize("shape,axis", [((0,), None), ((0, 3), 0), ((3, 0), 0), ((0, 3), 1), ((3, 0), 1),
                                        ((2, 3), None)])
@pytest.mark.parametrize("name", ["quantile", "percentile", "quantile-nearest", "median", "ptp"])
def test_order_statistics_and_ptp_of_bools_raise_numpys_exception(name, shape, axis):
    """Regression: np.quantile / np.percentile / np.ptp of a bool array were a TypeError (NumPy's refusal to subtract
    bools) when compiling, where NumPy raises IndexError / ValueError for an empty axis first."""
    fn = {"quantile": lambda a: np.quantile(a, 0.5, axis=axis),
          "percentile": lambda a: np.percentile(a, [10, 50], axis=axis),
          "quantile-nearest": lambda a: np.quantile(a, 0.5, axis=axis, method="nearest"),
          "median": lambda a: np.median(a, axis=axis), "ptp": lambda a: np.ptp(a, axis=axis)}[name]
    a = np.zeros(shape, bool)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = fn(a)
    except Exception as error:
        with pytest.raises(type(error)):
            transpile(fn)(a)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(transpile(fn)(a), expected)
