"""`for i, row in enumerate(x)` and `for a, b in zip(x, y)` over run-time arrays (issue #13, "iterating a run-time
array's first axis"): one run-time loop over the shortest part's rows (zip stops there, as Python's does), each row
read as the array is at that iteration. Compared with NumPy's own run on several sizes, 0 and 1 included: values,
dtypes and every argument's final contents."""
import numpy as np
import pytest

from helpers import check
from transpiler import CompileError, transpile


def rng(seed=0):
    return np.random.default_rng(seed)


def weighted_rows(x, start):
    s = np.zeros(x.shape[1:], dtype=x.dtype)
    for i, row in enumerate(x, start):
        s += row * i
    return s


def weighted_elements(v):
    s = 0
    for i, e in enumerate(v):
        s += i * e
    return s


def row_dots(x, y):
    t = np.float64(0.0)     # (0.0: the zero-trip difference of docs/semantics.md)
    for a, b in zip(x, y):
        t += a @ b
    return t


def three_way(x, y, z):
    out = np.zeros(x.shape[0] + y.shape[0], dtype=np.float32)
    for i, a, b, c in zip(range(x.shape[0] + 5), x, y, z):
        out[i] = a * b - c
    return out


def indexed_by_zip_range(x, n):
    out = np.zeros(n)
    for i, r in zip(range(n), x):
        out[i] = r.sum() + i
    return out


def running_write(x):
    """Each iteration's row is x's row as the iteration before left it (a prefix sum in place)."""
    for i, r in enumerate(x):
        if i + 1 < x.shape[0]:
            x[i + 1] += r
    return x


def negate_until(x, limit):
    for i, r in enumerate(x):
        if r[0] > limit:
            break
        x[i] = -r
    return x


@pytest.mark.parametrize("rows", [0, 1, 9, 40])
@pytest.mark.parametrize("start", [0, 3, -2])
def test_enumerate_rows_with_start(rows, start):
    check(weighted_rows, rng(rows).random((rows, 3)), start)


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.float32])
@pytest.mark.parametrize("n", [1, 100])
def test_enumerate_elements_of_a_vector(dtype, n):
    """(With zero trips NumPy returns the Python 0 itself, the compiled function the carried dtype's 0: the known
    difference of docs/semantics.md for every run-time loop.)"""
    check(weighted_elements, np.arange(n).astype(dtype))


def test_enumerate_start_known_only_to_the_kernel():
    check(weighted_rows, rng().random((20, 2)), np.int64(7))


@pytest.mark.parametrize("rows_x, rows_y", [(50, 30), (30, 50), (0, 9), (12, 12), (1, 40)])
def test_zip_stops_at_the_shortest(rows_x, rows_y):
    check(row_dots, rng(rows_x).random((rows_x, 4)), rng(rows_y).random((rows_y, 4)))


@pytest.mark.parametrize("sizes", [(10, 12, 30), (30, 12, 10), (20, 20, 20), (0, 3, 3)])
def test_zip_of_a_range_and_three_arrays(sizes):
    x, y, z = (rng(i).random(n).astype(np.float32) for i, n in enumerate(sizes))
    check(three_way, x, y, z)


@pytest.mark.parametrize("rows, n", [(40, 25), (10, 25), (0, 5)])
def test_zip_of_a_run_time_range_and_rows(rows, n):
    check(indexed_by_zip_range, rng().random((rows, 3)), n)


@pytest.mark.parametrize("rows", [1, 2, 30])
def test_rows_are_read_as_the_body_left_them(rows):
    check(running_write, rng().random((rows, 3)))


@pytest.mark.parametrize("limit", [0.0, 0.5, 2.0])
def test_break_out_of_an_enumerate_loop(limit):
    check(negate_until, rng(1).random((30, 2)), limit)


def test_a_few_rows_known_while_compiling_still_unroll():
    """Four rows (static): Python's enumerate over the rows while compiling, as before."""
    small = np.arange(12.0).reshape(4, 3)
    check(lambda x: [float(i) * r for i, r in enumerate(x + small)], small.copy())


def stepped(x, n, step):
    t = np.float64(0.0)
    for i, r in zip(range(-n, n, step) if step > 0 else range(n, -n, step), x):
        t = t + i * r
    return t


@pytest.mark.parametrize("n, step", [(10, 2), (10, -3), (3, 5), (0, 2), (25, -1), (40, 1)])
def test_zip_of_stepped_ranges(n, step):
    """Python's range length, ceil((stop - start) / step), with the bound known at compile time (a Python range) or
    only at run time (the same `n` as a NumPy int); zip stops at x's 30 rows when the range is longer."""
    x = rng(n).random(30)
    for bound in (n, np.int64(n)):
        check(stepped, x, bound, step)


def test_the_loop_variable_after_a_run_time_enumerate_is_refused_as_for_range():
    def last_index(x):
        for i, r in enumerate(x):
            pass
        return i
    with pytest.raises(CompileError, match="loop variable 'i' of the run-time loop"):
        transpile(last_index)(np.arange(10.0))
