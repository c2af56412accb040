"""NumPy's floating-point error state: under `np.errstate(... = "raise" | "call" | "print" | "log")` a compiled
function runs as the NumPy code it is, so NumPy raises (calls, prints) exactly as it would; compiling prints no
NumPy warning for what it folds."""
import warnings

import numpy as np
import pytest

from transpiler import transpile


def ratio(x, y):
    return x / y + 1


def test_errstate_raise_raises_numpys_floating_point_error():
    x, y = np.ones(4), np.array([1.0, 0.0, 2.0, 4.0])
    compiled = transpile(ratio)
    with np.errstate(divide="ignore"):
        expected = ratio(x, y)
    np.testing.assert_array_equal(compiled(x, y), expected)             # default state: the kernel
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError, match="divide by zero encountered in divide"):
            compiled(x, y)
        np.testing.assert_array_equal(compiled(x, y + 1), ratio(x, y + 1))   # nothing to raise: same values
    with np.errstate(all="ignore"):                                       # quiet states keep the kernel
        np.testing.assert_array_equal(compiled(x, y), expected)
    assert compiled.compilations == 1


def test_errstate_call_and_a_global_seterr_are_honoured():
    calls = []
    compiled = transpile(ratio)
    with np.errstate(invalid="call", call=lambda kind, flag: calls.append(kind)):
        compiled(np.zeros(2), np.zeros(2))
    assert calls == ["invalid value"]
    old = np.seterr(over="raise")
    try:
        with pytest.raises(FloatingPointError, match="overflow"):
            transpile(lambda x: x * x)(np.array([1e200]))
    finally:
        np.seterr(**old)
    np.testing.assert_array_equal(transpile(lambda x: x * x)(np.array([1e200])), [np.inf])


def test_under_raise_an_argument_written_in_place_changes_as_in_numpy():
    def scale(a, d):
        a[0] = 5.0
        a /= d
        return a

    a, b = np.ones(3), np.ones(3)
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            transpile(scale)(a, np.zeros(3))
        with pytest.raises(FloatingPointError):
            scale(b, np.zeros(3))
    np.testing.assert_array_equal(a, b)                                  # the write before the error happened


def test_compiling_prints_no_numpy_warning_for_what_it_folds():
    def f(x):
        return x + np.float64(1.0) / 0.0 + np.log(np.float64(0.0))

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = transpile(f)(np.ones(2))
    assert np.all(np.isnan(result))          # 1 + inf - inf, as NumPy computes it


def test_the_default_state_gives_numpys_values_and_no_warning():
    """The one documented difference (guarantees.md, floating-point events): under the default state (warn) and under
    `ignore`, the kernel runs, gives NumPy's inf and nan, and issues no RuntimeWarning where NumPy warns. When the
    kernel learns to warn, this test fails and the documentation changes with it."""
    x, y = np.array([1.0, 0.0, -1.0, 2.0]), np.array([0.0, 0.0, 0.0, 4.0])
    compiled = transpile(ratio)
    with np.errstate(all="ignore"):
        expected = ratio(x, y)
        compiled(x, y)                                                   # compiled outside the watch
    with pytest.warns(RuntimeWarning):
        ratio(x, y)                                                      # NumPy warns
    with warnings.catch_warnings():
        warnings.simplefilter("error")                                   # any warning fails the test
        np.testing.assert_array_equal(compiled(x, y), expected)
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(compiled(x, y), expected)
