"""Stacks of products and complex products, one OpenBLAS call per matrix from the kernel's threads
(backend/batched_blas.py): every shape class of np.matmul (equal batches, broadcast batch dims, a matrix against a
stack, 4-D, vectors), sizes of 0 and 1, operands transposed in the kernel or given in Fortran order or strided,
float32/float64/complex64/complex128, GPT-2's attention over all heads; and the kernel never calls back into NumPy
for them."""
import re

import numpy as np
import pytest

from transpiler import emit, transpile
from transpiler.backend import blas_lowering
from transpiler.runtime import blas

RNG_SEED = 28
RNG = np.random.default_rng(RNG_SEED)   # replaced for every test by conftest (from RNG_SEED and the test's name)

DTYPES = ["float32", "float64", "complex64", "complex128"]
# Each dtype's kernels compile anew (size-1 dims and memory orders are compiled in): by default the file runs the
# widest float and the narrowest complex dtype through every shape and layout; the others are marked slow.
FAST_DTYPES = [d if d in ("float64", "complex64") else pytest.param(d, marks=pytest.mark.slow) for d in DTYPES]

# One compiled function for all the tests below: sizes are run-time values, so shapes of one rank and dtype share
# a kernel (the file stays fast).
matmul = transpile(lambda a, b: a @ b)
matmul_swapped = transpile(lambda a, b: a @ np.swapaxes(b, -1, -2))


def arr(shape, dtype):
    x = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dtype)


def assert_product_close(got, a, b):
    """NumPy's dtype and shape, and values within 2 k eps (|a| @ |b|) of NumPy's (both sums of the same exact
    products, in other orders; for complex, each part is a sum of 2k products)."""
    expected = np.matmul(a, b)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    eps = np.finfo(expected.dtype).eps
    k = a.shape[-1]
    bound = 4 * max(k, 1) * eps * np.matmul(np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))
    assert np.all(np.abs(got.astype(np.complex128) - expected) <= bound)


SHAPES = [
    ((4, 5, 6), (4, 6, 7)),            # equal batches
    ((1, 5, 6), (4, 6, 7)),            # a batch dim of 1 on one side
    ((4, 5, 6), (1, 6, 7)),
    ((4, 5, 6), (6, 7)),               # a stack against a matrix
    ((5, 6), (4, 6, 7)),
    ((2, 1, 5, 6), (1, 3, 6, 7)),      # 4-D, both broadcast
    ((2, 3, 5, 6), (3, 6, 7)),
    ((3, 1, 6), (3, 6, 7)),            # m = 1
    ((3, 5, 6), (3, 6, 1)),            # n = 1 (gemv)
    ((3, 5, 1), (3, 1, 7)),            # k = 1
    ((3, 1, 1), (3, 1, 1)),
    ((0, 5, 6), (0, 6, 7)),            # an empty batch
    ((2, 0, 5, 6), (1, 6, 7)),
    ((3, 5, 0), (3, 0, 7)),            # k = 0: zeros
    ((3, 0, 6), (3, 6, 7)),
    ((2, 3, 4), (4,)),                 # vectors against stacks
    ((4,), (2, 4, 3)),
    ((12, 64, 32), (12, 32, 70)),      # enough work for a parallel loop over the batch
    ((1, 300, 200), (200, 150)),       # one large matrix: chunks over the threads
]


# The default suite: each shape on one of float64 and complex64, in turn (every dtype on every shape in the slow suite)
@pytest.mark.parametrize("shapes, dtype", [
    pytest.param(shapes, dtype, id=f"{shapes}-{dtype}",
                 marks=[] if dtype == ("float64", "complex64")[i % 2] else [pytest.mark.slow])
    for i, shapes in enumerate(SHAPES) for dtype in DTYPES])
def test_stacks_match_numpy(shapes, dtype):
    a, b = arr(shapes[0], dtype), arr(shapes[1], dtype)
    assert_product_close(matmul(a, b), a, b)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [((4, 5, 6), (4, 6, 7)), ((2, 3, 5, 6), (3, 6, 7)), ((4, 5, 6), (6, 7))], ids=str)
def test_fortran_order_stacks(shapes, dtype):
    a, b = arr(shapes[0], dtype), arr(shapes[1], dtype)
    assert_product_close(matmul(np.asfortranarray(a), np.asfortranarray(b)), a, b)


