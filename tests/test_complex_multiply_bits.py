"""Complex products bit for bit: NumPy's array loop uses fused multiply-adds for complex64 as for complex128
(`fma(ar, br, -(ai*bi))`, `fma(ar, bi, ai*br)` on an AVX-512 machine), its scalar code (NumPy scalars) none.

complex64 arrays were multiplied without them: 44% of random products differed in the last bit, and
`(1e30+infj) * (1e30+1j)` was nan+infj where NumPy gives -inf+infj; NumPy scalars of both dtypes were multiplied
with them (about 40% differed)."""
import numpy as np
import pytest

from transpiler import transpile


def _fused_products_seen() -> bool:
    """Whether this machine's NumPy multiplies complex64 arrays with fused multiply-adds (its AVX-512 loop)."""
    rng = np.random.default_rng(5)
    a = (rng.standard_normal(256) + 1j * rng.standard_normal(256)).astype(np.complex64)
    b = (rng.standard_normal(256) + 1j * rng.standard_normal(256)).astype(np.complex64)
    plain = a.real * b.real - a.imag * b.imag
    return bool((plain != (a * b).real).any())


def multiply(a, b):
    return a * b


def multiply_element_by_element(a, b):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] * b[i]
    return out


def random_complex(dtype, n, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)


@pytest.mark.skipif(not _fused_products_seen(), reason="this machine's NumPy multiplies complex64 without fma")
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("n", [1, 3, 17, 4000])
def test_array_products_are_numpys_bit_for_bit(dtype, n):
    a, b = random_complex(dtype, n, 1), random_complex(dtype, n, 2)
    np.testing.assert_array_equal(transpile(multiply)(a, b), a * b)


@pytest.mark.skipif(not _fused_products_seen(), reason="this machine's NumPy multiplies complex64 without fma")
def test_complex64_products_near_overflow_are_numpys():
    a = np.array([1e30 + np.inf * 1j, 3.4e38 + 1j, 1e30 + 1e30j], np.complex64)
    b = np.array([1e30 + 1j, 1e30 + np.inf * 1j, 1e30 - 1e30j], np.complex64)
    with np.errstate(all="ignore"):
        expected = a * b
    actual = transpile(multiply)(a, b)
    np.testing.assert_array_equal(actual.real, expected.real)
    np.testing.assert_array_equal(actual.imag, expected.imag)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_numpy_scalar_products_are_numpys_scalar_code(dtype):
    a, b = random_complex(dtype, 2000, 3), random_complex(dtype, 2000, 4)
    np.testing.assert_array_equal(transpile(multiply_element_by_element)(a, b), multiply_element_by_element(a, b))


def prod_all(a):
    return a.prod()


def prod_rows(a):
    return a.prod(axis=0)


def prod_last(a):
    return a.prod(axis=-1)


@pytest.mark.skipif(not _fused_products_seen(), reason="this machine's NumPy multiplies complex64 without fma")
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("fn", [prod_all, prod_rows, prod_last])
def test_products_of_reductions_are_numpys(fn, dtype):
    """Along the last axis (or all) NumPy's reduce loop multiplies without fused multiply-adds, along another axis
    its array loop with them (acc * row)."""
    for seed in range(4):
        rng = np.random.default_rng(seed)
        a = ((1 + 0.1 * rng.standard_normal((8, 8))) + 0.1j * rng.standard_normal((8, 8))).astype(dtype)
        for x in (a, a[0]) if fn is prod_all else (a,):
            np.testing.assert_array_equal(transpile(fn)(x), fn(x))
