"""Idioms of published kernels that loop and write (issue #13, "loops that write"): Floyd-Warshall's
`D[:, k:k+1] + D[k:k+1, :]`, halving sums `x[:n] += x[n:2*n]`, row swaps by fancy indices (LU with partial
pivoting), tuple swaps of views, and comparisons with Python ints beyond int64. Each is compared with NumPy's own run
(values, dtypes, every argument's final contents) on several sizes, 0 and 1 included."""
import numpy as np
import pytest

from helpers import check


def rng(seed=0):
    return np.random.default_rng(seed)


# ---- comparisons with a Python int that no int64 or uint64 holds (NEP 50) ------------------------------------------
def compare_beyond_int64(n, x):
    return (n == 2**64, n < -2**64, x[-1:].sum() > 2**65, np.less(2**64, x), np.greater_equal(x, -2**70),
            x != 2**100, x == 2**64, x <= -2**64 - 1)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64, np.uint64])
@pytest.mark.parametrize("shape", [(0,), (2, 3)])
def test_comparisons_with_ints_beyond_int64_are_all_one_side(dtype, shape):
    check(compare_beyond_int64, 3, np.arange(np.prod(shape), dtype=dtype).reshape(shape))


def test_readable_sizes_in_a_refusal():
    """A size only the kernel knows, in a CompileError: named after the source's ints, not the kernel's arithmetic."""
    from transpiler import CompileError, transpile

    def einsum_of_halves(x, s):
        n = s[0]
        return np.einsum("i,i->", x[:n], x[n:2 * n])
    with pytest.raises(CompileError, match=r"min\(\(2\*int\(n\)\), x.shape\[0\]\)-min\(int\(n\), x.shape\[0\]\)") as e:
        transpile(einsum_of_halves)(np.arange(8.0), np.array([3]))
    assert "wrap" not in str(e.value) and "%" not in str(e.value)


def test_arithmetic_with_ints_beyond_int64_is_still_overflow():
    from transpiler import transpile
    with pytest.raises(OverflowError):
        transpile(lambda x: x + 2**64)(np.arange(3))


# ---- Floyd-Warshall: the row and column of k as one-element slices ------------------------------------------------
def floyd_warshall_slices(D):
    n = D.shape[0]
    for k in range(n):
        D = np.minimum(D, D[:, k:k + 1] + D[k:k + 1, :])
    return D


def floyd_warshall_new_axes(D):
    for k in range(D.shape[0]):
        D = np.minimum(D, D[:, k][:, None] + D[k][None, :])
    return D


def floyd_warshall_out(D):
    n = D.shape[0]
    for k in range(n):
        np.minimum(D, D[:, k:k + 1] + D[k:k + 1, :], out=D)
    return D


def floyd_warshall_polybench(path):
    """PolyBench's kernel as NumPy ports write it."""
    for k in range(path.shape[0]):
        path[:] = np.minimum(path[:], np.add.outer(path[:, k], path[k, :]))


def floyd_warshall_loops(path):
    """PolyBench's C loops."""
    n = path.shape[0]
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if path[i, k] + path[k, j] < path[i, j]:
                    path[i, j] = path[i, k] + path[k, j]


def distances(n, dtype, seed=0):
    d = rng(seed).integers(1, 20, (n, n)).astype(dtype)
    np.fill_diagonal(d, 0)
    return d


@pytest.mark.parametrize("kernel", [floyd_warshall_slices, floyd_warshall_new_axes, floyd_warshall_out,
                                    floyd_warshall_polybench, floyd_warshall_loops])
@pytest.mark.parametrize("n", [0, 1, 6])
def test_floyd_warshall(kernel, n):
    check(kernel, distances(n, np.float64, seed=n))


@pytest.mark.parametrize("kernel", [floyd_warshall_slices, floyd_warshall_polybench])
def test_floyd_warshall_on_ints(kernel):
    check(kernel, distances(5, np.int32))


def windows(x):
    """x[i - 1:i + 2] in `for i in range(1, n - 1)` has three elements; a step keeps its static length too."""
    n = x.shape[0]
    out = np.zeros(n)
    for i in range(1, n - 1):
        out[i] = x[i - 1:i + 2].sum() + x[i - 1:i + 2:2].prod() + x[i:i + 1] @ x[i - 1:i]
    return out


