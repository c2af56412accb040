"""Imperative NumPy: writes into arrays, views that alias, arguments changed in place, loops that write.

Every test compares with NumPy's own run on separate copies of the arguments, results and arguments' final
contents alike (helpers.check)."""
import numpy as np
import pytest

from benchmarks.loops import recurrence
from helpers import assert_same, check
from transpiler import CompileError, emit, transpile


def rng(seed=0):
    return np.random.default_rng(seed)


# ---- the silent wrong answer of issue #13 ----------------------------------------------------------------------
def view_of_local_updated_in_place(r):
    U = np.zeros((6, 6), dtype=np.float32)
    u = U[1:-1, 1:-1]
    u += r            # NumPy: U changes too
    return U


def test_a_view_updated_in_place_changes_its_base():
    result = check(view_of_local_updated_in_place, np.ones((4, 4), np.float32))
    assert result.sum() == 16.0


# ---- x[index] = value ------------------------------------------------------------------------------------------
def set_element(x, v):
    x[0] = v
    x[-1] = 2 * v
    return x


def set_element_2d(x, i, j):
    y = x * 1
    y[i, j] = -1
    y[-1, 0] = 7
    return y


def set_slices(x, y):
    z = x + 0
    z[1:3] = y[0]
    z[::2] = 5
    z[::-1][:2] = 9          # through a reversed view
    z[...] += 1
    return z


def set_3d(x, y, k):
    z = x.copy()
    z[0:2, :, k] = y
    z[:, None, 1, :] = 0.5
    return z


def set_runtime_bounds(a, k, n):
    b = a.copy()
    b[k:k + n] = -1
    b[-k:] *= 2
    return b


def set_cast(a):
    a[0] = 3.7
    a[1] = -2.9
    a[2:] = a[2:] * 1.5
    return a


@pytest.mark.parametrize("shape", [(5,), (1,), (4, 1)])
def test_set_element(shape):
    check(set_element, rng().random(shape), 3.0)


@pytest.mark.parametrize("shape", [(3, 4), (1, 4), (3, 1)])
def test_set_element_2d(shape):
    check(set_element_2d, rng().random(shape), 0, -1)


@pytest.mark.parametrize("n", [6, 5, 1])
def test_set_slices(n):
    check(set_slices, rng().random((n, 3)), rng().random((2, 3)))


def test_set_3d_with_broadcasting_and_none():
    check(set_3d, rng().random((3, 4, 5)), rng().random((2, 4)), 2)


@pytest.mark.parametrize("k, n", [(1, 2), (0, 0), (3, 10), (-2, 1)])
def test_slices_with_run_time_bounds(k, n):
    check(set_runtime_bounds, np.arange(8.0), k, n)


def test_setitem_casts_unsafely_like_numpy():
    check(set_cast, np.arange(5))
    check(set_cast, np.arange(5.0).astype(np.float32))
    with pytest.raises(OverflowError):       # NumPy too: -2.9 becomes the Python int -2 first
        transpile(set_cast)(np.arange(5, dtype=np.uint8))


def set_overflow(a):
    a[0] = 300
    return a


def test_a_python_int_that_does_not_fit_is_numpys_overflow_error():
    with pytest.raises(OverflowError):
        transpile(set_overflow)(np.zeros(3, np.int8))


def set_bad_shape(a, b):
    a[:2] = b
    return a


def test_a_value_that_does_not_broadcast_is_numpys_value_error():
    with pytest.raises(ValueError, match="could not broadcast"):
        transpile(set_bad_shape)(np.zeros(4), np.ones(3))


def set_index_out_of_range(a, i):
    a[i] = 1.0
    return a


def set_row_out_of_range(a, i):
    a[i, ::-1] = 1.0
    return a


@pytest.mark.parametrize("i", [4, -5, 100])
def test_an_index_out_of_range_raises_index_error_and_writes_nothing(i):
    a = np.zeros(4)
    with pytest.raises(IndexError):
        transpile(set_index_out_of_range)(a, i)
    b = np.zeros((4, 3))
    with pytest.raises(IndexError):
        transpile(set_row_out_of_range)(b, i)
    c = np.zeros(4)
    with pytest.raises(IndexError):
        transpile(set_ids_in_place)(c, np.array([1, i]))
    assert not a.any() and not b.any() and not c.any()


# ---- masks and integer arrays ----------------------------------------------------------------------------------
def set_mask(x):
    y = x * 2
    y[y < 0] = 0
    y[x > 0.5] += 1
    return y


def set_mask_rows(x, keep):
    y = x.copy()
    y[~keep] = np.arange(x.shape[1])
    return y


def set_ids(x, ids):
    y = x + 0
    y[ids] = -1
    return y


def set_ids_in_place(x, ids):
    x[ids] = -1


def add_at_ids(x, ids):
    y = x + 0
    y[ids] += 10        # repeated ids add once, as in NumPy
    return y


