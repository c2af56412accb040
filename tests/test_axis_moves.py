"""np.moveaxis, np.rollaxis, np.matrix_transpose (stdlib/functions.py, as numpy/_core writes them): views of their
argument, so a write through the result is seen in the caller's array, and the returned result shares its memory,
as NumPy's. Errors (axes out of range, repeated, lengths that differ) are NumPy's."""
import numpy as np
import pytest

from helpers import aliasing_mismatch, check, raises_like_numpy
from transpiler import transpile

CUBE = np.arange(24.0).reshape(2, 3, 4)


@pytest.mark.parametrize("source, destination", [(0, -1), (-1, 0), ((0, 1), (2, 0)), ([2], [1]), ((), ())])
def test_moveaxis(source, destination):
    check(lambda a: np.moveaxis(a, source, destination), CUBE)


@pytest.mark.parametrize("axis, start", [(2, 0), (0, 3), (1, 1), (1, 2), (-1, -3), (0, 0)])
def test_rollaxis(axis, start):
    check(lambda a: np.rollaxis(a, axis, start), CUBE)


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), (1, 5)])
def test_matrix_transpose(shape):
    check(lambda a: np.matrix_transpose(a), np.arange(float(np.prod(shape))).reshape(shape))


@pytest.mark.parametrize("call", [lambda a: np.moveaxis(a, 3, 0), lambda a: np.moveaxis(a, (0, 0), (1, 2)),
                                  lambda a: np.moveaxis(a, (0, 1), 2), lambda a: np.rollaxis(a, 0, 4),
                                  lambda a: np.rollaxis(a, 3), lambda a: np.matrix_transpose(a[0, 0])],
                         ids=["out_of_range", "repeated", "lengths", "start", "axis", "one_dim"])
def test_numpys_errors(call):
    raises_like_numpy(call, CUBE)


def write_through_moved(a):
    m = np.moveaxis(a, 0, -1)
    m[0, 0, 1] = -1.0
    r = np.rollaxis(a, 2)
    r[3] *= 10.0
    return m, r, np.matrix_transpose(a)


def test_results_are_views_of_the_argument():
    numpys_args, ours_args = CUBE.copy(), CUBE.copy()
    numpys = write_through_moved(numpys_args)
    ours = transpile(write_through_moved)(ours_args)
    np.testing.assert_array_equal(ours_args, numpys_args)
    for got, expected in zip(ours, numpys):
        np.testing.assert_array_equal(got, expected)
    assert aliasing_mismatch([*ours, ours_args], [*numpys, numpys_args]) is None
