"""NumPy's view-or-copy decision of a reshape or ravel of a non-contiguous view (issue #13), where sizes and steps are
known while compiling (frontend/memory.static_layout: its flags and its no-copy reshape, transcribed): `a.T.ravel()`
of a (1, n) array is a view, of a (3, 4) array a copy. With run-time sizes writing through it stays refused."""
import numpy as np
import pytest

from transpiler import CompileError, transpile


def _ravel_of_transposed_row(x):
    a = np.zeros((1, 4)) + x
    r = a.T.ravel()
    r[0] = 5.0
    return a, r


def _ravel_of_transposed_matrix(x):
    a = np.zeros((3, 4)) + x
    r = a.T.ravel()
    r[0] = 5.0
    return a, r


def _reshape_of_transposed_matrix(x):
    a = np.zeros((3, 4)) + x
    r = a.T.reshape(-1)
    r[1] = 5.0
    return a, r


def _reshape_of_transposed_column(x):
    a = np.zeros((4, 1)) + x
    r = a.T.reshape(-1)
    r[1] = 5.0
    return a, r


def _reshape_merging_strided_rows(x):
    a = np.zeros((2, 3, 4)) + x
    r = a[:, :, ::2].reshape(6, 2)
    r[1] = 5.0
    return a, r


def _reshape_of_skipped_rows(x):
    a = np.zeros((2, 3, 4)) + x
    r = a[:, ::2].reshape(2, -1)
    r[1] = 5.0
    return a, r


def _ravel_of_a_strided_vector(x):
    a = np.zeros(6) + x
    r, s = a[::2].ravel(), a[::2].reshape(-1)      # NumPy: a copy, a view
    r[0], s[1] = 5.0, 7.0
    return a, r, s


@pytest.mark.parametrize("fn", [_ravel_of_transposed_row, _ravel_of_transposed_matrix, _reshape_of_transposed_matrix,
                                _reshape_of_transposed_column, _reshape_merging_strided_rows,
                                _reshape_of_skipped_rows, _ravel_of_a_strided_vector])
def test_reshape_of_a_non_contiguous_view_with_static_strides(fn):
    expected, got = fn(1.0), transpile(fn)(1.0)
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g, e)
    for i in range(len(got)):
        for j in range(i):
            assert np.shares_memory(got[i], got[j]) == np.shares_memory(expected[i], expected[j])


def test_ravel_of_a_transposed_static_argument():
    """With static shapes, NumPy's decision for a (1, n) argument (a view) and a (3, 4) one (a copy)."""
    def fn(x):
        r = x.T.ravel()
        r[0] = -1.0
        return r

    for shape in [(1, 5), (3, 4), (4, 1)]:
        x, y = np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape), np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape)
        expected, got = fn(x), transpile(fn, static_shapes=True)(y)
        np.testing.assert_array_equal(got, expected)
        np.testing.assert_array_equal(y, x)
        assert np.shares_memory(got, y) == np.shares_memory(expected, x)


def test_ravel_of_a_transposed_argument_of_run_time_shape_is_refused():
    """Whether x.T is contiguous depends on x's run-time shape (a (1, n) array's is): writing through its ravel is
    refused, never a copy where NumPy writes into x."""
    def fn(x):
        r = x.T.ravel()
        r[0] = -1.0
        return r

    with pytest.raises(CompileError, match="may or may not share memory"):
        transpile(fn)(np.ones((1, 5)))


