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


def test_return_of_a_tuple_inside_a_run_time_loop():
    check(returns_a_tuple, X)                              # found: x[i] and i, both run time
    got = transpile(returns_a_tuple)(X - 10)               # not found: (x[0], -1)
    assert got == returns_a_tuple(X - 10) and type(got[1]) is int


def pair(x):
    return x[0], 0


def returns_tuples_of_two_shapes(x):
    for i in range(x.shape[0]):
        if x[i] > 2:
            return x[i], i
        if x[i] < -2:
            return pair(x)
    return x[0], -1


def test_a_loop_whose_returns_differ_in_shape_is_refused_clearly():
    with pytest.raises(CompileError, match="tuple or list display"):
        transpile(returns_tuples_of_two_shapes)(X)


# ---- returns at any depth: loops in loops, loops in run-time branches, branches in branches ----------------------
def pair_sum(x):
    for i in range(len(x)):
        for j in range(len(x)):
            if x[i] + x[j] > 3:
                return x[i] * x[j]
    return x[0] * 0


def pair_sum_weak(x):
    for i in range(len(x)):
        for j in range(len(x)):
            if x[i] + x[j] > 3:
                return x[i] * x[j]
    return 0.0


def first_negative(x):
    for i in range(len(x)):
        if x[i] < 0:
            return i, x[i]
    return -1, 0.0


def first_negative_cell(A):
    for i in range(A.shape[0]):
        j = 0
        while j < A.shape[1]:
            if A[i, j] < 0:
                return [i, j, A[i, j]]
            j += 1
    return [-1, -1, A[0, 0] * 0]


def copy_until_negative(out, A):
    """Writes before the return stay; the ones after it never happen."""
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            if A[i, j] < 0:
                return i * 10 + j
            out[i, j] = A[i, j]
    return -1


def loop_in_a_branch(x, t):
    if x.sum() > t:
        for i in range(len(x)):
            if x[i] > t / 4:
                return x[i]
        x = x * 2
    return x.max()


def branch_in_a_branch(x):
    if x[0] > 0:
        if x[1] > 0:
            return x[0] + x[1]
        y = x[0] - 1.0
    else:
        y = x[1]
    return y * 2


def compile_time_branch(x, mode):
    if mode == "scan":
        if x[0] > 0:
            return x * 2
        x = x + 1
    return x


def in_an_unrolled_loop(x):
    for k in range(2):
        for i in range(len(x)):
            if x[i] > 3 + k:
                return x[i] + k
    return x[0]


VECTORS = [np.array([1.0, 2.5, 3.0]), np.array([0.5, 1.0]), np.array([4.0]), np.array([-1.0, 2.0, 0.0]),
           np.zeros(0), np.array([1.0, 2.0, 9.0], np.float32)]


@pytest.mark.parametrize("x", VECTORS, ids=lambda x: f"{x.dtype}{x.tolist()}")
def test_return_from_nested_run_time_loops(x):
    if len(x):
        check(pair_sum, x)
        check(branch_in_a_branch, x if len(x) > 1 else np.concatenate([x, x]))
        check(in_an_unrolled_loop, x)
        for t in (0.0, 2.0, 100.0):
            check(loop_in_a_branch, x, t)
    got, expected = transpile(pair_sum_weak)(x), pair_sum_weak(x)
    assert got == expected
    # a Python float meeting a run-time one takes its dtype (docs/language.md, "Joins")
    assert type(got) is (x.dtype.type if expected == 0.0 else type(expected))
    for mode in ("scan", "other"):
        if len(x):
            check(compile_time_branch, x, mode)


@pytest.mark.parametrize("x", VECTORS, ids=lambda x: f"{x.dtype}{x.tolist()}")
def test_return_of_a_tuple_from_a_loop(x):
    got, expected = transpile(first_negative)(x), first_negative(x)
    assert got == expected and type(got[0]) is int
    assert type(got[1]) is x.dtype.type       # joined with 0.0: the run-time dtype on both paths


@pytest.mark.parametrize("A", [np.array([[1.0, 2.0], [3.0, -4.0]]), np.ones((3, 2)), np.array([[-1.0]]),
                               np.arange(6).reshape(2, 3) - 4, np.ones((1, 4), np.float32)],
                         ids=lambda A: f"{A.dtype}{A.shape}{A.min()}")
def test_return_from_a_while_in_a_for_and_writes_before_it(A):
    check(first_negative_cell, A)
    check(copy_until_negative, np.zeros(A.shape, A.dtype), A)


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
