"""Attention from stdlib/nn.py (plain NumPy style) compiled and compared with its NumPy run."""
import numpy as np
import pytest

from helpers import assert_same, tolerance
from transpiler import emit, transpile
from transpiler.stdlib import nn

RNG_SEED = 9
RNG = np.random.default_rng(RNG_SEED)   # replaced for every test by conftest (from RNG_SEED and the test's name)


def params(d, dtype=np.float32):
    def lin(i, o):
        return {"w": (RNG.standard_normal((i, o)) * 0.2).astype(dtype), "b": (RNG.standard_normal(o) * 0.1).astype(dtype)}
    return {"c_attn": lin(d, 3 * d), "c_proj": lin(d, d)}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 7, 16])
def test_scaled_dot_product_attention_causal(n, dtype):
    q, k, v = (RNG.standard_normal((n, 8)).astype(dtype) for _ in range(3))

    def f(q, k, v):
        return nn.attention(q, k, v, nn.causal_mask(q.shape[0], q.dtype))
    expected = f(q, k, v)
    out = transpile(f)(q, k, v)
    assert out.dtype == expected.dtype == np.float64        # np.sqrt(d) is a float64 NumPy scalar
    tol = tolerance(dtype)      # float32 inputs: the scores are a float32 product (float32's 2e-6); float64: 1e-12
    np.testing.assert_allclose(out, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("n_head", [1, 2, 4])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_multi_head_attention_dynamic_length(n_head, dtype):
    d = 16
    p = params(d, dtype)
    f = transpile(nn.mha)
    for n in (2, 5, 11):
        x = RNG.standard_normal((n, d)).astype(dtype)
        expected = nn.mha(x, **p, n_head=n_head)
        out = f(x, **p, n_head=n_head)
        assert out.dtype == expected.dtype
        np.testing.assert_allclose(out, expected, rtol=tolerance(dtype), atol=tolerance(dtype))
    assert f.compilations == 1      # one kernel for every sequence length


def test_mha_static_shapes():
    p = params(8)
    x = RNG.standard_normal((5, 8)).astype(np.float32)
    # float64 results (np.sqrt(d)) of float32 products: float32's 2e-6
    assert_same(transpile(nn.mha, static_shapes=True)(x, **p, n_head=2), nn.mha(x, **p, n_head=2), rtol=2e-6,
                atol=2e-6)


def test_attention_mlir_shows_matmul_and_reduce():
    x = np.ones((4, 8), np.float32)
    text = emit(nn.mha, x, **params(8), n_head=2)
    assert "linalg.matmul" in text and "linalg.reduce" in text
