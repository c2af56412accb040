"""`==`, `!=`, `in` and `not in` of tuples and lists that hold run-time values (a shape with a run-time dim, a
run-time int among constants): Python compares them item by item with `==`, so the answer is known only when the
kernel runs. Before, Python's own comparison ran while compiling and compared the compiler's placeholders by
identity: `x.shape == (n,)` was False whatever n (a silent wrong answer, found through np.delete's mask check)."""
import numpy as np
import pytest

from helpers import check
from transpiler import CompileError, transpile


def shape_equals(x, n):
    return x.shape == (n,), x.shape != (n,), (x.shape[0],) == (n,), [n, 1] == [x.shape[0], 1], (n,) == [n]


def mask_or_default(x, m):
    if m.shape != (x.shape[0],):
        return x * 0.0
    return x * 2.0


def membership(x, k):
    return k in (2, 5, x.shape[0]), k not in [0, 1], (k, 1) in [(2, 1), (3, 1)], k in (k,), x.shape in [(4,), (k,)]


def shapes_of_two(x, y):
    same = x.shape == y.shape
    return same, x.shape[:1] == y.shape[:1], x.shape == x.shape


def nan_items(x):
    a = x[0]
    return (a,) == (a,), (x[0],) == (x[0],), [x[1]] == [x[1]]    # the same object is equal without asking


@pytest.mark.parametrize("size, n", [(5, 5), (5, 4), (0, 0), (1, 0)])
def test_a_shape_compared_with_a_run_time_tuple(size, n):
    check(shape_equals, np.arange(float(size)), n)


@pytest.mark.parametrize("mask_size", [7, 6])
def test_a_run_time_shape_check_takes_the_right_branch(mask_size):
    check(mask_or_default, np.arange(7.0), np.arange(mask_size) % 2 == 0)


@pytest.mark.parametrize("size, k", [(4, 2), (4, 3), (4, 4), (3, 0), (6, 1)])
def test_membership_of_run_time_ints(size, k):
    check(membership, np.arange(float(size)), k)


@pytest.mark.parametrize("rows", [3, 4])
def test_shapes_of_two_arguments(rows):
    check(shapes_of_two, np.ones((rows, 2)), np.ones((3, 2)))


def test_nan_items_compare_as_python_compares_them():
    check(nan_items, np.array([np.nan, np.nan]))


def test_ordering_of_containers_with_run_time_items_is_refused():
    with pytest.raises(CompileError, match="ordering comparisons"):
        transpile(lambda x, n: x.shape < (n,))(np.arange(3.0), 2)


def test_containers_holding_arrays_are_refused_not_compared_by_identity():
    with pytest.raises(CompileError, match="hold run-time arrays"):
        transpile(lambda x, y: (x, 1) == (y, 1))(np.arange(3.0), np.arange(3.0))