# Operands transposed or sliced inside the kernel: (kernel, what NumPy multiplies), a (b, m, k), b (b, k, n) given
# in the stored shapes.
LAYOUTS = {
    "b.transpose": (lambda a, b: a @ b.transpose(0, 2, 1), lambda a, b: (a, b.transpose(0, 2, 1)),
                    lambda bt, m, k, n: ((bt, m, k), (bt, n, k))),
    "a.swapaxes": (lambda a, b: np.swapaxes(a, -1, -2) @ b, lambda a, b: (np.swapaxes(a, -1, -2), b),
                   lambda bt, m, k, n: ((bt, k, m), (bt, k, n))),
    "both": (lambda a, b: a.transpose(0, 2, 1) @ b.transpose(0, 2, 1),
             lambda a, b: (a.transpose(0, 2, 1), b.transpose(0, 2, 1)), lambda bt, m, k, n: ((bt, k, m), (bt, n, k))),
    "batch reversed, strided rows": (lambda a, b: a[::-1, ::2] @ b[:, :, 1:],
                                     lambda a, b: (a[::-1, ::2], b[:, :, 1:]),
                                     lambda bt, m, k, n: ((bt, 2 * m, k), (bt, k, n + 1))),
    "scattered": (lambda a, b: a[:, :, ::2] @ b[:, ::2, ::-1], lambda a, b: (a[:, :, ::2], b[:, ::2, ::-1]),
                  lambda bt, m, k, n: ((bt, m, 2 * k), (bt, 2 * k, n))),
    "broadcast transposed": (lambda a, b: a @ b[0].T, lambda a, b: (a, b[0].T),
                             lambda bt, m, k, n: ((bt, m, k), (1, n, k))),
}


COMPILED_LAYOUTS = {name: transpile(fn) for name, (fn, _, _) in LAYOUTS.items()}


@pytest.mark.parametrize("dtype", FAST_DTYPES)
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("bmkn", [(3, 5, 6, 7), (12, 40, 64, 50), pytest.param((2, 1, 9, 1), marks=pytest.mark.slow)],
                         ids=str)
def test_stacks_in_every_layout(layout, dtype, bmkn):
    fn, operands, shapes = LAYOUTS[layout]
    sa, sb = shapes(*bmkn)
    a, b = arr(sa, dtype), arr(sb, dtype)
    got = COMPILED_LAYOUTS[layout](a, b)
    assert_product_close(got, *operands(a, b))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("shapes", [((5, 6), (6, 7)), ((40, 64), (64, 1)), ((1, 9), (9, 30)), ((0, 3), (3, 4)),
                                    ((4, 0), (0, 3)), ((200, 150), (150, 120)), ((6,), (6, 4)), ((6,), (6,))],
                         ids=str)
def test_complex_matrices_match_numpy(shapes, dtype):
    both_transposed = transpile(lambda a, b: a.T @ b.T)
    a, b = arr(shapes[0], dtype), arr(shapes[1], dtype)
    assert_product_close(matmul(a, b), a, b)
    if a.ndim == b.ndim == 2:
        assert_product_close(both_transposed(a.T.copy(), b.T.copy()), a, b)


def test_complex_products_keep_numpys_special_values():
    """inf and nan propagate as in NumPy's zgemm (whose complex products are the same formulas)."""
    a = np.array([[1 + 1j, np.inf + 0j], [np.nan + 0j, 2 - 1j]])
    b = np.array([[1 + 0j, 0j], [0j, 1 + 0j]])
    got = matmul(a, b)
    with np.errstate(all="ignore"):
        expected = a @ b
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_array_equal(got[np.isfinite(expected)], expected[np.isfinite(expected)])


@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float16", "float32"),
                                    pytest.param(("float64", "float32"), marks=pytest.mark.slow),
                                    pytest.param(("float64", "float16"), marks=pytest.mark.slow)], ids=str)
@pytest.mark.parametrize("shapes", [((4, 5, 6), (4, 6, 7)), ((1, 5, 6), (4, 6, 7)), ((4, 5, 6), (6, 7)),
                                    ((2, 1, 5, 6), (1, 3, 6, 7)), ((3, 5, 0), (3, 0, 7)), ((0, 5, 6), (0, 6, 7)),
                                    ((2, 40, 1100), (1100, 30))], ids=str)   # the last: a narrow operand in two tiles
def test_mixed_stacks_match_numpy(shapes, dtypes):
    a, b = arr(shapes[0], dtypes[0]), arr(shapes[1], dtypes[1])
    assert_product_close(matmul(a, b), a, b)
    bt = np.ascontiguousarray(np.swapaxes(b, -1, -2))
    assert_product_close(matmul_swapped(a, bt), a, b)


def test_stacks_of_two_narrow_operands_widened_by_dtype():
    """np.matmul(float32, float32, dtype=float64): neither operand has the result's dtype (not a BLAS stack)."""
    a, b = arr((3, 20, 30), "float32"), arr((3, 30, 10), "float32")
    got = transpile(lambda a, b: np.matmul(a, b, dtype=np.float64))(a, b)
    expected = np.matmul(a, b, dtype=np.float64)
    assert got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def attention(q, k, v):
    """GPT-2's attention over all heads at once: q, k, v of (heads, T, d)."""
    scores = q @ k.swapaxes(-1, -2) / np.sqrt(q.shape[-1])
    mask = np.triu(np.ones((q.shape[1], q.shape[1]), dtype=bool), 1)
    scores = np.where(mask, -1e10, scores)
    p = np.exp(scores - scores.max(axis=-1, keepdims=True))
    p = p / p.sum(axis=-1, keepdims=True)
    return p @ v


