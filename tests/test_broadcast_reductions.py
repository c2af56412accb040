"""Reductions of fused broadcasts (issue 17, item 3): `np.sum(np.abs(x[:, None, :] - y), axis=-1)` and
`np.sum((p[None] - p[:, None]) ** 2, -1) ** 0.5` fuse into one loop nest that reduces along the contiguous axis,
with no (n, m, d) temporary, and give NumPy's answer to rounding."""
import re

import numpy as np
import pytest

from transpiler import emit, transpile

RNG_SEED = 23
RNG = np.random.default_rng(RNG_SEED)   # replaced for every test by conftest (from RNG_SEED and the test's name)


def l1_distances(x, y):
    return np.sum(np.abs(x[:, None, :] - y), axis=-1)


def pairwise_distances(p):
    return np.sum((p[None] - p[:, None]) ** 2, -1) ** 0.5


def squared_distances_keepdims(x, y):
    return np.sum((x[:, None, :] - y[None, :, :]) ** 2, axis=2, keepdims=True)


def max_abs_difference(x, y):
    return np.max(np.abs(x[:, None, :] - y), axis=-1)


SHAPES = [(1, 1), (3, 1), (1, 5), (7, 3), (20, 16), (33, 64), (5, 257), (0, 4), (4, 0)]


def check(fn, args, dtype):
    expected, got = fn(*args), transpile(fn)(*args)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    # sums of d terms of size ~1: float32 NumPy's pairwise sum and ours (float64 accumulators) within d eps
    tolerance = (max(args[0].shape[-1], 1) + 2) * np.finfo(dtype).eps
    np.testing.assert_allclose(got, expected, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_broadcast_reductions_match_numpy(shape, dtype):
    n, d = shape
    x, y = RNG.random((n, d)).astype(dtype), RNG.random((max(n - 1, 0) or n, d)).astype(dtype)
    check(l1_distances, (x, y), dtype)
    check(pairwise_distances, (x,), dtype)
    check(squared_distances_keepdims, (x, y), dtype)
    if d:   # (max over an empty axis raises, as NumPy's does: tested elsewhere)
        check(max_abs_difference, (x, y), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values_in_broadcast_reductions(dtype):
    x = RNG.random((4, 6)).astype(dtype)
    y = RNG.random((3, 6)).astype(dtype)
    x[0, 1], x[1, 2], y[2, 3] = np.inf, np.nan, -np.inf
    with np.errstate(invalid="ignore"):
        check(l1_distances, (x, y), dtype)
        check(pairwise_distances, (x,), dtype)


@pytest.mark.parametrize("fn, arity", [(l1_distances, 2), (pairwise_distances, 1), (squared_distances_keepdims, 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_no_three_dimensional_temporary(fn, arity, dtype):
    """The broadcast difference, its abs or square and the sum are one loop nest: no (n, m, d) buffer. (Folding the
    unit dims of the broadcast first left reshapes between them that fusion did not cross: three passes over an
    (n, m, d) temporary, 0.39x NumPy for float32 p (100, 256).)"""
    args = [RNG.random((6, 5)).astype(dtype) for _ in range(arity)]
    text = emit(fn, *args, stage="optimized")
    temporaries = re.findall(r"tensor\.empty\([^)]*\) : tensor<([^>]*)>", text)
    assert temporaries and not [t for t in temporaries if t.count("?") >= 3]
