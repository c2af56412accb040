"""The seed's transformer kernels: softmax and layer norm (and GELU), from stdlib/nn.py and as written inline."""
import numpy as np
import pytest

from helpers import assert_same, check
from transpiler import emit, transpile
from transpiler.stdlib import nn

RNG_SEED = 3
RNG = np.random.default_rng(RNG_SEED)   # replaced for every test by conftest (from RNG_SEED and the test's name)


def softmax(x):
    numerator = np.exp(x - x.max(axis=-1, keepdims=True))
    return numerator / numerator.sum(axis=-1, keepdims=True)


def layer_norm(x, gain, bias):
    centered = x - x.mean(axis=-1, keepdims=True)
    variance = (centered * centered).mean(axis=-1, keepdims=True)
    return gain * centered / np.sqrt(variance + 1e-5) + bias


@pytest.mark.parametrize("fn", [softmax, nn.softmax])
def test_seed_softmax(fn):
    x = np.array([[10000, 9999, -10000], [-10000, -9999, -10001], [0, -np.inf, -np.inf]], dtype=np.float32)
    p = transpile(fn)(x)
    np.testing.assert_allclose(p.sum(axis=-1), 1, atol=1e-6)
    assert p[2, 0] == 1
    assert_same(p, fn(x))


@pytest.mark.parametrize("shape", [(3, 7), (4, 16, 16), (2, 3, 5, 9), (1, 1), (5,)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_shapes(shape, dtype):
    x = (RNG.standard_normal(shape) * 10).astype(dtype)
    check(nn.softmax, x)


def test_softmax_causal_rows():
    t = 6
    x = RNG.standard_normal((2, t, t)).astype(np.float32)
    mask = (1 - np.tri(t, dtype=np.float32)) * -1e10
    check(lambda x, m: nn.softmax(x + m), x, mask)


@pytest.mark.parametrize("fn", [layer_norm, nn.layer_norm])
@pytest.mark.parametrize("shape", [(4, 8), (2, 5, 768), (3, 1)])
def test_layer_norm_constant_rows_give_bias(fn, shape):
    x = np.full(shape, 3.25, dtype=np.float32)
    g = RNG.standard_normal(shape[-1]).astype(np.float32)
    b = RNG.standard_normal(shape[-1]).astype(np.float32)
    y = transpile(fn)(x, g, b)
    np.testing.assert_array_equal(y, np.broadcast_to(b, shape))
    assert y.dtype == fn(x, g, b).dtype


@pytest.mark.parametrize("fn", [layer_norm, nn.layer_norm])
@pytest.mark.parametrize("dtype, offset", [(np.float64, 1e6), (np.float32, 0.0), (np.float32, 1e3)])
def test_layer_norm_random_rows_with_offset(fn, dtype, offset):
    x = (RNG.standard_normal((6, 768)) + offset).astype(dtype)
    g = RNG.standard_normal(768).astype(dtype)
    b = RNG.standard_normal(768).astype(dtype)
    expected = fn(x, g, b)
    y = transpile(fn)(x, g, b)
    # float32: the row mean itself is only known to an ulp of the offset, in NumPy as here
    eps = np.finfo(dtype).eps
    atol = 4 * eps * max(offset, 1) * np.abs(g).max()
    np.testing.assert_allclose(y, expected, rtol=1e-5 if dtype == np.float32 else 1e-13, atol=atol)
    assert y.dtype == expected.dtype


def test_layer_norm_on_hTT_input():
    x = RNG.standard_normal((3, 5, 5)).astype(np.float32)
    check(nn.layer_norm, x, np.ones(5, np.float32), np.zeros(5, np.float32), rtol=1e-5, atol=1e-5)
    check(lambda x: nn.softmax(x), x)


def test_gelu_library_function():
    x = np.linspace(-5, 5, 31, dtype=np.float32)
    y = transpile(nn.gelu)(x)
    assert y.dtype == np.float64
    np.testing.assert_allclose(y, nn.gelu(x), rtol=2e-6, atol=2e-6)


def test_optimized_softmax_has_fewer_linalg_ops():
    x = np.ones((4, 8), np.float64)
    before = emit(nn.softmax, x, stage="mlir")
    after = emit(nn.softmax, x, stage="optimized")

    def count(text):
        return sum(text.count(f"linalg.{op}") for op in ("generic", "reduce", "fill", "map", "broadcast"))
    assert count(after) < count(before)
    assert after.count("math.exp") == 1          # the shared numerator is computed once


@pytest.mark.parametrize("stage", ["typed", "mlir", "optimized", "llvm"])
@pytest.mark.parametrize("fn", [nn.softmax, nn.layer_norm])
def test_every_stage_with_dynamic_and_static_dims(stage, fn):
    from test_cli import run      # the CLI's main() in this process (test_cli.py runs the command itself too)
    args = ["--arg", "x=float32[?,768]"] if fn is nn.softmax else [
        "--arg", "x=float32[?,768]", "--arg", "g=float32[768]", "--arg", "b=float32[768]"]
    r = run("stdlib/nn.py", "--function", fn.__name__, *args, "--emit", stage)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip()
    if stage in ("mlir", "optimized"):
        assert "tensor<?x768xf32>" in r.stdout
