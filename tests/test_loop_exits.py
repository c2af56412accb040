"""`break`, `continue` and `return` in loops whose trip count or exit depends on run-time values: they become flags
(frontend/loop_exits.py), checked against NumPy."""
import numpy as np
import pytest

from helpers import check
from transpiler import CompileError, transpile


def find(x, t):
    for i in range(x.shape[0]):
        if x[i] > t:
            return i
    return -1


def first_value(x, t):
    for i in range(x.shape[0]):
        if x[i] > t:
            return x[i] * 2
    return x[0] * 0


def row_search(A, t):
    for i in range(A.shape[0]):
        if A[i].sum() > t:
            return A[i]
    return A[0] * 0


def unrolled_return(x):
    for k in range(3):
        if x[k] > 2:
            return k
    return 10


def while_return(x, tol):
    d = x.copy()
    n = 0
    while n < 100:
        d *= 0.5
        n += 1
        if np.max(np.abs(d)) < tol:
            return n
    return -1


def returns_a_tuple(x):
    for i in range(x.shape[0]):
        if x[i] > 2:
            return x[i], i
    return x[0], -1


X = np.array([1.0, 5.0, 3.0, 9.0])


@pytest.mark.parametrize("t", [0.0, 4.0, 6.0, 100.0])
def test_return_inside_a_run_time_loop(t):
    check(find, X, t)
    check(first_value, X, t)
    check(row_search, X.reshape(2, 2), t * 2)
    check(unrolled_return, X - t / 2)
    check(while_return, X, t / 10 + 1e-3)


def test_return_of_several_values_inside_a_run_time_loop_is_refused_clearly():
    with pytest.raises(CompileError, match="return one array or number"):
        transpile(returns_a_tuple)(X)


def powers_of_two(x):
    for i in range(70):
        x[i % 4] += 2 ** i          # past 2**63: Python's ints, not int64
    return x


def test_a_loop_whose_variable_grows_fast_keeps_pythons_ints():
    check(powers_of_two, np.zeros(4))


def shifted(k):
    return 1 << k


def powers_through_a_helper(x):
    for i in range(70):
        x[i % 4] += shifted(i)
    return x


def test_a_loop_whose_variable_grows_fast_through_a_helper_keeps_pythons_ints():
    check(powers_through_a_helper, np.zeros(4))