def set_rows_by_ids(x, ids, rows):
    y = x.copy()
    y[ids] = rows
    return y


def test_mask_assignment():
    x = rng().standard_normal((4, 5))
    check(set_mask, x)
    check(set_mask_rows, x, np.array([True, False, False, True]))


def set_mask_with_values(x, values):
    x[x < 0] = values
    return x


def set_rows_through_a_mask(A, rows):
    B = A.copy()
    B[A[:, 0] > 0.5] = rows
    return B


def test_values_through_a_mask():
    """One value (row) per selected element, in C order; a count that differs is NumPy's ValueError, and then
    nothing is written."""
    check(set_mask_with_values, np.array([-1.0, 2.0, -3.0]), np.array([7.0, 8.0]))
    check(set_mask_with_values, np.array([[-1.0, 2.0], [-3.0, -4.0]]), np.array([7.0, 8.0, 9.0]))
    check(set_mask_with_values, np.array([1.0, 2.0]), np.zeros(0))
    A = np.array([[0.9, 1.0], [0.1, 2.0], [0.7, 3.0]])
    check(set_rows_through_a_mask, A, np.array([[5.0, 6.0], [7.0, 8.0]]))
    check(set_rows_through_a_mask, A, np.array([[5.0, 6.0], [7.0, 8.0]])[:, :1])    # rows broadcast
    x = np.array([-1.0, 2.0, -3.0])
    with pytest.raises(ValueError, match="boolean array indexing assignment"):
        transpile(set_mask_with_values)(x, np.array([7.0, 8.0, 9.0]))
    assert x.tolist() == [-1.0, 2.0, -3.0]


@pytest.mark.parametrize("ids", [np.array([0, 3, 3, -1]), np.array([], np.int64), np.array([2])])
def test_integer_array_assignment(ids):
    x = rng().random(6)
    check(set_ids, x, ids)
    check(add_at_ids, x, ids)


def test_integer_array_assignment_of_rows():
    check(set_rows_by_ids, rng().random((5, 3)), np.array([4, 0]), rng().random((2, 3)))


def test_integer_array_out_of_range():
    with pytest.raises(IndexError):
        transpile(set_ids)(np.zeros(3), np.array([0, 3]))


# ---- several integer arrays, or one among other indices (NumPy's advanced indexing) ----------------------------
def set_pairs(x, r, c, v):
    x[r, c] = v              # the last of repeated (r, c) pairs wins
    return x


def add_at_pairs(x, r, c):
    x[r, c] += 10            # buffered, as in NumPy: a repeated pair adds once
    return x


def set_outer(x, r, c):
    x[r[:, None], c[None, :]] = np.arange(len(r) * len(c)).reshape(len(r), len(c))
    return x


def set_ids_with_int_and_slice(x, r, v):
    x[r, 1] = v
    x[r, 2:] *= 2
    x[-1, r % x.shape[1]] = -1
    return x


def set_ids_and_slice(x, r, v):
    x[r, 1:] = v
    return x


def set_separated(x, r, c, v):
    x[r, :, c] = v           # separated by a slice: v's leading dims are the indices'
    x[0, :, c] = -1          # an int counts as advanced: separated too
    return x


def set_adjacent(x, r, c, v):
    x[:, r, c] = v
    return x


@pytest.mark.parametrize("r, c", [([0, 2, 2, -1], [1, 0, 0, 3]), ([1], [0, 3, -2]), ([], [])], ids=str)
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_several_index_arrays_assignment(r, c, dtype):
    x = (rng().random((3, 4)) * 10).astype(dtype)
    r, c = np.array(r, np.int64), np.array(c, np.int16)
    v = (rng(1).random(np.broadcast_shapes(r.shape, c.shape)) * 10 - 5)   # floats into ints: truncated
    check(set_pairs, x, r, c, v)
    check(set_pairs, x, r, c, 2.5)
    check(add_at_pairs, x, r, c)
    check(set_outer, x, r % 3, c % 4)
    check(set_ids_with_int_and_slice, x, r % 3, 7.9)
    check(set_ids_with_int_and_slice, x, r % 3, np.arange(len(r)))


@pytest.mark.parametrize("shape", [(3, 4, 5), (1, 4, 1), (3, 1, 5)])
def test_several_index_arrays_assignment_in_3d(shape):
    x = rng().random(shape)
    r, c = np.array([0, -1, 0]), np.array([shape[2] - 1, 0, 0])
    check(set_separated, x, r, c, rng(2).random((3, shape[1])))
    check(set_separated, x, r, c, rng(2).random(shape[1]))         # broadcast over the indices' dim
    check(set_adjacent, x, np.array([0, shape[1] - 1]), c[:2], rng(3).random((shape[0], 2)))


