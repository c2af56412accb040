"""Reductions against NumPy: every reduction x axes (int, negative, tuple, None) x keepdims x dtypes."""

import numpy as np
import pytest

from helpers import assert_same, check
from transpiler import CompileError, emit, transpile

RNG_SEED = 7
RNG = np.random.default_rng(RNG_SEED)   # replaced for every test by conftest (from RNG_SEED and the test's name)
DTYPES = ["bool", "int8", "int32", "int64", "uint8", "uint32", "float16", "float32", "float64"]
AXES = [None, 0, 1, -1, -3, (0, 2), (-1, -2), (0, 1, 2)]


def sample(dtype, shape=(3, 4, 5)):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return RNG.random(shape) < 0.6
    if dt.kind == "f":
        return (RNG.standard_normal(shape) * 3).astype(dt)
    lo = 0 if dt.kind == "u" else -20
    return RNG.integers(lo, 20, size=shape).astype(dt)


REDUCTIONS = {
    "sum": lambda x, axis, keepdims: np.sum(x, axis=axis, keepdims=keepdims),
    "prod": lambda x, axis, keepdims: np.prod(x, axis=axis, keepdims=keepdims),
    "max": lambda x, axis, keepdims: np.max(x, axis=axis, keepdims=keepdims),
    "min": lambda x, axis, keepdims: x.min(axis=axis, keepdims=keepdims),
    "mean": lambda x, axis, keepdims: np.mean(x, axis=axis, keepdims=keepdims),
    "var": lambda x, axis, keepdims: x.var(axis=axis, keepdims=keepdims),
    "std": lambda x, axis, keepdims: np.std(x, axis=axis, keepdims=keepdims),
    "any": lambda x, axis, keepdims: np.any(x, axis=axis, keepdims=keepdims),
    "all": lambda x, axis, keepdims: x.all(axis=axis, keepdims=keepdims),
}


UNIT_ROUNDOFF = {np.dtype(np.float16): 2.0 ** -11, np.dtype(np.float32): 2.0 ** -24, np.dtype(np.float64): 2.0 ** -53}


def prod_rtol(x: np.ndarray, result) -> float:
    """docs/guarantees.md, "float prod": a product of n factors, multiplied in another order or rounded differently
    (NumPy keeps a float16 running product in float32, the kernel rounds each step), is within (n - 1) u of the exact
    product in each, relative, so the two differ by at most 2 (n - 1) u (atol 0)."""
    n = x.size // max(np.size(result), 1)
    return 2 * max(n - 1, 0) * UNIT_ROUNDOFF[x.dtype]


# keepdims only reshapes the reduced result, whatever the dtype: the default suite runs it on THREE_DTYPES (a float,
# an int, a bool), and every dtype without it (axis None and -1; the other axes on THREE_DTYPES); the slow suite runs
# keepdims on every dtype too, and the other axes
THREE_DTYPES = ["float32", "int32", "bool"]
DEFAULT_AXES = (None, -1, (0, 2), (0, 1, 2))


def axis_cases():
    cases = []
    for axis in AXES:
        every = DTYPES if axis in (None, -1) else THREE_DTYPES
        groups = [(False, every), (True, THREE_DTYPES), (True, [d for d in every if d not in THREE_DTYPES])]
        for i, (keepdims, dtypes) in enumerate(g for g in groups if g[1]):
            slow = axis not in DEFAULT_AXES or i == 2
            cases.append(pytest.param(axis, keepdims, dtypes, id=f"{axis}-{keepdims}-{len(dtypes)}dtypes",
                                      marks=[pytest.mark.slow] if slow else []))
    return cases


@pytest.mark.parametrize("axis, keepdims, dtypes", axis_cases())
@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reductions_axes(name, axis, keepdims, dtypes):
    fn = REDUCTIONS[name]
    for dtype in dtypes:
        if name in ("var", "std") and dtype == "bool":
            continue
        x = sample(dtype)
        if name == "prod" and np.dtype(dtype).kind == "f":
            x = (np.abs(x) % 2 + 0.5).astype(dtype)
            rtol = prod_rtol(x, fn(x, axis, keepdims))
            for arg in (x, np.asfortranarray(x)):   # NumPy multiplies a Fortran array in its memory order
                check(lambda x: fn(x, axis, keepdims), arg, rtol=rtol, atol=0.0)
            continue
        check(lambda x: fn(x, axis, keepdims), x)


