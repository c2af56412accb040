"""What a compiled function returns, against what NumPy returns: the argument itself, a view of it, or a new array
(issue #20 item 6). For each function: the same object where NumPy returns the argument, memory shared with the
argument exactly where NumPy's result shares it, and, for a view, a write through the result seen in the argument
(and the other way round), on contiguous, strided, reversed, misaligned and read-only arguments."""
import numpy as np
import pytest

from transpiler import CompileError, transpile

FUNCTIONS = {
    # the argument itself
    "asarray": lambda x: np.asarray(x),
    "identity": lambda x: x,
    # views
    "transpose": lambda x: x.T,
    "np.transpose": lambda x: np.transpose(x),
    "slice": lambda x: x[1:],
    "step": lambda x: x[::2],
    "reversed": lambda x: x[::-1],
    "ellipsis": lambda x: x[...],
    "full slice": lambda x: x[:],
    "new axis": lambda x: x[None],
    "expand_dims": lambda x: np.expand_dims(x, 0),
    "row": lambda x: x[0],
    "flip": lambda x: np.flip(x, 0),
    "swapaxes": lambda x: np.swapaxes(x, 0, 1),
    # views of a C-contiguous argument, copies of the others (NumPy decides from strides; contiguity is in the key)
    "reshape": lambda x: x.reshape(-1),
    "reshape rows": lambda x: x.reshape(3, 16),
    "ravel": lambda x: x.ravel(),
    "np.ravel": lambda x: np.ravel(x),
    "slice of a reshape": lambda x: x.reshape(-1)[2:],
    # new arrays
    "copy": lambda x: x.copy(),
    "np.copy": lambda x: np.copy(x),
    "np.array": lambda x: np.array(x),
    "astype": lambda x: x.astype(np.float64),
    "concatenate": lambda x: np.concatenate([x]),
    "hstack": lambda x: np.hstack([x]),
    "vstack": lambda x: np.vstack([x]),
    "arithmetic": lambda x: x + 0,
    "negative": lambda x: -x,
    "where": lambda x: np.where(x > 0, x, 0.0),
    "sum": lambda x: x.sum(axis=0),
}


def argument(layout: str) -> np.ndarray:
    base = np.arange(1.0, 1.0 + 6 * 8).reshape(6, 8)
    if layout == "contiguous":
        return base
    if layout == "strided":
        return np.arange(1.0, 1.0 + 12 * 16).reshape(12, 16)[::2, ::2]
    if layout == "reversed":
        return base[::-1]
    if layout == "misaligned":
        raw = np.zeros(base.nbytes + 1, np.uint8)
        x = np.frombuffer(raw.data, dtype=np.float64, count=base.size, offset=1).reshape(base.shape)
        x[...] = base
        return x
    raise AssertionError(layout)


@pytest.mark.parametrize("layout", ["contiguous", "strided", "reversed", "misaligned"])
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_the_result_aliases_the_argument_exactly_as_numpys(name, layout):
    fn = FUNCTIONS[name]
    x, y = argument(layout), argument(layout)
    expected, got = fn(x), transpile(fn)(y)
    assert type(got) is type(expected)
    np.testing.assert_array_equal(got, expected)
    assert (got is y) == (expected is x), "the argument itself"
    shares = np.shares_memory(expected, x)
    assert np.shares_memory(got, y) == shares, "memory shared with the argument"
    if shares and isinstance(expected, np.ndarray) and expected.size:
        first = (0,) * expected.ndim
        expected[first] = -7.0          # a write through the result is seen in the argument
        got[first] = -7.0
        np.testing.assert_array_equal(y, x)
        x.flat[-1] = 99.0               # and the other way round
        y.flat[-1] = 99.0
        np.testing.assert_array_equal(got, expected)


def test_a_read_only_argument_returned_as_a_view_stays_read_only():
    x = argument("contiguous")
    x.flags.writeable = False
    got = transpile(lambda x: x[1:])(x)
    assert np.shares_memory(got, x) and not got.flags.writeable


def test_the_same_array_passed_twice():
    """One object for two parameters: returned as itself (for either name) and written through both, as NumPy."""
    def f(a, b):
        a[0] = 5.0
        return b, a[1:] + b[:-1]

    x, y = np.arange(4.0), np.arange(4.0)
    (same, expected), (got_same, got) = f(x, x), transpile(f)(y, y)
    assert got_same is y and same is x
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(y, x)
    assert not np.shares_memory(got, y)


def test_results_that_view_one_another_share_memory():
    """Found by the writes fuzzer: `return r, r[None]` came back as two separate arrays (NumPy's share memory)."""
    def f(b):
        r = b + 0.0
        v = r[None]
        r[r > 0.5] = 0.0
        return r, v, r.T[::-1], r * 2

    b = np.array([0.2, 0.7, 1.5])
    expected, got = f(b.copy()), transpile(f)(b.copy())
    for x, y in zip(got, expected):
        np.testing.assert_array_equal(x, y)
    for i in range(1, 4):
        assert np.shares_memory(got[0], got[i]) == np.shares_memory(expected[0], expected[i])
    got[0][0] = 9.0
    expected[0][0] = 9.0
    np.testing.assert_array_equal(got[1], expected[1])
    np.testing.assert_array_equal(got[2], expected[2])


