"""Arrays a function builds from constants only (`a = np.arange(12.).reshape(3, 4)`) are computed while compiling
and returned as a fresh copy at each call. Constants that view one array (`return a[0], a[:, 1]`) are views of one
copy (runtime/signature._constant): they share memory as NumPy's do, and a write through one is seen through the
other; they shared nothing before."""
import numpy as np
import pytest

from helpers import aliasing_mismatch
from transpiler import transpile


def row_and_column():
    a = np.arange(12.0).reshape(3, 4)
    return a[0], a[:, 1]


def base_and_views():
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    return a, a[1], a.T, a[:, ::-1, 2]


def the_same_constant_twice():
    a = np.linspace(0.0, 1.0, 5, dtype=np.float32)
    return a, a, a[::2]


def beside_run_time_values(x):
    a = np.ones((3, 3))
    return x + a[0], a[1:], x, a[:, 0], [a[2, ::2], {"d": a[::-1, 1]}]


def separate_constants():
    return np.arange(3.0), np.zeros(2), np.arange(3.0)[1:]


CASES = [(row_and_column, ()), (base_and_views, ()), (the_same_constant_twice, ()),
         (beside_run_time_values, (np.arange(3.0),)), (separate_constants, ())]


def leaves(value) -> list:
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in leaves(v)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in leaves(v)]
    return [value]


@pytest.mark.parametrize("fn, args", CASES, ids=[c[0].__name__ for c in CASES])
def test_constant_views_alias_as_numpys(fn, args):
    compiled = transpile(fn)
    ours, numpys = leaves(compiled(*[a.copy() for a in args])), leaves(fn(*[a.copy() for a in args]))
    for a, b in zip(ours, numpys):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype and a.shape == b.shape and a.flags.writeable == b.flags.writeable
    mismatch = aliasing_mismatch(ours, numpys)
    assert mismatch is None, mismatch
    again = leaves(compiled(*[a.copy() for a in args]))
    for a, b in zip(ours, again):       # fresh arrays at each call: writing one call's result changes no other's
        assert not np.shares_memory(a, b)
    for a, b in zip(again, numpys):
        np.testing.assert_array_equal(a, b)


def test_a_write_through_one_is_seen_through_the_other():
    row, column = transpile(row_and_column)()
    ref_row, ref_column = row_and_column()
    for r, c in ((row, column), (ref_row, ref_column)):
        r[1] = -7.0             # a[0, 1], which is also a[:, 1][0]
    np.testing.assert_array_equal(column, ref_column)
    assert column[0] == -7.0
    base, inner, transposed, strided = transpile(base_and_views)()
    inner[2, 3] = 99
    strided[0, 0] = -1      # a[0, 2, 2]
    assert base[1, 2, 3] == 99 and transposed[3, 2, 1] == 99 and base[0, 2, 2] == -1
