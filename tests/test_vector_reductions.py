"""Reductions split into vector lanes (vector_reductions.py): float max/min and float64 compensated sums, at
lengths around the lane count (a vector part, a scalar tail, or only one of them), with NaN, inf, -inf and signed
zeros in either part, large offsets, nested (all-axes) sums and strided reads."""
import math

import numpy as np
import pytest

from transpiler import emit, transpile
from transpiler.backend.vector_reductions import VECTOR_BYTES

LENGTHS = [1, 7, 31, 32, 33, 63, 64, 65, 100, 1000]
RNG_SEED = 3
RNG = np.random.default_rng(RNG_SEED)   # replaced for every test by conftest (from RNG_SEED and the test's name)


def row_max(x):
    return x.max(axis=-1), np.min(x, axis=-1)


def row_sum(x):
    return x.sum(axis=-1)


def everything(x):
    return np.sum(x), x.max(), np.mean(x * 2), np.var(x, axis=-1)


def fsum_rows(x):
    return np.array([math.fsum(row) for row in x.astype(np.float64)])


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_and_min_are_exactly_numpys(n, dtype):
    x = RNG.standard_normal((6, n)).astype(dtype)
    x[1, n // 2] = np.nan              # in the vector part or the tail, depending on n
    x[2, -1] = np.nan                  # the last element (the tail, when there is one)
    x[3] = -1.0
    x[4, 0] = np.inf
    x[5, -1] = -np.inf
    for got, want in zip(transpile(row_max)(x), row_max(x)):   # (signed zeros: see docs/guarantees.md)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_and_min_of_lanes_combined_as_integers(dtype):
    """The lanes' max/min are combined through integer keys: every lane position, negative values only, NaN with
    either sign bit, infinities, subnormals and the largest magnitudes. Rows long enough for the lanes loop alone
    (no scalar tail: the combined lanes are the answer)."""
    lanes = VECTOR_BYTES * 8 // (8 * np.dtype(dtype).itemsize)
    info = np.finfo(dtype)
    specials = [-np.inf, np.inf, -info.max, info.max, -info.smallest_subnormal, info.smallest_subnormal,
                -info.tiny, info.tiny, -1.5, 2.5]
    rows = []
    for position in range(0, lanes, 7):
        for special in specials:
            row = -np.abs(RNG.standard_normal(2 * lanes)).astype(dtype) - 1     # all negative: -0 < others
            row[position] = special
            rows.append(row)
        for nan_sign in (1.0, -1.0):
            row = RNG.standard_normal(2 * lanes).astype(dtype)
            row[position + lanes] = np.copysign(np.nan, nan_sign)
            rows.append(row)
    x = np.array(rows, dtype=dtype)
    for got, want in zip(transpile(row_max)(x), row_max(x)):
        np.testing.assert_array_equal(got, want)
    zeros = np.zeros((2, 2 * lanes), dtype)
    zeros[0, 3] = -0.0
    for got in transpile(row_max)(zeros):   # (which zero: see docs/guarantees.md)
        np.testing.assert_array_equal(got, 0.0)


@pytest.mark.parametrize("n", LENGTHS)
def test_compensated_sums_stay_within_rounding_of_the_exact_sum(n):
    """Large values that cancel, next to small ones: a plain float64 sum loses the small ones entirely."""
    x = RNG.standard_normal((4, n))
    x[:, ::2] *= 1e16
    x[:, 1::2] *= 1e-3
    x[1] = np.cumsum(np.ones(n)) * 1e10 * (-1) ** np.arange(n)    # alternating large values
    got = transpile(row_sum)(x)
    exact = fsum_rows(x)
    scale = np.abs(x).sum(axis=-1)
    assert np.all(np.abs(got - exact) <= 2 * np.finfo(np.float64).eps * np.abs(exact) + 1e-30 * scale)


@pytest.mark.parametrize("n", [5, 33, 100])
def test_special_values_in_sums(n):
    x = RNG.standard_normal((5, n))
    x[0, n // 2] = np.inf
    x[1, n // 2], x[1, -1] = np.inf, -np.inf   # inf - inf: nan
    x[2, -1] = np.nan
    x[3, 0] = -np.inf
    x[4] = 1e308                               # overflows to inf
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(transpile(row_sum)(x), row_sum(x))


@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 3, 70), (1, 1, 1), (7, 1, 65)], ids=str)
def test_nested_and_fused_reductions(shape):
    x = RNG.standard_normal(shape) * 3 + 100
    got, want = transpile(everything)(x), everything(x)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-13)


