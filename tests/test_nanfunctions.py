"""np.nansum, nanprod, nanmean, nanvar, nanstd, nanmax, nanmin (stdlib/nanfunctions.py, written as NumPy writes
them): values, dtypes and NumPy's exceptions, with NaNs here and there, in whole slices, and none at all; integer
arrays take the plain reductions."""
import warnings

import numpy as np
import pytest

from helpers import PARTS, assert_same, in_part, raises_like_numpy
from transpiler import transpile

NAMES = ("nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin")


def _data(dtype, shape=(4, 5)):
    r = np.random.default_rng(0)
    if np.dtype(dtype).kind == "i":
        return r.integers(-5, 5, shape).astype(dtype)
    x = r.standard_normal(shape).astype(dtype)
    x[r.random(shape) < 0.3] = np.nan
    x[:, 1] = np.nan                     # an all-NaN column
    return x


NAN_DTYPES = [np.float64, np.float32, np.int64]


# each call on half of the function x dtype grid (a diagonal: every function and every dtype) in the default suite,
# and nanstd's keepdims call on float32 (the one whose result is computed into its destination: destinations.py)
@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", NAN_DTYPES)
def test_nan_reductions_match_numpy(name, dtype, part):
    fn = getattr(np, name)
    x = _data(dtype)
    calls = [lambda x: fn(x), lambda x: fn(x, axis=0), lambda x: fn(x, axis=-1, keepdims=True)]
    if name in ("nanvar", "nanstd"):
        calls.append(lambda x: fn(x, axis=1, ddof=1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # NumPy's "Mean of empty slice", "All-NaN slice ..."
        for k, call in enumerate(calls):
            keep = (name, dtype, k) == ("nanstd", np.float32, 2)
            if in_part(part, k + NAMES.index(name) + NAN_DTYPES.index(dtype)) or (keep and part == "default"):
                assert_same(transpile(call)(x), call(x))


@pytest.mark.parametrize("name", ["nanmax", "nanmin"])
def test_nan_extremes_of_an_empty_axis_raise(name):
    fn = getattr(np, name)
    raises_like_numpy(lambda x: fn(x, axis=0), np.zeros((0, 3)))
    assert_same(transpile(lambda x: fn(x, axis=1))(np.zeros((0, 3))), fn(np.zeros((0, 3)), axis=1))


def test_float32_nan_statistics_are_float32_scalars():
    """NumPy divides the float32 total by the intp count in float64 (out=total, casting='unsafe') and rounds to a
    float32 scalar (the sums themselves agree to rounding, as np.sum's do)."""
    x = np.linspace(0, 1, 1001, dtype=np.float32)
    x[::7] = np.nan
    for fn in (lambda x: np.nanmean(x), lambda x: np.nanvar(x, ddof=2), lambda x: np.nanstd(x)):
        assert_same(transpile(fn)(x), fn(x))
