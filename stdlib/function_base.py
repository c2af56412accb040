"""NumPy's array functions from numpy/lib (_function_base_impl, _type_check_impl, _arraysetops_impl,
_twodim_base_impl, _shape_base_impl), written over the compiler's primitives step by step as NumPy writes them, so that
dtypes (NEP 50), shapes, values and the order of float operations are NumPy's. Under plain NumPy they compute what
NumPy's own functions compute."""
import numpy as np

from .functions import _axis, _axis_tuple, _known, known_while_compiling, raise_if


# ---- choosing and cleaning values ----------------------------------------------------------------------------
def select(condlist, choicelist, default=0):
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    # NumPy keeps Python numbers as they are (weak, NEP 50) and makes everything else an array
    choices = [c if type(c) in (int, float, complex) else np.asarray(c) for c in choicelist]
    default = default if type(default) in (int, float, complex) else np.asarray(default)
    dtype = np.result_type(*choices, default)
    for i, cond in enumerate(condlist):
        if np.asarray(cond).dtype != np.bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    # NumPy fills the result with the default and copies each choice where its condition holds, the first
    # condition last (it wins): the same as nested where, innermost the last condition
    result = np.asarray(default).astype(dtype)
    for choice, cond in zip(choices[::-1], condlist[::-1]):
        result = np.where(cond, choice, result).astype(dtype)
    return result


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    x = np.array(x, copy=copy)
    scalar = x.ndim == 0
    if x.dtype.kind not in "fc":
        return x[()] if scalar else x
    info = np.finfo(x.real.dtype)
    high = info.max if posinf is None else posinf
    low = info.min if neginf is None else neginf
    for part in ("real", "imag") if x.dtype.kind == "c" else ("all",):
        d = x if part == "all" else x.real if part == "real" else x.imag   # (each view taken after the writes before)
        is_nan, is_posinf, is_neginf = np.isnan(d), np.isposinf(d), np.isneginf(d)
        np.copyto(d, nan, where=is_nan)
        np.copyto(d, high, where=is_posinf)
        np.copyto(d, low, where=is_neginf)
    return x[()] if scalar else x


def _signed_inf(x, out, name):
    if out is not None:
        raise TypeError(f"np.{name}(out=) is not supported in compiled code")
    x = np.asarray(x)
    if x.dtype.kind == "c":
        raise TypeError("This operation is not supported for complex values because it would be ambiguous.")
    return x


def isposinf(x, out=None):
    x = _signed_inf(x, out, "isposinf")
    return np.isinf(x) & (x > 0)      # (NumPy: isinf & ~signbit; the same for an infinity)


def isneginf(x, out=None):
    x = _signed_inf(x, out, "isneginf")
    return np.isinf(x) & (x < 0)


def sinc(x):
    x = np.asarray(x)
    y = np.pi * np.where(x == 0, 1.0e-20, x)
    return np.sin(y) / y