# np.argmax(x, axis=...) on every dtype; the method's keepdims=True only reshapes the result: the default suite runs
# it on THREE_DTYPES and int64 (its loops over the index and the int64 value fuse differently: loops.py), the slow
# suite on every dtype
ARG_CASES = [(dtype, keepdims) if not keepdims or dtype in THREE_DTYPES + ["int64"]
             else pytest.param(dtype, keepdims, marks=pytest.mark.slow)
             for keepdims in (False, True) for dtype in DTYPES]


@pytest.mark.parametrize("dtype, keepdims", ARG_CASES)
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reductions(name, dtype, keepdims):
    f = getattr(np, name)
    x = sample(dtype)
    for axis in (None, 0, 1, -1):
        if keepdims:
            check(lambda x: getattr(x, name)(axis=axis, keepdims=True), x)
        else:
            check(lambda x: f(x, axis=axis), x)


def test_arg_reductions_ties_and_nan():
    x = np.array([[1.0, 3.0, 3.0, -np.inf], [np.nan, 2.0, np.nan, 5.0], [-np.inf, -np.inf, -np.inf, -np.inf]])
    check(lambda x: (np.argmax(x, axis=1), np.argmin(x, axis=1), np.argmax(x), np.argmin(x)), x)


def test_reduction_dtypes_follow_numpy():
    for dtype in DTYPES:
        x = sample(dtype)
        check(lambda x: (x.sum(), x.prod(axis=0), x.max(), x.any(), np.mean(x, axis=1)), x)
    check(lambda x: np.sum(x, axis=1, dtype=np.float64), sample("float32"))
    check(lambda x: x.sum(dtype=np.int8), sample("int32"))
    check(lambda x: np.mean(x, dtype=np.float32), sample("int32"))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_nan_and_inf_in_reductions(dtype):
    x = np.array([[1.0, np.nan, 3.0, 1.0], [np.inf, 1.0, -np.inf, 2.0], [-0.0, 0.0, 2.0, np.inf],
                  [1.0, np.inf, 2.0, 3.0], [-np.inf, 1.0, 1e300, -1e300]], dtype=dtype)
    check(lambda x: (np.max(x, axis=1), np.min(x, axis=0), np.sum(x, axis=1), x.any(axis=0), x.all(axis=1),
                     np.mean(x, axis=1)), x)


def test_zero_size_reductions():
    x = np.zeros((3, 0), np.float32)
    check(lambda x: (x.sum(axis=1), x.prod(axis=1), x.any(axis=1), x.all(axis=1), x.sum(axis=0)), x)
    f = transpile(lambda x: x.max(axis=1))
    with pytest.raises(ValueError):
        np.max(x, axis=1)
    with pytest.raises(ValueError):
        f(x)
    with pytest.raises(ValueError):
        transpile(lambda x: np.argmax(x))(np.zeros((0,), np.float32))
    check(lambda x: x.max(axis=0), x)  # reducing the non-empty axis is fine


def test_axis_errors():
    with pytest.raises(CompileError) as e:
        transpile(lambda x: x.sum(axis=3))(sample("float32"))
    assert isinstance(e.value, np.exceptions.AxisError)
    with pytest.raises(ValueError):
        transpile(lambda x: x.sum(axis=(0, 0)))(sample("float32"))


def test_large_offset_sum_and_variance():
    x = (RNG.standard_normal((4, 1000)) + 1e4).astype(np.float64)
    check(lambda x: (np.var(x, axis=-1), np.std(x, axis=1, ddof=1), np.mean(x, axis=-1)), x)


def test_shape_and_size_of_runtime_dims():
    def f(x):
        n = x.shape[-1]
        return x.sum(axis=-1) / n, x.size, len(x)
    x = sample("float32", (3, 7))
    out = transpile(f)(x)
    expected = f(x)
    assert_same(out[0], expected[0])
    assert out[1] == expected[1] and out[2] == expected[2]


def test_reduction_mlir_uses_linalg_reduce_on_filled_init():
    text = emit(lambda x: np.max(x, axis=-1), sample("float32"))
    assert "linalg.reduce" in text and "linalg.fill" in text and "0xFF800000" in text  # -inf identity
    text = emit(lambda x: x.sum(axis=(0, 2)), sample("int32"))
    assert "linalg.reduce" in text and "dimensions = [0, 2]" in text