def test_several_index_arrays_assignment_checks_before_it_writes():
    x = np.zeros((3, 4))
    for r, c in (([0, 3], [0, 1]), ([0, 1], [0, -5])):
        with pytest.raises(IndexError):
            transpile(set_pairs)(x, np.array(r), np.array(c), 1.0)
    for r in ([0, 3], [-4, 0]):
        with pytest.raises(IndexError):
            transpile(set_ids_and_slice)(x, np.array(r), 1.0)
    assert not x.any()
    with pytest.raises(IndexError, match="could not be broadcast"):
        transpile(set_pairs)(x, np.array([0, 1]), np.array([0, 1, 2]), 1.0)
    with pytest.raises(ValueError, match="could not be broadcast to indexing result"):   # (NumPy's own words: a
        transpile(set_pairs)(x, np.array([0, 1]), np.array([0, 1]), np.ones(3))      # failed check runs NumPy)
    assert not x.any()


def set_ids_at_a_run_time_int(x, j, r):
    x[r, j] = 5
    y = x[1:]
    y[r % 3, [0, 1, 1]] -= 1    # through a view
    return x, y


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_several_index_arrays_assignment_through_views_and_layouts(layout):
    x = np.arange(24.0).reshape(4, 6)
    x = {"C": x, "F": np.asfortranarray(x), "strided": np.arange(48.0).reshape(4, 12)[:, ::2]}[layout]
    check(set_ids_at_a_run_time_int, x, np.int64(-2), np.array([0, -1, 2]))


def write_through_an_index_by_a_0d_array(x, i):
    y = x[i]                 # a 0-d integer array is an advanced index: a copy
    y[0] = -5
    z = x[i, 1:]
    z[0] = -6
    w = x[i[()]]             # a NumPy scalar: a view
    w[-1] = -7
    return x, y, z, w


@pytest.mark.parametrize("i", [1, -1, 0])
def test_an_index_by_a_0d_array_is_a_copy(i):
    """Regression: x[np.array(1)] was a view (NumPy: a copy), so a write through it changed x."""
    x = np.arange(12.0).reshape(3, 4)
    got = check(write_through_an_index_by_a_0d_array, x, np.array(i))
    assert not np.shares_memory(got[1], got[0]) and np.shares_memory(got[3], got[0])


def set_pairs_in_a_loop(x, r, c):
    for k in range(x.shape[0]):
        x[r, c] += x[k, 0]
        x[k, c] = k
    return x


def test_several_index_arrays_assignment_in_a_run_time_loop():
    check(set_pairs_in_a_loop, rng().random((4, 3)), np.array([1, 3]), np.array([2, 0]))


# ---- out=, np.copyto -------------------------------------------------------------------------------------------
def ufunc_out(a, b):
    c = np.empty_like(a)
    np.add(a, b, out=c)
    np.multiply(c, 2, out=c)
    r = np.sqrt(c, out=c)
    return c, r


def matmul_out(a, b, c):
    np.matmul(a, b, out=c)
    d = np.zeros((a.shape[0], b.shape[1]))
    np.dot(a, b, out=d)
    return d


def copyto(a, b, mask):
    np.copyto(a, b)
    np.copyto(a, 7.0, where=mask)


def test_out_arguments():
    check(ufunc_out, rng().random(4), rng().random(4))
    check(matmul_out, rng().random((3, 4)), rng().random((4, 2)), np.zeros((3, 2)))


def test_copyto():
    check(copyto, np.zeros(4), rng().random(4), np.array([True, False, True, False]))


def copyto_casting(a):
    np.copyto(a, 1.5)


def test_copyto_checks_its_casting_rule():
    with pytest.raises(TypeError, match="same_kind"):
        transpile(copyto_casting)(np.zeros(3, np.int64))


# ---- views -----------------------------------------------------------------------------------------------------
def views_of_a_local(x):
    y = x * 1
    t = y.T
    t[0] = -1                 # a column of y
    r = y.reshape(-1)
    r[3] = 100
    e = y[None]
    e[0, -1, -1] = 42
    s = np.expand_dims(y, 1).squeeze()
    s[1, 1] = 7
    w = np.swapaxes(y, 0, 1)
    w[2, 0] += 1000
    return y, t, r, s


def views_of_an_argument(a):
    v = a[1:, ::2]
    v[...] = 3
    a.T[0, 0] = -1


def views_of_a_constant():
    c = np.array([1.0, 2.0, 3.0, 4.0])
    return c


def lifted_constant(x):
    c = np.array([1.0, 2.0, 3.0, 4.0])
    c[1] = x
    return c * 2


def test_writes_through_views_of_a_local():
    check(views_of_a_local, rng().random((3, 4)))


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_writes_through_views_of_an_argument(layout):
    a = rng().random((4, 10))
    a = {"C": a, "F": np.asfortranarray(a), "strided": a[:, ::2]}[layout]
    check(views_of_an_argument, a)


def test_a_compile_time_array_written_with_a_run_time_value():
    check(lifted_constant, 5.0)


