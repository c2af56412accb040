"""Views whose position is a run-time value (issue #13): a name that is one view of an array on one path of a run-time
`if` and another view of it on the other (`v = a[1:] if k > 0 else a[:-1]`, `v = a.T` or `v = a`), or that a run-time
loop moves (`v = v[1:]` in its body), is a view of that array in NumPy: returned, it shares the caller's memory; a
write through it changes the array. The kernel carries its position (frontend/memory.view_params, codegen/strided.py)
and the call makes the same view of the caller's array."""
import numpy as np
import pytest

from helpers import argument_in_layout
from transpiler import CompileError, transpile


def argument(layout: str) -> np.ndarray:
    return argument_in_layout(layout, 6, 8)


def _if_statement(x, k):
    if k > 0:
        v = x.T
    else:
        v = x[::-1, 2:]
    return v


def _return_in_branches(x, k):
    if k > 0:
        return x[2:]
    return x[:, 3:]


def _moved_in_a_loop(x, k):
    v = x
    for _ in range(k):
        v = v[1:, ::-1]
    return v


def _row_chosen_in_a_loop(x, k):
    v = x[0]
    for j in range(k):
        v = x[j + 1]
    return v


def _transposed_in_a_while(x, k):
    v = x
    i = 0
    while i < k:
        v = v.T[1:]
        i += 1
    return v


def _moved_in_a_branch_in_a_loop(x, k):
    v = x[:, 1:]
    for i in range(3):
        if i < k:
            v = v[1:, :-1]
    return v


JOINED = {
    "slices": lambda x, k: x[1:] if k > 0 else x[:-1],
    "steps": lambda x, k: x[::2, 1:] if k > 0 else x[1::3, ::-1],
    "rows": lambda x, k: x[1] if k > 0 else x[:, -2],
    "new axis": lambda x, k: x[None, 1] if k > 0 else x[2:3],
    "empty": lambda x, k: x[6:] if k > 0 else x[:0],
    "a static size and another": lambda x, k: x[None, 1] if k > 0 else x[2:5],
    "view of a joined view": lambda x, k: (x[1:] if k > 0 else x[:, ::-1])[1:, 2],
    "if statement": _if_statement,
    "return in branches": _return_in_branches,
    "moved in a loop": _moved_in_a_loop,
    "row chosen in a loop": _row_chosen_in_a_loop,
    "transposed in a while": _transposed_in_a_while,
    "moved in a branch in a loop": _moved_in_a_branch_in_a_loop,
}


# (the run-time ints are NumPy scalars: a Python int whose program fails to compile as a run-time value is
# specialized by value, which would make the branches compile-time ones)
def _check_view(expected, got, x, y):
    np.testing.assert_array_equal(got, expected)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    assert np.shares_memory(got, y) == np.shares_memory(expected, x)
    if expected.size:        # a write through the result reaches the argument, as in NumPy
        expected[...] = -7.0
        got[...] = -7.0
        np.testing.assert_array_equal(y, x)
        y[...] = np.arange(y.size).reshape(y.shape)     # and the other way round
        x[...] = np.arange(x.size).reshape(x.shape)
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("name", list(JOINED))
def test_a_joined_view_is_a_view_of_the_callers_array(name):
    fn = JOINED[name]
    compiled = transpile(fn)
    for k in (0, 1, 2):
        x, y = argument("contiguous"), argument("contiguous")
        _check_view(fn(x, k), compiled(y, np.int64(k)), x, y)


@pytest.mark.parametrize("layout", ["strided", "fortran", "reversed"])
@pytest.mark.parametrize("name", ["steps", "if statement", "moved in a loop", "rows"])
def test_a_joined_view_of_a_non_contiguous_argument(name, layout):
    fn = JOINED[name]
    compiled = transpile(fn)
    for k in (0, 2):
        x, y = argument(layout), argument(layout)
        _check_view(fn(x, k), compiled(y, np.int64(k)), x, y)


def _write_through_joined(x, k):
    v = x[1:] if k > 0 else x[::-2, 1:]
    v[0] = -1.0
    v[1:] += 10.0
    v[-1, ::2] = x[0, :v.shape[1]:2] * 3      # reads the argument as written so far
    return x.sum(), v.sum()


