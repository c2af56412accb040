"""Differential testing against NumPy: the function's own NumPy run is the reference."""
from __future__ import annotations

import copy
import importlib.util

import numpy as np
import pytest

from transpiler import transpile

# Tolerances per result dtype: transcendental functions come from libm (NumPy uses its own SIMD code), and float16
# results are computed in float32 and rounded, so results match to rounding, not bit for bit.
RTOL = {np.dtype(np.float16): 2e-3, np.dtype(np.float32): 2e-6, np.dtype(np.float64): 1e-12}
# complex: relative to the magnitude |expected| (a part can cancel: (a*b).real is ar*br - ai*bi), the same bounds
RTOL.update({np.dtype(np.complex64): 2e-6, np.dtype(np.complex128): 1e-12})


def tolerance(dtype) -> float:
    return RTOL.get(np.dtype(dtype), 0.0)


def assert_same(actual, expected, rtol=None, atol=None):
    """Same structure, type, dtype and shape; values equal (ints, bools) or close (floats, NaNs equal)."""
    if isinstance(expected, (tuple, list)):
        assert type(actual) is type(expected), (type(actual), type(expected))
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_same(a, e, rtol, atol)
        return
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and actual.keys() == expected.keys()
        for k in expected:
            assert_same(actual[k], expected[k], rtol, atol)
        return
    assert type(actual) is type(expected), f"type {type(actual).__name__} != {type(expected).__name__}"
    if not isinstance(expected, (np.ndarray, np.generic)):
        if isinstance(expected, (float, complex)):
            np.testing.assert_allclose(actual, expected, rtol=rtol or 1e-12, equal_nan=True)
        else:
            assert actual == expected
        return
    assert actual.dtype == expected.dtype, f"dtype {actual.dtype} != {expected.dtype}"
    assert np.shape(actual) == np.shape(expected), f"shape {np.shape(actual)} != {np.shape(expected)}"
    if expected.dtype.kind == "c":        # nan and inf in the same parts, finite values close in magnitude
        for part in (np.real, np.imag):
            a, e = part(np.asarray(actual)), part(np.asarray(expected))
            np.testing.assert_array_equal(np.isnan(a), np.isnan(e))
            np.testing.assert_array_equal(np.where(np.isinf(e), a, 0), np.where(np.isinf(e), e, 0))
        r = tolerance(expected.dtype) if rtol is None else rtol
        finite = np.isfinite(expected)
        np.testing.assert_allclose(np.asarray(actual)[finite], np.asarray(expected)[finite], rtol=r,
                                   atol=atol if atol is not None else r)
    elif expected.dtype.kind == "f":
        r = tolerance(expected.dtype) if rtol is None else rtol
        a = atol if atol is not None else r
        np.testing.assert_allclose(actual, expected, rtol=r, atol=a, equal_nan=True)
    else:
        np.testing.assert_array_equal(actual, expected)


def check(fn, *args, rtol=None, atol=None, **kwargs):
    """Compile `fn`, run both on separate copies of the arguments, compare the results and every argument's
    contents afterwards (a function may write into its arguments). Returns the compiled result."""
    ref_args, ref_kwargs = copy.deepcopy((args, kwargs))   # deepcopy keeps "the same array passed twice"
    with np.errstate(all="ignore"):
        expected = fn(*ref_args, **ref_kwargs)
    got_args, got_kwargs = copy.deepcopy((args, kwargs))
    actual = transpile(fn)(*got_args, **got_kwargs)
    assert_same(actual, expected, rtol, atol)
    assert_same(list(got_args), list(ref_args), rtol, atol)
    assert_same(got_kwargs, ref_kwargs, rtol, atol)
    return actual


def aliasing_mismatch(ours, numpys, names=None, skip=()) -> str | None:
    """Where two values of the compiled run (results and arguments, in any order) are the same array object or share
    memory (`np.shares_memory`) while the corresponding two values of NumPy's run do not, or the other way round; None
    if they alias exactly as NumPy's do. `names` labels the positions in the message; `skip` holds pairs of positions
    (i, j), i < j, left out. Identity is compared where NumPy's value is an array (a scalar's is not observable)."""
    names = names or [str(i) for i in range(len(ours))]
    for i, (x, ref_x) in enumerate(zip(ours, numpys)):
        for j in range(i + 1, len(ours)):
            if (i, j) in skip:
                continue
            y, ref_y = ours[j], numpys[j]
            if isinstance(ref_x, np.ndarray) or isinstance(ref_y, np.ndarray):
                if (x is y) != (ref_x is ref_y):
                    return (f"{names[i]} and {names[j]}: {'' if x is y else 'not '}the same object, NumPy's "
                            f"{'are' if ref_x is ref_y else 'are not'}")
            shared, ref_shared = np.shares_memory(x, y), np.shares_memory(ref_x, ref_y)
            if shared != ref_shared:
                return (f"{names[i]} and {names[j]}: {'share' if shared else 'do not share'} memory, NumPy's "
                        f"{'do' if ref_shared else 'do not'}")
    return None


