"""A matrix times a vector and a vector times the same matrix (PolyBench's bicg, `A @ p, r @ A`) run as one pass
over the matrix (backend/gemv_pair.py): NumPy's results within `2 k eps` of `|A| @ |p|` (the same products summed
in another order than gemv's), in every layout of the matrix and the vectors, float32 and float64, the same bits
with and without threads; `(A @ x) @ A` too (row i scales by its own dot product); `A @ (x @ A)`, or a matrix
written between the products, is not fused."""
import numpy as np
import pytest

from transpiler import emit, transpile


def arr(shape, dtype, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def within_rounding(got, a, b):
    """got is a @ b (one operand a vector) within 2 k eps of |a| @ |b|, with NumPy's dtype and shape."""
    expected = a @ b
    assert got.dtype == expected.dtype and got.shape == expected.shape
    k = a.shape[-1]
    bound = 2 * max(k, 1) * np.finfo(expected.dtype).eps * (np.abs(a).astype(np.float64) @
                                                             np.abs(b).astype(np.float64))
    assert np.all(np.abs(got.astype(np.float64) - expected) <= bound)


def bicg(A, p, r):
    return A @ p, r @ A


SHAPES = [(1, 1), (1, 9), (9, 1), (0, 5), (5, 0), (0, 0), (3, 4), (17, 33), (64, 200), (301, 157), (1000, 999)]
LAYOUTS = {
    "C": lambda a: a,
    "fortran": np.asfortranarray,
    "reversed-columns": lambda a: a[:, ::-1],
    "every-other-row": lambda a: np.repeat(a, 2, axis=0)[::2],
    "scattered": lambda a: np.repeat(np.repeat(a, 2, axis=0), 3, axis=1)[::2, ::3],   # no unit stride
    "transposed": lambda a: np.ascontiguousarray(a.T).T,
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS, ids=list(LAYOUTS))
def test_the_pair_matches_numpy(dtype, shape, layout):
    m, k = shape
    A = LAYOUTS[layout](arr((m, k), dtype, 1))
    p, r = arr(k, dtype, 2), arr(m, dtype, 3)
    q, s = transpile(bicg)(A, p, r)
    within_rounding(q, A, p)
    within_rounding(s, r, A)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_strided_vectors_and_both_orders(dtype):
    A = arr((130, 70), dtype, 4)
    p, r = arr(140, dtype, 5)[::2], arr(130, dtype, 6)[::-1]
    q, s = transpile(bicg)(A, p, r)
    within_rounding(q, A, p)
    within_rounding(s, r, A)
    s, q = transpile(lambda A, p, r: (r @ A, A @ p))(A, p, r)       # the vector-matrix product first
    within_rounding(q, A, p)
    within_rounding(s, r, A)


def test_the_matrix_read_transposed_and_as_rows_and_columns():
    """A.T in the products (the roles of the two vectors swap), and one-row / one-column matrices for vectors."""
    A = arr((90, 60), "float64", 7)
    p, r = arr(60, "float64", 8), arr(90, "float64", 9)
    s, q = transpile(lambda A, p, r: (A.T @ r, p @ A.T))(A, p, r)
    within_rounding(s, A.T, r)
    within_rounding(q, p, A.T)
    q, s = transpile(lambda A, p, r: (A @ p[:, None], r[None, :] @ A))(A, p, r)
    within_rounding(q, A, p[:, None])
    within_rounding(s, r[None, :], A)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_threads_do_not_change_the_bits(dtype):
    """The rows are split by the machine's cores, whatever the threads: a threaded kernel gives a one-thread
    kernel's bits."""
    A, p, r = arr((700, 900), dtype, 10), arr(900, dtype, 11), arr(700, dtype, 12)
    with_threads = transpile(bicg, threads=True)(A, p, r)
    without = transpile(bicg, threads=False)(A, p, r)
    for a, b in zip(with_threads, without):
        np.testing.assert_array_equal(a, b)


def test_special_values_propagate():
    A = arr((40, 30), "float64", 13)
    A[3, 4], A[7, 2] = np.inf, np.nan
    p, r = arr(30, "float64", 14), arr(40, "float64", 15)
    p[9] = 0.0
    A[5, 9] = np.inf      # inf * 0: NaN in q[5], inf in s[9]
    q, s = transpile(bicg)(A, p, r)
    q0, s0 = bicg(A, p, r)
    np.testing.assert_array_equal(np.isnan(q), np.isnan(q0))
    np.testing.assert_array_equal(np.isnan(s), np.isnan(s0))
    np.testing.assert_array_equal(np.isinf(q), np.isinf(q0))
    np.testing.assert_array_equal(np.isinf(s), np.isinf(s0))


def test_the_pair_is_one_pass():
    A, p, r = arr((300, 200), "float64", 16), arr(200, "float64", 17), arr(300, "float64", 18)
    text = emit(bicg, A, p, r, stage="llvm")
    assert "transpiler_gemv_pair_f64" in text and "llvm.call @transpiler_cblas_dgemv" not in text
    text = emit(bicg, A.astype(np.float32), p.astype(np.float32), r.astype(np.float32), stage="llvm")
    assert "transpiler_gemv_pair_f32" in text


def matvec(A, x):
    return (A @ x) @ A


def chained_within_rounding(got, A, x):
    """got is (A @ x) @ A within 2 (m + k) eps of (|A| @ |x|) @ |A| (the first product's rounding carries on)."""
    expected = matvec(A, x)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    wide = np.abs(A).astype(np.float64)
    bound = 2 * (sum(A.shape) + 1) * np.finfo(expected.dtype).eps * ((wide @ np.abs(x).astype(np.float64)) @ wide)
    assert np.all(np.abs(got.astype(np.float64) - expected) <= bound)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(1, 9), (9, 1), (0, 5), (5, 0), (17, 33), (301, 157)], ids=str)