def _write_through_if_statement(x, k):
    if k > 0:
        v = x.T
    else:
        v = x
    v[0] = 5.0
    v *= 2.0
    return v[1].copy()


def _writes_while_moving(x, k):
    v = x
    for i in range(k):
        v[0, 0] = i
        x[-1] += 1.0           # the array written beside the view: the view sees it
        v = v[1:, 1:]
    v[...] = v * 10.0
    return v.sum()


@pytest.mark.parametrize("fn", [_write_through_joined, _write_through_if_statement, _writes_while_moving])
@pytest.mark.parametrize("layout", ["contiguous", "strided"])
def test_writes_through_a_joined_view_reach_the_argument(fn, layout):
    compiled = transpile(fn)
    for k in (0, 1, 3):
        x, y = argument(layout), argument(layout)
        expected, got = fn(x, k), compiled(y, np.int64(k))
        np.testing.assert_array_equal(np.asarray(got), np.asarray(expected))
        np.testing.assert_array_equal(y, x)


def _views_of_a_local(k):
    U = np.zeros((4, 5))
    v = U[1:, ::2] if k > 0 else U.T[:3]
    v += 1.0
    v[0, -1] = 9.0
    return U, v


def _view_of_a_local_moved_in_a_loop(n):
    U = np.zeros((n + 2, n + 3), np.float32)    # (a static shape would be refused: 'v' changes shape in the loop)
    v = U
    for _ in range(n):
        v = v[1:, 1:]
        v[0] += 1.0
    return U, v, v.T


@pytest.mark.parametrize("fn", [_views_of_a_local, _view_of_a_local_moved_in_a_loop])
def test_joined_views_of_a_local_array(fn):
    compiled = transpile(fn)
    for k in (0, 1, 3):
        expected, got = fn(k), compiled(np.int64(k))
        for e, g in zip(expected, got):
            np.testing.assert_array_equal(g, e)
            assert g.dtype == e.dtype
        for i in range(len(got)):
            for j in range(i):
                assert np.shares_memory(got[i], got[j]) == np.shares_memory(expected[i], expected[j])
        got[1][...] = 3.0
        expected[1][...] = 3.0
        np.testing.assert_array_equal(got[0], expected[0])


def test_joined_views_that_cannot_be_followed_are_refused():
    """A reshape of a non-contiguous view (NumPy decides view or copy from strides) on one path, or the real part
    on one path and the imaginary part on the other: a write through the joined value stays a clear CompileError,
    never a copy written in silence."""
    def reshaped(x, k):
        v = x[:, ::2].reshape(-1) if k > 0 else x[0]
        v[0] = 1.0
        return v

    def parts(z, k):
        v = z.real if k > 0 else z.imag
        v[0] = 1.0
        return z

    with pytest.raises(CompileError, match="may or may not share memory"):
        transpile(reshaped)(argument("contiguous"), np.int64(1))
    with pytest.raises(CompileError, match="may or may not share memory"):
        transpile(parts)(np.zeros(3, np.complex128), np.int64(1))


def _element_writes(x, k, i):
    v = x[1:] if k > 0 else x[::-1, 2:]
    v[i, -1] = -1.0          # an index only the kernel knows: IndexError and nothing written when out of range
    v[1:3, i] = 9.0
    for j in range(v.shape[1]):
        v[0, j] += j
    return x.sum()


def test_element_writes_through_a_joined_view():
    compiled = transpile(_element_writes)
    for k in (0, 1):
        for i in (0, 2, -1, -5, 5, 6, -7):
            x, y = argument("contiguous"), argument("contiguous")
            try:
                expected = _element_writes(x, k, i)
            except IndexError:
                with pytest.raises(IndexError):
                    compiled(y, np.int64(k), np.int64(i))
            else:
                assert compiled(y, np.int64(k), np.int64(i)) == expected
            np.testing.assert_array_equal(y, x)


def test_one_element_written_through_a_joined_view_is_one_store():
    """`v[i] = s` stores the element at its position in the array (update_strided of a 0-d value), not the whole
    view again."""
    from transpiler import emit

    def fn(x, k, i):
        v = x[1:] if k > 0 else x[::-1]
        v[i] = 5.0
        return x

    typed = emit(fn, np.zeros(6), np.int64(1), np.int64(2), stage="typed")
    stores = [line for line in typed.splitlines() if "= update_strided" in line]
    assert len(stores) == 1 and "%" in stores[0]
    value = stores[0].split("update_strided")[1].split(",")[1].strip()
    assert f"{value}:float64[] =" in typed, typed


