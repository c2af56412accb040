"""Writes into an array chosen at a run-time branch (`v = a if k > 0 else b; v[0] = 1`): NumPy writes exactly the
chosen array. Where each of the two is an argument or an array the function made before the branch, the statement
runs as `if flag: <it with v = a> else: <it with v = b>` (frontend/control.chosen_write), so its writes reach the
chosen array only. A basic view of the chosen array (`w = v[1:]; w[0] = 5`) is followed too: on each path every
name holding it is the same view of that path's array, at a run-time position over its axes (codegen/strided.py),
also in a run-time loop. Other such writes (through a reshape of the chosen array, into a view chosen among
different arrays, through a name a loop rebinds) stay a CompileError. Also: a view of a chosen array returned (`return v[1:]`) returned the
whole argument, and a chosen array returned beside a local it may be (`return b, v`) did not share its memory:
both are refused now."""
import copy

import numpy as np
import pytest

from helpers import aliasing_mismatch
from transpiler import CompileError, transpile


def element_then_slice(a, b, k):
    v = a if k[0] > 0 else b
    v[0] = 1.7
    v[1:] += 2
    return v


def augmented_and_read_back(a, b, k):
    v = a if k[0] > 0 else b
    v *= 3
    v[-1] = v[0] + v[1]
    return a.sum() + 10 * b.sum(), v


def chained_subscripts_through_another_name(a, b, k):
    if k[0] > 0:
        v = a
    else:
        v = b
    w = v
    w[1:][0] = 7
    return v, w


def a_local_or_an_argument(a, k):
    b = np.zeros(a.shape, a.dtype)
    v = a if k[0] > 0 else b
    v[::2] = 5
    return b * 1, v


def written_then_chosen_again(a, b, k):
    v = a if k[0] > 0 else b
    v[0] = 4
    u = v if k[0] < 2 else a
    u[1] = 9
    return a, b


def view_written(a, b, k):
    v = a if k[0] > 0 else b
    w = v[1:]
    w[0] = 5
    return a, b


def views_of_a_view_from_an_if_statement(a, b, k):
    if k[0] > 0:
        v = a
    else:
        v = b
    w = v[::2]
    u = w[1:]
    u += 3
    w[0] = -1
    return v.sum(), w, u


def the_chosen_array_written_between(a, b, k):
    v = a if k[0] > 0 else b
    w = v[1:3]
    v[1] = 8
    w[1] *= 2
    w2 = w
    w2[0] -= 1
    return w.copy(), v, w


def a_view_at_run_time_bounds_returned(a, b, k):
    v = a if k[0] > 1 else b
    w = v[k[0]:k[0] + 2][::-1]
    w[1] = 6
    return w, v[0]


def chosen_in_a_loop(a, b, k):
    for i in range(min(a.shape[0], b.shape[0]) - 1):
        v = a if a[i] > b[i] + k[0] else b
        w = v[i:]
        w[1] += 1
    return a, b


def chosen_before_a_loop(a, b, k):
    v = a if k[0] > 0 else b
    w = v[1:]
    for i in range(k[0] + 1):
        v[i] = i
        w[i] += 10
    return a, b


CASES = [element_then_slice, augmented_and_read_back, chained_subscripts_through_another_name, view_written,
         views_of_a_view_from_an_if_statement, the_chosen_array_written_between, a_view_at_run_time_bounds_returned,
         chosen_in_a_loop, chosen_before_a_loop]


def _flat(value) -> list:
    return list(value) if isinstance(value, tuple) else [value]


def _compare(fn, *args):
    ours_args, numpys_args = copy.deepcopy(args), copy.deepcopy(args)
    ours, numpys = _flat(transpile(fn)(*ours_args)), _flat(fn(*numpys_args))
    for a, b in zip(ours + list(ours_args), numpys + list(numpys_args)):
        np.testing.assert_array_equal(a, b, strict=True)
    arrays = [i for i, v in enumerate(numpys + list(numpys_args)) if isinstance(v, np.ndarray)]
    mismatch = aliasing_mismatch([(ours + list(ours_args))[i] for i in arrays],
                                 [(numpys + list(numpys_args))[i] for i in arrays])
    assert mismatch is None, mismatch


@pytest.mark.parametrize("k", [0, 1, 2])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_a_write_through_a_chosen_argument_reaches_exactly_it(fn, dtype, k):
    a, b = np.arange(1, 5, dtype=dtype), np.arange(10, 14, dtype=dtype)
    _compare(fn, a, b, np.array([k]))


@pytest.mark.parametrize("fn", CASES[3:], ids=lambda f: f.__name__)
def test_views_of_chosen_arrays_of_different_sizes(fn):
    """The view's position is over the chosen array's own axes (a run-time position: codegen/strided.py)."""
    for k in (0, 1, 2):
        _compare(fn, np.array([5, 1, 7, 2, 9, 4, 3], np.int32), np.array([3, 8, 2, 6, 1], np.int32), np.array([k]))


