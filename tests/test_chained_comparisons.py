"""Chained comparisons of run-time scalars (`0 <= i < n`): Python's `a < b and b < c`, b evaluated once, c only
where `a < b`. Before, any chain with a run-time comparison was refused as "chained comparisons of run-time
arrays", also for the scalars of a bounds test. Arrays keep Python's ValueError (the truth of an array)."""
import numpy as np
import pytest

from helpers import assert_same, check
from transpiler import CompileError, transpile


def in_bounds(x, i):
    if 0 <= i < x.shape[0]:
        return x[i]
    return -1.0


def chain_value(x, i, j):
    n = x.shape[0]
    return 0 <= i < n, i < j <= n, -n <= i < j < n, 0 < i == j, i < n > j


def numpy_chain_value(x, k):
    return x[0] < k < x[1], 0.0 <= x[0] < x[1] <= x[2]


def last_read_only_where_needed(x, i):
    # Python reads x[i] only where -1 < i < len(x): no IndexError for i = 10
    if -1 < i < x.shape[0] <= x[i] * 0 + 100:
        return 1
    return 0


def chain_with_constants(x, i):
    return 0 < i < 10 < 20, 0 < i < 10 > 20, 3 > 2 < i


def mixed_types_as_condition(x, i, s):
    if i < x.shape[0] < s:
        return x * 2
    return x


def mixed_types_as_value(x, i, s):
    return i < x.shape[0] < s


def arrays_chained(x):
    return 0 < x < 1


@pytest.mark.parametrize("i", [-3, -1, 0, 2, 4, 5, 9])
def test_a_bounds_test(i):
    check(in_bounds, np.arange(5.0), i)


@pytest.mark.parametrize("n, i, j", [(5, 0, 3), (5, 3, 3), (5, 4, 5), (5, -5, 4), (5, 7, 9), (0, 0, 0), (3, -4, 1)])
def test_the_value_is_python_s(n, i, j):
    """Each comparison a Python bool: the chain's value is one, as Python's."""
    f = transpile(chain_value)
    assert_same(f(np.zeros(n), i, j), chain_value(np.zeros(n), i, j))
    assert f.compilations == 1


@pytest.mark.parametrize("k", [np.float64(0.5), np.float64(-1.0), np.float64(2.5)])
def test_numpy_scalars_give_a_numpy_bool(k):
    check(numpy_chain_value, np.array([0.0, 1.0, 2.0]), k)
    check(numpy_chain_value, np.array([1.0, 0.0, 2.0]), k)


@pytest.mark.parametrize("i", [-1, 0, 3, 10])
def test_the_last_operand_is_evaluated_only_where_needed(i):
    check(last_read_only_where_needed, np.arange(4.0), i)


@pytest.mark.parametrize("i", [0, 5, 15])
def test_compile_time_links(i):
    check(chain_with_constants, np.zeros(2), i)


@pytest.mark.parametrize("i, s", [(1, np.float64(9.0)), (1, np.float64(1.0)), (7, np.float64(9.0))])
def test_comparisons_of_two_types_as_a_condition(i, s):
    check(mixed_types_as_condition, np.arange(3.0), i, s)


def test_comparisons_of_two_types_as_a_value_are_refused():
    """`i < n < s` is a Python bool where `i < n` is false and an np.bool_ where it is true: refused by name."""
    with pytest.raises(CompileError, match="chained comparison"):
        transpile(mixed_types_as_value)(np.arange(3.0), 1, np.float64(9.0))


def test_arrays_keep_python_s_value_error():
    with pytest.raises(ValueError, match="ambiguous"):
        arrays_chained(np.linspace(0, 1, 4))
    with pytest.raises(ValueError, match="ambiguous"):
        transpile(arrays_chained)(np.linspace(0, 1, 4))


@pytest.mark.parametrize("k", [np.int64(-2), np.int64(0), np.int64(1), np.int64(5), -1])
def test_a_diagonal_offset_that_is_a_numpy_int(k):
    """x.diagonal(k) with an np.int64 k: the library's max(-k, 0) mixed an np.int64 and an int (a confusing
    "max() of values of different types" error before)."""
    x = np.arange(20.0).reshape(4, 5)
    check(lambda x, k: (x.diagonal(k).copy(), np.trace(x, k), np.diagonal(x[None], k, 1, 2).copy()), x, k)


def scan_while(x, t):
    i = 0
    n = x.shape[0]
    while 0 <= i < n and x[i] < t:
        i += 1
    return i


def count_in_windows(x, t):
    c = 0
    for i in range(x.shape[0]):
        if x[i] - 1 < t <= x[i] + 1 and not (0 < i < 3):
            c += 1
    return c


@pytest.mark.parametrize("t", [-1.0, 2.5, 10.0])
def test_chains_in_loop_conditions(t):
    check(scan_while, np.arange(6.0), t)
    check(count_in_windows, np.arange(6.0), t)