def copies_are_not_views(x):
    a = x.copy()
    a[0] = 99
    b = np.array(x)
    b[1] = 98
    c = np.copy(x)
    c[2] = 97
    d = x.astype(x.dtype)
    d[3] = 96
    f = x.reshape(2, 2).flatten()
    f[0] = 95
    g = np.concatenate([x])
    g[1] = 94
    return x, a, b, c, d, f, g


def test_copies_are_not_views():
    check(copies_are_not_views, rng().random(4))


def concatenate_returns_a_new_array(x):
    return np.concatenate([x]), np.hstack([x]), np.vstack([x])


def test_concatenate_of_one_array_is_a_new_array():
    x = np.arange(3.0)
    results = transpile(concatenate_returns_a_new_array)(x)
    for r in results:
        assert r is not x and not np.shares_memory(r, x)


def reshape_of_a_transpose(x):
    y = x.T.reshape(-1)       # NumPy copies here; whether it did is not followed
    y[0] = 1
    return y


def alias_written_after_join(x, c):
    a = x * 1
    b = x * 2
    y = a if c > 0 else b
    a[0] = -1
    return y + 1


def write_through_reshape(x, v):
    flat = x.reshape(-1)
    flat[1:3] = v
    x.ravel()[-1:] += 10
    y = x.reshape(x.shape[0], -1)      # 3-d into 2-d
    y[-1] *= 2
    return flat, y


@pytest.mark.parametrize("shape", [(2, 3, 4), (1, 3, 1), (2, 1, 0)])
def test_writes_through_a_reshape_of_a_contiguous_argument(shape):
    """A reshape or ravel of a C-contiguous argument is a view (C-contiguity is part of the key): writes through it
    change the caller's array, as in NumPy; the returned reshapes share its memory."""
    x = rng().random(shape)
    v = np.array([-1.0, -2.0])[:min(2, max(x.size - 1, 0))]
    check(write_through_reshape, x, v)
    ref = x.copy()
    got = transpile(write_through_reshape)(x, v)
    if x.size:
        assert np.shares_memory(got[0], x) and np.shares_memory(got[1], x)
        assert not np.array_equal(x, ref)


def write_through_ravel_and_flat_reshape(x):
    f = x.ravel()            # NumPy: a view only of a C-contiguous array
    f[0] = -1
    r = x.reshape(-1)        # a view also of one strided line (x[::2], x[:, ::2] of an even width, x[::-1, ::-1])
    r[-1] += 100
    return f, r


NON_CONTIGUOUS = {
    "strided": lambda a: a[:, :4],               # rows apart: ravel and reshape(-1) copy
    "fortran": lambda a: np.asfortranarray(a),
    "reversed rows": lambda a: a[::-1],
    "one line, every other column": lambda a: a[:, ::2],
    "one line, reversed": lambda a: a[::-1, ::-1],
    "one line, 1-d": lambda a: a.reshape(-1)[::3],
    "one line, a unit dim": lambda a: a[1:2, ::2],
}


@pytest.mark.parametrize("layout", list(NON_CONTIGUOUS))
def test_a_ravel_or_flat_reshape_of_a_non_contiguous_argument_is_a_view_or_copy_as_in_numpy(layout):
    """The key says as much of the layout as NumPy's reshape and ravel depend on (C-contiguous, one strided line,
    neither): writes through a copy change only the copy, through a view the caller's array."""
    def make():
        return NON_CONTIGUOUS[layout](np.arange(24.0).reshape(4, 6))
    check(write_through_ravel_and_flat_reshape, make())
    x, y = make(), make()
    expected, got = write_through_ravel_and_flat_reshape(x), transpile(write_through_ravel_and_flat_reshape)(y)
    assert [np.shares_memory(g, y) for g in got] == [np.shares_memory(e, x) for e in expected]


def write_through_two_rows(x):
    y = x.reshape(2, -1)
    y[-1] *= 2
    return y


def write_through_the_same_shape(x):
    y = x.reshape(x.shape[0], -1)     # the shape x has: NumPy's view, whatever the strides
    y[-1] *= 2
    return y


def test_a_reshape_of_a_non_contiguous_argument_into_several_dims_is_refused_for_writes():
    """NumPy copies or views depending on the strides and the new shape, which the key does not hold; a reshape
    into the shape the array has is a view whatever the strides, and written through as NumPy does."""
    x = rng().random((4, 6))[:, :4]
    with pytest.raises(CompileError, match="share memory"):
        transpile(write_through_two_rows)(x)
    np.testing.assert_array_equal(transpile(lambda x: x.reshape(2, -1) * 2)(x), x.reshape(2, -1) * 2)
    base = rng().random((4, 6))
    expected_base = base.copy()
    expected = write_through_the_same_shape(expected_base[:, :4])
    got = transpile(write_through_the_same_shape)(base[:, :4])
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(base, expected_base)


