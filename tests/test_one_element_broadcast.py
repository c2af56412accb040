"""One element of a slice whose bounds only the kernel knows (`x[7:8]` of an argument, `x[a + 2:a + 3]`) broadcasts
as NumPy's does where the kernel compares sizes (`x[a:a + n] += x[7:8]`, `x[a:a + n] + x[a + 2:a + 3]`): its size
is 0 or 1 whatever the values (elementwise.at_most_one), and a 1 broadcasts (a view read with step 0). It raised
ValueError, where NumPy broadcasts. Other sizes only the kernel knows that turn out to be 1 still do not broadcast
(`x[2:5] = x[a:a + n]` with n == 1: ValueError, documented)."""
import copy
import functools

import numpy as np
import pytest

from helpers import assert_same
from transpiler import transpile


def augmented_by_one_element(x, s):
    a, n = s[0], s[1]
    x[a:a + n] += x[7:8]
    return x


def stored_from_one_element(x, s):
    a, n = s[0], s[1]
    x[a:a + n] = x[a + n:a + n + 1] * 2
    return x


def added_to_one_element(x, s):
    a, n = s[0], s[1]
    return x[a:a + n] + x[a + 2:a + 3], x[7:8] - x[a:a + n], x[a - 1:a] * x[a:a + n]


def rows_and_one_row(x, s):
    a, n = s[0], s[1]
    y = x.reshape(5, 2)
    y[a:a + n] -= y[a + 1:a + 2]
    return y[a:a + n] * y[4:5], x


def into_out(x, s):
    a, n = s[0], s[1]
    np.multiply(x[a:a + n], x[a:a + 1], out=x[a:a + n])
    return x


_compiled = functools.cache(transpile)


@pytest.mark.parametrize("fn", [augmented_by_one_element, stored_from_one_element, added_to_one_element,
                                rows_and_one_row, into_out], ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_one_element_known_only_in_the_kernel_broadcasts(fn, dtype):
    for s in ([1, 3], [2, 1], [0, 0], [1, 2], [3, 0], [4, 1], [9, 1], [-3, 2], [2, 4], [8, 2]):
        x = np.arange(10).astype(dtype) + 1
        args = (x, np.array(s))
        ours_args, numpys_args = copy.deepcopy(args), copy.deepcopy(args)
        try:
            expected = fn(*numpys_args)
        except ValueError:
            with pytest.raises(ValueError):
                _compiled(fn)(*ours_args)
            assert_same(ours_args, args)          # nothing written
            continue
        assert_same(_compiled(fn)(*ours_args), expected)
        assert_same(ours_args, numpys_args)


def _general_size_of_one(x, s):
    a, n = s[0], s[1]
    x[2:5] = x[a:a + n]


def test_other_run_time_sizes_of_one_broadcast_through_numpys_run():
    """A size only the kernel knows that may be anything (n) is compiled as equal to the other side; when it is 1
    the kernel's check fails and the call runs again as NumPy from the caller's contents, which broadcasts it (it
    was a ValueError). A size that differs otherwise is NumPy's ValueError, nothing written."""
    compiled = transpile(_general_size_of_one)
    x, expected = np.arange(10.0), np.arange(10.0)
    _general_size_of_one(expected, np.array([2, 1]))
    compiled(x, np.array([2, 1]))
    np.testing.assert_array_equal(x, expected)
    assert compiled.replays == 1
    x = np.arange(10.0)
    with pytest.raises(ValueError):
        compiled(x, np.array([2, 2]))
    np.testing.assert_array_equal(x, np.arange(10.0))
    compiled(x, np.array([6, 3]))
    np.testing.assert_array_equal(x[2:5], [6.0, 7.0, 8.0])
