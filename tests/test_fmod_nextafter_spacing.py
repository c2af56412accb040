"""np.fmod, np.nextafter and np.spacing: C's fmod (frem, libm's) and integer remainder with the dividend's sign,
libm's nextafter, NumPy's spacing by it: bit for bit NumPy's, with NumPy's warnings (reported when they are on,
as in test_fp_warnings.py); float16 steps are refused (NumPy steps in float16 bits)."""
import warnings

import numpy as np
import pytest

from transpiler import transpile
from transpiler.errors import CompileError
from transpiler.runtime import errstate


@pytest.fixture(autouse=True)
def _fp_warnings_on(monkeypatch):
    monkeypatch.setattr(errstate, "WARNINGS", True)


def fmod(a, b):
    return np.fmod(a, b)


def nextafter(a, b):
    return np.nextafter(a, b)


def spacing(a):
    return np.spacing(a)


def _run(fn, *args):
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
        warnings.simplefilter("always")
        result = fn(*args)
    return result, sorted({str(w.message) for w in caught})


def _operands(dtype):
    rng = np.random.default_rng(11)
    if np.dtype(dtype).kind == "f":
        big = np.finfo(dtype).max
        a = np.concatenate([rng.normal(size=40) * 10, [np.inf, -np.inf, np.nan, 0.0, -0.0, 5.5, -5.5, big, -big,
                                                      np.finfo(dtype).smallest_subnormal]])
        b = np.concatenate([rng.normal(size=40), [2.0, 0.0, 1.0, 3.0, 3.0, 0.0, np.inf, np.inf, 1.0, 0.0]])
        return a.astype(dtype), b.astype(dtype)
    info = np.iinfo(dtype)
    a = np.concatenate([rng.integers(info.min, info.max, size=40, dtype=dtype), [info.min, info.max, 0, 7, -7 if
                                                                                  info.min else 7]]).astype(dtype)
    b = np.concatenate([rng.integers(1, 100, size=40, dtype=dtype), [-1 if info.min else 1, 0, 3, 0, 3]]).astype(dtype)
    return a, b


def _assert_bits(got, expected):
    assert got[1] == expected[1]            # the warnings
    assert got[0].dtype == expected[0].dtype and got[0].shape == expected[0].shape
    assert got[0].tobytes() == expected[0].tobytes()


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.int64, np.int32, np.int8, np.uint8,
                                   np.uint64], ids=lambda d: np.dtype(d).name)
def test_fmod_is_numpys_bit_for_bit(dtype):
    a, b = _operands(dtype)
    _assert_bits(_run(transpile(fmod), a, b), _run(fmod, a, b))


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=lambda d: np.dtype(d).name)
def test_nextafter_and_spacing_are_numpys_bit_for_bit(dtype):
    a, b = _operands(dtype)
    _assert_bits(_run(transpile(nextafter), a, b), _run(nextafter, a, b))
    _assert_bits(_run(transpile(spacing), a), _run(spacing, a))
    ints = np.array([1, -2, 0, 2**40])          # (int64 steps in float64, as NumPy's)
    _assert_bits(_run(transpile(spacing), ints), _run(spacing, ints))


def test_float16_steps_are_refused():
    with pytest.raises(CompileError, match="float16"):
        transpile(spacing)(np.ones(3, np.float16))
    with pytest.raises(CompileError, match="float16"):
        transpile(nextafter)(np.ones(3, np.int8), np.zeros(3, np.int8))