def test_an_alias_the_compiler_cannot_follow_is_refused():
    with pytest.raises(CompileError, match="share memory"):
        transpile(reshape_of_a_transpose)(np.ones((2, 3)))
    with pytest.raises(CompileError, match="share memory"):
        transpile(alias_written_after_join)(np.ones(3), 1.0)


# ---- arguments ------------------------------------------------------------------------------------------------
def add_into(a, b):
    a += b
    a[1:] *= 2


def write_one(a, i):
    a[i] = 1.0


def write_and_return(a):
    a[0] = 5
    return a


def write_first_read_second(a, b):
    a[0] = 5
    return b[0] + 0


def test_an_argument_is_written_in_place():
    a = np.arange(5.0)
    check(add_into, a, np.ones(5))
    big = np.zeros(1000)
    transpile(write_one)(big, 3)
    assert big[3] == 1.0 and big.sum() == 1.0


def test_written_arguments_are_not_copied():
    """One element written into a large argument: no copy of it in the kernel (no memref.copy, no allocation of
    its size), so the write costs O(1)."""
    text = emit(write_one, np.zeros(1000), 3, stage="llvm")
    assert "memrefCopy" not in text and "llvm.intr.memcpy" not in text
    text = emit(add_into, np.zeros(10), np.ones(10), stage="llvm")
    assert "memrefCopy" not in text and "llvm.intr.memcpy" not in text
    assert "llvm.call @transpiler_malloc" not in text      # no temporary: both updates in the argument's memory
    text = emit(prefix_into_argument, np.zeros(10), np.ones(10), stage="llvm")   # a loop writing the argument
    assert "memrefCopy" not in text and "llvm.intr.memcpy" not in text


def add_one_into(x, out):
    np.add(x, 1.0, out=out)
    return out


def scale_into(x, out):
    out[...] = x * 2 + 1


def square_into_and_sum(x, out):
    np.multiply(x, x, out=out)
    return out.sum()


@pytest.mark.parametrize("fn", [add_one_into, scale_into, square_into_and_sum])
def test_results_computed_into_an_argument_need_no_temporary(fn):
    """`np.add(x, 1.0, out=out)` and `out[...] = expr` compute into the caller's `out` (no temporary of its size, no
    copy): the read-only `x` was taken as the loop's destination (a func.func's `.name` is its symbol, so the
    read-only test never matched) and bufferization copied it; then the result went through a temporary (2x NumPy's
    time at 10^5 float32)."""
    x = np.arange(1000, dtype=np.float32)
    text = emit(fn, x, np.zeros(1000, np.float32), stage="llvm")
    assert "llvm.intr.memcpy" not in text and "memrefCopy" not in text
    if fn is not square_into_and_sum:      # (its sum's accumulators are small allocations)
        assert "llvm.call @transpiler_malloc" not in text
    out, expected = np.zeros(1000, np.float32), np.zeros(1000, np.float32)
    assert_same(transpile(fn)(x, out), fn(x, expected))
    assert_same(out, expected)


@pytest.mark.parametrize("layout", ["F", "strided", "reversed"])
def test_non_contiguous_arguments_that_are_written(layout):
    base = rng().random((6, 6))
    a = {"F": np.asfortranarray(base), "strided": base[::2, 1::2], "reversed": base[::-1]}[layout]
    check(add_into, a, np.ones(a.shape[-1]))


def test_a_returned_argument_is_the_callers_array():
    a = np.arange(3.0)
    assert transpile(write_and_return)(a) is a
    assert a[0] == 5


def test_the_same_array_passed_twice():
    a = np.arange(3.0)
    assert transpile(write_first_read_second)(a, a) == 5.0
    b = np.arange(3.0)
    assert transpile(write_first_read_second)(b, b.copy()) == 0.0


def shift_in_place(a, b):
    a += b
    a[1:] = a[:-1] * 2 + b[1:]
    return a.sum(), b.copy()


@pytest.mark.parametrize("views", ["shifted", "reversed", "strided", "inside"])
def test_overlapping_arguments_that_are_written_run_as_numpy(views):
    """Views that overlap without being the same array, one of them written: the call runs as NumPy (it was a
    ValueError), so the writes are seen through the other view as NumPy's are."""
    pick = {"shifted": lambda a: (a[1:], a[:-1]), "reversed": lambda a: (a[:-1], a[::-1][1:]),
            "strided": lambda a: (a[::2], a[:6]), "inside": lambda a: (a[2:8], a[3:9])}[views]
    for fn in (write_first_read_second, shift_in_place):
        compiled = transpile(fn)
        expected_base, got_base = np.arange(12.0), np.arange(12.0)
        expected = fn(*pick(expected_base))
        got = compiled(*pick(got_base))
        assert_same(got, expected)
        np.testing.assert_array_equal(got_base, expected_base)
    assert compiled.replays >= 1
    separate = np.arange(12.0)
    compiled(separate[:6], separate[6:])       # (no overlap: the kernel itself)