def two_dimensional(a, b, k):
    v = a if k[0] > 0 else b
    w = v[1:, ::-1].T
    w[0] = 9
    w[:, 1] += w[:, 0]
    return a, b, w


def test_two_dimensional_views_of_a_chosen_array():
    for k in (0, 1):
        _compare(two_dimensional, np.arange(12.0).reshape(3, 4), np.arange(20.0).reshape(4, 5), np.array([k]))
        _compare(two_dimensional, np.arange(24.0).reshape(4, 6)[:, ::2], np.asfortranarray(np.ones((3, 2))),
                 np.array([k]))


def a_view_of_a_local_or_an_argument(a, k):
    c = np.zeros(a.shape, a.dtype)
    v = a if k[0] > 0 else c
    w = v[1:]
    w[:] = 4
    w[::2] += a[:2]
    return c * 1


@pytest.mark.parametrize("k", [0, 1])
def test_a_view_of_an_argument_or_a_local_array(k):
    for dtype in (np.float64, np.int8):
        _compare(a_view_of_a_local_or_an_argument, np.arange(2, 6, dtype=dtype), np.array([k]))


def _out_of_range(a, b, k):
    v = a if k[0] > 0 else b
    w = v[1:]
    w[k[0] + 3] = 1


def _bad_broadcast(a, b, k):
    v = a if k[0] > 0 else b
    w = v[1:]
    w[:] = np.ones(7)


def test_errors_through_a_view_of_a_chosen_array_are_numpys():
    for k in (0, 1):
        for fn, error in ((_out_of_range, IndexError), (_bad_broadcast, ValueError)):
            for run in (fn, transpile(fn)):
                a, b = np.arange(4.0), np.arange(4.0)
                with pytest.raises(error):
                    run(a, b, np.array([k]))
                np.testing.assert_array_equal(a, np.arange(4.0))
                np.testing.assert_array_equal(b, np.arange(4.0))


@pytest.mark.parametrize("k", [0, 1])
def test_a_write_through_an_argument_or_a_local_array(k):
    for dtype in (np.float64, np.int32):
        _compare(a_local_or_an_argument, np.arange(2, 6, dtype=dtype), np.array([k]))


def test_non_contiguous_arguments():
    for k in (0, 1):
        a = np.arange(12.0)[::3]
        b = np.asfortranarray(np.arange(8.0).reshape(2, 4))[1]
        _compare(element_then_slice, a, b, np.array([k]))


def _chosen_views_written(a, b, k):
    v = a[1:] if k[0] > 0 else b[:2]
    v[0] = 5
    return a, b


def _two_locals(a, b, k):
    p = np.zeros(3, a.dtype)
    q = np.ones(3, a.dtype)
    v = p if k[0] > 0 else q
    v[1] = a[0]
    return p + 10 * q


def _a_loop_rebinds_it(a, b, k):
    v = a
    for i in range(a.shape[0] - 1):
        if a[i] > k[0]:
            v = b
        w = v[1:]
        w[0] = i
    return a, b


def _view_after_a_direct_write(a, b, k):
    v = a if k[0] > 0 else b
    a[0] = 3
    w = v[1:]
    w[0] = 5
    return a, b


def _reshaped(a, b, k):
    v = a if k[0] > 0 else b
    w = v.reshape(1, -1)
    w[0, 0] = 5
    return a, b


@pytest.mark.parametrize("fn", [_chosen_views_written, _two_locals, written_then_chosen_again, _a_loop_rebinds_it,
                                _view_after_a_direct_write, _reshaped], ids=lambda f: f.__name__)
def test_other_writes_through_chosen_arrays_are_refused(fn):
    with pytest.raises(CompileError, match="one of several arrays depending on a run-time condition"):
        transpile(fn)(np.zeros(3), np.zeros(3), np.array([1]))


def _a_view_of_the_chosen_returned(a, b, k):
    v = a if k[0] > 0 else b
    return v[1:]


def _beside_the_local_it_may_be(a, b, k):
    c = a * 2
    v = a if k[0] > 0 else c
    return c, v


def test_returned_chosen_arrays_the_call_cannot_make_are_refused():
    """`return v[1:]` returned all of the chosen argument (a wrong shape); `return b, v` two unrelated arrays where
    NumPy's are one."""
    for fn in (_a_view_of_the_chosen_returned, _beside_the_local_it_may_be):
        with pytest.raises(CompileError, match="returning an array that is one of several arrays"):
            transpile(fn)(np.zeros(3), np.zeros(3), np.array([1]))
