"""A list of bools, some known only at run time, as an index (`x[[x[0] > 0, True, s > 1]]`): NumPy makes it a bool
array (np.asarray), a mask, read and written as one, with the mask's length check (IndexError). It was refused
("boolean arrays combined with other indices"). A list mixing bools with ints stays an int array, as in NumPy."""
import copy
import functools

import numpy as np
import pytest

from helpers import assert_same
from transpiler import transpile


def read_1d(x, t):
    return x[[x[0] > t, x[1] > t, True, x[3] < t]]


def written_1d(x, t):
    x[[x[0] > t, False, x[2] > t, bool(x[3] < t)]] = 7
    return x


def augmented_1d(x, t):
    x[[x[1] > t, x[1] > t, x[2] <= t, True]] += x[0]
    return x.sum()


def rows_of_2d(x, t):
    keep = [x[i, 0] > t for i in range(3)]
    return x[keep], x[keep, 1], x[[keep[0], True, False], ::-1]


def columns_written(x, t):
    x[:, [x[0, 0] > t, x[1, 1] > t, False, True]] = x[0, :2].sum()
    return x


def nested_list_2d(x, t):
    return x[[[x[0, 0] > t, True, x[0, 2] > t, False], [False, x[1, 1] > t, True, x[1, 3] > t], [True] * 4]]


def ints_and_bools(x, t):
    return x[[x[0] > t, 2, 3]]      # an int array [0 or 1, 2, 3], as np.asarray makes it


def values_written_per_selected(x, t):
    mask = [x[0] > t, x[1] > t, x[2] > t, x[3] > t]
    x[mask] = x[mask] * 10 + 1
    return x


CASES_1D = [read_1d, written_1d, augmented_1d, ints_and_bools, values_written_per_selected]
CASES_2D = [rows_of_2d, columns_written, nested_list_2d]


_compiled = functools.cache(transpile)     # (one compilation per function and argument types: the file stays fast)


def _compare(fn, x, t):
    ours_args, numpys_args = copy.deepcopy((x, t)), copy.deepcopy((x, t))
    expected = fn(*numpys_args)
    got = _compiled(fn)(*ours_args)
    assert_same(got, expected)
    assert_same(ours_args, numpys_args)


@pytest.mark.parametrize("fn", CASES_1D, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [np.float32, np.uint8])
def test_a_list_of_run_time_bools_is_a_mask(fn, dtype):
    rng = np.random.default_rng(1)
    for _ in range(3):
        x = rng.integers(0, 9, 4).astype(dtype)
        for t in (0, 3, 5, 9):
            _compare(fn, x, t)


@pytest.mark.parametrize("fn", CASES_2D, ids=lambda f: f.__name__)
def test_lists_of_run_time_bools_over_two_dims(fn):
    rng = np.random.default_rng(2)
    for dtype in (np.float64, np.int64):
        x = rng.integers(0, 9, (3, 4)).astype(dtype)
        for t in (-1, 2, 4, 8):
            _compare(fn, x, t)
        _compare(fn, np.asfortranarray(rng.integers(0, 9, (5, 4)).astype(dtype))[::2], 3)


def _too_short(x, t):
    return x[[x[0] > t, x[1] > t]]


def _too_long_written(x, t):
    x[[x[0] > t, True, True, True, x[1] > t]] = 1


def _wrong_value_count(x, t):
    x[[True, x[1] > t, True, False]] = np.zeros(2)


@pytest.mark.parametrize("fn, error", [(_too_short, IndexError), (_too_long_written, IndexError),
                                       (_wrong_value_count, ValueError)], ids=["short", "long", "values"])
def test_numpys_errors(fn, error):
    for t in (0, 100):
        for run in (fn, transpile(fn)):
            x = np.arange(4.0) + 1
            if fn is _wrong_value_count and t == 100:     # (one element selected: the values do not broadcast)
                continue
            with pytest.raises(error):
                run(x, t)
            np.testing.assert_array_equal(x, np.arange(4.0) + 1)