def test_a_read_only_argument_that_is_written():
    a = np.arange(3.0)
    a.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        transpile(write_and_return)(a)


def test_a_list_argument_cannot_be_written():
    with pytest.raises(CompileError, match="list"):
        transpile(write_and_return)([1.0, 2.0])


def helper_writes(a, i):
    a[i] += 1.0
    a[i] *= 2.0
    a[i] -= 0.5
    a[i] += a[0]
    return a[i] * 2


def calls_a_writing_helper_often(a):
    total = 0.0
    for i in range(3):
        total = total + helper_writes(a, i)
    return total


def test_a_function_that_writes_its_argument_is_not_outlined_away():
    check(calls_a_writing_helper_often, np.arange(4.0))


# ---- loops that write -------------------------------------------------------------------------------------------
def prefix_into_argument(a, x):
    for i in range(1, a.shape[0]):
        a[i] = a[i - 1] + x[i]


def triangular(A):
    B = np.zeros_like(A)
    for i in range(A.shape[0]):
        B[i, :i] = A[i, :i] * 2
        B[:i, i] = -A[:i, i]
    return B


def branch_in_loop(x):
    y = np.zeros_like(x)
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            y[i] = x[i]
        else:
            y[i] = -x[i]
    return y


def while_writes(x, tol):
    d = x.copy()
    n = 0
    while np.max(np.abs(d)) > tol:
        d *= 0.5
        d[0] = 0.0
        n += 1
    return d, n


def nested_scalar_loops(x):
    s = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            s[i] = max(s[i], x[i, j])
    return s


@pytest.mark.parametrize("n", [1, 2, 9])
def test_recurrences(n):
    check(recurrence, rng(n).random(n))
    check(prefix_into_argument, np.zeros(n), rng(n).random(n))


@pytest.mark.parametrize("n", [1, 4])
def test_triangular_loops(n):
    check(triangular, rng(n).random((n, n)))


def test_branch_in_a_loop():
    check(branch_in_loop, rng().random(8))


def test_while_with_writes():
    check(while_writes, rng().random(5) + 1, 0.1)


def test_nested_scalar_loops():
    check(nested_scalar_loops, rng().random((4, 5)))


def branch_writes(x, c):
    y = x + 0
    if c > 0:
        y[0] = 10
    else:
        y[1:] = 20
    return y


@pytest.mark.parametrize("c", [1.0, -1.0])
def test_writes_in_run_time_branches(c):
    check(branch_writes, np.arange(4.0), c)


# ---- break, continue ---------------------------------------------------------------------------------------------
def break_in_unrolled_loop(x):
    total = x[0] * 0
    for i in range(3):
        if x[i] > 5:
            break
        total = total + x[i]
    return total


def continue_in_unrolled_loop(x):
    total = x[0] * 0
    for i in range(3):
        if x[i] > 5:
            continue
        total = total + x[i]
    return total


def first_above(x, t):
    found = -1
    for i in range(x.shape[0]):
        if x[i] > t:
            found = i
            break
    else:
        found = -2
    return found


def skip_negatives(x):
    y = np.zeros_like(x)
    for i in range(x.shape[0]):
        if x[i] < 0:
            continue
        y[i] = np.sqrt(x[i])
    return y


def converge(x, tol):
    d = x.copy()
    steps = 0
    while True:
        d *= 0.5
        steps += 1
        if np.max(np.abs(d)) < tol:
            break
    return d, steps


def nested_break(A):
    counts = np.zeros(A.shape[0], np.int64)
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            if A[i, j] < 0:
                break
            counts[i] += 1
    return counts


def compile_time_break(x):
    out = x * 0
    for k in range(100000):
        if k == 3:
            break
        out = out + k
    return out


@pytest.mark.parametrize("x", [[1.0, 2.0, 3.0], [1.0, 9.0, 3.0], [9.0, 9.0, 9.0]])
def test_break_and_continue_under_run_time_conditions(x):
    x = np.array(x)
    check(break_in_unrolled_loop, x)
    check(continue_in_unrolled_loop, x)
    check(first_above, x, 2.5)
    check(first_above, x, 100.0)
    check(skip_negatives, x - 2)
    check(converge, x, 0.1)


def test_break_in_nested_run_time_loops():
    check(nested_break, np.array([[1.0, -1.0, 2.0], [1.0, 2.0, 3.0], [-1.0, 1.0, 1.0]]))


def test_a_break_known_at_compile_time_stops_unrolling():
    check(compile_time_break, np.ones(3))




def scalar_loops(x, a):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            if x[i, j] > s:
                s = x[i, j] * 0.5
            a[j] += s
    return s


