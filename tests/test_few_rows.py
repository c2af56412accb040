"""Same-type products of 2 to 8 rows (not 7) by a large row-major matrix run our register-blocked loops, compiled
once per process (backend/few_rows.py, runtime/few_rows_library.py): NumPy's results within `2 k eps` of
`|a| @ |b|`, float32 and float64, every row count around the limits, the columns after the last whole vector, any
layout of `a`, the same bits with and without threads; a product outside the limits calls OpenBLAS as before; a
failed compilation of the loops still gives the product (NumPy's matmul)."""
import numpy as np
import pytest

from transpiler import transpile
from transpiler.backend import few_rows
from transpiler.runtime import few_rows_library


def arr(shape, dtype, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def within_rounding(got, a, b):
    expected = a @ b
    assert got.dtype == expected.dtype and got.shape == expected.shape
    bound = 2 * max(a.shape[-1], 1) * np.finfo(expected.dtype).eps * (np.abs(a).astype(np.float64) @
                                                                     np.abs(b).astype(np.float64))
    assert np.all(np.abs(got.astype(np.float64) - expected) <= bound)


def product(a, b):
    return a @ b


# b of 4 MB and more, at least 256 columns, some not a multiple of a vector's lanes
SIZES = {"float32": [(1024, 1100), (4100, 256)], "float64": [(600, 1001), (2048, 263)]}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("m", [1, 2, 3, 4, 5, 6, 7, 8, 9, 16])
def test_few_rows_match_numpy(dtype, m):
    for i, (k, n) in enumerate(SIZES[dtype]):
        a, b = arr((m, k), dtype, m + i), arr((k, n), dtype, 100 + i)
        within_rounding(transpile(product)(a, b), a, b)
    if 2 <= m <= few_rows.MAX_ROWS and m != 7:
        assert few_rows.SYMBOLS["f" + dtype[5:]] in few_rows_library._compiled


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layouts_of_a_and_b(dtype):
    """a strided or transposed (read element by element); b or c without contiguous rows take OpenBLAS."""
    k, n = SIZES[dtype][0]
    a, b = arr((8, 2 * k), dtype, 1), arr((k, n), dtype, 2)
    within_rounding(transpile(product)(a[:, ::2], b), a[:, ::2], b)
    at = np.asfortranarray(a[:, :k])
    within_rounding(transpile(product)(at, b), at, b)
    bt = np.asfortranarray(b)
    within_rounding(transpile(product)(a[:, :k], bt), a[:, :k], bt)
    within_rounding(transpile(lambda a, w: a @ w.T)(a[:5, :k], np.ascontiguousarray(b.T)), a[:5, :k], b)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_threads_do_not_change_the_bits(dtype):
    k, n = SIZES[dtype][0]
    a, b = arr((6, k), dtype, 3), arr((k, n), dtype, 4)
    np.testing.assert_array_equal(transpile(product, threads=True)(a, b), transpile(product, threads=False)(a, b))


def test_layers_with_bias_and_relu():
    """The MLP benchmark's pattern: a product, a bias, a relu, then the next product."""
    def layers(x, w1, b1, w2):
        return np.maximum(x @ w1 + b1, 0) @ w2

    x, w1, b1, w2 = (arr((8, 3), "float32", 5), arr((3, 2048), "float32", 6), arr(2048, "float32", 7),
                     arr((2048, 700), "float32", 8))
    got = transpile(layers)(x, w1, b1, w2)
    h = np.maximum(x @ w1 + b1, 0)
    within_rounding(got, h, w2)


def test_special_values_propagate():
    a, b = arr((4, 1024), "float32", 9), arr((1024, 1100), "float32", 10)
    a[1, 5], b[7, 3], b[9, 1000] = np.inf, np.nan, np.inf
    a[2, 9] = 0.0
    got = transpile(product)(a, b)
    with np.errstate(invalid="ignore"):
        expected = a @ b
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(expected))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_last_columns_are_computed_as_the_others(dtype):
    """The columns after the last whole vector (one masked vector) have the bits of the same columns computed in
    whole vectors; infinite elements of `a` make their rows infinite, and only those."""
    k, n = SIZES[dtype][0]
    lanes = few_rows.VECTOR_BYTES // np.dtype(dtype).itemsize
    assert n % lanes
    a, wide = arr((8, k), dtype, 13), arr((k, n + lanes - n % lanes), dtype, 14)
    compiled = transpile(product)
    np.testing.assert_array_equal(compiled(a, wide[:, :n]), compiled(a, wide)[:, :n])
    b = np.random.default_rng(15).uniform(1, 2, (k, n)).astype(dtype)
    a[0, 5], a[3, 7] = np.inf, -np.inf
    got = compiled(a, b)
    assert np.all(got[0] == np.inf) and np.all(got[3] == -np.inf) and np.isfinite(np.delete(got, [0, 3], 0)).all()


def test_a_failed_compilation_still_gives_the_product(monkeypatch):
    def fail(symbol):
        raise RuntimeError("no compiler today")

    monkeypatch.setattr(few_rows_library, "_compiled", {})
    monkeypatch.setattr(few_rows_library, "_compile", fail)
    k, n = SIZES["float64"][0]
    a, b = arr((3, k), "float64", 11), arr((k, n), "float64", 12)

    def fresh(a, b):      # a kernel compiled now, bound to the callback
        return a @ b

    within_rounding(transpile(fresh)(a, b), a, b)