def strided(x):
    return x[:, ::2].sum(axis=-1), x[::-1, 1:].max(axis=-1), x.T.sum(axis=-1)


def test_strided_reads_keep_numpys_answer():
    x = RNG.standard_normal((40, 70))
    for g, w in zip(transpile(strided)(x), strided(x)):
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-13)


def test_threaded_equals_sequential():
    x = RNG.standard_normal((3000, 333))
    threaded, sequential = transpile(everything)(x), transpile(everything, threads=False)(x)
    expected = everything(x)
    assert len(threaded) == len(sequential) == len(expected)
    for a, b, e in zip(threaded, sequential, expected):
        np.testing.assert_array_equal(a, b)
        # NumPy is the reference: float64 within the documented 1e-12 (the max is exact)
        np.testing.assert_allclose(a, e, rtol=1e-12, atol=1e-12, strict=True)
    np.testing.assert_array_equal(threaded[1], expected[1], strict=True)


def test_the_llvm_stage_has_vector_reductions():
    text = emit(row_max, np.ones((4, 8)), stage="llvm")
    lanes = VECTOR_BYTES // 8
    # the lanes are combined as integers (vector_reductions._combine_max_min)
    assert f"vector<{lanes}xf64>" in text and "llvm.intr.vector.reduce.smax" in text
    assert "llvm.intr.vector.reduce.smin" in text
    text = emit(row_sum, np.ones((4, 8)), stage="llvm")
    assert f"vector<{lanes}xf64>" in text


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_sum_of_gathered_elements_is_not_read_as_contiguous_lanes(dtype):
    """x[ids].sum(): the loads' addresses come from ids, so the lanes are not x[i:i + lanes]. The vector rewrite
    used to build a load at a vector of addresses (an internal compiler error)."""
    def gathered_sum(x, ids):
        return np.take(x, ids).sum()

    x = np.arange(200, dtype=dtype) * dtype(0.5)
    ids = np.random.default_rng(0).integers(0, 200, 137)
    assert transpile(gathered_sum)(x, ids) == gathered_sum(x, ids)


def test_reductions_over_expanded_math_are_vector_reductions():
    """The expansions (backend/vector_math.py) use arith ops and LLVM's fma and sqrt only: a float64 sum over sin,
    arcsin, tanh, expm1 or arctan2 still runs on vectors (its accumulator promoted to a register first), with
    NumPy's answer. Sums over sin and arcsin used to stay scalar loops (fma and sqrt kept their accumulators in
    memory)."""
    def sin_sum(x):
        return np.sum(np.sin(x), axis=-1)

    def arcsin_sum(x):
        return np.sum(np.arcsin(x), axis=-1)

    def mixed_sum(x):
        return np.sum(np.tanh(x) + np.arctan2(x, 0.5) * np.expm1(x), axis=-1)

    lanes = VECTOR_BYTES // 8
    x = np.random.default_rng(3).uniform(-1, 1, (5, 1001))
    for fn in (sin_sum, arcsin_sum, mixed_sum):
        assert f"vector<{lanes}xf64>" in emit(fn, np.ones((4, 8)), stage="llvm"), fn.__name__
        np.testing.assert_allclose(transpile(fn)(x), fn(x), rtol=1e-12, atol=1e-12)