def test_scalar_loops_allocate_nothing_per_iteration():
    """0-d values in loop bodies are scalars (registers), not buffers: the only allocations in the kernel are its
    results (the value and the index check flags), made once."""
    x, a = np.ones((3, 4)), np.zeros(4)
    text = emit(scalar_loops, x, a, stage="llvm")
    calls = text.count("llvm.call @transpiler_malloc")
    typed = emit(scalar_loops, x, a, stage="typed")
    results = typed.splitlines()[0].split("->")[1].count("[")
    assert calls <= results, (calls, results)
    check(scalar_loops, x, a)


def shift_left(a):
    for i in range(1, a.shape[0]):
        a[i - 1] = a[i] * 2


def test_loop_indices_known_in_range_are_not_checked():
    """i in range(1, n) indexes an array of n elements, and so does i - 1: no check, no clamping per iteration."""
    assert "index_check" not in emit(shift_left, np.zeros(5), stage="typed")
    check(shift_left, np.arange(5.0))
    check(shift_left, np.arange(1.0))


def returns_views(a):
    a[0, 0] = 9.0
    return a[1:, ::-2], a.T, a[None, 0], a[:, 1]


def returns_view_at_run_time_index(a, i):
    return a[i]


def test_a_returned_view_of_an_argument_is_a_view_of_the_callers_array():
    a = np.arange(12.0).reshape(3, 4)
    results = transpile(returns_views)(a)
    expected = returns_views(np.arange(12.0).reshape(3, 4))
    for r, e in zip(results, expected):
        np.testing.assert_array_equal(r, e)
        assert np.shares_memory(r, a)
    a[2, 3] = -5.0                       # a later write by the caller shows through, as in NumPy
    assert results[0][1, 0] == -5.0 and results[1][3, 2] == -5.0
    view = transpile(returns_view_at_run_time_index)(a, 1)   # a position computed in the kernel: a copy
    np.testing.assert_array_equal(view, a[1])


def run_time_steps(x, ks):
    k = ks[0]                 # a step known only at run time
    y = x.copy()
    y[1::k] = -1
    y[::k] *= 2
    return y, x[::k].sum(), x[2:-1:k], x[-2:1:k], x[::k]


@pytest.mark.parametrize("k", [1, 2, 3, 20, -1, -2, -3, -20])
@pytest.mark.parametrize("n", [10, 1, 0])
def test_slices_with_run_time_steps(k, n):
    check(run_time_steps, np.arange(float(n)), np.array([k]))


def run_time_steps_2d(x, k):
    x[::k, 1] = np.arange(len(x[::k, 1]))
    x[1:, ::k] += x[:-1, ::k]
    v = x[-1::k]
    v[0] = -1                    # through a view at a run-time step
    return x[::k, ::-1], x[1:, ::k]


@pytest.mark.parametrize("k", [1, 3, -1, -2, -7])
@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_slices_with_run_time_steps_of_either_sign(k, dtype):
    """NumPy's slice.indices for a step of either sign, known only when the kernel runs (a NumPy scalar)."""
    check(run_time_steps_2d, np.arange(20.0).reshape(5, 4), dtype(k))
    check(run_time_steps_2d, np.arange(4.0).reshape(1, 4), dtype(k))


def test_a_run_time_step_of_zero_raises():
    x = np.arange(10.0)
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        transpile(run_time_steps)(x, np.array([0]))
    assert (x == np.arange(10.0)).all()


def rows_of_a_reshaped_transpose(a):
    s = np.zeros(4)
    for row in a.T.reshape(-1, 4):       # a value that may or may not share a's memory: read as it is
        s = s + row
    return s


def test_iterating_an_array_whose_aliasing_is_not_followed():
    check(rows_of_a_reshaped_transpose, np.arange(24.0).reshape(4, 6))


def add_float_into_int(a):
    a += 1.5


def add_wider_into(a, b):
    a += b


def test_in_place_operators_follow_numpys_out_rules():
    """`a op= b` is `op(a, b, out=a)`: same_kind casting (a float result into an int array is NumPy's TypeError)
    and a result that must fit a's shape (NumPy's ValueError); a smaller b broadcasts."""
    with pytest.raises(TypeError, match="same_kind"):
        transpile(add_float_into_int)(np.arange(3))
    with pytest.raises(ValueError, match="non-broadcastable output operand"):
        transpile(add_wider_into)(np.zeros(3), np.ones((2, 3)))
    with pytest.raises(TypeError):
        add_float_into_int(np.arange(3))
    with pytest.raises(ValueError):
        add_wider_into(np.zeros(3), np.ones((2, 3)))
    check(add_wider_into, np.zeros((2, 3)), np.ones(3))
    check(add_wider_into, np.zeros((2, 3), np.float32), np.ones((1, 3), np.float16))