def test_the_flags_and_the_nocopy_reshape_are_numpys():
    """memory.c_contiguous and memory.nocopy_reshape against NumPy on random transposed, stepped, reversed and
    unit-sized views: the same view-or-copy decision, and the same strides where a view (but on unit dims)."""
    from transpiler.frontend.memory import c_contiguous, nocopy_reshape

    rng = np.random.default_rng(0)
    for _ in range(500):
        ndim = int(rng.integers(1, 4))
        a = np.zeros(tuple(int(n) for n in rng.integers(1, 5, ndim)))
        v = a.transpose(rng.permutation(ndim))[tuple(slice(None, None, int(rng.choice([1, 1, 2, -1])))
                                                     for _ in range(ndim))]
        if rng.random() < 0.3:
            v = v[tuple(slice(0, 1) if rng.random() < 0.5 else slice(None) for _ in range(ndim))]
        strides = [s // a.itemsize for s in v.strides]
        assert c_contiguous(v.shape, strides) == v.flags.c_contiguous
        shapes = [(v.size,), (1, v.size), (v.size, 1)] + ([(v.shape[0], v.size // v.shape[0])] if ndim > 1 else [])
        for shape in shapes:
            r = v.reshape(shape)
            new = None if c_contiguous(v.shape, strides) else nocopy_reshape(v.shape, strides, shape)
            assert (c_contiguous(v.shape, strides) or new is not None) == np.shares_memory(r, a)
            if new is not None:
                assert all(n == 1 or s == t * a.itemsize for n, s, t in zip(shape, r.strides, new))


# ---- returned reshapes of arguments whose strides the kernel does not know -----------------------------------------
# NumPy decides view or copy from the caller's strides (_attempt_nocopy_reshape): the call makes the returned value
# with NumPy's own reshape of the caller's array (frontend/memory.Alias.replay), so it is a view exactly where NumPy's
# is. (It was a copy in every case.)
def _split_the_last_axis(x):
    return x.reshape(x.shape[0], 2, -1)


def _every_other_column_split(x):
    return x[:, ::2].reshape(x.shape[0], 2, -1)


def _transposed_and_split(x):
    return x.T.reshape(2, -1, x.shape[0])


def _flattened_columns(x):
    return x[:, 1:].reshape(-1)


def _a_row_of_the_reshape_and_the_argument(x):
    y = x[:, ::2].reshape(x.shape[0], 2, -1)
    return y[1, ::-1], x, y.sum()


def _reshape_after_a_write(x):
    x[0, 0] = -3.0
    return x[::-1].reshape(2, -1, 2)


def _ravels_of_views(x):
    return np.ravel(x[:, 1:]), x[:1].ravel(), x[::2, :1].ravel(), x[::-1].ravel()


RESHAPES = [_ravels_of_views, _split_the_last_axis, _every_other_column_split, _transposed_and_split, _flattened_columns,
            _a_row_of_the_reshape_and_the_argument, _reshape_after_a_write]
LAYOUTS = {
    "contiguous": lambda: np.arange(48.0).reshape(6, 8),
    "column slice": lambda: np.arange(60.0).reshape(6, 10)[:, :8],
    "every other row": lambda: np.arange(96.0).reshape(12, 8)[::2],
    "every other column": lambda: np.arange(96.0).reshape(6, 16)[:, ::2],
    "fortran": lambda: np.asfortranarray(np.arange(48.0).reshape(6, 8)),
    "reversed": lambda: np.arange(48.0).reshape(6, 8)[::-1, ::-1],
}


def _arrays(value) -> list:
    return [v for v in (value if isinstance(value, tuple) else (value,)) if isinstance(v, np.ndarray)]


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("fn", RESHAPES, ids=lambda f: f.__name__.strip("_"))
def test_a_returned_reshape_of_an_argument_is_a_view_where_numpys_is(fn, layout):
    ours_x, numpys_x = LAYOUTS[layout](), LAYOUTS[layout]()
    ours, numpys = transpile(fn)(ours_x), fn(numpys_x)
    for a, b in zip(ours if isinstance(ours, tuple) else (ours,), numpys if isinstance(numpys, tuple) else (numpys,)):
        np.testing.assert_array_equal(a, b, strict=True)
    np.testing.assert_array_equal(ours_x, numpys_x, strict=True)
    for a, b in zip(_arrays(ours), _arrays(numpys)):
        assert np.shares_memory(a, ours_x) == np.shares_memory(b, numpys_x)
    # a write through the argument afterwards is seen through the results exactly where NumPy's see it
    ours_x[...] = -1.0
    numpys_x[...] = -1.0
    for a, b in zip(_arrays(ours), _arrays(numpys)):
        np.testing.assert_array_equal(a, b, strict=True)


def _reshape_then_write(x):
    y = x[:, ::2].reshape(x.shape[0], 2, -1)
    x[0, 0] = 7.0
    return y


def test_a_reshape_read_after_a_write_into_its_argument_is_refused():
    """Whether NumPy's reshape saw the write depends on the caller's strides: still a CompileError."""
    with pytest.raises(CompileError, match="may share memory with an array that was written"):
        transpile(_reshape_then_write)(np.arange(48.0).reshape(6, 8))