def load_function(path, name: str = "f"):
    """The function `name` of the Python file at `path` (a program a test wrote: compiled from its own file)."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def assert_same_effects(fn, compiled, *args, raises=IndexError):
    """`fn` and its compiled form on separate copies of `args`: both raise `raises` or neither does, and every
    argument ends with the same contents (what the writes before a failed check left in it included)."""
    ref, got = copy.deepcopy(args), copy.deepcopy(args)
    try:
        fn(*ref)
    except raises:
        with pytest.raises(raises):
            compiled(*got)
    else:
        compiled(*got)
    for i, (a, b) in enumerate(zip(got, ref)):
        np.testing.assert_array_equal(a, b, err_msg=f"argument {i} of {args[1:]}")


def raises_like_numpy(fn, *args):
    """NumPy's run raises: the compiled function raises the same builtin exception type (not a wrong value, not an
    internal error); the compiled function's exception."""
    with pytest.raises(Exception) as expected, np.errstate(all="ignore"):
        fn(*args)
    kind = next(c for c in type(expected.value).__mro__ if c.__module__ == "builtins")
    with pytest.raises(kind) as info:
        transpile(fn)(*args)
    assert "internal compiler error" not in str(info.value)
    return info.value


def argument_in_layout(layout: str, rows: int, cols: int) -> np.ndarray:
    """arange values 1, 2, ... in a (rows, cols) argument of the given memory layout: contiguous, strided (every
    other row and column of a larger array), fortran, reversed (both axes)."""
    base = np.arange(1.0, 1.0 + rows * cols).reshape(rows, cols)
    if layout == "contiguous":
        return base
    if layout == "strided":
        return np.arange(1.0, 1.0 + 4 * rows * cols).reshape(2 * rows, 2 * cols)[::2, ::2]
    if layout == "fortran":
        return np.asfortranarray(base)
    if layout == "reversed":
        return base[::-1, ::-1]
    raise AssertionError(layout)



def some_slow(values, default):
    """`values` for pytest.mark.parametrize: those in `default` run in the default suite, the others are marked slow
    (run with `-m slow` before resolving an issue). The default suite has to stay under ten minutes on two cores; a
    grid that is exhaustive in the slow suite keeps a representative corner of it here."""
    return [v if v in default else pytest.param(v, marks=pytest.mark.slow) for v in values]


def some_slow_pairs(rows, cols, every=3, keep=()):
    """(row, col) pairs for a two-axis pytest.mark.parametrize (`"a, b"`): the whole cross product, with the pairs
    where (i + j) % every == 0 (i, j: their positions in `rows`, `cols`), and those in `keep`, in the default suite
    and the others marked slow. Each row then meets every `every`-th col and each col every `every`-th row, on a
    diagonal: with the cols listed by family (dtypes: bool, signed, unsigned, floats) each row meets every family in
    the default suite. The slow suite runs the whole product (some_slow's rule, for two axes)."""
    return [(r, c) if (i + j) % every == 0 or (r, c) in keep else pytest.param(r, c, marks=pytest.mark.slow)
            for i, r in enumerate(rows) for j, c in enumerate(cols)]


# For a test whose cases inside it compile one kernel each (a loop over functions, over dtypes): `part` parametrized
# over PARTS runs the cases `in_part` in the default suite and the others in the slow suite
PARTS = ["default", pytest.param("slow", marks=pytest.mark.slow)]


def in_part(part: str, k: int, every: int = 2) -> bool:
    """Whether case `k` (the sum of its positions on the grid's axes: function, dtype, shape ...) runs in `part`:
    those on every `every`-th diagonal in "default", the others in "slow" (some_slow_pairs's rule, inside a test)."""
    return (k % every == 0) == (part == "default")