@pytest.mark.parametrize("n", [0, 1, 3, 8])
def test_slices_of_a_loop_index_have_static_lengths(n):
    check(windows, rng(n).random(n))


@pytest.mark.parametrize("shape", [(5, 3), (4, 0)])
def test_a_one_element_slice_past_the_end_is_a_value_error(shape):
    """`D[:, k:k + 1]` with k over the rows of a matrix with fewer columns: NumPy's slice is empty there; the
    compiled one has one element (so that it broadcasts), checked when the kernel runs."""
    from transpiler import transpile
    with pytest.raises(ValueError, match="one-element slice"):
        transpile(floyd_warshall_slices)(np.ones(shape))


def test_a_one_element_slice_that_fits_another_dim_is_numpys():
    check(floyd_warshall_slices, rng(1).random((3, 5)))


# ---- halving sums: slices of run-time lengths compared in the kernel ----------------------------------------------
def halving_sum(x):
    n = x.shape[0] // 2
    while n >= 1:
        x[:n] += x[n:2 * n]
        n //= 2
    return x[:1].sum()


def shifted_sum(x, s):
    a, b, n = s[0], s[1], s[2]
    x[a:a + n] += x[b:b + n]
    return x[a:a + n] * x[b:b + n]


@pytest.mark.parametrize("n", [0, 1, 5, 16])
def test_halving_sum(n):
    check(halving_sum, rng(n).random(n))


@pytest.mark.parametrize("s", [(1, 4, 2), (4, 0, 3), (2, 2, 0), (-3, 0, 2)])
def test_run_time_slices_of_one_length(s):
    check(shifted_sum, np.arange(8.0), np.array(s))


@pytest.mark.parametrize("s", [(0, 5, 4), (-1, 0, 2)])
def test_run_time_slices_of_different_lengths_are_numpys_value_error(s):
    from transpiler import transpile
    x = np.arange(8.0)
    with pytest.raises(ValueError):
        shifted_sum(x.copy(), np.array(s))
    with pytest.raises(ValueError, match="could not be broadcast"):
        transpile(shifted_sum)(x, np.array(s))
    np.testing.assert_array_equal(x, np.arange(8.0))      # nothing written


# ---- row swaps by fancy indices ------------------------------------------------------------------------------------
def rotate_rows(A):
    for i in range(A.shape[0] - 1):
        A[[i, i + 1]] = A[[i + 1, i]]
    return A


def lu_partial_pivoting(A):
    """LU with partial pivoting in place (Doolittle, L below the diagonal); returns the row permutation."""
    n = A.shape[0]
    perm = np.arange(n)
    for i in range(n):
        p = i + np.argmax(np.abs(A[i:, i]))
        A[[i, p]] = A[[p, i]]
        perm[[i, p]] = perm[[p, i]]
        A[i + 1:, i] /= A[i, i]
        A[i + 1:, i + 1:] -= np.outer(A[i + 1:, i], A[i, i + 1:])
    return perm


def gauss_jordan(A, b):
    """Solve A x = b by Gauss-Jordan elimination with partial pivoting on the augmented matrix."""
    n = A.shape[0]
    M = np.hstack([A, b[:, None]])
    for i in range(n):
        p = i + np.argmax(np.abs(M[i:, i]))
        M[[i, p]] = M[[p, i]]
        M[i] = M[i] / M[i, i]
        for j in range(n):
            if j != i:
                M[j] -= M[j, i] * M[i]
    return M[:, -1]


@pytest.mark.parametrize("shape", [(0, 3), (1, 3), (2, 2), (5, 3)])
def test_rotate_rows(shape):
    check(rotate_rows, np.arange(np.prod(shape)).reshape(shape))
    check(rotate_rows, rng(1).random(shape))


@pytest.mark.parametrize("n", [0, 1, 2, 6])
def test_lu_partial_pivoting(n):
    check(lu_partial_pivoting, rng(n).random((n, n)))


@pytest.mark.parametrize("n", [0, 1, 3, 6])
def test_gauss_jordan(n):
    check(gauss_jordan, rng(n).random((n, n)) + np.eye(n), rng(n + 1).random(n))


# ---- tuple swaps -----------------------------------------------------------------------------------------------------
def swap_columns(x):
    x[:, 0], x[:, 1] = x[:, 1], x[:, 0]        # NumPy: the second column in both (views read as assigned)
    return x


def swap_rows_views(A, i, j):
    A[i], A[j] = A[j], A[i]
    return A