# ---- sets ------------------------------------------------------------------------------------------------------
def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """Every algorithm NumPy may choose (a loop of ==, sorting, a table) gives the same booleans as comparing each
    element with each test element in their common dtype, which is what this does."""
    if kind not in (None, "sort", "table"):
        raise ValueError(f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    element = np.asarray(element)
    tests = np.asarray(test_elements).ravel()
    found = np.any(element[..., None] == tests, axis=-1)
    return ~found if invert else found


def ediff1d(ary, to_end=None, to_begin=None):
    ary = np.asarray(ary).ravel()
    if to_begin is None and to_end is None:
        return ary[1:] - ary[:-1]
    pieces = []
    for edge, name in ((to_begin, "to_begin"), (to_end, "to_end")):
        if edge is not None:
            edge = np.asarray(edge)
            if not np.can_cast(edge, ary.dtype, casting="same_kind"):
                raise TypeError(f"dtype of `{name}` must be compatible with input `ary` under the `same_kind` rule.")
            edge = edge.ravel().astype(ary.dtype)
        pieces.append(edge)
    diff = np.subtract(ary[1:], ary[:-1]).astype(ary.dtype)
    parts = [p for p in (pieces[0], diff, pieces[1]) if p is not None]
    return np.concatenate(parts)


# ---- bins and integrals ----------------------------------------------------------------------------------------
def _monotonicity(bins):
    """NumPy's check_array_monotonic over the bins as doubles: 1 increasing (also all equal or empty), -1
    decreasing, 0 neither. It skips the leading run of equal values; the first pair that differs (NaN included)
    decides the direction, and any later pair against it makes the bins not monotonic."""
    edges = bins.astype(np.float64)
    left, right = edges[:-1], edges[1:]
    differs = ~(right == left)
    # (a sentinel pair at the end: the first pair that differs is defined, and in range, for any length)
    first = np.argmax(np.concatenate((differs, [True])))
    padded = np.concatenate((edges, [0.0, 0.0]))
    later = np.arange(left.shape[0]) > first
    rising = np.any(differs) & (padded[first] < padded[first + 1])
    up_ok = ~np.any((left > right) & later)
    down_ok = ~np.any((left < right) & later)
    return np.where(~np.any(differs), 1, np.where(rising, np.where(up_ok, 1, 0), np.where(down_ok, -1, 0)))


def digitize(x, bins, right=False):
    x = np.asarray(x)
    bins = np.asarray(bins)
    if x.dtype.kind == "c":
        raise TypeError("x may not be complex")
    if bins.ndim != 1:
        raise ValueError("object too deep for desired array" if bins.ndim > 1 else
                         "object of too small depth for desired array")
    mono = _monotonicity(bins)
    raise_if(mono == 0, ValueError, "bins must be monotonically increasing or decreasing")
    side = "left" if right else "right"
    descending = bins.shape[0] - np.searchsorted(bins[::-1], x, side=side)
    return np.where(mono == -1, descending, np.searchsorted(bins, x, side=side))


def trapezoid(y, x=None, dx=1.0, axis=-1):
    y = np.asarray(y)
    axis = _axis(axis, y.ndim)
    if x is None:
        d = dx
    else:
        x = np.asarray(x)
        if x.ndim == 1:
            d = np.diff(x)
            d = d.reshape(tuple(d.shape[0] if k == axis else 1 for k in range(y.ndim)))
        else:
            d = np.diff(x, axis=axis)
    upper = tuple(slice(1, None) if k == axis else slice(None) for k in range(y.ndim))
    lower = tuple(slice(None, -1) if k == axis else slice(None) for k in range(y.ndim))
    return (d * (y[upper] + y[lower]) / 2.0).sum(axis)


# ---- views and stacks (numpy/lib/_twodim_base_impl, _function_base_impl, _shape_base_impl) ---------------
def fliplr(m):
    m = np.asarray(m)
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return m[:, ::-1]


def flipud(m):
    m = np.asarray(m)
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return m[::-1, ...]


def rot90(m, k=1, axes=(0, 1)):
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    m = np.asarray(m)
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == m.ndim:
        raise ValueError("Axes must be different.")
    if axes[0] >= m.ndim or axes[0] < -m.ndim or axes[1] >= m.ndim or axes[1] < -m.ndim:
        raise ValueError(f"Axes={axes} out of range for array of ndim={m.ndim}.")
    k %= 4
    if k == 0:
        return m[:]
    if k == 2:
        return np.flip(np.flip(m, axes[0]), axes[1])
    order = list(range(m.ndim))
    order[axes[0]], order[axes[1]] = order[axes[1]], order[axes[0]]
    if k == 1:
        return np.transpose(np.flip(m, axes[1]), order)
    return np.flip(np.transpose(m, order), axes[1])


def column_stack(tup):
    arrays = []
    for v in tup:
        arr = np.asarray(v)
        if arr.ndim < 2:      # NumPy's array(v, ndmin=2).T: a column
            arr = arr.reshape(1, 1) if arr.ndim == 0 else arr[:, None]
        arrays.append(arr)
    return np.concatenate(arrays, 1)


def atleast_3d(*arys):
    res = []
    for ary in arys:
        ary = np.asarray(ary)
        if ary.ndim == 0:
            result = ary.reshape(1, 1, 1)
        elif ary.ndim == 1:
            result = ary[None, :, None]
        elif ary.ndim == 2:
            result = ary[:, :, None]
        else:
            result = ary
        res.append(result)
    return res[0] if len(res) == 1 else tuple(res)


# ---- indices along axes (numpy/lib/_shape_base_impl, _index_tricks_impl) -------------------------------------
def _along_axis_index(arr_shape, indices, axis):
    """NumPy's _make_along_axis_idx: orthogonal aranges, `indices` at `axis`."""
    if indices.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if len(arr_shape) != indices.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    index = []
    for dim, n in enumerate(arr_shape):
        if dim == axis:
            index.append(indices)
        else:
            index.append(np.arange(n).reshape((1,) * dim + (-1,) + (1,) * (indices.ndim - dim - 1)))
    return tuple(index)


def take_along_axis(arr, indices, axis=-1):
    arr, indices = np.asarray(arr), np.asarray(indices)
    if axis is None:
        if indices.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        arr, axis = arr.ravel(), 0
    else:
        axis = _axis(axis, arr.ndim)
    return arr[_along_axis_index(arr.shape, indices, axis)]


def put_along_axis(arr, indices, values, axis):
    indices = np.asarray(indices)
    if axis is None:   # NumPy writes through np.array(arr.flat): a view when arr is contiguous, else read-only
        raise TypeError("np.put_along_axis(axis=None) is not supported in compiled code: NumPy writes through the "
                        "flattened array only when it is contiguous; write x.reshape(-1)[indices] = values")
    axis = _axis(axis, arr.ndim)
    arr[_along_axis_index(arr.shape, indices, axis)] = values


def fill_diagonal(a, val, wrap=False):
    """NumPy writes `a.flat[:end:step] = val`, the values repeated as needed: the same positions by row and column
    (all axes equal beyond two dims)."""
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    values = np.ravel(np.asarray(val))
    if a.ndim == 2:
        rows, cols = a.shape
        limit = rows * cols if wrap else min(rows, cols) * cols
        flat = np.arange((limit + cols) // (cols + 1)) * (cols + 1)
        index = (flat // cols, flat % cols)
        k = flat // (cols + 1)               # 0, 1, 2 ...: which value goes there
    else:
        for n in a.shape[1:]:
            raise_if(n != a.shape[0], ValueError, "All dimensions of input must be of equal length")
        k = np.arange(a.shape[0])
        index = (k,) * a.ndim
    if values.shape[0] > 0:                  # (an empty `val` writes nothing, as NumPy's flat assignment)
        a[index] = values[k % values.shape[0]]


def unravel_index(indices, shape, order="C"):
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    indices = np.asarray(indices)
    if indices.dtype.kind not in "iu":
        raise TypeError("only int indices permitted")
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    size = 1
    for d in shape:
        size = size * d
    raise_if((indices < 0) | (indices >= size), ValueError, "index is out of bounds for array with size " +
             (str(size) if _known(size) else "of the shape"))
    rest = indices.astype(np.intp)
    out = []
    for d in (shape[::-1] if order == "C" else shape):
        out.append(rest % d)
        rest = rest // d
    return tuple(out[::-1] if order == "C" else out)


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    dims = tuple(dims)
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    modes = mode if isinstance(mode, (tuple, list)) else (mode,) * len(dims)
    strides, stride = [], 1
    for d in (dims[::-1] if order == "C" else dims):
        strides.append(stride)
        stride = stride * d
    strides = strides[::-1] if order == "C" else strides
    total = 0
    for index, d, s, m in zip(multi_index, dims, strides, modes):
        index = np.asarray(index)
        if index.dtype.kind not in "iu":
            raise TypeError("only int indices permitted")
        index = index.astype(np.intp)
        if m == "raise":
            raise_if((index < 0) | (index >= d), ValueError, "invalid entry in coordinates array")
        elif m == "wrap":
            index = index % d
        elif m == "clip":
            index = np.clip(index, 0, d - 1)
        else:
            raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got '{m}')")
        total = total + index * s
    return total


# ---- comparing, crossing, convolving, differentiating (numpy/_core/numeric, numpy/lib/_function_base_impl) ------
def array_equal(a1, a2, equal_nan=False):
    a1, a2 = np.asarray(a1), np.asarray(a2)
    if a1.ndim != a2.ndim or a1.shape != a2.shape:     # (a run-time answer where the dims are run-time)
        return False
    if not equal_nan:
        return bool((a1 == a2).all())
    if a1.dtype.kind not in "fc" and a2.dtype.kind not in "fc":     # NumPy's _dtype_cannot_hold_nan
        return bool((a1 == a2).all())
    a1nan, a2nan = np.isnan(a1), np.isnan(a2)
    if not (a1nan == a2nan).all():
        return False
    return bool((a1[~a1nan] == a2[~a1nan]).all())


_CROSS_DIMS = "incompatible dimensions for cross product\n(dimension must be 2 or 3)"


def _three_vectors(v):
    """NumPy's check of the vectors' length; 2-vectors (deprecated since NumPy 2.0) are not compiled."""
    n = v.shape[-1]
    if _known(n):
        if n not in (2, 3):
            raise ValueError(_CROSS_DIMS)
        if n == 2:
            raise TypeError("np.cross of 2-vectors (deprecated since NumPy 2.0) is not supported in compiled code")
    else:
        raise_if(n != 3, ValueError, _CROSS_DIMS + "; compiled np.cross takes 3-vectors only")


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if axis is not None:
        axisa, axisb, axisc = (axis,) * 3
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError("At least one array has zero dimension")
    a = np.moveaxis(a, _axis_tuple(axisa, a.ndim, "axisa")[0], -1)
    b = np.moveaxis(b, _axis_tuple(axisb, b.ndim, "axisb")[0], -1)
    _three_vectors(a)
    _three_vectors(b)
    dtype = np.promote_types(a.dtype, b.dtype)
    a, b = a.astype(dtype), b.astype(dtype)
    a0, a1, a2 = (a[..., k] if a.ndim > 1 else a[k] for k in range(3))    # (a 1-D vector's parts: scalars)
    b0, b1, b2 = (b[..., k] if b.ndim > 1 else b[k] for k in range(3))
    # NumPy: multiply(a1, b2, out=cp0); tmp = a2 * b1; cp0 -= tmp ... (each part one product minus another)
    cp = np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1).astype(dtype)
    return np.moveaxis(cp, -1, _axis_tuple(axisc, cp.ndim, "axisc")[0])


_MODES = ("valid", "same", "full")


def _vector(x):
    x = np.atleast_1d(np.asarray(x))
    if x.ndim != 1:
        raise ValueError("object too deep for desired array")
    return x


def _convolution(a, v, mode, names):
    """Full convolution of a and v (the longer one's products with each element of the shorter, added in the
    shorter's order: NumPy sums each output with one dot product, so the two agree to rounding), cut to `mode`."""
    if mode not in _MODES:
        raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
    n, m = a.shape[0], v.shape[0]
    raise_if(n == 0, ValueError, names[0])
    raise_if(m == 0, ValueError, names[1])
    out = np.zeros(max(n + m - 1, 0), np.result_type(a, v))     # (its size checked before the call: -1 there)
    if m <= n:
        for j in range(m):
            out[j:j + n] += a * v[j]
    else:
        for j in range(n):
            out[j:j + m] += a[j] * v
    return out, n, m


def convolve(a, v, mode="full"):
    a, v = _vector(a), _vector(v)
    out, n, m = _convolution(a, v, mode, ("a cannot be empty", "v cannot be empty"))
    short, long = min(n, m), max(n, m)
    if mode == "same":
        return out[(short - 1) // 2:(short - 1) // 2 + long]
    if mode == "valid":
        return out[short - 1:long]
    return out


def correlate(a, v, mode="valid"):
    a, v = _vector(a), _vector(v)
    v = np.conjugate(v) if v.dtype.kind == "c" else v
    out, n, m = _convolution(a, v[::-1], mode, ("first array argument cannot be empty",
                                                "second array argument cannot be empty"))
    short, long = min(n, m), max(n, m)
    if mode == "same":     # NumPy centres the longer second argument's case one element later
        start = (short - 1) // 2 if m <= n else short // 2
        return out[start:start + long]
    if mode == "valid":
        return out[short - 1:long]
    return out


def gradient(f, *varargs, axis=None, edge_order=1):
    f = np.asarray(f)
    N = f.ndim
    axes = tuple(range(N)) if axis is None else _axis_tuple(axis, N, "axis")
    if len(varargs) == 0:
        dx = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        dx = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        dx = list(varargs)
        if any(np.ndim(d) != 0 for d in dx):
            raise TypeError("np.gradient with coordinate arrays (non-uniform spacing) is not supported in compiled "
                            "code; give one spacing per axis")
    else:
        raise TypeError("invalid number of arguments")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    otype = f.dtype
    if otype.kind not in "fc":
        if otype.kind in "iu":
            f = f.astype(np.float64)
        otype = np.dtype(np.float64)
    outvals = []
    for ax, ax_dx in zip(axes, dx):
        raise_if(f.shape[ax] < edge_order + 1, ValueError, "Shape of array too small to calculate a numerical "
                 "gradient, at least (edge_order + 1) elements are required.")

        def at(index):
            return tuple(index if k == ax else slice(None) for k in range(N))
        out = np.empty_like(f, dtype=otype)
        out[at(slice(1, -1))] = (f[at(slice(2, None))] - f[at(slice(None, -2))]) / (2. * ax_dx)
        if edge_order == 1:
            out[at(0)] = (f[at(1)] - f[at(0)]) / ax_dx
            out[at(-1)] = (f[at(-1)] - f[at(-2)]) / ax_dx
        else:
            a, b, c = -1.5 / ax_dx, 2. / ax_dx, -0.5 / ax_dx
            out[at(0)] = a * f[at(0)] + b * f[at(1)] + c * f[at(2)]
            a, b, c = 0.5 / ax_dx, -2. / ax_dx, 1.5 / ax_dx
            out[at(-1)] = a * f[at(-3)] + b * f[at(-2)] + c * f[at(-1)]
        outvals.append(out)
    return outvals[0] if len(axes) == 1 else tuple(outvals)


def _sample_points(v):
    v = np.asarray(v, dtype=np.float64)
    if v.ndim != 1:
        raise ValueError("object too deep for desired array" if v.ndim > 1 else
                         "object of too small depth for desired array")
    return v


def interp(x, xp, fp, left=None, right=None, period=None):
    """NumPy's C loop (compiled_base.c's arr_interp) element by element: the interval by a binary search (NumPy's
    guess-first search finds the same one for increasing xp), its slope, the value from its left end (from its right
    end where that is NaN, the left end's value where both are and the ends are equal)."""
    if period is not None:
        raise TypeError("np.interp(period=) is not supported in compiled code")
    if np.iscomplexobj(fp):
        raise TypeError("np.interp of complex fp is not supported in compiled code")
    x = np.asarray(x, dtype=np.float64)
    xp, fp = _sample_points(xp), _sample_points(fp)
    n = xp.shape[0]
    raise_if(n == 0, ValueError, "array of sample points is empty")
    raise_if(fp.shape[0] != n, ValueError, "fp and xp are not of the same length.")
    j = np.searchsorted(xp, x, side="right") - 1        # xp[j] <= x < xp[j + 1]; -1 below; n - 1 at or above
    lo = np.minimum(np.maximum(j, 0), np.maximum(n - 2, 0))
    hi = np.minimum(lo + 1, n - 1)
    x0, x1, y0, y1 = xp[lo], xp[hi], fp[lo], fp[hi]
    slope = (y1 - y0) / (x1 - x0)
    from_left = slope * (x - x0) + y0
    from_right = slope * (x - x1) + y1
    r = np.where(np.isnan(from_left), np.where(np.isnan(from_right) & (y0 == y1), y0, from_right), from_left)
    r = np.where(x == x0, y0, r)
    r = np.where(j == n - 1, fp[n - 1], r)
    r = np.where(j < 0, fp[0] if left is None else np.float64(left), r)
    r = np.where(x > xp[n - 1], fp[n - 1] if right is None else np.float64(right), r)
    r = np.where(np.isnan(x) & (n > 1), x, r)    # (one sample point: NumPy's comparisons give fp[0] for a NaN)
    return r[()] if r.ndim == 0 else r


def piecewise(x, condlist, funclist, *args, **kw):
    x = np.asarray(x)
    n2 = len(funclist)
    # NumPy's (undocumented) rule: one condition rather than a list of them is wrapped in a list; an array whose
    # first item is an array is read as a list of conditions, its rows
    if np.isscalar(condlist) or (not isinstance(condlist[0], (list, tuple)) and np.ndim(condlist[0]) == 0
                                 and x.ndim != 0):
        condlist = [condlist]
    if isinstance(condlist, (list, tuple)):
        conds = [np.asarray(c, dtype=bool) for c in condlist]
    else:
        rows = np.asarray(condlist, dtype=bool)
        if not _known(rows.shape[0]):
            raise TypeError("np.piecewise of a condition array read as a list of its rows (NumPy's reading of a "
                            "condition array whose items are arrays) is not supported in compiled code: pass a list "
                            "of conditions")
        conds = [rows[k] for k in range(rows.shape[0])]
    n = len(conds)
    if n == n2 - 1:      # the last function is the default: where no condition holds
        otherwise = ~conds[0] if n == 1 else ~np.any(np.stack(conds), axis=0)
        conds.append(otherwise)
        n += 1
    elif n != n2:
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are expected")
    y = np.zeros_like(x)
    for cond, func in zip(conds, funclist):
        if not callable(func):
            y[cond] = func
        else:
            vals = x[cond]
            if vals.size > 0:
                y[cond] = func(vals, *args, **kw)
    return y


def resize(a, new_shape):
    if not isinstance(new_shape, (tuple, list)):
        new_shape = (new_shape,)
    a = np.ravel(a)
    new_size = 1
    for dim_length in new_shape:
        new_size *= dim_length
        raise_if(dim_length < 0, ValueError, "all elements of `new_shape` must be non-negative")
    if a.size == 0 or new_size == 0:
        return np.zeros_like(a, shape=new_shape)
    # NumPy: concatenate((a,) * ceil(new_size / a.size))[:new_size], the same elements as this gather
    return np.reshape(a[np.arange(new_size) % a.size], new_shape)


def unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    p = np.asarray(p)
    nd = p.ndim
    dd = np.diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    slice1 = [slice(None, None)] * nd     # full slices
    slice1[axis] = slice(1, None)
    slice1 = tuple(slice1)
    dtype = np.result_type(dd, period)
    if np.issubdtype(dtype, np.integer):
        interval_high, rem = divmod(period, 2)
        boundary_ambiguous = rem == 0
    else:
        interval_high = period / 2
        boundary_ambiguous = True
    interval_low = -interval_high
    ddmod = np.mod(dd - interval_low, period) + interval_low
    if boundary_ambiguous:
        # (NumPy's copyto(ddmod, interval_high, where=...): the value cast to ddmod's dtype)
        ddmod = np.where((ddmod == interval_low) & (dd > 0), np.asarray(interval_high).astype(ddmod.dtype), ddmod)
    ph_correct = ddmod - dd
    ph_correct = np.where(abs(dd) < discont, np.zeros((), ph_correct.dtype), ph_correct)
    up = np.array(p, copy=True, dtype=dtype)
    up[slice1] = p[slice1] + ph_correct.cumsum(axis)
    return up


def _chbevl(x, vals):
    b0 = vals[0]
    b1 = 0.0
    for i in range(1, len(vals)):
        b2 = b1
        b1 = b0
        b0 = x * b1 - b2 + vals[i]
    return 0.5 * (b0 - b2)


def _i0_1(x):
    return np.exp(x) * _chbevl(x / 2.0 - 2, _I0A)


def _i0_2(x):
    return np.exp(x) * _chbevl(32.0 / x - 2.0, _I0B) / np.sqrt(x)


# NumPy's own Chebyshev coefficients (Cephes' i0), read from NumPy rather than copied
from numpy.lib._function_base_impl import _i0A as _I0A, _i0B as _I0B   # noqa: E402


def i0(x):
    x = np.asarray(x)
    if x.dtype.kind == 'c':
        raise TypeError("i0 not supported for complex values")
    if x.dtype.kind != 'f':
        x = x.astype(float)
    x = np.abs(x)
    return piecewise(x, [x <= 8.0], [_i0_1, _i0_2])


def modf(x, out=None):
    """np.modf as libm's modf per element: the integer part trunc(x), the fractional part x - trunc(x) (exact) with
    x's sign (-2.0 gives -0.0), a signed zero for an infinity; NaN both."""
    if out is not None:
        raise TypeError("np.modf(out=) is not supported in compiled code: assign its two results")
    x = np.asarray(x)
    x = x.astype(np.modf.resolve_dtypes((x.dtype, None, None))[0])    # (ints and bools: NumPy's loop's float)
    whole = np.trunc(x)
    fraction = np.where(np.isinf(x), np.copysign(0.0, x), np.copysign(x - whole, x))
    return (fraction[()], whole[()]) if x.ndim == 0 else (fraction, whole)


def sort_complex(a):
    b = np.array(a, copy=True)
    b.sort()
    if b.dtype.kind != "c":
        # (NumPy: complex64 for int8, int16, uint8 and uint16, complex128 for the others, float32 and bool too)
        return b.astype(np.complex64 if b.dtype.char in "bhBH" else np.complex128)
    return b


def trim_zeros(filt, trim="fb", axis=None):
    """NumPy's bounding box of the nonzero elements, a view of filt. Per trimmed axis, NumPy's first and last
    nonzero positions (argwhere's min and max) are counted here without a data-dependent array: the leading and
    trailing zeros of "some element nonzero" along that axis. All zero: NumPy slices [0:0], here [n:0], [n:] or
    [:0]: empty as well."""
    filt_ = np.asarray(filt)
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    if axis is None:
        axis_tuple = tuple(range(filt_.ndim))
    else:
        axis_tuple = _axis_tuple(axis, filt_.ndim, "axis")
    if not axis_tuple:
        return filt
    nonzero = filt_ != 0
    sl = []
    for ax in range(filt_.ndim):
        if ax not in axis_tuple:
            sl.append(slice(None))
            continue
        others = tuple(k for k in range(filt_.ndim) if k != ax)
        present = np.any(nonzero, axis=others) if others else nonzero
        start = np.sum(np.cumsum(present) == 0) if "f" in trim else None
        stop = filt_.shape[ax] - np.sum(np.cumsum(present[::-1]) == 0) if "b" in trim else None
        sl.append(slice(start, stop))
    return filt_[tuple(sl)]


def _outer_edges(a, range):
    """NumPy's _get_outer_edges. A size known only at run time takes both of NumPy's paths (a run-time branch)."""
    if range is not None:
        first_edge, last_edge = range
        if known_while_compiling(first_edge) and known_while_compiling(last_edge):
            if first_edge > last_edge:
                raise ValueError("max must be larger than min in range parameter.")
            if not (np.isfinite(first_edge) and np.isfinite(last_edge)):
                raise ValueError(f"supplied range of [{first_edge}, {last_edge}] is not finite")
        else:       # (NumPy's message names the values, which a check made by the kernel cannot)
            raise_if(first_edge > last_edge, ValueError, "max must be larger than min in range parameter.")
            raise_if(~(np.isfinite(first_edge) & np.isfinite(last_edge)), ValueError,
                     "supplied range is not finite")
    elif a.size == 0:
        first_edge, last_edge = 0, 1
    else:
        first_edge, last_edge = a.min(), a.max()
        if a.dtype.kind in "iu":    # (NumPy's edges are float64 whether it subtracts 0.5 or not: the same values)
            first_edge, last_edge = np.float64(first_edge), np.float64(last_edge)
        raise_if(~(np.isfinite(first_edge) & np.isfinite(last_edge)), ValueError,
                 "autodetected range is not finite")
    if first_edge == last_edge:
        first_edge = first_edge - 0.5
        last_edge = last_edge + 0.5
    return first_edge, last_edge


def _equal_bins(a, n_equal_bins, range):
    first_edge, last_edge = _outer_edges(a, range)
    return _edges_between(first_edge, last_edge, a, n_equal_bins)


def _edges_between(first_edge, last_edge, a, n_equal_bins):
    bin_type = np.result_type(first_edge, last_edge, a)
    if np.issubdtype(bin_type, np.integer):
        bin_type = np.result_type(bin_type, float)
    return np.linspace(first_edge, last_edge, n_equal_bins + 1, endpoint=True, dtype=bin_type)


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    a = np.asarray(a)
    if a.dtype == np.bool_:
        raise TypeError("np.histogram_bin_edges of bools is not supported in compiled code: NumPy warns and converts "
                        "them to uint8; convert them first (a.astype(np.uint8))")
    if a.dtype.kind == "c":
        raise TypeError("np.histogram_bin_edges of complex values is not supported in compiled code")
    if weights is not None:
        weights = np.asarray(weights)
        if weights.ndim != a.ndim:
            raise ValueError("weights should have the same shape as a.")
        for wd, ad in zip(weights.shape, a.shape):
            raise_if(wd != ad, ValueError, "weights should have the same shape as a.")
    a = a.ravel()
    if isinstance(bins, str):
        raise TypeError("np.histogram_bin_edges(bins=str): the number of bins depends on the data; give an int or "
                        "the edges")
    if np.ndim(bins) == 0:
        if type(bins) is bool:      # (operator.index(True) is 1)
            bins = int(bins)
        if np.asarray(bins).dtype.kind not in "iu":
            raise TypeError("`bins` must be an integer, a string, or an array")
        known = known_while_compiling(bins)
        if known:
            if bins < 1:
                raise ValueError("`bins` must be positive, when an integer")
        else:
            raise_if(bins < 1, ValueError, "`bins` must be positive, when an integer")
        if known_while_compiling(a.size) or range is not None:
            bin_edges = _equal_bins(a, bins, range)
        elif a.size == 0:       # (a run-time branch: NumPy's edges of Python ints 0 and 1, computed in float64)
            bin_edges = _edges_between(0, 1, a, bins)
        else:
            bin_edges = _equal_bins(a, bins, None)
        raise_if(bin_edges[:-1] >= bin_edges[1:], ValueError,
                 f"Too many bins for data range. Cannot create {bins if known else 'the'} finite-sized bins.")
        return bin_edges
    if np.ndim(bins) != 1:
        raise ValueError("`bins` must be 1d, when an array")
    bin_edges = np.asarray(bins)
    raise_if(bin_edges[:-1] > bin_edges[1:], ValueError, "`bins` must increase monotonically, when an array")
    return bin_edges


# ---- small functions of numpy/lib and numpy/_core ---------------------------------------------------------------
def fix(x, out=None):
    if out is not None:
        raise TypeError("np.fix(out=) is not supported in compiled code")
    return np.trunc(x)


def iscomplex(x):
    ax = np.asarray(x)
    if ax.dtype.kind == "c":
        return ax.imag != 0
    res = np.zeros(ax.shape, bool)
    return res[()]


def isreal(x):
    return np.imag(x) == 0


def asarray_chkfinite(a, dtype=None, order=None):
    a = np.asarray(a) if dtype is None else np.asarray(a, dtype=dtype)
    if a.dtype.kind in "fc":
        raise_if(~np.isfinite(a).all(), ValueError, "array must not contain infs or NaNs")
    return a


def astype(x, dtype, /, *, copy=True, device=None):
    if device is not None and device != "cpu":
        raise ValueError(f'Device not understood. Only "cpu" is allowed, but received: {device}')
    if isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic):
        raise AttributeError(f"'{type(x).__name__}' object has no attribute 'astype'")
    return x.astype(dtype, copy=copy)


def identity(n, dtype=None, *, like=None):
    return np.eye(n) if dtype is None else np.eye(n, dtype=dtype)


def diagflat(v, k=0):
    return np.diag(np.asarray(v).ravel(), k)     # (NumPy's zeros((n, n)) with v on the k-th diagonal)


def dstack(tup):
    arrs = atleast_3d(*tup)
    if not isinstance(arrs, tuple):
        arrs = (arrs,)
    return np.concatenate(arrs, 2)


def hsplit(ary, indices_or_sections):
    if np.ndim(ary) == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return np.split(ary, indices_or_sections, 1 if np.ndim(ary) > 1 else 0)


def vsplit(ary, indices_or_sections):
    if np.ndim(ary) < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return np.split(ary, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    if np.ndim(ary) < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return np.split(ary, indices_or_sections, 2)


def unstack(x, /, *, axis=0):
    if x.ndim == 0:
        raise ValueError("Input array must be at least 1-d.")
    return tuple(np.moveaxis(x, axis, 0))


# ---- index arrays (numpy/_core/numeric.py, numpy/lib/_index_tricks_impl.py, _twodim_base_impl.py) ---------------
def indices(dimensions, dtype=int, sparse=False):
    dimensions = tuple(dimensions)
    N = len(dimensions)
    shape = (1,) * N
    if sparse:
        res = ()
    else:
        res = np.empty((N,) + dimensions, dtype=dtype)
    for i, dim in enumerate(dimensions):
        idx = np.arange(dim, dtype=dtype).reshape(shape[:i] + (dim,) + shape[i + 1:])
        if sparse:
            res = res + (idx,)
        else:
            res[i] = idx
    return res


def diag_indices(n, ndim=2):
    idx = np.arange(n)
    return (idx,) * ndim


def diag_indices_from(arr):
    if not arr.ndim >= 2:
        raise ValueError("input array must be at least 2-d")
    for d in arr.shape[1:]:
        raise_if(d != arr.shape[0], ValueError, "All dimensions of input must be of equal length")
    return diag_indices(arr.shape[0], arr.ndim)


def tril_indices(n, k=0, m=None):
    tri_ = np.tri(n, m, k=k, dtype=bool)
    return tuple(np.broadcast_to(inds, tri_.shape)[tri_] for inds in indices(tri_.shape, sparse=True))


def triu_indices(n, k=0, m=None):
    tri_ = ~np.tri(n, m, k=k - 1, dtype=bool)
    return tuple(np.broadcast_to(inds, tri_.shape)[tri_] for inds in indices(tri_.shape, sparse=True))


def tril_indices_from(arr, k=0):
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return tril_indices(arr.shape[-2], k=k, m=arr.shape[-1])


def triu_indices_from(arr, k=0):
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return triu_indices(arr.shape[-2], k=k, m=arr.shape[-1])


# ---- np.linalg's array API functions (numpy/linalg/_linalg.py) -------------------------------------------------
def linalg_outer(x1, x2, /):
    x1 = np.asarray(x1)
    x2 = np.asarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are x1.ndim={x1.ndim} and "
                         f"x2.ndim={x2.ndim}.")
    return np.outer(x1, x2)


def linalg_trace(x, /, *, offset=0, dtype=None):
    return np.trace(x, offset, axis1=-2, axis2=-1, dtype=dtype)


def linalg_cross(x1, x2, /, *, axis=-1):
    x1 = np.asarray(x1)
    x2 = np.asarray(x2)
    n1, n2 = x1.shape[axis], x2.shape[axis]
    message = "Both input arrays must be (arrays of) 3-dimensional vectors, but they are {} and {} dimensional instead."
    if _known(n1) and _known(n2):
        if n1 != 3 or n2 != 3:
            raise ValueError(message.format(n1, n2))
    else:       # (NumPy's message names the sizes, which a check made by the kernel cannot)
        raise_if((n1 != 3) | (n2 != 3), ValueError, "Both input arrays must be (arrays of) 3-dimensional vectors (a "
                 "size known only when the kernel runs is not 3)")
    return np.cross(x1, x2, axis=axis)


# ---- polynomials and cumulative functions ---------------------------------------------------------------------
def polyval(p, x):
    p = np.asarray(p)
    x = np.asarray(x)
    y = np.zeros_like(x)
    for pv in p:
        y = y * x + pv
    return y


def vander(x, N=None, increasing=False):
    x = np.asarray(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    if N is None:
        N = x.shape[0]
    v = np.empty((x.shape[0], N), dtype=np.promote_types(x.dtype, int))
    tmp = v if increasing else v[:, ::-1]
    tmp[:, :1] = 1                        # (N == 0: nothing)
    tmp[:, 1:] = x[:, None]
    tmp[:, 1:] = np.multiply.accumulate(tmp[:, 1:], axis=1)
    return v


def _cumulative(x, ufunc, axis, dtype, out, include_initial):
    if out is not None:
        raise TypeError("out= is not supported here")
    x = np.atleast_1d(x)
    if axis is None:
        if x.ndim >= 2:
            raise ValueError("For arrays which have more than one dimension ``axis`` argument is required.")
        axis = 0
    res = ufunc.accumulate(x, axis=axis, dtype=dtype)
    if include_initial:
        axis = _axis(axis, x.ndim)
        first = np.full(res.shape[:axis] + (1,) + res.shape[axis + 1:], ufunc.identity, dtype=res.dtype)
        res = np.concatenate([first, res], axis=axis)
    return res


def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    return _cumulative(x, np.add, axis, dtype, out, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    return _cumulative(x, np.multiply, axis, dtype, out, include_initial)


def item(a, *args):
    """x.item(): the element as a Python number (NumPy's own errors for a size other than 1, an index out of
    range)."""
    a = np.asarray(a)
    if not args:
        raise_if(a.size != 1, ValueError, "can only convert an array of size 1 to a Python scalar")
        value = a.reshape(-1)[0]
    elif len(args) == 1 and not isinstance(args[0], tuple):
        value = a.reshape(-1)[args[0]]
    else:
        value = a[args[0] if len(args) == 1 else args]
    kind = a.dtype.kind
    return bool(value) if kind == "b" else int(value) if kind in "iu" else float(value) if kind == "f" \
        else complex(value)