def test_views_of_a_scalar_argument_are_new_arrays():
    """Regression (found by the fuzzer, from the first version of the result views): two views of a NumPy scalar
    argument were built from the wrong kernel result. NumPy makes a new array from the scalar in each call."""
    def prog(x0):
        t0 = np.exp(x0 * 0.0)
        t1 = np.expand_dims(x0, 0)
        t3 = x0.reshape(-1)
        return t0, t1, t3

    x0 = np.int64(29389305)
    got, expected = transpile(prog)(x0), prog(x0)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g, e)
    assert not np.shares_memory(got[1], got[2])


def test_views_of_a_list_arguments_array():
    """A list argument's array (np.asarray of it) is the kernel's input, not an array the function made: two views
    of it come back as they did before result views (an internal error in their first version)."""
    def f(xs):
        a = np.asarray(xs)
        return a[None], a[1:]

    got, expected = transpile(f)([1.0, 2.0, 3.0]), f([1.0, 2.0, 3.0])
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)


IDENTITY_VIEWS = {
    "1-d .T": lambda x: x.T,
    "1-d np.transpose": lambda x: np.transpose(x),
    "swapaxes(0, 0)": lambda x: np.swapaxes(x, 0, 0),
    "1-d reshape(-1)": lambda x: x.reshape(-1),
    "x[...]": lambda x: x[...],
}


@pytest.mark.parametrize("name", list(IDENTITY_VIEWS))
def test_an_identity_view_is_a_new_object(name):
    """A view op that changes no dim returned the argument object itself (shape_ops returned its operand); NumPy
    returns a new view of it (shape_ops.same_view)."""
    fn = IDENTITY_VIEWS[name]
    x, y = np.arange(4.0), np.arange(4.0)
    expected, got = fn(x), transpile(fn)(y)
    assert expected is not x and np.shares_memory(expected, x)
    np.testing.assert_array_equal(got, expected)
    assert np.shares_memory(got, y)
    assert got is not y


def _views_of_a_zero_d_array(b):
    v1 = b[-3]           # a scalar (a copy)
    v2 = v1[...]         # a 0-d array made from it
    v3 = v2[...]         # a new view of that 0-d array
    return v1, v2, v3


def _written_through_a_zero_d_view(b):
    v2 = b[-3][...]
    v3 = v2[...]
    v3[...] = 5.0
    return v2, v3


@pytest.mark.parametrize("fn", [_views_of_a_zero_d_array, _written_through_a_zero_d_view], ids=lambda f: f.__name__)
def test_an_identity_view_of_a_zero_d_array_is_a_new_object(fn):
    """`v[...]` of a 0-d array is a new view of it (returned, another object sharing its memory); it was the array
    itself (test_writes_fuzz.py joined seed 110866)."""
    x, y = np.arange(5.0), np.arange(5.0)
    expected, got = fn(x), transpile(fn)(y)
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g, e)
        assert type(g) is type(e)
    assert (got[-1] is got[-2]) == (expected[-1] is expected[-2]) is False
    assert np.shares_memory(got[-1], got[-2]) and np.shares_memory(expected[-1], expected[-2])
    np.testing.assert_array_equal(y, x)


def test_squeeze_with_nothing_to_squeeze_is_the_array_itself():
    """Unlike the identity views above, NumPy's squeeze returns its argument itself when no axis has size 1."""
    def fn(x):
        return np.squeeze(x), x.squeeze()

    x, y = np.arange(4.0), np.arange(4.0)
    assert all(r is x for r in fn(x))
    assert all(r is y for r in transpile(fn)(y))


def test_a_2d_identity_view_is_a_new_object():
    """x.T.T of a 2-d x goes through two real transposes: a new view, as in NumPy."""
    def fn(x):
        return x.T.T

    x = np.arange(6.0).reshape(2, 3)
    got = transpile(fn)(x)
    assert got is not x and np.shares_memory(got, x)


# views at positions only the kernel knows: the kernel returns the positions, the call makes the same view of the
# caller's array (they were returned as copies)
RUN_TIME_VIEWS = {
    "start from data": lambda x, s, i: x[s[0]:],
    "bounds and step from data": lambda x, s, i: x[s[1]:s[0]:s[2]],
    "negative step from data": lambda x, s, i: x[::-s[2]],
    "row at a NumPy-scalar index": lambda x, s, i: x[i],
    "row slice": lambda x, s, i: x[i, 1:],
    "columns at a run-time step": lambda x, s, i: x[:, ::i],
    "view of a view": lambda x, s, i: x[s[0]:][i:].T,
    "reshape of a run-time slice": lambda x, s, i: x[s[0]:].reshape(-1),
}