def swap_rows_copies(A, i, j):
    A[i], A[j] = A[j].copy(), A[i].copy()
    return A


def swap_elements(a, i, j):
    a[i], a[j] = a[j], a[i]
    return a


def bubble_sort(a):
    n = a.shape[0]
    for i in range(n):
        for j in range(n - 1 - i):
            if a[j] > a[j + 1]:
                a[j], a[j + 1] = a[j + 1], a[j]
    return a


def swaps_of_a_local(x):
    y = x.copy()
    y[0], y[1:3] = y[2], y[:2]
    first, second = y[0], y[1]
    y[1], y[0] = y[0], y[1]
    return y, first, second


@pytest.mark.parametrize("shape", [(0, 2), (1, 2), (3, 2), (4, 3)])
def test_tuple_swap_of_column_views_is_numpys(shape):
    check(swap_columns, np.arange(float(np.prod(shape))).reshape(shape))


@pytest.mark.parametrize("i, j", [(0, 2), (1, 1), (3, -4)])
def test_tuple_swaps_of_rows(i, j):
    A = np.arange(12.0).reshape(4, 3)
    check(swap_rows_views, A, i, j)
    check(swap_rows_copies, A, i, j)
    check(swap_elements, np.arange(5), i, j)


def test_tuple_swaps_of_views_of_a_local():
    check(swaps_of_a_local, np.arange(12.0).reshape(4, 3))


@pytest.mark.parametrize("n", [0, 1, 2, 9])
def test_bubble_sort(n):
    check(bubble_sort, rng(n).random(n))
    check(bubble_sort, rng(n).integers(0, 4, n))


def add_into_a_name(x, s):
    a, b, n = s[0], s[1], s[2]
    y = x[a:a + n]
    y += x[b:b + n]                       # a view of x, written through
    total = np.zeros(n)
    total += x[:n]
    return total


def add_with_out(x, s):
    a, b, n = s[0], s[1], s[2]
    np.add(x[a:a + n], 1, out=x[b:b + n])


@pytest.mark.parametrize("kernel", [add_into_a_name, add_with_out])
@pytest.mark.parametrize("s", [(1, 4, 3), (0, 2, 0), (5, 0, 4), (2, 6, 2)])
def test_in_place_operations_on_run_time_slices(kernel, s):
    """Lengths only the kernel knows, compared there: NumPy's values where they agree, its ValueError (and nothing
    written) where they do not."""
    from transpiler import transpile
    x, s = np.arange(8.0), np.array(s)
    try:
        kernel(x.copy(), s)
    except ValueError:
        with pytest.raises(ValueError, match="broadcast"):
            transpile(kernel)(x, s)
        np.testing.assert_array_equal(x, np.arange(8.0))
    else:
        check(kernel, x, s)


def test_a_run_time_length_of_one_broadcasts_as_numpys():
    """Lengths compared in the kernel, one of them 1 (x[7:9] of 8 elements): NumPy broadcasts it. The kernel was
    compiled for equal lengths: the call runs again as NumPy from the caller's contents (it raised ValueError)."""
    check(add_into_a_name, np.arange(8.0), np.array([2, 7, 2]))


def dot_of_run_time_slices(x, s):
    a, b, n = s[0], s[1], s[2]
    return (x[a:a + n] @ x[b:b + n], x[None, a:a + n] @ x[b:b + n, None], np.stack([x[a:a + n], x[b:b + n]]),
            np.stack([x[a:a + n], x[b:b + n]], axis=1), np.concatenate([x[a:a + n, None], x[b:b + n, None]], axis=1))


@pytest.mark.parametrize("s", [(1, 4, 3), (0, 2, 0), (5, 0, 4), (-3, 0, 2)])
def test_products_and_stacks_of_run_time_slices(s):
    """Contractions, stacks and concatenations of lengths only the kernel knows: compared there, NumPy's ValueError
    (the first failing statement's) when they differ (was a CompileError that printed the compiler's size
    expressions)."""
    from transpiler import transpile
    x, s = np.arange(8.0), np.array(s)
    try:
        dot_of_run_time_slices(x, s)
    except ValueError:
        with pytest.raises(ValueError, match="mismatch in its core dimension 0"):
            transpile(dot_of_run_time_slices)(x, s)
    else:
        check(dot_of_run_time_slices, x, s)
