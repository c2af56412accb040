"""NumPy's NaN-ignoring reductions, written as NumPy writes them (numpy/lib/_nanfunctions_impl.py): NaNs replaced by
the reduction's identity, counts of the other elements as intp, the division by a count in the total's dtype with
unsafe casting, `nanmax` / `nanmin` as fmax / fmin reductions. Arrays of integers and bools hold no NaN: the plain
reductions. Compiled, `np.nanmean(x)` in user code runs this source."""
import numpy as np

from .functions import raise_if


def _replace_nan(a, val):
    """(a with its NaNs replaced by val, the NaN mask), or (a, None) for an array that cannot hold NaN."""
    if a.dtype.kind not in "fc":
        return a, None
    mask = np.isnan(a)
    return np.where(mask, val, a), mask


def _no_out(name, out):
    if out is not None:
        raise TypeError(f"{name}(): out= is not supported")


def _divide_by_count(total, count):
    """total / count stored back in total's dtype (NumPy: np.divide(..., out=total, casting='unsafe'))."""
    return (total / count).astype(total.dtype)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False):
    _no_out("nansum", out)
    a, _ = _replace_nan(a, 0)
    return np.sum(a, axis=axis, dtype=dtype, keepdims=keepdims)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False):
    _no_out("nanprod", out)
    a, _ = _replace_nan(a, 1)
    return np.prod(a, axis=axis, dtype=dtype, keepdims=keepdims)


def _counted_total(arr, mask, axis, dtype, keepdims):
    if dtype is not None and np.dtype(dtype).kind not in "fc":
        raise TypeError("If a is inexact, then dtype must be inexact")
    count = np.sum(~mask, axis=axis, dtype=np.intp, keepdims=keepdims)
    total = np.sum(arr, axis=axis, dtype=dtype, keepdims=keepdims)
    return total, count


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False):
    _no_out("nanmean", out)
    arr, mask = _replace_nan(a, 0)
    if mask is None:
        return np.mean(arr, axis=axis, dtype=dtype, keepdims=keepdims)
    total, count = _counted_total(arr, mask, axis, dtype, keepdims)
    return _divide_by_count(total, count)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    _no_out("nanvar", out)
    arr, mask = _replace_nan(a, 0)
    if mask is None:
        return np.var(arr, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
    total, count = _counted_total(arr, mask, axis, dtype, True)
    mean = _divide_by_count(total, count)
    # NumPy subtracts into arr itself (casting='unsafe'): the deviations keep arr's dtype
    deviation = np.where(mask, 0, (arr - mean).astype(arr.dtype))
    if deviation.dtype.kind == "c":
        squares = (deviation * deviation.conj()).real
    else:
        squares = deviation * deviation
    var = np.sum(squares, axis=axis, dtype=dtype, keepdims=keepdims)
    if not keepdims:
        count = count.squeeze(axis)
    dof = count - ddof
    var = _divide_by_count(var, dof)
    # NaN where no degree of freedom is left; a scalar stays a scalar (`[()]` of a 0-d array)
    return np.where(dof <= 0, np.nan, var).astype(var.dtype)[()]


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    var = nanvar(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)
    return np.sqrt(var)


def _nan_extreme(ufunc, name, a, axis, out, keepdims):
    _no_out(name, out)
    return ufunc.reduce(a, axis=axis, keepdims=keepdims)


def nanmax(a, axis=None, out=None, keepdims=False):
    return _nan_extreme(np.fmax, "nanmax", a, axis, out, keepdims)


def nanmin(a, axis=None, out=None, keepdims=False):
    return _nan_extreme(np.fmin, "nanmin", a, axis, out, keepdims)


def nancumsum(a, axis=None, dtype=None, out=None):
    _no_out("nancumsum", out)
    a, _ = _replace_nan(np.asarray(a), 0)
    return np.cumsum(a, axis=axis, dtype=dtype)


def nancumprod(a, axis=None, dtype=None, out=None):
    _no_out("nancumprod", out)
    a, _ = _replace_nan(np.asarray(a), 1)
    return np.cumprod(a, axis=axis, dtype=dtype)


def _nan_arg(a, axis, out, keepdims, name, fill, arg):
    _no_out(name, out)
    a, mask = _replace_nan(np.asarray(a), fill)
    if mask is not None:
        # (NumPy checks only a mask with elements: an empty slice is argmax's own ValueError, the same type)
        raise_if(np.any(np.all(mask, axis=axis)) & (mask.size > 0), ValueError, "All-NaN slice encountered")
    return arg(a, axis=axis, keepdims=keepdims)


def nanargmax(a, axis=None, out=None, *, keepdims=False):
    return _nan_arg(a, axis, out, keepdims, "nanargmax", -np.inf, np.argmax)


def nanargmin(a, axis=None, out=None, *, keepdims=False):
    return _nan_arg(a, axis, out, keepdims, "nanargmin", np.inf, np.argmin)