# views of a reshape or of a complex part: positions over the axes of what the reshape or part makes
def _rows_of_a_reshape_in_a_loop(x, k):
    v = x.reshape(3, -1)
    for j in range(k):
        v = v[::-1, ::-1]
        v[0, j] = -1.0
    return v


def _reshape_row_returned_from_a_loop(x, t):
    m = x.reshape(3, -1)
    for j in range(3):
        if m[j, 0] > t:
            return m[j]
    return m[0, ::-1]


def _reshape_views_joined(x, k):
    m = x.reshape(3, -1)
    v = m[1:, ::2] if k > 0 else m.T[::-1]
    v[0] += 100
    return v


def _real_part_moved_in_a_loop(z, k):
    v = z.real
    for _ in range(k):
        v = v[1:]
        v[0] = -1.0
    return v


def _imaginary_parts_joined(z, k):
    v = z.imag[1:] if k > 0 else z.imag[::-1]
    v[0] = 42.0
    v += 1.0
    return v


def _imaginary_row_returned_from_a_loop(z, t):
    for j in range(z.shape[0]):
        if z[j, 0].real > t:
            return z.imag[j]
    return z.imag[0]


@pytest.mark.parametrize("fn", [_rows_of_a_reshape_in_a_loop, _reshape_row_returned_from_a_loop,
                                _reshape_views_joined], ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_joined_views_of_a_reshape(fn, dtype):
    _check_calls(fn, lambda: np.arange(12, dtype=dtype), (0, 1, 2, 3, 5, 100))


def _check_calls(fn, make, ks):
    """fn(array, k) for each k, compiled and in NumPy, on two equal arrays `make()` gives: the same error, or the
    same result as a view of the same part of the argument, and the argument unchanged."""
    compiled = transpile(fn)
    for k in ks:
        x, y = make(), make()
        try:
            expected = fn(x, k)
        except IndexError:          # (NumPy's error, and nothing written after it)
            with pytest.raises(IndexError):
                compiled(y, np.int64(k))
            np.testing.assert_array_equal(y, x)
            continue
        got = compiled(y, np.int64(k))
        np.testing.assert_array_equal(y, x)
        assert got.dtype == expected.dtype
        _check_view(expected, got, x, y)


@pytest.mark.parametrize("fn, shape", [(_real_part_moved_in_a_loop, (6,)), (_imaginary_parts_joined, (6,)),
                                       (_imaginary_row_returned_from_a_loop, (3, 4))],
                         ids=lambda f: f.__name__ if callable(f) else str(f))   # (stable ids: pytest-xdist)
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_joined_views_of_a_complex_part(fn, shape, dtype):
    _check_calls(fn, lambda: (np.arange(np.prod(shape)) * (1 + 2j)).astype(dtype).reshape(shape), (0, 1, 2, 3, 9))


def _update_by_own_full_view(a, b):
    v0 = b[0:-2:1] if (a * 0.0).sum() == 0.0 else np.flip(b, 0)
    a *= 0.5
    v0 *= v0[...] * 0.25
    return v0, b + 0.0


@pytest.mark.parametrize("zero", [True, False])
def test_a_joined_view_updated_by_its_own_full_view(zero):
    """`v0[...]` of a view chosen at run time has the view's size: a CompileError said the sizes
    `same(j, max(j, 0))` and `j` could not be checked equal (a size read off an array was not known to be
    non-negative; test_writes_fuzz.py joined seed 530574)."""
    data = np.random.default_rng(7)
    a, b = data.standard_normal((4, 5)), data.standard_normal(5)
    if not zero:
        a[0, 0] = np.inf      # (a * 0.0).sum() is nan: the other view
    want_a, want_b, got_a, got_b = a.copy(), b.copy(), a.copy(), b.copy()
    expected, actual = _update_by_own_full_view(want_a, want_b), transpile(_update_by_own_full_view)(got_a, got_b)
    for x, y in zip(actual, expected):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(got_a, want_a)
    np.testing.assert_array_equal(got_b, want_b)
    assert np.shares_memory(actual[0], got_b)
