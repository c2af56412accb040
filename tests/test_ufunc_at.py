"""`np.add.at` and the other ufuncs' `at` (stdlib/functions.ufunc_at): unbuffered in-place updates, a repeated index
applied again, compiled and compared with NumPy's own `at` on copies of the same arguments: the array's contents and
dtype, the exception (with the array untouched, as NumPy checks every index before it writes) and the warnings."""
import copy
import warnings

import numpy as np
import pytest

from transpiler import transpile
from transpiler.errors import CompileError
from transpiler.runtime import errstate

from helpers import some_slow


def add_at(a, idx, b):
    np.add.at(a, idx, b)
    return a


def at_of_each_ufunc(a, idx, b):
    np.subtract.at(a, idx, b)
    np.multiply.at(a, idx, b)
    np.maximum.at(a, idx, b)
    np.minimum.at(a, (idx,), b)
    return a


def power_at(a, idx, b):
    np.power.at(a, idx, b)


def negative_at(a, idx):
    np.negative.at(a, idx)
    return a


def embedding_gradient(grad_table, tokens, grad_rows):
    """The backward pass of an embedding lookup `table[tokens]`: rows of a repeated token add up."""
    np.add.at(grad_table, tokens, grad_rows)
    return grad_table


def histogram_counts(x, nbins):
    counts = np.zeros(nbins, dtype=np.int64)
    bins = np.minimum(((x - x.min()) / (x.max() - x.min()) * nbins).astype(np.int64), nbins - 1)
    np.add.at(counts, bins, 1)
    return counts


@pytest.fixture(autouse=True)
def _fp_warnings_on(monkeypatch):
    """NumPy's warnings compared too: compiled calls report them (opt-in, as in test_fp_warnings.py), and NumPy's
    run here is not under conftest's errstate(all="ignore")."""
    monkeypatch.setattr(errstate, "WARNINGS", True)


def _effects(fn, args):
    """What fn does to copies of args: its result, the arguments after, its exception type, its warnings."""
    args = copy.deepcopy(args)
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
        warnings.simplefilter("always")
        try:
            result, error = fn(*args), None
        except Exception as e:
            result, error = None, type(e)
    return result, args, error, {(w.category, str(w.message)) for w in caught}


def assert_as_numpy(fn, *args):
    expected, ref_args, ref_error, ref_warnings = _effects(fn, args)
    got, got_args, error, got_warnings = _effects(transpile(fn), args)
    assert error is ref_error
    for ours, numpys in zip(got_args, ref_args):
        if isinstance(numpys, np.ndarray):
            assert ours.dtype == numpys.dtype
            np.testing.assert_array_equal(ours, numpys)
    if ref_error is None and expected is not None:
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    assert got_warnings == ref_warnings


rng = np.random.default_rng(7)
VECTOR = (rng.normal(size=6) * 5)
MATRIX = (rng.normal(size=(3, 4)) * 5)


@pytest.mark.parametrize("dtype", some_slow([np.float64, np.float32, np.int64, np.int8, np.uint8, np.complex128],
                                             default=(np.float64, np.int8)), ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("idx, b", [
    (np.array([0, 1, 1, 5]), 1.5),            # a repeated index adds twice; a Python float
    (np.array([0, -1, 2, 2]), 300),           # negative indices; a Python int that int8 wraps (NumPy makes it int64)
    (np.array([0, 1, 1]), np.array([1.0, 2.0, 3.0], np.float32)),
    (np.array([4, 6]), 1.0),                  # out of bounds: IndexError, nothing written
], ids=["repeated", "negative-and-large", "array-values", "out-of-bounds"])
def test_add_at_is_numpys(dtype, idx, b):
    assert_as_numpy(add_at, VECTOR.astype(dtype), idx, b)


@pytest.mark.parametrize("dtype", [np.float64, np.int32], ids=lambda d: np.dtype(d).name)
def test_at_of_other_ufuncs_is_numpys(dtype):
    assert_as_numpy(at_of_each_ufunc, VECTOR.astype(dtype), np.array([2, 0, 2, 2, 5]),
                    np.array([3, -1, 0.5, 2, 7]).astype(dtype))


def test_rows_and_index_tuples_are_numpys():
    # one index array picks rows, the values broadcast along them; a tuple of index arrays broadcasts together
    assert_as_numpy(add_at, MATRIX, np.array([0, 2, 0]), np.arange(4.0))
    assert_as_numpy(add_at, MATRIX, (np.array([[0], [2]]), np.array([1, 3, 3])), np.float32(2.5))
    assert_as_numpy(add_at, MATRIX, (np.array([0, 2, 0]), np.array([1, 1, 1])), np.array([1.0, 2.0, 3.0]))
    assert_as_numpy(add_at, MATRIX, (np.array([0, 2]), np.array([1, 4])), 1.0)     # axis 1 out of bounds
    assert_as_numpy(add_at, MATRIX[:, ::2], np.array([1, 1]), np.array([[1.0], [10.0]]))   # a strided view


def test_power_and_warnings_are_numpys():
    # float32 to the power of a float64 array computes in float64 and rounds back; a negative base gives nan
    # (int8: NumPy's cast of nan, with its warning, "invalid value encountered in at")
    assert_as_numpy(power_at, VECTOR.astype(np.float32), np.array([0, 1, 1, 5]), np.array(1.5))
    assert _effects(power_at, (VECTOR.astype(np.int8), np.array([0, 1, 1, 5]), 1.5))[3]
    assert_as_numpy(power_at, VECTOR.astype(np.int8), np.array([0, 1, 1, 5]), 1.5)


def test_unary_at_is_numpys():
    assert_as_numpy(negative_at, VECTOR, np.array([1, 1, 3]))
    assert_as_numpy(negative_at, MATRIX.astype(np.int16), np.array([2]))


def test_type_errors_come_before_index_errors():
    def bitwise_at(a, idx, b):
        np.bitwise_or.at(a, idx, b)
    with pytest.raises(TypeError):
        bitwise_at(VECTOR.copy(), np.array([0, 9]), 1.0)
    with pytest.raises(TypeError):
        transpile(bitwise_at)(VECTOR.copy(), np.array([0, 9]), 1.0)


def test_embedding_gradient_and_histogram():
    tokens = rng.integers(0, 50, size=200)
    assert_as_numpy(embedding_gradient, np.zeros((50, 8), np.float32), tokens,
                    rng.normal(size=(200, 8)).astype(np.float32))
    assert_as_numpy(histogram_counts, rng.normal(size=1000), 12)


def test_masks_and_slices_are_refused_with_a_clear_error():
    def masked(a, m):
        np.add.at(a, m, 1.0)
        return a

    def sliced(a):
        np.add.at(a, slice(1, 3), 1.0)
        return a
    with pytest.raises(CompileError, match="boolean mask"):
        transpile(masked)(VECTOR.copy(), VECTOR > 0)
    with pytest.raises(CompileError, match="slice"):
        transpile(sliced)(VECTOR.copy())