@pytest.mark.parametrize("layout", ["contiguous", "strided", "reversed"])
@pytest.mark.parametrize("s, i", [((2, 1, 2), 1), ((-3, 0, 1), -1), ((9, 7, 3), 2)], ids=str)
@pytest.mark.parametrize("name", list(RUN_TIME_VIEWS))
def test_a_view_at_run_time_positions_is_a_view_of_the_callers_array(name, layout, s, i):
    fn = RUN_TIME_VIEWS[name]
    x, y = argument(layout), argument(layout)
    s, i = np.array(s), np.int64(i)
    expected, got = fn(x, s, i), transpile(fn)(y, s, i)
    np.testing.assert_array_equal(got, expected)
    assert np.shares_memory(got, y) == np.shares_memory(expected, x)
    if expected.size and np.shares_memory(expected, x):
        expected.flat[0] = -7.0
        got.flat[0] = -7.0
        np.testing.assert_array_equal(y, x)


def test_a_view_made_in_a_run_time_loop_is_a_view():
    """Its position is carried by the loop and returned by the kernel (it was returned as a copy)."""
    def f(x, n):
        v = x[0]
        for j in range(n):
            v = x[j]
        return v

    x = np.arange(10.0).reshape(5, 2)
    got = transpile(f)(x, np.int64(3))
    np.testing.assert_array_equal(got, f(x, 3))
    assert np.shares_memory(got, x)
    got[1] = -1.0
    assert x[2, 1] == -1.0


def test_results_that_view_one_another_at_run_time_positions_share_memory():
    def f(x, s):
        r = x * 2
        return r, r[s[0]:], r[::s[1]][1:]

    x, s = np.arange(6.0), np.array([2, -2])
    expected, got = f(x, s), transpile(f)(x, s)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)
    assert np.shares_memory(got[0], got[1]) and np.shares_memory(got[0], got[2])
    got[0][-1] = -1.0
    assert got[1][-1] == -1.0 and got[2][0] == got[0][-3]


def _view_made_on_both_paths(c, write):
    if c[0] > 0:
        a = np.zeros(3)
        v = a[1:]
    else:
        a = np.ones(3)
        v = a[1:]
    if write:
        a[1] = 5
        return v
    return v.sum() + a.sum()


def _same_object_on_both_paths(c):
    if c[0] > 0:
        a = np.zeros(3)
        b = a
    else:
        a = np.ones(3)
        b = a
    a[1] = 5
    return b, a


def test_arrays_and_views_made_on_both_paths_of_a_run_time_if():
    """A view and its base made on each path were joined as two separate arrays: a write through the base was not
    seen through the view (a silent wrong answer). Now the same object stays one object, and a view is refused
    where a write could change it; reading them without writes is as before."""
    for c in (np.array([1.0]), np.array([-1.0])):
        with pytest.raises(CompileError, match="shares memory with 'a'"):
            transpile(_view_made_on_both_paths)(c, True)
        b, a = transpile(_same_object_on_both_paths)(c)
        assert b is a and a[1] == 5
        assert transpile(_view_made_on_both_paths)(c, False) == _view_made_on_both_paths(c, False)


def _iterate_from_the_argument(x, n):
    y = x
    for _ in range(n):
        y = y * 0.5 + 1
    return y


def _halve_in_place(x, n):
    y = x
    for _ in range(n):
        y *= 0.5
    return y


@pytest.mark.parametrize("n", [0, 2])
def test_an_array_a_loop_carries_from_an_argument(n):
    """semantics.md: updated in place, the loop's array is the argument itself, as in NumPy; rebound to new arrays,
    a loop that runs zero times returns the argument itself, as NumPy does (it returned a copy)."""
    x, y = np.arange(3.0), np.arange(3.0)
    assert transpile(_halve_in_place)(y, n) is y and _halve_in_place(x, n) is x
    np.testing.assert_array_equal(y, x)
    got, expected = transpile(_iterate_from_the_argument)(y, n), _iterate_from_the_argument(x, n)
    np.testing.assert_array_equal(got, expected)
    assert (got is y) == (expected is x) == (n == 0)
    assert np.shares_memory(got, y) == np.shares_memory(expected, x)


def _written_through_a_view_of_a_scalar(b):
    s = b[1] * 2.0          # a NumPy scalar
    s += 3.0
    v = s[None]             # a new array made from the scalar, not a view of it
    v[[-1, 0]] += -2.0
    r = np.float64(4.0).real
    return s, v, r


def test_a_view_of_a_numpy_scalar_is_a_new_array():
    """`s[None]` of a NumPy scalar is a view of a new array NumPy makes from it: a write through it left `s`
    a 0-d array with the written value (fuzz joined seed 12763795)."""
    b = np.arange(6.0)
    got, expected = transpile(_written_through_a_view_of_a_scalar)(b.copy()), _written_through_a_view_of_a_scalar(b)
    for g, e in zip(got, expected):
        assert type(g) is type(e)
        np.testing.assert_array_equal(g, e, strict=True)
