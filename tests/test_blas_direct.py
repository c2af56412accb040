"""Float products that call NumPy's OpenBLAS from the kernel's own threads (blas_lowering.py): every layout a view
can give an operand (transposed, reversed, strided, size-1 dims), mixed precision (the narrow operand widened tile by
tile, the last tile partial), odd and empty sizes, threads on and off, concurrent callers; and OpenBLAS's own thread
setting is left as it was."""
import threading

import numpy as np
import pytest

from helpers import some_slow, some_slow_pairs
from transpiler import emit, transpile
from transpiler.runtime import blas
from transpiler.backend import blas_lowering


def test_numpys_openblas_is_found():
    """The pinned NumPy ships its ILP64 OpenBLAS: not finding it is a failure, never a reason to skip the tests
    below (they would all pass against NumPy's matmul callback instead, including the bit-exact one)."""
    assert blas.direct_available()


RNG_SEED = 11
RNG = np.random.default_rng(RNG_SEED)   # replaced for every test by conftest (from RNG_SEED and the test's name)


def arr(shape, dtype):
    return RNG.standard_normal(shape).astype(dtype)


def assert_product_close(got, a, b):
    """Within k eps (|a| @ |b|) of NumPy's product (both are sums of the same exact products, in other orders)."""
    expected = a @ b
    assert got.dtype == expected.dtype and got.shape == expected.shape
    eps = np.finfo(expected.dtype).eps
    bound = 2 * max(a.shape[-1], 1) * eps * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64))
    assert np.all(np.abs(got.astype(np.float64) - expected) <= bound)


# Operand views made inside the kernel: (function of a, b; what NumPy multiplies), for a of shape (m, k), b (k, n)
# given in the stored shapes below.
LAYOUTS = {
    "plain": (lambda a, b: a @ b, lambda a, b: (a, b), lambda m, k, n: ((m, k), (k, n))),
    "a.T": (lambda a, b: a.T @ b, lambda a, b: (a.T, b), lambda m, k, n: ((k, m), (k, n))),
    "b.T": (lambda a, b: a @ b.T, lambda a, b: (a, b.T), lambda m, k, n: ((m, k), (n, k))),
    "both.T": (lambda a, b: a.T @ b.T, lambda a, b: (a.T, b.T), lambda m, k, n: ((k, m), (n, k))),
    "reversed": (lambda a, b: a[::-1] @ b[:, ::-1], lambda a, b: (a[::-1], b[:, ::-1]),
                 lambda m, k, n: ((m, k), (k, n))),
    "strided": (lambda a, b: a[::2, ::3] @ b[::3], lambda a, b: (a[::2, ::3], b[::3]),
                lambda m, k, n: ((2 * m, 3 * k), (3 * k, n))),
    "rows of a slice": (lambda a, b: a[1:, 2:] @ b[2:, :-1], lambda a, b: (a[1:, 2:], b[2:, :-1]),
                        lambda m, k, n: ((m + 1, k + 2), (k + 2, n + 1))),
}


# the default suite: three of the six dtype pairs, each layout on half of the sizes (each size in half of the layouts)
@pytest.mark.parametrize("dtypes", some_slow([("float32", "float32"), ("float64", "float64"), ("float64", "float32"),
                                              ("float32", "float64"), ("float16", "float32"), ("float64", "float16")],
                                             (("float32", "float32"), ("float64", "float32"), ("float16", "float32"))),
                         ids=str)
@pytest.mark.parametrize("layout, mkn", some_slow_pairs(list(LAYOUTS), [(17, 1, 1), (33, 7, 1000), (1000, 7, 1),
                                                                       (40, 1000, 7), (20, 5, 2100), (2100, 5, 20)],
                                                      every=2), ids=str)   # the last two: a narrow operand in three tiles
def test_products_match_numpy_in_every_layout(layout, dtypes, mkn):
    fn, operands, shapes = LAYOUTS[layout]
    sa, sb = shapes(*mkn)
    a, b = arr(sa, dtypes[0]), arr(sb, dtypes[1])
    got = transpile(fn)(a, b)
    assert_product_close(got, *operands(a, b))


@pytest.mark.parametrize("shapes", [((20, 0), (0, 5)), ((0, 4), (4, 3)), ((20, 4), (4, 0)), ((40, 0), (0, 2000)),
                                    ((0, 5), (5, 2000)), ((2000, 0), (0, 3))], ids=str)
@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float64", "float64"), ("float64", "float32"),
                                    ("float32", "float64")], ids=str)
def test_empty_products(shapes, dtypes):
    a, b = arr(shapes[0], dtypes[0]), arr(shapes[1], dtypes[1])
    got = transpile(lambda a, b: a @ b)(a, b)
    np.testing.assert_array_equal(got, a @ b)
    assert got.dtype == (a @ b).dtype


@pytest.mark.parametrize("fn", [lambda a, b: a[:, 2:3] @ b[2:3, :], lambda a, b: a.T[:, 1:2] @ b[1:2, ::-1],
                                lambda a, b: a[:, ::-1][:, :1] @ b.T[:1, :].T.T, lambda a, b: a @ b[:, 3:4]],
                         ids=["k=1", "k=1 transposed", "k=1 reversed", "n=1"])
def test_strides_along_a_dim_of_size_one_do_not_matter(fn):
    """A dim of size 1 may have any stride (BLAS never steps along it); the leading dimension is still valid."""
    a, b = arr((40, 40), "float64"), arr((40, 40), "float32")
    with np.errstate(all="ignore"):
        expected = fn(a, b)
    got = transpile(fn)(a, b)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtypes", [("float64", "float64"), ("float64", "float32"), ("float32", "float32")], ids=str)