# ---- a value written at a position only the kernel knows -----------------------------------------------------
def write_at(cache, rows, start):
    """A KV cache's write: the slice's length depends on `start`, a run-time value, so only the kernel can compare
    it with the value's length."""
    cache[:, start:start + rows.shape[1]] = rows
    return cache[:, :start + rows.shape[1]].sum(axis=1)


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_a_slice_at_a_run_time_position_takes_a_value_of_run_time_length(dtype):
    compiled = transpile(write_at)
    rows = np.arange(2 * 3 * 4).reshape(2, 3, 4).astype(dtype)
    for n, start in [(3, 0), (1, 3), (2, 4), (1, 9), (3, -4), (1, 12)]:   # (1, 12): broadcasts into nothing
        ours, ref = np.zeros((2, 10, 4), dtype), np.zeros((2, 10, 4), dtype)
        expected = write_at(ref, rows[:, :n], np.int64(start))
        result = compiled(ours, rows[:, :n], np.int64(start))
        assert result.dtype == expected.dtype and result.shape == expected.shape
        np.testing.assert_array_equal(result, expected)
        np.testing.assert_array_equal(ours, ref)


@pytest.mark.parametrize("n, start", [(3, 8), (2, 10), (3, -2), (2, 12)])
def test_a_value_longer_than_the_slice_at_a_run_time_position_raises_and_writes_nothing(n, start):
    """NumPy raises ValueError (could not broadcast) before writing; the kernel writes nothing and raises it."""
    cache, rows = np.zeros((2, 10, 4)), np.ones((2, n, 4))
    with pytest.raises(ValueError, match="could not broadcast"):
        write_at(cache.copy(), rows, np.int64(start))
    with pytest.raises(ValueError, match="could not broadcast input array from shape"):
        transpile(write_at)(cache, rows, np.int64(start))
    assert not cache.any()


def write_each_at(a, y, starts):
    for i in range(len(starts)):
        a[starts[i]:starts[i] + len(y)] = y * (i + 1)
    return a


def test_run_time_positions_checked_inside_a_loop():
    y = np.array([1.0, 2.0])
    for starts in ([0, 3, 5], [1, 8], [2, 9, 0]):
        ours, ref = np.zeros(10), np.zeros(10)
        try:
            write_each_at(ref, y, np.array(starts))
        except ValueError:
            with pytest.raises(ValueError, match="could not broadcast"):
                transpile(write_each_at)(ours, y, np.array(starts))
            continue
        np.testing.assert_array_equal(transpile(write_each_at)(ours, y, np.array(starts)), ref)
        np.testing.assert_array_equal(ours, ref)


def write_row_at(p, row, k):
    p[k:k + 1, k:k + row.shape[1]] = row     # the row's 1 broadcasts; its length is compared in the kernel
    return p


@pytest.mark.parametrize("k, n", [(0, 3), (2, 3), (4, 3), (2, 5), (5, 2)])
def test_a_value_that_broadcasts_along_one_axis_and_is_checked_along_another(k, n):
    p, row = np.zeros((5, 7)), np.arange(1.0, n + 1)[None]
    try:
        expected = write_row_at(p.copy(), row, k)
    except ValueError:
        with pytest.raises(ValueError, match="could not broadcast"):
            transpile(write_row_at)(p, row, k)
        assert not p.any()
        return
    np.testing.assert_array_equal(transpile(write_row_at)(p, row, k), expected)


def pad_each_axis(x, k):
    """A compile-time loop: its later iterations' slices start at sizes the earlier ones compute."""
    p = np.zeros((x.shape[0] + k, x.shape[1] + k))
    for axis in range(2):
        p[(slice(None),) * axis + (slice(p.shape[axis] - k, None),)] = axis + 1
    return p


def test_size_checks_of_a_statement_that_writes_in_several_steps():
    for k in (0, 1, 3):
        np.testing.assert_array_equal(transpile(pad_each_axis)(np.ones((4, 3)), k), pad_each_axis(np.ones((4, 3)), k))


def _scatter_into_an_empty_view(a):
    v0 = a[-1:-1:1]
    v0[:, [0]] += -2.0
    return v0


def _scatter_into_an_empty_column_range(a):
    a[[0, -1, -1], 0:-1:1] *= -2.0
    return a


def _mask_write_into_an_empty_view(a):
    v = a[:, 1:1]
    v[v > 0] = 3.0
    return a


@pytest.mark.parametrize("fn", [_scatter_into_an_empty_view, _scatter_into_an_empty_column_range,
                                _mask_write_into_an_empty_view], ids=lambda f: f.__name__)
@pytest.mark.parametrize("shape", [(4, 5), (4, 1), (1, 1)], ids=str)
def test_integer_array_and_mask_writes_into_statically_empty_regions(fn, shape):
    """Writes by integer arrays into a region of static size 0 store nothing, as in NumPy (an internal error: MLIR's
    verifier refused the slice at offset 0 into a size of 0; test_writes_fuzz.py seeds 609763 and 688953)."""
    check(fn, rng().random(shape))