compiled_attention = transpile(attention)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("heads_t_d", [(12, 64, 64), (12, 7, 64), (2, 1, 8)], ids=str)
def test_attention_of_all_heads(dtype, heads_t_d):
    q, k, v = (arr(heads_t_d, dtype) for _ in range(3))
    got = compiled_attention(q, k, v)
    expected = attention(q, k, v)
    assert got.dtype == expected.dtype
    rtol = 1e-4 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol)


def test_float64_stacks_give_numpys_one_thread_bits():
    """With at least as many matrices as cores each matrix is one unsplit gemm call, as NumPy's matmul makes it:
    the bits of NumPy's product with OpenBLAS on one thread."""
    a, b = arr((2 * blas_lowering.usable_cores() + 1, 64, 300), "float64"), arr((300, 50), "float64")
    got = matmul(a, b)
    with blas.single_threaded():
        expected = a @ b
    np.testing.assert_array_equal(got, expected)


def library_calls(fn, *args):
    return set(re.findall(r"call @(\w+)", emit(fn, *args, stage="llvm")))


@pytest.mark.parametrize("dtype, gemm", [("float32", "sgemm"), ("float64", "dgemm"), ("complex64", "cgemm"),
                                         ("complex128", "zgemm")])
@pytest.mark.parametrize("shapes", [((4, 5, 6), (4, 6, 7)), ((1, 5, 6), (4, 6, 7)), ((2, 1, 5, 6), (3, 6, 7)),
                                    ((4, 5, 6), (6, 7))], ids=str)
def test_stacks_call_openblas_from_the_kernel(shapes, dtype, gemm):
    """No callback into NumPy's matmul (whose OpenBLAS threads would spin against the kernel's own), no loops of
    multiply-adds: the kernel calls cblas_?gemm itself."""
    calls = library_calls(lambda a, b: a @ b.swapaxes(-1, -2), arr(shapes[0], dtype),
                          arr(shapes[1], dtype).swapaxes(-1, -2).copy())
    assert f"transpiler_cblas_{gemm}" in calls
    assert not any("matmul" in name for name in calls), calls


def test_mixed_stacks_call_openblas_from_the_kernel():
    calls = library_calls(lambda a, b: a @ b, arr((4, 5, 6), "float32"), arr((4, 6, 7), "float64"))
    assert "transpiler_cblas_dgemm" in calls and not any("matmul" in name for name in calls), calls


def llvm_function(text, name):
    body = text[re.search(rf"llvm\.func (internal )?@{name}\(", text).start():]   # (only C interfaces are external)
    return body[:body.index("\n  }\n")]


@pytest.mark.parametrize("dtype, element", [("float32", "f32"), ("complex128", "complexf64")])
def test_both_ways_of_splitting_a_stack_are_openmp_loops(dtype, element):
    """Over the batch: an OpenMP loop in the stack's helper. One matrix after the other: each through the 2-D
    helper, whose chunk loop is an OpenMP loop of its own (a parallel loop nested in the sequential loop over the
    matrices would run on one thread)."""
    text = emit(lambda a, b: a @ b, arr((3, 5, 6), dtype), arr((3, 6, 7), dtype), stage="llvm")
    stack = llvm_function(text, f"transpiler_batched_{element}_1_a0_b0")
    assert "omp.parallel" in stack and f"llvm.call @transpiler_gemm_{element}(" in stack
    assert "omp.parallel" in llvm_function(text, f"transpiler_gemm_{element}")


def test_complex_matrices_call_zgemm():
    calls = library_calls(lambda a, b: a @ b, arr((5, 6), "complex128"), arr((6, 7), "complex128"))
    assert "transpiler_cblas_zgemm" in calls


@pytest.mark.parametrize("shapes", [((3, 4), (1, 4)), ((2, 3, 4), (1, 1, 4)), ((1, 4), (3, 4))])
def test_a_stack_times_a_broadcast_column_with_a_static_unit_dim(shapes):
    """Regression: `a[:, None, :] @ b[:, :, None]` with b of one row (a batch dim of size 1 dropped, and a last dim
    of static size 1) was an internal compiler error: the rank-reducing slice gave the static dim a dynamic size, a
    type that did not verify."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])

    def f(a, b):
        return a[..., None, :] @ b[..., :, None]
    np.testing.assert_allclose(transpile(f)(a, b), f(a, b), rtol=1e-12)
    a, b = a.reshape(-1, 4), b.reshape(-1, 4)         # NumPy's einsum broadcasts the unit dim of a shared label
    np.testing.assert_allclose(transpile(lambda a, b: np.einsum("ij,ij->i", a, b))(a, b),
                               np.einsum("ij,ij->i", a, b), rtol=1e-12)
