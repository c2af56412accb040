"""Matrix products against NumPy: 1-D, 2-D, batched with broadcast batch dims, mixed dtypes."""
import numpy as np
import pytest

from helpers import check, some_slow_pairs
from transpiler import emit, transpile

RNG_SEED = 5
RNG = np.random.default_rng(RNG_SEED)   # replaced for every test by conftest (from RNG_SEED and the test's name)


def arr(shape, dtype=np.float32):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return RNG.standard_normal(shape).astype(dt)
    if dt.kind == "b":
        return RNG.random(shape) < 0.5
    return RNG.integers(-9, 9, size=shape).astype(dt)


SHAPES = [((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)), ((4,), (4,)), ((2, 3, 4), (2, 4, 5)),
          ((2, 3, 4), (4, 5)), ((4,), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((1, 3, 4), (6, 4, 2)),
          ((7, 1), (1, 6)), ((0, 4), (4, 3)), ((3, 0), (0, 2))]


# half of the shape x dtype grid in the default suite (float32 and int32 on every other shape, float64 on the others),
# the whole grid in the slow suite
@pytest.mark.parametrize("shapes, dtype", some_slow_pairs(SHAPES, [np.float32, np.float64, np.int32], every=2),
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_matmul_shapes(shapes, dtype):
    a, b = arr(shapes[0], dtype), arr(shapes[1], dtype)
    rtol = 1e-5 if dtype == np.float32 else None
    check(lambda a, b: a @ b, a, b, rtol=rtol, atol=rtol)
    check(lambda a, b: np.matmul(a, b), a, b, rtol=rtol, atol=rtol)
    if a.ndim <= 2 and b.ndim <= 2:
        check(lambda a, b: np.dot(a, b), a, b, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("pair", [(np.float32, np.float64), (np.float64, np.float32), (np.int32, np.float32),
                                  (np.int8, np.int16), (np.uint8, np.int32), (bool, bool), (bool, np.float32),
                                  (np.float16, np.float32)], ids=str)
def test_matmul_mixed_dtypes(pair):
    a, b = arr((3, 5), pair[0]), arr((5, 2), pair[1])
    check(lambda a, b: a @ b, a, b)     # the documented tolerance of the result's dtype (float64: 1e-12)


def test_mixed_matmul_reads_operands_without_converting_copies():
    text = emit(lambda a, b: a @ b, arr((3, 5), np.float32), arr((5, 2), np.float64))
    assert "linalg.matmul" in text and "tensor<?x?xf32>" in text
    assert "arith.extf" not in text.split("linalg.matmul")[0]   # no separate conversion of the float32 operand


def test_matmul_lowers_to_named_ops():
    """2-D float products are linalg.matmul; float stacks (broadcast or not, mixed or not) linalg.contract (BLAS per
    matrix, backend/batched_blas.py); integer stacks a linalg.generic contraction (loops)."""
    assert "linalg.matmul" in emit(lambda a, b: a @ b, arr((3, 4)), arr((4, 5)))
    assert "linalg.contract" in emit(lambda a, b: a @ b, arr((2, 3, 4)), arr((2, 4, 5)))
    assert "linalg.contract" in emit(lambda a, b: a @ b, arr((2, 3, 4)), arr((4, 5)))
    assert "linalg.contract" in emit(lambda a, b: a @ b, arr((2, 3, 4)), arr((1, 4, 5), np.float64))
    text = emit(lambda a, b: a @ b, arr((2, 3, 4), np.int32), arr((4, 5), np.int32))
    assert "linalg.generic" in text and "linalg.contract" not in text


def test_matmul_mismatch_is_value_error():
    with pytest.raises(ValueError):
        arr((3, 4)) @ arr((5, 2))
    with pytest.raises(ValueError):
        transpile(lambda a, b: a @ b)(arr((3, 4)), arr((5, 2)))
    with pytest.raises(ValueError):
        transpile(lambda a, b: a @ b, static_shapes=True)(arr((3, 4)), arr((5, 2)))


def test_matmul_results_are_scalars_for_vectors():
    a = arr((4,))
    out = transpile(lambda a: a @ a)(a)
    assert isinstance(out, np.float32)
    np.testing.assert_allclose(out, a @ a, rtol=1e-6)


@pytest.mark.parametrize("shapes", [((2, 3, 4), (4, 5)), ((4,), (2, 4, 5)), ((2, 3, 4), (6, 4, 2)),
                                    ((3, 4), (2, 4, 5)), ((2, 1, 4), (3, 2, 4, 2))], ids=str)
def test_dot_of_nd_arrays_sums_over_the_last_and_second_to_last_axes(shapes):
    a, b = arr(shapes[0], np.float64), arr(shapes[1], np.float64)
    check(lambda a, b: np.dot(a, b), a, b)
    check(lambda a, b: a.dot(b), a, b)


# each row count on half of the dtype pairs in the default suite (each pair on half of the row counts), the whole grid
# in the slow suite
@pytest.mark.parametrize("m, pair", some_slow_pairs([0, 1, 7, 16, 17, 64, 65],
                                                    [(np.float64, np.float32), (np.float32, np.float64),
                                                     (np.float16, np.float64), (np.float64, np.float16),
                                                     (np.float32, np.float32), (np.float64, np.float64)], every=2),
                         ids=str)
@pytest.mark.parametrize("transposed", [False, True])
def test_mixed_products_with_few_rows(m, pair, transposed):
    """Below the few-row limit of matmul_lowering.FEW_ROWS (tests/test_mixed_few_rows.py), mixed float products run as
    generated loops that widen a narrow operand element by element (rows in blocks of ROW_BLOCK, then one by one);
    above, NumPy's BLAS. Both sum the same exact products: equal to NumPy to rounding."""
    a = arr((m, 33), pair[0])
    if transposed:
        w = arr((29, 33), pair[1])
        fn, expected = (lambda a, w: a @ w.T), a @ w.T
    else:
        w = arr((33, 29), pair[1])
        fn, expected = (lambda a, w: a @ w), a @ w
    got = transpile(fn)(a, w)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    scale = np.abs(a).astype(np.float64) @ np.abs(w.T if transposed else w).astype(np.float64)
    eps = np.finfo(expected.dtype).eps     # both errors are within k eps |a| @ |b| (k = 33 products per sum)
    assert np.all(np.abs(got - expected) <= 2 * a.shape[1] * eps * scale)


def test_mixed_products_with_few_rows_and_empty_inner_dim():
    a, w = arr((3, 0), np.float64), arr((0, 4), np.float32)
    np.testing.assert_array_equal(transpile(lambda a, w: a @ w)(a, w), np.zeros((3, 4)))


def test_small_row_products_branch_on_the_row_count():
    """The llvm stage has both ways: the widening loops and the BLAS call, chosen by the run-time row count."""
    text = emit(lambda a, w: a @ w.T, arr((4, 8), np.float64), arr((6, 8), np.float32), stage="llvm")
    assert "llvm.call @transpiler_cblas_dgemm" in text and "llvm.fpext" in text


def normalize_twice(x, g, w):
    h = (x - np.mean(x, axis=-1, keepdims=True)) * g @ w
    return (h - np.mean(h, axis=-1, keepdims=True)) * g @ w    # the second np.mean is a call: an [n, 1] result


def normalize_twice_transposed(x, g, w):
    h = (x - np.mean(x, axis=-1, keepdims=True)) * g @ w
    return (h - np.mean(h, axis=-1, keepdims=True)) * g @ w.T  # a product read through a transposed map


@pytest.mark.parametrize("fn", [normalize_twice, normalize_twice_transposed])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_product_after_a_called_keepdims_result_stays_a_matrix_product(dtype, fn):
    """Fusion folded the reshape of the call's [n, 1] result into the product by giving it a unit loop: a
    linalg.generic that ran as a plain loop nest (12x slower in a GPT-2 block) instead of BLAS. It is a named
    linalg.matmul again after optimization."""
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((10, 64)), rng.standard_normal((64, 64)).astype(np.float32)
    x, g = x.astype(dtype), rng.standard_normal(64).astype(np.float32)
    text = emit(fn, x, g, w, stage="optimized")
    assert "call @mean" in text and text.count("linalg.matmul") == 2
    assert '"parallel", "parallel", "parallel", "reduction"' not in text
    if dtype == np.float64:   # (float32: two chained products and a centering, beyond the one-product bound)
        check(fn, x, g, w)


F16_TERMS = np.array([0.0, 0.0001983642578125, 0.0001983642578125, 3.0, -3.0], dtype=np.float16)


@pytest.mark.parametrize("shapes", [((5,), (5,)), ((2, 5), (5, 3)), ((2, 1, 5), (5, 2)), ((5,), (2, 5, 3))])
def test_float16_products_sum_in_float32_as_numpy_does(shapes):
    """NumPy's float16 products sum in float32 and round once. Few-row products ran generated loops that rounded to
    float16 at every step (x @ x of F16_TERMS: 1e-07 where NumPy gives 6e-08), as did broadcast batches."""
    a, b = (np.resize(F16_TERMS, s) for s in shapes)
    expected = a @ b
    got = transpile(lambda x, y: x @ y)(a, b)
    assert np.asarray(got).dtype == np.float16 and np.shape(got) == np.shape(expected)
    np.testing.assert_array_equal(got, expected)


# each size on half of the dtype cases in the default suite, the whole grid in the slow suite
@pytest.mark.parametrize("mkn, pair_dtype", some_slow_pairs(
    [(3, 4, 5), (40, 30, 20), (100, 70, 1), (0, 3, 4), (5, 0, 4), (70, 1100, 9)],
    [((np.float32, np.float32), np.float64), ((np.float16, np.float16), np.float32),
     ((np.float16, np.float32), np.float64)], every=2), ids=str)
@pytest.mark.parametrize("transposed", [False, True])
def test_matmul_into_a_dtype_wider_than_both_operands(mkn, pair_dtype, transposed):
    """np.matmul(a32, b32, dtype=np.float64): both operands widened (an internal compiler error before: the BLAS
    path widened one narrow operand only)."""
    (m, k, n), (pair, dtype) = mkn, pair_dtype
    a = arr((m, k), pair[0])
    b = arr((n, k), pair[1]).T if transposed else arr((k, n), pair[1])
    fn = (lambda a, b: np.matmul(a, b.T, dtype=dtype)) if transposed else (lambda a, b: np.matmul(a, b, dtype=dtype))
    args = (a, np.ascontiguousarray(b.T)) if transposed else (a, b)
    expected = fn(*args)
    got = transpile(fn)(*args)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    scale = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
    assert np.all(np.abs(got - expected) <= 2 * max(k, 1) * np.finfo(dtype).eps * scale)
