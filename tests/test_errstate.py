"""NumPy's floating-point error state: under `np.errstate(... = "raise" | "call" | "print" | "log")` a compiled
function runs as the NumPy code it is, so NumPy raises (calls, prints) exactly as it would; compiling prints no
NumPy warning for what it folds."""
import warnings

import numpy as np
import pytest

from transpiler import transpile
from transpiler.runtime import errstate


@pytest.fixture(autouse=True)
def _fp_warnings_on(monkeypatch):
    """The tests here check NumPy's warnings from compiled calls, which are opt-in (runtime/errstate.py)."""
    monkeypatch.setattr(errstate, "WARNINGS", True)


def ratio(x, y):
    return x / y + 1


def test_errstate_raise_raises_numpys_floating_point_error():
    x, y = np.ones(4), np.array([1.0, 0.0, 2.0, 4.0])
    compiled = transpile(ratio)
    with np.errstate(divide="ignore"):
        expected = ratio(x, y)
    with pytest.warns(RuntimeWarning, match="divide by zero encountered in divide"):   # default state: NumPy's warning
        np.testing.assert_array_equal(compiled(x, y), expected)
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
    with pytest.warns(RuntimeWarning, match="overflow encountered in multiply"):    # the default state: NumPy's warning
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


def _warnings_of(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [(w.category, str(w.message)) for w in caught]


def test_compiling_prints_no_numpy_warning_for_what_it_folds():
    """Compiling folds `1 / np.float64(0)` silently; each call then warns as NumPy does, although the kernel itself
    raises no event for the folded part (x + inf is exact): the folded events are reported by every call."""
    def f(x):
        return x + np.float64(1.0) / 0.0

    compiled = transpile(f)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled.emit(np.ones(2), stage="llvm")                         # the whole compilation: no warning
    for _ in range(2):
        result, caught = _warnings_of(lambda: compiled(np.ones(2)))
        expected, numpy_caught = _warnings_of(lambda: f(np.ones(2)))
        np.testing.assert_array_equal(result, expected)
        assert caught == numpy_caught == [(RuntimeWarning, "divide by zero encountered in scalar divide")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(divide="ignore"):
            np.testing.assert_array_equal(compiled(np.ones(2)), [np.inf, np.inf])


def test_by_default_a_call_gives_numpys_values_and_no_warning(monkeypatch):
    """Unless TRANSPILER_FP_WARNINGS=1, the kernel's floating-point events are not reported (runtime/errstate.py:
    LLVM raises spurious ones): NumPy's values, no RuntimeWarning, no second run as NumPy."""
    monkeypatch.setattr(errstate, "WARNINGS", False)
    x, y = np.array([1.0, 0.0, -1.0, 2.0]), np.array([0.0, 0.0, 0.0, 4.0])
    compiled = transpile(ratio)
    with np.errstate(all="ignore"):
        expected = ratio(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(compiled(x, y), expected)
    assert compiled.replays == 0


def test_the_default_state_gives_numpys_values_and_numpys_warnings():
    """With the warnings on, under the default state (warn) the compiled function issues NumPy's RuntimeWarnings
    (the kernel reports its floating-point events and the call runs again as NumPy, tests/test_fp_warnings.py);
    under `ignore` none."""
    x, y = np.array([1.0, 0.0, -1.0, 2.0]), np.array([0.0, 0.0, 0.0, 4.0])
    compiled = transpile(ratio)
    with np.errstate(all="ignore"):
        expected = ratio(x, y)
        compiled(x, y)                                                   # compiled outside the watch
    result, caught = _warnings_of(lambda: compiled(x, y))
    np.testing.assert_array_equal(result, expected)
    assert caught == _warnings_of(lambda: ratio(x, y))[1] == [(RuntimeWarning, "divide by zero encountered in divide"),
                                                              (RuntimeWarning, "invalid value encountered in divide")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")                                   # any warning fails the test
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(compiled(x, y), expected)
