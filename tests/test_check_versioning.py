"""Loops that run without their index checks when none can fail (transpiler/backend/check_versioning.py): the same
results as NumPy's whether the checks fail nowhere, at the first iteration, at the last, in between (a step that
skips the last index), or for an index that does not move with the loop; and the same exception and argument
contents when one fails."""
import numpy as np
import pytest

from benchmarks.loops import nested_sum, nussinov
from helpers import check
from test_loop_exits import check_raises     # same exception, same argument contents
from transpiler import transpile
from transpiler.backend import check_versioning


def count_versioned(monkeypatch) -> list:
    counts = []
    original = check_versioning.version_checked_loops

    def counting(module):
        counts.append(original(module))
        return counts[-1]
    monkeypatch.setattr(check_versioning, "version_checked_loops", counting)
    return counts


def check_value(fn, *args):
    """The result's value (a loop that runs zero times leaves NumPy's `s = 0.0` a Python float, where the compiled
    function returns a float64: not what is tested here)."""
    assert transpile(fn)(*args) == fn(*args)


def fill(x, start, stop, step):
    for i in range(start, stop, step):
        x[i] = 2.0 * i + x[i - 1]
    return x


def reversed_dot(r, y, k):
    s = 0.0
    for i in range(k):
        s += r[k - i - 1] * y[i]
    return s


def column(x, j, n):
    s = 0.0
    for i in range(n):
        s += x[i, j]        # j does not move with the loop: its check is the same in every iteration
    return s


def test_square_loops_run_the_unchecked_copy(monkeypatch):
    """The innermost loops of a nested scalar loop are versioned (a regression test of the speed-up: the loop
    would otherwise keep its checks); the result is NumPy's."""
    counts = count_versioned(monkeypatch)
    check(nested_sum, np.random.default_rng(0).random((5, 5)))
    assert counts and counts[0] >= 1


@pytest.mark.parametrize("start,stop,step", [(1, 6, 1), (0, 6, 1), (1, 7, 1), (-6, 6, 1), (-7, 6, 1), (1, 7, 2),
                                             (1, 8, 2), (5, 2, 1), (3, 3, 1), (-3, 0, 1)])
def test_ranges_in_and_out_of_bounds(start, stop, step):
    """x has 6 elements: (1, 7) fails at the last iteration, (-7, 6) at the first, (1, 7, 2) never though ub - 1
    would (the checked copy runs, and gives the same result), (1, 8, 2) at its last; (5, 2) and (3, 3) are empty."""
    x = np.arange(6.0)
    in_bounds = all(-6 <= i < 6 and -6 <= i - 1 < 6 for i in range(start, stop, step))
    if in_bounds:
        check(fill, x, start, stop, step)
    else:
        check_raises(fill, x, start, stop, step)


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (1, 1), (0, 3)])
def test_non_square_shapes(shape):
    """x[j, i] with j over axis 1 and i over axis 0: out of bounds unless square (or empty)."""
    x = np.random.default_rng(1).random(shape)
    if 0 in shape:
        check_value(nested_sum, x)
    elif shape[0] == shape[1]:
        check(nested_sum, x)
    else:
        check_raises(nested_sum, x)


@pytest.mark.parametrize("k", [0, 1, 5, 6, 7])
def test_index_falling_with_the_loop(k):
    r, y = np.arange(1.0, 7.0), np.arange(6.0)
    if k == 0:
        check_value(reversed_dot, r, y, k)
    elif k <= 6:
        check(reversed_dot, r, y, k)
    else:
        check_raises(reversed_dot, r, y, k)


@pytest.mark.parametrize("j,n", [(1, 3), (-3, 3), (3, 3), (-4, 3), (0, 4), (1, 0)])
def test_index_fixed_during_the_loop(j, n):
    x = np.arange(9.0).reshape(3, 3)
    if n == 0:
        check_value(column, x, j, n)
    elif -3 <= j < 3 and n <= 3:
        check(column, x, j, n)
    else:
        check_raises(column, x, j, n)


def shifted(x, y, shift):
    """Reads and writes at i - shift: negative indices (NumPy's wrap from the end) in the first iterations when
    shift > 0, so the fast copy, which assumes indices in [0, n), must not run then."""
    for i in range(x.shape[0]):
        y[i - shift] = x[i - shift] * 2.0 + x[i]
    return y


@pytest.mark.parametrize("shift", [0, 1, 3, 6, -1, 7])
def test_negative_indices_wrap_as_numpy_does(shift):
    x, y = np.arange(6.0), np.zeros(6)
    if -6 <= -shift and 5 - shift < 6 and shift <= 6:
        check(shifted, x, y, shift)
    else:
        check_raises(shifted, x, y, shift)


def clipped_sum(x, lo, hi):
    s = 0.0
    for i in range(lo, hi):
        s += x[max(i, 0)] + x[min(i, 5)]     # the user's own clamps (max/min on ints): kept where they matter
    return s


@pytest.mark.parametrize("lo,hi", [(0, 6), (-3, 6), (-6, 2), (2, 9), (-2, 8)])
def test_clamps_of_the_user_stay(lo, hi):
    if hi <= 6:
        check(clipped_sum, np.arange(1.0, 7.0), lo, hi)
    else:
        check_raises(clipped_sum, np.arange(1.0, 7.0), lo, hi)


def triangle(t, n):
    """nussinov's innermost update (benchmarks/loops.py): `k + 1` is a Python int sum with its int64 overflow check,
    the inner range's bounds move with the outer loops."""
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            for k in range(i + 1, j):
                t[i, j] = max(t[i, j], t[i, k] + t[k + 1, j])
    return t


@pytest.mark.parametrize("shape,n", [((7, 7), 7), ((7, 6), 7), ((6, 7), 7), ((7, 7), 8)])
def test_outer_loops_give_numpys_answer(shape, n):
    """Outer loops are versioned too: an inner loop's versions count as its checks at the outer loop's first and
    last index (the overflow check of `k + 1` included). Where an index fails (a column short, a row short, n past the table), in the last iteration of an
    outer loop or the middle of an inner one, the exception and the table's contents are NumPy's."""
    t = np.random.default_rng(2).integers(0, 5, shape).astype(np.int32)
    if shape == (7, 7) and n <= 7:
        check(triangle, t, n)
    else:
        check_raises(triangle, t, n)


def test_nussinovs_two_inner_loops_run_the_unchecked_copy(monkeypatch):
    """nussinov's k loop and the j loop around it are versioned (the j loop holds the k loop's two versions and 48
    flags); its i loop, a third level, is not (check_versioning.MAX_HEIGHT: twice the compile time for flags tested
    once per outer iteration)."""
    counts = count_versioned(monkeypatch)
    check(nussinov, 12, np.random.default_rng(3).integers(0, 4, 12).astype(np.int32))
    assert counts[0] == 2
