"""NumPy's mean, var and std, written over the primitive sum as NumPy itself computes them
(numpy/_core/_methods.py): same accumulation dtypes, same division by the element count as an intp, same
two-pass centered variance. Compiled, `np.mean(x)` in user code runs this source."""
import numpy as np


def _count(shape, axis):
    """How many elements each result averages: the product of the reduced dims (may be a run-time int)."""
    if axis is None:
        axis = tuple(range(len(shape)))
    elif not isinstance(axis, tuple):
        axis = (axis,)
    n = 1
    for ax in axis:
        n = n * shape[ax]
    return n


def _divide(total, count):
    """total / count in the count's intp dtype, stored back in total's dtype (NumPy: out=total, casting unsafe)."""
    return (total / np.intp(count)).astype(total.dtype)


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    if out is not None:
        raise TypeError("mean(): out= is not supported")
    float16_result = False
    if dtype is None:
        if a.dtype.kind in "biu":
            dtype = np.float64
        elif a.dtype == np.float16:
            dtype = np.float32
            float16_result = True
    total = np.sum(a, axis=axis, dtype=dtype, keepdims=keepdims)
    result = _divide(total, _count(a.shape, axis))
    if float16_result:
        result = result.astype(a.dtype)
    return result


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    if out is not None:
        raise TypeError("var(): out= is not supported")
    if dtype is None and a.dtype.kind in "biu":
        dtype = np.float64
    count = _count(a.shape, axis)
    arrmean = _divide(np.sum(a, axis=axis, dtype=dtype, keepdims=True), count)
    x = a - arrmean
    if a.dtype.kind == "c":       # |x|**2, a float (NumPy's fast path for complex: re*re + im*im)
        x = x.real * x.real + x.imag * x.imag
    else:
        x = x * x
    total = np.sum(x, axis=axis, dtype=dtype, keepdims=keepdims)
    return _divide(total, np.maximum(count - ddof, 0))


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    return np.sqrt(var(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims))
