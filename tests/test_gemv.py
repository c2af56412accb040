"""A matrix times a column or a vector calls BLAS gemv, as NumPy does (docs/guarantees.md: `matmul` row): for a
C-order float64 or float32 matrix the result is NumPy's one-thread result bit for bit, with or without threads;
any other layout is within rounding; and the call is gemv, not gemm."""
import numpy as np
import pytest

from transpiler import emit, transpile
from transpiler.runtime import blas


def arr(shape, dtype, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def within_rounding(got, a, b):
    expected = a @ b
    eps = np.finfo(expected.dtype).eps
    bound = 2 * a.shape[-1] * eps * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64))
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert np.all(np.abs(got.astype(np.float64) - expected) <= bound)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("m, k", [(16, 1), (17, 300), (300, 7), (4000, 300), (1000, 5000)])
def test_matrix_times_column_or_vector_is_numpys_gemv(dtype, m, k):
    a, b = arr((m, k), dtype, 1), arr((k, 1), dtype, 2)
    with blas.single_threaded():
        column, vector = a @ b, a @ b[:, 0]
    for threads in (True, False):
        np.testing.assert_array_equal(transpile(lambda a, b: a @ b, threads=threads)(a, b), column)
        np.testing.assert_array_equal(transpile(lambda a, x: a @ x, threads=threads)(a, b[:, 0]), vector)


@pytest.mark.parametrize("make", [np.asfortranarray, lambda a: a[::2], lambda a: a[:, ::-1]],
                         ids=["fortran", "every-other-row", "reversed-columns"])
def test_other_layouts_are_within_rounding(make):
    a, x = make(arr((600, 400), "float64", 3)), arr((400, 1), "float64", 4)
    within_rounding(transpile(lambda a, x: a @ x)(a, x), a, x)
    within_rounding(transpile(lambda a, x: a @ x)(a, x[:, 0])[:, None], a, x)


def test_the_kernel_calls_gemv_for_one_column():
    text = emit(lambda a, x: a @ x, arr((300, 200), "float64", 5), arr(200, "float64", 6), stage="llvm")
    assert "transpiler_cblas_dgemv" in text


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("k, n", [(1, 5), (7, 300), (768, 2304), (3000, 700)])
def test_one_row_times_a_matrix_is_gemv(dtype, k, n):
    """A one-row matrix times a matrix (or its transpose) calls gemv, its columns in chunks: float64 results are
    NumPy's bits (its matmul calls gemv for one row too), float32 ones within rounding (OpenBLAS's float32 kernel
    sums a column in an order that depends on how many columns it is given); a vector times a matrix, which NumPy
    calls gemv for in another form, is within rounding. With and without threads."""
    a, w = arr((1, k), dtype, 5), arr((k, n), dtype, 6)
    wt = np.ascontiguousarray(w.T)
    with blas.single_threaded():
        row, row_t = a @ w, a @ wt.T
    same = np.testing.assert_array_equal if dtype == "float64" else (lambda got, _: within_rounding(got, a, w))
    for threads in (True, False):
        same(transpile(lambda a, w: a @ w, threads=threads)(a, w), row)
        same(transpile(lambda a, w: a @ w.T, threads=threads)(a, wt), row_t)
        within_rounding(transpile(lambda v, w: v @ w, threads=threads)(a[0], w)[None], a, w)
    x = arr((k, 2), dtype, 7)       # a row whose elements are 2 apart in the kernel's buffer
    within_rounding(transpile(lambda x, w: x[:, :1].T @ w)(x, w), x[:, :1].T, w)


def test_the_kernel_calls_gemv_for_one_row():
    text = emit(lambda a, w: a @ w, arr((1, 8), "float64", 1), arr((8, 6), "float64", 2), stage="llvm")
    assert "llvm.call @transpiler_cblas_dgemv" in text


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dot_products_in_loops_give_numpys_answer(dtype):
    """A dot product (one row, one column) runs in the kernel's own loops (matmul_lowering._tiny; the speed is the
    `lu` row of the benchmarks' loops group): to rounding, as NumPy's ddot sums in its own order; sizes 0 and 1
    included."""
    from benchmarks.loops import lu      # (Doolittle LU by dot products, PolyBench's)
    compiled = transpile(lu)
    for n in (0, 1, 2, 7, 40):
        a = (np.random.default_rng(n).random((n, n)) + n * np.eye(n)).astype(dtype)
        got, want = compiled(a), lu(a)
        np.testing.assert_allclose(got, want, rtol=1e-4 if dtype == "float32" else 1e-12, atol=0)