@pytest.mark.parametrize("layout", ["C", "fortran", "scattered"])
def test_the_chained_pair_matches_numpy(dtype, shape, layout):
    """`(A @ x) @ A`: row i of A scales by its own dot product, so the pair is one pass too (contiguous rows; other
    layouts call BLAS twice)."""
    m, k = shape
    A = LAYOUTS[layout](arr((m, k), dtype, 25))
    x = arr(2 * k, dtype, 26)[::2]
    chained_within_rounding(transpile(matvec)(A, x), A, x)


def test_the_chained_pair_is_one_pass_with_the_same_bits_with_and_without_threads():
    A, x = arr((700, 900), "float64", 27), arr(900, "float64", 28)
    assert "transpiler_gemv_chain_f64" in emit(matvec, A, x, stage="llvm")
    got = transpile(matvec, threads=True)(A, x)
    np.testing.assert_array_equal(got, transpile(matvec, threads=False)(A, x))
    chained_within_rounding(got, A, x)

    def both(A, x):          # the first result is returned too
        q = A @ x
        return q @ A, q * 2.0

    s, q2 = transpile(both)(A, x)
    chained_within_rounding(s, A, x)
    within_rounding(q2 / 2.0, A, x)


def test_dependent_or_separated_products_are_not_fused():
    """`A @ (x @ A)` needs the whole first result; a write to the matrix between the products must be seen by the
    second; an operation on the first result between them, or a mixed product, is not fused. All match NumPy."""
    A, x, r = arr((120, 80), "float64", 19), arr(80, "float64", 20), arr(120, "float64", 21)
    other_way = transpile(lambda A, r: A @ (r @ A))
    assert "gemv_" not in other_way.emit(A, r, stage="llvm")
    within_rounding(other_way(A, r), A, r @ A)
    scaled = transpile(lambda A, x: (A @ x * 2.0) @ A)
    assert "gemv_" not in scaled.emit(A, x, stage="llvm")
    within_rounding(scaled(A, x), (A @ x) * 2.0, A)

    def written_between(A, p, r):
        B = A.copy()
        q = B @ p
        B[0, :] = 2.0
        return q, r @ B

    q, s = transpile(written_between)(A, x, r)
    B = A.copy()
    B[0, :] = 2.0
    within_rounding(q, A, x)
    within_rounding(s, r, B)

    q, s = transpile(bicg)(A, x.astype(np.float32), r)
    within_rounding(q, A, x.astype(np.float32))
    within_rounding(s, r, A)


def test_results_used_afterwards():
    A, p, r = arr((50, 40), "float64", 22), arr(40, "float64", 23), arr(50, "float64", 24)

    def f(A, p, r):
        q = A @ p
        s = r @ A
        return q + 1.0, s * 2.0, np.sum(q) + np.sum(s)

    got = transpile(f)(A, p, r)
    expected = f(A, p, r)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)
