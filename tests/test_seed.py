"""The seed article's examples, exactly as written there (see ../shared/seed/README.md)."""
import numpy as np
import pytest

from transpiler import transpile


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def test_gelu_seed():
    x = np.linspace(-5, 5, 31, dtype=np.float32)
    y = transpile(gelu)(x)
    expected = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    np.testing.assert_allclose(y, expected, rtol=2e-6, atol=2e-6)
    assert y.dtype == expected.dtype == np.float64


def test_gelu_with_transpiler_primitives():
    from transpiler import sqrt, tanh

    def gelu2(x):
        return 0.5 * x * (1 + tanh(sqrt(2 / np.pi) * (x + 0.044715 * x**3)))

    x = np.linspace(-5, 5, 31, dtype=np.float32)
    y = transpile(gelu2)(x)
    expected = gelu2(x)  # the primitives also run eagerly
    np.testing.assert_allclose(y, expected, rtol=2e-6, atol=2e-6)
    assert y.dtype == expected.dtype == np.float64


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1,), (7,), (3, 1000), (2, 3, 5)])
def test_gelu_shapes(dtype, shape):
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype) * 3
    y = transpile(gelu)(x)
    expected = gelu(x)
    assert y.dtype == expected.dtype == np.float64
    np.testing.assert_allclose(y, expected, rtol=2e-6, atol=2e-6)


# ---- conftest: a module's RNG restarts for every test (#20 item 9) -------------------------------------------------
RNG_SEED = 99
RNG = np.random.default_rng(RNG_SEED)


@pytest.mark.parametrize("draws_before", [0, 5])
def test_module_rng_restarts_for_every_test(draws_before):
    """Whatever this module's earlier tests drew, each test's RNG is a generator fresh from RNG_SEED and its name."""
    from conftest import rng_for_test
    import os
    name = os.environ["PYTEST_CURRENT_TEST"].split("::")[-1].split(" ")[0]
    RNG.random(draws_before)   # noqa: F821 - the global, replaced by conftest
    expected = rng_for_test(RNG_SEED, name).random(draws_before + 3)[draws_before:]
    np.testing.assert_array_equal(RNG.random(3), expected)
