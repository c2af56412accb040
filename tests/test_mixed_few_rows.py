"""Mixed-precision products around the few-row threshold (matmul_lowering.FEW_ROWS, a measured cost model: below
its row count the kernel runs loops that widen the narrow operand element by element, from it on it converts the
narrow operand and calls BLAS). Both sides must give NumPy's answer to rounding, at the limit and next to it."""
import numpy as np
import pytest

from transpiler import emit, transpile
from transpiler.backend import blas_lowering, matmul_lowering

RNG_SEED = 17
RNG = np.random.default_rng(RNG_SEED)   # replaced for every test by conftest (from RNG_SEED and the test's name)

PAIRS = [(np.float64, np.float32), (np.float32, np.float64), (np.float64, np.float16), (np.float16, np.float64)]


def product(transposed):
    return (lambda a, w: a @ w.T) if transposed else (lambda a, w: a @ w)


def check_product(fn, m, k, n, pair, transposed):
    a = RNG.standard_normal((m, k)).astype(pair[0])
    w = RNG.standard_normal((n, k) if transposed else (k, n)).astype(pair[1])
    expected = a @ w.T if transposed else a @ w
    got = fn(a, w)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    scale = np.abs(a).astype(np.float64) @ np.abs(w.T if transposed else w).astype(np.float64)
    eps = np.finfo(expected.dtype).eps     # both sums are within k eps |a| @ |w| of the exact one
    assert np.all(np.abs(got - expected) <= 2 * max(k, 1) * eps * scale)


def model_limit(pair, transposed, k, n):
    """The limit the kernel computes at run time for this product (a transpiled function runs on threads)."""
    narrow = "b" if np.dtype(pair[1]).itemsize < np.dtype(pair[0]).itemsize else "a"
    threaded = blas_lowering.usable_cores() > 1
    return matmul_lowering.few_rows_limit(matmul_lowering.FEW_ROWS[narrow, transposed, threaded], k, n)


@pytest.mark.parametrize("k, n", [(33, 29), (768, 16), (3072, 8)], ids=str)
@pytest.mark.parametrize("pair", PAIRS, ids=str)
@pytest.mark.parametrize("transposed", [False, True])
def test_mixed_products_at_and_around_the_model_limit(k, n, pair, transposed):
    """m from one row to past the limit: the loops below it, convert + BLAS from it on."""
    fn = transpile(product(transposed))
    limit = model_limit(pair, transposed, k, n)
    for m in sorted({1, 2, max(limit - 1, 1), max(limit, 1), limit + 1, limit + 5}):
        check_product(fn, m, k, n, pair, transposed)


@pytest.mark.parametrize("pair", PAIRS[:2], ids=str)
@pytest.mark.parametrize("transposed", [False, True])
def test_a_limit_that_depends_on_the_inner_size_is_computed_at_run_time(pair, transposed, monkeypatch):
    """A model with a k term (m < 2 + k // 4093): one kernel for every shape, its limit 2 rows for k = 100, 3 for
    k = 4093, 5 for k = 12279; every m around each gives NumPy's answer."""
    monkeypatch.setattr(matmul_lowering, "FEW_ROWS", {key: (2, 4093) for key in matmul_lowering.FEW_ROWS})
    fn = transpile(product(transposed), disk_cache=False)
    a, w = np.ones((3, 4), pair[0]), np.ones((5, 4) if transposed else (4, 5), pair[1])
    assert "4093" in emit(product(transposed), a, w, stage="llvm")     # the k term is in the kernel
    for (k, n), limit in (((100, 7), 2), ((4093, 5), 3), ((12279, 3), 5)):
        assert matmul_lowering.few_rows_limit((2, 4093), k, n) == limit
        for m in range(1, limit + 3):
            check_product(fn, m, k, n, pair, transposed)


def test_empty_products_around_the_limit():
    """k = 0 or n = 0, and entries without a k term."""
    assert matmul_lowering.few_rows_limit((3, 100), 0, 5) == 3 and matmul_lowering.few_rows_limit((3, 0), 50, 5) == 3
    fn = transpile(lambda a, w: a @ w)
    np.testing.assert_array_equal(fn(np.ones((4, 0)), np.ones((0, 3), np.float32)), np.zeros((4, 3)))
    assert fn(np.ones((4, 7)), np.ones((7, 0), np.float32)).shape == (4, 0)
