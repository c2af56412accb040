"""np.broadcast_to is NumPy's read-only view of its argument (stride 0 along broadcast dims): read, written through
(NumPy's ValueError), seen after a write into the argument, returned as a view of the caller's array. Also
np.broadcast_shapes. Both were refused."""
import numpy as np
import pytest

from helpers import assert_same, check
from transpiler import transpile


def add_broadcast(x, y):
    return np.broadcast_to(x, y.shape) + y


def leading_copies(x):
    return np.broadcast_to(x, (3,) + x.shape)


def columns(x, n):
    v = np.broadcast_to(x[:, None], (x.shape[0], n))
    return v.sum(axis=1), v


def seen_after_a_write(x):
    v = np.broadcast_to(x, (2,) + x.shape)
    x[0] = 42.0
    return v * 1


def shapes_of(x, y):
    return np.broadcast_shapes(x.shape, y.shape, (1, 1)), np.broadcast_shapes((2, 1), 3)


@pytest.mark.parametrize("x, y", [(np.arange(3.0), np.ones((2, 3))), (np.arange(1.0), np.ones((2, 3))),
                                  (np.arange(3, dtype=np.int8), np.ones((4, 1, 3), np.float32)),
                                  (np.zeros((0,)), np.ones((2, 0)))], ids=["row", "one", "int8", "empty"])
def test_broadcast_to_values(x, y):
    check(add_broadcast, x, y)


def test_a_returned_broadcast_is_numpys_read_only_view_of_the_argument():
    x = np.arange(4.0)
    for fn, args in ((leading_copies, (x,)), (columns, (x, 5))):
        got, expected = transpile(fn)(*args), fn(*args)
        assert_same(got, expected)
        view, want = (got, expected) if fn is leading_copies else (got[1], expected[1])
        assert view.strides == want.strides and not view.flags.writeable
        assert np.shares_memory(view, x)


def test_a_write_into_the_argument_is_seen_through_it():
    check(seen_after_a_write, np.arange(3.0))


def test_writing_through_it_is_numpys_value_error():
    def write(x):
        v = np.broadcast_to(x, (2, 3))
        v[0, 0] = 1
        return v
    with pytest.raises(ValueError, match="read-only"):
        write(np.arange(3.0))
    with pytest.raises(ValueError, match="read-only"):
        transpile(write)(np.arange(3.0))


def test_shapes_that_do_not_broadcast_are_numpys_value_error():
    f = transpile(add_broadcast)
    with pytest.raises(ValueError, match="could not be broadcast"):
        f(np.arange(4.0), np.ones((2, 3)))
    with pytest.raises(ValueError, match="non-negative"):
        transpile(columns)(np.arange(3.0), -1)
    with pytest.raises(ValueError, match="more dimensions"):
        transpile(lambda x: np.broadcast_to(x, (3,)))(np.ones((2, 3)))


@pytest.mark.parametrize("x, y", [(np.ones((4, 1)), np.ones(5)), (np.ones((1, 1)), np.ones((3, 2)))])
def test_broadcast_shapes(x, y):
    check(shapes_of, x, y)
    with pytest.raises(ValueError):
        transpile(shapes_of)(np.ones((4, 2)), np.ones(5))