def test_threaded_products_equal_sequential_ones(dtypes):
    """Chunks split the output, never a sum. OpenBLAS's float64 products then give the same bits whatever the
    chunks; its float32 ones do not (NumPy's own float32 products change with OpenBLAS's thread count too), so those
    are checked to rounding."""
    a, b = arr((300, 70), dtypes[0]), arr((70, 900), dtypes[1])
    fn = lambda a, b: (a @ b, a @ b[:, :200].T.T)   # noqa: E731  split along n, then along m
    threaded, sequential = transpile(fn)(a, b), transpile(fn, threads=False)(a, b)
    for x, y, b_used in zip(threaded, sequential, (b, b[:, :200])):
        if x.dtype == np.float64:
            np.testing.assert_array_equal(x, y)
        assert_product_close(x, a, b_used)
        assert_product_close(y, a, b_used)


@pytest.mark.parametrize("transposed", [False, True])
def test_float64_products_are_numpys_bit_for_bit(transposed):
    """float64 @ float32: the float32 operand widened tile by tile and each tile multiplied into its columns, in
    chunks over the threads, gives the bits of NumPy's single conversion and product as OpenBLAS computes it on one
    thread. (NumPy's own product on two OpenBLAS threads differs from that in the last bits on some CPUs: measured
    1e-14 on a Zen 5 with AVX-512 kernels, so no product can match NumPy's bit for bit at every thread count.)"""
    a = arr((300, 70), "float64")
    w = arr((2500, 70) if transposed else (70, 2500), "float32")
    fn = (lambda a, w: a @ w.T) if transposed else (lambda a, w: a @ w)
    with blas.single_threaded():
        expected = fn(a, w)
    np.testing.assert_array_equal(transpile(fn)(a, w), expected)


@pytest.mark.parametrize("m, k, n", [(16, 300, 100), (17, 64, 2), (64, 64, 64), (40, 7, 16)])
def test_the_bit_for_bit_rule_for_float64_products(m, k, n):
    """The rule docs/guarantees.md states: a float64 product with at least 16 rows (16 itself included; BLAS
    below too, down to 2 rows, but OpenBLAS's kernels for fewer rows need not sum as NumPy's call does), at least 2
    columns (NumPy calls gemv for one) and too few multiply-adds to be split into
    chunks (2 x CHUNK_MIN_MACS) is bit for bit NumPy's product as OpenBLAS computes it on one thread, threads or
    not. A split product is within 2 k eps (|a| @ |b|) of NumPy's, and the same with and without threads."""
    a, b = arr((m, k), "float64"), arr((k, n), "float64")
    assert m * k * n < 2 * blas_lowering.CHUNK_MIN_MACS
    with blas.single_threaded():
        expected = a @ b
    for threads in (False, True):
        np.testing.assert_array_equal(transpile(lambda a, b: a @ b, threads=threads)(a, b), expected)


@pytest.mark.parametrize("m, k, n", [(300, 700, 300), (2000, 64, 17), (16, 300, 300)])
def test_split_float64_products_are_the_same_with_and_without_threads(m, k, n):
    a, b = arr((m, k), "float64"), arr((k, n), "float64")
    threaded = transpile(lambda a, b: a @ b)(a, b)
    np.testing.assert_array_equal(threaded, transpile(lambda a, b: a @ b, threads=False)(a, b))
    assert_product_close(threaded, a, b)


@pytest.mark.parametrize("m, k, n", [(15, 300, 300), (1, 16, 1), (300, 300, 1), (16, 64, 1), (1, 300, 300),
                                     (2, 300, 100), (4, 64, 2)])
def test_float64_products_outside_the_rule_are_within_rounding(m, k, n):
    a, b = arr((m, k), "float64"), arr((k, n), "float64")
    for threads in (False, True):
        assert_product_close(transpile(lambda a, b: a @ b, threads=threads)(a, b), a, b)


def test_openblas_thread_setting_is_restored_and_concurrent_callers_agree():
    lib = blas._openblas()
    before = lib.get_threads()
    a, b = arr((200, 64), "float32"), arr((64, 300), "float64")
    compiled = transpile(lambda a, b: np.tanh(a @ b))
    expected = compiled(a, b)
    assert lib.get_threads() == before
    results, errors = [], []

    def work():
        try:
            for _ in range(20):
                results.append(compiled(a, b))
        except Exception as e:   # noqa: BLE001  reported below
            errors.append(e)
    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors and len(results) == 60
    for r in results:
        np.testing.assert_array_equal(r, expected)
    assert lib.get_threads() == before
    np.testing.assert_allclose(expected, np.tanh(a @ b), rtol=1e-12, atol=1e-12)


def test_products_call_openblas_and_float16_ones_call_numpy():
    text = emit(lambda a, b: a @ b, arr((30, 4), "float64"), arr((4, 5), "float32"), stage="llvm")
    assert "llvm.call @transpiler_cblas_dgemm" in text and "linalg_matmul" not in text
    text = emit(lambda a, b: a @ b, arr((2, 30, 4), "float32"), arr((2, 4, 5), "float32"), stage="llvm")
    assert "llvm.call @transpiler_cblas_sgemm" in text and "linalg_batch_matmul" not in text   # batched_blas.py
    text = emit(lambda a, b: a @ b, arr((30, 4), "float16"), arr((4, 5), "float16"), stage="llvm")
    assert "linalg_matmul" in text and "transpiler_cblas" not in text   # no half-precision BLAS
