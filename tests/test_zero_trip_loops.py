"""A run-time loop that may run zero times and rebinds a name to new arrays (`y = x`, then `y = np.tanh(y)` in the
loop): when it runs zero times, or its body leaves the name as it was, NumPy's name is still the array it held before
(the caller's argument, a view of it, or another name's array). The compiled loop carries a flag for that
(frontend/control._carry_kept): returned, the name is the caller's own array where the flag says so; written through,
or read after a write, where it may be either array, it is a CompileError, never a write that misses the array
NumPy's reaches (it wrote into a copy: a silent wrong answer)."""
import copy

import numpy as np
import pytest

from helpers import aliasing_mismatch, tolerance
from transpiler import CompileError, transpile

TRIPS = [0, 1, 3]


def rebound_in_a_for(x, n):
    for _ in range(n[0]):
        x = np.tanh(x)
    return x


def rebound_in_a_while(x, n):
    i = 0
    while i < n[0]:
        x = x * 0.5 + 1
        i += 1
    return x


def another_name_for_the_argument(x, n):
    y = x
    for _ in range(n[0]):
        y = y - 1
    return y, x


def a_view_of_the_argument(x, n):
    v = x[1:, ::2]
    for _ in range(n[0]):
        v = v * 2
    return v


def rebound_in_a_branch_of_the_body(x, n):
    for i in range(n[0]):
        if x[0, 0] > i:
            x = x + 1
    return x


def rebound_and_then_chosen_by_an_if(x, n):
    for _ in range(n[0]):
        x = x * 3
    if x[0, 0] > 2:
        x = x - 1
    return x


def rebound_in_a_while_with_a_check(y, n):
    x = y
    err = np.max(np.abs(x))       # (a check that may fail: the loop runs under `if not failed`)
    while err > 4 - n[0]:
        x = x * 0.5
        err = np.max(np.abs(x))
    return x


def chosen_by_an_if_before_the_loop(x, n):
    y = x if n[0] % 2 == 0 else -x
    for _ in range(n[0]):
        y = np.tanh(y)
    return y


def selected_in_a_loop(x, n):
    v = x[0]
    for i in range(n[0]):
        v = v[v > i / 4]        # (a size the data decides: the loop carries a size of its own)
    return v


def run_both(fn, *args):
    ours_args, numpys_args = copy.deepcopy(args), copy.deepcopy(args)
    ours, numpys = transpile(fn)(*ours_args), fn(*numpys_args)
    return ours, numpys, ours_args, numpys_args


def assert_numpys(fn, *args):
    ours, numpys, ours_args, numpys_args = run_both(fn, *args)
    ours_t = ours if isinstance(ours, tuple) else (ours,)
    numpys_t = numpys if isinstance(numpys, tuple) else (numpys,)
    for a, b in zip(ours_t, numpys_t):
        np.testing.assert_allclose(a, b, rtol=tolerance(b.dtype))   # (tanh: to rounding)
        assert a.dtype == b.dtype and a.shape == b.shape
    for a, b in zip(ours_args, numpys_args):
        np.testing.assert_array_equal(a, b)
    mismatch = aliasing_mismatch(list(ours_t) + list(ours_args), list(numpys_t) + list(numpys_args))
    assert mismatch is None, mismatch
    return ours_t, ours_args


@pytest.mark.parametrize("n", TRIPS)
@pytest.mark.parametrize("fn", [rebound_in_a_for, rebound_in_a_while, another_name_for_the_argument,
                                a_view_of_the_argument, rebound_in_a_branch_of_the_body,
                                rebound_and_then_chosen_by_an_if, rebound_in_a_while_with_a_check,
                                chosen_by_an_if_before_the_loop, selected_in_a_loop],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_name_a_loop_may_leave_is_the_callers_array(fn, n, dtype):
    x = np.arange(1.0, 13.0, dtype=dtype).reshape(3, 4) / 4
    ours, args = assert_numpys(fn, x, np.array([n]))
    if n == 0:      # NumPy returns the argument object itself, or a view of it (`x[1:, ::2]`, `x[0]`)
        assert ours[0] is args[0] or fn in (a_view_of_the_argument, selected_in_a_loop) and ours[0].base is args[0]


def test_the_flag_follows_a_branch_in_the_body():
    """The body leaves the name as it was on some paths (`if x[0, 0] > i`): the caller's array where no path
    rebound it, whatever the trip count."""
    x = np.full((3, 4), -5.0)
    for n in TRIPS:
        (ours,), (arg, _) = assert_numpys(rebound_in_a_branch_of_the_body, x, np.array([n]))
        assert ours is arg


def test_non_contiguous_arguments():
    for x in (np.arange(24.0).reshape(6, 4)[::2], np.asfortranarray(np.arange(12.0).reshape(3, 4))):
        for fn in (rebound_in_a_for, a_view_of_the_argument):
            for n in TRIPS:
                assert_numpys(fn, x, np.array([n]))


def written_after_the_loop(x, n):
    y = x
    for _ in range(n[0]):
        y = y * 2
    y[0] = 5
    return x


def local_written_after_the_loop(x, n):
    a = np.zeros(3)
    b = a
    for _ in range(n[0]):
        b = b * 2
    b[0] = 5
    return a


def local_read_after_its_write(x, n):
    a = np.zeros(3)
    b = a
    for _ in range(n[0]):
        b = b + x
    a[0] = 5
    return b


@pytest.mark.parametrize("fn", [written_after_the_loop, local_written_after_the_loop, local_read_after_its_write],
                         ids=lambda f: f.__name__)
def test_a_write_that_may_reach_either_array_is_refused(fn):
    """After zero trips NumPy writes the array the name held before the loop (the argument, or `a` through `b`);
    the compiled write went into the loop's copy: x, or a, kept its contents (a silent wrong answer)."""
    with pytest.raises(CompileError, match="which a run-time loop rebinds to new arrays"):
        transpile(fn)(np.arange(3.0), np.array([0]))


def local_held_by_no_other_name(x, n):
    a = np.zeros(3)
    for _ in range(n[0]):
        a = a + x
    a[0] = 5
    return a


@pytest.mark.parametrize("n", TRIPS)
def test_a_local_no_other_name_holds_is_written_as_before(n):
    """Only the loop's name holds the array from before the loop: a write after the loop is the loop's array,
    whatever the trip count (nothing else could see the difference)."""
    assert_numpys(local_held_by_no_other_name, np.arange(3.0), np.array([n]))
