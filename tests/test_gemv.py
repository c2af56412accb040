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
